import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonObject, parseJson, parseJsonMembers, stringifyJson } from '../src/json/index.js';

describe('parseJsonMembers', () => {
  it('gives the kept members of an object as parseJson does, skipping the others (property)', () => {
    const object = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }));
    fc.assert(
      fc.property(object, fc.array(fc.string({ maxLength: 4 })), fc.boolean(), (plain, extra, spaced) => {
        const text = JSON.stringify(plain, null, spaced ? 1 : undefined);
        const whole = parseJson(text) as JsonObject;
        const keep = new Set([...whole.keys.filter((_, i) => i % 2 === 0), ...extra]);
        const expected = new JsonObject();
        for (const [i, key] of whole.keys.entries()) if (keep.has(key)) expected.set(key, whole.values[i]!);
        assert.equal(stringifyJson(parseJsonMembers(text, keep)), stringifyJson(expected));
      }),
    );
  });

  it('skips strings with escaped quotes and backslashes, and nested values', () => {
    const text =
      '{"a":"x\\\\","b":"say \\"hi\\" \\\\\\"","c":[{"d":"}"},"]"],"e":{"f":[1,{"g":"{"}]},"n":-1.5e3,"t":true}';
    assert.equal(stringifyJson(parseJsonMembers(text, new Set(['n', 't']))), '{"n":-1500.0,"t":true}');
    assert.equal(stringifyJson(parseJsonMembers(text, new Set(['e']))), '{"e":{"f":[1,{"g":"{"}]}}');
    assert.equal(stringifyJson(parseJsonMembers('[1,2]', new Set(['a']))), '{}');
  });
});

/**
 * The members a scan or an index build reads, found by name in flat texts (mango/flat-members.ts):
 * the same members, values and order as json/parse.ts `parseJsonMembers` on any text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJsonMembers, stringifyJson } from '../src/json/index.js';
import { memberValuesInto, membersReader } from '../src/mango/flat-members.js';
import { generatedDocs } from './support/generated-docs.js';

const MEMBERS = ['type', 'views', 'tags', 'a"b', 'c\\d', '_id'];

function sameAsWalk(text: string, names: readonly string[]): void {
  const keep = new Set(names);
  const read = membersReader(keep)(text);
  const walked = parseJsonMembers(text, keep);
  assert.deepEqual(read.keys, walked.keys, text);
  assert.equal(stringifyJson(read), stringifyJson(walked), text);
  // The values alone, in the order asked (an index build's keys), into an array a document
  // before this one filled (a build reuses it): every slot is written, a missing one undefined.
  const values = names.map(() => 'left from the document before' as string | undefined) as ReturnType<
    typeof walked.get
  >[];
  memberValuesInto(names)(text, values);
  assert.equal(values.length, names.length);
  names.forEach((name, i) => {
    const value = values[i];
    const expected = walked.get(name);
    assert.equal(
      value === undefined ? undefined : stringifyJson(value),
      expected === undefined ? undefined : stringifyJson(expected),
      text,
    );
  });
}

describe('mango flat members', () => {
  it('reads what the member walk reads, on generated documents', () => {
    const docs = generatedDocs({
      // Strings that spell a member's name (as a value or in an array), quotes and escapes.
      scalar: fc.oneof(
        fc.constantFrom(...MEMBERS, 'views:', '"views":', '{', 'x\\"views\\":1', 1.5, -0),
        fc.string(),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(Number),
        fc.boolean(),
        fc.constant(null),
      ),
      nested: MEMBERS,
      members: MEMBERS,
      base: {},
    });
    const names = fc.subarray(MEMBERS, { minLength: 1 });
    fc.assert(
      fc.property(docs, names, (text, wanted) => sameAsWalk(text, wanted)),
      { numRuns: 2000 },
    );
  });

  it('takes the last of a duplicate member, and reads past whitespace', () => {
    sameAsWalk('{"views":1,"type":"a","views":2}', ['views', 'type']);
    sameAsWalk('{ "type" : "post" , "views" :\n 7 }', ['views', 'type']);
    sameAsWalk('{"tags":["views","type"],"type":"views"}', ['views', 'type']);
    sameAsWalk('{"tags":["a",["views",1]],"views":[1,[2,"]"]]}', ['views']);
    sameAsWalk('{"views":12345678901234567890,"type":1.0,"n":1e2}', ['views', 'type', 'n']);
    const numbers = '{"a":-0,"b":0,"c":-12,"d":123456789012345,"e":-1234567890123456,"f":9007199254740993,"g":0.5}';
    sameAsWalk(numbers, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    sameAsWalk('{"a":"\ud800x","b":"\udc00"}', ['a', 'b']);
  });

  it('leaves nested objects, escapes and odd names to the walk', () => {
    sameAsWalk('{"a":{"views":1},"views":2}', ['views']);
    sameAsWalk('{"a":{"views":1}}', ['views']);
    sameAsWalk('{"x\\"views":1,"views":2}', ['views']);
    sameAsWalk('{"vi\\u0065ws":3}', ['views']);
    sameAsWalk('{"a\\"b":1}', ['a"b']);
    sameAsWalk('{}', ['views']);
    sameAsWalk('[1]', ['views']);
  });
});

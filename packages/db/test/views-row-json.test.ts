import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rowJson } from '../src/views/index/row-json.js';

// A row's key and value JSON are what queries answer: rowJson must be JSON.stringify exactly.

const tricky = fc.constantFrom(
  '',
  'a',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '😀',
  '\ud800',
  '\udc00x',
  'é',
);
const text = fc.array(fc.oneof(tricky, fc.string()), { maxLength: 4 }).map((parts) => parts.join(''));

test('rowJson writes what JSON.stringify writes', () => {
  fc.assert(
    fc.property(fc.oneof(text, fc.array(text, { maxLength: 6 }), fc.jsonValue()), (value) => {
      assert.equal(rowJson(value), JSON.stringify(value));
    }),
    { numRuns: 5000 },
  );
  for (const value of [null, 0, -0, 1.5, true, [], [null], ['a', 1], [['a']], { a: 'b' }, ['a', 'b', 'c', 'd', 'e']]) {
    assert.equal(rowJson(value), JSON.stringify(value));
  }
  // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
  assert.equal(rowJson([, 'a']), JSON.stringify([, 'a']));
});

// The mapper's values handed to the in-memory postings (src/search/mapped-values.ts): a value is
// given out only when it is certainly the one its row was made of; a document mapped again
// before its row was taken (the view updater maps a batch while it writes the one before) is
// parsed from its row, for as long as any of its rows wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MappedValues } from '../src/search/mapped-values.js';
import type { DocValue } from '../src/search/search-rows.js';

const value = (word: string): DocValue => ({ s: { word }, n: {}, t: {} });

test('a mapped value is taken once, by its document', () => {
  const mapped = new MappedValues();
  const a = value('a');
  mapped.noted('x', a);
  assert.equal(mapped.take('y'), undefined);
  assert.equal(mapped.take('x'), a);
  assert.equal(mapped.take('x'), undefined);
});

test('a value JSON would change is not given out', () => {
  const mapped = new MappedValues();
  mapped.noted('x', undefined);
  assert.equal(mapped.take('x'), undefined);
});

test('a document mapped twice before its rows were taken is parsed until none of them waits', () => {
  const mapped = new MappedValues();
  mapped.noted('x', value('batch 1'));
  mapped.noted('x', value('batch 2'));
  // Batch 1's row, then batch 3 mapped while batch 2's row waits: none is certain.
  assert.equal(mapped.take('x'), undefined);
  mapped.noted('x', value('batch 3'));
  assert.equal(mapped.take('x'), undefined);
  assert.equal(mapped.take('x'), undefined);
  // All taken: the next mapping is certain again.
  const d = value('batch 4');
  mapped.noted('x', d);
  assert.equal(mapped.take('x'), d);
});

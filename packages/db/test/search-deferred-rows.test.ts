// The documents' tree of a search index applies an update to its postings at once and to its
// rows later (src/search/search-docs-tree.ts `settle`): reads of the rows see every update, the
// postings answer the same before and after the rows are written, and a failed write of the rows
// fails every read and update after it until the index goes back to its stored state.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BuildableRowTree } from '../src/views/index/view-index.js';
import type { RowEntry, RowGroup, RowRange, RowValue } from '../src/views/index/row-tree.js';
import { SearchDocsTree } from '../src/search/search-docs-tree.js';
import { encodeFieldPostings } from '../src/search/postings-codec.js';

/** Rows in a sorted array; `failNext` makes the next update throw. */
class ArrayTree implements BuildableRowTree {
  entries: RowEntry[] = [];
  updates = 0;
  failNext = false;

  update(inserts: readonly RowEntry[], removes: readonly Buffer[]): void {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk error');
    }
    this.updates++;
    const gone = new Set([...removes, ...inserts.map((row) => row.key)].map((key) => key.toString('latin1')));
    this.entries = this.entries.filter((row) => !gone.has(row.key.toString('latin1')));
    this.entries.push(...inserts);
    this.entries.sort((a, b) => Buffer.compare(a.key, b.key));
  }
  *rows(range: RowRange): Generator<RowEntry> {
    for (const row of this.entries) {
      if (range.gte !== undefined && Buffer.compare(row.key, range.gte) < 0) continue;
      if (range.lt !== undefined && Buffer.compare(row.key, range.lt) >= 0) continue;
      yield row;
    }
  }
  countBelow(key: Buffer): number {
    return this.entries.filter((row) => Buffer.compare(row.key, key) < 0).length;
  }
  countFrom(key: Buffer): number {
    return this.entries.length - this.countBelow(key);
  }
  total(): number {
    return this.entries.length;
  }
  invalidate(): void {}
  *groups(): Generator<RowGroup> {}
  encodeValue(): Uint8Array {
    throw new Error('not used');
  }
  bulkLoad(): void {
    throw new Error('not used');
  }
  bulkLoadSteps(): Generator<void> {
    throw new Error('not used');
  }
}

function row(id: string, words: string[]): RowEntry {
  const positions = new Map<string, number[]>();
  words.forEach((word, i) => {
    const list = positions.get(word);
    if (list === undefined) positions.set(word, [i]);
    else list.push(i);
  });
  const value: RowValue = [
    'null',
    id,
    JSON.stringify({ s: {}, n: {}, t: {}, p: { default: encodeFieldPostings(1, positions) } }),
  ];
  return { key: Buffer.from(id, 'latin1'), value };
}

async function loaded(ids: string[]): Promise<{ inner: ArrayTree; docs: SearchDocsTree }> {
  const inner = new ArrayTree();
  inner.update(
    ids.map((id) => row(id, ['fox', id])),
    [],
  );
  const docs = new SearchDocsTree(inner);
  await docs.postings();
  return { inner, docs };
}

describe("a search index's documents' tree, its rows written after its postings", () => {
  test('an update reaches the postings at once and the rows at the first read or settle', async () => {
    const { inner, docs } = await loaded(['a', 'c', 'e']);
    const before = inner.updates;
    docs.update([row('b', ['fox', 'dog']), row('e', ['dog'])], [Buffer.from('a', 'latin1')]);
    docs.update([row('d', ['fox'])], []);
    assert.equal(inner.updates, before, 'the rows wait');
    const postings = await docs.postings();
    // Ranks and the total as the rows will have them: b, c, d, e live.
    assert.equal(docs.total(), 4);
    assert.deepEqual(
      ['b', 'c', 'd', 'e'].map((id) => postings.rankOf(postings.docOf(id)!)),
      [0, 1, 2, 3],
    );
    assert.equal(postings.docFreq('default', 'fox'), 3);
    // A read of the rows applies both updates, in order, first.
    assert.deepEqual(
      [...docs.rows({}, false)].map((entry) => entry.key.toString('latin1')),
      ['b', 'c', 'd', 'e'],
    );
    assert.equal(inner.updates, before + 2);
    assert.equal(docs.countBelow(Buffer.from('d', 'latin1')), 2);
    docs.settle();
    assert.equal(inner.updates, before + 2, 'nothing left to apply');
  });

  test('a failed write of the rows fails every read and update until the index invalidates the tree', async () => {
    const { inner, docs } = await loaded(['a', 'b']);
    docs.update([row('c', ['fox'])], []);
    inner.failNext = true;
    assert.throws(() => docs.settle(), /disk error/);
    assert.throws(() => docs.settle(), /disk error/);
    assert.throws(() => docs.countBelow(Buffer.from('b', 'latin1')), /disk error/);
    assert.throws(() => docs.update([row('d', ['fox'])], []), /disk error/);
    // The index goes back to its stored state: the postings are made again from the rows.
    docs.invalidate();
    assert.equal(docs.total(), 2);
    const postings = await docs.postings();
    assert.equal(postings.docFreq('default', 'fox'), 2);
    docs.update([row('d', ['fox'])], []);
    docs.settle();
    assert.equal(docs.total(), 3);
  });

  test('an invalidated tree drops the updates it deferred (the index is its stored state again)', async () => {
    const { inner, docs } = await loaded(['a']);
    docs.update([row('b', ['fox'])], []);
    docs.invalidate();
    docs.settle();
    assert.deepEqual(
      inner.entries.map((entry) => entry.key.toString('latin1')),
      ['a'],
    );
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { BTree, MemoryNodeStore, compareKeys, type Reducer } from '../src/btree/index.js';
import { entryBytes } from '../src/btree/node.js';
import { ExternalSorter } from '../src/btree/run-sort.js';
import { sortByKey, sortedOrderPacked } from '../src/btree/sort.js';
import { SqliteNodeStore } from '../src/storage/local-index/sqlite-node-store.js';
import { scratchFile } from '../src/storage/scratch-file.js';

type SumRed = [sum: number, count: number];
const sumReducer: Reducer<number, SumRed> = {
  reduce: (es) => [es.reduce((s, e) => s + e.value, 0), es.length],
  rereduce: (rs) => [rs.reduce((s, r) => s + r[0], 0), rs.reduce((s, r) => s + r[1], 0)],
};
const enc = (n: number): Buffer => Buffer.from(JSON.stringify(n));

/** The stable reference order of records by key. */
function reference(records: [Buffer, Buffer][]): [Buffer, Buffer][] {
  return records
    .map((r, i) => [r, i] as const)
    .sort((a, b) => compareKeys(a[0][0], b[0][0]) || a[1] - b[1])
    .map(([r]) => r);
}

const keyArb = fc.uint8Array({ minLength: 0, maxLength: 12 }).map((a) => Buffer.from(a.map((b) => b % 4)));

/** sortedOrderPacked of `keys` packed end to end, as the sorter packs them. */
function packedOrder(keys: readonly Buffer[]): number[] {
  const starts = new Int32Array(keys.length);
  const lengths = new Int32Array(keys.length);
  let at = 0;
  keys.forEach((k, i) => {
    starts[i] = at;
    lengths[i] = k.length;
    at += k.length;
  });
  return [...sortedOrderPacked(Buffer.concat(keys), starts, lengths, keys.length)];
}

describe('btree: sorting helpers', () => {
  test('sortedOrderPacked and sortByKey give the stable byte order', () => {
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 300 }), (keys) => {
        const a = packedOrder(keys);
        const items = keys.map((key, i) => ({ key, i }));
        assert.deepEqual(
          sortByKey(items).map((item) => item.i),
          a,
        );
        for (let i = 1; i < a.length; i++) {
          const c = compareKeys(keys[a[i - 1]!]!, keys[a[i]!]!);
          assert.ok(c < 0 || (c === 0 && a[i - 1]! < a[i]!));
        }
      }),
      { numRuns: 200 },
    );
  });

  test('sortedOrderPacked: input in order, whole or in stretches, keeps the stable byte order', () => {
    const sortedKeys = fc
      .tuple(fc.array(keyArb, { maxLength: 400 }), fc.array(fc.nat(), { maxLength: 4 }))
      .map(([keys, swaps]) => {
        // Sorted, then a few keys moved: buckets in order beside buckets out of order.
        const out = [...keys].sort(compareKeys);
        for (const s of swaps) {
          if (out.length < 2) break;
          const a = s % out.length;
          const b = (s >> 3) % out.length;
          [out[a], out[b]] = [out[b]!, out[a]!];
        }
        return out;
      });
    fc.assert(
      fc.property(sortedKeys, (keys) => {
        const a = packedOrder(keys);
        const expected = keys
          .map((key, i) => [key, i] as const)
          .sort((x, y) => compareKeys(x[0], y[0]) || x[1] - y[1])
          .map(([, i]) => i);
        assert.deepEqual(a, expected);
      }),
      { numRuns: 300 },
    );
  });

  test('ExternalSorter: in memory and spilled to runs, equal keys in insertion order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'divan-sort-'));
    try {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(keyArb, fc.uint8Array({ maxLength: 40 })), { maxLength: 400 }),
          fc.constantFrom(1024, 4096, 1 << 20),
          (pairs, memoryBytes) => {
            const records = pairs.map(([k, v]) => [Buffer.from(k), Buffer.from(v)] as [Buffer, Buffer]);
            const sorter = new ExternalSorter({ file: scratchFile(join(dir, 'run.tmp')), memoryBytes });
            for (const [k, v] of records) sorter.add(k, v);
            assert.equal(sorter.size, records.length);
            assert.equal(
              sorter.bytes,
              records.reduce((sum, [k, v]) => sum + entryBytes(k, v), 0),
            );
            const out = [...sorter.sorted()].map(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
            sorter.dispose();
            assert.deepEqual(out, reference(records));
          },
        ),
        { numRuns: 100 },
      );
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('ExternalSorter: records larger than a read chunk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'divan-sort-'));
    try {
      const sorter = new ExternalSorter({ file: scratchFile(join(dir, 'run.tmp')), memoryBytes: 64 * 1024 });
      const records: [Buffer, Buffer][] = [];
      for (let i = 0; i < 40; i++) {
        const key = Buffer.from(`k${(i * 7919) % 40}`);
        const value = Buffer.alloc(i % 5 === 0 ? 300_000 + i : 100 + i, i);
        records.push([key, value]);
        sorter.add(key, value);
      }
      const out = [...sorter.sorted()].map(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
      sorter.dispose();
      assert.deepEqual(out, reference(records));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('btree: bulkLoad', () => {
  test('matches a tree built by updates, at every size; updates work after it', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { maxLength: 600 }),
        fc.constantFrom(128, 256, 2048),
        fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 60 }),
        fc.boolean(),
        (ns, nodeBytes, changes, cacheLeaves) => {
          const key = (n: number): Buffer => Buffer.from(`k${String(n).padStart(6, '0')}`);
          const sorted = [...ns].sort((a, b) => a - b);
          const store = new MemoryNodeStore();
          const t = new BTree<number, SumRed>({ store, reducer: sumReducer, nodeBytes });
          t.bulkLoad(
            sorted.map((n) => [key(n), enc(n)] as const),
            { cacheLeaves },
          );
          // Cached: every node written is in the cache (the root and leaves included).
          if (cacheLeaves) assert.equal(t.cachedNodes, store.size);
          const stats = t.verify();
          assert.equal(stats.entries, ns.length);
          if (stats.height > 1) assert.ok(stats.minNodeBytes >= nodeBytes / 4, `node of ${stats.minNodeBytes} bytes`);
          assert.deepEqual(
            [...t.fold()].map((e) => e.value),
            sorted,
          );
          assert.deepEqual(t.reduce(), [sorted.reduce((a, b) => a + b, 0), sorted.length]);
          // Incremental changes on top of a bulk-loaded tree.
          const model = new Map(sorted.map((n) => [n, n]));
          const inserts = changes.filter((_, i) => i % 2 === 0);
          const removes = changes.filter((_, i) => i % 2 === 1);
          for (const n of removes) model.delete(n);
          for (const n of inserts) model.set(n, n);
          t.update(
            inserts.map((n) => ({ key: key(n), value: n })),
            removes.map(key),
          );
          t.verify();
          assert.deepEqual(
            [...t.fold()].map((e) => e.value),
            [...model.keys()].sort((a, b) => a - b),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  test('equal keys: the last wins; out of order throws; needs an empty tree', () => {
    const t = new BTree<number, SumRed>({ store: new MemoryNodeStore(), reducer: sumReducer, nodeBytes: 128 });
    const a = Buffer.from('a');
    const b = Buffer.from('b');
    t.bulkLoad([
      [a, enc(1)],
      [a, enc(2)],
      [b, enc(3)],
    ]);
    assert.deepEqual(
      [...t.fold()].map((e) => e.value),
      [2, 3],
    );
    assert.throws(() => t.bulkLoad([[a, enc(1)]]), /empty tree/);
    const u = new BTree<number, SumRed>({ store: new MemoryNodeStore(), reducer: sumReducer });
    assert.throws(() =>
      u.bulkLoad([
        [b, enc(1)],
        [a, enc(2)],
      ]),
    );
    assert.equal(u.totalCount(), 0);
    u.bulkLoad([]);
    assert.equal(u.totalCount(), 0);
  });

  test('SQLite store: a throwing source leaves the tree empty', () => {
    const db = new Database(':memory:');
    const store = new SqliteNodeStore(db, 'nodes');
    const t = new BTree<number, SumRed>({ store, reducer: sumReducer, nodeBytes: 128 });
    function* rows(n = 500, fail = true): Generator<readonly [Buffer, Buffer]> {
      for (let i = 0; i < n; i++) yield [Buffer.from(`k${String(i).padStart(4, '0')}`), enc(i)];
      if (fail) throw new Error('source failed');
    }
    assert.throws(() => t.bulkLoad(rows()), /source failed/);
    assert.equal(t.totalCount(), 0);
    assert.equal(db.prepare('SELECT count(*) FROM nodes WHERE id >= 0').pluck().get(), 0);
    t.bulkLoad(rows(300, false));
    assert.equal(t.totalCount(), 300);
    assert.deepEqual(t.reduce(), [(299 * 300) / 2, 300]);
    t.verify();
    db.close();
  });
});

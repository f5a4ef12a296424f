import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import {
  BTree,
  MemoryNodeStore,
  WriteBackNodeStore,
  compareKeys,
  type Entry,
  type KeyRange,
  type NodeStore,
  type Reducer,
} from '../src/btree/index.js';
import { SqliteNodeStore } from '../src/storage/local-index/sqlite-node-store.js';

/**
 * Model-based properties: random batches of inserts/removes applied to the tree and to a plain
 * sorted model; then folds, counts, reductions and grouped reductions over random ranges must
 * match the model, and the tree must stay balanced with node sizes within bounds.
 */

/** [sum of values, count, smallest key (hex), largest key (hex)]: a grouping mistake changes it. */
type Red = [number, number, string | null, string | null];
const hex = (b: Buffer): string => b.toString('hex');
const minHex = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a < b ? a : b);
const maxHex = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);
const reducer: Reducer<number, Red> = {
  reduce(es) {
    let sum = 0;
    let min: string | null = null;
    let max: string | null = null;
    for (const e of es) {
      sum += e.value;
      min = minHex(min, hex(e.key));
      max = maxHex(max, hex(e.key));
    }
    return [sum, es.length, min, max];
  },
  rereduce(rs) {
    let sum = 0;
    let count = 0;
    let min: string | null = null;
    let max: string | null = null;
    for (const r of rs) {
      sum += r[0];
      count += r[1];
      min = minHex(min, r[2]);
      max = maxHex(max, r[3]);
    }
    return [sum, count, min, max];
  },
};

// Keys: 0-4 bytes over a small alphabet (shared prefixes, 0x00 and 0xff edges).
const byteArb = fc.constantFrom(0x00, 0x01, 0x61, 0x62, 0xff);
const keyArb = fc.array(byteArb, { minLength: 0, maxLength: 4 }).map((bytes) => Buffer.from(bytes));
const batchArb = fc.record({
  inserts: fc.array(fc.record({ key: keyArb, value: fc.integer({ min: -1000, max: 1000 }) }), { maxLength: 40 }),
  removes: fc.array(keyArb, { maxLength: 40 }),
});
const bigBatchArb = fc.record({
  inserts: fc.array(fc.record({ key: keyArb, value: fc.integer({ min: -1000, max: 1000 }) }), {
    minLength: 100,
    maxLength: 400,
  }),
  removes: fc.array(keyArb, { maxLength: 300 }),
});
const batchesArb = fc.array(fc.oneof({ weight: 4, arbitrary: batchArb }, { weight: 1, arbitrary: bigBatchArb }), {
  minLength: 1,
  maxLength: 12,
});
// 160+: with 128, two pointers carrying this reducer's reductions can exceed the node size.
const nodeBytesArb = fc.constantFrom(160, 200, 256, 512);
const rangeArb = fc.record({
  start: fc.option(keyArb, { nil: undefined }),
  end: fc.option(keyArb, { nil: undefined }),
  inclusiveStart: fc.boolean(),
  inclusiveEnd: fc.boolean(),
  descending: fc.boolean(),
});
type RangeQuery = { start?: Buffer; end?: Buffer; inclusiveStart: boolean; inclusiveEnd: boolean; descending: boolean };
const queryArb = fc.record({
  ranges: fc.array(rangeArb, { minLength: 1, maxLength: 6 }),
  prefixes: fc.array(fc.constantFrom(0, 1, 2, 3, 5, -1), { minLength: 1, maxLength: 3 }),
  probes: fc.array(keyArb, { minLength: 1, maxLength: 5 }),
  skip: fc.nat({ max: 30 }),
});

type Query = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

/** The model: a map from hex key to [key, value]; sorted on demand. */
class Model {
  readonly map = new Map<string, Entry<number>>();
  apply(inserts: readonly Entry<number>[], removes: readonly Buffer[]): void {
    for (const key of removes) this.map.delete(hex(key));
    for (const e of inserts) this.map.set(hex(e.key), e);
  }
  sorted(): Entry<number>[] {
    return [...this.map.values()].sort((a, b) => compareKeys(a.key, b.key));
  }
  clone(): Model {
    const copy = new Model();
    for (const [k, e] of this.map) copy.map.set(k, e);
    return copy;
  }
}

function inRange(key: Buffer, q: RangeQuery): boolean {
  const [lo, hi] = q.descending ? [q.end, q.start] : [q.start, q.end];
  const loIncl = q.descending ? q.inclusiveEnd : q.inclusiveStart;
  const hiIncl = q.descending ? q.inclusiveStart : q.inclusiveEnd;
  if (lo !== undefined) {
    const c = compareKeys(key, lo);
    if (c < 0 || (c === 0 && !loIncl)) return false;
  }
  if (hi !== undefined) {
    const c = compareKeys(key, hi);
    if (c > 0 || (c === 0 && !hiIncl)) return false;
  }
  return true;
}

const show = (es: Iterable<Entry<number>>): string[] => [...es].map((e) => `${hex(e.key)}=${e.value}`);

function checkStructure(t: BTree<number, Red>, model: Model): void {
  const s = t.verify();
  assert.equal(s.entries, model.map.size);
  if (s.leaves + s.innerNodes > 1) {
    assert.ok(s.maxNodeBytes <= t.nodeBytes, `node of ${s.maxNodeBytes} bytes > ${t.nodeBytes}`);
    assert.ok(s.minNodeBytes >= t.nodeBytes / 4, `node of ${s.minNodeBytes} bytes < ${t.nodeBytes / 4}`);
  }
}

function checkQueries(t: BTree<number, Red>, model: Model, q: Query): void {
  const all = model.sorted();
  assert.deepEqual(show(t.fold()), show(all));
  assert.deepEqual(show(t.fold({}, { descending: true })), show([...all].reverse()));
  assert.equal(t.totalCount(), all.length);
  for (const key of q.probes) {
    assert.equal(t.countBefore(key), all.filter((e) => compareKeys(e.key, key) < 0).length);
    assert.equal(t.get(key), model.map.get(hex(key))?.value);
  }
  for (const r of q.ranges) {
    const range: KeyRange = {
      start: r.start,
      end: r.end,
      inclusiveStart: r.inclusiveStart,
      inclusiveEnd: r.inclusiveEnd,
    };
    const opts = { descending: r.descending };
    const inR = all.filter((e) => inRange(e.key, r));
    const expected = r.descending ? [...inR].reverse() : inR;
    assert.deepEqual(show(t.fold(range, opts)), show(expected), `fold ${JSON.stringify(r)}`);
    assert.deepEqual(
      show(t.fold(range, { ...opts, skip: q.skip })),
      show(expected.slice(q.skip)),
      `fold skip ${q.skip}`,
    );
    assert.equal(t.count(range, opts), inR.length);
    assert.deepEqual(t.reduce(range, opts), reducer.reduce(inR));
    for (const p of q.prefixes) {
      const groupKey = p < 0 ? () => null : (key: Buffer) => key.subarray(0, p);
      const groups: { key: string | null; entries: Entry<number>[] }[] = [];
      for (const e of expected) {
        const g = groupKey(e.key);
        const gk = g === null ? null : hex(g);
        const last = groups[groups.length - 1];
        if (last !== undefined && last.key === gk) last.entries.push(e);
        else groups.push({ key: gk, entries: [e] });
      }
      const got = [...t.foldReduce(range, { ...opts, groupKey })].map((g) => ({
        key: g.groupKey === null ? null : hex(g.groupKey),
        red: g.reduction,
        first: hex(g.first.key),
      }));
      const want = groups.map((g) => ({ key: g.key, red: reducer.reduce(g.entries), first: hex(g.entries[0]!.key) }));
      assert.deepEqual(got, want, `foldReduce prefix ${p} ${JSON.stringify(r)}`);
    }
  }
}

const NUM_RUNS = Number(process.env.BTREE_RUNS ?? 60);

describe('btree properties (memory store)', () => {
  test('random batches: folds, counts, reductions, groups match the model; tree balanced', () => {
    fc.assert(
      fc.property(batchesArb, nodeBytesArb, queryArb, (batches, nodeBytes, q) => {
        const t = new BTree<number, Red>({ store: new MemoryNodeStore(), reducer, nodeBytes });
        const model = new Model();
        for (const b of batches) {
          t.update(b.inserts, b.removes);
          model.apply(b.inserts, b.removes);
          checkStructure(t, model);
        }
        checkQueries(t, model, q);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('keys sharing long prefixes (descents compare past what the bound shares): folds match the model', () => {
    // Every key starts with one of two long prefixes, then a short suffix: the searches' shared
    // counts run deep, and bounds land on, between and around keys of both prefixes.
    const long = (tail: Buffer, second: boolean): Buffer =>
      Buffer.concat([Buffer.alloc(24, 0x61), Buffer.from([second ? 0x62 : 0x61]), Buffer.alloc(8, 0x01), tail]);
    const longKey = fc.tuple(keyArb, fc.boolean()).map(([tail, second]) => long(tail, second));
    const longBatches = fc.array(
      fc.record({
        inserts: fc.array(fc.record({ key: longKey, value: fc.integer({ min: -9, max: 9 }) }), { maxLength: 200 }),
        removes: fc.array(longKey, { maxLength: 60 }),
      }),
      { minLength: 1, maxLength: 4 },
    );
    const bound = fc.oneof(
      longKey,
      longKey.map((k) => k.subarray(0, 20)),
      keyArb,
    );
    const ranges = fc.array(
      fc.record({
        start: fc.option(bound, { nil: undefined }),
        end: fc.option(bound, { nil: undefined }),
        inclusiveStart: fc.boolean(),
        inclusiveEnd: fc.boolean(),
        descending: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(longBatches, fc.constantFrom(256, 512), ranges, (batches, nodeBytes, rs) => {
        const t = new BTree<number, Red>({ store: new MemoryNodeStore(), reducer, nodeBytes });
        const model = new Model();
        for (const b of batches) {
          t.update(b.inserts, b.removes);
          model.apply(b.inserts, b.removes);
        }
        const all = model.sorted();
        for (const r of rs) {
          const inR = all.filter((e) => inRange(e.key, r));
          const expected = r.descending ? [...inR].reverse() : inR;
          const range: KeyRange = { ...r };
          assert.deepEqual(show(t.fold(range, { descending: r.descending })), show(expected));
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('updates of keys sharing long prefixes (searches compare past shared bytes): tree and counts match the model after every batch', () => {
    // Keys of two long prefixes, some of them prefixes of others; values replaced under the same
    // keys often (the small alphabet repeats keys), so a `_count`-like tree keeps leaves whose
    // count did not change.
    const long = (tail: Buffer, second: boolean): Buffer =>
      Buffer.concat([Buffer.alloc(24, 0x61), Buffer.from([second ? 0x62 : 0x61]), Buffer.alloc(8, 0x01), tail]);
    const longKey = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(keyArb, fc.boolean()).map(([tail, second]) => long(tail, second)) },
      { weight: 1, arbitrary: fc.nat({ max: 34 }).map((n) => long(Buffer.alloc(0), true).subarray(0, n)) },
    );
    const longBatches = fc.array(
      fc.record({
        inserts: fc.array(fc.record({ key: longKey, value: fc.integer({ min: -9, max: 9 }) }), { maxLength: 300 }),
        removes: fc.array(longKey, { maxLength: 60 }),
      }),
      { minLength: 1, maxLength: 6 },
    );
    const counter: Reducer<number, number> = {
      reduce: (es) => es.length,
      reduceCount: (n) => n,
      rereduce: (rs) => rs.reduce((a, b) => a + b, 0),
    };
    const bound = fc.oneof(longKey, keyArb);
    const ranges = fc.array(fc.record({ start: bound, end: bound }), { minLength: 1, maxLength: 4 });
    fc.assert(
      // This reducer's reductions hold two keys: two pointers of ~34-byte keys need 512 bytes.
      fc.property(longBatches, fc.constantFrom(512, 1024), ranges, (batches, nodeBytes, rs) => {
        const t = new BTree<number, Red>({ store: new MemoryNodeStore(), reducer, nodeBytes });
        const counted = new BTree<number, number>({
          store: new MemoryNodeStore(),
          reducer: counter,
          nodeBytes: nodeBytes >> 1,
        });
        const model = new Model();
        for (const b of batches) {
          t.update(b.inserts, b.removes);
          counted.update(b.inserts, b.removes);
          model.apply(b.inserts, b.removes);
          checkStructure(t, model);
          const all = model.sorted();
          assert.deepEqual(show(t.fold()), show(all));
          assert.deepEqual(show(counted.fold()), show(all));
          assert.equal(counted.verify().entries, all.length);
          assert.deepEqual(t.reduce(), reducer.reduce(all));
          assert.equal(counted.reduce(), all.length);
          for (const r of rs) {
            const inR = all.filter((e) =>
              inRange(e.key, { ...r, inclusiveStart: true, inclusiveEnd: true, descending: false }),
            );
            assert.equal(counted.reduce(r), inR.length);
            assert.deepEqual(t.reduce(r), reducer.reduce(inR));
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('a tiny cache (constant evictions) gives the same answers', () => {
    fc.assert(
      fc.property(batchesArb, queryArb, (batches, q) => {
        const t = new BTree<number, Red>({ store: new MemoryNodeStore(), reducer, nodeBytes: 160, cacheBytes: 2048 });
        const model = new Model();
        for (const b of batches) {
          t.update(b.inserts, b.removes);
          model.apply(b.inserts, b.removes);
        }
        checkStructure(t, model);
        checkQueries(t, model, q);
      }),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    );
  });
});

describe('btree properties (SQLite store)', () => {
  test('same properties, and again after closing and reopening the database file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'btree-prop-'));
    let n = 0;
    try {
      fc.assert(
        fc.property(batchesArb, nodeBytesArb, queryArb, (batches, nodeBytes, q) => {
          const file = join(dir, `t${n++}.sqlite`);
          let db = new Database(file);
          const open = (d: Database.Database): BTree<number, Red> =>
            new BTree<number, Red>({ store: new SqliteNodeStore(d, 'view_rows'), reducer, nodeBytes });
          let t = open(db);
          const model = new Model();
          for (const b of batches) {
            db.transaction(() => t.update(b.inserts, b.removes))();
            model.apply(b.inserts, b.removes);
            checkStructure(t, model);
          }
          checkQueries(t, model, q);
          db.close();
          db = new Database(file);
          t = open(db);
          checkStructure(t, model);
          checkQueries(t, model, q);
          // Nodes in the table = nodes in the tree (freed ids were deleted); metadata rows have
          // negative ids and are only written once the tree has been updated.
          const s = t.verify();
          const rows = db.prepare('SELECT count(*) AS n FROM view_rows WHERE id >= 0').get() as { n: number };
          assert.equal(rows.n, s.leaves + s.innerNodes);
          db.close();
          rmSync(file);
        }),
        { numRuns: Math.ceil(NUM_RUNS / 2) },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a rolled-back caller transaction: the tree (and its cache) go back to the committed state', () => {
    fc.assert(
      fc.property(batchesArb, batchesArb, queryArb, (committed, rolledBack, q) => {
        const db = new Database(':memory:');
        const t = new BTree<number, Red>({ store: new SqliteNodeStore(db, 'rows'), reducer, nodeBytes: 160 });
        const model = new Model();
        for (const b of committed) {
          db.transaction(() => t.update(b.inserts, b.removes))();
          model.apply(b.inserts, b.removes);
        }
        t.totalCount(); // warm the cache
        assert.throws(() =>
          db.transaction(() => {
            for (const b of rolledBack) t.update(b.inserts, b.removes);
            t.verify(); // the cache now holds the rolled-back nodes
            throw new Error('rollback');
          })(),
        );
        checkStructure(t, model);
        checkQueries(t, model, q);
        // And it keeps working after the rollback.
        const more = rolledBack[0]!;
        db.transaction(() => t.update(more.inserts, more.removes))();
        model.apply(more.inserts, more.removes);
        checkStructure(t, model);
        checkQueries(t, model, q);
        db.close();
      }),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    );
  });

  test('two handles on one table see each other’s updates', () => {
    const db = new Database(':memory:');
    const mk = (store: NodeStore) => new BTree<number, Red>({ store, reducer, nodeBytes: 160 });
    const a = mk(new SqliteNodeStore(db, 'rows'));
    const b = mk(new SqliteNodeStore(db, 'rows'));
    const model = new Model();
    for (let i = 0; i < 20; i++) {
      const batch = Array.from({ length: 30 }, (_, j) => ({ key: Buffer.from([i, j]), value: i * j }));
      const removes = [Buffer.from([i - 1, 3]), Buffer.from([i - 2, 5])];
      (i % 2 === 0 ? a : b).update(batch, removes);
      model.apply(batch, removes);
      assert.deepEqual(show(a.fold()), show(model.sorted()));
      assert.deepEqual(show(b.fold()), show(model.sorted()));
      assert.deepEqual(a.reduce(), reducer.reduce(model.sorted()));
    }
    checkStructure(a, model);
    db.close();
  });
});

describe('btree properties (write-back store over SQLite)', () => {
  test('updates kept in memory, flushed at random points, rolled back on a throwing reducer: the tree, and the file reopened, match the model', () => {
    const dir = mkdtempSync(join(tmpdir(), 'btree-wb-'));
    let n = 0;
    let rollbacks = 0;
    try {
      fc.assert(
        fc.property(
          fc.array(fc.record({ batch: batchArb, flush: fc.boolean(), fail: fc.boolean() }), {
            minLength: 1,
            maxLength: 14,
          }),
          nodeBytesArb,
          queryArb,
          (steps, nodeBytes, q) => {
            const file = join(dir, `t${n++}.sqlite`);
            let db = new Database(file);
            const store = new WriteBackNodeStore(new SqliteNodeStore(db, 'view_rows', { savepoints: false }));
            let failing = false;
            const failingReducer: Reducer<number, Red> = {
              reduce: (es) => {
                if (failing) throw new Error('reducer failure');
                return reducer.reduce(es);
              },
              rereduce: (rs) => reducer.rereduce(rs),
            };
            const t = new BTree<number, Red>({ store, reducer: failingReducer, nodeBytes, exclusive: true });
            const flush = db.transaction(() => store.writePending());
            const model = new Model();
            let flushed = new Model();
            for (const { batch, flush: doFlush, fail } of steps) {
              store.begin();
              failing = fail && batch.inserts.length > 0;
              try {
                t.update(batch.inserts, batch.removes);
                store.end();
                model.apply(batch.inserts, batch.removes);
              } catch {
                // As ./view-index.ts does: the store forgets the batch, the tree its cache.
                store.rollback();
                t.invalidate();
                rollbacks++;
              }
              failing = false;
              checkStructure(t, model);
              if (doFlush) {
                flush();
                store.flushed();
                flushed = model.clone();
              }
            }
            checkQueries(t, model, q);
            // The file holds the last flushed state, whole.
            db.close();
            db = new Database(file);
            const reopened = new BTree<number, Red>({
              store: new SqliteNodeStore(db, 'view_rows'),
              reducer,
              nodeBytes,
            });
            checkStructure(reopened, flushed);
            db.close();
            rmSync(file);
          },
        ),
        { numRuns: Math.ceil(NUM_RUNS / 2) },
      );
      assert.ok(rollbacks > 0, 'no update was rolled back');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

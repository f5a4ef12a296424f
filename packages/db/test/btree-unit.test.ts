import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BTree, MemoryNodeStore, combineReducers, type Entry, type Reducer } from '../src/btree/index.js';

/** Fixed-width keys so byte order is numeric order: k(5) = "k000005". */
const k = (n: number): Buffer => Buffer.from(`k${String(n).padStart(6, '0')}`);
const num = (key: Buffer): number => Number(key.toString().slice(1));
const entries = (ns: number[]): Entry<number>[] => ns.map((n) => ({ key: k(n), value: n }));
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

type SumRed = [sum: number, count: number];
const sumReducer: Reducer<number, SumRed> = {
  reduce: (es) => [es.reduce((s, e) => s + e.value, 0), es.length],
  rereduce: (rs) => [rs.reduce((s, r) => s + r[0], 0), rs.reduce((s, r) => s + r[1], 0)],
};

function tree(nodeBytes = 128): BTree<number, SumRed> {
  return new BTree<number, SumRed>({ store: new MemoryNodeStore(), reducer: sumReducer, nodeBytes });
}
const keysOf = (it: Iterable<Entry<number>>): number[] => [...it].map((e) => e.value);

describe('btree: basics', () => {
  test('empty tree', () => {
    const t = tree();
    assert.deepEqual(keysOf(t.fold()), []);
    assert.deepEqual(keysOf(t.fold({}, { descending: true })), []);
    assert.equal(t.totalCount(), 0);
    assert.equal(t.count({ start: k(1) }), 0);
    assert.equal(t.countBefore(k(1)), 0);
    assert.deepEqual(t.reduce(), [0, 0]);
    assert.deepEqual([...t.foldReduce({}, { groupKey: () => null })], []);
    assert.equal(t.get(k(1)), undefined);
    assert.equal(t.verify().height, 0);
    t.update([], []);
    t.update([], [k(3)]);
    assert.equal(t.totalCount(), 0);
  });

  test('single leaf: insert, replace, remove', () => {
    const t = tree(4096);
    t.update(entries([3, 1, 2]), []);
    assert.deepEqual(keysOf(t.fold()), [1, 2, 3]);
    assert.equal(t.verify().height, 1);
    t.update([{ key: k(2), value: 20 }], [k(9)]);
    assert.deepEqual(keysOf(t.fold()), [1, 20, 3]);
    assert.equal(t.get(k(2)), 20);
    t.update([], [k(1), k(3)]);
    assert.deepEqual(keysOf(t.fold()), [20]);
    assert.deepEqual(t.reduce(), [20, 1]);
  });

  test('a key both removed and inserted in one batch ends up inserted; last insert wins', () => {
    const t = tree();
    t.update(entries(range(0, 50)), []);
    t.update(
      [
        { key: k(7), value: 70 },
        { key: k(7), value: 71 },
        { key: k(100), value: 100 },
      ],
      [k(7), k(100), k(8)],
    );
    assert.equal(t.get(k(7)), 71);
    assert.equal(t.get(k(100)), 100);
    assert.equal(t.get(k(8)), undefined);
    assert.equal(t.totalCount(), 50);
    t.verify();
  });

  test('splits grow the tree, deletions shrink it back to empty', () => {
    const t = tree(128);
    for (let i = 0; i < 400; i++) t.update(entries([(i * 37) % 400]), []);
    let s = t.verify();
    assert.equal(s.entries, 400);
    assert.ok(s.height >= 3, `height ${s.height}`);
    assert.ok(s.maxNodeBytes <= 128 && s.minNodeBytes >= 32, JSON.stringify(s));
    assert.deepEqual(keysOf(t.fold()), range(0, 400));
    assert.deepEqual(t.reduce(), [(399 * 400) / 2, 400]);
    const model = new Set(range(0, 400));
    for (let i = 0; i < 300; i += 2) {
      const gone = [(i * 13) % 400, (i * 13 + 1) % 400];
      t.update([], gone.map(k));
      for (const n of gone) model.delete(n);
    }
    s = t.verify();
    assert.equal(s.entries, model.size);
    assert.deepEqual(
      keysOf(t.fold()),
      [...model].sort((a, b) => a - b),
    );
    // Delete everything that is left one by one.
    const left = keysOf(t.fold());
    for (const n of left) {
      t.update([], [k(n)]);
      const st = t.verify();
      assert.ok(st.minNodeBytes === 0 || st.minNodeBytes >= 32, JSON.stringify(st));
    }
    assert.equal(t.totalCount(), 0);
    assert.equal(t.verify().height, 0);
    t.update(entries([5]), []);
    assert.deepEqual(keysOf(t.fold()), [5]);
  });

  test('bulk build from empty, then a batch deleting everything', () => {
    const t = tree(256);
    t.update(entries(range(0, 5000).reverse()), []);
    const s = t.verify();
    assert.equal(s.entries, 5000);
    assert.ok(s.maxNodeBytes <= 256 && s.minNodeBytes >= 64, JSON.stringify(s));
    t.update([], range(0, 5000).map(k));
    assert.equal(t.totalCount(), 0);
    assert.equal(t.verify().height, 0);
    assert.equal((t.store as MemoryNodeStore).size, 0);
  });

  test('deleting a contiguous block merges underfull nodes', () => {
    const t = tree(192);
    t.update(entries(range(0, 3000)), []);
    t.update([], range(100, 2900).map(k));
    const s = t.verify();
    assert.equal(s.entries, 200);
    assert.ok(s.minNodeBytes >= 48, JSON.stringify(s));
    assert.deepEqual(keysOf(t.fold()), [...range(0, 100), ...range(2900, 3000)]);
    // A node id freed by a merge is deleted from the store: nodes in the store = nodes in the tree.
    assert.equal((t.store as MemoryNodeStore).size, s.leaves + s.innerNodes);
  });
});

describe('btree: ranges', () => {
  const t = tree(128);
  t.update(entries(range(0, 300).filter((n) => n % 3 !== 0)), []); // no multiples of 3
  const model = range(0, 300).filter((n) => n % 3 !== 0);

  test('forward ranges, inclusive and exclusive end', () => {
    assert.deepEqual(
      keysOf(t.fold({ start: k(10), end: k(20) })),
      model.filter((n) => n >= 10 && n <= 20),
    );
    assert.deepEqual(
      keysOf(t.fold({ start: k(10), end: k(20), inclusiveEnd: false })),
      model.filter((n) => n >= 10 && n < 20),
    );
    assert.deepEqual(
      keysOf(t.fold({ start: k(9), end: k(21), inclusiveEnd: false })),
      model.filter((n) => n >= 9 && n < 21),
    );
    assert.deepEqual(
      keysOf(t.fold({ start: k(250) })),
      model.filter((n) => n >= 250),
    );
    assert.deepEqual(keysOf(t.fold({ end: k(5) })), [1, 2, 4, 5]);
    assert.deepEqual(keysOf(t.fold({ start: k(20), end: k(10) })), []);
    assert.deepEqual(keysOf(t.fold({ start: k(10), end: k(10), inclusiveEnd: false })), []);
    assert.deepEqual(keysOf(t.fold({ start: k(10), end: k(10) })), [10]);
    assert.deepEqual(keysOf(t.fold({ start: k(999) })), []);
  });

  test('descending ranges: start is the high end', () => {
    const desc = [...model].reverse();
    assert.deepEqual(keysOf(t.fold({}, { descending: true })), desc);
    assert.deepEqual(
      keysOf(t.fold({ start: k(20), end: k(10) }, { descending: true })),
      desc.filter((n) => n >= 10 && n <= 20),
    );
    assert.deepEqual(
      keysOf(t.fold({ start: k(20), end: k(10), inclusiveEnd: false }, { descending: true })),
      desc.filter((n) => n > 10 && n <= 20),
    );
    assert.deepEqual(keysOf(t.fold({ start: k(10), end: k(20) }, { descending: true })), []);
    assert.deepEqual(
      keysOf(t.fold({ end: k(290) }, { descending: true })),
      desc.filter((n) => n >= 290),
    );
  });

  test('exclusive start (e.g. a half-open byte interval read descending)', () => {
    assert.deepEqual(
      keysOf(t.fold({ start: k(10), end: k(20), inclusiveStart: false })),
      model.filter((n) => n > 10 && n <= 20),
    );
    assert.deepEqual(
      keysOf(t.fold({ start: k(20), end: k(10), inclusiveStart: false }, { descending: true })),
      model.filter((n) => n >= 10 && n < 20).reverse(),
    );
    assert.equal(
      t.count({ start: k(20), end: k(10), inclusiveStart: false, inclusiveEnd: false }, { descending: true }),
      6,
    );
    assert.deepEqual(t.reduce({ start: k(10), end: k(20), inclusiveStart: false }), [
      [11, 13, 14, 16, 17, 19, 20].reduce((a, b) => a + b, 0),
      7,
    ]);
    assert.deepEqual(keysOf(t.fold({ start: k(10), end: k(10), inclusiveStart: false })), []);
    assert.deepEqual(
      keysOf(t.fold({ start: k(10), end: k(20), inclusiveStart: false }, { skip: 2 })),
      [14, 16, 17, 19, 20],
    );
  });

  test('skip uses counts, in both directions', () => {
    for (const skip of [0, 1, 5, 50, 199, 200, 500]) {
      assert.deepEqual(keysOf(t.fold({}, { skip })), model.slice(skip));
      assert.deepEqual(
        keysOf(t.fold({ start: k(100), end: k(200) }, { skip })),
        model.filter((n) => n >= 100 && n <= 200).slice(skip),
      );
      assert.deepEqual(
        keysOf(t.fold({ start: k(200), end: k(100) }, { descending: true, skip })),
        model
          .filter((n) => n >= 100 && n <= 200)
          .reverse()
          .slice(skip),
      );
    }
  });

  test('count, countBefore, totalCount', () => {
    assert.equal(t.totalCount(), 200);
    assert.equal(t.countBefore(k(0)), 0);
    assert.equal(t.countBefore(k(4)), 2);
    assert.equal(t.countBefore(k(5)), 3);
    assert.equal(t.countBefore(k(1000)), 200);
    assert.equal(t.count({ start: k(10), end: k(20) }), 8);
    assert.equal(t.count({ start: k(10), end: k(20), inclusiveEnd: false }), 7);
    assert.equal(t.count({ start: k(20), end: k(10) }, { descending: true }), 8);
    assert.equal(t.count({ start: k(20), end: k(10), inclusiveEnd: false }, { descending: true }), 7);
  });

  test('reduce of ranges (whole, halves, reversed), as couch_btree_tests do', () => {
    const sum = (ns: number[]): [number, number] => [ns.reduce((a, b) => a + b, 0), ns.length];
    assert.deepEqual(t.reduce(), sum(model));
    assert.deepEqual(t.reduce({ end: k(150) }), sum(model.filter((n) => n <= 150)));
    assert.deepEqual(t.reduce({ start: k(150) }), sum(model.filter((n) => n >= 150)));
    assert.deepEqual(t.reduce({ start: k(150) }, { descending: true }), sum(model.filter((n) => n <= 150)));
    assert.deepEqual(t.reduce({ start: k(7), end: k(8), inclusiveEnd: false }), sum([7]));
    assert.deepEqual(t.reduce({ start: k(9), end: k(9) }), sum([]));
  });

  test('foldReduce by tens, both directions', () => {
    const groupKey = (key: Buffer): Buffer => key.subarray(0, 6); // k00001x → tens
    const groups = new Map<number, number[]>();
    for (const n of model) groups.set(Math.floor(n / 10), [...(groups.get(Math.floor(n / 10)) ?? []), n]);
    const expected = [...groups].map(([g, ns]) => ({
      g,
      red: [ns.reduce((a, b) => a + b, 0), ns.length],
      first: ns[0],
    }));
    const got = [...t.foldReduce({}, { groupKey })].map((r) => ({
      g: Math.floor(num(r.first.key) / 10),
      red: r.reduction,
      first: r.first.value,
    }));
    assert.deepEqual(got, expected);
    const gotDesc = [...t.foldReduce({}, { groupKey, descending: true })].map((r) => ({
      g: Math.floor(num(r.first.key) / 10),
      red: r.reduction,
      first: r.first.value,
    }));
    assert.deepEqual(
      gotDesc,
      [...groups]
        .reverse()
        .map(([g, ns]) => ({ g, red: [ns.reduce((a, b) => a + b, 0), ns.length], first: ns[ns.length - 1] })),
    );
  });
});

describe('btree: options', () => {
  test('map-only tree: counts and folds, no reduce', () => {
    const t = new BTree<number>({ store: new MemoryNodeStore(), nodeBytes: 128 });
    t.update(entries(range(0, 1000)), []);
    assert.equal(t.totalCount(), 1000);
    assert.equal(t.count({ start: k(100), end: k(199) }), 100);
    assert.throws(() => t.reduce(), /no reducer/);
    assert.equal(t.verify().entries, 1000);
  });

  test('several reductions in one tree (combineReducers)', () => {
    const count: Reducer<number, unknown> = {
      reduce: (es) => es.length,
      rereduce: (rs) => (rs as number[]).reduce((a, b) => a + b, 0),
    };
    const max: Reducer<number, unknown> = {
      reduce: (es) => Math.max(...es.map((e) => e.value)),
      rereduce: (rs) => Math.max(...(rs as number[])),
    };
    const t = new BTree<number, unknown[]>({
      store: new MemoryNodeStore(),
      reducer: combineReducers([count, max]),
      nodeBytes: 128,
    });
    t.update(entries(range(0, 500)), []);
    assert.deepEqual(t.reduce(), [500, 499]);
    assert.deepEqual(t.reduce({ start: k(10), end: k(20) }), [11, 20]);
    t.verify();
  });

  test('a throwing reducer leaves the tree as it was', () => {
    let fail = false;
    const reducer: Reducer<number, SumRed> = {
      reduce: (es) => {
        if (fail) throw new Error('boom');
        return sumReducer.reduce(es);
      },
      rereduce: sumReducer.rereduce,
    };
    const store = new MemoryNodeStore();
    const t = new BTree<number, SumRed>({ store, reducer, nodeBytes: 128 });
    t.update(entries(range(0, 500)), []);
    const before = store.size;
    fail = true;
    assert.throws(() => t.update(entries(range(1000, 1100)), range(0, 50).map(k)), /boom/);
    fail = false;
    assert.equal(store.size, before);
    assert.deepEqual(keysOf(t.fold()), range(0, 500));
    assert.deepEqual(t.reduce(), [(499 * 500) / 2, 500]);
    t.verify();
  });

  test('a fold resumed after an update throws', () => {
    const t = tree();
    t.update(entries(range(0, 100)), []);
    const it = t.fold();
    it.next();
    t.update(entries([1000]), []);
    assert.throws(() => it.next(), /modified during fold/);
  });

  test('re-inserting identical values writes nothing', () => {
    const store = new MemoryNodeStore();
    const t = new BTree<number, SumRed>({ store, reducer: sumReducer, nodeBytes: 128 });
    t.update(entries(range(0, 300)), []);
    let puts = 0;
    const put = store.put.bind(store);
    store.put = (id, bytes) => {
      puts++;
      put(id, bytes);
    };
    t.update(entries(range(0, 300)), range(0, 300).map(k));
    assert.equal(puts, 0);
    t.update(entries([5]), [k(6)]);
    assert.ok(puts > 0);
  });

  test('clear', () => {
    const store = new MemoryNodeStore();
    const t = new BTree<number, SumRed>({ store, reducer: sumReducer, nodeBytes: 128 });
    t.update(entries(range(0, 300)), []);
    t.clear();
    assert.equal(t.totalCount(), 0);
    assert.equal(store.size, 0);
    t.update(entries([1, 2]), []);
    assert.deepEqual(keysOf(t.fold()), [1, 2]);
  });

  test('values larger than a node get a leaf of their own', () => {
    const t = new BTree<string>({ store: new MemoryNodeStore(), nodeBytes: 256 });
    const big = 'x'.repeat(1000);
    t.update(
      range(0, 20).map((n) => ({ key: k(n), value: n % 5 === 0 ? big : 'small' })),
      [],
    );
    assert.deepEqual(
      [...t.fold()].map((e) => e.value.length),
      range(0, 20).map((n) => (n % 5 === 0 ? 1000 : 5)),
    );
    t.verify();
  });
});

/**
 * Reduce views over HTTP (spec a.4 group resolution / group_level, b.2, d.2): no grouping,
 * group=true, group_level on arrays, non-arrays and short arrays, group_level inside ranges and
 * going down, limit/skip counting groups, reduce=false, the builtins (_count, _sum on numbers,
 * arrays and objects, _stats, _approx_count_distinct), JS reduce with rereduce, a throwing
 * reduce, and the reduce_overflow_error row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { ids, keys, seed, viewClient, type ViewClient } from './support/views-http.js';

/**
 * Keys in ICU order: "solo","solo" (non-arrays), [] , ["a","x",1], ["a","x",2], ["a","y",1],
 * ["b"] (a short array), ["b","x",1].
 */
const GROUPED = [
  { _id: 'r1', g: ['a', 'x', 1], n: 1 },
  { _id: 'r2', g: ['a', 'x', 2], n: 2 },
  { _id: 'r3', g: ['a', 'y', 1], n: 3 },
  { _id: 'r4', g: ['b', 'x', 1], n: 4 },
  { _id: 'r5', g: ['b'], n: 5 },
  { _id: 'r6', g: 'solo', n: 6 },
  { _id: 'r7', g: 'solo', n: 7 },
  { _id: 'r8', g: [], n: 8 },
];

const SUMS = [
  { _id: 's-arr1', arr: [1] },
  { _id: 's-arr2', arr: [2, 3] },
  { _id: 's-arr3', arr: 4 },
  { _id: 's-obj1', obj: { a: 1, b: { c: 2 } } },
  { _id: 's-obj2', obj: { a: 2, d: 5 } },
  { _id: 's-obj3', obj: { b: { c: 1, e: 1 } } },
  { _id: 's-num1', num: 1, tag: 'x' },
  { _id: 's-num2', num: 2, tag: 'y' },
  { _id: 's-num3', num: 3, tag: 'x' },
  { _id: 's-num4', num: 4, tag: 'z' },
  { _id: 's-pair1', pair: [1, 2] },
  { _id: 's-pair2', pair: [3, 4] },
  { _id: 's-st1', st: { sum: 5, count: 2, min: 1, max: 4, sumsqr: 17 } },
  { _id: 's-st2', st: { sum: 3, count: 1, min: 3, max: 3, sumsqr: 9 } },
  { _id: 's-str', str: 'not a number' },
];

/** Enough rows for the B-tree to have inner nodes, so reductions are rereduced. */
const MANY = Array.from({ length: 600 }, (_, i) => ({
  _id: `many-${String(i).padStart(4, '0')}`,
  many: i,
  bucket: i % 3,
}));

const DDOC = {
  views: {
    count: { map: "function (doc) { if ('g' in doc) emit(doc.g, doc.n); }", reduce: '_count' },
    sum: { map: "function (doc) { if ('g' in doc) emit(doc.g, doc.n); }", reduce: '_sum' },
    sum_arrays: { map: "function (doc) { if ('arr' in doc) emit(doc._id, doc.arr); }", reduce: '_sum' },
    sum_objects: { map: "function (doc) { if ('obj' in doc) emit(doc._id, doc.obj); }", reduce: '_sum' },
    sum_strings: { map: "function (doc) { if ('str' in doc) emit(doc._id, doc.str); }", reduce: '_sum' },
    stats: { map: "function (doc) { if ('num' in doc) emit(doc.tag, doc.num); }", reduce: '_stats' },
    stats_arrays: { map: "function (doc) { if ('pair' in doc) emit(doc._id, doc.pair); }", reduce: '_stats' },
    stats_objects: { map: "function (doc) { if ('st' in doc) emit(doc._id, doc.st); }", reduce: '_stats' },
    distinct: { map: "function (doc) { if ('num' in doc) emit(doc.tag, null); }", reduce: '_approx_count_distinct' },
    js_count: {
      map: "function (doc) { if ('many' in doc) emit([doc.bucket, doc.many], doc.many); }",
      reduce: 'function (keys, values, rereduce) { return rereduce ? sum(values) : values.length; }',
    },
    js_minid: {
      // Reduce phase: keys are [[key, docid], ...]; rereduce: keys null, values earlier results.
      map: "function (doc) { if ('many' in doc) emit(doc.bucket, doc.many); }",
      reduce:
        'function (keys, values, rereduce) {' +
        '  if (rereduce) { if (keys !== null) throw new Error("keys on rereduce"); return values.reduce(function (a, b) { return a < b ? a : b; }); }' +
        '  return keys.map(function (k) { if (k.length !== 2) throw new Error("bad key"); return k[1]; }).sort()[0];' +
        '}',
    },
    js_stats: {
      map: "function (doc) { if ('many' in doc) emit(doc.bucket, doc.many); }",
      reduce:
        'function (keys, values, rereduce) {' +
        '  if (rereduce) return values.reduce(function (a, b) { return { n: a.n + b.n, max: Math.max(a.max, b.max) }; });' +
        '  return { n: values.length, max: Math.max.apply(null, values) };' +
        '}',
    },
    js_throws: {
      map: "function (doc) { if ('num' in doc) emit(doc.tag, doc.num); }",
      reduce: 'function () { throw new Error("no"); }',
    },
    js_overflow: {
      map: "function (doc) { if ('num' in doc) emit(doc.tag, doc.num); }",
      reduce: "function (keys, values, rereduce) { return Array(6001).join('x'); }",
    },
  },
};

describe('views over HTTP: reduce and grouping', () => {
  let t: TestServer;
  let v: ViewClient;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'reduce', [...GROUPED, ...SUMS, ...MANY], { r: DDOC });
    v = viewClient(t, 'reduce', 'r');
  });
  after(() => t.close());

  it('no grouping: one {key:null,value} row and no total_rows/offset', async () => {
    const count = await v.ok('count');
    assert.deepEqual(count, { rows: [{ key: null, value: 8 }] });
    assert.deepEqual(await v.ok('sum'), { rows: [{ key: null, value: 36 }] });
    assert.deepEqual(await v.ok('count', { group: false }), count);
    assert.deepEqual(await v.ok('count', { group_level: 0 }), count);
  });

  it('no grouping over an empty range: no row at all', async () => {
    assert.deepEqual(await v.ok('count', { startkey: 'zzz', endkey: 'zzzz' }), { rows: [] });
    assert.deepEqual(await v.ok('sum', { key: 'nothing' }), { rows: [] });
  });

  it('a range or a key reduces only the rows inside it', async () => {
    assert.deepEqual((await v.ok('sum', { startkey: ['a'], endkey: ['a', {}] })).rows, [{ key: null, value: 6 }]);
    assert.deepEqual((await v.ok('sum', { key: 'solo' })).rows, [{ key: null, value: 13 }]);
    assert.deepEqual((await v.ok('sum', { startkey: ['b'], descending: false })).rows, [{ key: null, value: 9 }]);
    assert.deepEqual((await v.ok('sum', { descending: true, startkey: ['a', 'y'], endkey: ['a', 'x', 2] })).rows, [
      { key: null, value: 2 },
    ]);
  });

  it('group=true: one row per distinct key, in key order, {key,value} without id', async () => {
    const r = await v.ok('sum', { group: true });
    assert.deepEqual(r, {
      rows: [
        { key: 'solo', value: 13 },
        { key: [], value: 8 },
        { key: ['a', 'x', 1], value: 1 },
        { key: ['a', 'x', 2], value: 2 },
        { key: ['a', 'y', 1], value: 3 },
        { key: ['b'], value: 5 },
        { key: ['b', 'x', 1], value: 4 },
      ],
    });
    for (const row of r.rows) assert.deepEqual(Object.keys(row), ['key', 'value']);
  });

  it('group_level=1: arrays by their first element; non-arrays (and []) grouped exactly', async () => {
    assert.deepEqual((await v.ok('count', { group_level: 1 })).rows, [
      { key: 'solo', value: 2 },
      { key: [], value: 1 },
      { key: ['a'], value: 3 },
      { key: ['b'], value: 2 },
    ]);
  });

  it('group_level=2: arrays shorter than the level are returned whole', async () => {
    assert.deepEqual((await v.ok('sum', { group_level: 2 })).rows, [
      { key: 'solo', value: 13 },
      { key: [], value: 8 },
      { key: ['a', 'x'], value: 3 },
      { key: ['a', 'y'], value: 3 },
      { key: ['b'], value: 5 },
      { key: ['b', 'x'], value: 4 },
    ]);
  });

  it('group_level above every key length is group=true', async () => {
    assert.deepEqual(await v.ok('sum', { group_level: 9 }), await v.ok('sum', { group: true }));
  });

  it('3.x group resolution: group_level wins over group=true in either order', async () => {
    const level1 = await v.ok('count', { group_level: 1 });
    assert.deepEqual(
      await v.ok('count', [
        ['group', 'true'],
        ['group_level', '1'],
      ]),
      level1,
    );
    assert.deepEqual(
      await v.ok('count', [
        ['group_level', '1'],
        ['group', 'true'],
      ]),
      level1,
    );
    assert.deepEqual(
      await v.ok('count', [
        ['group_level', '0'],
        ['group', 'true'],
      ]),
      await v.ok('count'),
    );
  });

  it('group_level with ranges: grouping happens inside the range', async () => {
    assert.deepEqual((await v.ok('sum', { group_level: 1, startkey: ['a', 'x', 2] })).rows, [
      { key: ['a'], value: 5 },
      { key: ['b'], value: 9 },
    ]);
    assert.deepEqual((await v.ok('sum', { group_level: 2, endkey: ['a', 'x', 1] })).rows, [
      { key: 'solo', value: 13 },
      { key: [], value: 8 },
      { key: ['a', 'x'], value: 1 },
    ]);
    assert.deepEqual(
      (await v.ok('sum', { group_level: 1, startkey: ['a'], endkey: ['a', 'y'], inclusive_end: false })).rows,
      [{ key: ['a'], value: 3 }],
    );
    assert.deepEqual((await v.ok('sum', { group: true, key: ['b'] })).rows, [{ key: ['b'], value: 5 }]);
  });

  it("grouping going down: groups in descending order, keys cut from the group's first row", async () => {
    assert.deepEqual((await v.ok('count', { group_level: 1, descending: true })).rows, [
      { key: ['b'], value: 2 },
      { key: ['a'], value: 3 },
      { key: [], value: 1 },
      { key: 'solo', value: 2 },
    ]);
    assert.deepEqual(
      (await v.ok('sum', { group_level: 2, descending: true, startkey: ['a', 'y', 9], endkey: ['a'] })).rows,
      [
        { key: ['a', 'y'], value: 3 },
        { key: ['a', 'x'], value: 3 },
      ],
    );
  });

  it('limit and skip count grouped rows', async () => {
    assert.deepEqual(keys(await v.ok('count', { group: true, skip: 1, limit: 2 })), [[], ['a', 'x', 1]]);
    assert.deepEqual(keys(await v.ok('count', { group_level: 1, limit: 1, descending: true })), [['b']]);
    assert.deepEqual(await v.ok('count', { group: true, limit: 0 }), { rows: [] });
    assert.deepEqual(await v.ok('count', { group: true, skip: 50 }), { rows: [] });
    assert.deepEqual(await v.ok('count', { skip: 1 }), { rows: [] }, 'the single ungrouped row can be skipped');
  });

  it('reduce=false queries the map rows of a reduce view (ids, total_rows, offset)', async () => {
    const r = await v.ok('count', { reduce: false });
    assert.equal(r.total_rows, 8);
    assert.equal(r.offset, 0);
    assert.deepEqual(ids(r), ['r6', 'r7', 'r8', 'r1', 'r2', 'r3', 'r5', 'r4']);
    assert.deepEqual(r.rows[0], { id: 'r6', key: 'solo', value: 6 });
    const page = await v.ok('count', { reduce: false, startkey: ['a'], skip: 1, limit: 2 });
    assert.deepEqual(ids(page), ['r2', 'r3']);
    assert.equal(page.offset, 4);
    // group=false / group_level=0 are harmless with reduce=false.
    assert.deepEqual(ids(await v.ok('count', { reduce: false, group: false, group_level: 0, limit: 1 })), ['r6']);
    // reduce=true explicitly on a reduce view is the default.
    assert.deepEqual(await v.ok('count', { reduce: true }), { rows: [{ key: null, value: 8 }] });
  });

  it('_sum on arrays: element-wise, shorter padded, a number counts as a 1-element array', async () => {
    assert.deepEqual((await v.ok('sum_arrays')).rows, [{ key: null, value: [7, 3] }]);
    assert.deepEqual((await v.ok('sum_arrays', { group: true })).rows, [
      { key: 's-arr1', value: [1] },
      { key: 's-arr2', value: [2, 3] },
      { key: 's-arr3', value: 4 },
    ]);
  });

  it('_sum on objects: member-wise, recursively, members missing on one side copied', async () => {
    assert.deepEqual((await v.ok('sum_objects')).rows, [{ key: null, value: { a: 3, b: { c: 3, e: 1 }, d: 5 } }]);
  });

  it('_sum on strings: 200, the value is a builtin_reduce_error object (3.x)', async () => {
    const r = await v.get('sum_strings');
    assert.equal(r.status, 200, r.text);
    const value = r.json.rows[0].value;
    assert.equal(value.error, 'builtin_reduce_error');
    assert.match(
      value.reason,
      /^The _sum function requires that map values be numbers, arrays of numbers, or objects\./,
    );
    assert.equal(value.caused_by, 'not a number');
  });

  it('_stats: {sum,count,min,max,sumsqr} in that order; grouped', async () => {
    const r = await v.ok('stats');
    assert.deepEqual(r.rows, [{ key: null, value: { sum: 10, count: 4, min: 1, max: 4, sumsqr: 30 } }]);
    assert.deepEqual(Object.keys(r.rows[0].value), ['sum', 'count', 'min', 'max', 'sumsqr']);
    assert.deepEqual((await v.ok('stats', { group: true })).rows, [
      { key: 'x', value: { sum: 4, count: 2, min: 1, max: 3, sumsqr: 10 } },
      { key: 'y', value: { sum: 2, count: 1, min: 2, max: 2, sumsqr: 4 } },
      { key: 'z', value: { sum: 4, count: 1, min: 4, max: 4, sumsqr: 16 } },
    ]);
  });

  it('_stats on arrays of numbers: an array of stats objects; on stats objects: merged', async () => {
    assert.deepEqual((await v.ok('stats_arrays')).rows, [
      {
        key: null,
        value: [
          { sum: 4, count: 2, min: 1, max: 3, sumsqr: 10 },
          { sum: 6, count: 2, min: 2, max: 4, sumsqr: 20 },
        ],
      },
    ]);
    assert.deepEqual((await v.ok('stats_objects')).rows, [
      { key: null, value: { sum: 8, count: 3, min: 1, max: 4, sumsqr: 26 } },
    ]);
  });

  it('_approx_count_distinct: the number of distinct keys (exact when few)', async () => {
    assert.deepEqual((await v.ok('distinct')).rows, [{ key: null, value: 3 }]);
    assert.deepEqual((await v.ok('distinct', { group: true })).rows, [
      { key: 'x', value: 1 },
      { key: 'y', value: 1 },
      { key: 'z', value: 1 },
    ]);
    assert.deepEqual((await v.ok('distinct', { startkey: 'y' })).rows, [{ key: null, value: 2 }]);
  });

  it('JS reduce over 600 rows: reduce then rereduce give the full count, per group and per range', async () => {
    assert.deepEqual((await v.ok('js_count')).rows, [{ key: null, value: 600 }]);
    assert.deepEqual((await v.ok('js_count', { group_level: 1 })).rows, [
      { key: [0], value: 200 },
      { key: [1], value: 200 },
      { key: [2], value: 200 },
    ]);
    assert.deepEqual((await v.ok('js_count', { startkey: [1, 100], endkey: [1, 399] })).rows, [
      { key: null, value: 100 },
    ]);
    assert.equal((await v.ok('js_count', { group: true })).rows.length, 600);
  });

  it('JS reduce gets keys as [[key, docid], …] and null keys on rereduce', async () => {
    assert.deepEqual((await v.ok('js_minid')).rows, [{ key: null, value: 'many-0000' }]);
    assert.deepEqual((await v.ok('js_minid', { group: true })).rows, [
      { key: 0, value: 'many-0000' },
      { key: 1, value: 'many-0001' },
      { key: 2, value: 'many-0002' },
    ]);
    assert.deepEqual((await v.ok('js_stats', { group: true, descending: true })).rows, [
      { key: 2, value: { n: 200, max: 599 } },
      { key: 1, value: { n: 200, max: 598 } },
      { key: 0, value: { n: 200, max: 597 } },
    ]);
  });

  it('a throwing JS reduce yields null values, the query succeeds', async () => {
    assert.deepEqual(await v.ok('js_throws'), { rows: [{ key: null, value: null }] });
  });

  it('a JS reduce whose output does not shrink: a reduce_overflow_error row in a 200 answer (3.x)', async () => {
    const r = await v.get('js_overflow');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.rows.length, 1);
    const [row] = r.json.rows;
    assert.deepEqual(Object.keys(row), ['key', 'error', 'reason']);
    assert.equal(row.key, null);
    assert.equal(row.error, 'reduce_overflow_error');
    assert.match(row.reason, /^Reduce output must shrink more rapidly: input size: \d+ output size: \d+/);
    const grouped = await v.get('js_overflow', { group: true });
    assert.equal(grouped.status, 200);
    assert.deepEqual(keys(grouped.json), ['x', 'y', 'z']);
    for (const g of grouped.json.rows) assert.equal(g.error, 'reduce_overflow_error');
  });

  it('update_seq=true adds an integer update_seq to a reduce answer (and nothing else)', async () => {
    const r = await v.ok('count', { update_seq: true });
    assert.deepEqual(Object.keys(r), ['update_seq', 'rows']);
    assert.ok(Number.isInteger(r.update_seq));
  });
});

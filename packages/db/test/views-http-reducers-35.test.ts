/**
 * CouchDB 3.5's new builtin reducers over HTTP: `_top_N` / `_bottom_N` (N from 1 to 100; the N
 * highest / lowest values in view collation, equal values once) and `_first` / `_last` (the
 * value of the lowest / highest row by key then doc id, whatever the direction), with groups
 * and enough rows for B-tree rereduces; bad ones refused as CouchDB refuses an unknown builtin.
 * Also `collator_versions` in `_info`, and design documents in Erlang or CoffeeScript refused
 * with a 400 that names the language when their functions would run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { seed, viewClient, type ViewClient } from './support/views-http.js';

/** 900 rows over 3 devices: enough for inner B-tree nodes, so reductions are rereduced. */
const READINGS = Array.from({ length: 900 }, (_, i) => ({
  _id: `r${String(i).padStart(4, '0')}`,
  device: `d${i % 3}`,
  t: 1000 + i,
  // Values repeat (i % 50) so equal values meet; strings and numbers mix in device d2.
  v: i % 3 === 2 && i % 7 === 0 ? `s${i % 50}` : i % 50,
}));

const DDOC = {
  views: {
    top3: { map: 'function (doc) { if (doc.device) emit([doc.device, doc.t], doc.v); }', reduce: '_top_3' },
    bottom2: { map: 'function (doc) { if (doc.device) emit([doc.device, doc.t], doc.v); }', reduce: '_bottom_2' },
    top100: { map: 'function (doc) { if (doc.device) emit(doc.device, doc.v); }', reduce: '_top_100' },
    first: { map: 'function (doc) { if (doc.device) emit([doc.device, doc.t], doc._id); }', reduce: '_first' },
    last: { map: 'function (doc) { if (doc.device) emit([doc.device, doc.t], doc._id); }', reduce: '_last' },
    // The same key for every row: _first/_last fall back on the doc id.
    same_key: { map: 'function (doc) { if (doc.device) emit(doc.device, doc._id); }', reduce: '_last' },
  },
};

/** CouchDB's order for the values these rows emit: numbers below strings, strings by ICU. */
function expectedRank(device: string | undefined, top: boolean, n: number): unknown[] {
  const values = READINGS.filter((r) => device === undefined || r.device === device).map((r) => r.v);
  const numbers = [...new Set(values.filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b);
  const strings = [...new Set(values.filter((v): v is string => typeof v === 'string'))].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: false }),
  );
  const ascending = [...numbers, ...strings];
  return (top ? ascending.reverse() : ascending).slice(0, n);
}

describe('views over HTTP: CouchDB 3.5 reducers _top_N, _bottom_N, _first, _last', () => {
  let t: TestServer;
  let v: ViewClient;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'r35', READINGS, { r: DDOC });
    v = viewClient(t, 'r35', 'r');
  });
  after(() => t.close());

  it('_top_N and _bottom_N: the N highest / lowest values, equal values once, per group', async () => {
    assert.deepEqual(await v.ok('top3'), { rows: [{ key: null, value: expectedRank(undefined, true, 3) }] });
    const grouped = await v.ok('top3', { group_level: 1 });
    assert.deepEqual(
      grouped.rows,
      ['d0', 'd1', 'd2'].map((d) => ({ key: [d], value: expectedRank(d, true, 3) })),
    );
    assert.deepEqual(grouped.rows[0].value, [49, 48, 47]);
    assert.deepEqual((await v.ok('bottom2', { group_level: 1 })).rows[1], { key: ['d1'], value: [0, 1] });
    // A range reduces only its rows: d0's readings t=1000..1029 are v 0, 3, ..., 27.
    assert.deepEqual((await v.ok('bottom2', { startkey: ['d0', 1000], endkey: ['d0', 1029] })).rows, [
      { key: null, value: [0, 3] },
    ]);
    assert.deepEqual((await v.ok('top3', { startkey: ['d0', 1000], endkey: ['d0', 1029] })).rows, [
      { key: null, value: [27, 24, 21] },
    ]);
    // group=true on unique keys: each row's own value, in a list.
    const exact = await v.ok('top3', { group: true, limit: 2 });
    assert.deepEqual(exact.rows, [
      { key: ['d0', 1000], value: [0] },
      { key: ['d0', 1003], value: [3] },
    ]);
    // N = 100 keeps every distinct value when there are fewer (d0 has the 50 numbers).
    const all = (await v.ok('top100', { group: true })).rows[0];
    assert.deepEqual(all, { key: 'd0', value: expectedRank('d0', true, 100) });
    assert.equal(all.value.length, 50);
  });

  it('_first and _last: the value of the lowest / highest row by key, in any direction', async () => {
    assert.deepEqual((await v.ok('first')).rows, [{ key: null, value: 'r0000' }]);
    assert.deepEqual((await v.ok('last')).rows, [{ key: null, value: 'r0899' }]);
    const lastPerDevice = [
      { key: ['d0'], value: 'r0897' },
      { key: ['d1'], value: 'r0898' },
      { key: ['d2'], value: 'r0899' },
    ];
    assert.deepEqual((await v.ok('last', { group_level: 1 })).rows, lastPerDevice);
    // descending reverses the rows, not what _last picks (CouchDB 3.5).
    assert.deepEqual((await v.ok('last', { group_level: 1, descending: true })).rows, [...lastPerDevice].reverse());
    assert.deepEqual((await v.ok('first', { group_level: 1, descending: true })).rows, [
      { key: ['d2'], value: 'r0002' },
      { key: ['d1'], value: 'r0001' },
      { key: ['d0'], value: 'r0000' },
    ]);
    assert.deepEqual((await v.ok('same_key', { group: true })).rows[0], { key: 'd0', value: 'r0897' });
    // reduce=false shows the rows themselves.
    assert.deepEqual((await v.ok('first', { reduce: false, limit: 1 })).rows, [
      { id: 'r0000', key: ['d0', 1000], value: 'r0000' },
    ]);
  });

  it('a new row changes the answer incrementally', async () => {
    await t.request('PUT', '/r35/zlate', { body: { device: 'd0', t: 5000, v: 1000 } });
    assert.deepEqual((await v.ok('last', { group_level: 1 })).rows[0], { key: ['d0'], value: 'zlate' });
    assert.deepEqual((await v.ok('top3', { group_level: 1 })).rows[0], { key: ['d0'], value: [1000, 49, 48] });
    const doc = await t.request('GET', '/r35/zlate');
    await t.request('DELETE', `/r35/zlate?rev=${doc.json._rev}`);
    assert.deepEqual((await v.ok('last', { group_level: 1 })).rows[0], { key: ['d0'], value: 'r0897' });
  });

  it('bad ones are refused when the design document is saved, as an unknown builtin is', async () => {
    for (const bad of ['_top_0', '_top_101', '_bottom_', '_top_x', '_top_5 ', '_topN', '_bottom_-1']) {
      const r = await t.request('PUT', `/r35/_design/bad${encodeURIComponent(bad.trim() || 'blank')}`, {
        body: { views: { v: { map: 'function (doc) { emit(doc._id, 1); }', reduce: bad } } },
      });
      assert.equal(r.status, 400, bad);
      assert.deepEqual(r.json, {
        error: 'invalid_design_doc',
        reason: `\`${bad}\` is not a supported reduce function.`,
      });
    }
    // The accepted forms: 1 to 100 with leading zeros read as numbers, _first/_last by prefix.
    for (const [name, reduce] of [
      ['one', '_top_1'],
      ['hundred', '_bottom_100'],
      ['padded', '_top_007'],
      ['firstly', '_firstly'],
    ]) {
      const r = await t.request('PUT', `/r35/_design/ok-${name}`, {
        body: { views: { v: { map: 'function (doc) { if (doc.device) emit(doc.t, doc.v); }', reduce } } },
      });
      assert.equal(r.status, 201, `${reduce}: ${r.text}`);
    }
    const padded = await t.request('GET', '/r35/_design/ok-padded/_view/v');
    assert.equal(padded.json.rows[0].value.length, 7);
  });
});

describe('views over HTTP: collator_versions and languages Divan does not run', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'lang', [{ _id: 'a', n: 1 }], {
      js: { views: { v: { map: 'function (doc) { emit(doc._id, 1); }' } } },
      erl: {
        language: 'erlang',
        views: { v: { map: 'fun({Doc}) -> Emit(1, null) end.' } },
        shows: { s: 'fun(Doc, Req) -> {[{<<"body">>, <<"x">>}]} end.' },
        filters: { f: 'fun({Doc}, Req) -> true end.' },
      },
      coffee: { language: 'coffeescript', views: { v: { map: '(doc) -> emit(doc._id, 1)' } } },
      python: { language: 'python', views: { v: { map: 'def fun(doc): yield doc["_id"], 1' } } },
    });
  });
  after(() => t.close());

  it("_info lists the ICU collator version the index is built under, as CouchDB 3.5's collator_versions", async () => {
    const info = (await t.request('GET', '/lang/_design/js/_info')).json;
    assert.deepEqual(Object.keys(info.view_index).at(-1), 'collator_versions');
    const versions = (await t.request('GET', '/_node/_local/_versions')).json;
    assert.deepEqual(info.view_index.collator_versions, [versions.collation_driver.collator_version]);
    assert.match(info.view_index.collator_versions[0], /^\d+\.\d+/);
  });

  it('Erlang and CoffeeScript design documents save, and their functions answer a 400 naming the language', async () => {
    for (const [ddoc, language] of [
      ['erl', 'erlang'],
      ['coffee', 'coffeescript'],
    ]) {
      const r = await t.request('GET', `/lang/_design/${ddoc}/_view/v`);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.error, 'unknown_query_language');
      assert.ok(r.json.reason.startsWith(`${language}: `), r.json.reason);
      assert.match(r.json.reason, /not supported/);
    }
    const show = await t.request('GET', '/lang/_design/erl/_show/s/a');
    assert.deepEqual([show.status, show.json.error], [400, 'unknown_query_language']);
    const filter = await t.request('GET', '/lang/_changes?filter=erl/f');
    assert.deepEqual([filter.status, filter.json.error], [400, 'unknown_query_language']);
    // A language CouchDB has no query server for either: CouchDB's own answer, a 500 naming it.
    const python = await t.request('GET', '/lang/_design/python/_view/v');
    assert.deepEqual([python.status, python.json], [500, { error: 'unknown_query_language', reason: 'python' }]);
  });
});

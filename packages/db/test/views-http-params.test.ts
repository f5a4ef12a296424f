/**
 * View query parameters over HTTP (spec a.1, a.2, a.4; CouchDB 1.x's query parameters, limit
 * and skip rules): every range/paging/direction param and their aliases, left-to-right application,
 * POST body params with the query string winning, inclusive_end with and without endkey_docid in
 * both directions, doc-id bounds only with a key bound, offset semantics, limit=0, sorted, and
 * the JSON key types. Reduce, keys, include_docs, stale, options, headers and errors have their
 * own views-http-*.test.ts files.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { ids, keys, raw, seed, viewClient, type ViewClient } from './support/views-http.js';

/** Key 3 has three rows (d3a < d3b < d3c by id): the doc-id tie-break cases need them. */
const DOCS = [
  { _id: 'd1', k: 1, v: 10 },
  { _id: 'd2', k: 2, v: 20 },
  { _id: 'd3a', k: 3, v: 30 },
  { _id: 'd3b', k: 3, v: 31 },
  { _id: 'd3c', k: 3, v: 32 },
  { _id: 'd4', k: 4, v: 40 },
  { _id: 'd5', k: 5, v: 50 },
  { _id: 'm-null', m: null },
  { _id: 'm-false', m: false },
  { _id: 'm-true', m: true },
  { _id: 'm-num', m: 1.5 },
  { _id: 'm-str', m: 'a' },
  { _id: 'm-arr', m: ['a', 1] },
  { _id: 'm-obj', m: { b: 2, a: 1 } },
  { _id: 'm-none', m: 'no value' },
];
const ALL = ['d1', 'd2', 'd3a', 'd3b', 'd3c', 'd4', 'd5'];

const DDOC = {
  views: {
    num: { map: "function (doc) { if (typeof doc.k === 'number') emit(doc.k, doc.v); }" },
    mixed: {
      map: "function (doc) { if ('m' in doc) { if (doc._id === 'm-none') emit(doc.m); else emit(doc.m, doc._id); } }",
    },
  },
};

describe('views over HTTP: query parameters', () => {
  let t: TestServer;
  let v: ViewClient;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'params', DOCS, { p: DDOC });
    v = viewClient(t, 'params', 'p');
  });
  after(() => t.close());

  it('no params: every row in key order, ties by doc id; total_rows, offset 0; rows are {id,key,value}', async () => {
    const r = await v.ok('num');
    assert.deepEqual(Object.keys(r), ['total_rows', 'offset', 'rows']);
    assert.equal(r.total_rows, 7);
    assert.equal(r.offset, 0);
    assert.deepEqual(ids(r), ALL);
    assert.deepEqual(r.rows[2], { id: 'd3a', key: 3, value: 30 });
    for (const row of r.rows) assert.deepEqual(Object.keys(row), ['id', 'key', 'value']);
  });

  it('emit(key) without a value gives "value": null', async () => {
    const r = await v.ok('mixed', { key: 'no value' });
    assert.deepEqual(r.rows, [{ id: 'm-none', key: 'no value', value: null }]);
  });

  it('key: exact match; an integer matches a float of equal value (3 == 3.0)', async () => {
    assert.deepEqual(ids(await v.ok('num', { key: 3 })), ['d3a', 'd3b', 'd3c']);
    assert.deepEqual(ids(await v.ok('num', { key: raw('3.0') })), ['d3a', 'd3b', 'd3c']);
    assert.deepEqual(ids(await v.ok('num', { key: 6 })), []);
  });

  it('key accepts every JSON type: null, booleans, numbers, strings, arrays, objects (member order matters)', async () => {
    const find = async (key: unknown) => ids(await v.ok('mixed', { key }));
    assert.deepEqual(await find(null), ['m-null']);
    assert.deepEqual(await find(false), ['m-false']);
    assert.deepEqual(await find(true), ['m-true']);
    assert.deepEqual(await find(1.5), ['m-num']);
    assert.deepEqual(await find('a'), ['m-str']);
    assert.deepEqual(await find(['a', 1]), ['m-arr']);
    assert.deepEqual(await find({ b: 2, a: 1 }), ['m-obj']);
    assert.deepEqual(await find({ a: 1, b: 2 }), [], '{"a":1,"b":2} is a different key from {"b":2,"a":1}');
    // The whole view in CouchDB type order: null < false < true < numbers < strings < arrays < objects.
    assert.deepEqual(ids(await v.ok('mixed')), [
      'm-null',
      'm-false',
      'm-true',
      'm-num',
      'm-str',
      'm-none',
      'm-arr',
      'm-obj',
    ]);
  });

  it('startkey/endkey and their aliases start_key/end_key', async () => {
    const expected = ['d2', 'd3a', 'd3b', 'd3c', 'd4'];
    assert.deepEqual(ids(await v.ok('num', { startkey: 2, endkey: 4 })), expected);
    assert.deepEqual(ids(await v.ok('num', { start_key: 2, end_key: 4 })), expected);
    assert.deepEqual(ids(await v.ok('num', { start_key: 2, endkey: 4 })), expected);
    assert.deepEqual(ids(await v.ok('num', { startkey: 4 })), ['d4', 'd5']);
    assert.deepEqual(ids(await v.ok('num', { endkey: 2 })), ['d1', 'd2']);
    // Bounds need not be emitted keys.
    assert.deepEqual(ids(await v.ok('num', { startkey: 2.5, endkey: 3.5 })), ['d3a', 'd3b', 'd3c']);
  });

  it('params apply left to right: key then endkey is a range, endkey then key is exactly key; later occurrences win', async () => {
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['key', 2],
          ['endkey', 4],
        ]),
      ),
      ['d2', 'd3a', 'd3b', 'd3c', 'd4'],
    );
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['endkey', 4],
          ['key', 2],
        ]),
      ),
      ['d2'],
    );
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['startkey', 1],
          ['startkey', 4],
        ]),
      ),
      ['d4', 'd5'],
    );
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['start_key', 1],
          ['startkey', 5],
        ]),
      ),
      ['d5'],
      'an alias and its name are one param',
    );
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['limit', 1],
          ['limit', 3],
        ]),
      ),
      ['d1', 'd2', 'd3a'],
    );
    assert.deepEqual(
      ids(
        await v.ok('num', [
          ['descending', 'true'],
          ['descending', 'false'],
        ]),
      ),
      ALL,
    );
  });

  it('startkey_docid / start_key_doc_id: tie-break among rows whose key == startkey (raw strings, not JSON)', async () => {
    const expected = ['d3b', 'd3c', 'd4', 'd5'];
    assert.deepEqual(ids(await v.ok('num', { startkey: 3, startkey_docid: 'd3b' })), expected);
    assert.deepEqual(ids(await v.ok('num', { startkey: 3, start_key_doc_id: 'd3b' })), expected);
    // Between ids: starts at the first id >= the bound.
    assert.deepEqual(ids(await v.ok('num', { startkey: 3, startkey_docid: 'd3ab' })), expected);
  });

  it('endkey_docid / end_key_doc_id: tie-break among rows whose key == endkey', async () => {
    const expected = ['d1', 'd2', 'd3a', 'd3b'];
    assert.deepEqual(ids(await v.ok('num', { endkey: 3, endkey_docid: 'd3b' })), expected);
    assert.deepEqual(ids(await v.ok('num', { endkey: 3, end_key_doc_id: 'd3b' })), expected);
    assert.deepEqual(ids(await v.ok('num', { key: 3, startkey_docid: 'd3b', endkey_docid: 'd3b' })), ['d3b']);
  });

  it('doc-id bounds are ignored without a key bound (views; unlike _all_docs)', async () => {
    assert.deepEqual(ids(await v.ok('num', { startkey_docid: 'd3b' })), ALL);
    assert.deepEqual(ids(await v.ok('num', { endkey_docid: 'd3a' })), ALL);
    assert.deepEqual(ids(await v.ok('num', { start_key_doc_id: 'd4', end_key_doc_id: 'd2' })), ALL);
    // endkey_docid with only a startkey: still no effect on the (unbounded) end.
    assert.deepEqual(ids(await v.ok('num', { startkey: 3, endkey_docid: 'd3a' })), ['d3a', 'd3b', 'd3c', 'd4', 'd5']);
  });

  it('descending: whole order reversed (ids too); ranges are given in iteration order', async () => {
    assert.deepEqual(ids(await v.ok('num', { descending: true })), [...ALL].reverse());
    assert.deepEqual(ids(await v.ok('num', { descending: true, startkey: 4, endkey: 2 })), [
      'd4',
      'd3c',
      'd3b',
      'd3a',
      'd2',
    ]);
    assert.deepEqual(ids(await v.ok('num', { descending: true, key: 3 })), ['d3c', 'd3b', 'd3a']);
    assert.deepEqual(
      ids(await v.ok('num', { descending: 'TRUE' })),
      [...ALL].reverse(),
      'booleans are case-insensitive',
    );
    assert.deepEqual(ids(await v.ok('num', { descending: 'False' })), ALL);
  });

  it('descending with doc-id bounds: startkey_docid counts down, endkey_docid stops going down', async () => {
    assert.deepEqual(ids(await v.ok('num', { descending: true, startkey: 3, startkey_docid: 'd3b' })), [
      'd3b',
      'd3a',
      'd2',
      'd1',
    ]);
    assert.deepEqual(ids(await v.ok('num', { descending: true, endkey: 3, endkey_docid: 'd3b' })), [
      'd5',
      'd4',
      'd3c',
      'd3b',
    ]);
  });

  it('inclusive_end=false, forward: default endkey_docid excludes every row with key == endkey; explicit one excludes ids ≥ it', async () => {
    assert.deepEqual(ids(await v.ok('num', { endkey: 3, inclusive_end: false })), ['d1', 'd2']);
    assert.deepEqual(ids(await v.ok('num', { endkey: 3, endkey_docid: 'd3b', inclusive_end: false })), [
      'd1',
      'd2',
      'd3a',
    ]);
    assert.deepEqual(ids(await v.ok('num', { endkey: 3, endkey_docid: 'd3b', inclusive_end: true })), [
      'd1',
      'd2',
      'd3a',
      'd3b',
    ]);
    assert.deepEqual(ids(await v.ok('num', { startkey: 2, endkey: 4, inclusive_end: false })), [
      'd2',
      'd3a',
      'd3b',
      'd3c',
    ]);
    // An endkey that is not an emitted key: nothing equal to exclude.
    assert.deepEqual(ids(await v.ok('num', { endkey: 3.5, inclusive_end: false })), ['d1', 'd2', 'd3a', 'd3b', 'd3c']);
    // key= sets endkey too: every row of that key is excluded.
    assert.deepEqual(ids(await v.ok('num', { key: 3, inclusive_end: false })), []);
  });

  it('inclusive_end=false, descending: default excludes every row with key == endkey; explicit endkey_docid excludes ids ≤ it', async () => {
    assert.deepEqual(ids(await v.ok('num', { descending: true, endkey: 3, inclusive_end: false })), ['d5', 'd4']);
    assert.deepEqual(
      ids(await v.ok('num', { descending: true, endkey: 3, endkey_docid: 'd3b', inclusive_end: false })),
      ['d5', 'd4', 'd3c'],
    );
    assert.deepEqual(
      ids(await v.ok('num', { descending: true, endkey: 3, endkey_docid: 'd3b', inclusive_end: true })),
      ['d5', 'd4', 'd3c', 'd3b'],
    );
    assert.deepEqual(ids(await v.ok('num', { descending: true, startkey: 5, endkey: 2, inclusive_end: false })), [
      'd5',
      'd4',
      'd3c',
      'd3b',
      'd3a',
    ]);
  });

  it('skip then limit; offset = rows before the start bound + skip', async () => {
    const page = await v.ok('num', { skip: 2, limit: 2 });
    assert.deepEqual(ids(page), ['d3a', 'd3b']);
    assert.equal(page.offset, 2);
    assert.equal(page.total_rows, 7, 'total_rows is the whole index regardless of limit');
    const ranged = await v.ok('num', { startkey: 3, skip: 1 });
    assert.deepEqual(ids(ranged), ['d3b', 'd3c', 'd4', 'd5']);
    assert.equal(ranged.offset, 3);
    const byDocid = await v.ok('num', { startkey: 3, startkey_docid: 'd3c' });
    assert.equal(byDocid.offset, 4);
    assert.equal((await v.ok('num', { limit: 3 })).offset, 0);
  });

  it('offset going down counts the rows above the start bound', async () => {
    const down = await v.ok('num', { descending: true, startkey: 3 });
    assert.deepEqual(ids(down), ['d3c', 'd3b', 'd3a', 'd2', 'd1']);
    assert.equal(down.offset, 2);
    const downDocid = await v.ok('num', { descending: true, startkey: 3, startkey_docid: 'd3b' });
    assert.equal(downDocid.offset, 3);
    const downSkip = await v.ok('num', { descending: true, skip: 1, limit: 2 });
    assert.deepEqual(ids(downSkip), ['d4', 'd3c']);
    assert.equal(downSkip.offset, 1);
  });

  it('skip past the end: no rows, offset == total_rows; an empty range: offset = rows before its start', async () => {
    assert.deepEqual(await v.ok('num', { skip: 100 }), { total_rows: 7, offset: 7, rows: [] });
    assert.deepEqual(await v.ok('num', { startkey: 4, skip: 100 }), { total_rows: 7, offset: 7, rows: [] });
    assert.deepEqual(await v.ok('num', { startkey: 3.5, endkey: 3.7 }), { total_rows: 7, offset: 5, rows: [] });
    assert.deepEqual(await v.ok('num', { startkey: 99 }), { total_rows: 7, offset: 7, rows: [] });
    assert.deepEqual(await v.ok('num', { descending: true, startkey: 0 }), { total_rows: 7, offset: 7, rows: [] });
  });

  it('limit=0: no rows, metadata still sent (offset includes skip)', async () => {
    assert.deepEqual(await v.ok('num', { limit: 0 }), { total_rows: 7, offset: 0, rows: [] });
    assert.deepEqual(await v.ok('num', { limit: 0, skip: 3 }), { total_rows: 7, offset: 3, rows: [] });
    assert.deepEqual(await v.ok('num', { limit: 0, startkey: 4 }), { total_rows: 7, offset: 5, rows: [] });
  });

  it('limit larger than the view, skip=0 explicit', async () => {
    assert.deepEqual(ids(await v.ok('num', { limit: 1000, skip: 0 })), ALL);
  });

  it('POST body params are decoded JSON values (booleans may be "true" strings) and act as the GET params', async () => {
    const r = await v.postOk('num', { startkey: 2, endkey: 4, limit: 2, skip: 1, descending: false });
    assert.deepEqual(ids(r), ['d3a', 'd3b']);
    assert.equal(r.offset, 2);
    assert.deepEqual(ids(await v.postOk('num', { descending: 'true', limit: 1 })), ['d5']);
    assert.deepEqual(ids(await v.postOk('num', { key: 3, startkey_docid: 'd3b', endkey_docid: 'd3b' })), ['d3b']);
    assert.deepEqual(ids(await v.postOk('num', { start_key: 4, end_key_doc_id: 'x' })), ['d4', 'd5']);
    assert.deepEqual(ids(await v.postOk('mixed', { key: { b: 2, a: 1 } })), ['m-obj']);
    assert.deepEqual(ids(await v.postOk('num', { endkey: 3, inclusive_end: false })), ['d1', 'd2']);
    assert.deepEqual(ids(await v.postOk('num', {})), ALL);
  });

  it('POST: the query string is applied after the body, so it wins on collision', async () => {
    assert.deepEqual(ids(await v.postOk('num', { limit: 1 }, { limit: 3 })), ['d1', 'd2', 'd3a']);
    assert.deepEqual(ids(await v.postOk('num', { key: 3 }, { key: 1 })), ['d1']);
    assert.deepEqual(ids(await v.postOk('num', { descending: true }, { descending: false, limit: 2 })), ['d1', 'd2']);
    // key in the body, endkey in the query string: the query string is applied later, so a..b.
    assert.deepEqual(ids(await v.postOk('num', { key: 4 }, { endkey: 5 })), ['d4', 'd5']);
    // endkey in the body, key in the query string: exactly the key.
    assert.deepEqual(ids(await v.postOk('num', { endkey: 5 }, { key: 4 })), ['d4']);
  });

  it('unknown params, count, callback and empty param names are ignored', async () => {
    assert.deepEqual(ids(await v.ok('num', { foo: 'bar', count: 2 })), ALL);
    const r = await t.request('GET', `${v.path('num')}?&limit=1&`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(ids(r.json), ['d1']);
    const jsonp = await v.get('num', { callback: 'cb', limit: 1 });
    assert.equal(jsonp.status, 200);
    assert.deepEqual(ids(jsonp.json), ['d1'], 'JSONP is off (3.x default): the body is plain JSON');
  });

  it('conflicts/attachments/att_encoding_info/update_seq/stable/sorted=true on a map view are accepted', async () => {
    const r = await v.ok('num', {
      conflicts: false,
      attachments: false,
      att_encoding_info: false,
      stable: true,
      sorted: true,
      limit: 2,
    });
    assert.deepEqual(ids(r), ['d1', 'd2']);
  });

  it('sorted=false (a.2, verified 3.5): {"rows":[…]} without total_rows/offset', async () => {
    const r = await v.ok('num', { sorted: false });
    assert.deepEqual(Object.keys(r), ['rows'], JSON.stringify(r));
    assert.deepEqual([...ids(r)].sort(), ALL);
  });

  it('key and doc-id bounds together at both ends, through the aliases and going down', async () => {
    const asc = await v.ok('num', { start_key: 2, end_key: 4, start_key_doc_id: 'd3b', end_key_doc_id: 'd3b' });
    assert.deepEqual(ids(asc), ['d3a', 'd3b', 'd3c']);
    const r = await v.ok('num', { startkey: 2, endkey: 3, startkey_docid: 'd2', endkey_docid: 'd3b' });
    assert.deepEqual(ids(r), ['d2', 'd3a', 'd3b']);
    const d = await v.ok('num', {
      descending: true,
      startkey: 3,
      endkey: 2,
      startkey_docid: 'd3b',
      endkey_docid: 'd2',
    });
    assert.deepEqual(ids(d), ['d3b', 'd3a', 'd2']);
    assert.deepEqual(keys(d), [3, 3, 2]);
  });
});

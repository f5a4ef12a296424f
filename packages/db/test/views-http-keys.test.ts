/**
 * Multi-key fetches over HTTP (spec a.2 `keys`, a.4 "keys ordering", "keys + descending",
 * "keys + skip/limit/startkey_docid/endkey_docid", g "keys + descending on views: 3.x"; CouchDB
 * 1.x's POST): GET `?keys=` and POST `{"keys":[…]}`, order of the array, rows per key by doc id,
 * duplicates, missing keys, descending, paging and doc-id bounds inside keys, reduce views with
 * group=true, one-element keys as key, keys=[], and the answer's shape (total_rows still the
 * whole view). The errors of keys (with key/startkey/endkey, on reduce without group) are in
 * views-http-errors.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { ids, keys, seed, viewClient, type ViewClient } from './support/views-http.js';

const DOCS = [
  { _id: 'a1', k: 'a', n: 1 },
  { _id: 'a2', k: 'a', n: 2 },
  { _id: 'a3', k: 'a', n: 3 },
  { _id: 'b1', k: 'b', n: 4 },
  { _id: 'c1', k: 'c', n: 5 },
  { _id: 'c2', k: 'c', n: 6 },
  { _id: 'x-null', k: null, n: 7 },
  { _id: 'x-arr', k: ['a', 1], n: 8 },
  { _id: 'x-obj', k: { z: 1 }, n: 9 },
  { _id: 'x-num', k: 2, n: 10 },
];

const DDOC = {
  views: {
    by_k: { map: "function (doc) { if ('k' in doc) emit(doc.k, doc.n); }" },
    sum_k: { map: "function (doc) { if ('k' in doc) emit(doc.k, doc.n); }", reduce: '_sum' },
  },
};

describe('views over HTTP: keys', () => {
  let t: TestServer;
  let v: ViewClient;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'keys', DOCS, { k: DDOC });
    v = viewClient(t, 'keys', 'k');
  });
  after(() => t.close());

  it('POST {"keys":[…]}: rows grouped per key in the order of the array, by doc id within a key', async () => {
    const r = await v.postOk('by_k', { keys: ['c', 'a', 'b'] });
    assert.deepEqual(ids(r), ['c1', 'c2', 'a1', 'a2', 'a3', 'b1']);
    assert.deepEqual(r.rows[0], { id: 'c1', key: 'c', value: 5 });
    assert.equal(r.total_rows, 10, 'total_rows still reports the whole view (CouchDB 3.5: POST keys)');
  });

  it('GET ?keys=<URL-encoded JSON array> answers the same as POST', async () => {
    const get = await v.ok('by_k', { keys: ['c', 'a', 'b'] });
    const post = await v.postOk('by_k', { keys: ['c', 'a', 'b'] });
    assert.deepEqual(get.rows, post.rows);
    assert.equal(get.total_rows, post.total_rows);
  });

  it('the answer keeps the map view shape: total_rows and a numeric offset (CouchDB 3.5: offset is a number)', async () => {
    const r = await v.postOk('by_k', { keys: ['b', 'a'] });
    assert.deepEqual(Object.keys(r), ['total_rows', 'offset', 'rows']);
    assert.equal(typeof r.offset, 'number', `offset: ${JSON.stringify(r.offset)}`);
  });

  it('keys with no rows produce nothing; keys of every JSON type', async () => {
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['zzz', 'b', 'nope'] })), ['b1']);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: [{ z: 1 }, null, ['a', 1], 2, 2.0] })), [
      'x-obj',
      'x-null',
      'x-arr',
      'x-num',
      'x-num',
    ]);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: [['a']] })), [], '["a"] is not ["a",1]');
  });

  it('keys=[]: zero rows, 200', async () => {
    const r = await v.postOk('by_k', { keys: [] });
    assert.deepEqual(r.rows, []);
    assert.equal(r.total_rows, 10);
    assert.deepEqual((await v.ok('by_k', { keys: [] })).rows, []);
  });

  it('duplicate keys: each occurrence yields its rows again (1.x; the only defined behaviour)', async () => {
    const r = await v.postOk('by_k', { keys: ['b', 'c', 'b'] });
    assert.deepEqual(ids(r), ['b1', 'c1', 'c2', 'b1']);
  });

  it('descending: the keys array is read reversed (3.x) and ids within a key go down', async () => {
    const r = await v.postOk('by_k', { keys: ['c', 'a', 'b'], descending: true });
    assert.deepEqual(ids(r), ['b1', 'a3', 'a2', 'a1', 'c2', 'c1']);
    assert.deepEqual(ids(await v.ok('by_k', { keys: ['a', 'c'], descending: true })), ['c2', 'c1', 'a3', 'a2', 'a1']);
  });

  it('skip and limit apply to the concatenated result', async () => {
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['c', 'a'], skip: 1, limit: 3 })), ['c2', 'a1', 'a2']);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['c', 'a'], skip: 4 })), ['a3']);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['c', 'a'], skip: 9 })), []);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['c', 'a'], limit: 0 })), []);
    assert.deepEqual(
      ids(await v.postOk('by_k', { keys: ['c', 'a'] }, { limit: 1 })),
      ['c1'],
      'query-string limit with body keys',
    );
  });

  it('startkey_docid / endkey_docid apply inside every key', async () => {
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['a', 'c'], startkey_docid: 'a2' })), ['a2', 'a3', 'c1', 'c2']);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['a', 'c'], endkey_docid: 'a2' })), ['a1', 'a2']);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['c', 'a'], startkey_docid: 'a2', endkey_docid: 'c1' })), [
      'c1',
      'a2',
      'a3',
    ]);
  });

  it('reduce view with group=true: one row per requested key, in the order of the array', async () => {
    assert.deepEqual((await v.postOk('sum_k', { keys: ['c', 'a', 'zzz', 'b'], group: true })).rows, [
      { key: 'c', value: 11 },
      { key: 'a', value: 6 },
      { key: 'b', value: 4 },
    ]);
    // Grouped by keys, descending does not reverse the keys (CouchDB 3.5).
    assert.deepEqual((await v.ok('sum_k', { keys: ['b', 'a'], group: true, descending: true })).rows, [
      { key: 'b', value: 4 },
      { key: 'a', value: 6 },
    ]);
    assert.deepEqual((await v.postOk('sum_k', { keys: ['c', 'a', 'b'], group: true, skip: 1, limit: 1 })).rows, [
      { key: 'a', value: 6 },
    ]);
  });

  it('a one-element keys is a key (3.3.1+): allowed on a reduce view without group', async () => {
    assert.deepEqual((await v.postOk('sum_k', { keys: ['a'] })).rows, [{ key: null, value: 6 }]);
    assert.deepEqual((await v.ok('sum_k', { keys: ['c'] })).rows, [{ key: null, value: 11 }]);
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['a'] })), ['a1', 'a2', 'a3']);
  });

  it('reduce=false on a reduce view: map rows per key', async () => {
    const r = await v.postOk('sum_k', { keys: ['b', 'a'], reduce: false });
    assert.deepEqual(ids(r), ['b1', 'a1', 'a2', 'a3']);
    assert.equal(r.total_rows, 10);
  });

  it('POST keys with query-string params', async () => {
    assert.deepEqual(ids(await v.postOk('by_k', { keys: ['a', 'b'] }, { descending: true })), ['b1', 'a3', 'a2', 'a1']);
    assert.deepEqual(keys(await v.postOk('sum_k', { keys: ['b', 'a'] }, { group: true })), ['b', 'a']);
  });
});

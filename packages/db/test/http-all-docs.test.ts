import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));
const ids = (body: { rows: { id?: string; key: unknown }[] }): unknown[] => body.rows.map((row) => row.id ?? row.key);
const qpe = (reason: string) => ({ error: 'query_parse_error', reason });

describe('_all_docs', () => {
  let t: TestServer;
  const revs: Record<string, string> = {};

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    const docs = ['a', 'b', 'c', 'c2', 'd'].map((id) => ({ _id: id, n: id }));
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [...docs, { _id: '_design/d1', views: {} }] },
    });
    for (const row of r.json) revs[row.id] = row.rev;
    // 'e' has a conflict: 1-bbb wins over 1-aaa.
    await t.request('POST', '/db/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'e', _rev: '1-aaa', v: 'a' },
          { _id: 'e', _rev: '1-bbb', v: 'b' },
        ],
      },
    });
    revs.e = '1-bbb';
    const del = await t.request('DELETE', `/db/c2?rev=${revs.c2}`);
    revs.c2 = del.json.rev;
    await t.request('PUT', '/db/_local/l1', { body: { x: 1 } });
  });
  after(() => t.close());

  const row = (id: string) => ({ id, key: id, value: { rev: revs[id] } });

  it('lists live docs (design docs included, deleted and local not) in id order', async () => {
    const r = await t.request('GET', '/db/_all_docs');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(r.json, {
      total_rows: 6,
      offset: 0,
      rows: ['_design/d1', 'a', 'b', 'c', 'd', 'e'].map(row),
    });
  });

  it('startkey/endkey, inclusive_end, descending, limit, skip, key; offset counts rows before the first', async () => {
    const range = await t.request('GET', `/db/_all_docs?startkey=${q('b')}&endkey=${q('d')}`);
    assert.deepEqual([range.json.offset, ids(range.json)], [2, ['b', 'c', 'd']]);
    const aliases = await t.request('GET', `/db/_all_docs?start_key=${q('b')}&end_key=${q('d')}&inclusive_end=false`);
    assert.deepEqual(ids(aliases.json), ['b', 'c']);
    const desc = await t.request('GET', `/db/_all_docs?descending=true&startkey=${q('d')}&endkey=${q('b')}`);
    assert.deepEqual([desc.json.total_rows, desc.json.offset, ids(desc.json)], [6, 1, ['d', 'c', 'b']]);
    const descExclusive = await t.request(
      'GET',
      `/db/_all_docs?descending=true&startkey=${q('d')}&endkey=${q('b')}&inclusive_end=false`,
    );
    assert.deepEqual(ids(descExclusive.json), ['d', 'c']);
    const all = await t.request('GET', '/db/_all_docs?descending=TRUE');
    assert.deepEqual([all.json.offset, ids(all.json)], [0, ['e', 'd', 'c', 'b', 'a', '_design/d1']]);
    const page = await t.request('GET', '/db/_all_docs?skip=1&limit=2');
    assert.deepEqual([page.json.offset, ids(page.json)], [1, ['a', 'b']]);
    const pageFrom = await t.request('GET', `/db/_all_docs?startkey=${q('b')}&skip=1&limit=2`);
    assert.deepEqual([pageFrom.json.offset, ids(pageFrom.json)], [3, ['c', 'd']]);
    const limit0 = await t.request('GET', '/db/_all_docs?limit=0');
    assert.deepEqual(limit0.json, { total_rows: 6, offset: 0, rows: [] });
    const past = await t.request('GET', '/db/_all_docs?skip=100');
    assert.deepEqual(past.json, { total_rows: 6, offset: 6, rows: [] });
    const key = await t.request('GET', `/db/_all_docs?key=${q('c')}`);
    assert.deepEqual(key.json, { total_rows: 6, offset: 3, rows: [row('c')] });
    const deletedKey = await t.request('GET', `/db/_all_docs?key=${q('c2')}`);
    assert.deepEqual(deletedKey.json, { total_rows: 6, offset: 4, rows: [] });
  });

  it('params apply left to right: key then endkey is a range, endkey then key is one key', async () => {
    const range = await t.request('GET', `/db/_all_docs?key=${q('a')}&endkey=${q('b')}`);
    assert.deepEqual(ids(range.json), ['a', 'b']);
    const one = await t.request('GET', `/db/_all_docs?endkey=${q('b')}&key=${q('a')}`);
    assert.deepEqual(ids(one.json), ['a']);
  });

  it('a reversed range is a 200 with no rows (views would answer 400)', async () => {
    const r = await t.request('GET', `/db/_all_docs?startkey=${q('d')}&endkey=${q('b')}`);
    assert.equal(r.status, 200);
    assert.equal(r.json.total_rows, 6);
    assert.deepEqual(r.json.rows, []);
    const keyStart = await t.request('GET', `/db/_all_docs?key=${q('a')}&startkey=${q('b')}`);
    assert.deepEqual([keyStart.status, keyStart.json.rows], [200, []]);
    const desc = await t.request('GET', `/db/_all_docs?descending=true&startkey=${q('b')}&endkey=${q('d')}`);
    assert.deepEqual([desc.status, desc.json.rows], [200, []]);
  });

  it('startkey_docid is the start when startkey is absent; endkey_docid likewise the end', async () => {
    const start = await t.request('GET', '/db/_all_docs?startkey_docid=c');
    assert.deepEqual(ids(start.json), ['c', 'd', 'e']);
    const both = await t.request('GET', '/db/_all_docs?start_key_doc_id=b&endkey_docid=c');
    assert.deepEqual(ids(both.json), ['b', 'c']);
    const keyWins = await t.request('GET', `/db/_all_docs?startkey=${q('d')}&startkey_docid=a`);
    assert.deepEqual(ids(keyWins.json), ['d', 'e']);
  });

  it('keys (POST): one row per key in key order, duplicates repeated, missing and deleted rows', async () => {
    const r = await t.request('POST', '/db/_all_docs', { body: { keys: ['d', 'a', 'zz', 'd', 'c2'] } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      total_rows: 6,
      offset: null,
      rows: [
        row('d'),
        row('a'),
        { key: 'zz', error: 'not_found' },
        row('d'),
        { id: 'c2', key: 'c2', value: { rev: revs.c2, deleted: true } },
      ],
    });
  });

  it('keys with descending reverse the list; skip and limit apply to the rows', async () => {
    const desc = await t.request('POST', '/db/_all_docs?descending=true', { body: { keys: ['a', 'zz', 'd'] } });
    assert.deepEqual(ids(desc.json), ['d', 'zz', 'a']);
    const page = await t.request('POST', '/db/_all_docs?skip=1&limit=2', { body: { keys: ['a', 'zz', 'd', 'b'] } });
    assert.deepEqual(ids(page.json), ['zz', 'd']);
    const bodyParams = await t.request('POST', '/db/_all_docs', {
      body: { keys: ['a', 'b', 'c'], limit: 1, descending: true },
    });
    assert.deepEqual(ids(bodyParams.json), ['c']);
    const queryWins = await t.request('POST', '/db/_all_docs?limit=2', { body: { keys: ['a', 'b', 'c'], limit: 1 } });
    assert.deepEqual(ids(queryWins.json), ['a', 'b']);
    const empty = await t.request('POST', '/db/_all_docs', { body: { keys: [] } });
    assert.deepEqual(empty.json, { total_rows: 6, offset: null, rows: [] });
  });

  it('keys as a GET param; include_docs gives doc:null for a deleted doc', async () => {
    const r = await t.request('GET', `/db/_all_docs?include_docs=true&keys=${q(['a', 'c2', 'nope'])}`);
    assert.deepEqual(r.json.rows, [
      { ...row('a'), doc: { _id: 'a', _rev: revs.a, n: 'a' } },
      { id: 'c2', key: 'c2', value: { rev: revs.c2, deleted: true }, doc: null },
      { key: 'nope', error: 'not_found' },
    ]);
    assert.equal(r.json.offset, null);
  });

  it('keys together with key/startkey/endkey is a query_parse_error; keys must be an array', async () => {
    const withStart = await t.request('GET', `/db/_all_docs?keys=${q(['a'])}&startkey=${q('b')}`);
    assert.deepEqual(
      [withStart.status, withStart.json],
      [400, qpe('`keys` is incompatible with `key`, `start_key` and `end_key`')],
    );
    const withKey = await t.request('POST', '/db/_all_docs', { body: { keys: ['a', 'b'], key: 'a' } });
    assert.deepEqual(
      [withKey.status, withKey.json],
      [400, qpe('`keys` is incompatible with `key`, `start_key` and `end_key`')],
    );
    const getNotArray = await t.request('GET', '/db/_all_docs?keys=5');
    assert.deepEqual(
      [getNotArray.status, getNotArray.json],
      [400, { error: 'bad_request', reason: '`keys` parameter must be an array.' }],
    );
    const postNotArray = await t.request('POST', '/db/_all_docs', { body: { keys: 5 } });
    assert.deepEqual(
      [postNotArray.status, postNotArray.json],
      [400, { error: 'bad_request', reason: '`keys` body member must be an array.' }],
    );
    const notObject = await t.request('POST', '/db/_all_docs', { body: '[]' });
    assert.deepEqual(
      [notObject.status, notObject.json],
      [400, { error: 'bad_request', reason: 'Request body must be a JSON object' }],
    );
  });

  it('include_docs gives the winning doc; conflicts=true adds _conflicts only with include_docs', async () => {
    const r = await t.request('GET', `/db/_all_docs?include_docs=true&startkey=${q('d')}`);
    assert.deepEqual(r.json.rows, [
      { ...row('d'), doc: { _id: 'd', _rev: revs.d, n: 'd' } },
      { ...row('e'), doc: { _id: 'e', _rev: '1-bbb', v: 'b' } },
    ]);
    const conflicts = await t.request('GET', `/db/_all_docs?include_docs=true&conflicts=true&startkey=${q('d')}`);
    assert.deepEqual(conflicts.json.rows[0].doc, { _id: 'd', _rev: revs.d, n: 'd' });
    assert.deepEqual(conflicts.json.rows[1].doc, { _id: 'e', _rev: '1-bbb', v: 'b', _conflicts: ['1-aaa'] });
    const noDocs = await t.request('GET', `/db/_all_docs?conflicts=true&startkey=${q('e')}`);
    assert.deepEqual(noDocs.json.rows, [row('e')]);
  });

  it('conflicts=true as CouchDB 3.5 (couch_db:doc_meta_info): _conflicts only with live losing leaves, best first; deleted docs as without it', async () => {
    await t.request('PUT', '/cdb');
    await t.request('POST', '/cdb/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'three', _rev: '1-aaa', v: 1 },
          { _id: 'three', _rev: '1-ccc', v: 3 },
          { _id: 'three', _rev: '1-bbb', v: 2 },
          { _id: 'delconf', _rev: '1-aaa', v: 1 },
          { _id: 'delconf', _rev: '1-bbb', _deleted: true },
          { _id: 'gone', _rev: '1-aaa', v: 1 },
          { _id: 'gone', _rev: '1-bbb', _deleted: true },
          { _id: 'gone', _rev: '1-ccc', _deleted: true },
        ],
      },
    });
    const docs = {
      delconf: { _id: 'delconf', _rev: '1-aaa', v: 1 },
      three: { _id: 'three', _rev: '1-ccc', v: 3, _conflicts: ['1-bbb', '1-aaa'] },
    };
    const all = await t.request('GET', '/cdb/_all_docs?include_docs=true&conflicts=true');
    // 'gone' has a live leaf (1-aaa) beside its tombstones: it is live, its conflicts none.
    assert.deepEqual(
      all.json.rows.map((r: { doc: unknown }) => r.doc),
      [docs.delconf, { _id: 'gone', _rev: '1-aaa', v: 1 }, docs.three],
    );
    await t.request('DELETE', '/cdb/gone?rev=1-aaa');
    const keyed = await t.request('POST', '/cdb/_all_docs?include_docs=true&conflicts=true', {
      body: { keys: ['three', 'gone', 'delconf', 'none'] },
    });
    assert.deepEqual(keyed.json.rows, [
      { id: 'three', key: 'three', value: { rev: '1-ccc' }, doc: docs.three },
      { id: 'gone', key: 'gone', value: { rev: keyed.json.rows[1].value.rev, deleted: true }, doc: null },
      { id: 'delconf', key: 'delconf', value: { rev: '1-aaa' }, doc: docs.delconf },
      { key: 'none', error: 'not_found' },
    ]);
    assert.match(keyed.json.rows[1].value.rev, /^2-/);
    const unkeyed = await t.request('GET', '/cdb/_all_docs?include_docs=true&conflicts=true');
    assert.deepEqual(
      unkeyed.json.rows.map((r: { id: string }) => r.id),
      ['delconf', 'three'],
    );
  });

  it('update_seq=true adds the integer update_seq after offset', async () => {
    const seq = (await t.request('GET', '/db')).json.update_seq;
    const r = await t.request('GET', '/db/_all_docs?update_seq=true&limit=0');
    assert.equal(r.text.trim(), `{"total_rows":6,"offset":0,"update_seq":${seq},"rows":[]}`);
    assert.equal(typeof seq, 'number');
    // With keys CouchDB 3 reports update_seq (and offset) as null.
    const keyed = await t.request('POST', '/db/_all_docs?update_seq=true', { body: { keys: [] } });
    assert.equal(keyed.text.trim(), '{"total_rows":6,"offset":null,"update_seq":null,"rows":[]}');
  });

  it('keys may name _local docs (CouchDB opens each key as a document)', async () => {
    const r = await t.request('POST', '/db/_all_docs', { body: { keys: ['_local/l1'] } });
    assert.deepEqual(r.json.rows, [{ id: '_local/l1', key: '_local/l1', value: { rev: '0-1' } }]);
  });

  it('bad integers and booleans are query_parse_errors with CouchDB reasons; bad JSON is invalid UTF-8 JSON', async () => {
    const cases: [string, unknown][] = [
      ['limit=abc', qpe('Invalid value for integer: "abc"')],
      ['limit=-1', qpe('Invalid value for positive integer: "-1"')],
      ['limit=', qpe('Invalid value for integer: []')],
      ['skip=1.5', qpe('Invalid value for integer: "1.5"')],
      ['descending=maybe', qpe('Invalid boolean parameter: "maybe"')],
      ['include_docs=1', qpe('Invalid boolean parameter: "1"')],
      ['inclusive_end=yes', qpe('Invalid boolean parameter: "yes"')],
      ['update_seq=no', qpe('Invalid boolean parameter: "no"')],
      ['conflicts=', qpe('Invalid boolean parameter: []')],
      ['startkey=b', { error: 'bad_request', reason: 'invalid UTF-8 JSON' }],
      ['endkey=%7B', { error: 'bad_request', reason: 'invalid UTF-8 JSON' }],
      ['key=', { error: 'bad_request', reason: 'invalid UTF-8 JSON' }],
      ['keys=%5B', { error: 'bad_request', reason: 'invalid UTF-8 JSON' }],
    ];
    for (const [query, body] of cases) {
      const r = await t.request('GET', `/db/_all_docs?${query}`);
      assert.deepEqual([r.status, r.json], [400, body], query);
    }
    const post = await t.request('POST', '/db/_all_docs', { body: { limit: 'abc' } });
    assert.deepEqual([post.status, post.json], [400, qpe('Invalid value for integer: "abc"')]);
    const junk = await t.request('POST', '/db/_all_docs', { body: '{"keys":' });
    assert.deepEqual([junk.status, junk.json], [400, { error: 'bad_request', reason: 'invalid UTF-8 JSON' }]);
  });

  it('unknown and cluster-only params are ignored', async () => {
    const r = await t.request('GET', '/db/_all_docs?stable=true&update=false&sorted=false&bogus=1&limit=1');
    assert.deepEqual(ids(r.json), ['_design/d1']);
  });

  it('POST needs application/json (415); HEAD answers headers only; other verbs 405', async () => {
    const typed = await t.request('POST', '/db/_all_docs', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(
      [typed.status, typed.json],
      [415, { error: 'bad_content_type', reason: 'Content-Type must be application/json' }],
    );
    const head = await t.request('HEAD', '/db/_all_docs');
    assert.deepEqual([head.status, head.text], [200, '']);
    const put = await t.request('PUT', '/db/_all_docs', { body: {} });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET,HEAD,POST');
  });

  it('POST /db/_all_docs/queries: one result per query, URL params as defaults, any Content-Type', async () => {
    const r = await t.request('POST', '/db/_all_docs/queries?limit=1', {
      body: JSON.stringify({
        queries: [{}, { keys: ['b', 'zz'] }, { startkey: 'c', limit: 2 }, { descending: true, include_docs: true }],
      }),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      results: [
        { total_rows: 6, offset: 0, rows: [row('_design/d1')] },
        { total_rows: 6, offset: null, rows: [row('b')] },
        { total_rows: 6, offset: 3, rows: [row('c'), row('d')] },
        { total_rows: 6, offset: 0, rows: [{ ...row('e'), doc: { _id: 'e', _rev: '1-bbb', v: 'b' } }] },
      ],
    });
    const missing = await t.request('POST', '/db/_all_docs/queries', { body: {} });
    assert.deepEqual(
      [missing.status, missing.json],
      [400, { error: 'bad_request', reason: 'POST body must include `queries` parameter.' }],
    );
    const notArray = await t.request('POST', '/db/_all_docs/queries', { body: { queries: 5 } });
    assert.deepEqual(
      [notArray.status, notArray.json],
      [400, { error: 'bad_request', reason: '`queries` member must be an array.' }],
    );
    const badParam = await t.request('POST', '/db/_all_docs/queries', { body: { queries: [{ limit: -1 }] } });
    assert.equal(badParam.status, 400);
    assert.equal(badParam.json.error, 'query_parse_error');
  });

  it('_design_docs lists design docs only; total_rows and offset are the design doc count', async () => {
    await t.request('PUT', '/db/_design/d2', { body: {} });
    const r = await t.request('GET', '/db/_design_docs');
    assert.equal(r.status, 200);
    assert.equal(r.json.total_rows, 2);
    assert.equal(r.json.offset, 2);
    assert.deepEqual(ids(r.json), ['_design/d1', '_design/d2']);
    const desc = await t.request('GET', '/db/_design_docs?descending=true&limit=1');
    assert.deepEqual(ids(desc.json), ['_design/d2']);
    const keys = await t.request('POST', '/db/_design_docs', { body: { keys: ['_design/d2', '_design/none'] } });
    assert.deepEqual(keys.json.rows[1], { key: '_design/none', error: 'not_found' });
    assert.equal(keys.json.rows[0].id, '_design/d2');
    const docs = await t.request('GET', `/db/_design_docs?include_docs=true&startkey=${q('_design/d2')}`);
    assert.deepEqual(docs.json.rows[0].doc._id, '_design/d2');
    await t.request('DELETE', `/db/_design/d2?rev=${docs.json.rows[0].value.rev}`);
  });

  it('_local_docs lists local docs with null total_rows and offset', async () => {
    await t.request('PUT', '/db/_local/l2', { body: { y: 2 } });
    const r = await t.request('GET', '/db/_local_docs');
    assert.deepEqual(r.json, {
      total_rows: null,
      offset: null,
      rows: [
        { id: '_local/l1', key: '_local/l1', value: { rev: '0-1' } },
        { id: '_local/l2', key: '_local/l2', value: { rev: '0-1' } },
      ],
    });
    const docs = await t.request('GET', '/db/_local_docs?include_docs=true&descending=true&limit=1');
    assert.deepEqual(docs.json.rows, [
      { id: '_local/l2', key: '_local/l2', value: { rev: '0-1' }, doc: { _id: '_local/l2', _rev: '0-1', y: 2 } },
    ]);
    const keys = await t.request('POST', '/db/_local_docs', { body: { keys: ['_local/l1', '_local/none'] } });
    assert.deepEqual(keys.json.rows, [
      { id: '_local/l1', key: '_local/l1', value: { rev: '0-1' } },
      { key: '_local/none', error: 'not_found' },
    ]);
  });

  it('a missing database is a 404', async () => {
    const r = await t.request('GET', '/nodb/_all_docs');
    assert.deepEqual([r.status, r.json], [404, { error: 'not_found', reason: 'Database does not exist.' }]);
  });
});

describe('_all_docs id order', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/order');
  });
  after(() => t.close());

  it('is code point order: Z < a, B < [ < _design/… < a, U+E000 < U+FF46 < astral, NFC ≠ NFD', async () => {
    const expected = [
      'B',
      'Z',
      '[',
      '_design/x',
      'a',
      'e\u0301',
      '\u00e9',
      '\ue000',
      '\uff46',
      '\u{10400}',
      '\u{1F600}',
    ];
    const shuffled = [...expected].reverse();
    shuffled.push(shuffled.shift()!);
    const w = await t.request('POST', '/order/_bulk_docs', { body: { docs: shuffled.map((_id) => ({ _id })) } });
    assert.equal(w.status, 201);
    const r = await t.request('GET', '/order/_all_docs');
    assert.deepEqual(ids(r.json), expected);
    assert.equal(r.json.total_rows, expected.length);
    const desc = await t.request('GET', '/order/_all_docs?descending=true');
    assert.deepEqual(ids(desc.json), [...expected].reverse());
    const astral = await t.request('GET', `/order/_all_docs?startkey=${q('\uff46')}`);
    assert.deepEqual(ids(astral.json), ['\uff46', '\u{10400}', '\u{1F600}']);
    const bmp = await t.request('GET', `/order/_all_docs?endkey=${q('\ue000')}&startkey=${q('a')}`);
    assert.deepEqual(ids(bmp.json), ['a', 'e\u0301', '\u00e9', '\ue000']);
    const offset = await t.request('GET', `/order/_all_docs?startkey=${q('\u{10400}')}`);
    assert.equal(offset.json.offset, 9);
  });
});

/**
 * View errors over HTTP (spec a.1 parse errors, a.3 every validation reason and the order of
 * checks, b.4 missing things, d.2 `_stats` on non-numbers, f.1/f.2 error body shape): status,
 * `error` and exact `reason`, body `{error, reason}` only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { assertError, putDdoc, raw, seed, viewClient, type ViewClient } from './support/views-http.js';

const DB = 'errs';
const DDOC = {
  views: {
    map: { map: 'function (doc) { if (doc.k !== undefined) emit(doc.k, doc.n); }' },
    red: { map: 'function (doc) { if (doc.k !== undefined) emit(doc.k, doc.n); }', reduce: '_count' },
  },
};

const QPE = 'query_parse_error';
const REDUCE_ON_MAP = 'Reduce is invalid for map-only views.';
const GROUP_ON_MAP = 'Invalid use of grouping on a map view.';
const MULTI_KEY = 'Multi-key fetches for reduce views must use `group=true`';
const KEYS_AND_RANGE = '`keys` is incompatible with `key`, `start_key` and `end_key`';
const INCLUDE_DOCS_REDUCE = '`include_docs` is invalid for reduce';
const CONFLICTS_REDUCE = '`conflicts` is invalid for reduce views.';
const GROUP_FALSE_LEVEL = "Can't specify group=false and group_level>0 at the same time";
const REVERSED_FWD = 'No rows can match your key range, reverse your start_key and end_key or set descending=true';
const REVERSED_REV = 'No rows can match your key range, reverse your start_key and end_key or set descending=false';

describe('views over HTTP: errors', () => {
  let t: TestServer;
  let v: ViewClient;
  before(async () => {
    t = await startTestServer();
    await seed(
      t,
      DB,
      [
        { _id: 'a', k: 1, n: 1 },
        { _id: 'b', k: 2, n: 2 },
        { _id: 'c', k: 2, n: 'x' },
      ],
      { e: DDOC },
    );
    v = viewClient(t, DB, 'e');
  });
  after(() => t.close());

  it('reduce=true on a map-only view', async () => {
    assertError(await v.get('map', { reduce: true }), 400, QPE, REDUCE_ON_MAP);
    assertError(await v.post('map', { reduce: true }), 400, QPE, REDUCE_ON_MAP);
  });

  it('group / group_level>0 on a map view, or on a reduce view with reduce=false', async () => {
    assertError(await v.get('map', { group: true }), 400, QPE, GROUP_ON_MAP);
    assertError(await v.get('map', { group_level: 1 }), 400, QPE, GROUP_ON_MAP);
    assertError(await v.get('red', { reduce: false, group: true }), 400, QPE, GROUP_ON_MAP);
    assertError(await v.get('red', { group_level: 2, reduce: false }), 400, QPE, GROUP_ON_MAP);
    // group=false / group_level=0 on a map view are fine.
    assert.equal((await v.get('map', { group: false, group_level: 0 })).status, 200);
  });

  it('keys (2+ or none) on a reduce view without group=true; group_level is not enough', async () => {
    assertError(await v.post('red', { keys: [1, 2] }), 400, QPE, MULTI_KEY);
    assertError(await v.get('red', { keys: [1, 2] }), 400, QPE, MULTI_KEY);
    assertError(await v.post('red', { keys: [] }), 400, QPE, MULTI_KEY);
    assertError(await v.post('red', { keys: [1, 2], group_level: 1 }), 400, QPE, MULTI_KEY);
    assertError(await v.post('red', { keys: [1, 2] }, { group: true, group_level: 1 }), 400, QPE, MULTI_KEY);
    assertError(await v.post('red', { keys: [1, 2], group: false }), 400, QPE, MULTI_KEY);
    assert.equal((await v.post('red', { keys: [1, 2], reduce: false })).status, 200, 'reduce=false: a map fetch');
  });

  it('keys together with key, startkey/start_key or endkey/end_key', async () => {
    for (const other of [{ key: 1 }, { startkey: 1 }, { start_key: 1 }, { endkey: 2 }, { end_key: 2 }]) {
      assertError(await v.post('map', { keys: [1, 2], ...other }), 400, QPE, KEYS_AND_RANGE);
      assertError(await v.get('map', { keys: [1, 2], ...other }), 400, QPE, KEYS_AND_RANGE);
      assertError(await v.post('map', { keys: [1, 2] }, other), 400, QPE, KEYS_AND_RANGE);
    }
  });

  it('include_docs=true on a reduce view (unless reduce=false)', async () => {
    assertError(await v.get('red', { include_docs: true }), 400, QPE, INCLUDE_DOCS_REDUCE);
    assertError(await v.get('red', { include_docs: true, group: true }), 400, QPE, INCLUDE_DOCS_REDUCE);
    assert.equal((await v.get('red', { include_docs: true, reduce: false })).status, 200);
  });

  it('conflicts given (true or false) on a reduce view', async () => {
    assertError(await v.get('red', { conflicts: true }), 400, QPE, CONFLICTS_REDUCE);
    assertError(await v.get('red', { conflicts: false }), 400, QPE, CONFLICTS_REDUCE);
    assert.equal((await v.get('red', { conflicts: true, reduce: false })).status, 200);
  });

  it('group=false with group_level>0, in either order (3.x)', async () => {
    assertError(
      await v.get('red', [
        ['group', 'false'],
        ['group_level', '1'],
      ]),
      400,
      QPE,
      GROUP_FALSE_LEVEL,
    );
    assertError(
      await v.get('red', [
        ['group_level', '1'],
        ['group', 'false'],
      ]),
      400,
      QPE,
      GROUP_FALSE_LEVEL,
    );
  });

  it('reversed ranges: start after end going up, or before end going down', async () => {
    assertError(await v.get('map', { startkey: 2, endkey: 1 }), 400, QPE, REVERSED_FWD);
    assertError(await v.get('map', { start_key: 'b', end_key: 'a' }), 400, QPE, REVERSED_FWD);
    assertError(await v.get('map', { descending: true, startkey: 1, endkey: 2 }), 400, QPE, REVERSED_REV);
    assertError(await v.get('red', { startkey: 2, endkey: 1 }), 400, QPE, REVERSED_FWD);
    assertError(await v.post('map', { startkey: [2], endkey: [1, 'z'] }), 400, QPE, REVERSED_FWD);
  });

  it('reversed doc-id bounds on equal keys are not checked; on different keys they count', async () => {
    const same = await v.get('map', { startkey: 2, endkey: 2, startkey_docid: 'z', endkey_docid: 'a' });
    assert.equal(same.status, 200, same.text);
    assert.deepEqual(same.json.rows, []);
    const ordered = await v.get('map', { startkey: 1, endkey: 2, startkey_docid: 'z', endkey_docid: 'a' });
    assert.equal(ordered.status, 200, ordered.text);
    assertError(
      await v.get('map', { startkey: 2, endkey: 1, startkey_docid: 'a', endkey_docid: 'z' }),
      400,
      QPE,
      REVERSED_FWD,
    );
  });

  it('booleans: true/false only — anything else is Invalid boolean parameter: "<raw>" (empty printed as [])', async () => {
    for (const name of [
      'descending',
      'inclusive_end',
      'include_docs',
      'reduce',
      'group',
      'update_seq',
      'conflicts',
      'sorted',
    ]) {
      for (const value of ['yes', '1', 't']) {
        assertError(await v.get('map', { [name]: value }), 400, QPE, `Invalid boolean parameter: "${value}"`);
      }
    }
    assertError(await v.get('map', { descending: '' }), 400, QPE, 'Invalid boolean parameter: []');
  });

  it('integers: Invalid value for integer / positive integer (0 allowed; empty printed as [])', async () => {
    for (const name of ['limit', 'skip', 'group_level']) {
      const view = name === 'group_level' ? 'red' : 'map';
      assertError(await v.get(view, { [name]: 'abc' }), 400, QPE, 'Invalid value for integer: "abc"');
      assertError(await v.get(view, { [name]: '1.5' }), 400, QPE, 'Invalid value for integer: "1.5"');
      assertError(await v.get(view, { [name]: '-1' }), 400, QPE, 'Invalid value for positive integer: "-1"');
      assertError(await v.get(view, { [name]: '' }), 400, QPE, 'Invalid value for integer: []');
      assert.equal((await v.get(view, { [name]: 0 })).status, 200);
    }
  });

  it('limit above 2^59-1: Limit is too large', async () => {
    assertError(
      await v.get('map', { limit: '99999999999999999999' }),
      400,
      QPE,
      'Limit is too large, must not exceed 576460752303423487',
    );
    assert.equal((await v.get('map', { limit: '576460752303423487' })).status, 200);
  });

  it('JSON params that are not JSON: bad_request invalid UTF-8 JSON (unquoted string, empty)', async () => {
    for (const name of ['key', 'startkey', 'start_key', 'endkey', 'end_key', 'keys']) {
      assertError(await v.get('map', { [name]: raw('b') }), 400, 'bad_request', 'invalid UTF-8 JSON');
    }
    assertError(await v.get('map', { key: raw('') }), 400, 'bad_request', 'invalid UTF-8 JSON');
    assertError(await v.get('map', { startkey: raw('{"a":') }), 400, 'bad_request', 'invalid UTF-8 JSON');
  });

  it('stale, update and stable take only their own values', async () => {
    assertError(await v.get('map', { stale: 'yes' }), 400, QPE, 'Invalid value for `stale`.');
    assertError(await v.get('map', { stale: 'OK' }), 400, QPE, 'Invalid value for `stale`.');
    assertError(await v.get('map', { update: 'maybe' }), 400, QPE, 'Invalid value for `update`.');
    assertError(await v.get('map', { stable: 'yes' }), 400, QPE, 'Invalid value for `stable`.');
  });

  it('partition on a non-partitioned design doc', async () => {
    assertError(
      await v.get('map', { partition: 'p' }),
      400,
      QPE,
      '`partition` parameter is not supported in this design doc',
    );
  });

  it('POST body: not an object; keys not an array; queries at the plain view URL', async () => {
    for (const body of [[1, 2], 'text', 3, null]) {
      assertError(await v.post('map', JSON.stringify(body)), 400, 'bad_request', 'Request body must be a JSON object');
    }
    assertError(await v.post('map', { keys: 'a' }), 400, 'bad_request', '`keys` member must be an array.');
    assertError(await v.post('map', { keys: { a: 1 } }), 400, 'bad_request', '`keys` member must be an array.');
    assertError(
      await v.post('map', { queries: [{}] }),
      400,
      'bad_request',
      'The `queries` parameter is no longer supported at this endpoint',
    );
    assertError(await v.post('map', '{"keys": [1,'), 400, 'bad_request', 'invalid UTF-8 JSON');
  });

  it('POST without Content-Type: application/json → 415 bad_content_type', async () => {
    const body = JSON.stringify({ keys: [1] });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await v.post('map', body, {}, { headers: { 'content-type': type } });
      assertError(r, 415, 'bad_content_type', 'Content-Type must be application/json');
    }
    const none = await t.request('POST', v.path('map'), { body: Buffer.from(body), headers: { 'content-type': '' } });
    assertError(none, 415, 'bad_content_type', 'Content-Type must be application/json');
    const charset = await v.post('map', body, {}, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(charset.status, 200, 'parameters on the JSON type are fine');
  });

  it("order of checks: syntax errors first, then CouchDB's validation order", async () => {
    // A bad integer is raised while parsing, before any validation.
    assertError(await v.get('map', { reduce: true, limit: 'x' }), 400, QPE, 'Invalid value for integer: "x"');
    // Parse errors come in parameter order.
    assertError(
      await v.get('map', [
        ['limit', 'x'],
        ['descending', 'y'],
      ]),
      400,
      QPE,
      'Invalid value for integer: "x"',
    );
    assertError(
      await v.get('map', [
        ['descending', 'y'],
        ['limit', 'x'],
      ]),
      400,
      QPE,
      'Invalid boolean parameter: "y"',
    );
    // reduce on map before grouping on map.
    assertError(await v.get('map', { group: true, reduce: true }), 400, QPE, REDUCE_ON_MAP);
    // multi-key reduce before keys-vs-key and include_docs on reduce.
    assertError(await v.post('red', { keys: [1, 2], key: 1, include_docs: true }), 400, QPE, MULTI_KEY);
    // keys-vs-key before grouping on map.
    assertError(await v.post('map', { keys: [1, 2], key: 1, group: true }), 400, QPE, KEYS_AND_RANGE);
    // grouping on map before include_docs/conflicts on reduce; include_docs before conflicts.
    assertError(await v.get('red', { include_docs: true, conflicts: true }), 400, QPE, INCLUDE_DOCS_REDUCE);
    // The range check runs last.
    assertError(await v.get('red', { startkey: 2, endkey: 1, include_docs: true }), 400, QPE, INCLUDE_DOCS_REDUCE);
  });

  it('404s: missing db, missing ddoc, deleted ddoc, missing view, ddoc without views', async () => {
    assertError(await t.request('GET', '/nosuchdb/_design/e/_view/map'), 404, 'not_found', 'Database does not exist.');
    assertError(await t.request('GET', `/${DB}/_design/nope/_view/map`), 404, 'not_found', 'missing');
    assertError(await v.get('nope'), 404, 'not_found', 'missing_named_view');
    await putDdoc(t, DB, 'noviews', { language: 'javascript' });
    assertError(await t.request('GET', `/${DB}/_design/noviews/_view/map`), 404, 'not_found', 'missing_named_view');
    const rev = await putDdoc(t, DB, 'gone', DDOC);
    assert.equal((await t.request('GET', `/${DB}/_design/gone/_view/map`)).status, 200);
    assert.equal((await t.request('DELETE', `/${DB}/_design/gone?rev=${rev}`)).status, 200);
    assertError(await t.request('GET', `/${DB}/_design/gone/_view/map`), 404, 'not_found', 'deleted');
    assertError(
      await t.request('POST', `/${DB}/_design/gone/_view/map`, { body: { keys: [1] } }),
      404,
      'not_found',
      'deleted',
    );
  });

  it('other methods: 405 method_not_allowed with Allow: GET,POST,HEAD', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await t.request(method, v.path('map'), method === 'PUT' ? { body: {} } : {});
      assertError(r, 405, 'method_not_allowed', 'Only GET,POST,HEAD allowed');
      assert.equal(r.headers.get('allow'), 'GET,POST,HEAD');
    }
  });

  it('_stats on non-numbers: 500 invalid_value for every view of that design doc, until the data changes', async () => {
    await seed(t, 'badstats', [
      { _id: 'n1', v: 1 },
      { _id: 's1', v: 'str' },
    ]);
    await putDdoc(t, 'badstats', 's', {
      views: {
        stats: { map: 'function (doc) { emit(doc._id, doc.v); }', reduce: '_stats' },
        plain: { map: 'function (doc) { emit(doc._id, null); }' },
      },
    });
    const reason = `The _stats function requires that map values be numbers or arrays of numbers, not '<<"str">>'`;
    const sv = viewClient(t, 'badstats', 's');
    assertError(await sv.get('stats'), 500, 'invalid_value', reason);
    assertError(await sv.get('plain'), 500, 'invalid_value', reason);
    const s1 = (await t.request('GET', '/badstats/s1')).json;
    assert.equal((await t.request('PUT', '/badstats/s1', { body: { ...s1, v: 2 } })).status, 201);
    assert.deepEqual((await sv.ok('stats')).rows, [
      { key: null, value: { sum: 3, count: 2, min: 1, max: 2, sumsqr: 5 } },
    ]);
    assert.equal((await sv.get('plain')).status, 200);
  });

  it('_sum on non-numbers is not an error: 200 with a builtin_reduce_error value (3.x, d.2)', async () => {
    await seed(t, 'badsum', [{ _id: 'x', v: 'str' }]);
    await putDdoc(t, 'badsum', 's', {
      views: { sum: { map: 'function (doc) { emit(doc._id, doc.v); }', reduce: '_sum' } },
    });
    const r = await viewClient(t, 'badsum', 's').get('sum');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.rows[0].value.error, 'builtin_reduce_error');
  });
});

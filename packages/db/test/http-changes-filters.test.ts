/**
 * Filtered `_changes` over HTTP (spec §13): design-document filter functions with CouchDB's
 * `req`, `_view`, `_selector`, `_design`, `_doc_ids`; their errors; `last_seq`/`pending` with a
 * limit, `style=all_docs`, `include_docs`, `conflicts`, `descending`, `seq_interval`, longpoll
 * and continuous feeds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));
const seqIds = (body: { results: { seq: number | null; id: string }[] }): [number | null, string][] =>
  body.results.map((row) => [row.seq, row.id]);

const DDOC = {
  marker: 7,
  filters: {
    by_type: 'function(doc, req) { return doc.type === req.query.type; }',
    all: 'function() { return 1; }',
    none: 'function() { return 0; }',
    this_is_ddoc: "function(doc) { return this._id === '_design/f' && this.marker === 7; }",
    get_req: `function(doc, req) {
      return doc._id === 'b' && req.method === 'GET' && req.body === 'undefined' && req.id === null &&
        req.query.key === 5 && req.query.startkey === 'x' && req.query.descending === false &&
        req.query.other === '5' && req.query.dup === '2' && req.path[0] === 'db' && req.path[1] === '_changes' &&
        req.requested_path[1] === '_changes' && req.userCtx.name === 'admin' && req.userCtx.db === 'db' &&
        req.info.db_name === 'db' && typeof req.uuid === 'string' && typeof req.headers === 'object' &&
        req.secObj.admins !== undefined && req.form !== undefined && req.cookie.c === 'v' &&
        typeof req.raw_path === 'string' && typeof req.peer === 'string';
    }`,
    post_req: "function(doc, req) { return req.method === 'POST' && req.body.wanted === doc._id; }",
    throws_b: "function(doc) { if (doc._id === 'b') throw new Error('boom'); return true; }",
    throws_a: "function(doc) { if (doc._id === 'a') throw {error: 'nope', reason: 'no a'}; return true; }",
    deleted: 'function(doc) { return doc._deleted === true; }',
    not_a_function: '42',
    conflicted: 'function(doc) { return !!doc._conflicts; }',
    uses_lib: "function(doc) { return require('lib/types').wanted(doc); }",
  },
  lib: { types: "exports.wanted = function(doc) { return doc.type === 'post'; };" },
  views: {
    users: { map: "function(doc) { if (doc.type === 'user') emit(doc._id, null); }" },
    tombstones: { map: 'function(doc) { if (doc._deleted) emit(1); }' },
    throws: { map: "function(doc) { if (doc._id === 'b') throw new Error('map boom'); emit(1); }" },
  },
};

describe('_changes filters', () => {
  let t: TestServer;
  const revs: Record<string, string> = {};

  // seq 1 a(user), 2 b(post), 3 c(user), 4 d(user), 5 _design/f, 6 a → post, 7 c deleted (tombstone keeps type)
  // Feed: b 2, d 4, _design/f 5, a 6, c 7.
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    const put = async (id: string, body: Record<string, unknown>) => {
      const r = await t.request('PUT', `/db/${id}`, { body: revs[id] ? { ...body, _rev: revs[id] } : body });
      assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.json));
      revs[id] = r.json.rev;
    };
    await put('a', { type: 'user', n: 1 });
    await put('b', { type: 'post', n: 2 });
    await put('c', { type: 'user', n: 3 });
    await put('d', { type: 'user', n: 4 });
    await put('_design/f', DDOC);
    await put('a', { type: 'post', n: 5 });
    await put('c', { type: 'user', _deleted: true });
  });
  after(() => t.close());

  const get = (query: string) => t.request('GET', `/db/_changes?${query}`);

  describe('design document filter functions', () => {
    it('"its old type no longer passes": the latest revision decides, tombstones included', async () => {
      const users = await get('filter=f/by_type&type=user');
      assert.equal(users.status, 200);
      assert.deepEqual(users.json, {
        results: [
          { seq: 4, id: 'd', changes: [{ rev: revs.d }] },
          { seq: 7, id: 'c', changes: [{ rev: revs.c }], deleted: true },
        ],
        last_seq: 7,
        pending: 0,
      });
      const posts = await get('filter=f/by_type&type=post');
      assert.deepEqual(seqIds(posts.json), [
        [2, 'b'],
        [6, 'a'],
      ]);
    });

    it('truthy results pass, falsy ones do not; this is the design document; design docs are passed too', async () => {
      assert.equal((await get('filter=f/all')).json.results.length, 5);
      assert.deepEqual(await get('filter=f/none').then((r) => r.json), { results: [], last_seq: 7, pending: 0 });
      assert.deepEqual(seqIds((await get('filter=f/this_is_ddoc')).json).length, 5);
      assert.deepEqual(seqIds((await get('filter=f/deleted')).json), [[7, 'c']]);
    });

    it('req of a GET: query strings (key/startkey/endkey/descending JSON-decoded, last duplicate), method, body, userCtx, info, path', async () => {
      const r = await t.request(
        'GET',
        `/db/_changes?filter=f/get_req&key=5&startkey=${q('x')}&descending=false&other=5&dup=1&dup=2`,
        { headers: { cookie: 'c=v' } },
      );
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(seqIds(r.json), [[2, 'b']]);
    });

    it('req of a POST: the parsed JSON body', async () => {
      const r = await t.request('POST', '/db/_changes?filter=f/post_req', { body: { wanted: 'd' } });
      assert.deepEqual(seqIds(r.json), [[4, 'd']]);
    });

    it('require() resolves from the design document', async () => {
      assert.deepEqual(seqIds((await get('filter=f/uses_lib')).json), [
        [2, 'b'],
        [6, 'a'],
      ]);
    });

    it('a non-JSON key for a JS filter is a 400 (CouchDB: 500)', async () => {
      const r = await get('filter=f/all&key=notjson');
      assert.equal(r.status, 400);
      assert.equal(r.json.error, 'bad_request');
    });

    it('a throwing filter is a 400 that names the document (CouchDB: 500)', async () => {
      const thrown = await get('filter=f/throws_b');
      assert.equal(thrown.status, 400);
      assert.equal(thrown.json.error, 'filter_error');
      assert.match(thrown.json.reason, /doc\._id b/);
      assert.match(thrown.json.reason, /boom/);
      const object = await get('filter=f/throws_a');
      assert.equal(object.status, 400);
      assert.match(object.json.reason, /no a/);
      const notFunction = await get('filter=f/not_a_function');
      assert.equal(notFunction.status, 400);
      assert.equal(notFunction.json.error, 'compilation_error');
    });

    it('form of the name, missing and deleted design documents, missing functions', async () => {
      const form = { error: 'bad_request', reason: '`filter` must be of the form `designname/filtername`' };
      for (const name of ['flt', 'flt/a/b', '/by_type', 'f/']) {
        const r = await get(`filter=${encodeURIComponent(name)}`);
        assert.deepEqual([r.status, r.json], [400, form], name);
      }
      const builtin = await get('filter=_bogus');
      assert.deepEqual(
        [builtin.status, builtin.json],
        [400, { error: 'bad_request', reason: 'unknown builtin filter name' }],
      );
      const missing = await get('filter=nope/f');
      assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'missing' }]);
      const fn = await get('filter=f/nope');
      assert.deepEqual([fn.status, fn.json], [404, { error: 'not_found', reason: 'missing json key: nope' }]);
      const other = await t.request('PUT', '/other');
      assert.equal(other.status, 201);
      const created = await t.request('PUT', '/other/_design/gone', {
        body: { filters: { all: 'function() { return true; }' } },
      });
      await t.request('DELETE', `/other/_design/gone?rev=${created.json.rev}`);
      const deleted = await t.request('GET', '/other/_changes?filter=gone/all');
      assert.deepEqual([deleted.status, deleted.json], [404, { error: 'not_found', reason: 'deleted' }]);
    });
  });

  describe('filter=_view', () => {
    it('passes the changes the map function emits for, tombstones included', async () => {
      assert.deepEqual(seqIds((await get('filter=_view&view=f/users')).json), [
        [4, 'd'],
        [7, 'c'],
      ]);
      assert.deepEqual(seqIds((await get('filter=_view&view=f/tombstones')).json), [[7, 'c']]);
    });

    it('errors: no view, one segment, missing ddoc or view, a throwing map function', async () => {
      const none = await get('filter=_view');
      assert.deepEqual(
        [none.status, none.json],
        [400, { error: 'bad_request', reason: '`view` filter parameter is not provided.' }],
      );
      assert.equal((await get('filter=_view&view=')).status, 400);
      const oneSegment = await get('filter=_view&view=vf');
      assert.equal(oneSegment.status, 400);
      const missing = await get('filter=_view&view=nope/x');
      assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'missing' }]);
      const noView = await get('filter=_view&view=f/x');
      assert.deepEqual([noView.status, noView.json], [404, { error: 'not_found', reason: 'missing json key: x' }]);
      const throws = await get('filter=_view&view=f/throws');
      assert.equal(throws.status, 400);
      assert.match(throws.json.reason, /map boom/);
    });
  });

  describe('filter=_selector', () => {
    const post = (body: unknown, query = '') => t.request('POST', `/db/_changes?filter=_selector${query}`, { body });

    it('matches with Mango rules, including deleted and design documents', async () => {
      assert.deepEqual(seqIds((await post({ selector: { type: 'user' } })).json), [
        [4, 'd'],
        [7, 'c'],
      ]);
      assert.deepEqual(seqIds((await post({ selector: { _deleted: true } })).json), [[7, 'c']]);
      assert.deepEqual(seqIds((await post({ selector: { _id: { $beginsWith: '_design/' } } })).json), [
        [5, '_design/f'],
      ]);
      assert.deepEqual(seqIds((await post({ selector: { n: { $gt: 2, $lt: 5 } } })).json), [[4, 'd']]);
      // Unlike _find, {"$or":[]} matches everything.
      assert.equal((await post({ selector: { $or: [] } })).json.results.length, 5);
      assert.equal((await post({ selector: {} })).json.results.length, 5);
    });

    it('fields projects the include_docs documents', async () => {
      const r = await post({ selector: { type: 'post' }, fields: ['n', 'missing'] }, '&include_docs=true');
      assert.deepEqual(
        r.json.results.map((row: { doc: unknown }) => row.doc),
        [{ n: 2 }, { n: 5 }],
      );
    });

    it('judges and sends each document as a read shows it: _rev, whole include_docs documents', async () => {
      const doc = await t.request('GET', '/db/d');
      const byRev = await post({ selector: { _rev: doc.json._rev } }, '&include_docs=true');
      assert.deepEqual(
        byRev.json.results.map((row: { id: string; doc: unknown }) => [row.id, row.doc]),
        [['d', doc.json]],
      );
      const all = await post({ selector: { type: 'post' } }, '&include_docs=true');
      for (const row of all.json.results as { id: string; doc: unknown }[]) {
        assert.deepEqual(row.doc, (await t.request('GET', `/db/${row.id}`)).json);
      }
    });

    it('errors: GET, missing or bad selector, bad fields, content type', async () => {
      const viaGet = await get('filter=_selector');
      assert.deepEqual(
        [viaGet.status, viaGet.json],
        [400, { error: 'bad_request', reason: 'Selector must be specified in POST payload' }],
      );
      const expected = { error: 'bad_request', reason: 'Selector error: expected a JSON object' };
      for (const body of [{}, { selector: 5 }, { selector: [] }]) {
        const r = await post(body);
        assert.deepEqual([r.status, r.json], [400, expected], JSON.stringify(body));
      }
      const bad = await post({ selector: { type: { $bad: 1 } } });
      assert.deepEqual([bad.status, bad.json], [400, { error: 'bad_request', reason: 'Invalid operator: $bad' }]);
      const badArg = await post({ selector: { type: { $in: 5 } } });
      assert.deepEqual(
        [badArg.status, badArg.json],
        [400, { error: 'bad_request', reason: 'Bad argument for operator $in: 5' }],
      );
      const fields = await post({ selector: {}, fields: 'n' });
      assert.deepEqual(
        [fields.status, fields.json],
        [400, { error: 'bad_request', reason: 'Selector error: fields must be JSON array' }],
      );
      const field = await post({ selector: {}, fields: [1] });
      assert.deepEqual(
        [field.status, field.json],
        [400, { error: 'bad_request', reason: 'Invalid JSON for field spec: 1' }],
      );
      const typed = await t.request('POST', '/db/_changes?filter=_selector', {
        body: '{"selector":{}}',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(typed.status, 415);
    });
  });

  describe('_design and _doc_ids', () => {
    it('_design: the design documents; _doc_ids: the listed ones, duplicates twice, unknown ids ignored', async () => {
      assert.deepEqual(seqIds((await get('filter=_design')).json), [[5, '_design/f']]);
      const ids = await get(`filter=_doc_ids&doc_ids=${q(['d', 'zzz', 'b', 'd'])}`);
      assert.deepEqual(seqIds(ids.json), [
        [2, 'b'],
        [4, 'd'],
        [4, 'd'],
      ]);
      assert.deepEqual((await get(`filter=_doc_ids&doc_ids=${q([])}`)).json.results, []);
    });

    it('lookups answer the database sequence and count the changes not visited as pending', async () => {
      const design = await get('filter=_design');
      assert.deepEqual([design.json.last_seq, design.json.pending], [7, 4]);
      // Five documents changed (a 6, b 2, c 7, d 4, _design/f 5); _doc_ids visits b and d.
      const ids = await get(`filter=_doc_ids&doc_ids=${q(['b', 'd'])}`);
      assert.deepEqual([ids.json.last_seq, ids.json.pending], [7, 3]);
      // After since=3 four changed (a, c, d, _design/f); of the listed, only d is visited.
      const since = await get(`filter=_doc_ids&since=3&doc_ids=${q(['b', 'd'])}`);
      assert.deepEqual(seqIds(since.json), [[4, 'd']]);
      assert.deepEqual([since.json.last_seq, since.json.pending], [7, 3]);
    });
  });

  describe('last_seq, pending and limit with a filter', () => {
    it('no limit: last_seq is the update seq, pending 0, also when nothing passes', async () => {
      const r = await get('filter=f/by_type&type=nothing');
      assert.deepEqual(r.json, { results: [], last_seq: 7, pending: 0 });
    });

    it('limit reached and the next change does not pass: last_seq is that change, pending counts after the last row', async () => {
      const r = await get('filter=f/by_type&type=user&limit=1');
      assert.deepEqual(seqIds(r.json), [[4, 'd']]);
      assert.deepEqual([r.json.last_seq, r.json.pending], [5, 3]);
      const posts = await get('filter=f/by_type&type=post&limit=1');
      assert.deepEqual(seqIds(posts.json), [[2, 'b']]);
      assert.deepEqual([posts.json.last_seq, posts.json.pending], [4, 4]);
    });

    it('limit reached and the next change passes: last_seq is the last row', async () => {
      const r = await t.request('POST', '/db/_changes?filter=_selector&limit=2', { body: { selector: {} } });
      assert.deepEqual(seqIds(r.json), [
        [2, 'b'],
        [4, 'd'],
      ]);
      assert.deepEqual([r.json.last_seq, r.json.pending], [4, 3]);
    });

    it('limit=0: since when the first change passes, else that change and the changes after it', async () => {
      const passes = await get('filter=f/by_type&type=post&limit=0');
      assert.deepEqual(passes.json, { results: [], last_seq: 0, pending: 5 });
      const fails = await get('filter=f/by_type&type=user&limit=0');
      assert.deepEqual(fails.json, { results: [], last_seq: 2, pending: 4 });
    });

    it('since, descending, include_docs and seq_interval', async () => {
      assert.deepEqual(seqIds((await get('filter=f/by_type&type=post&since=2')).json), [[6, 'a']]);
      assert.deepEqual(seqIds((await get('filter=f/by_type&type=post&descending=true')).json), [
        [6, 'a'],
        [2, 'b'],
      ]);
      const docs = await get('filter=f/by_type&type=post&include_docs=true');
      assert.deepEqual(docs.json.results[1].doc, { _id: 'a', _rev: revs.a, type: 'post', n: 5 });
      const interval = await get('filter=f/all&seq_interval=2&limit=4');
      assert.deepEqual(
        interval.json.results.map((row: { seq: number | null }) => row.seq),
        [2, null, 5, null],
      );
      const continuous = await get('feed=continuous&filter=f/all&seq_interval=2&limit=4&timeout=300');
      assert.deepEqual(
        continuous.text
          .trim()
          .split('\n')
          .map((line) => {
            const row = JSON.parse(line);
            return 'seq' in row ? row.seq : row.last_seq;
          }),
        [2, null, 5, null, 6],
      );
    });
  });

  describe('style=all_docs and conflicts', () => {
    before(async () => {
      await t.request('PUT', '/cdb');
      await t.request('PUT', '/cdb/_design/f', { body: DDOC });
      await t.request('POST', '/cdb/_bulk_docs', {
        body: {
          new_edits: false,
          docs: [
            { _id: 'cf', _rev: '1-aaa', type: 'user' },
            { _id: 'cf', _rev: '1-bbb', type: 'post' },
          ],
        },
      });
    });

    it('each leaf is filtered separately; the row lists the leaves that pass', async () => {
      const users = await t.request('GET', '/cdb/_changes?filter=f/by_type&type=user&style=all_docs');
      assert.deepEqual(users.json.results, [{ seq: 2, id: 'cf', changes: [{ rev: '1-aaa' }] }]);
      const posts = await t.request('GET', '/cdb/_changes?filter=f/by_type&type=post&style=all_docs');
      assert.deepEqual(posts.json.results, [{ seq: 2, id: 'cf', changes: [{ rev: '1-bbb' }] }]);
      const main = await t.request('GET', '/cdb/_changes?filter=f/by_type&type=user');
      assert.deepEqual(main.json.results, [], 'the winner (1-bbb) is a post');
      const selector = await t.request('POST', '/cdb/_changes?filter=_selector&style=all_docs', {
        body: { selector: { type: 'user' } },
      });
      assert.deepEqual(selector.json.results, [{ seq: 2, id: 'cf', changes: [{ rev: '1-aaa' }] }]);
    });

    it('_conflicts is shown to the filter only with conflicts=true', async () => {
      assert.deepEqual((await t.request('GET', '/cdb/_changes?filter=f/conflicted')).json.results, []);
      const withConflicts = await t.request('GET', '/cdb/_changes?filter=f/conflicted&conflicts=true');
      assert.deepEqual(seqIds(withConflicts.json), [[2, 'cf']]);
      const selector = await t.request('POST', '/cdb/_changes?filter=_selector&conflicts=true', {
        body: { selector: { _conflicts: { $exists: true } } },
      });
      assert.deepEqual(seqIds(selector.json), [[2, 'cf']]);
    });
  });

  describe('a filter failing after rows were sent', () => {
    it('ends the feed cleanly at its last row; the next request from there gets the error', async () => {
      await t.request('PUT', '/mid');
      await t.request('PUT', '/mid/_design/m', {
        body: { filters: { f: "function(doc) { if (doc._id === 'd080') throw new Error('late'); return true; }" } },
      });
      const docs = Array.from({ length: 100 }, (_, i) => ({ _id: `d${String(i).padStart(3, '0')}` }));
      await t.request('POST', '/mid/_bulk_docs', { body: { docs } });
      const r = await t.request('GET', '/mid/_changes?filter=m/f');
      assert.equal(r.status, 200);
      const ids: string[] = r.json.results.map((row: { id: string }) => row.id);
      assert.ok(ids.length > 1 && !ids.includes('d080'), `rows up to the failure: ${ids.length}`);
      assert.deepEqual(
        ids.slice(1),
        docs.slice(0, ids.length - 1).map((doc) => doc._id),
      );
      const lastRow = r.json.results.at(-1);
      assert.equal(r.json.last_seq, lastRow.seq);
      const next = await t.request('GET', `/mid/_changes?filter=m/f&since=${r.json.last_seq}`);
      assert.equal(next.status, 400);
      assert.match(next.json.reason, /late/);
    });
  });

  describe('feeds', () => {
    it('longpoll waits for a change that passes the filter', async () => {
      await t.request('PUT', '/lp');
      await t.request('PUT', '/lp/_design/f', { body: DDOC });
      const waiting = t.request('GET', '/lp/_changes?feed=longpoll&since=now&filter=f/by_type&type=user&timeout=10000');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await t.request('PUT', '/lp/p1', { body: { type: 'post' } });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await t.request('PUT', '/lp/u1', { body: { type: 'user' } });
      const r = await waiting;
      assert.equal(r.status, 200);
      assert.deepEqual(seqIds(r.json), [[3, 'u1']]);
      assert.equal(r.json.last_seq, 3);
    });

    it('longpoll with nothing passing answers at the timeout', async () => {
      const r = await get('feed=longpoll&since=now&filter=f/none&timeout=200');
      assert.deepEqual(r.json, { results: [], last_seq: 7, pending: 0 });
    });

    it('continuous sends the passing changes, one per line, then last_seq', async () => {
      const r = await get('feed=continuous&filter=f/by_type&type=post&timeout=300');
      const lines = r.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.map((line) => line.id ?? line.last_seq),
        ['b', 'a', 7],
      );
    });

    it('a selector filter on a continuous feed', async () => {
      const r = await t.request('POST', '/db/_changes?feed=continuous&filter=_selector&timeout=300', {
        body: { selector: { type: 'user' } },
      });
      const ids = r.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id ?? 'end');
      assert.deepEqual(ids, ['d', 'c', 'end']);
    });
  });
});

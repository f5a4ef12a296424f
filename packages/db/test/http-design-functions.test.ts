/**
 * Design-document functions over HTTP, as CouchDB 3.5 runs them: `_show` (with and without a
 * document, content negotiation, ETag, errors), `_list` (streamed, another design document's
 * view), `_update` (create, modify, refused by validate functions and `_security` as a PUT is),
 * `_rewrite` (rules and a function), and the request object they receive.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { AUTH, startTestServer, type TestServer } from './support/server.js';

const APP = {
  shows: {
    hello: `function(doc, req) {
      return { body: 'Hello ' + (doc ? doc.name : 'nobody') + ' from ' + this._id, headers: { 'X-Show': 'yes' } };
    }`,
    json: 'function(doc, req) { return { json: { id: doc && doc._id, rev: doc && doc._rev, q: req.query.q } }; }',
    code: "function(doc) { return { code: 202, body: 'accepted', headers: { 'Content-Type': 'text/plain' } }; }",
    string: "function(doc) { return 'just a string'; }",
    base64: "function() { return { base64: 'aGVsbG8=' }; }",
    req: `function(doc, req) {
      return { json: {
        keys: Object.keys(req), id: req.id, method: req.method, path: req.path, raw_path: req.raw_path,
        requested_path: req.requested_path, query: req.query, body: req.body, form: req.form,
        cookie: req.cookie, userCtx: req.userCtx, secObj: req.secObj, peer: typeof req.peer,
        uuid: typeof req.uuid, info: req.info.db_name, accept: req.headers.accept || req.headers.Accept
      } };
    }`,
    negotiate: `function(doc, req) {
      registerType('vcard', 'text/vcard');
      provides('html', function() { return '<p>' + doc.name + '</p>'; });
      provides('json', function() { return toJSON({ name: doc.name }); });
      provides('vcard', function() { return 'BEGIN:VCARD\\nFN:' + doc.name; });
    }`,
    throws: "function(doc) { throw new Error('show boom'); }",
    throws_error: "function(doc) { throw({ error: 'teapot', reason: 'short and stout' }); }",
    throws_forbidden: "function(doc) { throw(['error', 'forbidden', 'not you']); }",
    needs_doc: 'function(doc) { return doc.name; }',
    undefined_resp: 'function(doc) { return 42; }',
    chunks: "function(doc) { start({ headers: { 'X-Start': '1' } }); send('a'); send('b'); return 'c'; }",
    lib: "function(doc) { return require('lib/greet').greet(doc.name); }",
    bad_member: "function(doc) { return { body: 'x', nonsense: 1 }; }",
    loops: 'function(doc) { while (true) {} }',
  },
  lists: {
    basic: `function(head, req) {
      start({ headers: { 'Content-Type': 'text/plain' } });
      send('total=' + head.total_rows + ';');
      var row;
      while ((row = getRow())) send(row.key + '=' + row.value + ';');
      return 'end';
    }`,
    negotiate: `function(head, req) {
      provides('csv', function() {
        var row, out = '';
        while ((row = getRow())) send(row.key + ',' + row.value + '\\n');
      });
      provides('json', function() {
        var row, keys = [];
        while ((row = getRow())) keys.push(row.key);
        return toJSON(keys);
      });
    }`,
    first_two: `function(head, req) {
      send('[');
      var a = getRow(), b = getRow();
      send(a.key + ',' + b.key);
      return ']';
    }`,
    slow: `function(head, req) {
      start({ code: 200, headers: { 'Content-Type': 'text/plain' } });
      var row, n = 0;
      send('first;');
      while ((row = getRow())) { n++; send(row.key + ';'); }
      return 'rows=' + n;
    }`,
    throws: "function(head, req) { throw new Error('list boom'); }",
    no_rows: "function(head) { return 'head ' + JSON.stringify(head); }",
    status: "function(head) { start({ code: 203 }); return 'x'; }",
  },
  updates: {
    bump: `function(doc, req) {
      if (!doc) {
        if (req.id) return [{ _id: req.id, count: 1 }, 'created ' + req.id];
        return [null, { code: 400, body: 'no id' }];
      }
      doc.count = (doc.count || 0) + 1;
      return [doc, { json: { count: doc.count } }];
    }`,
    create: "function(doc, req) { return [{ _id: req.uuid, made: JSON.parse(req.body).made }, 'made']; }",
    nothing: "function(doc, req) { return [null, 'nothing saved']; }",
    form: "function(doc, req) { doc.title = req.form.title; return [doc, 'titled ' + req.form.title]; }",
    own_code: "function(doc, req) { return [{ _id: 'own' }, { code: 200, body: 'mine' }]; }",
    throws: "function(doc, req) { throw new Error('update boom'); }",
    invalid: "function(doc, req) { return [{ _id: req.id, bad: true }, 'invalid']; }",
  },
  views: {
    by_n: { map: 'function(doc) { if (doc.n !== undefined) emit(doc.n, doc.name); }' },
  },
  validate_doc_update: "function(newDoc) { if (newDoc.bad) throw({ forbidden: 'bad docs are refused' }); }",
  lib: { greet: "exports.greet = function(name) { return 'Greetings, ' + name; };" },
  rewrites: [
    { from: '/hello/:id', to: '_show/hello/:id' },
    { from: '/doc/*', to: '../../*' },
    { from: '/list', to: '_list/basic/by_n', query: { startkey: ':start', limit: '2' }, formats: { start: 'int' } },
    { from: '/bump/:id', to: '_update/bump/:id', method: 'PUT' },
    { from: '/bump/:id', to: '_show/json/:id', method: 'GET' },
    { from: '/loop', to: '_rewrite/loop' },
  ],
};

const OTHER = {
  views: { names: { map: 'function(doc) { if (doc.name) emit(doc.name, 1); }' } },
};

const FUNCTION_REWRITE = {
  rewrites: `function(req) {
    var rest = req.path.slice(4);
    if (rest[0] === 'say') return { path: '_show/hello/' + rest[1], query: { via: 'function' } };
    if (rest[0] === 'teapot') return { code: 418, headers: { 'Content-Type': 'text/plain' }, body: 'short' };
    if (rest[0] === 'string') return '../../' + rest[1];
    if (rest[0] === 'secret') throw({ forbidden: 'no secrets' });
    return false;
  }`,
  shows: APP.shows,
};

describe('design document functions', () => {
  let t: TestServer;
  const rows = 300;

  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('PUT', '/db')).status, 201);
    assert.equal((await t.request('PUT', '/db/_design/app', { body: APP })).status, 201);
    assert.equal((await t.request('PUT', '/db/_design/other', { body: OTHER })).status, 201);
    assert.equal((await t.request('PUT', '/db/_design/fn', { body: FUNCTION_REWRITE })).status, 201);
    assert.equal((await t.request('PUT', '/db/alice', { body: { name: 'Alice', n: 1 } })).status, 201);
    assert.equal((await t.request('PUT', '/db/bob', { body: { name: 'Bob', n: 2 } })).status, 201);
    const docs = Array.from({ length: rows }, (_, i) => ({ _id: `row${String(i).padStart(4, '0')}`, n: 100 + i }));
    assert.equal((await t.request('POST', '/db/_bulk_docs', { body: { docs } })).status, 201);
  });
  after(() => t.close());

  describe('_show', () => {
    it('renders a document, `this` being the design document; a body is text/html by default', async () => {
      const r = await t.request('GET', '/db/_design/app/_show/hello/alice');
      assert.equal(r.status, 200);
      assert.equal(r.text, 'Hello Alice from _design/app');
      assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(r.headers.get('x-show'), 'yes');
      assert.equal(r.headers.get('vary'), 'Accept');
      assert.match(r.headers.get('etag') ?? '', /^".+"$/);
    });

    it('without a document id the document is null', async () => {
      const r = await t.request('GET', '/db/_design/app/_show/hello');
      assert.equal(r.status, 200);
      assert.equal(r.text, 'Hello nobody from _design/app');
    });

    it('a document id with slashes, and a design document, are documents to show', async () => {
      assert.equal((await t.request('PUT', '/db/a%2Fb', { body: { name: 'Slash' } })).status, 201);
      assert.equal((await t.request('GET', '/db/_design/app/_show/hello/a/b')).text, 'Hello Slash from _design/app');
      assert.equal((await t.request('GET', '/db/_design/app/_show/json/a%2Fb')).json.id, 'a/b');
      assert.equal((await t.request('GET', '/db/_design/app/_show/json/_design/other')).json.id, '_design/other');
    });

    it('a missing document is null too, and a function failing on it is 404 not_found', async () => {
      const missing = await t.request('GET', '/db/_design/app/_show/hello/nobody-here');
      assert.equal(missing.status, 200);
      assert.equal(missing.text, 'Hello nobody from _design/app');
      const fails = await t.request('GET', '/db/_design/app/_show/needs_doc/nobody-here');
      assert.equal(fails.status, 404);
      assert.deepEqual(fails.json, { error: 'not_found', reason: 'document not found' });
    });

    it('json, code, string, base64 and list-style chunks make the response', async () => {
      const json = await t.request('GET', '/db/_design/app/_show/json/alice?q=1');
      assert.equal(json.headers.get('content-type'), 'application/json');
      assert.equal(json.json.id, 'alice');
      assert.match(json.json.rev, /^1-/);
      assert.equal(json.json.q, '1');
      const code = await t.request('GET', '/db/_design/app/_show/code');
      assert.equal(code.status, 202);
      assert.equal(code.headers.get('content-type'), 'text/plain');
      assert.equal(code.text, 'accepted');
      assert.equal((await t.request('GET', '/db/_design/app/_show/string')).text, 'just a string');
      const b64 = await t.request('GET', '/db/_design/app/_show/base64');
      assert.equal(b64.text, 'hello');
      assert.equal(b64.headers.get('content-type'), 'application/binary');
      const chunks = await t.request('GET', '/db/_design/app/_show/chunks');
      assert.equal(chunks.text, 'abc');
      assert.equal(chunks.headers.get('x-start'), '1');
      assert.equal((await t.request('GET', '/db/_design/app/_show/lib/bob')).text, 'Greetings, Bob');
    });

    it("the request object has CouchDB's members", async () => {
      const r = await t.request('POST', '/db/_design/app/_show/req/alice?key=%22k%22&x=1', {
        body: 'title=Hi+there&n=2',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'c=v', accept: 'text/html' },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.keys, [
        'info',
        'uuid',
        'id',
        'method',
        'requested_path',
        'path',
        'raw_path',
        'query',
        'headers',
        'body',
        'peer',
        'form',
        'cookie',
        'userCtx',
        'secObj',
      ]);
      assert.equal(r.json.id, 'alice');
      assert.equal(r.json.method, 'POST');
      assert.deepEqual(r.json.path, ['db', '_design', 'app', '_show', 'req', 'alice']);
      assert.deepEqual(r.json.requested_path, r.json.path);
      assert.equal(r.json.raw_path, '/db/_design/app/_show/req/alice?key=%22k%22&x=1');
      assert.deepEqual(r.json.query, { key: 'k', x: '1' });
      assert.equal(r.json.body, 'title=Hi+there&n=2');
      assert.deepEqual(r.json.form, { title: 'Hi there', n: '2' });
      assert.deepEqual(r.json.cookie, { c: 'v' });
      assert.deepEqual(r.json.userCtx, { db: 'db', name: 'admin', roles: ['_admin'] });
      assert.equal(typeof r.json.secObj, 'object');
      assert.equal(r.json.peer, 'string');
      assert.equal(r.json.uuid, 'string');
      assert.equal(r.json.info, 'db');
      assert.equal(r.json.accept, 'text/html');
      const get = await t.request('GET', '/db/_design/app/_show/req');
      assert.equal(get.json.body, 'undefined');
      assert.equal(get.json.id, null);
      assert.deepEqual(get.json.form, {});
    });

    it('content negotiation by Accept and by format=', async () => {
      const html = await t.request('GET', '/db/_design/app/_show/negotiate/alice', {
        headers: { accept: 'text/html' },
      });
      assert.equal(html.text, '<p>Alice</p>');
      assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
      const json = await t.request('GET', '/db/_design/app/_show/negotiate/alice', {
        headers: { accept: 'application/json' },
      });
      assert.deepEqual(json.json, { name: 'Alice' });
      assert.equal(json.headers.get('content-type'), 'application/json');
      const weighted = await t.request('GET', '/db/_design/app/_show/negotiate/alice', {
        headers: { accept: 'text/html;q=0.5, application/json;q=0.9' },
      });
      assert.deepEqual(weighted.json, { name: 'Alice' });
      const registered = await t.request('GET', '/db/_design/app/_show/negotiate/alice', {
        headers: { accept: 'text/vcard' },
      });
      assert.equal(registered.text, 'BEGIN:VCARD\nFN:Alice');
      assert.equal(registered.headers.get('content-type'), 'text/vcard');
      const format = await t.request('GET', '/db/_design/app/_show/negotiate/alice?format=json', {
        headers: { accept: 'text/html' },
      });
      assert.deepEqual(format.json, { name: 'Alice' });
      // No Accept: the first provided type.
      const first = await t.request('GET', '/db/_design/app/_show/negotiate/alice', { headers: { accept: '' } });
      assert.equal(first.text, '<p>Alice</p>');
      const refused = await t.request('GET', '/db/_design/app/_show/negotiate/alice', {
        headers: { accept: 'image/png' },
      });
      assert.equal(refused.status, 406);
      assert.equal(refused.json.error, 'not_acceptable');
      assert.match(refused.json.reason, /^Content-Type image\/png not supported, try one of: /);
    });

    it('answers 304 to its own ETag, and a new ETag once the document changes', async () => {
      const first = await t.request('GET', '/db/_design/app/_show/hello/bob');
      const etag = first.headers.get('etag')!;
      const again = await t.request('GET', '/db/_design/app/_show/hello/bob', { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      const bob = await t.request('GET', '/db/bob');
      await t.request('PUT', '/db/bob', { body: { ...bob.json, name: 'Bobby' } });
      const changed = await t.request('GET', '/db/_design/app/_show/hello/bob', {
        headers: { 'if-none-match': etag },
      });
      assert.equal(changed.status, 200);
      assert.equal(changed.text, 'Hello Bobby from _design/app');
    });

    it('a new revision of the design document runs its new functions', async () => {
      const v1 = await t.request('PUT', '/db/_design/changing', {
        body: { shows: { v: "function() { return 'one'; }" } },
      });
      assert.equal((await t.request('GET', '/db/_design/changing/_show/v')).text, 'one');
      await t.request('PUT', '/db/_design/changing', {
        body: { _rev: v1.json.rev, shows: { v: "function() { return 'two'; }" } },
      });
      assert.equal((await t.request('GET', '/db/_design/changing/_show/v')).text, 'two');
    });

    it("errors in CouchDB's shapes", async () => {
      const missingFn = await t.request('GET', '/db/_design/app/_show/nope/alice');
      assert.equal(missingFn.status, 404);
      assert.deepEqual(missingFn.json, { error: 'not_found', reason: 'missing json key: nope' });
      const missingDdoc = await t.request('GET', '/db/_design/none/_show/hello');
      assert.equal(missingDdoc.status, 404);
      assert.deepEqual(missingDdoc.json, { error: 'not_found', reason: 'missing' });
      const throws = await t.request('GET', '/db/_design/app/_show/throws/alice');
      assert.equal(throws.status, 500);
      assert.equal(throws.json.error, 'render_error');
      assert.match(throws.json.reason, /^function raised error: Error: show boom/);
      const custom = await t.request('GET', '/db/_design/app/_show/throws_error/alice');
      assert.equal(custom.status, 500);
      assert.deepEqual(custom.json, { error: 'teapot', reason: 'short and stout' });
      const forbidden = await t.request('GET', '/db/_design/app/_show/throws_forbidden/alice');
      assert.equal(forbidden.status, 403);
      assert.deepEqual(forbidden.json, { error: 'forbidden', reason: 'not you' });
      const undef = await t.request('GET', '/db/_design/app/_show/undefined_resp/alice');
      assert.equal(undef.status, 500);
      assert.deepEqual(undef.json, { error: 'render_error', reason: 'undefined response from show function' });
      const bad = await t.request('GET', '/db/_design/app/_show/bad_member/alice');
      assert.equal(bad.status, 500);
      assert.equal(bad.json.error, 'external_response_error');
    });

    it('a function running past the time limit is stopped with os_process_timeout', async () => {
      const r = await t.request('GET', '/db/_design/app/_show/loops/alice');
      assert.equal(r.status, 500);
      assert.equal(r.json.error, 'os_process_timeout');
    });

    it('needs read access to the database', async () => {
      await t.request('PUT', '/db/_security', { body: { members: { names: ['someone'] } } });
      try {
        const r = await t.request('GET', '/db/_design/app/_show/hello/alice', { auth: false });
        assert.equal(r.status, 401);
      } finally {
        await t.request('PUT', '/db/_security', { body: {} });
      }
    });
  });

  describe('_list', () => {
    it('runs over a view of its own design document with the head and rows', async () => {
      const r = await t.request('GET', '/db/_design/app/_list/basic/by_n?limit=2');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/plain');
      assert.equal(r.text, `total=${rows + 2};1=Alice;2=Bobby;end`);
    });

    it("runs over another design document's view", async () => {
      const r = await t.request('GET', '/db/_design/app/_list/basic/other/names');
      assert.equal(r.status, 200);
      assert.equal(r.text, 'total=3;Alice=1;Bobby=1;Slash=1;end');
    });

    it('takes the view options, and POSTed keys', async () => {
      const r = await t.request('GET', '/db/_design/app/_list/basic/by_n?startkey=2&endkey=101');
      assert.equal(r.text, `total=${rows + 2};2=Bobby;100=null;101=null;end`);
      const post = await t.request('POST', '/db/_design/app/_list/basic/by_n', { body: { keys: [2, 1] } });
      assert.equal(post.text, `total=${rows + 2};2=Bobby;1=Alice;end`);
    });

    it('negotiates its content type', async () => {
      const csv = await t.request('GET', '/db/_design/app/_list/negotiate/by_n?limit=2', {
        headers: { accept: 'text/csv' },
      });
      assert.equal(csv.headers.get('content-type'), 'text/csv');
      assert.equal(csv.text, '1,Alice\n2,Bobby\n');
      const json = await t.request('GET', '/db/_design/app/_list/negotiate/by_n?limit=2&format=json');
      assert.equal(json.headers.get('content-type'), 'application/json');
      assert.deepEqual(json.json, [1, 2]);
    });

    it('runs over _all_docs', async () => {
      const r = await t.request(
        'GET',
        '/db/_design/app/_list/negotiate/_all_docs?startkey=%22alice%22&limit=2&format=json',
      );
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, ['alice', 'bob']);
      const head = await t.request('GET', '/db/_design/app/_list/no_rows/_all_docs?limit=0');
      assert.equal(head.text, `head {"total_rows":${rows + 7},"offset":0}`);
    });

    it('stops reading when the function stops asking; a list with no getRow still answers', async () => {
      assert.equal((await t.request('GET', '/db/_design/app/_list/first_two/by_n')).text, '[1,2]');
      const none = await t.request('GET', '/db/_design/app/_list/no_rows/by_n?limit=1');
      assert.equal(none.text, `head {"total_rows":${rows + 2},"offset":0}`);
      assert.equal(none.headers.get('content-type'), 'application/json');
      const status = await t.request('GET', '/db/_design/app/_list/status/by_n');
      assert.equal(status.status, 203);
    });

    it('streams: chunked, the first chunk arriving before the list has read its last row', async () => {
      const url = new URL(`${t.url}/db/_design/app/_list/slow/by_n`);
      const { headers, firstChunk, whole } = await new Promise<{
        headers: Record<string, unknown>;
        firstChunk: string;
        whole: string;
      }>((resolve, reject) => {
        const req = httpRequest(url, { headers: { authorization: AUTH } }, (res) => {
          let first: string | undefined;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            first ??= chunk;
            text += chunk;
          });
          res.on('end', () => resolve({ headers: res.headers, firstChunk: first ?? '', whole: text }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(headers['transfer-encoding'], 'chunked');
      assert.equal(headers['content-length'], undefined);
      assert.ok(whole.endsWith(`rows=${rows + 2}`), whole.slice(-40));
      // Each getRow writes what was sent before it: the first chunk holds no row after the first.
      assert.ok(firstChunk.startsWith('first;'), firstChunk);
      assert.ok(!firstChunk.includes(`rows=`), 'the first chunk is not the whole answer');
    });

    it('errors: a missing list, view or design document, a function that throws', async () => {
      const noList = await t.request('GET', '/db/_design/app/_list/nope/by_n');
      assert.equal(noList.status, 404);
      assert.deepEqual(noList.json, { error: 'not_found', reason: 'missing json key: nope' });
      const noView = await t.request('GET', '/db/_design/app/_list/basic/nope');
      assert.equal(noView.status, 404);
      const noDdoc = await t.request('GET', '/db/_design/app/_list/basic/none/names');
      assert.equal(noDdoc.status, 404);
      const throws = await t.request('GET', '/db/_design/app/_list/throws/by_n');
      assert.equal(throws.status, 500);
      assert.equal(throws.json.error, 'render_error');
      assert.match(throws.json.reason, /list boom/);
    });
  });

  describe('_update', () => {
    it('modifies a document: 201 with X-Couch-Update-NewRev and X-Couch-Id', async () => {
      const r = await t.request('PUT', '/db/_design/app/_update/bump/counter-a');
      assert.equal(r.status, 201);
      assert.equal(r.text, 'created counter-a');
      const rev1 = r.headers.get('x-couch-update-newrev')!;
      assert.match(rev1, /^1-/);
      assert.equal(r.headers.get('x-couch-id'), 'counter-a');
      const again = await t.request('POST', '/db/_design/app/_update/bump/counter-a');
      assert.equal(again.status, 201);
      assert.deepEqual(again.json, { count: 2 });
      assert.match(again.headers.get('x-couch-update-newrev')!, /^2-/);
      const doc = await t.request('GET', '/db/counter-a');
      assert.equal(doc.json.count, 2);
      assert.equal(doc.json._rev, again.headers.get('x-couch-update-newrev'));
    });

    it('creates a document without an id in the path', async () => {
      const r = await t.request('POST', '/db/_design/app/_update/create', { body: { made: 'yes' } });
      assert.equal(r.status, 201);
      assert.equal(r.text, 'made');
      const id = r.headers.get('x-couch-id')!;
      assert.equal((await t.request('GET', `/db/${id}`)).json.made, 'yes');
      const noId = await t.request('POST', '/db/_design/app/_update/bump');
      assert.equal(noId.status, 400);
      assert.equal(noId.text, 'no id');
    });

    it('saves nothing when the function returns no document; its own code wins', async () => {
      const r = await t.request('POST', '/db/_design/app/_update/nothing/alice');
      assert.equal(r.status, 200);
      assert.equal(r.text, 'nothing saved');
      assert.equal(r.headers.get('x-couch-update-newrev'), null);
      const own = await t.request('POST', '/db/_design/app/_update/own_code');
      assert.equal(own.status, 200);
      assert.equal(own.text, 'mine');
      assert.match(own.headers.get('x-couch-update-newrev')!, /^1-/);
    });

    it('reads an HTML form', async () => {
      const r = await t.request('PUT', '/db/_design/app/_update/form/alice', {
        body: 'title=Dr',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(r.status, 201);
      assert.equal(r.text, 'titled Dr');
      assert.equal((await t.request('GET', '/db/alice')).json.title, 'Dr');
    });

    it('is refused by a validate function as a PUT would be', async () => {
      const viaUpdate = await t.request('PUT', '/db/_design/app/_update/invalid/bad-one');
      const viaPut = await t.request('PUT', '/db/bad-one', { body: { bad: true } });
      assert.equal(viaUpdate.status, 403);
      assert.deepEqual(viaUpdate.json, viaPut.json);
      assert.deepEqual(viaUpdate.json, { error: 'forbidden', reason: 'bad docs are refused' });
      assert.equal((await t.request('GET', '/db/bad-one')).status, 404);
    });

    it('is refused by _security as a PUT would be', async () => {
      await t.request('PUT', '/db/_security', { body: { members: { names: ['someone'] } } });
      try {
        const viaUpdate = await t.request('PUT', '/db/_design/app/_update/bump/anon', { auth: false });
        const viaPut = await t.request('PUT', '/db/anon', { body: {}, auth: false });
        assert.equal(viaUpdate.status, 401);
        assert.equal(viaPut.status, 401);
        assert.deepEqual(viaUpdate.json, viaPut.json);
      } finally {
        await t.request('PUT', '/db/_security', { body: {} });
      }
      assert.equal((await t.request('GET', '/db/anon')).status, 404);
    });

    it("conflicts are the document layer's 409, GET is refused, a throw is render_error", async () => {
      // A design document's write needs an admin: the update function's writer is the caller.
      const get = await t.request('GET', '/db/_design/app/_update/bump/counter-a');
      assert.equal(get.status, 405);
      assert.deepEqual(get.json, { error: 'method_not_allowed', reason: 'Update functions do not allow GET' });
      const throws = await t.request('POST', '/db/_design/app/_update/throws/alice');
      assert.equal(throws.status, 500);
      assert.equal(throws.json.error, 'render_error');
      const missing = await t.request('POST', '/db/_design/app/_update/nope');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json, {
        error: 'not_found',
        reason: 'missing updates function nope on design doc _design/app',
      });
    });
  });

  describe('_rewrite', () => {
    it('array rules: `:var` into the path (and the query), `*` for the rest', async () => {
      const show = await t.request('GET', '/db/_design/app/_rewrite/hello/alice');
      assert.equal(show.status, 200);
      assert.equal(show.text, 'Hello Alice from _design/app');
      const doc = await t.request('GET', '/db/_design/app/_rewrite/doc/alice');
      assert.equal(doc.status, 200);
      assert.equal(doc.json._id, 'alice');
    });

    it("a rule's query, with variables from the request's query, JSON for keys", async () => {
      const r = await t.request('GET', '/db/_design/app/_rewrite/list?start=2');
      assert.equal(r.status, 200);
      assert.equal(r.text, `total=${rows + 2};2=Bobby;100=null;end`);
    });

    it('rules by method', async () => {
      const put = await t.request('PUT', '/db/_design/app/_rewrite/bump/counter-b');
      assert.equal(put.status, 201);
      assert.equal(put.text, 'created counter-b');
      const get = await t.request('GET', '/db/_design/app/_rewrite/bump/counter-b');
      assert.equal(get.status, 200);
      assert.equal(get.json.id, 'counter-b');
    });

    it('the request object says what was asked for (requested_path) and where it went (path)', async () => {
      await t.request('PUT', '/db/_design/req', {
        body: { shows: { req: APP.shows.req }, rewrites: [{ from: '/r/:id', to: '_show/req/:id' }] },
      });
      const r = await t.request('GET', '/db/_design/req/_rewrite/r/alice');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.requested_path, ['db', '_design', 'req', '_rewrite', 'r', 'alice']);
      assert.deepEqual(r.json.path, ['db', '_design', 'req', '_show', 'req', 'alice']);
      assert.deepEqual(r.json.query, { id: 'alice' });
    });

    it('no matching rule is 404; a rule reaching above the database is refused; loops stop', async () => {
      const none = await t.request('GET', '/db/_design/app/_rewrite/nothing/here');
      assert.equal(none.status, 404);
      assert.deepEqual(none.json, { error: 'not_found', reason: 'missing' });
      await t.request('PUT', '/db/_design/over', { body: { rewrites: [{ from: '/over', to: '../../../x' }] } });
      const over = await t.request('GET', '/db/_design/over/_rewrite/over');
      assert.equal(over.status, 500);
      assert.deepEqual(over.json, { error: 'insecure_rewrite_rule', reason: 'too many ../.. segments' });
      const loop = await t.request('GET', '/db/_design/app/_rewrite/loop');
      assert.equal(loop.status, 400);
      assert.deepEqual(loop.json, { error: 'bad_request', reason: 'Exceeded rewrite recursion limit' });
      const noRules = await t.request('GET', '/db/_design/other/_rewrite/x');
      assert.equal(noRules.status, 404);
      assert.deepEqual(noRules.json, { error: 'rewrite_error', reason: 'Invalid path.' });
    });

    it('a JavaScript rewrite function: a path with a query, a string, an answer, a refusal', async () => {
      const say = await t.request('GET', '/db/_design/fn/_rewrite/say/alice');
      assert.equal(say.status, 200);
      assert.equal(say.text, 'Hello Alice from _design/fn');
      const string = await t.request('GET', '/db/_design/fn/_rewrite/string/alice');
      assert.equal(string.json._id, 'alice');
      const teapot = await t.request('GET', '/db/_design/fn/_rewrite/teapot');
      assert.equal(teapot.status, 418);
      assert.equal(teapot.text, 'short');
      const secret = await t.request('GET', '/db/_design/fn/_rewrite/secret');
      assert.equal(secret.status, 403);
      assert.deepEqual(secret.json, { error: 'forbidden', reason: 'no secrets' });
      const none = await t.request('GET', '/db/_design/fn/_rewrite/nothing');
      assert.equal(none.status, 404);
      assert.deepEqual(none.json, { error: 'rewrite_error', reason: 'Invalid path.' });
    });

    it('the request it makes is authorized as any other', async () => {
      await t.request('PUT', '/db/_security', { body: { members: { names: ['someone'] } } });
      try {
        const r = await t.request('GET', '/db/_design/app/_rewrite/doc/alice', { auth: false });
        assert.equal(r.status, 401);
      } finally {
        await t.request('PUT', '/db/_security', { body: {} });
      }
    });
  });
});

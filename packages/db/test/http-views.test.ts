import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const DDOC = {
  views: {
    by_author_date: {
      map: "function(doc){ if (doc.type === 'post') emit([doc.author, doc.date], doc.title); }",
      reduce: '_count',
    },
    count_by_author: { map: 'function(doc){ if (doc.author) emit(doc.author, 1); }', reduce: '_sum' },
    by_title: { map: 'function(doc){ if (doc.title) emit(doc.title, null); }' },
    linked: { map: 'function(doc){ if (doc.parent) emit(doc._id, { _id: doc.parent }); }' },
    tags: { map: 'function(doc){ (doc.tags || []).forEach(function(t){ emit(t, doc._id); }); }', reduce: '_count' },
  },
};

const DOCS = [
  { _id: 'p1', type: 'post', author: 'bob', date: '2024-01-02', title: 'b', tags: ['x', 'y'] },
  { _id: 'p2', type: 'post', author: 'alice', date: '2024-01-01', title: 'A', tags: ['x'] },
  { _id: 'p3', type: 'post', author: 'alice', date: '2024-01-03', title: 'a' },
  { _id: 'c1', type: 'comment', author: 'carol', parent: 'p1', title: 'aa' },
  { _id: 'c2', type: 'comment', author: 'bob', parent: 'gone', title: 'B' },
];

describe('views over HTTP', () => {
  let t: TestServer;
  const view = (name: string, qs = '') => t.request('GET', `/db/_design/app/_view/${name}${qs}`);
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    await t.request('POST', '/db/_bulk_docs', { body: { docs: DOCS } });
    assert.equal((await t.request('PUT', '/db/_design/app', { body: DDOC })).status, 201);
  });
  after(() => t.close());

  it('map rows in CouchDB collation order, with total_rows and offset', async () => {
    const r = await view('by_title');
    assert.equal(r.status, 200);
    assert.equal(r.json.total_rows, 5);
    assert.equal(r.json.offset, 0);
    assert.deepEqual(
      r.json.rows.map((row: any) => row.key),
      ['a', 'A', 'aa', 'b', 'B'],
    );
    assert.deepEqual(r.json.rows[0], { id: 'p3', key: 'a', value: null });
  });

  it('reduce=false, ranges, descending, skip, limit, inclusive_end', async () => {
    const r = await view('by_author_date', '?reduce=false&startkey=["alice"]&endkey=["alice",{}]');
    assert.deepEqual(
      r.json.rows.map((row: any) => row.id),
      ['p2', 'p3'],
    );
    assert.equal(r.json.offset, 0);
    const d = await view('by_title', '?descending=true&limit=2&skip=1');
    assert.deepEqual(
      d.json.rows.map((row: any) => row.key),
      ['b', 'aa'],
    );
    assert.equal(d.json.offset, 1);
    const excl = await view('by_title', '?endkey="aa"&inclusive_end=false');
    assert.deepEqual(
      excl.json.rows.map((row: any) => row.key),
      ['a', 'A'],
    );
    const key = await view('by_title', '?key="A"');
    assert.deepEqual(
      key.json.rows.map((row: any) => row.id),
      ['p2'],
    );
  });

  it('keys via POST keep the order of the keys', async () => {
    const r = await t.request('POST', '/db/_design/app/_view/by_title', { body: { keys: ['b', 'a', 'zzz'] } });
    assert.deepEqual(
      r.json.rows.map((row: any) => row.key),
      ['b', 'a'],
    );
  });

  it('reduce: no grouping, group=true, group_level', async () => {
    assert.deepEqual((await view('by_author_date')).json.rows, [{ key: null, value: 3 }]);
    const byAuthor = await view('count_by_author', '?group=true');
    assert.deepEqual(byAuthor.json.rows, [
      { key: 'alice', value: 2 },
      { key: 'bob', value: 2 },
      { key: 'carol', value: 1 },
    ]);
    const level = await view('by_author_date', '?group_level=1');
    assert.deepEqual(level.json.rows, [
      { key: ['alice'], value: 2 },
      { key: ['bob'], value: 1 },
    ]);
    const tags = await view('tags', '?group=true');
    assert.deepEqual(tags.json.rows, [
      { key: 'x', value: 2 },
      { key: 'y', value: 1 },
    ]);
    const ranged = await view('count_by_author', '?startkey="b"');
    assert.deepEqual(ranged.json.rows, [{ key: null, value: 3 }]);
    const empty = await view('count_by_author', '?startkey="zzz"');
    assert.deepEqual(empty.json.rows, []);
  });

  it('include_docs with linked documents', async () => {
    const r = await view('by_title', '?include_docs=true&key="b"');
    assert.equal(r.json.rows[0].doc._id, 'p1');
    const linked = await view('linked', '?include_docs=true');
    assert.deepEqual(
      linked.json.rows.map((row: any) => [row.id, row.doc?._id ?? null]),
      [
        ['c1', 'p1'],
        ['c2', null],
      ],
    );
  });

  it('updates incrementally: new, changed and deleted docs', async () => {
    const before = (await view('count_by_author', '?group=true')).json.rows;
    await t.request('PUT', '/db/p4', { body: { type: 'post', author: 'dave', date: '2024-02-01', title: 'd' } });
    const p1 = (await t.request('GET', '/db/p1')).json;
    await t.request('PUT', '/db/p1', { body: { ...p1, author: 'dave' } });
    const c1 = (await t.request('GET', '/db/c1')).json;
    await t.request('DELETE', `/db/c1?rev=${c1._rev}`);
    const after = (await view('count_by_author', '?group=true')).json.rows;
    assert.notDeepEqual(after, before);
    assert.deepEqual(after, [
      { key: 'alice', value: 2 },
      { key: 'bob', value: 1 },
      { key: 'dave', value: 2 },
    ]);
  });

  it('update=false reads the index as it is; update=lazy answers then updates', async () => {
    await view('by_title');
    await t.request('PUT', '/db/late', { body: { title: 'zz' } });
    const stale = await view('by_title', '?update=false');
    assert.ok(!stale.json.rows.some((row: any) => row.id === 'late'));
    const staleOk = await view('by_title', '?stale=ok');
    assert.ok(!staleOk.json.rows.some((row: any) => row.id === 'late'));
    await view('by_title', '?update=lazy');
    for (let i = 0; i < 50; i++) {
      const r = await view('by_title', '?update=false');
      if (r.json.rows.some((row: any) => row.id === 'late')) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('update=lazy did not update the index');
  });

  it('ETag changes exactly when the answer can; If-None-Match gives 304', async () => {
    const one = await view('by_title');
    const etag = one.headers.get('etag')!;
    assert.match(etag, /^"[0-9a-f]+"$/);
    const same = await view('by_title');
    assert.equal(same.headers.get('etag'), etag);
    const cached = await t.request('GET', '/db/_design/app/_view/by_title', { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    assert.notEqual((await view('by_title', '?limit=1')).headers.get('etag'), etag);
    await t.request('PUT', '/db/another', { body: { title: 'q' } });
    assert.notEqual((await view('by_title')).headers.get('etag'), etag);
  });

  it('headers: must-revalidate, JSON or text/plain by Accept', async () => {
    const r = await t.request('GET', '/db/_design/app/_view/by_title', { headers: { accept: 'application/json' } });
    assert.equal(r.headers.get('cache-control'), 'must-revalidate');
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    // JSON for curl's */* and any type but text/plain alone (CouchDB 1.x's text/plain only then).
    const any = await t.request('GET', '/db/_design/app/_view/by_title', { headers: { accept: '*/*' } });
    assert.equal(any.headers.get('content-type'), 'application/json');
    const html = await t.request('GET', '/db/_design/app/_view/by_title', { headers: { accept: 'text/html' } });
    assert.equal(html.headers.get('content-type'), 'application/json');
    const plain = await t.request('GET', '/db/_design/app/_view/by_title', { headers: { accept: 'text/plain' } });
    assert.equal(plain.headers.get('content-type'), 'text/plain; charset=utf-8');
  });

  it('errors: missing ddoc, deleted ddoc, missing view, map-only reduce, other methods', async () => {
    assert.deepEqual((await t.request('GET', '/db/_design/nope/_view/x')).json, {
      error: 'not_found',
      reason: 'missing',
    });
    assert.deepEqual((await view('nope')).json, { error: 'not_found', reason: 'missing_named_view' });
    assert.deepEqual((await t.request('GET', '/nodb/_design/app/_view/x')).json, {
      error: 'not_found',
      reason: 'Database does not exist.',
    });
    const put = await t.request('PUT', '/db/_design/app/_view/by_title', { body: {} });
    assert.deepEqual([put.status, put.headers.get('allow')], [405, 'GET,POST,HEAD']);
    const gone = await t.request('PUT', '/db/_design/gone', {
      body: { views: { v: { map: 'function(d){emit(1)}' } } },
    });
    await t.request('DELETE', `/db/_design/gone?rev=${gone.json.rev}`);
    assert.deepEqual((await t.request('GET', '/db/_design/gone/_view/v')).json, {
      error: 'not_found',
      reason: 'deleted',
    });
  });

  it('a changed design document builds a new index; _info and _view_cleanup', async () => {
    const ddoc = (await t.request('GET', '/db/_design/app')).json;
    const info1 = (await t.request('GET', '/db/_design/app/_info')).json;
    assert.equal(typeof info1.view_index.signature, 'string');
    ddoc.views.by_title.map = 'function(doc){ if (doc.title) emit(doc.title.toUpperCase(), null); }';
    await t.request('PUT', '/db/_design/app', { body: ddoc });
    const r = await view('by_title', '?key="A"');
    assert.deepEqual(
      r.json.rows.map((row: any) => row.id),
      ['p2', 'p3'],
    );
    const info2 = (await t.request('GET', '/db/_design/app/_info')).json;
    assert.notEqual(info2.view_index.signature, info1.view_index.signature);
    // The old index goes by itself (no other design document has those views).
    // Wherever the engine keeps this database's index files (beside db.sqlite, or views/ with PostgreSQL).
    const indexFiles = () =>
      readdirSync(t.dataDir, { recursive: true })
        .map((f) => basename(String(f)))
        .filter((f) => f.endsWith('.sqlite') && f !== 'db.sqlite');
    for (let i = 0; i < 50 && indexFiles().includes(`${info1.view_index.signature}.sqlite`); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(!indexFiles().includes(`${info1.view_index.signature}.sqlite`));
    assert.ok(indexFiles().includes(`${info2.view_index.signature}.sqlite`));
    assert.equal((await t.request('POST', '/db/_view_cleanup', { body: {} })).status, 202);
  });

  it('views.lib holds CommonJS modules that map functions require', async () => {
    const put = await t.request('PUT', '/db/_design/withlib', {
      body: {
        views: {
          lib: { double: 'exports.double = function (n) { return 2 * n; };' },
          v: { map: "function (doc) { emit(doc._id, require('views/lib/double').double(1)); }" },
        },
      },
    });
    assert.equal(put.status, 201, JSON.stringify(put.json));
    const r = await t.request('GET', '/db/_design/withlib/_view/v?limit=1');
    assert.equal(r.status, 200);
    assert.equal(r.json.rows[0].value, 2);
  });

  it('map function errors drop that doc for that view only', async () => {
    await t.request('PUT', '/db/_design/fragile', {
      body: {
        views: { v: { map: "function(doc){ emit(doc._id, 1); if (doc._id === 'p2') throw new Error('boom'); }" } },
      },
    });
    const r = await t.request('GET', '/db/_design/fragile/_view/v');
    assert.equal(r.status, 200);
    assert.ok(!r.json.rows.some((row: any) => row.id === 'p2'));
    assert.ok(r.json.rows.some((row: any) => row.id === 'p1'));
  });

  it('design documents are checked on save: compile errors, unknown reduce; other languages save but cannot be queried', async () => {
    const broken = await t.request('PUT', '/db/_design/broken', {
      body: { views: { v: { map: 'function(doc){ emit(doc._id' } } },
    });
    assert.equal(broken.status, 400);
    assert.equal(broken.json.error, 'compilation_error');
    assert.match(broken.json.reason, /^Compilation of the map function in the 'v' view failed: /);
    const reduce = await t.request('PUT', '/db/_design/broken', {
      body: { views: { v: { map: 'function(d){}', reduce: 'function(' } } },
    });
    assert.match(reduce.json.reason, /^Compilation of the reduce function in the 'v' view failed: /);
    const erlang = await t.request('PUT', '/db/_design/erl', {
      body: { language: 'erlang', views: { v: { map: 'fun(_) -> ok end.' } } },
    });
    assert.equal(erlang.status, 201);
    // Erlang is a language Divan knows and does not run: a 400 naming it (CouchDB: 500 without
    // its native query server); a language nobody runs stays CouchDB's 500.
    const query = await t.request('GET', '/db/_design/erl/_view/v');
    assert.equal(query.status, 400);
    assert.equal(query.json.error, 'unknown_query_language');
    assert.match(query.json.reason, /^erlang: .*not supported/);
    const cobol = await t.request('PUT', '/db/_design/cobol', {
      body: { language: 'cobol', views: { v: { map: 'DISPLAY DOC.' } } },
    });
    assert.equal(cobol.status, 201);
    const unknown = await t.request('GET', '/db/_design/cobol/_view/v');
    assert.deepEqual([unknown.status, unknown.json], [500, { error: 'unknown_query_language', reason: 'cobol' }]);
  });
});

/**
 * PouchDB 9 (pouchdb-core + pouchdb-adapter-http + pouchdb-mapreduce, unchanged) as a real
 * client of the server: it creates the database, writes with bulkDocs/put, reads with get,
 * allDocs and changes, and queries the view endpoints through db.query with key, keys,
 * startkey/endkey, descending, skip/limit, include_docs, reduce/group/group_level, stale and
 * update_seq, exactly as an application would.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { BLOG_DOCS } from './support/blog-docs.js';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';

const require = createRequire(import.meta.url);
// The PouchDB packages ship no type declarations: used untyped, as in a plain JS application.
const PouchDB = require('pouchdb-core').plugin(require('pouchdb-adapter-http')).plugin(require('pouchdb-mapreduce'));

const DOCS = BLOG_DOCS;

const DDOC = {
  _id: '_design/app',
  views: {
    words: { map: "function (doc) { if (doc.type === 'post') emit(doc.author, doc.words); }", reduce: '_sum' },
    by_author_date: {
      map: "function (doc) { if (doc.type === 'post') emit([doc.author, doc.date], doc.title); }",
      reduce: '_count',
    },
    by_title: { map: 'function (doc) { if (doc.title) emit(doc.title, null); }' },
    comments: { map: "function (doc) { if (doc.type === 'comment') emit(doc.post, { _id: doc.post }); }" },
  },
};

describe('PouchDB (http adapter) against the view endpoints', () => {
  let t: TestServer;
  let db: any;
  before(async () => {
    t = await startTestServer();
    db = new PouchDB(`${t.url}/pouch`, { auth: { username: ADMIN.name, password: ADMIN.password } });
    const info = await db.info(); // creates the database (PouchDB's setup)
    assert.equal(info.db_name, 'pouch');
    const results = await db.bulkDocs(DOCS);
    assert.ok(
      results.every((r: any) => r.ok),
      JSON.stringify(results),
    );
    const put = await db.put(DDOC);
    assert.ok(put.ok);
  });
  after(async () => {
    await db?.close();
    await t.close();
  });

  it('get and allDocs (include_docs, keys, ranges)', async () => {
    const p1 = await db.get('p1');
    assert.equal(p1.title, 'b');
    assert.match(p1._rev, /^1-/);
    const all = await db.allDocs();
    assert.equal(all.total_rows, DOCS.length + 1);
    assert.deepEqual(
      all.rows.map((r: any) => r.id),
      ['_design/app', 'c1', 'c2', 'c3', 'p1', 'p2', 'p3', 'p4'],
    );
    const some = await db.allDocs({ keys: ['p3', 'nope', 'c1'], include_docs: true });
    assert.equal(some.rows[0].doc.title, 'a');
    assert.equal(some.rows[1].error, 'not_found');
    assert.equal(some.rows[2].doc.post, 'p1');
    const range = await db.allDocs({ startkey: 'p', endkey: 'p\ufff0', limit: 2, skip: 1 });
    assert.deepEqual(
      range.rows.map((r: any) => r.id),
      ['p2', 'p3'],
    );
  });

  it('query: map rows, key, startkey/endkey, descending, skip/limit', async () => {
    const all = await db.query('app/by_title');
    assert.equal(all.total_rows, 4);
    assert.deepEqual(
      all.rows.map((r: any) => r.key),
      ['a', 'A', 'b', 'c'],
    );
    assert.deepEqual(all.rows[0], { id: 'p3', key: 'a', value: null });
    assert.deepEqual(
      (await db.query('app/by_title', { key: 'A' })).rows.map((r: any) => r.id),
      ['p2'],
    );
    const ranged = await db.query('app/by_author_date', { reduce: false, startkey: ['alice'], endkey: ['alice', {}] });
    assert.deepEqual(
      ranged.rows.map((r: any) => [r.id, r.value]),
      [
        ['p2', 'A'],
        ['p3', 'a'],
      ],
    );
    const page = await db.query('app/by_title', { descending: true, skip: 1, limit: 2 });
    assert.deepEqual(
      page.rows.map((r: any) => r.key),
      ['b', 'A'],
    );
    assert.equal(page.offset, 1);
    const excl = await db.query('app/by_title', { endkey: 'b', inclusive_end: false });
    assert.deepEqual(
      excl.rows.map((r: any) => r.key),
      ['a', 'A'],
    );
  });

  it('query with keys: in the order given, missing keys skipped; on a reduce view with group', async () => {
    const r = await db.query('app/by_title', { keys: ['c', 'missing', 'a', 'A'] });
    assert.deepEqual(
      r.rows.map((row: any) => [row.key, row.id]),
      [
        ['c', 'p4'],
        ['a', 'p3'],
        ['A', 'p2'],
      ],
    );
    const grouped = await db.query('app/words', { keys: ['carol', 'alice'], group: true });
    assert.deepEqual(grouped.rows, [
      { key: 'carol', value: 1 },
      { key: 'alice', value: 12 },
    ]);
    // Many keys: PouchDB switches to a POST body.
    const many = Array.from({ length: 300 }, (_, i) => `missing-key-${i}-${'x'.repeat(20)}`).concat(['b']);
    assert.deepEqual(
      (await db.query('app/by_title', { keys: many })).rows.map((row: any) => row.id),
      ['p1'],
    );
  });

  it('query: reduce, group, group_level, reduce=false', async () => {
    assert.deepEqual((await db.query('app/words')).rows, [{ key: null, value: 23 }]);
    assert.deepEqual((await db.query('app/words', { group: true })).rows, [
      { key: 'alice', value: 12 },
      { key: 'bob', value: 10 },
      { key: 'carol', value: 1 },
    ]);
    assert.deepEqual((await db.query('app/by_author_date', { group_level: 1 })).rows, [
      { key: ['alice'], value: 2 },
      { key: ['bob'], value: 1 },
      { key: ['carol'], value: 1 },
    ]);
    assert.deepEqual((await db.query('app/words', { group: true, startkey: 'b', limit: 1 })).rows, [
      { key: 'bob', value: 10 },
    ]);
    const mapRows = await db.query('app/words', { reduce: false });
    assert.equal(mapRows.total_rows, 4);
    assert.deepEqual(
      mapRows.rows.map((r: any) => r.id),
      ['p2', 'p3', 'p1', 'p4'],
    );
  });

  it('query: include_docs, with docs linked by {_id} values (missing → null)', async () => {
    const r = await db.query('app/by_title', { include_docs: true, key: 'c' });
    assert.equal(r.rows[0].doc._id, 'p4');
    assert.equal(r.rows[0].doc.words, 1);
    const linked = await db.query('app/comments', { include_docs: true });
    assert.deepEqual(
      linked.rows.map((row: any) => [row.id, row.doc?._id ?? null]),
      [
        ['c3', null],
        ['c1', 'p1'],
        ['c2', 'p3'],
      ],
    );
  });

  it('query: update_seq and stale reads', async () => {
    const fresh = await db.query('app/by_title', { update_seq: true });
    // The view's update_seq: the last change to its rows (at most the database's).
    assert.ok(Number.isInteger(fresh.update_seq) && fresh.update_seq <= (await db.info()).update_seq);
    await db.put({ _id: 'p5', type: 'post', author: 'dave', date: '2024-02-01', title: 'd', words: 3 });
    const seq = (await db.info()).update_seq;
    const stale = await db.query('app/by_title', { stale: 'ok' });
    assert.ok(!stale.rows.some((row: any) => row.id === 'p5'));
    const now = await db.query('app/by_title', { update_seq: true });
    assert.ok(now.rows.some((row: any) => row.id === 'p5'));
    assert.equal(now.update_seq, seq, 'p5 was the last change, and a change to the view');
  });

  it('query errors reject with the CouchDB status and error', async () => {
    await assert.rejects(db.query('app/nope'), (err: any) => err.status === 404 && err.name === 'not_found');
    await assert.rejects(db.query('nope/x'), (err: any) => err.status === 404);
    await assert.rejects(
      db.query('app/by_title', { group: true }),
      (err: any) => err.status === 400 && err.name === 'query_parse_error',
    );
  });

  it('changes: every document once, ordered by seq, with docs and since', async () => {
    const all = await db.changes({ include_docs: true });
    const ids = all.results.map((r: any) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes('_design/app') && ids.includes('p5'));
    const seqs = all.results.map((r: any) => r.seq);
    assert.deepEqual(
      [...seqs].sort((a: number, b: number) => a - b),
      seqs,
    );
    assert.equal(all.results.find((r: any) => r.id === 'p1').doc.title, 'b');
    const p2 = await db.get('p2');
    await db.remove(p2);
    const since = await db.changes({ since: all.last_seq });
    assert.deepEqual(
      since.results.map((r: any) => [r.id, r.deleted]),
      [['p2', true]],
    );
    const rows = (await db.query('app/by_title')).rows.map((row: any) => row.id);
    assert.ok(!rows.includes('p2'), 'the deleted doc left the view');
  });
});

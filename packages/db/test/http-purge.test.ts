/**
 * Purge over HTTP (issue #14; an HTTP suite, so it runs on SQLite and on PostgreSQL):
 * `POST /db/_purge` removes the leaf revisions given (the whole document when no leaf is left:
 * gone from GET, `_all_docs`, `_changes`), answers what it really
 * purged, moves `purge_seq` (and `update_seq`), and every view catches up: a purged document's
 * rows go, a document that keeps a leaf shows its new winner's rows, and a purge of a revision a
 * document does not have leaves it in its views (CouchDB's own bug). `_purged_infos_limit`
 * reads and sets how many purges the log keeps; an index that fell further behind still catches
 * up. A purge is one transaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSqliteEngine } from '../src/storage/sqlite/sqlite-engine.js';
import { startTestServer, type TestServer } from './support/server.js';
import { makeTempDir } from './support/tmp-dir.js';
import { assertError, putDoc, seed, viewClient, type ViewClient } from './support/views-http.js';

const DDOC = {
  views: {
    by_n: { map: "function (doc) { if ('n' in doc) emit(doc.n, doc._id); }" },
    total: { map: "function (doc) { if ('n' in doc) emit(null, doc.n); }", reduce: '_sum' },
  },
};

describe('purge', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const purge = async (db: string, body: unknown) => {
    const r = await t.request('POST', `/${db}/_purge`, { body });
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  const info = async (db: string) => (await t.request('GET', `/${db}`)).json;
  const revOf = async (db: string, id: string) => (await t.request('GET', `/${db}/${id}`)).json._rev as string;
  const ids = (r: { rows: { id: string }[] }) => r.rows.map((row) => row.id);

  async function fresh(db: string): Promise<ViewClient> {
    await seed(
      t,
      db,
      [
        { _id: 'a', n: 1 },
        { _id: 'b', n: 2 },
        { _id: 'c', n: 3 },
      ],
      { v: DDOC },
    );
    const v = viewClient(t, db, 'v');
    assert.deepEqual(ids(await v.ok('by_n')), ['a', 'b', 'c']);
    return v;
  }

  it('purging the only leaf removes the document everywhere, views included', async () => {
    const v = await fresh('p1');
    const rev = await revOf('p1', 'a');
    const before = await info('p1');
    assert.equal(before.purge_seq, 0);
    const r = await purge('p1', { a: [rev] });
    assert.deepEqual(r, { purge_seq: null, purged: { a: [rev] } });
    const after = await info('p1');
    assert.equal(after.purge_seq, 1);
    assert.ok(after.update_seq > before.update_seq, 'update_seq moves on');
    assert.equal(after.doc_count, before.doc_count - 1);
    assertError(await t.request('GET', '/p1/a'), 404, 'not_found', 'missing');
    assertError(await t.request('GET', `/p1/a?rev=${rev}`), 404, 'not_found', 'missing');
    assert.deepEqual(ids((await t.request('GET', '/p1/_all_docs')).json), ['_design/v', 'b', 'c']);
    const changes = (await t.request('GET', '/p1/_changes')).json;
    assert.ok(!changes.results.some((c: { id: string }) => c.id === 'a'));
    assert.deepEqual(ids(await v.ok('by_n')), ['b', 'c']);
    assert.deepEqual((await v.ok('total')).rows, [{ key: null, value: 5 }]);
    // The document can be written again from scratch.
    assert.match(await putDoc(t, 'p1', { _id: 'a', n: 10 }), /^1-/);
    assert.deepEqual(ids(await v.ok('by_n')), ['b', 'c', 'a']);
  });

  it('purging the winner of a conflicted document: the other leaf wins, in views too', async () => {
    const v = await fresh('p2');
    const bulk = await t.request('POST', '/p2/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'x', _rev: '1-root', n: 0 },
          { _id: 'x', _rev: '2-aaaa', n: 20, _revisions: { start: 2, ids: ['aaaa', 'root'] } },
          { _id: 'x', _rev: '2-bbbb', n: 30, _revisions: { start: 2, ids: ['bbbb', 'root'] } },
        ],
      },
    });
    assert.equal(bulk.status, 201, bulk.text);
    assert.deepEqual((await v.ok('by_n', { key: 30 })).rows, [{ id: 'x', key: 30, value: 'x' }]);
    const seqBefore = (await info('p2')).update_seq;
    assert.deepEqual(await purge('p2', { x: ['2-bbbb'] }), { purge_seq: null, purged: { x: ['2-bbbb'] } });
    const doc = (await t.request('GET', '/p2/x?conflicts=true')).json;
    assert.deepEqual(doc, { _id: 'x', _rev: '2-aaaa', n: 20 });
    assertError(await t.request('GET', '/p2/x?rev=2-bbbb'), 404, 'not_found', 'missing');
    const changes = (await t.request('GET', '/p2/_changes')).json.results as { id: string; seq: number }[];
    assert.equal(changes[changes.length - 1]!.id, 'x', 'the document has a new sequence');
    assert.ok(changes[changes.length - 1]!.seq > seqBefore);
    assert.deepEqual((await v.ok('by_n', { key: 30 })).rows, []);
    assert.deepEqual((await v.ok('by_n', { key: 20 })).rows, [{ id: 'x', key: 20, value: 'x' }]);
    assert.deepEqual((await v.ok('total')).rows, [{ key: null, value: 26 }]);
  });

  it('a revision the document does not have (or not as a leaf) purges nothing and keeps it in its views', async () => {
    const v = await fresh('p3');
    const first = await revOf('p3', 'b');
    await putDoc(t, 'p3', { _id: 'b', n: 4 });
    assert.deepEqual(ids(await v.ok('by_n')), ['a', 'c', 'b']);
    const r = await purge('p3', { b: ['3-0123456789abcdef0123456789abcdef', first], nope: ['1-abc'] });
    assert.deepEqual(r, { purge_seq: null, purged: { b: [], nope: [] } });
    assert.equal((await info('p3')).purge_seq, 2, 'one purge log entry per document');
    assert.equal((await t.request('GET', '/p3/b')).json.n, 4);
    assert.deepEqual(ids(await v.ok('by_n')), ['a', 'c', 'b']);
    assert.deepEqual((await v.ok('total')).rows, [{ key: null, value: 8 }]);
  });

  it('_purged_infos_limit: 1000 by default, set with PUT (a positive integer)', async () => {
    await fresh('p4');
    let r = await t.request('GET', '/p4/_purged_infos_limit');
    assert.equal(r.status, 200);
    assert.equal(r.json, 1000);
    r = await t.request('PUT', '/p4/_purged_infos_limit', { body: 2 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { ok: true });
    assert.equal((await t.request('GET', '/p4/_purged_infos_limit')).json, 2);
    for (const bad of [0, -1, '"x"', 1.5]) {
      assertError(
        await t.request('PUT', '/p4/_purged_infos_limit', { body: bad }),
        400,
        'bad_request',
        '`purge_infos_limit` must be positive integer',
      );
    }
  });

  it('_purged_infos lists the purge log: each document with the revisions its request named', async () => {
    await fresh('pinfo');
    assert.deepEqual((await t.request('GET', '/pinfo/_purged_infos')).json, { purged_infos: [] });
    const a = await revOf('pinfo', 'a');
    const b = await revOf('pinfo', 'b');
    await purge('pinfo', { a: [a] });
    await purge('pinfo', { b: [b, '9-nothere'] });
    const r = await t.request('GET', '/pinfo/_purged_infos');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      purged_infos: [
        { id: 'a', revs: [a] },
        { id: 'b', revs: [b, '9-nothere'] },
      ],
    });
    const post = await t.request('POST', '/pinfo/_purged_infos', { body: {} });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET']);
    // Members only, as every read of a database.
    assert.equal((await t.request('GET', '/pinfo/_purged_infos', { auth: false })).status, 401);
    assert.equal((await t.request('GET', '/nodb/_purged_infos')).status, 404);
  });

  it('an index further behind than the purge log reaches still catches up', async () => {
    const v = await fresh('p5');
    assert.equal((await t.request('PUT', '/p5/_purged_infos_limit', { body: 1 })).status, 200);
    for (const id of ['a', 'c']) await purge('p5', { [id]: [await revOf('p5', id)] });
    await purge('p5', { b: ['1-0123456789abcdef0123456789abcdef'] });
    assert.equal((await info('p5')).purge_seq, 3);
    assert.deepEqual(ids(await v.ok('by_n')), ['b']);
    const index = (await t.request('GET', '/p5/_design/v/_info')).json.view_index;
    assert.equal(index.purge_seq, 3);
  });

  it('bad requests; server admins only (CouchDB checks that before the database)', async () => {
    await fresh('p6');
    assertError(
      await t.request('POST', '/p6/_purge', { body: { a: [] }, auth: false }),
      401,
      'unauthorized',
      'You are not a server admin.',
    );
    assertError(
      await t.request('POST', '/nodb/_purge', { body: { a: [] }, auth: false }),
      401,
      'unauthorized',
      'You are not a server admin.',
    );
    assertError(await t.request('POST', '/p6/_purge', { body: [] }), 400, 'bad_request');
    assertError(
      await t.request('POST', '/p6/_purge', { body: { a: ['bad'] } }),
      400,
      'bad_request',
      'Invalid rev format',
    );
    assert.equal((await info('p6')).purge_seq, 0);
  });
});

describe('purge in storage', () => {
  it('is one transaction: a failing purge changes nothing', () => {
    const { dir, cleanup } = makeTempDir('divan-purge-');
    try {
      const engine = openSqliteEngine({ dir });
      const store = engine.create('db');
      store.writeDocs([
        { record: { id: 'a', rev: '1-a', deleted: false, tree: '1:a' }, bodies: [{ rev: '1-a', body: '{}' }] },
        { record: { id: 'b', rev: '1-b', deleted: false, tree: '1:b' }, bodies: [{ rev: '1-b', body: '{}' }] },
      ]);
      const before = store.meta();
      assert.throws(() =>
        store.purgeDocs(
          [
            { id: 'a', revs: ['1-a'], record: null },
            // A record the table refuses (tree NOT NULL): the whole purge rolls back.
            {
              id: 'b',
              revs: ['1-b'],
              record: { id: 'b', rev: '1-b', deleted: false, tree: null as unknown as string },
            },
          ],
          1000,
        ),
      );
      assert.deepEqual(store.counters(), {
        updateSeq: before.updateSeq,
        purgeSeq: 0,
        docCount: 2,
        docDelCount: 0,
      });
      assert.ok(store.getDoc('a') !== undefined);
      assert.equal(store.getBody('a', '1-a'), '{}');
      assert.deepEqual([...store.foldPurges(0)], []);
      const done = store.purgeDocs([{ id: 'a', revs: ['1-a'], record: null }], 1000);
      assert.deepEqual(done, { purgeSeq: 1, updateSeq: before.updateSeq + 1 });
      assert.equal(store.getDoc('a'), undefined);
      assert.equal(store.getBody('a', '1-a'), undefined);
      assert.deepEqual([...store.foldPurges(0)], [{ purgeSeq: 1, id: 'a', revs: ['1-a'] }]);
      engine.close();
      // The counters and the log survive a reopen.
      const again = openSqliteEngine({ dir });
      const reopened = again.open('db')!;
      assert.equal(reopened.counters().purgeSeq, 1);
      assert.equal(reopened.oldestPurge(), 1);
      again.close();
    } finally {
      cleanup();
    }
  });
});

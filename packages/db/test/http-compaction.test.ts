/**
 * Database and view compaction over HTTP (issue #14; an HTTP suite, so it runs on SQLite and on
 * PostgreSQL): `POST /db/_compact` removes the bodies of revisions that are no longer leaves (a
 * later GET of one is 404 `missing`), gives the space back (SQLite: the file shrinks;
 * PostgreSQL's files are the server's), and shows while it runs (`_active_tasks` and
 * `compact_running`);
 * `POST /db/_compact/{ddoc}` answers 202 for a design doc that exists.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { compactionPace } from '../src/documents/compaction.js';
import { openSqliteEngine } from '../src/storage/sqlite/sqlite-engine.js';
import { makeTempDir } from './support/tmp-dir.js';
import { startTestServer, testStorage, type TestServer } from './support/server.js';
import { dropSchema, forgetStaleCount } from './support/postgres.js';
import { fileNameOf } from '../src/storage/sqlite/file-names.js';
import { assertError, putDdoc, viewClient } from './support/views-http.js';
import { until } from './support/until.js';

const DB = 'compacting';
const DOCS = 4000;
const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('database compaction', () => {
  let t: TestServer;
  const firstRevs: string[] = [];
  const lastRevs: string[] = [];

  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('PUT', `/${DB}`)).status, 201);
    const filler = 'x'.repeat(1000);
    let docs: Record<string, unknown>[] = Array.from({ length: DOCS }, (_, i) => ({
      _id: `d${String(i).padStart(5, '0')}`,
      n: i,
      filler,
    }));
    // Three revisions of every document: the first two become non-leaves.
    for (let round = 0; round < 3; round++) {
      const r = await t.request('POST', `/${DB}/_bulk_docs`, { body: { docs } });
      assert.equal(r.status, 201, r.text);
      const revs = (r.json as { rev: string }[]).map((row) => row.rev);
      if (round === 0) firstRevs.push(...revs);
      if (round === 2) lastRevs.push(...revs);
      docs = docs.map((doc, i) => ({ ...doc, round: round + 1, _rev: revs[i] }));
    }
    await putDdoc(t, DB, 'v', { views: { n: { map: 'function (doc) { emit(doc.n, null); }' } } });
  });
  after(() => t.close());

  it('removes non-leaf bodies, shrinks the file, and shows as a task while it runs', async () => {
    // A document deleted and written again: its old tombstone is no leaf any more.
    const gone = await t.request('DELETE', `/${DB}/d03999?rev=${lastRevs[DOCS - 1]}`);
    assert.equal(gone.status, 200, gone.text);
    const again = await t.request('PUT', `/${DB}/d03999`, { body: { n: 3999, back: true } });
    assert.equal(again.status, 201, again.text);
    const tombstoneInfo = await t.request('GET', `/${DB}/d03999?revs_info=true`);
    assert.equal(tombstoneInfo.json._revs_info[1].status, 'deleted');
    const old = await t.request('GET', `/${DB}/d00000?rev=${firstRevs[0]}`);
    assert.equal(old.status, 200, 'an old revision is there before compaction');
    const before = (await t.request('GET', `/${DB}`)).json;
    assert.equal(before.compact_running, false);

    assertError(
      await t.request('POST', `/${DB}/_compact`),
      415,
      'bad_content_type',
      'Content-Type must be application/json',
    );
    // Slowed down (the server runs in this process): ~40 steps of 100 documents, 10 ms apart.
    const pace = { ...compactionPace };
    Object.assign(compactionPace, { docsPerStep: 100, pauseMs: 10 });
    const started = await t.request('POST', `/${DB}/_compact`, { headers: JSON_TYPE });
    assert.equal(started.status, 202, started.text);
    assert.deepEqual(started.json, { ok: true });
    // Observed while it runs: the task and compact_running.
    let sawTask = false;
    let sawRunning = false;
    for (let i = 0; i < 2000; i++) {
      const [tasks, info] = await Promise.all([t.request('GET', '/_active_tasks'), t.request('GET', `/${DB}`)]);
      const task = (tasks.json as { type: string; database: string }[]).find(
        (x) => x.type === 'database_compaction' && x.database === DB,
      );
      if (task !== undefined) {
        sawTask = true;
        assert.equal(typeof (task as unknown as { progress: number }).progress, 'number');
      }
      if (info.json.compact_running === true) sawRunning = true;
      if (task === undefined && info.json.compact_running === false) break;
    }
    Object.assign(compactionPace, pace);
    assert.ok(sawTask, 'a database_compaction task in _active_tasks');
    assert.ok(sawRunning, 'compact_running true meanwhile');

    const after = (await t.request('GET', `/${DB}`)).json;
    assert.equal(after.compact_running, false);
    // On PostgreSQL `file` is the bytes of the stored bodies, two thirds of which went.
    assert.ok(
      after.sizes.file < before.sizes.file * 0.6,
      `the file shrinks: ${before.sizes.file} → ${after.sizes.file} bytes`,
    );
    assert.ok(before.sizes.active < before.sizes.file * 0.6, 'the old revisions were not active before');
    assert.equal(after.sizes.active, after.sizes.file, 'everything left is active');
    assert.equal(after.update_seq, before.update_seq, 'compaction writes no change');
    assertError(await t.request('GET', `/${DB}/d00000?rev=${firstRevs[0]}`), 404, 'not_found', 'missing');
    const current = await t.request('GET', `/${DB}/d00000?rev=${lastRevs[0]}`);
    assert.equal(current.status, 200);
    assert.equal(current.json.round, 2);
    const info = await t.request('GET', `/${DB}/d00001?revs_info=true`);
    assert.deepEqual(
      (info.json._revs_info as { status: string }[]).map((x) => x.status),
      ['available', 'missing', 'missing'],
    );
    // The old tombstone too (CouchDB: `deleted` before, `missing` after).
    assert.deepEqual(
      ((await t.request('GET', `/${DB}/d03999?revs_info=true`)).json._revs_info as { status: string }[]).map(
        (x) => x.status,
      ),
      ['available', 'missing', 'missing', 'missing', 'missing'],
    );
    // Documents and views work as before; a later edit works too.
    const edit = await t.request('PUT', `/${DB}/d00002`, { body: { _rev: lastRevs[2], n: 2, edited: true } });
    assert.equal(edit.status, 201, edit.text);
    const rows = (await viewClient(t, DB, 'v').ok('n', { limit: 3 })).rows;
    assert.deepEqual(
      rows.map((row: { id: string }) => row.id),
      ['d00000', 'd00001', 'd00002'],
    );
  });

  it('anonymous: the member check comes first (401 not authorized)', async () => {
    for (const path of [`/${DB}/_compact`, `/${DB}/_compact/v`]) {
      assertError(
        await t.request('POST', path, { headers: JSON_TYPE, auth: false }),
        401,
        'unauthorized',
        'You are not authorized to access this db.',
      );
    }
  });

  it('POST /db/_compact/{ddoc}: 202 for a design doc, 404 for a missing one', async () => {
    assertError(await t.request('POST', `/${DB}/_compact/v`), 415, 'bad_content_type');
    const r = await t.request('POST', `/${DB}/_compact/v`, { headers: JSON_TYPE });
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(r.json, { ok: true });
    assertError(await t.request('POST', `/${DB}/_compact/nope`, { headers: JSON_TYPE }), 404, 'not_found', 'missing');
    await until(async () => {
      const rows = (await viewClient(t, DB, 'v').ok('n', { key: 5 })).rows;
      return rows.length === 1 && rows[0].id === 'd00005';
    }, 'the view answers after its compaction');
  });
});

describe('database sizes', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /*
   * The rule, as CouchDB reports it: `file` is what the database takes, `active` that less what
   * compaction would give back, `external` the live documents' JSON. Divan: `file - active` is at
   * least the bytes of the bodies of revisions that are no longer leaves (exactly those on
   * PostgreSQL, whose `file` is the bytes of its stored bodies; SQLite adds its free pages),
   * and after a compaction no write overlapped, `active` equals `file` on both.
   */
  it('sizes.active leaves out old revision bodies and deleted data until compaction, and equals sizes.file after it', async () => {
    const db = 'db_sizes';
    const postgres = process.env.DIVAN_TEST_STORAGE === 'postgres';
    assert.equal((await t.request('PUT', `/${db}`)).status, 201);
    const sizes = async (): Promise<{ file: number; active: number; external: number }> =>
      (await t.request('GET', `/${db}`)).json.sizes;
    const filler = 'x'.repeat(2000);
    const put = async (id: string, body: Record<string, unknown>): Promise<string> => {
      const r = await t.request('PUT', `/${db}/${id}`, { body });
      assert.equal(r.status, 201, r.text);
      return r.json.rev;
    };
    let rev = await put('doc', { filler, n: 10 });
    const one = await sizes();
    const bytes = JSON.stringify({ filler, n: 10 }).length;
    assert.equal(one.external, bytes);
    assert.ok(one.active <= one.file, JSON.stringify(one));
    // Twenty updates: the twenty bodies before the last are no leaves (kept until compaction).
    for (let n = 11; n <= 30; n++) rev = await put('doc', { _rev: rev, filler, n });
    const updated = await sizes();
    assert.equal(updated.external, bytes);
    assert.ok(updated.file - updated.active >= 20 * bytes, JSON.stringify(updated));
    if (postgres) assert.deepEqual(updated, { file: 21 * bytes, active: bytes, external: bytes });
    // A deletion: the last body is no leaf either (the tombstone's `{}` is).
    const gone = await t.request('DELETE', `/${db}/doc?rev=${rev}`);
    assert.equal(gone.status, 200, gone.text);
    const deleted = await sizes();
    assert.equal(deleted.external, 0);
    assert.ok(deleted.file - deleted.active >= 21 * bytes, JSON.stringify(deleted));
    if (postgres) assert.deepEqual(deleted, { file: 21 * bytes + 2, active: 2, external: 0 });

    // Purges: a conflicting leaf purged leaves its parent a non-leaf; the document purged takes
    // its old body with it (one revision's stale bytes fewer).
    // Bodies of the same length as the first document's (two-digit n).
    const a = await put('p', { filler, n: 41 });
    const b = await put('p', { _rev: a, filler, n: 42 });
    const c = `2-${'c'.repeat(32)}`;
    const conflict = await t.request('POST', `/${db}/_bulk_docs`, {
      body: {
        new_edits: false,
        docs: [{ _id: 'p', _rev: c, _revisions: { start: 2, ids: ['c'.repeat(32), a.slice(2)] }, filler, n: 43 }],
      },
    });
    assert.equal(conflict.status, 201, conflict.text);
    const withConflict = await sizes();
    if (postgres) assert.equal(withConflict.file - withConflict.active, 22 * bytes);
    for (const [purged, expected] of [
      [c, 22],
      [b, 21],
    ] as const) {
      const r = await t.request('POST', `/${db}/_purge`, { body: { p: [purged] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.purged, { p: [purged] });
      const after = await sizes();
      assert.ok(after.file - after.active >= expected * bytes, JSON.stringify(after));
      if (postgres) assert.equal(after.file - after.active, expected * bytes);
    }

    const started = await t.request('POST', `/${db}/_compact`, { headers: JSON_TYPE });
    assert.equal(started.status, 202, started.text);
    await until(async () => (await t.request('GET', `/${db}`)).json.compact_running === false, 'compaction ends');
    const compacted = await sizes();
    assert.equal(compacted.external, 0);
    assert.equal(compacted.active, compacted.file, JSON.stringify(compacted));
    assert.ok(compacted.file < deleted.file, `${deleted.file} → ${compacted.file}`);
  });
});

describe('database sizes: a database from before they were kept', () => {
  it('is counted once from its revision trees (conflicts and tombstones too) on its first GET /db', async () => {
    // The server's storage is kept over a restart: a data folder, or a schema dropped at the end.
    const storage = testStorage();
    const { dir, cleanup } = makeTempDir('divan-sizes-');
    const start = () => startTestServer({ dataDir: dir, ...(storage === undefined ? {} : { storage }) });
    let t = await start();
    try {
      const db = 'older';
      assert.equal((await t.request('PUT', `/${db}`)).status, 201);
      const filler = 'z'.repeat(1500);
      const bytes = JSON.stringify({ filler, n: 10 }).length;
      const put = async (id: string, body: Record<string, unknown>): Promise<string> => {
        const r = await t.request('PUT', `/${db}/${id}`, { body });
        assert.equal(r.status, 201, r.text);
        return r.json.rev;
      };
      // Stale: a's first two bodies, c's first (under two conflicting leaves), d's before its deletion.
      let rev = await put('a', { filler, n: 10 });
      for (const n of [11, 12]) rev = await put('a', { _rev: rev, filler, n });
      const first = await put('c', { filler, n: 20 });
      for (const leaf of ['e', 'f']) {
        const r = await t.request('POST', `/${db}/_bulk_docs`, {
          body: {
            new_edits: false,
            docs: [
              {
                _id: 'c',
                _rev: `2-${leaf.repeat(32)}`,
                _revisions: { start: 2, ids: [leaf.repeat(32), first.slice(2)] },
                filler,
                n: 21,
              },
            ],
          },
        });
        assert.equal(r.status, 201, r.text);
      }
      const d = await put('d', { filler, n: 30 });
      assert.equal((await t.request('DELETE', `/${db}/d?rev=${d}`)).status, 200);
      const sizes = async (): Promise<{ file: number; active: number; external: number }> =>
        (await t.request('GET', `/${db}`)).json.sizes;
      const kept = await sizes();
      assert.ok(kept.file - kept.active >= 4 * bytes, JSON.stringify(kept));
      await t.stop();

      // As the older schema left it: no count.
      if (storage === undefined) {
        const file = new Sqlite(join(dir, fileNameOf(db)));
        file.prepare("DELETE FROM meta WHERE key = 'stale'").run();
        file.pragma('user_version = 2');
        file.close();
      } else await forgetStaleCount(storage.url, storage.schema, db);

      t = await start();
      const counted = await sizes();
      assert.ok(counted.file - counted.active >= 4 * bytes, JSON.stringify(counted));
      if (storage !== undefined) assert.deepEqual(counted, kept, 'PostgreSQL: the very same count');
      const started = await t.request('POST', `/${db}/_compact`, { headers: JSON_TYPE });
      assert.equal(started.status, 202, started.text);
      await until(async () => (await t.request('GET', `/${db}`)).json.compact_running === false, 'compaction ends');
      const compacted = await sizes();
      assert.equal(compacted.active, compacted.file, `the count was right: ${JSON.stringify(compacted)}`);
      assert.equal(compacted.external, 2 * bytes);
    } finally {
      await t.close();
      if (storage !== undefined) await dropSchema(storage.url, storage.schema);
      cleanup();
    }
  });
});

describe('view index sizes', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it("_info's sizes.active is below sizes.file while view compaction would give space back, and equal after it", async () => {
    const db = 'view_sizes';
    assert.equal((await t.request('PUT', `/${db}`)).status, 201);
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      _id: `k${String(i).padStart(5, '0')}`,
      pad: 'p'.repeat(300),
    }));
    const written = (await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } })).json as { rev: string }[];
    await putDdoc(t, db, 'v', { views: { pad: { map: 'function (doc) { emit(doc.pad + doc._id, doc.pad); }' } } });
    const info = async () => (await t.request('GET', `/${db}/_design/v/_info`)).json.view_index.sizes;
    assert.equal((await viewClient(t, db, 'v').ok('pad', { limit: 1 })).total_rows, 3000);
    const built = await info();
    assert.ok(built.active > 0 && built.active <= built.file, JSON.stringify(built));
    // Most rows go: the pages they took stay in the file, free, until compaction.
    const gone = docs.slice(0, 2900).map((doc, i) => ({ _id: doc._id, _rev: written[i]!.rev, _deleted: true }));
    assert.equal((await t.request('POST', `/${db}/_bulk_docs`, { body: { docs: gone } })).status, 201);
    assert.equal((await viewClient(t, db, 'v').ok('pad', { limit: 1 })).total_rows, 100);
    // The index file's write lands after the query that made it answers (the view reads its nodes
    // from memory meanwhile): the sizes follow within moments, as CouchDB's do.
    let thinned = await info();
    await until(
      async () => {
        thinned = await info();
        return thinned.active < thinned.file / 2;
      },
      `most of the file is free: ${JSON.stringify(thinned)}`,
    );
    const r = await t.request('POST', `/${db}/_compact/v`, { headers: JSON_TYPE });
    assert.equal(r.status, 202, r.text);
    await until(async () => {
      const compacted = await info();
      return compacted.file < thinned.file / 2 && compacted.active === compacted.file;
    }, 'the compacted index gives the free pages back');
  });
});

describe('storage: compaction steps', () => {
  it('a file made before incremental vacuum is converted once, then shrinks', () => {
    const { dir, cleanup } = makeTempDir('divan-compact-');
    try {
      let engine = openSqliteEngine({ dir });
      engine.create('old');
      engine.close();
      // As files were made before: no auto_vacuum.
      const raw = new Sqlite(join(dir, 'old.sqlite'));
      raw.pragma('auto_vacuum = NONE');
      raw.exec('VACUUM');
      assert.equal(raw.pragma('auto_vacuum', { simple: true }), 0);
      raw.close();
      engine = openSqliteEngine({ dir });
      const store = engine.open('old')!;
      const body = JSON.stringify({ filler: 'y'.repeat(2000) });
      const records = Array.from({ length: 500 }, (_, i) => ({
        record: { id: `d${i}`, rev: '1-a', deleted: false, tree: '1:a' },
        bodies: [
          { rev: '1-a', body },
          { rev: '1-b', body },
        ],
      }));
      store.writeDocs(records);
      store.compactDocs(records.map((w) => ({ id: w.record.id, tree: '1:a', dropBodies: ['1-b'] })));
      assert.equal(store.getBody('d0', '1-b'), undefined);
      assert.equal(store.getBody('d0', '1-a'), body);
      const before = store.meta().sizes.file;
      while (store.reclaimSpace(64)) {
        /* steps */
      }
      const after = store.meta().sizes.file;
      assert.ok(after < before * 0.7, `${before} → ${after}`);
      // Converted: the next compaction is incremental (steps of at most 64 pages).
      store.writeDocs(
        records.map((w) => ({ ...w, record: { ...w.record, rev: '1-a' }, bodies: [{ rev: '1-c', body }] })),
      );
      store.compactDocs(records.map((w) => ({ id: w.record.id, tree: '1:a', dropBodies: ['1-c'] })));
      const mid = store.meta().sizes.file;
      assert.ok(mid > after);
      let steps = 0;
      while (store.reclaimSpace(64)) steps++;
      assert.ok(steps >= 1, `incremental steps: ${steps}`);
      const check = new Sqlite(join(dir, 'old.sqlite'), { readonly: true });
      assert.equal(check.pragma('auto_vacuum', { simple: true }), 2, 'converted to INCREMENTAL');
      check.close();
      // Free pages go back; half-empty ones stay (incremental vacuum does not defragment).
      assert.ok(store.meta().sizes.file < mid * 0.8, `${mid} → ${store.meta().sizes.file}`);
      engine.close();
    } finally {
      cleanup();
    }
  });
});

/**
 * An unmodified PouchDB 9 app syncing an access-enabled database as a non-admin user, with
 * `[per_doc_access] autofill` on (docs/access.md): it pulls only the user's documents, pushes its
 * own documents (and its checkpoints) without `_access` and keeps its revs, and a live sync
 * carries the user's later changes both ways and nothing of another user's.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';
import { basic, createUser } from './support/users.js';

const require = createRequire(import.meta.url);
// The PouchDB packages ship no type declarations: used untyped, as in a plain JS application.
const PouchDB = require('pouchdb-core')
  .plugin(require('pouchdb-adapter-http'))
  .plugin(require('pouchdb-adapter-memory'))
  .plugin(require('pouchdb-replication'));

const DB = 'shared';

describe('PouchDB sync of an access-enabled database as a non-admin', () => {
  let t: TestServer;
  const opened: any[] = [];
  const open = (name: string, options: object) => {
    const db = new PouchDB(name, options);
    opened.push(db);
    return db;
  };
  const ids = async (db: any): Promise<string[]> => (await db.allDocs()).rows.map((row: { id: string }) => row.id);

  before(async () => {
    t = await startTestServer();
    await createUser(t, 'alice', 'a');
    await createUser(t, 'bob', 'b');
    await t.request('PUT', `/${DB}?access=true`);
    await t.request('PUT', `/${DB}/_security`, {
      body: { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } },
    });
    await t.request('PUT', '/_node/_local/_config/per_doc_access/autofill', { body: '"true"' });
    await t.request('PUT', `/${DB}/a1`, { auth: basic('alice', 'a'), body: { v: 1, _access: ['alice'] } });
    await t.request('PUT', `/${DB}/s1`, { auth: basic('alice', 'a'), body: { v: 2, _access: ['alice', 'bob'] } });
    await t.request('PUT', `/${DB}/b1`, { auth: basic('bob', 'b'), body: { v: 3, _access: ['bob'] } });
    await t.request('PUT', `/${DB}/z1`, { body: { v: 4 } });
  });
  after(async () => {
    for (const db of opened) await db.close();
    await t.close();
  });

  it('pulls only the user’s documents, pushes theirs with their revs, and syncs live', async () => {
    const remote = open(`${t.url}/${DB}`, { auth: { username: 'alice', password: 'a' } });
    const local = open(`alice-${Date.now()}`, { adapter: 'memory' });
    const pulled = await local.replicate.from(remote);
    assert.equal(pulled.ok, true);
    assert.deepEqual(await ids(local), ['a1', 's1']);

    // A document written without `_access`, as any PouchDB app writes: it goes up as alice's.
    const written = await local.put({ _id: 'a2', v: 5 });
    const pushed = await local.replicate.to(remote);
    assert.deepEqual([pushed.ok, pushed.docs_written, pushed.doc_write_failures], [true, 1, 0]);
    const up = await t.request('GET', `/${DB}/a2`, { auth: basic('alice', 'a') });
    assert.deepEqual([up.json._rev, up.json._access], [written.rev, ['alice']]);
    assert.equal((await t.request('GET', `/${DB}/a2`, { auth: basic('bob', 'b') })).status, 404);
    // Its checkpoint went up too (filled with alice), and a second push finds nothing to do.
    const again = await local.replicate.to(remote);
    assert.deepEqual([again.ok, again.docs_written], [true, 0]);

    // Live, both ways: alice's changes arrive, bob's never do.
    const sync = local.sync(remote, { live: true, retry: false });
    // Cancelled below: its requests under way settle before the databases close.
    const ended = new Promise((resolve) => {
      sync.on('complete', resolve);
      sync.on('error', resolve);
    });
    try {
      await t.request('PUT', `/${DB}/b2`, { auth: basic('bob', 'b'), body: { v: 6, _access: ['bob'] } });
      await t.request('PUT', `/${DB}/a3`, { auth: basic('alice', 'a'), body: { v: 7, _access: ['alice'] } });
      await until(async () => (await ids(local)).includes('a3'), 'alice’s new document pulled');
      await local.put({ _id: 'a4', v: 8 });
      await until(
        async () => (await t.request('GET', `/${DB}/a4`, { auth: basic('alice', 'a') })).status === 200,
        'alice’s local document pushed',
      );
    } finally {
      sync.cancel();
      await ended;
    }
    assert.deepEqual(await ids(local), ['a1', 'a2', 'a3', 'a4', 's1']);
    const all = await t.request('GET', `/${DB}/_all_docs`);
    assert.deepEqual(
      all.json.rows.map((row: { id: string }) => row.id),
      ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 's1', 'z1'],
    );
  });

  it('a role given in _users brings its documents to a live pull; taken away, the app drops them', async () => {
    await t.request('PUT', `/${DB}/c1`, { body: { v: 9, _access: ['crew'] } });
    const remote = open(`${t.url}/${DB}`, { auth: { username: 'alice', password: 'a' } });
    const local = open(`alice-roles-${Date.now()}`, { adapter: 'memory' });
    // An app that asks for `removed` rows and drops those documents (the memory adapter has no purge).
    const pull = local.replicate.from(remote, { live: true, retry: false, query_params: { removed: true } });
    const dropped: string[] = [];
    pull.on('checkpoint', (info: { revs_diff?: { id: string; removed?: boolean } }) => {
      const row = info.revs_diff;
      if (row?.removed !== true) return;
      dropped.push(row.id);
      local.get(row.id).then(
        (doc: object) => local.remove(doc),
        () => undefined,
      );
    });
    const ended = new Promise((resolve) => {
      pull.on('complete', resolve);
      pull.on('error', resolve);
    });
    try {
      await until(async () => (await ids(local)).includes('a1'), 'alice’s documents pulled');
      assert.ok(!(await ids(local)).includes('c1'));
      await createUser(t, 'alice', 'a', ['crew']);
      await until(async () => (await ids(local)).includes('c1'), 'the role’s older document back-filled');
      await createUser(t, 'alice', 'a', []);
      await until(async () => !(await ids(local)).includes('c1'), 'the document of the role taken away dropped');
      assert.deepEqual(dropped, ['c1']);
    } finally {
      pull.cancel();
      await ended;
    }
    assert.ok((await ids(local)).includes('a1'));
  });
});

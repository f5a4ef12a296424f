/**
 * Replication checkpoints on a remote access-enabled database (#30): the server-side replicator
 * acting as a non-admin writes `_local/<replication id>` on the remote peer too, and the peer's
 * rules for `_local` documents refuse one without `_access` (its autofill option off, the
 * default). As CouchDB's per-doc-access replicator does, the checkpoint on a peer whose `GET /db`
 * shows `props.access` names the user the peer knows the job as: two real servers, each way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

/** Every signed-in user is a member (the security object of CouchDB's branch tests). */
const USERS_MEMBERS = { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } };

describe('replication checkpoints on a remote access-enabled database', () => {
  let local: TestServer;
  let remote: TestServer;
  const alice = basic('alice', 'a');
  const bob = basic('bob', 'b');
  const aliceThere = { basic: { username: 'alice', password: 'a' } };

  const accessDb = async (t: TestServer, name: string): Promise<void> => {
    assert.equal((await t.request('PUT', `/${name}?access=true`)).status, 201);
    assert.equal((await t.request('PUT', `/${name}/_security`, { body: USERS_MEMBERS })).status, 200);
  };
  /** The one checkpoint in `db` (CouchDB 3.5's `_replicate` answer does not name it), listed by the admin. */
  const checkpointIn = async (t: TestServer, db: string): Promise<string> => {
    const rows = (await t.request('GET', `/${db}/_local_docs`)).json.rows as { id: string }[];
    assert.equal(rows.length, 1, JSON.stringify(rows));
    return rows[0]!.id;
  };
  const stats = (history: Record<string, number>) => [
    history.missing_checked,
    history.docs_read,
    history.docs_written,
    history.doc_write_failures,
  ];

  before(async () => {
    local = await startTestServer();
    remote = await startTestServer();
    for (const t of [local, remote]) {
      await createUser(t, 'alice', 'a');
      await createUser(t, 'bob', 'b');
      // Autofill stays off: the checkpoint must name its user by itself.
      const autofill = await t.request('GET', '/_node/_local/_config/per_doc_access/autofill');
      assert.notEqual(autofill.json, 'true');
    }
  });
  after(async () => {
    await local.close();
    await remote.close();
  });

  it("a user's push names them in the remote checkpoint, which they read back and another user cannot", async () => {
    await accessDb(local, 'src');
    await accessDb(remote, 'dst');
    await local.request('PUT', '/src/a1', { auth: alice, body: { _access: ['alice'] } });
    await local.request('PUT', '/src/a2', { auth: alice, body: { _access: ['alice', 'bob'] } });
    await local.request('PUT', '/src/b1', { auth: bob, body: { _access: ['bob'] } });
    const push = { source: 'src', target: { url: `${remote.url}/dst`, auth: aliceThere } };
    const first = await local.request('POST', '/_replicate', { auth: alice, body: push });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(stats(first.json.history[0]), [2, 2, 2, 0]);
    const checkpoint = await checkpointIn(remote, 'dst');
    const stored = await remote.request('GET', `/dst/${checkpoint}`, { auth: alice });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(stored.json._access, ['alice']);
    assert.equal(stored.json.session_id, first.json.session_id);
    assert.equal((await remote.request('GET', `/dst/${checkpoint}`, { auth: bob })).status, 404);
    assert.deepEqual(
      (await remote.request('GET', '/dst/_all_docs', { auth: alice })).json.rows.map((row: { id: string }) => row.id),
      ['a1', 'a2'],
    );
    // The next run resumes from the checkpoints: only the new document is read.
    await local.request('PUT', '/src/a3', { auth: alice, body: { _access: ['alice'] } });
    const second = await local.request('POST', '/_replicate', { auth: alice, body: push });
    assert.equal(second.status, 200, second.text);
    assert.equal(await checkpointIn(remote, 'dst'), checkpoint);
    assert.deepEqual(stats(second.json.history[0]), [1, 1, 1, 0]);
    const updated = await remote.request('GET', `/dst/${checkpoint}`, { auth: alice });
    assert.deepEqual([updated.json._access, updated.json.session_id], [['alice'], second.json.session_id]);
  });

  it("a user's pull from a remote access database checkpoints there too, named for them", async () => {
    await accessDb(remote, 'shared');
    await remote.request('PUT', '/shared/a1', { auth: alice, body: { _access: ['alice'] } });
    await remote.request('PUT', '/shared/b1', { auth: bob, body: { _access: ['bob'] } });
    await local.request('PUT', '/mine');
    await local.request('PUT', '/mine/_security', { body: { members: { names: ['alice'] } } });
    const pull = { source: { url: `${remote.url}/shared`, auth: aliceThere }, target: 'mine' };
    const done = await local.request('POST', '/_replicate', { auth: alice, body: pull });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(stats(done.json.history[0]), [1, 1, 1, 0]);
    const checkpoint = await checkpointIn(remote, 'shared');
    assert.equal(await checkpointIn(local, 'mine'), checkpoint);
    const there = await remote.request('GET', `/shared/${checkpoint}`, { auth: alice });
    assert.equal(there.status, 200, there.text);
    assert.deepEqual(there.json._access, ['alice']);
    // The plain local target keeps the checkpoint as CouchDB does: no `_access` member.
    const here = await local.request('GET', `/mine/${checkpoint}`);
    assert.equal(here.status, 200, here.text);
    assert.equal(here.json._access, undefined);
  });

  it('a checkpoint on a plain remote database carries no _access', async () => {
    await remote.request('PUT', '/plain');
    await remote.request('PUT', '/plain/_security', { body: { members: { names: ['alice'] } } });
    await accessDb(local, 'from');
    await local.request('PUT', '/from/a1', { auth: alice, body: { _access: ['alice'] } });
    const push = { source: 'from', target: { url: `${remote.url}/plain`, auth: aliceThere } };
    const done = await local.request('POST', '/_replicate', { auth: alice, body: push });
    assert.equal(done.status, 200, done.text);
    const there = await remote.request('GET', `/plain/${await checkpointIn(remote, 'plain')}`, { auth: alice });
    assert.equal(there.status, 200, there.text);
    assert.equal(there.json._access, undefined);
  });
});

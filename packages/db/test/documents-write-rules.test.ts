import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CouchError, openDivan, type Divan } from '../src/index.js';
import { makeTempDir } from './support/tmp-dir.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Every writer passes the document layer's rules: the embedded API (a server admin by default,
 * or any user through `as()`) is refused exactly as HTTP is, with the same error and reason.
 */
describe('write rules for in-process writers', () => {
  const tmp = makeTempDir('divan-write-rules-');
  let divan: Divan;
  let t: TestServer;
  before(async () => {
    divan = openDivan(tmp.dir, { hashIterations: 10 });
    t = await startTestServer();
  });
  after(async () => {
    await divan.close();
    await t.close();
    tmp.cleanup();
  });

  /** The refusal a promise ends with, as CouchDB's JSON body and status. */
  async function refusal(write: Promise<unknown>): Promise<{ status: number; body: unknown }> {
    try {
      await write;
    } catch (error) {
      assert.ok(error instanceof CouchError, String(error));
      return { status: error.status, body: error.toJSON() };
    }
    assert.fail('the write was accepted');
  }

  const VALIDATE = `function (newDoc, oldDoc, userCtx) {
    if (newDoc.forbidden) throw({ forbidden: 'no forbidden docs' });
    if (newDoc.adminOnly && userCtx.roles.indexOf('_admin') === -1) throw({ unauthorized: 'admins only' });
  }`;

  it('runs validate_doc_update for put, upsert and bulkDocs, as over HTTP', async () => {
    const db = await divan.createDb('guarded');
    await db.put({ _id: '_design/rules', validate_doc_update: VALIDATE });
    assert.deepEqual(await refusal(db.put({ _id: 'a', forbidden: true })), {
      status: 403,
      body: { error: 'forbidden', reason: 'no forbidden docs' },
    });
    assert.deepEqual(await refusal(db.upsert({ _id: 'a', forbidden: true })), {
      status: 403,
      body: { error: 'forbidden', reason: 'no forbidden docs' },
    });
    const rows = await db.bulkDocs([{ _id: 'b', forbidden: true }, { _id: 'c' }]);
    assert.deepEqual(rows[0], { id: 'b', error: 'forbidden', reason: 'no forbidden docs' });
    assert.equal((rows[1] as { ok?: boolean }).ok, true);
    await assert.rejects(db.get('a'), (e: CouchError) => e.status === 404);
    await assert.rejects(db.get('b'), (e: CouchError) => e.status === 404);

    // The same database over HTTP answers the same status and body.
    assert.equal((await t.request('PUT', '/guarded')).status, 201);
    await t.request('PUT', '/guarded/_design/rules', { body: { validate_doc_update: VALIDATE } });
    const http = await t.request('PUT', '/guarded/a', { body: { forbidden: true } });
    assert.deepEqual({ status: http.status, body: http.json }, await refusal(db.put({ _id: 'a', forbidden: true })));
  });

  it('acts as a server admin by default, and as the given user through as()', async () => {
    const db = await divan.createDb('as-user');
    await db.put({ _id: '_design/rules', validate_doc_update: VALIDATE });
    assert.equal((await db.put({ _id: 'x', adminOnly: true })).ok, true);
    const bob = db.as({ name: 'bob', roles: [] });
    assert.deepEqual(await refusal(bob.put({ _id: 'y', adminOnly: true })), {
      status: 401,
      body: { error: 'unauthorized', reason: 'admins only' },
    });
    assert.equal((await bob.put({ _id: 'y' })).ok, true);
    // Design documents need a DB admin: 403 for a named user, 401 for anonymous, as CouchDB words them.
    assert.deepEqual(await refusal(bob.put({ _id: '_design/other', views: {} })), {
      status: 403,
      body: { error: 'forbidden', reason: 'You are not a db or server admin.' },
    });
    const anonymous = db.as({ name: null, roles: [] });
    assert.deepEqual(await refusal(anonymous.upsert({ _id: '_design/other', views: {} })), {
      status: 401,
      body: { error: 'unauthorized', reason: 'You are not a db or server admin.' },
    });
    // A DB admin by the database's _security may write design documents.
    await db.database.setSecurity({ admins: { names: ['bob'] } });
    assert.equal((await bob.put({ _id: '_design/other', views: {} })).ok, true);
  });

  it('applies the _users rules: hashed passwords, CouchDB checks, own document only', async () => {
    const users = await divan.createDb('_users');
    await users.put({ _id: 'org.couchdb.user:ann', type: 'user', name: 'ann', roles: [], password: 'secret' });
    const stored = await users.get('org.couchdb.user:ann');
    assert.equal(stored.password, undefined);
    assert.equal(stored.password_scheme, 'pbkdf2');
    assert.equal(typeof stored.derived_key, 'string');
    assert.deepEqual(await refusal(users.put({ _id: 'org.couchdb.user:zed', name: 'zed', roles: [] })), {
      status: 403,
      body: { error: 'forbidden', reason: 'doc.type must be user' },
    });
    const rows = await users.bulkDocs([{ _id: 'org.couchdb.user:_sys', type: 'user', name: '_sys', roles: [] }]);
    assert.deepEqual(rows[0], {
      id: 'org.couchdb.user:_sys',
      error: 'forbidden',
      reason: 'Username may not start with underscore.',
    });
    const ann = users.as({ name: 'ann', roles: [] });
    await users.database.setSecurity({ members: { names: ['ann'] } });
    assert.deepEqual(
      await refusal(ann.upsert({ _id: 'org.couchdb.user:ann', type: 'user', name: 'ann', roles: ['boss'] })),
      { status: 403, body: { error: 'forbidden', reason: 'Only _admin may edit roles' } },
    );
    assert.deepEqual(await refusal(ann.put({ _id: 'org.couchdb.user:bo', type: 'user', name: 'bo', roles: [] })), {
      status: 404,
      body: { error: 'not_found', reason: 'missing' },
    });
  });

  it('applies the replication document rules in a replicator database: CouchDB’s reasons, owner, no takeover', async () => {
    const db = await divan.createDb('_replicator');
    assert.deepEqual(await refusal(db.put({ _id: 'r0', target: 'b' })), {
      status: 403,
      body: { error: 'forbidden', reason: "The `source' property must exist and be either a string or an object." },
    });
    // Taken when well-formed, `owner` the writer (the embedded API acts as a server admin: no name).
    await db.put({ _id: 'r1', source: 'nosuch_a', target: 'nosuch_b' });
    assert.equal(((await db.get('r1')) as { owner: unknown }).owner, null);
    const ann = db.as({ name: 'ann', roles: [] });
    await db.database.setSecurity({ members: { names: ['ann', 'bo'] } });
    await ann.put({ _id: 'r2', source: 'nosuch_a', target: 'nosuch_c', user_ctx: { name: 'ann' } });
    assert.equal(((await db.get('r2')) as { owner: unknown }).owner, 'ann');
    const current = (await db.get('r2')) as Record<string, unknown>;
    const bo = db.as({ name: 'bo', roles: [] });
    assert.deepEqual(await refusal(bo.put({ ...current, owner: undefined, user_ctx: { name: 'bo' } })), {
      status: 403,
      body: { error: 'forbidden', reason: "Can't update replication documents from other users." },
    });
  });
});

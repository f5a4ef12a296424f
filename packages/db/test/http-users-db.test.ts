/**
 * Users databases: `_users` and any database whose name ends in `/_users` hash passwords and
 * apply CouchDB's user-document rules; `_users/_design/_auth` exists with a validate_doc_update
 * holding those rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic } from './support/users.js';

const uid = (name: string) => encodeURIComponent(`org.couchdb.user:${name}`);

describe('users databases', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('_users/_design/_auth exists with a validate_doc_update', async () => {
    const ddoc = await t.request('GET', '/_users/_design/_auth');
    assert.equal(ddoc.status, 200);
    assert.equal(ddoc.json.language, 'javascript');
    assert.match(ddoc.json.validate_doc_update, /^function \(newDoc, oldDoc, userCtx, secObj\)/);
  });

  it("its function holds CouchDB's rules with CouchDB's messages (run as any validate function)", async () => {
    const source = (await t.request('GET', '/_users/_design/_auth')).json.validate_doc_update;
    assert.equal((await t.request('PUT', '/rules')).status, 201);
    await t.request('PUT', '/rules/_security', { body: { members: { names: [] } } });
    assert.equal(
      (await t.request('PUT', '/rules/_design/auth', { body: { validate_doc_update: source } })).status,
      201,
    );
    await t.request('PUT', '/_users/org.couchdb.user:sam', {
      body: { name: 'sam', password: 'pw', roles: [], type: 'user' },
    });
    const cases: [unknown, number, string][] = [
      [{ _id: 'org.couchdb.user:a', name: 'a', roles: [], type: 'other' }, 403, 'doc.type must be user'],
      [{ _id: 'org.couchdb.user:a', roles: [], type: 'user' }, 403, 'doc.name is required'],
      [{ _id: 'org.couchdb.user:a', name: 'a', type: 'user' }, 403, 'doc.roles must exist'],
      [{ _id: 'a', name: 'a', roles: [], type: 'user' }, 403, 'Doc ID must be of the form org.couchdb.user:name'],
      [{ _id: 'org.couchdb.user:a', name: 'a', roles: ['x'], type: 'user' }, 403, 'Only _admin may set roles'],
      [
        { _id: 'org.couchdb.user:_a', name: '_a', roles: [], type: 'user' },
        403,
        'Username may not start with underscore.',
      ],
      [{ _id: 'org.couchdb.user:a', name: 'a', roles: [], type: 'user' }, 201, ''],
    ];
    for (const [doc, status, reason] of cases) {
      const r = await t.request('POST', '/rules', { body: doc, auth: basic('sam', 'pw') });
      assert.equal(r.status, status, JSON.stringify(doc));
      if (status === 403) assert.deepEqual(r.json, { error: 'forbidden', reason });
    }
  });

  it('a database whose name ends in /_users hashes passwords and applies the rules', async () => {
    const db = '/org%2F_users';
    assert.equal((await t.request('PUT', db)).status, 201);
    const put = await t.request('PUT', `${db}/${uid('ann')}`, {
      body: { name: 'ann', password: 'secret', roles: [], type: 'user' },
    });
    assert.equal(put.status, 201);
    const stored = (await t.request('GET', `${db}/${uid('ann')}`)).json;
    assert.equal(stored.password, undefined);
    assert.equal(stored.password_scheme, 'pbkdf2');
    assert.equal(typeof stored.derived_key, 'string');
    const wrong = await t.request('PUT', `${db}/${uid('bob')}`, { body: { name: 'bob', roles: [], type: 'person' } });
    assert.deepEqual([wrong.status, wrong.json], [403, { error: 'forbidden', reason: 'doc.type must be user' }]);
    const notUsers = '/org%2F_users_not';
    assert.equal((await t.request('PUT', notUsers)).status, 201);
    const plain = await t.request('PUT', `${notUsers}/x`, { body: { password: 'kept' } });
    assert.equal(plain.status, 201);
    assert.equal(
      (await t.request('GET', `${notUsers}/x`)).json.password,
      'kept',
      'other databases are not users databases',
    );
  });
});

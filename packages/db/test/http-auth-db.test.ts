/**
 * A second users database through `[chttpd_auth] authentication_db`: accounts are read there,
 * it gets the users-database rules (hashing, validation), and `GET /_session` names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const CONFIG = '/_node/_local/_config';

describe('[chttpd_auth] authentication_db', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'old', 'pw');
    assert.equal((await t.request('PUT', '/people')).status, 201);
  });
  after(() => t.close());

  it('accounts are read from the configured database, which gets the users rules', async () => {
    const set = await t.request('PUT', `${CONFIG}/chttpd_auth/authentication_db`, { body: '"people"' });
    assert.equal(set.status, 200);
    const put = await t.request('PUT', '/people/org.couchdb.user:pia', {
      body: { name: 'pia', password: 'pw', roles: ['r'], type: 'user' },
    });
    assert.equal(put.status, 201);
    const stored = (await t.request('GET', '/people/org.couchdb.user:pia')).json;
    assert.equal(stored.password, undefined, 'hashed as in _users');
    assert.equal(typeof stored.derived_key, 'string');
    const wrong = await t.request('PUT', '/people/org.couchdb.user:x', {
      body: { name: 'x', roles: [], type: 'thing' },
    });
    assert.deepEqual([wrong.status, wrong.json.reason], [403, 'doc.type must be user']);

    const session = await t.request('GET', '/_session', { auth: basic('pia', 'pw') });
    assert.deepEqual(session.json.userCtx, { name: 'pia', roles: ['r'] });
    assert.equal(session.json.info.authentication_db, 'people');
    assert.equal(
      (await t.request('GET', '/_session', { auth: basic('old', 'pw') })).status,
      401,
      '_users is not read now',
    );
  });

  it('back to _users when the setting is removed', async () => {
    await t.request('DELETE', `${CONFIG}/chttpd_auth/authentication_db`);
    assert.equal((await t.request('GET', '/_session', { auth: basic('old', 'pw') })).json.userCtx.name, 'old');
    assert.equal((await t.request('GET', '/_session', { auth: basic('pia', 'pw') })).status, 401);
    const plain = await t.request('PUT', '/people/other', { body: { password: 'kept' } });
    assert.equal(plain.status, 201, 'an ordinary database again');
  });
});

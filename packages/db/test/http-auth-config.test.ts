import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser, login, withCookie } from './support/users.js';

const CONFIG = '/_node/_local/_config';

describe('/_node/_local/_config (run-time settings)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'user', 'pw');
  });
  after(() => t.close());

  it('is for server admins only', async () => {
    for (const auth of [false as const, basic('user', 'pw')]) {
      const r = await t.request('GET', CONFIG, { auth });
      assert.deepEqual([r.status, r.json.reason], [401, 'You are not a server admin.']);
      assert.equal((await t.request('PUT', `${CONFIG}/cors/origins`, { auth, body: '"*"' })).status, 401);
    }
  });

  it('shows the sections as the server runs with them; values are strings', async () => {
    const all = (await t.request('GET', CONFIG)).json;
    assert.equal(all.chttpd_auth.timeout, '600');
    assert.equal(all.chttpd.enable_cors, 'false');
    assert.match(all.admins.admin, /^-pbkdf2:sha256-/);
    assert.deepEqual((await t.request('GET', `${CONFIG}/nosuch`)).json, {});
    const missing = await t.request('GET', `${CONFIG}/cors/nosuch`);
    assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'unknown_config_value' }]);
    const notString = await t.request('PUT', `${CONFIG}/chttpd_auth/timeout`, { body: '60' });
    assert.equal(notString.status, 400);
  });

  it('CORS turns on and changes at once', async () => {
    const origin = 'http://page.example';
    assert.equal(
      (await t.request('GET', '/', { auth: false, headers: { origin } })).headers.get('access-control-allow-origin'),
      null,
    );
    assert.equal((await t.request('PUT', `${CONFIG}/cors/origins`, { body: JSON.stringify(origin) })).json, '');
    assert.equal((await t.request('PUT', `${CONFIG}/cors/credentials`, { body: '"true"' })).status, 200);
    assert.equal((await t.request('PUT', `${CONFIG}/chttpd/enable_cors`, { body: '"true"' })).json, 'false');
    const r = await t.request('GET', '/', { auth: false, headers: { origin } });
    assert.equal(r.headers.get('access-control-allow-origin'), origin);
    assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
    const bad = await t.request('PUT', `${CONFIG}/cors/credentials`, { body: '"maybe"' });
    assert.equal(bad.status, 400);
    assert.equal((await t.request('GET', `${CONFIG}/cors/credentials`)).json, 'true');
    assert.equal((await t.request('DELETE', `${CONFIG}/chttpd/enable_cors`)).json, 'true');
    assert.equal(
      (await t.request('GET', '/', { auth: false, headers: { origin } })).headers.get('access-control-allow-origin'),
      null,
    );
  });

  it('[chttpd_auth] timeout sets the cookie lifetime', async () => {
    await t.request('PUT', `${CONFIG}/chttpd_auth/timeout`, { body: '"3600"' });
    const r = await t.request('POST', '/_session', { auth: false, body: { name: 'user', password: 'pw' } });
    assert.match(r.headers.get('set-cookie')!, /Max-Age=3600/);
    await t.request('DELETE', `${CONFIG}/chttpd_auth/timeout`);
    assert.ok((await login(t, 'user', 'pw')).length > 0);
  });

  it('[chttpd_auth] same_site, cookie_domain and allow_persistent_cookies shape the cookie', async () => {
    await t.request('PUT', `${CONFIG}/chttpd_auth/same_site`, { body: '"none"' });
    await t.request('PUT', `${CONFIG}/chttpd_auth/cookie_domain`, { body: '"example.org"' });
    await t.request('PUT', `${CONFIG}/chttpd_auth/allow_persistent_cookies`, { body: '"false"' });
    const r = await t.request('POST', '/_session', { auth: false, body: { name: 'user', password: 'pw' } });
    assert.match(
      r.headers.get('set-cookie')!,
      /^AuthSession=[^;]+; Version=1; Domain=example.org; Path=\/; HttpOnly; SameSite=None$/,
    );
    assert.equal((await t.request('PUT', `${CONFIG}/chttpd_auth/same_site`, { body: '"sometimes"' })).status, 400);
    for (const key of ['same_site', 'cookie_domain', 'allow_persistent_cookies']) {
      await t.request('DELETE', `${CONFIG}/chttpd_auth/${key}`);
    }
    const plain = await t.request('POST', '/_session', { auth: false, body: { name: 'user', password: 'pw' } });
    assert.match(plain.headers.get('set-cookie')!, /Max-Age=600; Path=\/; HttpOnly$/);
  });

  it('[admins] adds a server admin (hashed) and removes one, never the last', async () => {
    assert.equal((await t.request('PUT', `${CONFIG}/admins/second`, { body: '"two"' })).json, '');
    const stored = (await t.request('GET', `${CONFIG}/admins/second`)).json as string;
    assert.match(stored, /^-pbkdf2:sha256-[0-9a-f]+,[0-9a-f]+,\d+$/);
    assert.equal((await t.request('GET', '/_all_dbs', { auth: basic('second', 'two') })).status, 200);
    const cookie = await login(t, 'second', 'two');
    assert.deepEqual((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.roles, ['_admin']);
    assert.equal((await t.request('DELETE', `${CONFIG}/admins/second`)).json, stored);
    assert.equal((await t.request('GET', '/', { auth: basic('second', 'two') })).status, 401);
    const last = await t.request('DELETE', `${CONFIG}/admins/admin`);
    assert.equal(last.status, 403);
  });

  it("an admin's new password and a deleted account apply at once on a connection kept open", async () => {
    // One socket for every request below, so each one after the first comes on the connection
    // that already logged in with the same header.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(t.url);
    const get = (auth: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = http.get(
          { host: url.hostname, port: url.port, path: '/_session', agent, headers: { authorization: auth } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
      });
    try {
      await t.request('PUT', `${CONFIG}/admins/kept`, { body: '"one"' });
      await createUser(t, 'keptuser', 'pw');
      assert.deepEqual(await get(basic('kept', 'one')), { status: 200, reused: false });
      assert.deepEqual(await get(basic('kept', 'one')), { status: 200, reused: true });
      await t.request('PUT', `${CONFIG}/admins/kept`, { body: '"two"' });
      assert.deepEqual(await get(basic('kept', 'one')), { status: 401, reused: true });
      assert.deepEqual(await get(basic('kept', 'two')), { status: 200, reused: true });
      await t.request('DELETE', `${CONFIG}/admins/kept`);
      assert.deepEqual(await get(basic('kept', 'two')), { status: 401, reused: true });
      assert.deepEqual(await get(basic('keptuser', 'pw')), { status: 200, reused: true });
      assert.deepEqual(await get(basic('keptuser', 'pw')), { status: 200, reused: true });
      const doc = (await t.request('GET', '/_users/org.couchdb.user:keptuser')).json;
      await t.request('DELETE', `/_users/org.couchdb.user:keptuser?rev=${doc._rev}`);
      assert.deepEqual(await get(basic('keptuser', 'pw')), { status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('[jwt_keys] enables Bearer tokens at once', async () => {
    const secret = Buffer.from('config-secret');
    await t.request('PUT', `${CONFIG}/jwt_keys/hmac:_default`, { body: JSON.stringify(secret.toString('base64')) });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const head = `${b64({ alg: 'HS256' })}.${b64({ sub: 'tok', '_couchdb.roles': ['r'] })}`;
    const token = `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
    const r = await t.request('GET', '/_session', { auth: `Bearer ${token}` });
    assert.deepEqual(r.json.userCtx, { name: 'tok', roles: ['r'] });
    const bad = await t.request('PUT', `${CONFIG}/jwt_keys/rsa:k`, { body: '"not a pem"' });
    assert.equal(bad.status, 400);
    await t.request('DELETE', `${CONFIG}/jwt_keys/hmac:_default`);
    assert.equal((await t.request('GET', '/_session', { auth: `Bearer ${token}` })).json.userCtx.name, null);
  });

  it('stored settings survive a restart', async () => {
    await t.request('PUT', `${CONFIG}/couchdb/users_db_security_editable`, { body: '"true"' });
    const s = t.server.couch;
    await s.watchConfig(); // what a start does
    assert.equal((await t.request('PUT', '/_users/_security', { body: { admins: { names: [] } } })).status, 200);
    assert.equal((await t.request('GET', `${CONFIG}/couchdb/users_db_security_editable`)).json, 'true');
  });
});

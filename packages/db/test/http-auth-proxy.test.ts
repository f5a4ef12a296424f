/**
 * Proxy authentication as CouchDB 3.5 does it: on when `[chttpd] authentication_handlers` names
 * `proxy_authentication_handler`; `X-Auth-CouchDB-UserName`/`-Roles` name the user; with
 * `[chttpd_auth] proxy_use_secret` and `secret`, `X-Auth-CouchDB-Token` (hex HMAC of the name)
 * must verify.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const CONFIG = '/_node/_local/_config';
const HANDLERS =
  '{chttpd_auth, cookie_authentication_handler}, {chttpd_auth, proxy_authentication_handler}, {chttpd_auth, default_authentication_handler}';

describe('proxy authentication', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const asProxy = (headers: Record<string, string>) => t.request('GET', '/_session', { auth: false, headers });

  it('is off by default: the headers are ignored', async () => {
    const r = await asProxy({ 'X-Auth-CouchDB-UserName': 'pat', 'X-Auth-CouchDB-Roles': '_admin' });
    assert.deepEqual(r.json.userCtx, { name: null, roles: [] });
  });

  it('on through the config API: the proxy names the user and roles', async () => {
    assert.equal(
      (await t.request('PUT', `${CONFIG}/chttpd/authentication_handlers`, { body: JSON.stringify(HANDLERS) })).status,
      200,
    );
    const r = await asProxy({ 'X-Auth-CouchDB-UserName': 'pat', 'X-Auth-CouchDB-Roles': 'reader, writer' });
    assert.deepEqual(r.json.userCtx, { name: 'pat', roles: ['reader', 'writer'] });
    assert.equal(r.json.info.authenticated, 'proxy');
    assert.deepEqual(r.json.info.authentication_handlers, ['cookie', 'proxy', 'default']);
    const admin = await t.request('PUT', '/proxied', {
      auth: false,
      headers: { 'X-Auth-CouchDB-UserName': 'boss', 'X-Auth-CouchDB-Roles': '_admin' },
    });
    assert.equal(admin.status, 201, 'the roles a proxy gives are the roles the user has');
  });

  it('with proxy_use_secret and a secret, the token must be the HMAC of the name', async () => {
    await t.request('PUT', `${CONFIG}/chttpd_auth/secret`, { body: '"proxy-secret"' });
    await t.request('PUT', `${CONFIG}/chttpd_auth/proxy_use_secret`, { body: '"true"' });
    const name = 'pat';
    const token = createHmac('sha256', 'proxy-secret').update(name).digest('hex');
    const ok = await asProxy({ 'X-Auth-CouchDB-UserName': name, 'X-Auth-CouchDB-Token': token });
    assert.deepEqual(ok.json.userCtx, { name, roles: [] });
    const sha1 = createHmac('sha1', 'proxy-secret').update(name).digest('hex');
    assert.equal(
      (await asProxy({ 'X-Auth-CouchDB-UserName': name, 'X-Auth-CouchDB-Token': sha1 })).json.userCtx.name,
      name,
    );
    const bads: Record<string, string>[] = [
      {},
      { 'X-Auth-CouchDB-Token': 'f00' },
      { 'X-Auth-CouchDB-Token': token.slice(0, -1) + (token.endsWith('0') ? '1' : '0') },
    ];
    for (const bad of bads) {
      const r = await asProxy({ 'X-Auth-CouchDB-UserName': name, ...bad });
      assert.deepEqual(r.json.userCtx, { name: null, roles: [] }, JSON.stringify(bad));
    }
  });

  it('turned off again, the headers are ignored again', async () => {
    await t.request('DELETE', `${CONFIG}/chttpd/authentication_handlers`);
    const r = await asProxy({ 'X-Auth-CouchDB-UserName': 'pat' });
    assert.equal(r.json.userCtx.name, null);
  });
});

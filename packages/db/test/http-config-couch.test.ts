/**
 * The config API as CouchDB 3.5 answers it: sections it refuses to change over HTTP, `[couchdb]
 * database_dir`, `POST _config/_reload`, `max_http_request_size` changing at run time over the
 * start flag's default, JWT keys in the ini form and required claims with values.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const CONFIG = '/_node/_local/_config';

describe('the config API as CouchDB answers it', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ maxBodyBytes: 1000 });
    await createUser(t, 'user', 'pw');
  });
  after(() => t.close());

  it('refuses the sections CouchDB refuses to change over HTTP with its 403', async () => {
    for (const section of ['query_servers', 'native_query_servers', 'os_daemons', 'daemons', 'external']) {
      for (const method of ['PUT', 'DELETE']) {
        const r = await t.request(method, `${CONFIG}/${section}/x`, method === 'PUT' ? { body: '"/bin/sh"' } : {});
        assert.deepEqual(
          [r.status, r.json],
          [403, { error: 'forbidden', reason: 'Config section blacklisted for modification over HTTP API.' }],
        );
      }
      assert.deepEqual((await t.request('GET', `${CONFIG}/${section}`)).json, {});
    }
  });

  it('shows [couchdb] database_dir', async () => {
    assert.equal((await t.request('GET', `${CONFIG}/couchdb/database_dir`)).json, resolve(t.dataDir));
  });

  it('max_http_request_size: the flag gives the default, the config API changes it at run time', async () => {
    const big = { text: 'x'.repeat(2000) };
    assert.equal((await t.request('GET', `${CONFIG}/chttpd/max_http_request_size`)).json, '1000');
    assert.equal((await t.request('PUT', '/sizes')).status, 201);
    assert.equal((await t.request('PUT', '/sizes/a', { body: big })).status, 413);
    const put = await t.request('PUT', `${CONFIG}/chttpd/max_http_request_size`, { body: '"100000"' });
    assert.deepEqual([put.status, put.json], [200, '1000']);
    assert.equal((await t.request('PUT', '/sizes/a', { body: big })).status, 201);
    assert.equal((await t.request('PUT', `${CONFIG}/chttpd/max_http_request_size`, { body: '"lots"' })).status, 400);
    assert.equal((await t.request('DELETE', `${CONFIG}/chttpd/max_http_request_size`)).json, '100000');
    assert.equal((await t.request('PUT', '/sizes/b', { body: big })).status, 413, 'back to the flag');
  });

  it('POST _config/_reload applies what is stored now (admins only)', async () => {
    const stored = JSON.stringify({ chttpd_auth: { timeout: '1234' } });
    await t.server.couch.storage.setServerValue('config.json', stored);
    assert.equal((await t.request('POST', `${CONFIG}/_reload`, { auth: basic('user', 'pw') })).status, 401);
    const r = await t.request('POST', `${CONFIG}/_reload`);
    assert.deepEqual([r.status, r.json], [200, { ok: true }]);
    assert.equal((await t.request('GET', `${CONFIG}/chttpd_auth/timeout`)).json, '1234');
    await t.request('DELETE', `${CONFIG}/chttpd_auth/timeout`);
  });

  it('JWT keys in the ini form (PEM with \\n escapes) and required claims with values', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const iniForm = pem.trimEnd().replaceAll('\n', '\\n');
    assert.equal((await t.request('PUT', `${CONFIG}/jwt_keys/rsa:k1`, { body: JSON.stringify(iniForm) })).status, 200);
    const claims = '[jwt_auth] required_claims';
    const put = await t.request('PUT', `${CONFIG}/jwt_auth/required_claims`, {
      body: JSON.stringify('exp, {iss, "x"}'),
    });
    assert.equal(put.status, 200, claims);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const token = (payload: Record<string, unknown>) => {
      const head = `${b64({ alg: 'RS256', kid: 'k1' })}.${b64({ sub: 'jay', exp: Date.now() / 1000 + 60, ...payload })}`;
      return `Bearer ${head}.${sign('sha256', Buffer.from(head), privateKey).toString('base64url')}`;
    };
    const ok = await t.request('GET', '/_session', { auth: token({ iss: 'x' }) });
    assert.deepEqual([ok.status, ok.json.userCtx.name], [200, 'jay']);
    const wrong = await t.request('GET', '/_session', { auth: token({ iss: 'y' }) });
    assert.deepEqual([wrong.status, wrong.json.reason], [401, 'Invalid iss claim']);
    const missing = await t.request('GET', '/_session', { auth: token({}) });
    assert.deepEqual([missing.status, missing.json.reason], [401, 'Missing required claim: iss']);
    const unreadable = await t.request('PUT', `${CONFIG}/jwt_auth/required_claims`, { body: '"{iss, x}"' });
    assert.equal(unreadable.status, 400);
    await t.request('DELETE', `${CONFIG}/jwt_auth/required_claims`);
    await t.request('DELETE', `${CONFIG}/jwt_keys/rsa:k1`);
  });
});

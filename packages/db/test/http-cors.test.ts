import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { createUser, cookieValue } from './support/users.js';

const APP = 'http://app.example';

describe('CORS (enabled, one origin, credentials)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ settings: { cors: { origins: [APP], credentials: true } } });
    await createUser(t, 'web', 'pw');
    await t.request('PUT', '/shared');
    await t.request('PUT', '/shared/_security', { body: { members: { names: ['web'] } } });
  });
  after(() => t.close());

  it('answers a preflight on any path, before authentication', async () => {
    for (const path of ['/', '/shared/_bulk_docs', '/_session', '/shared/some%2Fdoc/att.txt']) {
      const r = await t.request('OPTIONS', path, {
        auth: false,
        headers: {
          origin: APP,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('access-control-allow-origin'), APP);
      assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
      assert.match(r.headers.get('access-control-allow-methods')!, /PUT/);
      assert.match(r.headers.get('access-control-allow-headers')!, /content-type/);
      assert.equal(r.headers.get('access-control-max-age'), '600');
    }
  });

  it('refuses a preflight from another origin, for another method or header', async () => {
    const other = await t.request('OPTIONS', '/', {
      auth: false,
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const header = await t.request('OPTIONS', '/', {
      auth: false,
      headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-nope' },
    });
    assert.equal(header.headers.get('access-control-allow-origin'), null);
    const method = await t.request('OPTIONS', '/', {
      auth: false,
      headers: { origin: APP, 'access-control-request-method': 'PATCH' },
    });
    assert.equal(method.headers.get('access-control-allow-origin'), null);
  });

  it('credentialed requests: a cookie login and use from the allowed origin, errors readable too', async () => {
    const loginReply = await t.request('POST', '/_session', {
      auth: false,
      headers: { origin: APP },
      body: { name: 'web', password: 'pw' },
    });
    assert.equal(loginReply.status, 200);
    assert.equal(loginReply.headers.get('access-control-allow-origin'), APP);
    assert.equal(loginReply.headers.get('access-control-allow-credentials'), 'true');
    assert.match(loginReply.headers.get('access-control-expose-headers')!, /etag/);
    const cookie = cookieValue(loginReply.headers.get('set-cookie'));
    const write = await t.request('PUT', '/shared/doc', {
      auth: false,
      headers: { origin: APP, cookie: `AuthSession=${cookie}` },
      body: { a: 1 },
    });
    assert.equal(write.status, 201);
    assert.equal(write.headers.get('access-control-allow-origin'), APP);
    const denied = await t.request('GET', '/shared', { auth: false, headers: { origin: APP } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), APP);
    const foreign = await t.request('GET', '/', { auth: false, headers: { origin: 'http://evil.example' } });
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });
});

describe('CORS with origins *', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ settings: { cors: { origins: '*' } } });
  });
  after(() => t.close());

  it('any origin, answered with * (no credentials)', async () => {
    const r = await t.request('GET', '/', { auth: false, headers: { origin: 'http://any.example' } });
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.equal(r.headers.get('access-control-allow-credentials'), null);
  });
});

describe('CORS off (the default)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('no CORS headers, and OPTIONS is a 405 as before', async () => {
    const r = await t.request('OPTIONS', '/', {
      auth: false,
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    assert.equal(r.status, 405);
  });
});

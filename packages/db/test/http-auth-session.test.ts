import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeCookie } from '../src/auth/cookie.js';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { basic, cookieValue, createUser, forgeCookie, login, withCookie } from './support/users.js';

const INCORRECT = { error: 'unauthorized', reason: 'Name or password is incorrect.' };
const COOKIE_FORMAT =
  /^AuthSession=([A-Za-z0-9_-]+); Version=1; Expires=\w{3}, \d{2}-\w{3}-\d{4} \d{2}:\d{2}:\d{2} GMT; Max-Age=600; Path=\/; HttpOnly$/;
const CLEARING = /^AuthSession=; Version=1; Expires=.* GMT; Max-Age=600; Path=\/; HttpOnly$/;

describe('cookie sessions (/_session)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'alice', 'wonder land:1');
    await createUser(t, 'bob', 'builder', ['reader']);
  });
  after(() => t.close());

  it('POST JSON logs in: 200 {ok,name,roles} and the AuthSession cookie in CouchDB format', async () => {
    const r = await t.request('POST', '/_session', { auth: false, body: { name: 'bob', password: 'builder' } });
    assert.deepEqual([r.status, r.json], [200, { ok: true, name: 'bob', roles: ['reader'] }]);
    const header = r.headers.get('set-cookie')!;
    assert.match(header, COOKIE_FORMAT);
    const raw = Buffer.from(cookieValue(header), 'base64url');
    assert.match(raw.subarray(0, 13).toString(), /^bob:[0-9A-F]+:$/);
    assert.equal(raw.length - raw.indexOf(':', 4) - 1, 32, 'a raw SHA-256 HMAC');
  });

  it('the cookie authenticates: GET /_session says who and how', async () => {
    const cookie = await login(t, 'alice', 'wonder land:1');
    const r = await t.request('GET', '/_session', withCookie(cookie));
    assert.deepEqual(r.json, {
      ok: true,
      userCtx: { name: 'alice', roles: [] },
      info: { authentication_handlers: ['cookie', 'default'], authenticated: 'cookie' },
    });
    const viaBasic = await t.request('GET', '/_session', { auth: basic('bob', 'builder') });
    assert.equal(viaBasic.json.info.authenticated, 'default');
    const anon = await t.request('GET', '/_session', { auth: false });
    assert.deepEqual(anon.json, {
      ok: true,
      userCtx: { name: null, roles: [] },
      info: { authentication_handlers: ['cookie', 'default'] },
    });
  });

  it('form bodies with username, percent-encoded passwords', async () => {
    const r = await t.request('POST', '/_session', {
      auth: false,
      body: `username=alice&password=${encodeURIComponent('wonder land:1')}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    assert.deepEqual([r.status, r.json], [200, { ok: true, name: 'alice', roles: [] }]);
  });

  it('a wrong password: 401 and a clearing cookie; ?fail= redirects', async () => {
    const r = await t.request('POST', '/_session', { auth: false, body: { name: 'alice', password: 'nope' } });
    assert.deepEqual([r.status, r.json], [401, INCORRECT]);
    assert.match(r.headers.get('set-cookie')!, CLEARING);
    const unknown = await t.request('POST', '/_session', { auth: false, body: { name: 'nobody', password: 'x' } });
    assert.deepEqual([unknown.status, unknown.json], [401, INCORRECT]);
    const failed = await t.request('POST', '/_session?fail=/nope', {
      auth: false,
      body: { name: 'alice', password: 'nope' },
    });
    assert.equal(failed.status, 302);
    assert.equal(failed.headers.get('location'), `${t.url}/nope`);
  });

  it('?next= redirects a login to this server, verbatim', async () => {
    const r = await t.request('POST', '/_session?next=/_utils/%23/x%3Fy%3D1', {
      auth: false,
      body: { name: 'bob', password: 'builder' },
    });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), `${t.url}/_utils/#/x?y=1`);
    assert.match(r.headers.get('set-cookie')!, COOKIE_FORMAT);
  });

  it('request errors: content type, usernames', async () => {
    const text = await t.request('POST', '/_session', {
      auth: false,
      body: 'name=a',
      headers: { 'content-type': 'text/plain' },
    });
    assert.deepEqual([text.status, text.json.error], [415, 'bad_content_type']);
    assert.equal(text.json.reason, "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'");
    const two = await t.request('POST', '/_session', { auth: false, body: { name: 'a', username: 'b', password: '' } });
    assert.deepEqual([two.status, two.json.reason], [400, 'request body contains different usernames']);
    const none = await t.request('POST', '/_session', { auth: false, body: { password: '' } });
    assert.deepEqual([none.status, none.json.reason], [400, 'request body must contain a username']);
    const put = await t.request('PUT', '/_session');
    assert.deepEqual([put.status, put.headers.get('allow')], [405, 'GET,HEAD,POST,DELETE']);
  });

  it('DELETE logs out: 200 and a clearing cookie (the old value stays valid until it expires)', async () => {
    const cookie = await login(t, 'bob', 'builder');
    const r = await t.request('DELETE', '/_session', withCookie(cookie));
    assert.deepEqual([r.status, r.json], [200, { ok: true }]);
    assert.match(r.headers.get('set-cookie')!, CLEARING);
    assert.equal((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, 'bob');
  });

  it('the server admin logs in too', async () => {
    const cookie = await login(t, ADMIN.name, ADMIN.password);
    const r = await t.request('GET', '/_all_dbs', withCookie(cookie));
    assert.equal(r.status, 200);
  });

  it('?basic=true asks anonymous callers to log in', async () => {
    const r = await t.request('GET', '/_session?basic=true', { auth: false });
    assert.deepEqual([r.status, r.json], [401, { error: 'unauthorized', reason: 'Please login.' }]);
    assert.equal(r.headers.get('www-authenticate'), null);
  });

  it('a malformed cookie is a 400 even with good Basic credentials', async () => {
    const value = Buffer.from('alice:123').toString('base64url');
    const r = await t.request('GET', '/_session', {
      auth: basic('bob', 'builder'),
      headers: { cookie: `AuthSession=${value}` },
    });
    assert.deepEqual(
      [r.status, r.json],
      [400, { error: 'bad_request', reason: 'Malformed AuthSession cookie. Please clear your cookies.' }],
    );
  });

  it('forged, expired or stale cookies are ignored (anonymous, or the Basic user)', async () => {
    const forged = encodeCookie('alice', Math.floor(Date.now() / 1000), 'not-the-secret', 'x');
    assert.equal((await t.request('GET', '/_session', withCookie(forged))).json.userCtx.name, null);
    const expired = await forgeCookie(t, 'alice', 610);
    assert.equal((await t.request('GET', '/_session', withCookie(expired))).json.userCtx.name, null);
    const fine = await forgeCookie(t, 'alice', 590);
    assert.equal((await t.request('GET', '/_session', withCookie(fine))).json.userCtx.name, 'alice');
    const withBasic = await t.request('GET', '/_session', {
      auth: basic('bob', 'builder'),
      headers: { cookie: `AuthSession=${expired}` },
    });
    assert.equal(withBasic.json.userCtx.name, 'bob');
    // A valid cookie wins over Basic credentials, even wrong ones: they are not examined.
    const both = await t.request('GET', '/_session', {
      auth: basic('nobody', 'x'),
      headers: { cookie: `AuthSession=${fine}` },
    });
    assert.deepEqual([both.status, both.json.userCtx.name], [200, 'alice']);
  });

  it('a cookie past a tenth of its life is refreshed on any response', async () => {
    const young = await forgeCookie(t, 'alice', 45);
    assert.equal((await t.request('GET', '/_session', withCookie(young))).headers.get('set-cookie'), null);
    const old = await forgeCookie(t, 'alice', 75);
    const r = await t.request('GET', '/', withCookie(old));
    const fresh = cookieValue(r.headers.get('set-cookie'));
    assert.match(r.headers.get('set-cookie')!, COOKIE_FORMAT);
    const time = Buffer.from(fresh, 'base64url').toString('latin1').split(':')[1]!;
    assert.ok(Math.abs(Number.parseInt(time, 16) - Date.now() / 1000) < 5);
  });

  it('a password change voids earlier cookies; a deleted user is anonymous', async () => {
    await createUser(t, 'carol', 'one');
    const cookie = await login(t, 'carol', 'one');
    await createUser(t, 'carol', 'two');
    assert.equal((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, null);
    assert.equal((await t.request('GET', '/_session', { auth: basic('carol', 'one') })).status, 401);
    const again = await login(t, 'carol', 'two');
    const doc = await t.request('GET', '/_users/org.couchdb.user:carol');
    assert.equal((await t.request('DELETE', `/_users/org.couchdb.user:carol?rev=${doc.json._rev}`)).status, 200);
    assert.equal((await t.request('GET', '/_session', withCookie(again))).json.userCtx.name, null);
    assert.deepEqual((await t.request('GET', '/', { auth: basic('carol', 'two') })).json, INCORRECT);
  });

  it('the secret is the stored server value (every node on one storage signs alike)', async () => {
    const secret = await t.server.couch.storage.getServerValue('session-secret');
    assert.match(secret!.trim(), /^[0-9a-f]{32}$/);
    const cookie = await forgeCookie(t, 'bob', 0);
    assert.equal((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, 'bob');
  });
});

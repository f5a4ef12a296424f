import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import routes from '../src/http/routes.js';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

describe('per-database _security', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'eve', 'e');
    await createUser(t, 'mem', 'm');
    await t.request('PUT', '/locked');
    await t.request('PUT', '/locked/seed', { body: { secret: 1 } });
    await t.request('PUT', '/locked/_design/app', {
      body: { views: { all: { map: 'function (d) { emit(d._id) }' } } },
    });
  });
  after(() => t.close());

  it('a new database has the admin-only default; GET _security answers the object as stored', async () => {
    await t.request('PUT', '/sec1');
    assert.deepEqual((await t.request('GET', '/sec1/_security')).json, {
      members: { roles: ['_admin'] },
      admins: { roles: ['_admin'] },
    });
    const odd = { members: { names: ['mem'] }, readers: { names: ['x'] }, extra: { any: [1, 2] } };
    assert.equal((await t.request('PUT', '/sec1/_security', { body: odd })).status, 200);
    assert.deepEqual((await t.request('GET', '/sec1/_security', { auth: basic('mem', 'm') })).json, odd);
  });

  it('a malformed security object is a 400 and leaves the stored one alone', async () => {
    await t.request('PUT', '/sec2');
    const good = { admins: { names: ['a'] }, members: { roles: ['r'] } };
    await t.request('PUT', '/sec2/_security', { body: good });
    for (const bad of [
      [],
      null,
      'x',
      { admins: [] },
      { members: { names: 'x' } },
      { admins: { roles: [1] } },
      { members: 'all' },
    ]) {
      const r = await t.request('PUT', '/sec2/_security', { body: JSON.stringify(bad) });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
    const invalid = await t.request('PUT', '/sec2/_security', { body: '{"admins":' });
    assert.deepEqual([invalid.status, invalid.json.reason], [400, 'invalid UTF-8 JSON']);
    assert.deepEqual((await t.request('GET', '/sec2/_security')).json, good);
  });

  it("_replicator's feeds are for server admins, whatever its _security says", async () => {
    await t.request('PUT', '/_replicator');
    await t.request('PUT', '/_replicator/_security', { body: { members: { names: [] } } });
    assert.equal((await t.request('GET', '/_replicator', { auth: basic('eve', 'e') })).status, 200);
    for (const feed of ['/_replicator/_all_docs', '/_replicator/_changes']) {
      const r = await t.request('GET', feed, { auth: basic('eve', 'e') });
      assert.deepEqual([r.status, r.json.reason], [401, 'You are not a server admin.']);
    }
  });

  it('a missing database is a 404 whoever asks', async () => {
    for (const auth of [false as const, basic('eve', 'e')]) {
      const r = await t.request('GET', '/nosuchdb/_security', { auth });
      assert.deepEqual([r.status, r.json.reason], [404, 'Database does not exist.']);
    }
  });

  it('a browser asking for HTML is redirected to the login page; 403s never are', async () => {
    const r = await t.request('GET', '/locked/seed?x=1', { auth: false, headers: { accept: 'text/html' } });
    assert.equal(r.status, 302);
    assert.equal(
      r.headers.get('location'),
      `${t.url}/_utils/session.html?return=%2Flocked%2Fseed&reason=You%20are%20not%20authorized%20to%20access%20this%20db.`,
    );
    const both = await t.request('GET', '/locked/seed', {
      auth: false,
      headers: { accept: 'text/html,application/json' },
    });
    assert.equal(both.status, 401);
    const eve = await t.request('GET', '/locked/seed', { auth: basic('eve', 'e'), headers: { accept: 'text/html' } });
    assert.equal(eve.status, 403);
  });

  it('WWW-Authenticate only when the request asks for it, only on 401s', async () => {
    const plain = await t.request('GET', '/locked', { auth: false });
    assert.equal(plain.headers.get('www-authenticate'), null);
    const asked = await t.request('GET', '/locked', {
      auth: false,
      headers: { 'x-couchdb-www-authenticate': 'Cookie' },
    });
    assert.equal(asked.headers.get('www-authenticate'), 'Cookie');
    const eve = await t.request('GET', '/locked', {
      auth: basic('eve', 'e'),
      headers: { 'x-couchdb-www-authenticate': 'Cookie' },
    });
    assert.deepEqual([eve.status, eve.headers.get('www-authenticate')], [403, null]);
  });

  it('every route of routes.ts refuses anonymous callers and signed-in non-members', async () => {
    const PUBLIC = new Set([
      'server#welcome',
      'server#up',
      'server#uuids',
      'session#show',
      'session#create',
      'session#destroy',
      // Fauxton's files: the app is public, as CouchDB serves it; its login is a session.
      'fauxton#index',
      'fauxton#file',
      // Pure functions of the text they are given (CouchDB's dreyfus_httpd and nouveau_httpd check
      // no rights either).
      'search#analyze',
      'nouveau#analyze',
    ]);
    // Any signed-in user, as in CouchDB 3: a replication runs with its user's own rights
    // (test/http-replicate.test.ts checks what a non-admin's job may not do). Anonymous: 401.
    const SIGNED_IN = new Set(['scheduler#replicate']);
    const fill = (path: string) =>
      path
        .replace(':node', '_local')
        .replace(':db', 'locked')
        .replace(':docid', 'app')
        .replace(':view', 'all')
        .replace(':ddoc', 'app')
        .replace(':type', 'json')
        .replace(':name', 'x')
        .replace('*attachment', 'a.txt')
        .replace('*rest', 'x')
        .replace(/\(\.:format\)$/, '');
    const leaks: string[] = [];
    let checked = 0;
    for (const route of routes.list()) {
      const action = `${route.handler}#${route.action}`;
      if (route.handler === 'errors' || PUBLIC.has(action)) continue;
      const verbs = route.verb === '' ? ['GET'] : route.verb.split('|');
      for (const verb of verbs) {
        for (const auth of SIGNED_IN.has(action) ? [false as const] : [false as const, basic('eve', 'e')]) {
          const path = fill(route.path);
          const body = ['POST', 'PUT'].includes(verb) ? {} : undefined;
          const r = await t.request(verb, path, { auth, ...(body === undefined ? {} : { body }) });
          checked++;
          if (r.status !== 401 && r.status !== 403)
            leaks.push(
              `${verb} ${path} (${action}) as ${auth ? 'eve' : 'anonymous'}: ${r.status} ${r.text.slice(0, 120)}`,
            );
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} requests`);
    assert.deepEqual(leaks, []);
  });
});

/**
 * Reserved names answered for themselves: full-text search and unknown design document
 * endpoints name what was asked for (never a missing attachment), reserved endpoints authorize
 * before they say they are not there, and every method gets an HTTP answer (CONNECT, unknown ones).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AUTH, startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

/** Sends `text` on a fresh connection and gives back all the server answered. */
function rawExchange(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(text);
    setTimeout(() => socket.end(), 1000);
  });
}

describe('reserved names and unusual requests', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/rdb');
    await t.request('PUT', '/rdb/_design/d', { body: { views: {} } });
    await createUser(t, 'ria', 'pw');
    await t.request('PUT', '/rdb/_security', { body: { members: { names: ['ria'] } } });
  });
  after(() => t.close());

  it('_search and _nouveau look for the index (http-search, http-nouveau); bare, they name the endpoint', async () => {
    for (const fn of ['_search', '_search_info']) {
      const r = await t.request('GET', `/rdb/_design/d/${fn}/idx?q=x:1`);
      assert.deepEqual([r.status, r.json.error], [404, 'not_found'], fn);
      assert.match(r.json.reason, /Search index idx not found in design document _design\/d/);
      const bare = await t.request('GET', `/rdb/_design/d/${fn}`);
      assert.deepEqual([bare.status, bare.json.error], [404, 'not_found'], fn);
      assert.ok(bare.json.reason.includes(`\`${fn}\``), bare.json.reason);
    }
    for (const fn of ['_nouveau', '_nouveau_info']) {
      const r = await t.request('GET', `/rdb/_design/d/${fn}/idx?q=x:1`);
      assert.deepEqual([r.status, r.json], [404, { error: 'not_found', reason: 'idx not found.' }], fn);
      const bare = await t.request('GET', `/rdb/_design/d/${fn}`);
      assert.deepEqual([bare.status, bare.json.error], [404, 'not_found'], fn);
      assert.ok(bare.json.reason.includes(`\`${fn}\``), bare.json.reason);
    }
    const cleanup = await t.request('POST', '/rdb/_nouveau_cleanup', { body: {} });
    assert.deepEqual([cleanup.status, cleanup.json], [202, { ok: true }]);
    const searchCleanup = await t.request('POST', '/rdb/_search_cleanup', { body: {} });
    assert.deepEqual([searchCleanup.status, searchCleanup.json], [202, { ok: true }]);
  });

  it('an unknown design document endpoint is a 404 naming it, never a missing attachment', async () => {
    for (const path of ['/rdb/_design/d/_bogus', '/rdb/_design/d/_bogus/more']) {
      const r = await t.request('GET', path);
      assert.deepEqual(r.json, { error: 'not_found', reason: '`_bogus` is not an endpoint of a design document.' });
      assert.equal(r.status, 404);
    }
    const put = await t.request('PUT', '/rdb/_design/d/_bogus', {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.deepEqual(
      [put.status, put.json.reason],
      [400, "Attachment name '_bogus' starts with prohibited character '_'"],
    );
    const show = await t.request('GET', '/rdb/_design/d/_show');
    assert.deepEqual([show.status, show.json.error], [501, 'not_implemented']);
    // The design document is opened first, as CouchDB does.
    const missing = await t.request('GET', '/rdb/_design/none/_search/idx');
    assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'missing' }]);
    // Attachments of design documents are still attachments.
    const att = await t.request('GET', '/rdb/_design/d/file.txt');
    assert.deepEqual([att.status, att.json.reason], [404, 'Document is missing attachment']);
  });

  it('the database is authorized before any of that is said', async () => {
    const anon = await t.request('GET', '/rdb/_design/d/_search/idx', { auth: false });
    assert.equal(anon.status, 401);
    const member = await t.request('GET', '/rdb/_design/d/_nouveau/idx', { auth: basic('ria', 'pw') });
    assert.equal(member.status, 404);
    // A member may search: authorized, then told the index is not there.
    const search = await t.request('GET', '/rdb/_design/d/_search/idx?q=x', { auth: basic('ria', 'pw') });
    assert.equal(search.status, 404);
    assert.equal((await t.request('GET', '/rdb/_shards', { auth: false })).status, 401);
    assert.equal((await t.request('GET', '/rdb/_partition/p/_all_docs', { auth: false })).status, 401);
    assert.equal((await t.request('GET', '/nodb/_partition/p/_all_docs')).status, 404);
    assert.equal((await t.request('GET', '/rdb/_shards', { auth: basic('ria', 'pw') })).status, 501);
    const sync = await t.request('POST', '/rdb/_sync_shards', { auth: basic('ria', 'pw') });
    assert.deepEqual([sync.status, sync.json.reason], [401, 'You are not a server admin.']);
    const cleanup = await t.request('POST', '/rdb/_search_cleanup', { auth: basic('ria', 'pw'), body: {} });
    assert.equal(cleanup.status, 403);
  });

  it('server admin endpoints answer 401 to anonymous callers before saying they are not there', async () => {
    for (const path of ['/_reshard', '/_reshard/jobs', '/_reload_query_servers', '/_db_updates']) {
      const anon = await t.request('GET', path, { auth: false });
      assert.deepEqual([anon.status, anon.json.error], [401, 'unauthorized'], path);
      const user = await t.request('GET', path, { auth: basic('ria', 'pw') });
      assert.equal(user.status, 401, path);
    }
    const reshard = await t.request('GET', '/_reshard');
    assert.deepEqual([reshard.status, reshard.json.error], [501, 'not_implemented']);
  });

  it("server paths are authorized before their verb (CouchDB's chttpd_auth_request), open ones answer their 405", async () => {
    await createUser(t, 'meter', 'pw', ['_metrics']);
    const ria = { auth: basic('ria', 'pw') };
    const notAdmin = { error: 'unauthorized', reason: 'You are not a server admin.' };
    // [verb, path, what a server admin gets]: anyone else gets the 401 first, whatever the verb.
    const adminOnly: [string, string, number][] = [
      ['POST', '/_db_updates', 405],
      ['PUT', '/_all_dbs', 405],
      ['DELETE', '/_dbs_info', 405],
      ['POST', '/_membership', 405],
      ['DELETE', '/_cluster_setup', 405],
      ['POST', '/_scheduler/jobs', 405],
      ['PUT', '/_scheduler/docs', 405],
      ['GET', '/_search_analyze', 405],
      ['GET', '/_nouveau_analyze', 405],
      ['POST', '/_utils', 405],
      ['PUT', '/_utils/index.html', 405],
      ['GET', '/_node/_local/_restart', 405],
      ['GET', '/_node/_local/_config/_reload', 405],
      ['POST', '/_node/_local/_versions', 405],
      ['DELETE', '/_node/_local/_smoosh/status', 405],
      ['POST', '/_node/_local/_all_dbs', 405],
      ['GET', '/_config', 404],
      ['GET', '/_nothing', 404],
      ['GET', '/_node/_local/_nothing', 400],
    ];
    for (const [verb, path, forAdmin] of adminOnly) {
      const body = verb === 'POST' || verb === 'PUT' ? { body: {} } : {};
      const anon = await t.request(verb, path, { auth: false, ...body });
      assert.deepEqual([anon.status, anon.json], [401, notAdmin], `anonymous ${verb} ${path}`);
      const user = await t.request(verb, path, { ...ria, ...body });
      assert.deepEqual([user.status, user.json], [401, notAdmin], `ria ${verb} ${path}`);
      assert.equal((await t.request(verb, path, body)).status, forAdmin, `admin ${verb} ${path}`);
    }
    // The metrics endpoints are the _metrics role's too: it gets their 405, the others the 401.
    const metricsOnly = { error: 'unauthorized', reason: 'You are not a server admin or read-only metrics user' };
    for (const path of ['/_node/_local/_stats', '/_node/_local/_system', '/_node/_local/_prometheus']) {
      const anon = await t.request('POST', path, { auth: false, body: {} });
      assert.deepEqual([anon.status, anon.json], [401, metricsOnly], path);
      assert.equal((await t.request('POST', path, { auth: basic('meter', 'pw'), body: {} })).status, 405, path);
    }
    // Open paths leave the verb to their endpoint: anyone gets its 405.
    const open: [string, string][] = [
      ['POST', '/'],
      ['POST', '/_up'],
      ['POST', '/_uuids'],
      ['PUT', '/_session'],
      ['GET', '/_replicate'],
      ['POST', '/_active_tasks'],
    ];
    for (const [verb, path] of open) {
      const anon = await t.request(verb, path, { auth: false, ...(verb === 'GET' ? {} : { body: {} }) });
      assert.deepEqual([anon.status, anon.json.error], [405, 'method_not_allowed'], `${verb} ${path}`);
    }
    assert.equal((await t.request('GET', '/_utils/', { auth: false })).status, 200);
    assert.equal((await t.request('GET', '/_up', { auth: false })).status, 200);
    // The users and replicator databases are databases: their `_security` answers (a 403 for a
    // signed-in caller who is no member) or their absence, not the server paths' 401.
    const users = await t.request('GET', '/_users/org.couchdb.user:ria', ria);
    assert.deepEqual([users.status, users.json.error], [403, 'forbidden']);
    const replicator = await t.request('GET', '/_replicator/x', ria);
    assert.deepEqual([replicator.status, replicator.json.error], [404, 'not_found']);
  });

  it('CONNECT gets the endpoint’s 405, an unknown method a 405, both as HTTP answers', async () => {
    const connectDb = await rawExchange(t.url, `CONNECT /rdb HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\n\r\n`);
    assert.match(connectDb, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.match(connectDb, /\r\nAllow: DELETE,GET,HEAD,POST\r\n/);
    assert.ok(connectDb.endsWith('{"error":"method_not_allowed","reason":"Only DELETE,GET,HEAD,POST allowed"}\n'));
    const connectHost = await rawExchange(t.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n');
    assert.match(connectHost, /^HTTP\/1\.1 405 /);
    const unknown = await rawExchange(t.url, 'BREW /rdb HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(unknown, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.match(unknown, /"error":"method_not_allowed"/);
    // A request node:http cannot parse at all is still a 400.
    const garbage = await rawExchange(t.url, 'GET / HTTP/1.1\r\nBad Header\r\n\r\n');
    assert.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/);
    // The server goes on.
    assert.equal((await t.request('GET', '/')).status, 200);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';
import { basic, createUser, login, withCookie } from './support/users.js';

/** Users and security on two nodes of one PostgreSQL: one server to every client. */
describe('users and security across two nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  twoNodesOnPostgres('authnodes', (nodes) => ({ a, b } = nodes));

  it('both nodes sign with the one stored secret: a cookie from one works on the other', async () => {
    await createUser(a, 'nina', 'pw');
    assert.equal((await b.request('GET', '/_session', { auth: basic('nina', 'pw') })).json.userCtx.name, 'nina');
    const cookie = await login(a, 'nina', 'pw');
    assert.equal((await b.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, 'nina');
    // A password change through the other node voids it on both.
    await createUser(b, 'nina', 'new');
    assert.equal((await a.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, null);
  });

  it('_security and validate functions set through one node apply on the other at once', async () => {
    await a.request('PUT', '/team');
    await createUser(a, 'tom', 't');
    assert.equal((await b.request('GET', '/team', { auth: basic('tom', 't') })).status, 403);
    await a.request('PUT', '/team/_security', { body: { members: { names: ['tom'] } } });
    assert.equal((await b.request('GET', '/team', { auth: basic('tom', 't') })).status, 200);
    // b has looked the design documents up for writes of its own (it keeps what it read).
    for (const id of ['before1', 'before2']) {
      assert.equal(
        (await b.request('PUT', `/team/${id}`, { auth: basic('tom', 't'), body: { no: true } })).status,
        201,
      );
    }
    await a.request('PUT', '/team/_design/v', {
      body: { validate_doc_update: `function (d) { if (d.no) throw({ forbidden: 'no' }); }` },
    });
    const refused = await b.request('PUT', '/team/x', { auth: basic('tom', 't'), body: { no: true } });
    assert.deepEqual([refused.status, refused.json.reason], [403, 'no']);
  });

  it('config changes reach the other node when it re-reads the stored config', async () => {
    const origin = 'http://page.example';
    await a.request('PUT', '/_node/_local/_config/cors/origins', { body: JSON.stringify(origin) });
    await a.request('PUT', '/_node/_local/_config/chttpd/enable_cors', { body: '"true"' });
    await b.server.couch.watchConfig(); // what its 5-second timer does
    const r = await b.request('GET', '/', { auth: false, headers: { origin } });
    assert.equal(r.headers.get('access-control-allow-origin'), origin);
  });

  it('an admin added or removed through one node is one on the other after its next re-read', async () => {
    assert.equal((await a.request('PUT', '/_node/_local/_config/admins/ops', { body: '"pw2"' })).status, 200);
    await b.server.couch.watchConfig();
    assert.equal((await b.request('GET', '/_all_dbs', { auth: basic('ops', 'pw2') })).status, 200);
    assert.equal((await a.request('DELETE', '/_node/_local/_config/admins/ops')).status, 200);
    await b.server.couch.watchConfig();
    assert.equal((await b.request('GET', '/_all_dbs', { auth: basic('ops', 'pw2') })).status, 401);
  });
});

/**
 * Per-document access (#30) for users whose roles come with each request (a JWT's
 * `_couchdb.roles`, a proxy's `X-Auth-CouchDB-Roles`) rather than from a `_users` document: a
 * role first seen on a request back-fills its older documents into the user's feed then (from
 * the client's checkpoint), a role no longer given reports its documents as removed with
 * `removed=true`, and such a user's feed takes the request's roles even when an account of the
 * same name in `_users` holds others (reads and the feed agree).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const HMAC_SECRET = Buffer.from('a shared hmac secret for the access tests');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An HS256 token for `sub` holding `roles`. */
function bearer(sub: string, roles: string[]): { auth: string } {
  const claims = { sub, exp: Math.floor(Date.now() / 1000) + 600, '_couchdb.roles': roles };
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return { auth: `Bearer ${head}.${createHmac('sha256', HMAC_SECRET).update(head).digest('base64url')}` };
}
/** What a proxy in front of the server sends for `name` holding `roles`. */
const proxied = (name: string, roles: string[]) => ({
  auth: false as const,
  headers: { 'X-Auth-CouchDB-UserName': name, 'X-Auth-CouchDB-Roles': roles.join(',') },
});
const HANDLERS =
  '{chttpd_auth, jwt_authentication_handler}, {chttpd_auth, cookie_authentication_handler}, {chttpd_auth, proxy_authentication_handler}, {chttpd_auth, default_authentication_handler}';
const USERS_MEMBERS = { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } };

describe('per-document access: roles that come with the request (JWT, proxy)', () => {
  let t: TestServer;
  let n = 0;
  const accessDb = async (): Promise<string> => {
    const name = `rr${++n}`;
    assert.equal((await t.request('PUT', `/${name}?access=true`)).status, 201);
    assert.equal((await t.request('PUT', `/${name}/_security`, { body: USERS_MEMBERS })).status, 200);
    return name;
  };
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

  before(async () => {
    t = await startTestServer({ settings: { jwt: { keys: { 'hmac:_default': HMAC_SECRET.toString('base64') } } } });
    const handlers = await t.request('PUT', '/_node/_local/_config/chttpd/authentication_handlers', {
      body: JSON.stringify(HANDLERS),
    });
    assert.equal(handlers.status, 200);
  });
  after(() => t.close());

  for (const [how, as] of [
    ['a JWT', bearer],
    ['a proxy', proxied],
  ] as const) {
    it(`${how}: a role first seen on a request back-fills its older documents; one no longer given is reported removed`, async () => {
      const db = await accessDb();
      const user = `jay${n}`;
      const session = await t.request('GET', '/_session', as(user, []));
      assert.equal(session.json.userCtx.name, user, session.text);
      await t.request('PUT', `/${db}/own`, { ...as(user, []), body: { _access: [user] } });
      for (const id of ['t1', 't2']) await t.request('PUT', `/${db}/${id}`, { body: { _access: ['team'] } });
      await t.request('PUT', `/${db}/other`, { body: { _access: ['bob'] } });
      const synced = await t.request('GET', `/${db}/_changes`, as(user, []));
      assert.equal(synced.status, 200, synced.text);
      assert.deepEqual(ids(synced.json.results), ['own']);
      // The next token (or proxy header) gives the role: resuming from the checkpoint brings its documents.
      const gained = await t.request('GET', `/${db}/_changes?since=${synced.json.last_seq}`, as(user, ['team']));
      assert.deepEqual(ids(gained.json.results), ['t1', 't2']);
      const again = await t.request('GET', `/${db}/_changes?since=${gained.json.last_seq}`, as(user, ['team']));
      assert.deepEqual(again.json.results, []);
      // Without the role again: with removed=true its documents are reported, so a client purges them.
      const lost = await t.request('GET', `/${db}/_changes?since=${gained.json.last_seq}&removed=true`, as(user, []));
      assert.deepEqual(
        lost.json.results.map((row: { id: string; changes: unknown[]; removed?: boolean }) => [
          row.id,
          row.changes,
          row.removed,
        ]),
        [
          ['t1', [], true],
          ['t2', [], true],
        ],
      );
      assert.equal((await t.request('GET', `/${db}/t1`, as(user, []))).status, 404);
      // The plain feed just leaves them out.
      const plain = await t.request('GET', `/${db}/_changes?since=${gained.json.last_seq}`, as(user, []));
      assert.deepEqual(plain.json.results, []);
    });
  }

  it("a JWT user's feed takes the token's roles, not those of a _users account of the same name", async () => {
    const db = await accessDb();
    await createUser(t, 'kim', 'k', ['crew']);
    await t.request('PUT', `/${db}/c1`, { body: { _access: ['crew'] } });
    await t.request('PUT', `/${db}/t1`, { body: { _access: ['team'] } });
    const byToken = await t.request('GET', `/${db}/_changes`, bearer('kim', ['team']));
    assert.deepEqual(ids(byToken.json.results), ['t1']);
    assert.equal((await t.request('GET', `/${db}/c1`, bearer('kim', ['team']))).status, 404);
    const byPassword = await t.request('GET', `/${db}/_changes`, { auth: basic('kim', 'k') });
    assert.deepEqual(ids(byPassword.json.results), ['c1']);
  });
});

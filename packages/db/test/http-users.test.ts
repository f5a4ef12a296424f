import assert from 'node:assert/strict';
import { createHash, pbkdf2Sync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser, login, withCookie } from './support/users.js';

const forbidden = (reason: string) => ({ error: 'forbidden', reason });
const uid = (name: string) => `org.couchdb.user:${name}`;
const path = (name: string) => `/_users/${encodeURIComponent(uid(name))}`;

describe('_users (admin-only, as CouchDB 3 sets it up)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('exists from the first start with the admin-only security object', async () => {
    const r = await t.request('GET', '/_users/_security');
    assert.deepEqual(r.json, { members: { roles: ['_admin'] }, admins: { roles: ['_admin'] } });
  });

  it('a password is replaced by PBKDF2-SHA256 fields, in front of the other members', async () => {
    const r = await t.request('PUT', path('ann'), {
      body: { name: 'ann', password: 'pässwörd ✓', roles: [], type: 'user', extra: 1 },
    });
    assert.equal(r.status, 201);
    const doc = (await t.request('GET', path('ann'))).json;
    assert.deepEqual(Object.keys(doc), [
      '_id',
      '_rev',
      'password_scheme',
      'pbkdf2_prf',
      'salt',
      'iterations',
      'derived_key',
      'name',
      'roles',
      'type',
      'extra',
    ]);
    assert.equal(doc.password_scheme, 'pbkdf2');
    assert.equal(doc.pbkdf2_prf, 'sha256');
    assert.match(doc.salt, /^[0-9a-f]{32}$/);
    assert.equal(doc.iterations, 10); // the test servers' hashIterations
    assert.match(doc.derived_key, /^[0-9a-f]{64}$/);
    assert.ok(!('password' in doc));
    const me = await t.request('GET', '/_session', { auth: basic('ann', 'pässwörd ✓') });
    assert.deepEqual(me.json.userCtx, { name: 'ann', roles: [] });
  });

  it('preserve_salt keeps a given salt; the empty string is a password; null is stored as is', async () => {
    await t.request('PUT', path('sal'), {
      body: { name: 'sal', password: '', salt: 'given', preserve_salt: true, roles: [], type: 'user' },
    });
    const doc = (await t.request('GET', path('sal'))).json;
    assert.equal(doc.salt, 'given');
    assert.ok(!('preserve_salt' in doc));
    assert.equal((await t.request('GET', '/_session', { auth: basic('sal', '') })).json.userCtx.name, 'sal');
    await t.request('PUT', path('nul'), { body: { name: 'nul', password: null, roles: [], type: 'user' } });
    assert.equal((await t.request('GET', path('nul'))).json.password, null);
  });

  it("CouchDB's _users rules and messages, for the server admin too", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['x', { name: 'x', roles: [] }, 'doc.type must be user'],
      ['x', { type: 'user', roles: [] }, 'doc.name is required'],
      ['x', { type: 'user', name: 'x' }, 'doc.roles must exist'],
      ['x', { type: 'user', name: 'x', roles: 'r' }, 'doc.roles must be an array'],
      ['x', { type: 'user', name: 'x', roles: [1] }, 'doc.roles can only contain strings'],
      ['y', { type: 'user', name: 'x', roles: [] }, 'Doc ID must be of the form org.couchdb.user:name'],
      [
        'x',
        { type: 'user', name: 'x', roles: [], password_sha: 'ab' },
        'Users with password_sha must have a salt.See /_utils/script/couch.js for example code.',
      ],
      ['x', { type: 'user', name: 'x', roles: [], password_scheme: 'md5' }, 'Password scheme `md5` not supported.'],
      ['x', { type: 'user', name: 'x', roles: [], password: 123 }, "Password value of '123' is invalid."],
      ['x', { type: 'user', name: 'x', roles: ['_admin'] }, 'No system roles (starting with underscore) in users db.'],
      ['_x', { type: 'user', name: '_x', roles: [] }, 'Username may not start with underscore.'],
      ['a:b', { type: 'user', name: 'a:b', roles: [] }, 'Character `:` is not allowed in usernames.'],
    ];
    for (const [name, body, reason] of cases) {
      const r = await t.request('PUT', path(name), { body });
      assert.deepEqual([r.status, r.json], [403, forbidden(reason)], reason);
    }
    const metrics = await t.request('PUT', path('m'), { body: { type: 'user', name: 'm', roles: ['_metrics'] } });
    assert.equal(metrics.status, 201);
  });

  it('_bulk_docs: per-document rows, valid documents hashed', async () => {
    const r = await t.request('POST', '/_users/_bulk_docs', {
      body: {
        docs: [
          { _id: uid('b1'), name: 'b1', password: 'p', roles: [], type: 'user' },
          { _id: uid('b2'), name: 'b2', roles: [], type: 'nope' },
        ],
      },
    });
    assert.equal(r.status, 201);
    assert.equal(r.json[0].ok, true);
    assert.deepEqual(r.json[1], { id: uid('b2'), error: 'forbidden', reason: 'doc.type must be user' });
    assert.equal((await t.request('GET', path('b1'))).json.password_scheme, 'pbkdf2');
  });

  it('users cannot read or write it, even their own document; feeds are for server admins', async () => {
    await createUser(t, 'ulla', 'pw');
    const own = await t.request('GET', path('ulla'), { auth: basic('ulla', 'pw') });
    assert.deepEqual(
      [own.status, own.json],
      [403, { error: 'forbidden', reason: 'You are not allowed to access this db.' }],
    );
    const signup = await t.request('PUT', path('newbie'), {
      auth: false,
      body: { name: 'newbie', password: 'x', roles: [], type: 'user' },
    });
    assert.deepEqual(
      [signup.status, signup.json],
      [401, { error: 'unauthorized', reason: 'You are not authorized to access this db.' }],
    );
    for (const feed of ['/_users/_all_docs', '/_users/_changes']) {
      const r = await t.request('GET', feed, { auth: basic('ulla', 'pw') });
      assert.deepEqual([r.status, r.json], [401, { error: 'unauthorized', reason: 'You are not a server admin.' }]);
    }
  });

  it('its security object cannot be edited, not even by the server admin', async () => {
    const r = await t.request('PUT', '/_users/_security', { body: { members: { names: [] } } });
    assert.deepEqual([r.status, r.json], [403, forbidden("You can't edit the security object of the user database.")]);
  });

  it('the lockout covers _users accounts: 5 failures lock even the right password', async () => {
    await createUser(t, 'lock', 'right');
    for (let i = 0; i < 5; i++) {
      assert.equal((await t.request('GET', '/', { auth: basic('lock', 'wrong') })).status, 401);
    }
    const r = await t.request('GET', '/', { auth: basic('lock', 'right') });
    assert.deepEqual(
      [r.status, r.json],
      [403, forbidden('Account is temporarily locked due to multiple authentication failures')],
    );
    const viaSession = await t.request('POST', '/_session', { auth: false, body: { name: 'lock', password: 'right' } });
    assert.equal(viaSession.status, 403);
    // Counted per salt, as CouchDB does: a new password starts a new count.
    await createUser(t, 'lock', 'renewed');
    assert.equal((await t.request('GET', '/', { auth: basic('lock', 'renewed') })).status, 200);
  });

  it('a login over a weaker stored hash upgrades it, keeping the salt (and so the cookies)', async () => {
    const sha = createHash('sha1')
      .update('old-pw' + 'oldsalt')
      .digest('hex');
    await t.request('PUT', path('legacy'), {
      body: { name: 'legacy', roles: [], type: 'user', password_scheme: 'simple', salt: 'oldsalt', password_sha: sha },
    });
    const cookie = await login(t, 'legacy', 'old-pw');
    let doc: Record<string, unknown> = {};
    for (let i = 0; i < 50 && doc.password_scheme !== 'pbkdf2'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      doc = (await t.request('GET', path('legacy'))).json;
    }
    assert.equal(doc.password_scheme, 'pbkdf2');
    assert.equal(doc.pbkdf2_prf, 'sha256');
    assert.equal(doc.salt, 'oldsalt');
    assert.ok(!('password_sha' in doc));
    assert.equal((await t.request('GET', '/', { auth: basic('legacy', 'old-pw') })).status, 200);
    assert.equal((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.name, 'legacy');
    const pbkdf2Sha1 = await t.request('PUT', path('sha1user'), {
      body: {
        name: 'sha1user',
        roles: [],
        type: 'user',
        password_scheme: 'pbkdf2',
        salt: 's',
        iterations: 5,
        derived_key: pbkdf2Sync('pw', 's', 5, 20, 'sha1').toString('hex'),
      },
    });
    assert.equal(pbkdf2Sha1.status, 201);
    assert.equal((await t.request('GET', '/', { auth: basic('sha1user', 'pw') })).status, 200);
  });

  it('a first login hashes off the event loop: other requests are answered while its hash runs', async () => {
    // Half a million rounds: about a second of one core. Were the hash on the event loop, no other
    // request could be answered before the login's answer; off it, several are. (How long GET /_up
    // takes during a hundred first logins is `npm run bench -w @divan/db -- --suite auth`: a timed
    // bound here failed at random on a shared machine.)
    const ITERATIONS = 500_000;
    const s = await startTestServer({ settings: { hashIterations: ITERATIONS } });
    try {
      await createUser(s, 'slowhash', 'pw');
      let loggedIn = false;
      const login = s.request('POST', '/_session', { auth: false, body: { name: 'slowhash', password: 'pw' } });
      void login.then(() => {
        loggedIn = true;
      });
      let answeredMeanwhile = 0;
      for (let i = 0; i < 3; i++) {
        assert.equal((await s.request('GET', '/_up', { auth: false })).status, 200);
        if (!loggedIn) answeredMeanwhile++;
      }
      assert.equal((await login).status, 200);
      assert.equal(answeredMeanwhile, 3, 'GET /_up waited for the login: the hash ran on the event loop');
    } finally {
      await s.close();
    }
  });

  it('a hundred first logins at once all succeed', async () => {
    const s = await startTestServer({ settings: { hashIterations: 10_000 } });
    try {
      const names = Array.from({ length: 100 }, (_, i) => `many${i}`);
      const docs = names.map((name) => ({ _id: uid(name), name, password: `pw-${name}`, roles: [], type: 'user' }));
      assert.equal((await s.request('POST', '/_users/_bulk_docs', { body: { docs } })).status, 201);
      const logins = await Promise.all(
        names.map((name) => s.request('POST', '/_session', { auth: false, body: { name, password: `pw-${name}` } })),
      );
      assert.deepEqual(
        logins.map((r) => r.status),
        names.map(() => 200),
      );
    } finally {
      await s.close();
    }
  });

  it('a failed login takes as long for an unknown user as for a known one', async () => {
    // Hashes with real work, so a difference would show.
    // Enough rounds that the hundred hashes would hold the event loop for seconds if they ran on it.
    const ITERATIONS = 100_000;
    const s = await startTestServer({ settings: { hashIterations: ITERATIONS } });
    try {
      await createUser(s, 'known', 'pw');
      const time = async (name: string) => {
        const started = performance.now();
        await s.request('POST', '/_session', { auth: false, body: { name, password: 'wrong' } });
        return performance.now() - started;
      };
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 7; i++) {
        known.push(await time('known'));
        unknown.push(await time(`nobody${i}`));
      }
      assert.ok(median(unknown) > median(known) / 4, `unknown ${median(unknown)} ms, known ${median(known)} ms`);
    } finally {
      await s.close();
    }
  });

  it('a role change applies to existing cookies at once', async () => {
    await createUser(t, 'rita', 'pw');
    const cookie = await login(t, 'rita', 'pw');
    const doc = (await t.request('GET', path('rita'))).json;
    await t.request('PUT', path('rita'), { body: { ...doc, roles: ['editor'] } });
    assert.deepEqual((await t.request('GET', '/_session', withCookie(cookie))).json.userCtx.roles, ['editor']);
  });

  it('passwords never appear in a response or the log', async () => {
    const lines: string[] = [];
    const s = await startTestServer({ log: (line) => lines.push(line) });
    try {
      await s.request('PUT', path('pat'), { body: { name: 'pat', password: 'SeCrEt-42', roles: [], type: 'user' } });
      await s.request('GET', '/', { auth: basic('pat', 'wrong-SeCrEt') });
      await s.request('POST', '/_session', { auth: false, body: { name: 'pat', password: 'SeCrEt-42' } });
      const doc = await s.request('GET', path('pat'));
      assert.ok(!doc.text.includes('SeCrEt'));
      assert.ok(!lines.some((line) => line.includes('SeCrEt')), lines.join('\n'));
    } finally {
      await s.close();
    }
  });
});

describe('_users whose security admits users (users_db_security_editable)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ settings: { usersDbSecurityEditable: true } });
    const sec = await t.request('PUT', '/_users/_security', { body: { admins: { names: ['uadmin'] } } });
    assert.equal(sec.status, 200);
    await createUser(t, 'ann', 'a');
    await createUser(t, 'ben', 'b');
    await createUser(t, 'uadmin', 'u');
  });
  after(() => t.close());

  it('anonymous sign-up works (hashed, no roles)', async () => {
    const r = await t.request('PUT', path('sign'), {
      auth: false,
      body: { name: 'sign', password: 's', roles: [], type: 'user' },
    });
    assert.equal(r.status, 201);
    const roles = await t.request('PUT', path('sign2'), {
      auth: false,
      body: { name: 'sign2', password: 's', roles: ['x'], type: 'user' },
    });
    assert.deepEqual([roles.status, roles.json], [403, forbidden('Only _admin may set roles')]);
  });

  it("each user reads their own document; others' are 404, design documents 403", async () => {
    const own = await t.request('GET', path('ann'), { auth: basic('ann', 'a') });
    assert.equal(own.status, 200);
    assert.equal(own.json.name, 'ann');
    const other = await t.request('GET', path('ben'), { auth: basic('ann', 'a') });
    assert.deepEqual([other.status, other.json], [404, { error: 'not_found', reason: 'missing' }]);
    await t.request('PUT', '/_users/_design/x', { body: { views: {} } });
    const design = await t.request('GET', '/_users/_design/x', { auth: basic('ann', 'a') });
    assert.deepEqual(
      [design.status, design.json],
      [403, forbidden('Only administrators can view design docs in the users database.')],
    );
    const dbAdmin = await t.request('GET', path('ben'), { auth: basic('uadmin', 'u') });
    assert.equal(dbAdmin.status, 200);
  });

  it('a user changes their own password, not their roles, and not anyone else', async () => {
    const doc = (await t.request('GET', path('ann'), { auth: basic('ann', 'a') })).json;
    const roles = await t.request('PUT', path('ann'), { auth: basic('ann', 'a'), body: { ...doc, roles: ['boss'] } });
    assert.deepEqual([roles.status, roles.json], [403, forbidden('Only _admin may edit roles')]);
    const changed = await t.request('PUT', path('ann'), {
      auth: basic('ann', 'a'),
      body: { _rev: doc._rev, name: 'ann', password: 'a2', roles: [], type: 'user' },
    });
    assert.equal(changed.status, 201);
    assert.equal((await t.request('GET', '/', { auth: basic('ann', 'a2') })).status, 200);
    const ben = (await t.request('GET', path('ben'))).json;
    const other = await t.request('PUT', path('ben'), { auth: basic('ann', 'a2'), body: { ...ben, password: 'x' } });
    assert.deepEqual([other.status, other.json], [404, { error: 'not_found', reason: 'missing' }]);
    const bulk = await t.request('POST', '/_users/_bulk_docs', {
      auth: basic('ann', 'a2'),
      body: { docs: [{ ...ben, password: 'x' }] },
    });
    assert.equal(bulk.status, 404);
  });

  it("members list ids but never read others' documents through a feed, a query or _bulk_get", async () => {
    // Any database whose last segment is _users gets the hooks; this one is public.
    const db = '/org%2F_users';
    assert.equal((await t.request('PUT', db)).status, 201);
    await t.request('PUT', `${db}/_security`, { body: { members: { names: [] } } });
    await t.request('PUT', `${db}/${encodeURIComponent(uid('zed'))}`, {
      body: { name: 'zed', password: 'z', roles: [], type: 'user' },
    });
    const ids = await t.request('GET', `${db}/_all_docs`, { auth: basic('ben', 'b') });
    assert.equal(ids.status, 200);
    assert.deepEqual(
      ids.json.rows.map((row: { id: string }) => row.id),
      [uid('zed')],
    );
    for (const [method, url, body] of [
      ['GET', `${db}/_all_docs?include_docs=true`, undefined],
      ['GET', `${db}/_changes?include_docs=true`, undefined],
      ['POST', `${db}/_all_docs`, { keys: [uid('zed')] }],
      ['POST', `${db}/_bulk_get`, { docs: [{ id: uid('zed') }] }],
      ['POST', `${db}/_find`, { selector: {} }],
      ['GET', `${db}/${encodeURIComponent(uid('zed'))}`, undefined],
    ] as const) {
      const r = await t.request(method, url, { auth: basic('ben', 'b'), ...(body === undefined ? {} : { body }) });
      assert.ok(r.status === 403 || r.status === 404, `${url}: ${r.status}`);
      assert.ok(!r.text.includes('derived_key'), url);
    }
    const admin = await t.request('GET', `${db}/_all_docs?include_docs=true`);
    assert.ok(admin.text.includes('derived_key'));
  });

  it('a DB admin sets roles but not system roles', async () => {
    const doc = (await t.request('GET', path('ben'))).json;
    const ok = await t.request('PUT', path('ben'), { auth: basic('uadmin', 'u'), body: { ...doc, roles: ['r'] } });
    assert.equal(ok.status, 201);
    const sys = await t.request('PUT', path('ben'), {
      auth: basic('uadmin', 'u'),
      body: { ...doc, _rev: ok.json.rev, roles: ['_admin'] },
    });
    assert.deepEqual(
      [sys.status, sys.json],
      [403, forbidden('No system roles (starting with underscore) in users db.')],
    );
  });

  it('a user deletes their own document; only admins delete others', async () => {
    await createUser(t, 'gone', 'g');
    const doc = (await t.request('GET', path('gone'))).json;
    const r = await t.request('DELETE', `${path('gone')}?rev=${doc._rev}`, { auth: basic('gone', 'g') });
    assert.equal(r.status, 200);
    assert.equal((await t.request('GET', '/', { auth: basic('gone', 'g') })).status, 401);
  });
});

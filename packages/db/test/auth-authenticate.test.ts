import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CouchError } from '../src/errors.js';
import {
  Authenticator,
  type AdminStore,
  createAdminStore,
  hashPassword,
  Lockout,
  requireAdmin,
  DEFAULT_SECURITY,
  requireMember,
  type UserCtx,
} from '../src/auth/index.js';
import type { UserAccount } from '../src/auth/authenticator.js';
import { parseHash } from '../src/auth/passwords.js';
import type { StoredCredentials } from '../src/auth/user-credentials.js';

const basic = (name: string, password: string): string =>
  `Basic ${Buffer.from(`${name}:${password}`, 'utf8').toString('base64')}`;

const admins = createAdminStore({ root: hashPassword('right', { iterations: 100 }) });

function couchError(status: number, error: string, reason: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof CouchError, String(err));
    assert.equal(err.status, status);
    assert.equal(err.error, error);
    assert.equal(err.reason, reason);
    return true;
  };
}

/** The handler chain with admins only (no `_users`), as the server runs it. */
async function authenticate(header: string | undefined, address: string, store: AdminStore, lockout: Lockout) {
  const auth = new Authenticator({
    admins: store,
    lockout,
    findUser: async () => undefined,
    secret: 'test-secret',
    timeoutSec: 600,
    iterations: 10,
  });
  return (await auth.authenticate(undefined, header, () => address)).user;
}

const incorrect = couchError(401, 'unauthorized', 'Name or password is incorrect.');
const locked = couchError(403, 'forbidden', 'Account is temporarily locked due to multiple authentication failures');

describe('authenticate (the handler chain, admins only)', () => {
  test('no credentials: anonymous', async () => {
    const lockout = new Lockout();
    assert.deepEqual(await authenticate(undefined, '127.0.0.1', admins, lockout), { name: null, roles: [] });
    assert.deepEqual(await authenticate('Bearer x.y.z', '127.0.0.1', admins, lockout), { name: null, roles: [] });
  });

  test('an admin gets the _admin role', async () => {
    assert.deepEqual(await authenticate(basic('root', 'right'), '127.0.0.1', admins, new Lockout()), {
      name: 'root',
      roles: ['_admin'],
    });
  });

  test('wrong password or unknown user: 401', async () => {
    const lockout = new Lockout();
    await assert.rejects(authenticate(basic('root', 'wrong'), '127.0.0.1', admins, lockout), incorrect);
    await assert.rejects(authenticate(basic('nobody', 'right'), '127.0.0.1', admins, lockout), incorrect);
  });

  test('invalid base64: 400', async () => {
    await assert.rejects(
      authenticate('Basic !!!', '127.0.0.1', admins, new Lockout()),
      couchError(400, 'bad_request', 'Authorization header has invalid base64 value'),
    );
  });

  test('5 failures lock the user out from that address, even with the right password', async () => {
    const lockout = new Lockout();
    for (let i = 0; i < 5; i++) {
      await assert.rejects(authenticate(basic('root', 'wrong'), '10.0.0.1', admins, lockout), incorrect);
    }
    await assert.rejects(authenticate(basic('root', 'wrong'), '10.0.0.1', admins, lockout), locked);
    await assert.rejects(authenticate(basic('root', 'right'), '10.0.0.1', admins, lockout), locked);
    // another address is still fine
    assert.equal((await authenticate(basic('root', 'right'), '10.0.0.2', admins, lockout)).name, 'root');
    // anonymous requests from the locked address are not affected
    assert.equal((await authenticate(undefined, '10.0.0.1', admins, lockout)).name, null);
  });

  test('the lock lifts after 5 minutes', async () => {
    let now = 0;
    const lockout = new Lockout({ now: () => now });
    for (let i = 0; i < 5; i++) {
      await assert.rejects(authenticate(basic('root', 'wrong'), 'a', admins, lockout), incorrect);
    }
    await assert.rejects(authenticate(basic('root', 'right'), 'a', admins, lockout), locked);
    now += 5 * 60_000;
    assert.equal((await authenticate(basic('root', 'right'), 'a', admins, lockout)).name, 'root');
  });
});

describe("a connection's remembered Basic login", () => {
  const connection = {};
  const accounts = new Map<string, UserAccount>();
  const userHash = (password: string): StoredCredentials => {
    const parsed = parseHash(hashPassword(password, { iterations: 10 }))!;
    const { prf, key, salt, iterations } = parsed;
    return { scheme: 'pbkdf2', prf, iterations, salt, derivedKey: key };
  };
  const authenticator = (store: AdminStore, lockout: Lockout) =>
    new Authenticator({
      admins: store,
      lockout,
      findUser: async (name) => accounts.get(name),
      secret: 'test-secret',
      timeoutSec: 600,
      iterations: 10,
    });
  const on = (auth: Authenticator, header: string | undefined, address = '127.0.0.1', conn: object = connection) =>
    auth.authenticate(undefined, header, () => address, {}, conn).then((found) => found.user);

  test('the same header on the same connection: the same user, counted as a cache hit', async () => {
    const store = createAdminStore({ root: hashPassword('right', { iterations: 100 }) });
    const auth = authenticator(store, new Lockout());
    const conn = {};
    assert.deepEqual(await on(auth, basic('root', 'right'), '127.0.0.1', conn), { name: 'root', roles: ['_admin'] });
    const hits = store.cacheCounts.hits;
    assert.deepEqual(await on(auth, basic('root', 'right'), '127.0.0.1', conn), { name: 'root', roles: ['_admin'] });
    assert.equal(store.cacheCounts.hits, hits + 1);
    // Another header on that connection goes the whole way.
    await assert.rejects(on(auth, basic('root', 'wrong'), '127.0.0.1', conn), incorrect);
    assert.deepEqual(await on(auth, undefined, '127.0.0.1', conn), { name: null, roles: [] });
  });

  test("an admin's changed or removed password is not answered from the connection", async () => {
    const store = createAdminStore({ root: hashPassword('right', { iterations: 100 }) });
    const auth = authenticator(store, new Lockout());
    const conn = {};
    assert.equal((await on(auth, basic('root', 'right'), '127.0.0.1', conn)).name, 'root');
    store.set('root', hashPassword('new', { iterations: 100 }));
    await assert.rejects(on(auth, basic('root', 'right'), '127.0.0.1', conn), incorrect);
    assert.equal((await on(auth, basic('root', 'new'), '127.0.0.1', conn)).name, 'root');
    store.remove('root');
    await assert.rejects(on(auth, basic('root', 'new'), '127.0.0.1', conn), incorrect);
  });

  test("a _users account's new password, new roles or deletion apply at the next request", async () => {
    const auth = authenticator(createAdminStore({}), new Lockout());
    const conn = {};
    accounts.set('bob', { name: 'bob', roles: ['a'], credentials: userHash('pw') });
    assert.deepEqual(await on(auth, basic('bob', 'pw'), '127.0.0.1', conn), { name: 'bob', roles: ['a'] });
    accounts.set('bob', { ...accounts.get('bob')!, roles: ['b'] });
    assert.deepEqual(await on(auth, basic('bob', 'pw'), '127.0.0.1', conn), { name: 'bob', roles: ['b'] });
    accounts.set('bob', { name: 'bob', roles: ['b'], credentials: userHash('other') });
    await assert.rejects(on(auth, basic('bob', 'pw'), '127.0.0.1', conn), incorrect);
    accounts.delete('bob');
    await assert.rejects(on(auth, basic('bob', 'other'), '127.0.0.1', conn), incorrect);
  });

  test('a lockout applies to a remembered login too', async () => {
    const store = createAdminStore({ root: hashPassword('right', { iterations: 100 }) });
    const lockout = new Lockout();
    const auth = authenticator(store, lockout);
    const conn = {};
    assert.equal((await on(auth, basic('root', 'right'), '10.0.0.1', conn)).name, 'root');
    for (let i = 0; i < 5; i++) await assert.rejects(on(auth, basic('root', 'wrong'), '10.0.0.1', {}), incorrect);
    await assert.rejects(on(auth, basic('root', 'right'), '10.0.0.1', conn), locked);
  });
});

describe('authorization helpers', () => {
  const anon: UserCtx = { name: null, roles: [] };
  const admin: UserCtx = { name: 'root', roles: ['_admin'] };
  const member: UserCtx = { name: 'bob', roles: [] };

  test('requireAdmin', () => {
    requireAdmin(admin);
    const notAdmin = couchError(401, 'unauthorized', 'You are not a server admin.');
    assert.throws(() => requireAdmin(anon), notAdmin);
    assert.throws(() => requireAdmin(member), notAdmin);
  });

  test('requireMember: a database with the default security is admin-only', () => {
    requireMember(admin, DEFAULT_SECURITY);
    assert.throws(
      () => requireMember(anon, DEFAULT_SECURITY),
      couchError(401, 'unauthorized', 'You are not authorized to access this db.'),
    );
    assert.throws(
      () => requireMember(member, DEFAULT_SECURITY),
      couchError(403, 'forbidden', 'You are not allowed to access this db.'),
    );
  });
});

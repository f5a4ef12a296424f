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

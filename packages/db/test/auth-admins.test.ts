import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CouchError } from '../src/errors.js';
import {
  ADMINS_FILE_NAME,
  createAdminStore,
  DEFAULT_ITERATIONS,
  DEFAULT_PRF,
  hashPassword,
  loadAdmins,
  parseHash,
  verifyPassword,
} from '../src/auth/index.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';

// Low rounds keep the suite fast; the default is checked separately.
const FAST = { iterations: 1000 };

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'divan-auth-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The admins of the SQLite storage in `dir` (its server values are files there), as one start loads them. */
async function load(dir: string, ...rest: [Parameters<typeof loadAdmins>[1]?, Parameters<typeof loadAdmins>[2]?]) {
  const storage = openSqliteStorage({ dir });
  try {
    return await loadAdmins(storage, ...rest);
  } finally {
    await storage.close();
  }
}

function readAdmins(dir: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(dir, ADMINS_FILE_NAME), 'utf8')) as { admins: Record<string, string> }).admins;
}

describe('password hashes', () => {
  test('defaults are CouchDB 3.4+: PBKDF2-HMAC-SHA256, 600000 rounds', () => {
    assert.equal(DEFAULT_PRF, 'sha256');
    assert.equal(DEFAULT_ITERATIONS, 600_000);
  });

  test('new hashes use -pbkdf2:sha256-<key>,<salt>,<iterations> and verify', () => {
    const hash = hashPassword('s3cret', FAST);
    assert.match(hash, /^-pbkdf2:sha256-[0-9a-f]{64},[0-9a-f]{32},1000$/);
    assert.equal(verifyPassword('s3cret', hash), true);
    assert.equal(verifyPassword('s3cret ', hash), false);
    assert.equal(verifyPassword('', hash), false);
    const parsed = parseHash(hash);
    assert.equal(parsed?.prf, 'sha256');
    assert.equal(parsed?.iterations, 1000);
  });

  test('a stored hash naming an inherited property as its PRF is not a hash (verify is false, not a crash)', () => {
    const odd = '-pbkdf2:constructor-00ff,88b2a6274f9ebeb3e2928a86382590ec,10';
    assert.equal(parseHash(odd), null);
    assert.equal(verifyPassword('x', odd), false);
  });

  test('salts are random', () => {
    assert.notEqual(hashPassword('same', FAST), hashPassword('same', FAST));
  });

  test('old CouchDB -pbkdf2- (SHA-1) hashes verify', () => {
    // Known vector: "mysecret", salt used as text, 10 rounds, 20-byte key.
    const old = '-pbkdf2-515d6a879832819863e12475ad0bb6f03abb7f8e,88b2a6274f9ebeb3e2928a86382590ec,10';
    assert.equal(verifyPassword('mysecret', old), true);
    assert.equal(verifyPassword('mysecreT', old), false);
  });

  test('other PRFs and the legacy -hashed- scheme verify', () => {
    const sha512 = hashPassword('pw', { iterations: 10, prf: 'sha512' });
    assert.match(sha512, /^-pbkdf2:sha512-[0-9a-f]{128},/);
    assert.equal(verifyPassword('pw', sha512), true);
    // -hashed-: hex sha1(password ++ salt)
    const simple = `-hashed-${createHash('sha1').update('pwabc').digest('hex')},abc`;
    assert.equal(verifyPassword('pw', simple), true);
    assert.equal(verifyPassword('px', simple), false);
  });

  test('malformed hashes never verify', () => {
    for (const bad of [
      '',
      'plain',
      '-pbkdf2-zz,salt,10',
      '-pbkdf2-abcd,salt,0',
      '-pbkdf2:md5-abcd,s,10',
      '-pbkdf2-abc,s,10',
    ]) {
      assert.equal(verifyPassword('x', bad), false, bad);
    }
  });
});

describe('loadAdmins', () => {
  test('first start creates "admin" with a random password, stored hashed with mode 0600', async () => {
    const dir = tempDir();
    const { admins, created } = await load(dir, undefined, FAST);
    assert.ok(created);
    assert.equal(created.name, 'admin');
    assert.match(created.password, /^[A-Za-z0-9_-]{24}$/);
    assert.deepEqual(admins.names(), ['admin']);
    assert.equal(admins.has('admin'), true);
    assert.equal(admins.verify('admin', created.password), true);
    assert.equal(admins.verify('admin', 'wrong'), false);

    const stored = readAdmins(dir);
    assert.match(stored.admin!, /^-pbkdf2:sha256-/);
    assert.equal(readFileSync(join(dir, ADMINS_FILE_NAME), 'utf8').includes(created.password), false);
    assert.equal(statSync(join(dir, ADMINS_FILE_NAME)).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes(ADMINS_FILE_NAME)),
      [ADMINS_FILE_NAME],
      'no temp file left behind',
    );
  });

  test('second start does not create another admin and keeps the hash', async () => {
    const dir = tempDir();
    const first = await load(dir, undefined, FAST);
    const before = readAdmins(dir);
    const second = await load(dir, undefined, FAST);
    assert.equal(second.created, undefined);
    assert.deepEqual(readAdmins(dir), before);
    assert.equal(second.admins.verify('admin', first.created!.password), true);
  });

  test('creates the data folder when missing', async () => {
    const dir = join(tempDir(), 'nested', 'data');
    const { created } = await load(dir, undefined, FAST);
    assert.ok(created);
    assert.ok(readAdmins(dir).admin);
  });

  test('a configured admin is stored, and no random admin is created', async () => {
    const dir = tempDir();
    const { admins, created } = await load(dir, { name: 'root', password: 'pw1' }, FAST);
    assert.equal(created, undefined);
    assert.deepEqual(admins.names(), ['root']);
    assert.equal(admins.verify('root', 'pw1'), true);
  });

  test('a configured admin is re-hashed only when its password changed', async () => {
    const dir = tempDir();
    await load(dir, { name: 'root', password: 'pw1' }, FAST);
    const h1 = readAdmins(dir).root;
    await load(dir, { name: 'root', password: 'pw1' }, FAST);
    assert.equal(readAdmins(dir).root, h1, 'same password: same hash');

    const { admins } = await load(dir, { name: 'root', password: 'pw2' }, FAST);
    assert.notEqual(readAdmins(dir).root, h1);
    assert.equal(admins.verify('root', 'pw2'), true);
    assert.equal(admins.verify('root', 'pw1'), false);
  });

  test('a configured admin is added next to existing ones (e.g. the generated one)', async () => {
    const dir = tempDir();
    const { created } = await load(dir, undefined, FAST);
    const { admins } = await load(dir, { name: 'ops', password: 'x:y' }, FAST);
    assert.deepEqual(admins.names(), ['admin', 'ops']);
    assert.equal(admins.verify('ops', 'x:y'), true);
    assert.equal(admins.verify('admin', created!.password), true);
  });

  test('weaker stored hashes of the configured admin are upgraded', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, ADMINS_FILE_NAME),
      JSON.stringify({
        admins: { old: '-pbkdf2-515d6a879832819863e12475ad0bb6f03abb7f8e,88b2a6274f9ebeb3e2928a86382590ec,10' },
      }),
    );
    const { admins } = await load(dir, { name: 'old', password: 'mysecret' }, FAST);
    assert.match(readAdmins(dir).old!, /^-pbkdf2:sha256-.*,1000$/);
    assert.equal(admins.verify('old', 'mysecret'), true);
  });

  test('plain-text entries are hashed on load, like CouchDB [admins]', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, ADMINS_FILE_NAME), JSON.stringify({ admins: { bob: 'hunter2' } }));
    const { admins, created } = await load(dir, undefined, FAST);
    assert.equal(created, undefined);
    assert.match(readAdmins(dir).bob!, /^-pbkdf2:sha256-/);
    assert.equal(admins.verify('bob', 'hunter2'), true);
  });

  test('a corrupt admins file is an error, not a silent reset', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, ADMINS_FILE_NAME), '{not json');
    await assert.rejects(load(dir, undefined, FAST), CouchError);
    writeFileSync(join(dir, ADMINS_FILE_NAME), JSON.stringify({ admins: ['x'] }));
    await assert.rejects(load(dir, undefined, FAST), CouchError);
  });

  test('invalid configured admins are rejected', async () => {
    const dir = tempDir();
    await assert.rejects(load(dir, { name: '', password: 'x' }, FAST), CouchError);
    await assert.rejects(load(dir, { name: 'a:b', password: 'x' }, FAST), CouchError);
    await assert.rejects(load(dir, { name: 'a', password: '' }, FAST), CouchError);
  });
});

describe('verification cache', () => {
  test('a successful verification is cached: the second one is fast', () => {
    // 200k rounds make the uncached run measurably slow on any machine.
    const store = createAdminStore({ root: hashPassword('pw', { iterations: 200_000 }) });
    let t = performance.now();
    assert.equal(store.verify('root', 'pw'), true);
    const first = performance.now() - t;
    t = performance.now();
    assert.equal(store.verify('root', 'pw'), true);
    const second = performance.now() - t;
    assert.ok(second < first / 5, `cached ${second}ms vs first ${first}ms`);
  });

  test('failures are not cached', () => {
    const store = createAdminStore({ root: hashPassword('pw', { iterations: 200_000 }) });
    const times: number[] = [];
    for (let i = 0; i < 2; i++) {
      const t = performance.now();
      assert.equal(store.verify('root', 'bad'), false);
      times.push(performance.now() - t);
    }
    // Both failures paid the full PBKDF2 price (tens of ms at least; a cache hit takes microseconds).
    assert.ok(times[0]! > 10 && times[1]! > 10, `failures took ${times.join(', ')}ms`);
  });

  test('a cached password stops working once the stored hash changes', async () => {
    const dir = tempDir();
    const first = (await load(dir, { name: 'root', password: 'pw1' }, FAST)).admins;
    assert.equal(first.verify('root', 'pw1'), true);
    const second = (await load(dir, { name: 'root', password: 'pw2' }, FAST)).admins;
    assert.equal(second.verify('root', 'pw1'), false);
  });

  test('unknown users are false', () => {
    const store = createAdminStore({});
    assert.equal(store.verify('nobody', 'x'), false);
    assert.equal(store.has('nobody'), false);
    assert.equal(store.has('constructor'), false);
  });
});

/**
 * The password fields of a `_users` document (couch_passwords): `pbkdf2` (PBKDF2 over the salt
 * as text; `pbkdf2_prf` missing means SHA-1 and `iterations` missing 10000), or `simple`
 * (`password_sha` = hex SHA-1 of password ++ salt). PBKDF2 runs on libuv's thread pool, so a
 * login never blocks the event loop.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { pbkdf2Limited } from './pbkdf2-pool.js';
import { CouchError } from '../errors.js';
import { DIGEST_BYTES, DIGESTS } from './passwords.js';

const MAX_ITERATIONS = 1_000_000_000;

export type StoredCredentials =
  | { scheme: 'pbkdf2'; prf: string; iterations: number; salt: string; derivedKey: string }
  | { scheme: 'simple'; salt: string; passwordSha: string };

/** The credentials of a user document, or undefined when it has none a login can check. */
export function credentialsOf(doc: Record<string, unknown>): StoredCredentials | undefined {
  const salt = typeof doc.salt === 'string' ? doc.salt : undefined;
  const scheme = doc.password_scheme ?? 'simple';
  if (scheme === 'pbkdf2') {
    if (salt === undefined || typeof doc.derived_key !== 'string') return undefined;
    const prf = typeof doc.pbkdf2_prf === 'string' ? doc.pbkdf2_prf : 'sha';
    const iterations = typeof doc.iterations === 'number' ? doc.iterations : 10_000;
    return { scheme, prf, iterations, salt, derivedKey: doc.derived_key.toLowerCase() };
  }
  if (scheme === 'simple' && salt !== undefined && typeof doc.password_sha === 'string') {
    return { scheme, salt, passwordSha: doc.password_sha.toLowerCase() };
  }
  return undefined;
}

/** Checks a password in constant time; an unusable PRF or count is CouchDB's 403. */
export async function verifyCredentials(password: string, stored: StoredCredentials): Promise<boolean> {
  let actual: Buffer;
  let expected: Buffer;
  if (stored.scheme === 'simple') {
    expected = Buffer.from(stored.passwordSha, 'hex');
    actual = createHash('sha1')
      .update(password + stored.salt, 'utf8')
      .digest();
  } else {
    const digest = Object.hasOwn(DIGESTS, stored.prf) ? DIGESTS[stored.prf] : undefined;
    if (digest === undefined) throw new CouchError('forbidden', 'PRF is invalid');
    if (!(stored.iterations >= 1)) throw new CouchError('forbidden', 'Iteration count is too low for this server');
    if (stored.iterations > MAX_ITERATIONS) {
      throw new CouchError('forbidden', 'Iteration count is too high for this server');
    }
    expected = Buffer.from(stored.derivedKey, 'hex');
    actual = await pbkdf2Limited(password, stored.salt, Math.floor(stored.iterations), DIGEST_BYTES[digest]!, digest);
  }
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Same work as a real check, for a user that does not exist: a failed login takes as long either way. */
export async function burnPasswordCheck(password: string, iterations: number): Promise<void> {
  await pbkdf2Limited(password, '00000000000000000000000000000000', iterations, 32, 'sha256');
}

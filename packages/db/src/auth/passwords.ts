/**
 * CouchDB's admin password hash strings.
 *
 * New hashes use CouchDB 3.4+'s format and defaults: `-pbkdf2:sha256-<key hex>,<salt>,<iterations>`
 * with 600000 iterations (chttpd_auth `pbkdf2_prf` / `iterations`). Older strings are verified too:
 * `-pbkdf2-…` (PBKDF2-HMAC-SHA1, CouchDB ≤ 3.3), `-pbkdf2:<prf>-…` for the other SHA digests, and
 * the legacy `-hashed-<sha1 hex>,<salt>` scheme. As in CouchDB, the salt is used as text (its
 * bytes), not hex-decoded, so hashes copied to or from a CouchDB `[admins]` section still verify.
 */
import { createHash, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { pbkdf2Limited } from './pbkdf2-pool.js';

export const DEFAULT_PRF = 'sha256';
export const DEFAULT_ITERATIONS = 600_000;

/** A stored string with more rounds than this is treated as corrupt rather than run (CPU guard). */
const MAX_ITERATIONS = 100_000_000;

/** CouchDB's PRF names → node's digest names (`sha` is CouchDB's name for SHA-1). */
export const DIGESTS: Record<string, string> = {
  sha: 'sha1',
  sha224: 'sha224',
  sha256: 'sha256',
  sha384: 'sha384',
  sha512: 'sha512',
};
export const DIGEST_BYTES: Record<string, number> = { sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 };

export interface HashOptions {
  /** PBKDF2 rounds; CouchDB's default unless given (tests pass a low count). */
  iterations?: number;
  /** CouchDB PRF name: `sha`, `sha224`, `sha256` (default), `sha384`, `sha512`. */
  prf?: string;
}

export interface ParsedHash {
  scheme: 'pbkdf2' | 'simple';
  /** CouchDB PRF name (`sha` for SHA-1); `sha` for the simple scheme. */
  prf: string;
  /** Lower-case hex. */
  key: string;
  salt: string;
  /** 1 for the simple scheme. */
  iterations: number;
}

/** Hashes `password` the way CouchDB stores server admins. */
export function hashPassword(password: string, options: HashOptions = {}): string {
  const prf = options.prf ?? DEFAULT_PRF;
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const digest = Object.hasOwn(DIGESTS, prf) ? DIGESTS[prf] : undefined;
  if (digest === undefined) throw new TypeError(`unsupported PBKDF2 PRF: ${prf}`);
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new TypeError(`invalid PBKDF2 iteration count: ${iterations}`);
  }
  // CouchDB's salt is a random 32-hex-digit UUID used as text.
  const salt = randomBytes(16).toString('hex');
  const key = pbkdf2Sync(password, salt, iterations, DIGEST_BYTES[digest]!, digest).toString('hex');
  return `-pbkdf2:${prf}-${key},${salt},${iterations}`;
}

/** Splits a stored hash string; `null` when it is not one CouchDB could have written. */
export function parseHash(stored: string): ParsedHash | null {
  let match = /^-pbkdf2(?::([a-z0-9]+))?-([0-9a-fA-F]+),([^,]*),(\d+)$/.exec(stored);
  if (match) {
    const prf = match[1] ?? 'sha';
    const iterations = Number(match[4]);
    // Own keys only: `constructor` is not a PRF.
    if (!Object.hasOwn(DIGESTS, prf)) return null;
    if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) return null;
    if (match[2]!.length % 2 !== 0) return null;
    return { scheme: 'pbkdf2', prf, key: match[2]!.toLowerCase(), salt: match[3]!, iterations };
  }
  match = /^-hashed-([0-9a-fA-F]{40}),(.*)$/.exec(stored);
  if (match) return { scheme: 'simple', prf: 'sha', key: match[1]!.toLowerCase(), salt: match[2]!, iterations: 1 };
  return null;
}

/** True when the string looks like any stored hash (anything else in the admins file is plain text). */
export function isHashed(value: string): boolean {
  return value.startsWith('-pbkdf2') || value.startsWith('-hashed-');
}

/** Checks `password` against a stored hash in constant time; malformed hashes never verify. */
export function verifyPassword(password: string, stored: string): boolean {
  const parsed = parseHash(stored);
  if (parsed === null) return false;
  const expected = Buffer.from(parsed.key, 'hex');
  let actual: Buffer;
  if (parsed.scheme === 'simple') {
    actual = createHash('sha1')
      .update(password + parsed.salt, 'utf8')
      .digest();
  } else {
    actual = pbkdf2Sync(password, parsed.salt, parsed.iterations, expected.length, DIGESTS[parsed.prf]!);
  }
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** `verifyPassword` with PBKDF2 off the event loop (logins over HTTP). */
export async function verifyPasswordAsync(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === null) return false;
  if (parsed.scheme === 'simple') return verifyPassword(password, stored);
  const expected = Buffer.from(parsed.key, 'hex');
  const actual = await pbkdf2Limited(password, parsed.salt, parsed.iterations, expected.length, DIGESTS[parsed.prf]!);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

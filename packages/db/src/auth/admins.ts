/**
 * Server admins, kept hashed as the storage's server value `admins.json`
 * (`{"admins": {"name": "<hash>"}}`, the equivalent of CouchDB's `[admins]` ini section; the
 * SQLite engine keeps it as that file in the data folder, PostgreSQL in a table every node reads).
 * There is no admin party: a server without any admin gets one with a random password on first start.
 */
import { randomBytes } from 'node:crypto';
import { CouchError } from '../errors.js';
import type { Storage } from '../storage/contract.js';
import {
  DEFAULT_ITERATIONS,
  DEFAULT_PRF,
  hashPassword,
  isHashed,
  parseHash,
  verifyPassword,
  verifyPasswordAsync,
} from './passwords.js';
import { VerifiedKeys } from './verified-key.js';

/** The server value holding the admins (with the SQLite engine: `<data>/admins.json`). */
export const ADMINS_FILE_NAME = 'admins.json';

/** Where admins are kept: the server values of a storage. */
export type AdminsPlace = Pick<Storage, 'getServerValue' | 'setServerValue' | 'addServerValue'>;
export const DEFAULT_ADMIN_NAME = 'admin';

export interface AdminCredentials {
  name: string;
  password: string;
}

export interface AdminStore {
  /** True when `password` is `name`'s password; unknown names are false. */
  verify(name: string, password: string): boolean;
  /** The same, with PBKDF2 off the event loop (logins over HTTP). */
  verifyAsync(name: string, password: string): Promise<boolean>;
  has(name: string): boolean;
  names(): string[];
  /** The stored hash string of an admin (its salt keys that admin's session cookies). */
  hashOf(name: string): string | undefined;
  /** Logins answered from the remembered verifications (hits) and by a PBKDF2 run (misses). */
  readonly cacheCounts: CacheCounts;
  /** Adds or replaces an admin (`[admins]` through the config API); `hash` is a stored hash string. */
  set(name: string, hash: string): void;
  remove(name: string): boolean;
}

/** `_stats`' `auth_cache_hits` and `auth_cache_misses`. */
export interface CacheCounts {
  hits: number;
  misses: number;
}

export interface LoadAdminsOptions {
  /** PBKDF2 rounds for hashes written now; CouchDB's 600000 unless given (tests use fewer). */
  iterations?: number;
  /**
   * Leave the admins file as it is until `save()` is called: a server saves only once it is
   * listening, so a start that fails leaves no generated admin whose password nobody saw.
   */
  deferWrite?: boolean;
}

export interface LoadedAdmins {
  admins: AdminStore;
  /**
   * Set only when this call generated the admin; its password is known nowhere else. With
   * `deferWrite`, it stands only if `save()` answers it too.
   */
  created?: AdminCredentials;
  /**
   * Writes the admins if this load changed them (with `deferWrite`; a no-op otherwise). Answers
   * the generated admin if it is the one stored: when another node on the same storage stored
   * the first admin at the same moment, that admin stands, this store takes it over, and the
   * answer is undefined (a password nobody can use is never printed).
   */
  save(): Promise<AdminCredentials | undefined>;
}

/** Successful verifications remembered; a full PBKDF2 run costs ~0.3 s of blocked CPU. */
const CACHE_LIMIT = 1000;

class HashedAdminStore implements AdminStore {
  readonly #hashes: Map<string, string>;
  readonly #keys = new VerifiedKeys();
  readonly #cache = new Set<string>();
  readonly cacheCounts: CacheCounts = { hits: 0, misses: 0 };

  constructor(hashes: Map<string, string>) {
    this.#hashes = hashes;
  }

  verify(name: string, password: string): boolean {
    const stored = this.#hashes.get(name);
    if (stored === undefined) return false;
    // The stored hash is part of the key, so a changed password never hits an old entry.
    const key = this.#keys.of(name, password, stored);
    if (this.#cache.has(key)) return true;
    if (!verifyPassword(password, stored)) return false; // failures are never cached
    this.remember(key);
    return true;
  }

  async verifyAsync(name: string, password: string): Promise<boolean> {
    const stored = this.#hashes.get(name);
    if (stored === undefined) return false;
    const key = this.#keys.of(name, password, stored);
    if (this.#cache.has(key)) {
      this.cacheCounts.hits++;
      return true;
    }
    this.cacheCounts.misses++;
    if (!(await verifyPasswordAsync(password, stored))) return false; // failures are never cached
    this.remember(key);
    return true;
  }

  /** Marks a known-good password as verified (used after hashing it ourselves). */
  prime(name: string, password: string): void {
    const stored = this.#hashes.get(name);
    if (stored === undefined) return;
    this.remember(this.#keys.of(name, password, stored));
  }

  has(name: string): boolean {
    return this.#hashes.has(name);
  }

  names(): string[] {
    return [...this.#hashes.keys()].sort();
  }

  hashOf(name: string): string | undefined {
    return this.#hashes.get(name);
  }

  set(name: string, hash: string): void {
    this.#hashes.set(name, hash);
  }

  remove(name: string): boolean {
    return this.#hashes.delete(name);
  }

  private remember(key: string): void {
    if (this.#cache.size >= CACHE_LIMIT) {
      const oldest = this.#cache.values().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.add(key);
  }
}

/** An admin store over already-hashed entries (name → hash string), without any file. */
export function createAdminStore(hashes: Record<string, string>): AdminStore {
  return new HashedAdminStore(new Map(Object.entries(hashes)));
}

/** Rejects names HTTP Basic cannot carry (a `:` would end the name) and empty values. */
export function validateAdminCredentials(admin: AdminCredentials): void {
  if (admin.name === '') throw new CouchError('bad_request', 'Admin name must not be empty.');
  if (admin.name.includes(':')) throw new CouchError('bad_request', 'Admin name must not contain ":".');
  if (admin.password === '') throw new CouchError('bad_request', 'Admin password must not be empty.');
}

/**
 * Reads the admins, storing `configured` (re-hashed only when its password does not
 * verify against the stored hash, or that hash is weaker than today's default), hashing any
 * plain-text entries like CouchDB does, and creating `admin` with a random password when there
 * would otherwise be no admin at all.
 */
export async function loadAdmins(
  place: AdminsPlace,
  configured?: AdminCredentials,
  options: LoadAdminsOptions = {},
): Promise<LoadedAdmins> {
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const storedText = await place.getServerValue(ADMINS_FILE_NAME);
  const hashes = parseAdmins(storedText);
  let dirty = false;
  const known: AdminCredentials[] = [];

  for (const [name, value] of hashes) {
    if (!isHashed(value)) {
      // A hand-edited plain-text password: hash it now, as CouchDB does with its ini file.
      hashes.set(name, hashPassword(value, { iterations }));
      known.push({ name, password: value });
      dirty = true;
    }
  }

  let created: AdminCredentials | undefined;
  if (configured !== undefined) {
    validateAdminCredentials(configured);
    const stored = hashes.get(configured.name);
    if (stored === undefined || isWeaker(stored, iterations) || !verifyPassword(configured.password, stored)) {
      hashes.set(configured.name, hashPassword(configured.password, { iterations }));
      dirty = true;
    }
    known.push(configured);
  } else if (hashes.size === 0) {
    // 18 random bytes → 24 base64url characters.
    created = { name: DEFAULT_ADMIN_NAME, password: randomBytes(18).toString('base64url') };
    hashes.set(created.name, hashPassword(created.password, { iterations }));
    known.push(created);
    dirty = true;
  }

  const write = async (): Promise<AdminCredentials | undefined> => {
    if (!dirty) return created;
    dirty = false;
    if (created === undefined || storedText !== undefined) {
      await saveAdmins(place, hashes);
      return created;
    }
    // The first admin of a new storage: stored only if no other node stored one meanwhile.
    const text = adminsText(hashes);
    const stored = await writing(() => place.addServerValue(ADMINS_FILE_NAME, text));
    if (stored === text) return created;
    hashes.clear();
    for (const [name, hash] of parseAdmins(stored)) hashes.set(name, hash);
    created = undefined;
    return undefined;
  };
  if (!options.deferWrite) await write();
  const admins = new HashedAdminStore(hashes);
  for (const admin of known) admins.prime(admin.name, admin.password);
  return created === undefined ? { admins, save: write } : { admins, created, save: write };
}

/**
 * Brings `admins` to the hashes stored now (another node added, changed or removed an admin
 * through the config API). Plain-text entries are left to the next start, which hashes them.
 */
export async function refreshAdmins(place: AdminsPlace, admins: AdminStore): Promise<void> {
  const stored = parseAdmins(await place.getServerValue(ADMINS_FILE_NAME));
  for (const [name, hash] of stored) {
    if (isHashed(hash) && admins.hashOf(name) !== hash) admins.set(name, hash);
  }
  if (stored.size === 0) return; // never left without an admin by a value that did not parse
  for (const name of admins.names()) if (!stored.has(name)) admins.remove(name);
}

/** Writes the admins (name → stored hash) as the `admins.json` server value. */
export async function saveAdmins(place: AdminsPlace, hashes: ReadonlyMap<string, string>): Promise<void> {
  await writing(() => place.setServerValue(ADMINS_FILE_NAME, adminsText(hashes)));
}

function adminsText(hashes: ReadonlyMap<string, string>): string {
  const admins: Record<string, string> = {};
  for (const name of [...hashes.keys()].sort()) admins[name] = hashes.get(name) as string;
  return `${JSON.stringify({ admins }, null, 2)}\n`;
}

async function writing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw new CouchError('unknown_error', `Cannot write ${ADMINS_FILE_NAME}: ${(err as Error).message}`);
  }
}

function isWeaker(stored: string, iterations: number): boolean {
  const parsed = parseHash(stored);
  return parsed === null || parsed.scheme !== 'pbkdf2' || parsed.prf !== DEFAULT_PRF || parsed.iterations < iterations;
}

function parseAdmins(text: string | undefined): Map<string, string> {
  const hashes = new Map<string, string>();
  if (text === undefined) return hashes;
  const file = ADMINS_FILE_NAME;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CouchError('unknown_error', `Cannot parse ${file}: ${(err as Error).message}`);
  }
  const admins = (parsed as { admins?: unknown } | null)?.admins;
  if (typeof admins !== 'object' || admins === null || Array.isArray(admins)) {
    throw new CouchError('unknown_error', `${file} must hold {"admins": {"<name>": "<password hash>"}}`);
  }
  for (const [name, value] of Object.entries(admins)) {
    if (typeof value !== 'string' || value === '') {
      throw new CouchError('unknown_error', `${file}: the entry of admin "${name}" must be a non-empty string`);
    }
    hashes.set(name, value);
  }
  return hashes;
}

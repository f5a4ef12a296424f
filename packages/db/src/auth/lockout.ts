/**
 * CouchDB's `chttpd_auth_lockout` in `enforce` mode: after `threshold` failed logins for one user
 * from one address, that user is refused from that address for `durationMs`, right password or not.
 */

export interface LockoutOptions {
  /** Failures that trigger the lock (CouchDB: 5). 0 or less disables lockout. */
  threshold?: number;
  /** How long a lock lasts, and how long a failure is remembered (CouchDB: 5 minutes). */
  durationMs?: number;
  /** Most (user, address) pairs tracked; the oldest are dropped beyond it. */
  maxEntries?: number;
  /** Clock in milliseconds; tests inject their own. */
  now?: () => number;
}

interface Entry {
  failures: number;
  lastFailureAt: number;
  /** 0 while not locked. */
  lockedUntil: number;
}

export const LOCKED_REASON = 'Account is temporarily locked due to multiple authentication failures';

export class Lockout {
  readonly threshold: number;
  readonly durationMs: number;
  readonly maxEntries: number;
  readonly #now: () => number;
  // Insertion order is age order: an entry is re-inserted on every counted failure.
  readonly #entries = new Map<string, Entry>();

  constructor(options: LockoutOptions = {}) {
    this.threshold = options.threshold ?? 5;
    this.durationMs = options.durationMs ?? 5 * 60_000;
    this.maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.#now = options.now ?? Date.now;
  }

  /** True while `name` is locked out from `address`. */
  isLocked(name: string, address: Address): boolean {
    if (this.threshold <= 0 || this.#entries.size === 0) return false;
    const key = keyOf(name, address);
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    if (this.#expired(entry, this.#now())) {
      this.#entries.delete(key);
      return false;
    }
    return entry.lockedUntil !== 0;
  }

  /** Counts a failed login; the `threshold`-th one within the window starts the lock. */
  recordFailure(name: string, address: Address): void {
    if (this.threshold <= 0) return;
    const now = this.#now();
    const key = keyOf(name, address);
    let entry = this.#entries.get(key);
    if (entry !== undefined && this.#expired(entry, now)) entry = undefined;
    if (entry !== undefined && entry.lockedUntil !== 0) return; // already locked: do not extend
    entry ??= { failures: 0, lastFailureAt: now, lockedUntil: 0 };
    entry.failures += 1;
    entry.lastFailureAt = now;
    if (entry.failures >= this.threshold) entry.lockedUntil = now + this.durationMs;
    this.#entries.delete(key);
    this.#makeRoom(now);
    this.#entries.set(key, entry);
  }

  /** A successful login forgets earlier failures of that user from that address. */
  recordSuccess(name: string, address: Address): void {
    if (this.#entries.size > 0) this.#entries.delete(keyOf(name, address));
  }

  /** Number of tracked (user, address) pairs. */
  get size(): number {
    return this.#entries.size;
  }

  #expired(entry: Entry, now: number): boolean {
    return entry.lockedUntil !== 0 ? now >= entry.lockedUntil : now - entry.lastFailureAt >= this.durationMs;
  }

  #makeRoom(now: number): void {
    // Every entry expires `durationMs` after its last failure, so age order is also expiry
    // order: trimming from the front drops expired entries first, then the oldest live ones.
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size < this.maxEntries && !this.#expired(entry, now)) break;
      this.#entries.delete(key);
    }
  }
}

/**
 * A client's address, or how to get it: reading a socket's peer is a system call, made only once
 * some failure is tracked.
 */
export type Address = string | (() => string);

function keyOf(name: string, address: Address): string {
  return `${typeof address === 'string' ? address : address()}\0${name}`;
}

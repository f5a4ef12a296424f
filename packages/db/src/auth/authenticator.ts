/**
 * CouchDB's handler chain (`cookie`, then `default` = Basic, then anonymous): the first handler
 * that yields a user wins and later credentials are not examined. Users are the server admins and
 * the documents of `_users`, looked up on every request so role changes, password changes and
 * deletions apply at once. A verified password is remembered (keyed by a hash that covers the
 * stored hash), so only the first request of a credential pays for PBKDF2; and a connection
 * remembers the Authorization header it last logged in with, so its next requests with the same
 * header skip parsing it and hashing the key (./connection-logins.ts).
 */
import { ConnectionLogins } from './connection-logins.js';
import { VerifiedKeys } from './verified-key.js';
import { CouchError } from '../errors.js';
import type { AdminStore, CacheCounts } from './admins.js';
import { ADMIN_ROLE, anonymous, type UserCtx } from './authenticate.js';
import { parseAuthorization } from './basic.js';
import { authSessionOf, cookieMacMatches, decodeCookie, encodeCookie } from './cookie.js';
import type { JwtVerifier } from './jwt.js';
import { type ProxyAuthOptions, proxyUser } from './proxy.js';
import { LOCKED_REASON, type Lockout } from './lockout.js';
import { parseHash } from './passwords.js';
import { burnPasswordCheck, type StoredCredentials, verifyCredentials } from './user-credentials.js';

/** A `_users` account as the authenticator needs it. */
export interface UserAccount {
  name: string;
  roles: string[];
  /** The password fields, or undefined when the document has none (nobody can log in as it). */
  credentials: StoredCredentials | undefined;
}

export interface AuthenticatorOptions {
  admins: AdminStore;
  lockout: Lockout;
  /** The `_users` document of a name, parsed (undefined: no such user, or no `_users`). */
  findUser: (name: string) => Promise<UserAccount | undefined>;
  /**
   * Stores a stronger hash of a password that just verified against a weaker one (CouchDB's
   * upgrade on login; same salt, so cookies stay valid). Runs in the background.
   */
  upgradeUser?: (name: string, password: string) => Promise<void>;
  /** The cookie secret shared by every node. */
  secret: string;
  /** Cookie lifetime in seconds (CouchDB's `[chttpd_auth] timeout`, 600). */
  timeoutSec: number;
  /** PBKDF2 rounds burnt for unknown users, so a failed login takes as long either way. */
  iterations: number;
  /** Bearer tokens, when JWT keys are configured (the `jwt` handler runs first then). */
  jwt?: JwtVerifier;
  /** Proxy authentication, when `[chttpd] authentication_handlers` lists it (after the cookie). */
  proxy?: ProxyAuthOptions;
  now?: () => number;
}

export type HandlerName = 'jwt' | 'cookie' | 'proxy' | 'default';

export interface Authenticated {
  user: UserCtx;
  /** Which handler recognised the caller (`info.authenticated`); absent for anonymous. */
  via?: HandlerName;
  /** A fresh cookie value when a cookie past a tenth of its life authenticated the request. */
  refresh?: string;
}

const INCORRECT = 'Name or password is incorrect.';
const CACHE_LIMIT = 10_000;

export class Authenticator {
  /** Cookie lifetime in seconds; the config API may change it. */
  timeoutSec: number;
  readonly #options: AuthenticatorOptions;
  readonly #now: () => number;
  readonly #keys = new VerifiedKeys();
  readonly #verified = new Set<string>();
  readonly #connections = new ConnectionLogins();
  /** Each admin's salt, with the stored hash it was read from: parsed once, not at every login. */
  readonly #adminSalts = new Map<string, { hash: string; salt: string | undefined }>();
  /** Logins of `_users` accounts answered from the remembered verifications, or by a PBKDF2 run. */
  readonly cacheCounts: CacheCounts = { hits: 0, misses: 0 };

  constructor(options: AuthenticatorOptions) {
    this.#options = { ...options };
    this.timeoutSec = options.timeoutSec;
    this.#now = options.now ?? Date.now;
  }

  /** The handlers in the order they run (`GET /_session`'s `authentication_handlers`). */
  get handlers(): readonly HandlerName[] {
    const handlers: HandlerName[] = this.#options.jwt === undefined ? ['cookie'] : ['jwt', 'cookie'];
    if (this.#options.proxy !== undefined) handlers.push('proxy');
    handlers.push('default');
    return handlers;
  }

  /** Turns proxy authentication on (its settings) or off (undefined): the config API. */
  setProxy(proxy: ProxyAuthOptions | undefined): void {
    if (proxy === undefined) delete this.#options.proxy;
    else this.#options.proxy = proxy;
  }

  /** Replaces the JWT settings (the config API's `jwt_keys`); undefined turns the handler off. */
  setJwt(jwt: JwtVerifier | undefined): void {
    if (jwt === undefined) delete this.#options.jwt;
    else this.#options.jwt = jwt;
  }

  /** Who sends a request, from its Cookie and Authorization headers. */
  async authenticate(
    cookieHeader: string | undefined,
    authorization: string | undefined,
    /** The client's address, asked for only when the lockout tracks a failure (a system call). */
    address: () => string,
    /** All request headers (proxy authentication reads its own). */
    headers: Record<string, string | string[] | undefined> = {},
    /** The request's connection: its Basic login is remembered for its next requests. */
    connection?: object,
  ): Promise<Authenticated> {
    const { jwt } = this.#options;
    if (jwt !== undefined && authorization?.startsWith('Bearer ')) {
      const user = jwt.userOf(authorization.slice('Bearer '.length).trim(), this.#now() / 1000);
      return { user, via: 'jwt' };
    }
    const cookie = decodeCookie(authSessionOf(cookieHeader) ?? '');
    if (cookie !== null) {
      const found = await this.#fromCookie(cookie);
      if (found !== undefined) return found;
    }
    const { proxy } = this.#options;
    if (proxy !== undefined) {
      const user = proxyUser(proxy, headers);
      if (user !== undefined) return { user, via: 'proxy' };
    }
    if (connection !== undefined && authorization !== undefined) {
      const user = await this.#relogin(connection, authorization, address);
      if (user !== undefined) return { user, via: 'default' };
    }
    const credentials = parseAuthorization(authorization);
    if (credentials === null) return { user: anonymous() };
    const { user, stored } = await this.#login(credentials.name, credentials.password, address);
    if (connection !== undefined) this.#connections.remember(connection, authorization!, credentials.name, stored);
    return { user, via: 'default' };
  }

  /** Checks a name and password (Basic auth, `POST /_session`), with the lockout. */
  async login(name: string, password: string, address: () => string): Promise<UserCtx> {
    return (await this.#login(name, password, address)).user;
  }

  /** The login, and the stored hash it verified against (an admin's hash, an account's credentials). */
  async #login(name: string, password: string, address: () => string): Promise<{ user: UserCtx; stored: string }> {
    const { admins, lockout } = this.#options;
    const isAdmin = admins.has(name);
    const account = isAdmin ? undefined : await this.#options.findUser(name);
    const lockKey = this.#lockKey(name, isAdmin, account);
    // Checked before the password so a locked account costs no PBKDF2 run.
    if (lockout.isLocked(lockKey, address)) throw new CouchError('forbidden', LOCKED_REASON);
    let found: { user: UserCtx; stored: string } | undefined;
    if (isAdmin) {
      const stored = admins.hashOf(name);
      if (stored !== undefined && (await admins.verifyAsync(name, password))) {
        found = { user: { name, roles: [ADMIN_ROLE] }, stored };
      }
    } else if (account?.credentials === undefined) {
      await burnPasswordCheck(password, this.#options.iterations);
    } else if (await this.#verify(name, password, account.credentials)) {
      found = { user: { name, roles: account.roles }, stored: JSON.stringify(account.credentials) };
      if (this.#isWeaker(account.credentials)) void this.#options.upgradeUser?.(name, password).catch(() => {});
    }
    if (found === undefined) {
      lockout.recordFailure(lockKey, address);
      throw new CouchError('unauthorized', INCORRECT);
    }
    lockout.recordSuccess(lockKey, address);
    return found;
  }

  /**
   * The user of a connection's next request with the Authorization header its last login
   * verified, while the password stored for that name is still the one it verified against (a
   * changed or removed admin or account goes the whole way again): the lockout is checked and
   * the roles read as for any login, only the header's parse and the verification key are saved.
   */
  async #relogin(connection: object, authorization: string, address: () => string): Promise<UserCtx | undefined> {
    const known = this.#connections.of(connection, authorization);
    if (known === undefined) return undefined;
    const { admins, lockout } = this.#options;
    const { name } = known;
    const isAdmin = admins.has(name);
    const account = isAdmin ? undefined : await this.#options.findUser(name);
    const stored = isAdmin
      ? admins.hashOf(name)
      : account?.credentials === undefined
        ? undefined
        : JSON.stringify(account.credentials);
    if (stored !== known.stored) return undefined;
    const lockKey = this.#lockKey(name, isAdmin, account);
    if (lockout.isLocked(lockKey, address)) throw new CouchError('forbidden', LOCKED_REASON);
    lockout.recordSuccess(lockKey, address);
    // Answered from a remembered verification, as the verified-key caches answer theirs.
    (isAdmin ? admins.cacheCounts : this.cacheCounts).hits++;
    return isAdmin ? { name, roles: [ADMIN_ROLE] } : { name, roles: account!.roles };
  }

  /** Failures are counted per (user, salt) as CouchDB does: a new password (new salt) starts a new count. */
  #lockKey(name: string, isAdmin: boolean, account: UserAccount | undefined): string {
    return `${name}\0${(isAdmin ? this.#adminSalt(name) : account?.credentials?.salt) ?? ''}`;
  }

  /** A new cookie value for a user (after a login), or undefined when the user has no salt. */
  async cookieFor(name: string): Promise<string | undefined> {
    const salt = await this.#saltOf(name);
    if (salt === undefined) return undefined;
    return encodeCookie(name, Math.floor(this.#now() / 1000), this.#options.secret, salt);
  }

  async #fromCookie(cookie: NonNullable<ReturnType<typeof decodeCookie>>): Promise<Authenticated | undefined> {
    const nowSec = this.#now() / 1000;
    if (!(nowSec < cookie.time + this.timeoutSec)) return undefined;
    let user: UserCtx;
    let salt: string | undefined;
    if (this.#options.admins.has(cookie.name)) {
      salt = this.#adminSalt(cookie.name);
      user = { name: cookie.name, roles: [ADMIN_ROLE] };
    } else {
      const account = await this.#options.findUser(cookie.name);
      salt = account?.credentials?.salt;
      user = { name: cookie.name, roles: account?.roles ?? [] };
    }
    if (salt === undefined || !cookieMacMatches(cookie, this.#options.secret, salt)) return undefined;
    const found: Authenticated = { user, via: 'cookie' };
    // Re-issued once less than 90% of its life is left.
    if (nowSec - cookie.time > this.timeoutSec / 10) {
      found.refresh = encodeCookie(cookie.name, Math.floor(nowSec), this.#options.secret, salt);
    }
    return found;
  }

  #isWeaker(stored: StoredCredentials): boolean {
    return stored.scheme !== 'pbkdf2' || stored.prf !== 'sha256' || stored.iterations < this.#options.iterations;
  }

  async #saltOf(name: string): Promise<string | undefined> {
    if (this.#options.admins.has(name)) return this.#adminSalt(name);
    return (await this.#options.findUser(name))?.credentials?.salt;
  }

  #adminSalt(name: string): string | undefined {
    const hash = this.#options.admins.hashOf(name);
    if (hash === undefined) return undefined;
    let known = this.#adminSalts.get(name);
    if (known?.hash !== hash) this.#adminSalts.set(name, (known = { hash, salt: parseHash(hash)?.salt ?? undefined }));
    return known.salt;
  }

  async #verify(name: string, password: string, stored: StoredCredentials): Promise<boolean> {
    // The stored hash is part of the key, so a changed password never hits an old entry.
    const key = this.#keys.of(name, password, JSON.stringify(stored));
    if (this.#verified.has(key)) {
      this.cacheCounts.hits++;
      return true;
    }
    this.cacheCounts.misses++;
    if (!(await verifyCredentials(password, stored))) return false; // failures are never cached
    if (this.#verified.size >= CACHE_LIMIT) {
      const oldest = this.#verified.values().next();
      if (!oldest.done) this.#verified.delete(oldest.value);
    }
    this.#verified.add(key);
    return true;
  }
}

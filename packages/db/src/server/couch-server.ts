/**
 * The server's state: the storage engine, the open databases, the admins and the lockout. The
 * HTTP layer asks it for databases by name; nothing here speaks HTTP.
 */
import { randomBytes } from 'node:crypto';
import {
  Authenticator,
  DEFAULT_ITERATIONS,
  Lockout,
  credentialsOf,
  type AdminStore,
  refreshAdmins,
  type UserAccount,
} from '../auth/index.js';
import { JwtVerifier, type JwtOptions } from '../auth/jwt.js';
import { loadConfig, type ConfigSections } from './config.js';
import type { CorsOptions } from './cors-settings.js';
import { effectiveSettings, type LiveSettings } from './settings.js';
import { USERS_DB, hashUserPassword, isUsersDb, userDocId } from '../documents/users-db.js';
import { readDocInput } from '../documents/doc-input.js';
import { parseRev } from '../revisions/index.js';
import { CouchError, dbNotFound } from '../errors.js';
import { Database, type DatabaseOptions, DEFAULT_MAX_ATTACHMENT_BYTES } from '../documents/database.js';
import type { Storage } from '../storage/contract.js';
import { JsonObject, toPlain } from '../json/index.js';
import { StorageExistsError } from '../storage/contract.js';
import { validateDbName } from '../storage/db-names.js';
import { checkDesignWrite } from '../views/design-check.js';
import { ViewManager } from '../views/view-manager.js';
import { searchMapper } from '../search/search-mapper.js';
import { searchSignatures } from '../search/search-design.js';
import { jsonIndexMapper } from '../mango/json-index.js';
import { matches } from '../mango/match.js';
import { parseSelector } from '../mango/selector.js';
import type { ViewGroup } from '../views/design.js';
import { ServerStats, type StatsTree } from './stats.js';
import { Replicator } from '../replication/replicator.js';
import { DbUpdates } from './db-updates.js';
import { UuidGenerator } from './uuids.js';

/**
 * Mango's JSON indexes (`"language": "query"` design docs) are mapped natively; so are
 * full-text indexes (their index functions run in the sandbox, their analyzers here).
 */
function mangoMappers(group: ViewGroup) {
  if (group.language !== 'query') return searchMapper(group);
  return jsonIndexMapper(group, (json) => {
    const selector = parseSelector(json);
    return (doc) => matches(selector, doc);
  });
}

export interface CouchServerOptions {
  storage: Storage;
  admins: AdminStore;
  maxBodyBytes: number;
  /** The largest attachment accepted (default CouchDB's 1 GiB). */
  maxAttachmentBytes?: number;
  log: (line: string) => void;
  /** The session cookie secret, shared by every node (a storage server value); default: random. */
  sessionSecret?: string;
  /** Session cookie lifetime in seconds (CouchDB's 600). */
  sessionTimeoutSec?: number;
  /** PBKDF2 rounds for passwords hashed now (CouchDB's 600000; tests use fewer). */
  hashIterations?: number;
  /** CORS (CouchDB's `enable_cors` and `[cors]`); off unless given. */
  cors?: CorsOptions;
  /** Bearer-token authentication (CouchDB's `jwt` handler); off unless keys are given. */
  jwt?: JwtOptions;
  /** Whether `PUT /_users/_security` is allowed (CouchDB's `users_db_security_editable`, false). */
  usersDbSecurityEditable?: boolean;
  /** The data folder, absolute (shown as `[couchdb] database_dir`). */
  databaseDir?: string;
}

/** This node's name, as `/_membership` and `/_node/{node}/` spell it (CouchDB's single-node default). */
export const NODE_NAME = 'nonode@nohost';

export class CouchServer {
  readonly storage: Storage;
  readonly admins: AdminStore;
  readonly lockout = new Lockout();
  /** `[chttpd] max_http_request_size` as configured now (the start option, then the config API). */
  maxBodyBytes: number;
  readonly maxAttachmentBytes: number;
  /** Where this node keeps its files (`[couchdb] database_dir`), when it has a folder. */
  readonly databaseDir: string | undefined;
  readonly log: (line: string) => void;
  readonly auth: Authenticator;
  readonly hashIterations: number;
  usersDbSecurityEditable: boolean;
  /** CORS as configured now (start options, then the config API). */
  cors: CorsOptions | undefined;
  /** Session cookie attributes as configured now (`same_site`, `cookie_domain`, persistence). */
  cookie: NonNullable<LiveSettings['cookie']> = {};
  /** The start options the config API's stored values go over. */
  readonly baseSettings: LiveSettings;
  /** The stored config sections (`/_node/_local/_config`). */
  config: ConfigSections = {};
  private configWatch: NodeJS.Timeout | undefined;
  /** A stable identity for this server's lifetime (`GET /` uuid, `instance_start_time`). */
  readonly uuid = randomBytes(16).toString('hex');
  readonly startTime = Date.now();
  /** Counted by the floors that see the events, read by `/_node/{node}/_stats` and `_prometheus`. */
  readonly stats = new ServerStats();
  /** The replications `POST /_replicate` started, acting on this server's databases in process. */
  readonly replicator = new Replicator({
    values: {
      getServerValue: (key) => this.storage.getServerValue(key),
      setServerValue: (key, value) => this.storage.setServerValue(key, value),
    },
    node: NODE_NAME,
    log: (line) => this.log(line),
    openDb: (name) => this.db(name),
    createDb: (name) => this.createDb(name),
  });
  /** The server's database events (`_db_updates`). */
  readonly dbUpdates: DbUpdates;
  /** `/_uuids`' generator (its sequence is this node's). */
  readonly uuids = new UuidGenerator();
  private readonly open = new Map<string, Database>();
  /** What every database is opened with: the view engine's design rules, the password rounds of `_users`. */
  private readonly databaseOptions: DatabaseOptions;
  private readonly viewManagers = new Map<Database, ViewManager>();

  constructor(options: CouchServerOptions) {
    this.storage = options.storage;
    this.dbUpdates = new DbUpdates(options.storage);
    this.admins = options.admins;
    this.maxBodyBytes = options.maxBodyBytes;
    this.databaseDir = options.databaseDir;
    this.maxAttachmentBytes = options.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
    this.log = options.log;
    this.hashIterations = options.hashIterations ?? DEFAULT_ITERATIONS;
    this.databaseOptions = {
      check: checkDesignWrite,
      hashIterations: this.hashIterations,
      isUsersDb: (name) => this.isUsersDb(name),
    };
    this.usersDbSecurityEditable = options.usersDbSecurityEditable ?? false;
    this.cors = options.cors;
    this.baseSettings = {
      maxBodyBytes: options.maxBodyBytes,
      sessionTimeoutSec: options.sessionTimeoutSec ?? 600,
      usersDbSecurityEditable: this.usersDbSecurityEditable,
      ...(options.cors === undefined ? {} : { cors: options.cors }),
      ...(options.jwt === undefined ? {} : { jwt: options.jwt }),
    };
    this.auth = new Authenticator({
      admins: this.admins,
      lockout: this.lockout,
      findUser: (name) => this.findUser(name),
      upgradeUser: (name, password) => this.upgradeUser(name, password),
      secret: options.sessionSecret ?? randomBytes(16).toString('hex'),
      timeoutSec: options.sessionTimeoutSec ?? 600,
      iterations: this.hashIterations,
      ...(options.jwt === undefined ? {} : { jwt: new JwtVerifier(options.jwt) }),
    });
  }

  /** Applies stored config sections (throws a 400, changing nothing, when a value is unusable). */
  applyConfig(sections: ConfigSections): void {
    const settings = effectiveSettings(this.baseSettings, sections);
    const jwt = settings.jwt === undefined ? undefined : new JwtVerifier(settings.jwt);
    this.config = sections;
    this.maxBodyBytes = settings.maxBodyBytes;
    this.cors = settings.cors;
    this.cookie = settings.cookie ?? {};
    this.usersDbSecurityEditable = settings.usersDbSecurityEditable;
    this.auth.timeoutSec = settings.sessionTimeoutSec;
    this.auth.setJwt(jwt);
    this.auth.setProxy(settings.proxy);
  }

  /** `POST /_node/_local/_config/_reload`: the stored config and admins, read again now. */
  async reloadConfig(): Promise<void> {
    await refreshAdmins(this.storage, this.admins);
    this.applyConfig(await loadConfig(this.storage));
  }

  /**
   * Reads the stored config and admins now and every few seconds (other nodes' changes apply here
   * too).
   */
  async watchConfig(intervalMs = 5_000): Promise<void> {
    await refreshAdmins(this.storage, this.admins);
    this.applyConfig(await loadConfig(this.storage));
    this.configWatch ??= setInterval(() => {
      refreshAdmins(this.storage, this.admins).catch(() => {}); // storage away: next round
      loadConfig(this.storage).then(
        (sections) => {
          try {
            this.applyConfig(sections);
          } catch (error) {
            this.log(`[error] stored config: ${(error as Error).message}`);
          }
        },
        () => {}, // storage away for a moment: the next round tries again
      );
    }, intervalMs).unref();
  }

  /** Rewrites a user's hash with today's scheme and rounds, keeping the salt (and so the cookies). */
  private async upgradeUser(name: string, password: string): Promise<void> {
    const db = await this.db(this.authenticationDb);
    const id = userDocId(name);
    const current = await db.winningBody(id);
    if (!(current?.body instanceof JsonObject)) return;
    const salt = current.body.get('salt');
    if (typeof salt !== 'string') return;
    const kept = current.body.without(new Set(['password', 'preserve_salt']));
    const withPassword = new JsonObject([...kept.keys, 'password', 'preserve_salt'], [...kept.values, password, true]);
    const hashed = await hashUserPassword(withPassword, this.hashIterations);
    if (hashed === undefined) return;
    const input = readDocInput(hashed);
    input.rev = parseRev(current.rev);
    await db.putDoc(id, input); // a concurrent update wins: this one then fails as a conflict
  }

  /** Where accounts live: `[chttpd_auth] authentication_db`, `_users` unless configured. */
  get authenticationDb(): string {
    return this.config.chttpd_auth?.authentication_db || USERS_DB;
  }

  /** CouchDB's rule: `_users`, any `…/_users`, and the authentication database. */
  isUsersDb(name: string): boolean {
    return isUsersDb(name) || name === this.authenticationDb;
  }

  /** An account of the authentication database, read at every request so changes apply at once. */
  async findUser(name: string): Promise<UserAccount | undefined> {
    let db: Database;
    try {
      db = await this.db(this.authenticationDb);
    } catch (error) {
      if (error instanceof CouchError && error.status === 404) return undefined;
      throw error;
    }
    const found = await db.winningBody(userDocId(name));
    if (found === undefined) return undefined;
    const doc = toPlain(found.body) as Record<string, unknown>;
    const roles = Array.isArray(doc.roles) ? doc.roles.filter((r): r is string => typeof r === 'string') : [];
    return { name, roles, credentials: credentialsOf(doc) };
  }

  /** The database of that name, or a 404 `Database does not exist.` */
  async db(name: string): Promise<Database> {
    const open = this.open.get(name);
    if (open !== undefined) return open;
    const store = await this.storage.open(name);
    if (store === undefined) throw dbNotFound();
    const { createdAt } = await store.meta();
    // Another request may have opened it meanwhile: one Database per name.
    let db = this.open.get(name);
    if (db === undefined) {
      db = new Database(name, store, createdAt, this.databaseOptions);
      db.maxAttachmentBytes = this.maxAttachmentBytes;
      this.open.set(name, db);
    }
    return db;
  }

  async createDb(name: string): Promise<Database> {
    validateDbName(name);
    try {
      const store = await this.storage.create(name);
      const db = new Database(name, store, (await store.meta()).createdAt, this.databaseOptions);
      db.maxAttachmentBytes = this.maxAttachmentBytes;
      this.open.set(name, db);
      return db;
    } catch (error) {
      if (error instanceof StorageExistsError) {
        throw new CouchError('file_exists', 'The database could not be created, the file already exists.');
      }
      throw error;
    }
  }

  /** The view indexes of a database (created on first use). */
  views(db: Database): ViewManager {
    let manager = this.viewManagers.get(db);
    if (manager === undefined) {
      manager = new ViewManager(db, db.viewIndexes(), this.log, mangoMappers, searchSignatures);
      this.viewManagers.set(db, manager);
    }
    return manager;
  }

  /** Every open view manager (for `_active_tasks`). */
  allViews(): ViewManager[] {
    return [...this.viewManagers.values()];
  }

  async deleteDb(name: string): Promise<void> {
    const db = this.open.get(name);
    if (db !== undefined) {
      void this.viewManagers.get(db)?.close();
      this.viewManagers.delete(db);
    }
    this.open.delete(name);
    if (!(await this.storage.destroy(name))) throw dbNotFound();
  }

  /** How many databases are open now (`_stats`' `open_databases`). */
  get openDbCount(): number {
    return this.open.size;
  }

  /** `_stats`: the counters, with the values read at this moment. */
  statsTree(): StatsTree {
    const admins = this.admins.cacheCounts;
    const users = this.auth.cacheCounts;
    return this.stats.tree({
      'couchdb.open_databases': this.openDbCount,
      'couchdb.auth_cache_hits': admins.hits + users.hits,
      'couchdb.auth_cache_misses': admins.misses + users.misses,
    });
  }

  listDbs(): Promise<string[]> {
    return this.storage.listDatabases();
  }

  async close(): Promise<void> {
    await this.replicator.close();
    if (this.configWatch !== undefined) clearInterval(this.configWatch);
    for (const manager of this.viewManagers.values()) await manager.close();
    this.viewManagers.clear();
    this.open.clear();
    await this.storage.close();
  }
}

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
import { loadConfig, saveConfig, type ConfigSections } from './config.js';
import { perDocAccess } from './access-settings.js';
import { attachmentCompressionLevel } from './attachment-settings.js';
import { addQueryServerMeter } from '../sandbox/meter.js';
import { AccessRoleFollower } from './access-roles.js';
import { PerUserDatabases, perUserSettings } from './peruser.js';
import type { CorsOptions } from './cors-settings.js';
import { effectiveSettings, type LiveSettings } from './settings.js';
import { USERS_DB, hashUserPassword, isUsersDb, userDocId } from '../documents/users-db.js';
import { readDocInput } from '../documents/doc-input.js';
import { ACCESS_PROP } from '../documents/access-rules.js';
import { checkPartitionableName, PARTITIONED_PROP } from '../documents/partition.js';
import { parseRev } from '../revisions/index.js';
import { CouchError, dbNotFound } from '../errors.js';
import { Database, type DatabaseOptions, DEFAULT_MAX_ATTACHMENT_BYTES } from '../documents/database.js';
import type { Storage } from '../storage/contract.js';
import { JsonObject, toPlain } from '../json/index.js';
import { StorageExistsError } from '../storage/contract.js';
import { validateDbName } from '../storage/db-names.js';
import { checkDesignWrite } from '../views/design-check.js';
import { ViewManager } from '../views/view-manager.js';
import { fullTextSignatures, nativeMappers } from './native-mappers.js';
import { ServerStats, type StatsTree } from './stats.js';
import type { ReplicatorMeter } from '../replication/meter.js';
import { Replicator } from '../replication/replicator.js';
import { ReplicationScheduler } from '../replication/scheduler.js';
import { ReplicatorDocs } from '../replication/replicator-docs.js';
import { ReplicateJobs } from '../replication/replicate-jobs.js';
import { ReplicatorLease, type SchedulerSnapshot } from '../replication/replicator-lease.js';
import { coordinationValues, deleteStoredCoordination } from '../replication/coordination-values.js';
import { JobLeases } from '../replication/job-leases.js';
import { docListing, jobListing } from '../replication/scheduler-listing.js';
import { CREDENTIALS_KEY, newCredentialsKey } from '../documents/replicator-credentials.js';
import { SCHEDULER_DEFAULTS, schedulerSettings, type SchedulerSettings } from '../replication/scheduler-settings.js';
import { DEFAULT_TLS, type ReplicatorTls, replicatorTls } from '../replication/tls-settings.js';
import { DbUpdates } from './db-updates.js';
import { loadServerUuid, SERVER_UUID_KEY } from './server-uuid.js';
import { UuidGenerator } from './uuids.js';

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
  /** The replication scheduler's settings (`[replicator]`); CouchDB's defaults otherwise. */
  replicator?: Partial<SchedulerSettings>;
  /** This node's name in `_scheduler` (default CouchDB's `nonode@nohost`). */
  nodeName?: string;
}

/** This node's name, as `/_membership` and `/_node/{node}/` spell it (CouchDB's single-node default). */
export const NODE_NAME = 'nonode@nohost';

export class CouchServer {
  readonly storage: Storage;
  readonly admins: AdminStore;
  readonly lockout = new Lockout();
  /** `[chttpd] max_http_request_size` as configured now (the start option, then the config API). */
  maxBodyBytes: number;
  /** `[couchdb] max_attachment_size` as configured now (the start option, then the config API). */
  maxAttachmentBytes: number;
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
  /** Config changes of this node being stored, and how many were: the watch skips reads they overtake. */
  private configWrites = 0;
  private configGeneration = 0;
  /** This process among the nodes of a shared storage (leases, `_db_updates` ETags); new at every start. */
  readonly nodeId = randomBytes(16).toString('hex');
  /**
   * The server's uuid (`GET /`, `[couchdb] uuid`, replication ids): the stored one
   * (./server-uuid.ts) once {@link loadUuid} has read it, which `startServer` does before it
   * listens; this process's {@link nodeId} until then.
   */
  uuid = this.nodeId;
  private uuidLoad: Promise<string> | undefined;
  readonly startTime = Date.now();
  /** Counted by the floors that see the events, read by `/_node/{node}/_stats` and `_prometheus`. */
  readonly stats = new ServerStats();
  /** The sandboxes report to this node's `couchdb.query_server.*` statistics while it runs. */
  private readonly stopMetering = addQueryServerMeter(this.stats.queryServerMeter);
  /** The replicator reports its events to this node's `couch_replicator.*` statistics. */
  private readonly replicatorMeter: ReplicatorMeter = (counter) => this.stats.increment(`couch_replicator.${counter}`);
  /** The node name `_scheduler` shows (CouchDB's single-node name unless the start options name it). */
  readonly nodeName: string;
  /** How the replicator trusts `https:` peers (`[replicator]` TLS keys). */
  private replicatorTls: ReplicatorTls = DEFAULT_TLS;
  /** The replications `POST /_replicate` started, acting on this server's databases in process. */
  readonly replicator = new Replicator({
    tls: () => this.replicatorTls,
    serverUuid: () => this.loadUuid(),
    node: NODE_NAME,
    log: (line) => this.log(line),
    openDb: (name) => this.db(name),
    createDb: (name, options) => this.createDb(name, options),
    scheduler: () => this.scheduler,
    meter: this.replicatorMeter,
  });
  /** The jobs of replication documents, run `max_jobs` at a time (replication/scheduler.ts). */
  readonly scheduler = new ReplicationScheduler({
    log: (line) => this.log(line),
    open: (request, user) => this.replicator.open(request, user),
    completed: (job, result) => this.replicatorDocs.completed(job, result),
    holds: (jobId) => this.jobLeases.holds(jobId),
    added: () => void this.jobLeases.tick(),
    meter: this.replicatorMeter,
  });
  /** Where the leases below live: the storage's server values, or memory on a storage this process holds alone. */
  private readonly coordination = coordinationValues(() => this.storage);
  /** Which node runs each replication document's job, shared fairly among the nodes of the storage. */
  readonly jobLeases: JobLeases = new JobLeases({
    values: this.coordination,
    nodeId: this.nodeId,
    nodeName: () => this.nodeName,
    log: (line) => this.log(line),
    settled: () => this.replicatorDocs.settled(),
    jobIds: () =>
      this.scheduler
        .all()
        .filter((job) => job.origin !== null)
        .map((job) => job.id),
    changed: (jobId, holding) => this.scheduler.leaseChanged(jobId, holding),
    snapshot: () => this.schedulerSnapshot(),
  });
  /** Which node of those sharing the storage runs the replication documents' jobs. */
  readonly replicatorLease = new ReplicatorLease({
    values: this.coordination,
    nodeId: this.nodeId,
    nodeName: () => this.nodeName,
    log: (line) => this.log(line),
    changed: (holding) => {
      this.scheduler.setActive(holding);
      // Continuous `_replicate` jobs kept from before a restart start again on the node that runs jobs.
      if (holding) void this.replicateJobs.restart();
    },
  });
  /** The replicator databases' documents, followed and turned into the scheduler's jobs. */
  readonly replicatorDocs = new ReplicatorDocs(
    {
      log: (line) => this.log(line),
      listDbs: () => this.listDbs(),
      openDb: (name) => this.db(name),
      open: (request, user) => this.replicator.open(request, user),
      credentialsKey: () => this.credentialsKey(),
      leads: () => this.replicatorLease.holding,
      meter: this.replicatorMeter,
    },
    this.scheduler,
  );
  /** Continuous `POST /_replicate` jobs, kept to start again after a restart. */
  readonly replicateJobs = new ReplicateJobs({
    values: {
      getServerValue: (key) => this.storage.getServerValue(key),
      setServerValue: (key, value) => this.storage.setServerValue(key, value),
    },
    credentialsKey: () => this.credentialsKey(),
    replicator: this.replicator,
    log: (line) => this.log(line),
  });
  /** The scheduler's settings from the start options (`[replicator]` of the config API goes over them). */
  readonly baseSchedulerSettings: SchedulerSettings;
  /** The server's database events (`_db_updates`). */
  readonly dbUpdates: DbUpdates;
  /** `/_uuids`' generator (its sequence is this node's). */
  readonly uuids = new UuidGenerator();
  private readonly open = new Map<string, Database>();
  /** What every database is opened with: the view engine's design rules, the password rounds of `_users`. */
  private readonly databaseOptions: DatabaseOptions;
  private readonly viewManagers = new Map<Database, ViewManager>();
  /** `[couch_peruser]`: a private database per account, when enabled (./peruser.ts). */
  readonly perUser = new PerUserDatabases(this);
  /** Role changes in `_users` recorded in open access-enabled databases at once (./access-roles.ts). */
  readonly accessRoles = new AccessRoleFollower(this);

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
      accessAutofill: () => perDocAccess(this.config).autofill,
      attachmentCompressionLevel: () => attachmentCompressionLevel(this.config),
      credentialsKey: () => this.credentialsKey(),
      validated: (ms, refused) => {
        this.stats.observe('couchdb.query_server.vdu_process_time', ms);
        if (refused) this.stats.increment('couchdb.query_server.vdu_rejects');
      },
    };
    this.usersDbSecurityEditable = options.usersDbSecurityEditable ?? false;
    this.cors = options.cors;
    this.baseSchedulerSettings = { ...SCHEDULER_DEFAULTS, ...options.replicator };
    this.nodeName = options.nodeName ?? NODE_NAME;
    this.scheduler.settings = this.baseSchedulerSettings;
    this.baseSettings = {
      maxBodyBytes: options.maxBodyBytes,
      maxAttachmentBytes: this.maxAttachmentBytes,
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
    attachmentCompressionLevel(sections); // refuses an unusable level before anything changes
    const jwt = settings.jwt === undefined ? undefined : new JwtVerifier(settings.jwt);
    const replicator = schedulerSettings(this.baseSchedulerSettings, sections.replicator);
    const replicatorTlsSettings = replicatorTls(sections.replicator);
    this.config = sections;
    this.scheduler.configure(replicator);
    // Kept as the same object while unchanged: each setting has its own https agent and kept
    // connections (replication/http-client.ts), and the config watch applies every few seconds.
    const tls = this.replicatorTls;
    if (replicatorTlsSettings.verify !== tls.verify || replicatorTlsSettings.trusted !== tls.trusted) {
      this.replicatorTls = replicatorTlsSettings;
    }
    this.maxBodyBytes = settings.maxBodyBytes;
    this.maxAttachmentBytes = settings.maxAttachmentBytes;
    for (const db of this.open.values()) db.maxAttachmentBytes = settings.maxAttachmentBytes;
    this.cors = settings.cors;
    this.cookie = settings.cookie ?? {};
    this.usersDbSecurityEditable = settings.usersDbSecurityEditable;
    this.auth.timeoutSec = settings.sessionTimeoutSec;
    this.auth.setJwt(jwt);
    this.auth.setProxy(settings.proxy);
    this.perUser.configure(perUserSettings(sections));
    this.accessRoles.start();
  }

  /**
   * A config change made on this node: applied at once (a 400, changing nothing, when unusable),
   * then stored. Until it is stored, and for the periodic reads that began before it, the watch
   * below keeps its older copy of the store to itself (it would undo the change for a round).
   */
  async changeConfig(sections: ConfigSections): Promise<void> {
    this.applyConfig(sections);
    this.configWrites++;
    try {
      await saveConfig(this.storage, sections);
    } finally {
      this.configWrites--;
      this.configGeneration++;
    }
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
      const generation = this.configGeneration;
      loadConfig(this.storage).then(
        (sections) => {
          if (this.configWrites > 0 || generation !== this.configGeneration) return; // read before a change here
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
    const account = await this.accountDoc(name);
    return account && { name, roles: account.roles, credentials: credentialsOf(account.doc) };
  }

  /** The databases open on this node. */
  openDatabases(): Iterable<Database> {
    return this.open.values();
  }

  /**
   * An account's roles with its document's revision number, read now (per-document access's
   * role log, documents/access-roles.ts); undefined when there is no such account.
   */
  async accountRoles(name: string): Promise<{ roles: string[]; version: number } | undefined> {
    const account = await this.accountDoc(name);
    return account && { roles: account.roles, version: account.version };
  }

  /** An account's document as it is now, its roles (strings only) and its revision number. */
  private async accountDoc(
    name: string,
  ): Promise<{ doc: Record<string, unknown>; roles: string[]; version: number } | undefined> {
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
    return { doc, roles, version: Number(found.rev.slice(0, found.rev.indexOf('-'))) };
  }

  /** The database if it is open already (no storage call): request paths try it before `db`. */
  openDb(name: string): Database | undefined {
    return this.open.get(name);
  }

  /** The database of that name, or a 404 `Database does not exist.` */
  async db(name: string): Promise<Database> {
    const open = this.open.get(name);
    if (open !== undefined) return open;
    const store = await this.storage.open(name);
    if (store === undefined) throw dbNotFound();
    const { createdAt } = await store.meta();
    const partitioned = (await store.getProp(PARTITIONED_PROP)) === 'true';
    // Another request may have opened it meanwhile: one Database per name.
    let db = this.open.get(name);
    if (db === undefined) {
      db = new Database(name, store, createdAt, { ...this.databaseOptions, partitioned });
      db.maxAttachmentBytes = this.maxAttachmentBytes;
      this.open.set(name, db);
    }
    return db;
  }

  /**
   * Creates a database; `partitioned` (documents/partition.ts) and `access` (per-document
   * `_access`, documents/access-rules.ts) are kept in its storage for good, before anyone can
   * write to it.
   */
  async createDb(name: string, options: { partitioned?: boolean; access?: boolean } = {}): Promise<Database> {
    validateDbName(name);
    const partitioned = options.partitioned === true;
    const access = options.access === true;
    if (partitioned) checkPartitionableName(name);
    if (partitioned && access) {
      throw new CouchError(
        'bad_request',
        'Per-document access (`access=true`) is not supported on a partitioned database.',
      );
    }
    try {
      const store = await this.storage.create(name);
      const prop = partitioned ? PARTITIONED_PROP : access ? ACCESS_PROP : undefined;
      if (prop !== undefined) {
        // Never left as an ordinary database: one whose mark failed to be stored goes again.
        await store.setProp(prop, 'true').catch(async (error: unknown) => {
          await this.storage.destroy(name).catch(() => {});
          throw error;
        });
      }
      const db = new Database(name, store, (await store.meta()).createdAt, { ...this.databaseOptions, partitioned });
      db.maxAttachmentBytes = this.maxAttachmentBytes;
      this.open.set(name, db);
      this.replicatorDocs.follow(name);
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
      manager = new ViewManager(db, db.viewIndexes(), this.log, nativeMappers, fullTextSignatures);
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
    const jobs = { running: 0, pending: 0, crashing: 0 };
    const scheduled = this.scheduler.all();
    for (const job of scheduled) jobs[this.scheduler.stateOf(job)]++;
    return this.stats.tree({
      'couchdb.open_databases': this.openDbCount,
      'couchdb.auth_cache_hits': admins.hits + users.hits,
      'couchdb.auth_cache_misses': admins.misses + users.misses,
      'couch_replicator.jobs.running': jobs.running,
      'couch_replicator.jobs.pending': jobs.pending,
      'couch_replicator.jobs.crashed': jobs.crashing,
      'couch_replicator.jobs.total': scheduled.length,
    });
  }

  listDbs(): Promise<string[]> {
    return this.storage.listDatabases();
  }

  /**
   * The key replication documents' credentials are encrypted with: a server value, made once by
   * whichever node needs it first (atomically), the same for every node on this storage.
   */
  credentialsKey(): Promise<Buffer> {
    this.credentialsKeyRead ??= this.storage
      .addServerValue(CREDENTIALS_KEY, newCredentialsKey())
      .then((hex) => Buffer.from(hex, 'hex'));
    this.credentialsKeyRead.catch(() => {
      this.credentialsKeyRead = undefined;
    });
    return this.credentialsKeyRead;
  }
  private credentialsKeyRead: Promise<Buffer> | undefined;

  /** Starts the replication scheduler and the following of replicator databases. */
  startReplicator(): void {
    if (!this.storage.sharedByNodes) {
      deleteStoredCoordination(this.storage).catch((error) =>
        this.log(`[error] replicator: old lease keys not deleted: ${(error as Error).message}`),
      );
    }
    this.scheduler.start();
    this.replicatorDocs.start();
    this.replicatorLease.start();
    this.jobLeases.start();
  }

  /** What `/_scheduler` shows of the documents' jobs on this node (published when it holds the lease). */
  schedulerSnapshot(): SchedulerSnapshot {
    return {
      node: this.nodeName,
      // This node's `_replicate` jobs are listed by each node itself (Replicator.schedulerJobs).
      jobs: this.scheduler
        .all()
        .filter((job) => job.origin !== null)
        .map((job) => jobListing(job, this.nodeName)),
      docs: this.replicatorDocs.all().map((entry) => docListing(entry, this.scheduler, this.nodeName)),
    };
  }

  /**
   * Stops every replication (each after its checkpoint) and gives the lease up. The server calls
   * it before it stops answering HTTP: a job whose endpoint is this server's own URL checkpoints then.
   */
  stopReplication(): Promise<void> {
    this.replicationStopped ??= (async () => {
      await this.jobLeases.close();
      await this.replicatorLease.close();
      this.replicatorDocs.close();
      await this.scheduler.close();
    })();
    return this.replicationStopped;
  }
  private replicationStopped: Promise<void> | undefined;

  /** The stored server uuid, read (or made) once; {@link uuid} holds it after. */
  loadUuid(): Promise<string> {
    this.uuidLoad ??= loadServerUuid(this.storage).then((uuid) => {
      this.uuid = uuid;
      return uuid;
    });
    this.uuidLoad.catch(() => {
      this.uuidLoad = undefined;
    });
    return this.uuidLoad;
  }

  /** A new stored uuid (`PUT /_node/_local/_config/couchdb/uuid`); running replications keep their ids until they start again. */
  async changeUuid(uuid: string): Promise<void> {
    await this.storage.setServerValue(SERVER_UUID_KEY, uuid);
    this.uuid = uuid;
    this.uuidLoad = Promise.resolve(uuid);
  }

  async close(): Promise<void> {
    await this.stopReplication();
    this.stopMetering();
    this.perUser.stop();
    await this.perUser.settled();
    this.accessRoles.stop();
    await this.accessRoles.settled();
    if (this.configWatch !== undefined) clearInterval(this.configWatch);
    for (const manager of this.viewManagers.values()) await manager.close();
    this.viewManagers.clear();
    this.open.clear();
    await this.storage.close();
  }
}

/**
 * The server's state: the storage engine, the open databases, the admins and the lockout. The
 * HTTP layer asks it for databases by name; nothing here speaks HTTP.
 */
import { randomBytes } from 'node:crypto';
import { Lockout, type AdminStore } from '../auth/index.js';
import { CouchError, dbNotFound } from '../errors.js';
import { Database, DEFAULT_MAX_ATTACHMENT_BYTES } from '../documents/database.js';
import type { Storage } from '../storage/contract.js';
import { StorageExistsError } from '../storage/engine.js';
import { validateDbName } from './db-names.js';
import { checkDesignWrite } from '../views/design-check.js';
import { ViewManager } from '../views/view-manager.js';
import { jsonIndexMapper } from '../mango/json-index.js';
import { matches } from '../mango/match.js';
import { parseSelector } from '../mango/selector.js';
import type { ViewGroup } from '../views/design.js';
import { RequestStats } from './request-stats.js';

/** Mango's JSON indexes (`"language": "query"` design docs) are mapped natively. */
function mangoMappers(group: ViewGroup) {
  if (group.language !== 'query') return undefined;
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
}

/** This node's name, as `/_membership` and `/_node/{node}/` spell it (CouchDB's single-node default). */
export const NODE_NAME = 'nonode@nohost';

export class CouchServer {
  readonly storage: Storage;
  readonly admins: AdminStore;
  readonly lockout = new Lockout();
  readonly maxBodyBytes: number;
  readonly maxAttachmentBytes: number;
  readonly log: (line: string) => void;
  /** A stable identity for this server's lifetime (`GET /` uuid, `instance_start_time`). */
  readonly uuid = randomBytes(16).toString('hex');
  readonly startTime = Date.now();
  /** Counted by the HTTP layer, read by `/_node/{node}/_stats`. */
  readonly stats = new RequestStats();
  private readonly open = new Map<string, Database>();
  private readonly viewManagers = new Map<Database, ViewManager>();

  constructor(options: CouchServerOptions) {
    this.storage = options.storage;
    this.admins = options.admins;
    this.maxBodyBytes = options.maxBodyBytes;
    this.maxAttachmentBytes = options.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
    this.log = options.log;
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
      db = new Database(name, store, createdAt, checkDesignWrite);
      db.maxAttachmentBytes = this.maxAttachmentBytes;
      this.open.set(name, db);
    }
    return db;
  }

  async createDb(name: string): Promise<Database> {
    validateDbName(name);
    try {
      const store = await this.storage.create(name);
      const db = new Database(name, store, (await store.meta()).createdAt, checkDesignWrite);
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
      manager = new ViewManager(db, db.store.viewIndexes(), this.log, mangoMappers);
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

  listDbs(): Promise<string[]> {
    return this.storage.listDatabases();
  }

  async close(): Promise<void> {
    for (const manager of this.viewManagers.values()) await manager.close();
    this.viewManagers.clear();
    this.open.clear();
    await this.storage.close();
  }
}

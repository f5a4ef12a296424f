/**
 * The SQLite engine behind the asynchronous contract (../contract.ts). better-sqlite3 is
 * synchronous and this process is each file's only writer, so every call is answered at once
 * inside; folds hand out the pages the engine reads anyway.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Counters, DocumentStore, Page, Planner, Storage } from '../contract.js';
import type { DatabaseStore, DbMeta, DocRecord, EngineOptions, IdRange, LocalDoc, StorageEngine } from '../engine.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { openSqliteEngine } from './sqlite-engine.js';

/** Rows per page handed out by the folds. */
const PAGE_ROWS = 256;

/** Server-level values, in their own file (its name can never be a database's). */
const SERVER_FILE = '_server.sqlite';

export function openSqliteStorage(options: EngineOptions): Storage {
  return new SqliteStorage(openSqliteEngine(options), options.dir);
}

class SqliteStorage implements Storage {
  private readonly stores = new WeakMap<DatabaseStore, SqliteDocumentStore>();
  private server: Database.Database | undefined;

  constructor(
    private readonly engine: StorageEngine,
    private readonly dir: string,
  ) {}

  async listDatabases(): Promise<string[]> {
    return this.engine.listDatabases();
  }

  async create(name: string): Promise<DocumentStore> {
    return this.wrap(this.engine.create(name));
  }

  async open(name: string): Promise<DocumentStore | undefined> {
    const store = this.engine.open(name);
    return store === undefined ? undefined : this.wrap(store);
  }

  async destroy(name: string): Promise<boolean> {
    return this.engine.destroy(name);
  }

  async getServerValue(key: string): Promise<string | undefined> {
    return this.serverDb().prepare('SELECT value FROM server_state WHERE key = ?').pluck().get(key) as
      | string
      | undefined;
  }

  async setServerValue(key: string, value: string): Promise<void> {
    this.serverDb().prepare('INSERT OR REPLACE INTO server_state (key, value) VALUES (?, ?)').run(key, value);
  }

  async close(): Promise<void> {
    this.engine.close();
    this.server?.close();
    this.server = undefined;
  }

  private serverDb(): Database.Database {
    if (this.server === undefined) {
      const db = new Database(join(this.dir, SERVER_FILE), { timeout: 5000 });
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE IF NOT EXISTS server_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
      this.server = db;
    }
    return this.server;
  }

  private wrap(store: DatabaseStore): DocumentStore {
    let wrapped = this.stores.get(store);
    if (wrapped === undefined) {
      wrapped = new SqliteDocumentStore(store as SqliteDatabase);
      this.stores.set(store, wrapped);
    }
    return wrapped;
  }
}

class SqliteDocumentStore implements DocumentStore {
  constructor(private readonly db: SqliteDatabase) {}

  get name(): string {
    return this.db.name;
  }

  async meta(): Promise<DbMeta> {
    return this.db.meta();
  }

  async counters(): Promise<Counters> {
    // The contract's counters (the engine's also count purges, which this contract has not yet).
    const { updateSeq, docCount, docDelCount } = this.db.counters();
    return { updateSeq, docCount, docDelCount };
  }

  async getDoc(id: string): Promise<DocRecord | undefined> {
    return this.db.getDoc(id);
  }

  async getDocs(ids: readonly string[]): Promise<(DocRecord | undefined)[]> {
    return this.db.getDocs(ids);
  }

  async getBody(id: string, rev: string): Promise<string | undefined> {
    return this.db.getBody(id, rev);
  }

  async update<R>(ids: readonly string[], plan: Planner<R>): Promise<{ result: R; seqs: number[] }> {
    return this.db.updateDocs(ids, plan);
  }

  foldDocs(range: IdRange): AsyncIterable<Page<DocRecord>> {
    return paged(this.db.foldDocs(range));
  }

  async countDocs(range: IdRange): Promise<number> {
    return this.db.countDocs(range);
  }

  foldChanges(since: number, descending = false): AsyncIterable<Page<DocRecord>> {
    return paged(this.db.foldChanges(since, descending));
  }

  foldChangedBodies(since: number) {
    return paged(this.db.foldChangedBodies(since));
  }

  async countChanges(since: number): Promise<number> {
    return this.db.countChanges(since);
  }

  async getLocal(id: string): Promise<LocalDoc | undefined> {
    return this.db.getLocal(id);
  }

  async putLocal(doc: LocalDoc): Promise<void> {
    this.db.putLocal(doc);
  }

  async deleteLocal(id: string): Promise<boolean> {
    return this.db.deleteLocal(id);
  }

  foldLocal(range: IdRange): AsyncIterable<Page<LocalDoc>> {
    return paged(this.db.foldLocal(range));
  }

  async getProp(key: string): Promise<string | undefined> {
    return this.db.getProp(key);
  }

  async setProp(key: string, value: string): Promise<void> {
    this.db.setProp(key, value);
  }
}

/** The rows of a synchronous fold, a page at a time (the fold reads no further than asked). */
async function* paged<T>(rows: Generator<T>): AsyncGenerator<Page<T>> {
  try {
    let page: T[] = [];
    for (const row of rows) {
      page.push(row);
      if (page.length === PAGE_ROWS) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  } finally {
    rows.return(undefined);
  }
}

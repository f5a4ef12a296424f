/**
 * The SQLite engine behind the asynchronous contract (../contract.ts). better-sqlite3 is
 * synchronous and this process is each file's only writer, so every call is answered at once
 * inside; folds hand out the pages the engine reads anyway.
 */
import type { AttachmentInfo, AttachmentSource, Counters, DbEvent, Page } from '../records.js';
import type {
  AttachmentSweepMark,
  CompactPlanner,
  DocumentStore,
  Planner,
  PurgePlanner,
  Storage,
  UpdateOptions,
} from '../contract.js';
import type { SqliteOptions, SqliteSyncEngine, SqliteSyncStore } from './sync-store.js';
import type {
  AccessChange,
  ChangedDoc,
  DbMeta,
  DocRecord,
  IdRange,
  NumberBound,
  LocalDoc,
  PurgeInfo,
  RoleChange,
  RoleRow,
  RangeStats,
} from '../records.js';
import { recordsOf } from './doc-reads.js';
import { deleteServerFile, listServerFiles, readServerFile, writeServerFile } from './server-files.js';
import { openSqliteEngine } from './sqlite-engine.js';
import { IndexFolder } from '../local-index/index-folder.js';
import { LocalAttachmentWrites } from '../attachment-writes.js';
import { type FolderLock, lockFolder } from '../folder-lock.js';
import { COUCH_EVENT_DELAY_MS, DbEventQueue } from '../db-event-queue.js';
import { DbEventsFile } from './db-events-file.js';

/** Rows per page handed out by the folds. */
const PAGE_ROWS = 256;

export function openSqliteStorage(options: SqliteOptions): SqliteStorage {
  const lock = lockFolder(options.dir);
  try {
    return new SqliteStorage(openSqliteEngine(options), options.dir, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

export class SqliteStorage implements Storage {
  /** The folder lock keeps every other process out. */
  readonly sharedByNodes = false;
  private readonly stores = new WeakMap<SqliteSyncStore, SqliteDocumentStore>();
  private readonly eventsFile: DbEventsFile;
  private readonly events: DbEventQueue;

  constructor(
    private readonly engine: SqliteSyncEngine,
    private readonly dir: string,
    private readonly lock: FolderLock,
  ) {
    this.eventsFile = new DbEventsFile(dir);
    this.events = new DbEventQueue(async (events) => this.eventsFile.write(events), COUCH_EVENT_DELAY_MS);
  }

  async listDatabases(): Promise<string[]> {
    return this.engine.listDatabases();
  }

  async create(name: string): Promise<DocumentStore> {
    const store = this.wrap(this.engine.create(name));
    await this.events.record(name, 'created');
    return store;
  }

  async open(name: string): Promise<DocumentStore | undefined> {
    const store = this.engine.open(name);
    return store === undefined ? undefined : this.wrap(store);
  }

  async destroy(name: string): Promise<boolean> {
    const existed = this.engine.destroy(name);
    if (existed) await this.events.record(name, 'deleted');
    return existed;
  }

  async *foldDbEvents(since: number, descending = false): AsyncIterable<Page<DbEvent>> {
    await this.events.flush();
    const events = this.eventsFile.events(since, descending);
    for (let i = 0; i < events.length; i += PAGE_ROWS) yield events.slice(i, i + PAGE_ROWS);
  }

  async dbEventSeq(): Promise<number> {
    await this.events.flush();
    return this.eventsFile.lastSeq;
  }

  /** Server values are small files in the data folder (./server-files.ts). */
  async getServerValue(key: string): Promise<string | undefined> {
    return readServerFile(this.dir, key);
  }

  async setServerValue(key: string, value: string): Promise<void> {
    writeServerFile(this.dir, key, value);
  }

  /** One process holds the data folder (the folder lock), and this runs without awaiting: atomic. */
  async addServerValue(key: string, value: string): Promise<string> {
    const stored = readServerFile(this.dir, key);
    if (stored !== undefined) return stored;
    writeServerFile(this.dir, key, value);
    return value;
  }

  async deleteServerValue(key: string): Promise<void> {
    deleteServerFile(this.dir, key);
  }

  async serverValueKeys(prefix: string): Promise<string[]> {
    return listServerFiles(this.dir, prefix);
  }

  async close(): Promise<void> {
    await this.events.flush().catch(() => {});
    this.engine.close();
    this.eventsFile.close();
    this.lock.release();
  }

  private wrap(store: SqliteSyncStore): DocumentStore {
    let wrapped = this.stores.get(store);
    if (wrapped === undefined) {
      wrapped = new SqliteDocumentStore(store, new IndexFolder(this.engine.indexDir(store.name)), this.events);
      this.stores.set(store, wrapped);
    }
    return wrapped;
  }
}

class SqliteDocumentStore implements DocumentStore {
  /** This process is the file's only writer: its own writes are all there are (../attachment-writes.ts). */
  private readonly attachmentWrites = new LocalAttachmentWrites();

  constructor(
    private readonly db: SqliteSyncStore,
    private readonly indexes: IndexFolder,
    /** The server's database events: each commit here records an `updated`. */
    private readonly events: DbEventQueue,
  ) {}

  viewIndexes(): IndexFolder {
    return this.indexes;
  }

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

  async getDocWithBody(id: string): Promise<{ record: DocRecord; body: string | undefined } | undefined> {
    return this.db.getDocWithBody(id);
  }

  async getBodies(wanted: readonly { id: string; rev: string }[]): Promise<(string | undefined)[]> {
    return this.db.getBodies(wanted);
  }

  async getDocsWithBodies(ids: readonly string[]): Promise<(ChangedDoc | undefined)[]> {
    return this.db.getDocsWithBodies(ids);
  }

  async plainWinnersText(ids: readonly string[], maxSeq: number, count: number): Promise<string | undefined> {
    return this.db.plainWinnersText(ids, maxSeq, count);
  }

  async update<R>(
    ids: readonly string[],
    plan: Planner<R>,
    options?: UpdateOptions,
  ): Promise<{ result: R; seqs: number[] }> {
    const done = this.db.updateDocs(ids, plan, options);
    if (done.seqs.length > 0) this.events.updated(this.name);
    return done;
  }

  async readersOf(ids: readonly string[]): Promise<string[][]> {
    return this.db.access.readersOf(ids);
  }

  foldReadable(principals: readonly string[], range: IdRange): AsyncIterable<Page<DocRecord>> {
    return paged(this.db.access.foldReadable(principals, range));
  }

  async countReadable(principals: readonly string[], range: IdRange): Promise<number> {
    return this.db.access.countReadable(principals, range);
  }

  foldAccessChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): AsyncIterable<Page<AccessChange>> {
    return paged(this.db.access.foldChanges(principals, since, options));
  }

  async countAccessChanges(principals: readonly string[], since: number, withRemoved: boolean): Promise<number> {
    return this.db.access.countChanges(principals, since, withRemoved);
  }

  async recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): Promise<{ log: RoleChange[]; seq?: number }> {
    const done = this.db.recordRoles(user, roles, principals, version);
    if (done.seq !== undefined) this.events.updated(this.name);
    return done;
  }

  foldRoleRows(user: string, since: number): AsyncIterable<Page<RoleRow>> {
    return paged(this.db.access.foldRoleRows(user, since));
  }

  async purge<R>(
    ids: readonly string[],
    keepInfos: number,
    plan: PurgePlanner<R>,
  ): Promise<{ result: R; purgeSeq: number; updateSeq: number }> {
    // Read, planned and written in one synchronous step: this connection is the only writer.
    const { purges, result } = plan(this.db.access.withLeaves(recordsOf(ids, this.db.getDocs(ids))));
    const done = { result, ...this.db.purgeDocs(purges, keepInfos) };
    this.events.updated(this.name);
    return done;
  }

  async purgeSeq(): Promise<number> {
    return this.db.counters().purgeSeq;
  }

  foldPurges(since: number): AsyncIterable<Page<PurgeInfo>> {
    return paged(this.db.foldPurges(since));
  }

  async oldestPurge(): Promise<number> {
    return this.db.oldestPurge();
  }

  async compact(ids: readonly string[], plan: CompactPlanner): Promise<void> {
    this.db.compactDocs(plan(recordsOf(ids, this.db.getDocs(ids))));
  }

  async countStaleBodies(leavesOf: (record: DocRecord) => readonly string[]): Promise<void> {
    this.db.countStaleBodies(leavesOf);
  }

  async reclaimSpace(maxPages: number): Promise<boolean> {
    return this.db.reclaimSpace(maxPages);
  }

  foldDocs(range: IdRange): AsyncIterable<Page<DocRecord>> {
    return paged(this.db.foldDocs(range));
  }

  async countDocs(range: IdRange): Promise<number> {
    return this.db.countDocs(range);
  }

  async rangeStats(start: string, end: string): Promise<RangeStats> {
    return this.db.rangeStats(start, end);
  }

  foldChanges(since: number, descending = false): AsyncIterable<Page<DocRecord>> {
    return paged(this.db.foldChanges(since, descending));
  }

  foldDocBodies(range: IdRange, bounds?: readonly NumberBound[]) {
    return paged(this.db.foldDocBodies(range, bounds));
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

  putAttachment(data: AttachmentSource): Promise<AttachmentInfo> {
    return this.db.attachments.put(data);
  }

  async attachmentInfo(digest: string): Promise<AttachmentInfo | undefined> {
    return this.db.attachments.infoOf(digest);
  }

  readAttachment(digest: string, start?: number, end?: number): AsyncIterable<Uint8Array> {
    return this.db.attachments.read(digest, start, end);
  }

  async deleteAttachments(digests: readonly string[]): Promise<void> {
    this.db.attachments.delete(digests);
  }

  foldAttachments(): AsyncIterable<Page<AttachmentInfo>> {
    return this.db.attachments.fold();
  }

  attachmentWrite<T>(write: () => Promise<T>): Promise<T> {
    return this.attachmentWrites.run(write);
  }

  async attachmentSweepMark(): Promise<AttachmentSweepMark | undefined> {
    return this.attachmentWrites.mark();
  }

  /** Uploads cut off leave nothing to sweep here: their chunks go when they fail, or when the file is next opened. */
  async sweepAttachments(digests: readonly string[], mark: AttachmentSweepMark): Promise<boolean> {
    if (!this.attachmentWrites.quietSince(mark)) return false;
    this.db.attachments.delete(digests);
    return true;
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

/**
 * One database of the SQLite engine: one file with a single connection, this process its only
 * writer, behind the engine's synchronous interface (./sync-store.ts). This class holds the
 * file's state (counters, the latest writes, props) and its transactions; the statements are
 * in ./doc-reads.ts, ./doc-writes.ts and ./doc-folds.ts, opening the file in ./sqlite-file.ts.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Planner, UpdateOptions } from '../contract.js';
import { SqliteAccessRows } from './access-rows.js';
import { RecentChanges } from '../recent-changes.js';
import type {
  ChangedDoc,
  CompactWrite,
  DbMeta,
  DocRecord,
  DocWrite,
  IdRange,
  NumberBound,
  LocalDoc,
  PurgeInfo,
  RoleChange,
  PurgeWrite,
  RangeStats,
} from '../records.js';
import { SqliteAttachments } from './attachments.js';
import { SqliteDocFolds } from './doc-folds.js';
import { recordsOf, SqliteDocReads } from './doc-reads.js';
import { type DocRow, type LocalRow, type StoredCounters, toLocal, toRecord } from './doc-rows.js';
import { TreeChunks } from './tree-chunks.js';
import { SqliteDocWrites } from './doc-writes.js';
import { configureConnection, loadCounters, migrateFile, migrateWinnerBodies } from './sqlite-file.js';
import { connectionNameOf } from './process-vfs.js';
import type { SqliteSyncStore } from './sync-store.js';
import { SAFETY_NET_PAGES, WalCheckpointer, WATCH_AFTER_DOCS } from './wal-checkpointer.js';

type Statement = Database.Statement;

/** Bodies of the latest writes kept in memory: 1% of a 1M-doc database of ~400-byte docs. */
const RECENT_BYTES = 4 * 1024 * 1024;
/** PRAGMA auto_vacuum's value for INCREMENTAL. */
const INCREMENTAL = 2;

export interface SqliteDatabaseOptions {
  durability: 'normal' | 'full';
  /** Called once when the handle closes, so the engine drops it from its cache. */
  onClose?: (db: SqliteDatabase) => void;
  /** Bytes of bodies of the latest writes kept in memory (../recent-changes.ts). Default 4 MiB. */
  recentBytes?: number;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export class SqliteDatabase implements SqliteSyncStore {
  private readonly db: Database.Database;
  /** Attachment bytes (./attachments.ts). */
  readonly attachments: SqliteAttachments;
  /** Access rows (./access-rows.ts). */
  readonly access: SqliteAccessRows;
  private readonly reads: SqliteDocReads;
  private readonly writes: SqliteDocWrites;
  private readonly folds: SqliteDocFolds;
  /** Where long one-line histories are kept (./tree-chunks.ts). */
  private readonly trees: TreeChunks;
  private totals: StoredCounters;
  /** Whether write batches moved the counters since `meta` was last saved (they do not save it: ./doc-writes.ts). */
  private countersUnsaved = false;
  /** The latest writes, for index updates that follow them (../recent-changes.ts). */
  private readonly recent: RecentChanges;
  private readonly createdAt: number;
  private readonly onClose: ((db: SqliteDatabase) => void) | undefined;
  /** This file's watch by the checkpoint worker (./wal-checkpointer.ts), when one runs. */
  private walWatch: { checkpointer: WalCheckpointer; id: number; synchronous: 'NORMAL' | 'FULL' } | undefined;
  private readonly synchronous: 'NORMAL' | 'FULL';
  /** What this process's connections to the file open it by (./process-vfs.ts). */
  private readonly connectionName: string;
  /** Document writes left before the checkpoint worker watches this file (./wal-checkpointer.ts). */
  private unwrittenDocs = WATCH_AFTER_DOCS;

  private readonly stmtGetLocal: Statement;
  private readonly stmtPutLocal: Statement;
  private readonly stmtDeleteLocal: Statement;
  private readonly stmtGetProp: Statement;
  private readonly stmtSetProp: Statement;
  /**
   * Props as stored: read on every request (`_security`), and changed only through setProp on
   * this connection, since one process owns the file.
   */
  private readonly props = new Map<string, string | undefined>();
  private readonly stmtPages: Statement;
  private readonly writeTransaction: (writes: readonly DocWrite[]) => { seqs: number[]; counters: StoredCounters };
  private readonly updateTransaction: <R>(
    ids: readonly string[],
    plan: Planner<R>,
    options: UpdateOptions | undefined,
  ) => { result: R; writes: readonly DocWrite[]; seqs: number[]; counters: StoredCounters };

  constructor(
    readonly name: string,
    private readonly path: string,
    options: SqliteDatabaseOptions,
  ) {
    this.onClose = options.onClose;
    this.connectionName = connectionNameOf(path);
    this.db = new Database(this.connectionName, { timeout: 5000 });
    // A file opened once the checkpoint worker runs is watched from the start; before that, once
    // WATCH_AFTER_DOCS documents were written to it (./wal-checkpointer.ts: an idle server starts none).
    const checkpointer = WalCheckpointer.started();
    this.synchronous = options.durability === 'full' ? 'FULL' : 'NORMAL';
    try {
      configureConnection(this.db, options.durability, checkpointer?.running === true);
      this.createdAt = migrateFile(this.db, name);
    } catch (err) {
      this.db.close();
      throw err;
    }
    if (checkpointer?.running === true) this.watchWal(checkpointer);
    const db = this.db;
    this.attachments = new SqliteAttachments(db);
    const trees = new TreeChunks(db);
    this.trees = trees;
    this.access = new SqliteAccessRows(db, trees);
    migrateWinnerBodies(db);
    this.reads = new SqliteDocReads(db, trees);
    this.writes = new SqliteDocWrites(db, trees);
    this.folds = new SqliteDocFolds(db, () => this.totals, trees);
    this.stmtGetLocal = db.prepare('SELECT id, rev, body FROM local_docs WHERE id = ?').raw();
    this.stmtPutLocal = db.prepare('INSERT OR REPLACE INTO local_docs (id, rev, body) VALUES (?, ?, ?)');
    this.stmtDeleteLocal = db.prepare('DELETE FROM local_docs WHERE id = ?');
    this.stmtGetProp = db.prepare('SELECT value FROM props WHERE key = ?').pluck();
    this.stmtSetProp = db.prepare('INSERT OR REPLACE INTO props (key, value) VALUES (?, ?)');
    this.stmtPages = db.prepare('SELECT * FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()').raw();
    this.totals = loadCounters(db);
    this.recent = new RecentChanges(this.totals.updateSeq, options.recentBytes ?? RECENT_BYTES);
    this.writeTransaction = db.transaction((writes: readonly DocWrite[]) => this.writes.apply(writes, this.totals));
    // better-sqlite3's Transaction type loses the generic: the cast restores it.
    // A write may give principals ids (./access-rows.ts `guard`).
    this.updateTransaction = this.access.guard(
      db.transaction((ids: readonly string[], plan: Planner<unknown>, options: UpdateOptions | undefined) => {
        const read = this.reads.getForUpdate(ids);
        const found = recordsOf(ids, read.found);
        const records = options?.access === true ? this.access.withLeaves(found, read.access) : found;
        const { writes, result } = plan(records);
        const marked = writes.map((w) => (w.isNew === undefined ? { ...w, isNew: !records.has(w.record.id) } : w));
        // The sequences the batch takes (`SqliteDocWrites.apply`: one each, in order).
        const first = this.totals.updateSeq + 1;
        const access = marked.some((w) => w.access !== undefined)
          ? this.access.plan(
              marked,
              marked.map((_, i) => first + i),
            )
          : undefined;
        const applied = this.writes.apply(
          marked,
          this.totals,
          read.olds,
          access?.map((plan) => plan?.text),
        );
        if (access !== undefined) this.access.apply(marked, applied.seqs, access, applied.keys);
        return { result, writes: marked, ...applied };
      }),
    ) as SqliteDatabase['updateTransaction'];
  }

  counters(): Pick<DbMeta, 'updateSeq' | 'purgeSeq' | 'docCount' | 'docDelCount'> {
    const c = this.totals;
    return { updateSeq: c.updateSeq, purgeSeq: c.purgeSeq, docCount: c.docCount, docDelCount: c.docDelCount };
  }

  meta(): DbMeta {
    const [pageCount, freePages, pageSize] = this.stmtPages.get() as [number, number, number];
    const c = this.totals;
    return {
      updateSeq: c.updateSeq,
      purgeSeq: c.purgeSeq,
      docCount: c.docCount,
      docDelCount: c.docDelCount,
      sizes: {
        file: fileSize(this.path) + fileSize(`${this.path}-wal`),
        external: c.external,
        // Pages in use less the stale bodies in them: what compaction would leave.
        active: Math.max(0, (pageCount - freePages) * pageSize - (c.stale ?? 0)),
      },
      createdAt: this.createdAt,
    };
  }

  getDoc(id: string): DocRecord | undefined {
    return this.reads.getDoc(id);
  }

  getDocWithBody(id: string): { record: DocRecord; body: string | undefined } | undefined {
    return this.reads.getDocWithBody(id);
  }

  getDocs(ids: readonly string[]): (DocRecord | undefined)[] {
    return this.reads.getDocs(ids);
  }

  getBody(id: string, rev: string): string | undefined {
    return this.reads.getBody(id, rev);
  }

  getBodies(wanted: readonly { id: string; rev: string }[]): (string | undefined)[] {
    return this.reads.getBodies(wanted);
  }

  getDocsWithBodies(ids: readonly string[]): (ChangedDoc | undefined)[] {
    return this.reads.getDocsWithBodies(ids);
  }

  plainWinnersText(ids: readonly string[], maxSeq: number, count: number): string | undefined {
    return this.reads.plainWinnersText(ids, maxSeq, count);
  }

  private readonly bodyOf = (id: string, rev: string): string | undefined => this.reads.getBody(id, rev);

  /**
   * The contract's write path, synchronous: the records of `ids` are read, planned over and
   * written in one transaction (this connection is the database's only writer).
   */
  updateDocs<R>(ids: readonly string[], plan: Planner<R>, options?: UpdateOptions): { result: R; seqs: number[] } {
    const { result, writes, seqs, counters } = this.updateTransaction(ids, plan, options);
    if (writes.length > 0) this.committed(writes, seqs, counters);
    return { result, seqs };
  }

  writeDocs(writes: readonly DocWrite[]): number[] {
    if (writes.length === 0) return [];
    const { seqs, counters } = this.writeTransaction(writes);
    this.committed(writes, seqs, counters);
    return seqs;
  }

  /** After a commit (a throwing transaction leaves the counters as they were). */
  private committed(writes: readonly DocWrite[], seqs: readonly number[], counters: StoredCounters): void {
    this.totals = counters;
    this.countersUnsaved = true;
    if (this.walWatch === undefined && (this.unwrittenDocs -= writes.length) <= 0) {
      const checkpointer = WalCheckpointer.shared();
      if (checkpointer?.running === true) this.watchWal(checkpointer);
    }
    this.recent.record(
      writes.map(({ record, bodies }, i) => ({
        seq: seqs[i]!,
        id: record.id,
        rev: record.rev,
        deleted: record.deleted,
        body: bodies.find((b) => b.rev === record.rev)?.body,
        tree: record.tree,
      })),
    );
  }

  foldDocs(range: IdRange): Generator<DocRecord> {
    return this.folds.foldDocs(range);
  }

  foldDocBodies(range: IdRange, bounds?: readonly NumberBound[]): Generator<ChangedDoc> {
    return this.folds.foldDocBodies(range, bounds);
  }

  countDocs(range: IdRange): number {
    return this.folds.countDocs(range);
  }

  rangeStats(start: string, end: string): RangeStats {
    return this.folds.rangeStats(start, end);
  }

  foldChanges(since: number, descending = false): Generator<DocRecord> {
    return this.folds.foldChanges(since, descending);
  }

  *foldChangedBodies(since: number): Generator<ChangedDoc> {
    let after = since;
    // From memory while the latest writes cover the changes, then from the tables.
    for (;;) {
      const next = this.recent.next(after, this.bodyOf);
      if (next === undefined) break;
      if (next === null) return;
      yield next;
      after = next.seq;
    }
    yield* this.folds.changedBodies(after);
  }

  countChanges(since: number): number {
    return this.folds.countChanges(since);
  }

  purgeDocs(purges: readonly PurgeWrite[], keepInfos: number): { purgeSeq: number; updateSeq: number } {
    const counters = this.access.guard(
      this.db.transaction(() => {
        for (const { id, record } of purges) if (record === null) this.access.forget(id);
        // A document that keeps revisions keeps the access rows of what is left, at its new sequence.
        return this.writes.purge(purges, keepInfos, this.totals, ({ id, record, access }, seq) => {
          if (record && access !== undefined)
            this.access.apply([{ record: { ...record, id }, bodies: [], access }], [seq]);
        });
      }),
    )();
    this.totals = counters;
    // Documents it holds may be gone: the next index update reads the tables.
    this.recent.clear(counters.updateSeq);
    return { purgeSeq: counters.purgeSeq, updateSeq: counters.updateSeq };
  }

  /** `DocumentStore.recordRoles`: in one transaction, the sequences it takes saved with it. */
  recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): { log: RoleChange[]; seq?: number } {
    const c = { ...this.totals };
    const done = this.db.transaction(() => {
      const recorded = this.access.recordRoles(user, roles, principals, version, () => ++c.updateSeq);
      if (recorded.seq !== undefined) this.writes.saveCounters(c);
      return recorded;
    })();
    if (done.seq !== undefined) {
      this.totals = c;
      this.recent.clear(c.updateSeq);
    }
    return done;
  }

  foldPurges(since: number): Generator<PurgeInfo> {
    return this.folds.foldPurges(since);
  }

  oldestPurge(): number {
    return this.folds.oldestPurge();
  }

  compactDocs(writes: readonly CompactWrite[]): void {
    this.totals = this.writes.compact(writes, this.totals);
    // Compaction rewrites trees without a new sequence: the kept recent writes would give the old ones.
    this.recent.clear(this.totals.updateSeq);
  }

  /** `DocumentStore.countStaleBodies`: in one transaction, once per file from before schema version 4. */
  countStaleBodies(leavesOf: (record: DocRecord) => readonly string[]): void {
    if (this.totals.stale !== undefined) return;
    const page = this.db
      .prepare('SELECT k, id, seq, rev, deleted, tree FROM docs WHERE k > ? ORDER BY k LIMIT 1000')
      .raw();
    const trees = this.trees;
    // Pages by key, each read whole: no statement stays open while trees are read.
    function* records(): Generator<DocRecord & { k: number }> {
      let after = 0;
      for (;;) {
        const rows = page.all(after) as [number, ...DocRow][];
        for (const [k, ...row] of rows) yield { k, ...toRecord(row, trees) };
        if (rows.length < 1000) return;
        after = rows[rows.length - 1]![0];
      }
    }
    this.totals = this.db.transaction(() => this.writes.countStale(this.totals, records(), leavesOf))();
  }

  /**
   * Incremental vacuum: free pages move to the end of the file, which is then cut (in WAL mode at
   * the checkpoint, forced once there is nothing left to move). A file made before auto_vacuum
   * was INCREMENTAL (new files are created so) is converted by one VACUUM first: it rewrites the
   * file, which cuts it to its live pages in the same step.
   */
  reclaimSpace(maxPages: number): boolean {
    const db = this.db;
    if ((db.pragma('auto_vacuum', { simple: true }) as number) !== INCREMENTAL) {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
      this.truncateWal();
      return false;
    }
    const free = db.pragma('freelist_count', { simple: true }) as number;
    if (free > 0) db.pragma(`incremental_vacuum(${Math.max(1, Math.min(free, maxPages))})`);
    if (free > maxPages) return true;
    this.truncateWal();
    return false;
  }

  getLocal(id: string): LocalDoc | undefined {
    const row = this.stmtGetLocal.get(id) as LocalRow | undefined;
    return row === undefined ? undefined : toLocal(row);
  }

  putLocal(doc: LocalDoc): void {
    this.stmtPutLocal.run(doc.id, doc.rev, doc.body);
  }

  deleteLocal(id: string): boolean {
    return this.stmtDeleteLocal.run(id).changes > 0;
  }

  foldLocal(range: IdRange): Generator<LocalDoc> {
    return this.folds.foldLocal(range);
  }

  getProp(key: string): string | undefined {
    if (this.props.has(key)) return this.props.get(key);
    const value = this.stmtGetProp.get(key) as string | undefined;
    this.props.set(key, value);
    return value;
  }

  setProp(key: string, value: string): void {
    this.stmtSetProp.run(key, value);
    this.props.set(key, value);
  }

  /** Hands this file's checkpoints to the worker; this connection keeps a far safety net. */
  private watchWal(checkpointer: WalCheckpointer): void {
    this.db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    this.walWatch = {
      checkpointer,
      id: checkpointer.watch(this.connectionName, this.synchronous),
      synchronous: this.synchronous,
    };
  }

  /**
   * Copies the whole WAL into the file and empties it. The checkpoint worker lets go of the file
   * meanwhile: while it runs a checkpoint of its own, this one would be refused (SQLite allows one
   * checkpointer at a time) and the WAL would stay at its size.
   */
  private truncateWal(): void {
    const watch = this.walWatch;
    if (watch !== undefined) watch.checkpointer.unwatch(watch.id);
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      if (watch !== undefined) {
        this.walWatch = { ...watch, id: watch.checkpointer.watch(this.connectionName, watch.synchronous) };
      }
    }
  }

  close(): void {
    if (!this.db.open) return;
    // A clean close leaves `meta` exact, so the next open need not count the rows again.
    if (this.countersUnsaved) this.db.transaction(() => this.writes.saveCounters(this.totals))();
    // The worker lets go first, so that this is the last connection: closing the last one
    // checkpoints the WAL into the main file and removes it.
    if (this.walWatch !== undefined) this.walWatch.checkpointer.unwatch(this.walWatch.id);
    this.db.close();
    this.onClose?.(this);
  }
}

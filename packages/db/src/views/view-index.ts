/**
 * One view group's index on disk: a SQLite file per design-doc signature holding a B-tree of
 * rows (with stored reductions) per view, the back-index (doc id → its row keys), and the
 * sequence the index is complete up to. `commit` applies a staged update (./index-update.ts) —
 * row removals and insertions in every view, the back-index and the new sequence — in memory
 * (the trees' write-back stores, a map of back-index writes), and `flush`, a moment later,
 * writes everything pending in one transaction: the index on disk is always the index of some
 * database sequence.
 *
 * Why write back. Half of an incremental update of a view was writing its nodes into SQLite
 * (page updates, WAL frames, a checkpoint every few updates: ~10–20 ms of a 1% update of the
 * bench's 100k docs), all of it in front of the query waiting for the update. Flushed
 * FLUSH_DELAY_MS after the last commit (at most FLUSH_MAX_DELAY_MS after the first, at once past
 * MAX_PENDING_BYTES, and on close), the query is answered first, and updates close together
 * share one transaction. The index is derived data: a crash loses at most the last unflushed
 * updates, and the index on disk, consistent at an older sequence, is brought up to date from
 * the database's changes on the next query, as after any restart.
 * (Writing on a thread of its own, tried too, kept the event loop free but cost more than it
 * saved on two cores: a second V8 isolate warming up, and a cold page cache for its connection.)
 * An empty index is built differently (`startBuild`): rows sorted externally, trees built
 * bottom-up, the back-index appended in id order, all in one transaction at the end.
 */
import Sqlite from 'better-sqlite3';
import { encodeBackIndex, type BackEntry } from './back-index.js';
import { ExternalSorter } from './btree/run-sort.js';
import { compareKeys, SqliteNodeStore, WriteBackNodeStore, type NodeStore } from './btree/index.js';
import type { ViewGroup } from './design.js';
import { rowsOf, type MappedDoc, type RowSink } from './index-rows.js';
import { IndexUpdate } from './index-update.js';
import type { RowTree, RowValue } from './row-tree.js';

/** A row tree that can also be filled in one go from sorted, encoded rows (an index build). */
export interface BuildableRowTree extends RowTree {
  /** The bytes `bulkLoad` takes for a row value. */
  encodeValue(value: RowValue): Uint8Array;
  /**
   * Replaces every row by the given ones, in ascending key order (equal keys: the last wins).
   * `cacheLeaves`: keep the written rows in the tree's node cache (the caller knows they fit).
   */
  bulkLoad(rows: Iterable<readonly [key: Buffer, value: Buffer]>, options?: { cacheLeaves?: boolean }): void;
  /** `bulkLoad` a step at a time (a pause every few thousand rows). */
  bulkLoadSteps(
    rows: Iterable<readonly [key: Buffer, value: Buffer]>,
    options?: { cacheLeaves?: boolean },
  ): Generator<void>;
}

export type TreeFactory = (store: NodeStore, view: number) => BuildableRowTree;

export interface ViewIndexOptions {
  /** A flush in the background failed (it is retried; the index stays right in memory). */
  onFlushError?: (error: unknown) => void;
}

/** Rows of a build kept in memory before a sorted run goes to a temporary file, per sorter (three of them for two views: 4 MB each kept the 1M-doc build under 300 MB RSS, 8 MB did not always). */
const BUILD_MEMORY_BYTES = 4 * 1024 * 1024;
/**
 * A view whose built rows take at most this many bytes stays in its tree's node cache after the
 * build (within the cache's own node budget), so the first updates and queries start warm.
 * Measured on the bench's 100k-doc views (by_author_date ~14 MB of rows, count_by_author
 * ~6 MB): the second update of 1% ~7 ms faster server-side, most of its leaves being still cold
 * otherwise. A bigger view is not cached: a few MB of its lowest keys would help little, and
 * count against a big build's memory.
 */
const CACHED_BUILD_BYTES = 16 * 1024 * 1024;
/** A commit is flushed this long after the last one (see the header)... */
const FLUSH_DELAY_MS = 10;
/** ...or this long after the first unflushed one, */
const FLUSH_MAX_DELAY_MS = 1000;
/** ...or at once when its node and back-index writes pend with this many bytes. */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS back_index (id TEXT PRIMARY KEY, rows BLOB NOT NULL) WITHOUT ROWID;
`;
/** Doc ids per back-index SELECT of an update. */
const BACK_IDS_PER_SELECT = 500;
/** Back-index rows per INSERT statement of a build. */
const BACK_ROWS_PER_INSERT = 128;
/** A build's write gives other work a turn at least this often (ms). */
const PAUSE_MS = 8;

export class ViewIndex {
  readonly trees: BuildableRowTree[];
  private seq: number;
  /** The sequence of the index on disk. */
  private flushedSeq: number;
  private readonly stores: WriteBackNodeStore[];
  /** Back-index writes not on disk yet: an entry, or undefined for a deleted one. */
  private readonly pendingBack = new Map<string, Buffer | undefined>();
  private pendingBackBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the first unflushed commit happened (0: none pending). */
  private pendingSince = 0;
  private readonly flushTransaction: () => void;
  private readonly putBack: Sqlite.Statement;
  private readonly deleteBack: Sqlite.Statement;
  private readonly getBack: Sqlite.Statement;
  private readonly putMeta: Sqlite.Statement;

  constructor(
    readonly group: ViewGroup,
    readonly file: string,
    makeTree: TreeFactory,
    private readonly options: ViewIndexOptions = {},
  ) {
    const sql = new Sqlite(file);
    this.sql = sql;
    // The index can always be rebuilt from the database: no need to sync every commit.
    sql.pragma('journal_mode = WAL');
    sql.pragma('synchronous = OFF');
    // Checkpoint every ~16 MiB of WAL (4096 pages of 4 KiB, as the database files) rather than
    // SQLite's 4 MiB: an update of 1% of a 100k-doc index writes ~5 MB of WAL, so the default
    // checkpointed after every update; less often, pages rewritten by several updates (inner
    // nodes, SQLite's own interior pages) are copied once (~2 ms less CPU per update on average).
    sql.pragma('wal_autocheckpoint = 4096');
    sql.pragma('journal_size_limit = 67108864');
    sql.exec(SCHEMA);
    this.getBack = sql.prepare('SELECT rows FROM back_index WHERE id = ?').pluck();
    this.putBack = sql.prepare('INSERT OR REPLACE INTO back_index (id, rows) VALUES (?, ?)');
    this.deleteBack = sql.prepare('DELETE FROM back_index WHERE id = ?');
    this.putMeta = sql.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    const signature = sql.prepare("SELECT value FROM meta WHERE key = 'signature'").pluck().get() as string | undefined;
    if (signature !== undefined && signature !== group.signature) {
      throw new Error(`index file ${file} belongs to signature ${signature}, not ${group.signature}`);
    }
    this.putMeta.run('signature', group.signature);
    this.seq = Number(sql.prepare("SELECT value FROM meta WHERE key = 'update_seq'").pluck().get() ?? 0);
    // Back-index format 2 (./back-index.ts) for indexes started since it exists.
    const format = sql.prepare("SELECT value FROM meta WHERE key = 'back_format'").pluck().get() as string | undefined;
    if (format === undefined && this.seq === 0) this.putMeta.run('back_format', '2');
    this.backFormat = format === '2' || (format === undefined && this.seq === 0) ? 2 : 1;
    const changed = sql.prepare("SELECT value FROM meta WHERE key = 'changed_seqs'").pluck().get() as
      | string
      | undefined;
    this.changedSeqs = changed === undefined ? group.views.map(() => 0) : (JSON.parse(changed) as number[]);
    this.purged = Number(sql.prepare("SELECT value FROM meta WHERE key = 'purge_seq'").pluck().get() ?? 0);
    this.flushedPurge = this.purged;
    this.flushedSeq = this.seq;
    // Atomic updates are this class's business (see `commit` and `flush`): no SAVEPOINTs.
    this.stores = group.views.map(
      (_, view) => new WriteBackNodeStore(new SqliteNodeStore(sql, `view_${view}`, { savepoints: false })),
    );
    this.trees = this.stores.map((store, view) => makeTree(store, view));
    this.flushTransaction = sql.transaction(() => this.writePending());
  }

  private readonly sql: Sqlite.Database;
  private readonly getBacks = new Map<number, Sqlite.Statement>();
  private readonly backFormat: 1 | 2;
  /** Per view, the sequence of the last batch that changed its rows (its ETag moves with it). */
  private changedSeqs: number[];

  /** The database sequence this index is complete up to. */
  get updateSeq(): number {
    return this.seq;
  }

  /** The database purge sequence this index has caught up with. */
  get purgeSeq(): number {
    return this.purged;
  }

  private purged: number;

  /**
   * Catches up with purges: the rows of these documents (gone from the database) go, and the
   * index is at `purgeSeq`. The update sequence and the views' update_seq stay (CouchDB's
   * purge moves only purge_seq); the ETag hashes the purge sequence too.
   */
  purge(ids: readonly string[], purgeSeq: number): void {
    const update = this.startUpdate();
    update.add(ids.map((id) => ({ id, rows: undefined })));
    this.commit(update, this.seq, purgeSeq);
  }

  /** Every document id with rows in the index, in pages (a purge past the kept log reads them). */
  *backIds(): Generator<string> {
    this.flush();
    const page = this.sql.prepare('SELECT id FROM back_index WHERE id > ? ORDER BY id LIMIT 1000').pluck();
    let after = '';
    for (;;) {
      const ids = page.all(after) as string[];
      yield* ids;
      if (ids.length < 1000) return;
      after = ids[ids.length - 1]!;
    }
  }

  /**
   * The sequence of the last change to a view's rows: what CouchDB answers as the view's
   * `update_seq` (couch_mrview's View#mrview.update_seq moves only when that view's B-tree does).
   */
  changedSeq(view: number): number {
    return this.changedSeqs[view] ?? 0;
  }

  /** Bytes of the index file (for `_info` sizes). */
  fileSize(): number {
    const pages = this.sql.pragma('page_count', { simple: true }) as number;
    const size = this.sql.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  /** An empty update, to stage mapped documents in (see ./index-update.ts). */
  startUpdate(): IndexUpdate {
    return new IndexUpdate(this.group.views, (docs) => this.readBack(docs), this.backFormat);
  }

  /** Stages and commits mapped documents (each id once) in one go. */
  apply(docs: readonly MappedDoc[], seq: number): void {
    const update = this.startUpdate();
    update.add(docs);
    this.commit(update, seq);
  }

  /**
   * Applies a staged update and the sequence it brings the index to, atomically: all of it, or
   * (a reducer threw) none of it. It reaches the disk at the next `flush`.
   */
  commit(update: IndexUpdate, seq: number, purgeSeq?: number): void {
    const changedSeqs = [...this.changedSeqs];
    for (const store of this.stores) store.begin();
    try {
      this.trees.forEach((tree, view) => {
        const inserts = update.inserts[view]!;
        const removes = update.removes[view]!;
        if (inserts.length === 0 && removes.length === 0) return;
        tree.update(inserts, removes);
        if (purgeSeq === undefined) changedSeqs[view] = update.changedSeqs[view] || seq;
      });
    } catch (error) {
      // Trees that applied their part must forget it.
      for (const store of this.stores) store.rollback();
      for (const tree of this.trees) tree.invalidate();
      throw error;
    }
    for (const store of this.stores) store.end();
    for (const [id, bytes] of update.backWrites) {
      const before = this.pendingBack.get(id);
      if (before !== undefined) this.pendingBackBytes -= before.length;
      if (bytes !== undefined) this.pendingBackBytes += bytes.length;
      this.pendingBack.set(id, bytes);
    }
    this.changedSeqs = changedSeqs;
    this.seq = seq;
    if (purgeSeq !== undefined) this.purged = purgeSeq;
    if (this.pendingBytes() > MAX_PENDING_BYTES) this.flushOrRetry();
    else this.scheduleFlush(FLUSH_DELAY_MS);
  }

  /** Bytes of node and back-index writes not on disk yet. */
  pendingBytes(): number {
    let bytes = this.pendingBackBytes;
    for (const store of this.stores) bytes += store.pendingBytes;
    return bytes;
  }

  /** Writes every committed update to disk, in one transaction (throws if that fails: it all stays pending). */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (
      this.flushedSeq === this.seq &&
      this.flushedPurge === this.purged &&
      this.pendingBack.size === 0 &&
      !this.stores.some((store) => store.dirty)
    )
      return;
    this.flushTransaction();
    for (const store of this.stores) store.flushed();
    this.pendingBack.clear();
    this.pendingBackBytes = 0;
    this.pendingSince = 0;
    this.flushedSeq = this.seq;
    this.flushedPurge = this.purged;
  }

  /** The purge sequence of the index on disk. */
  private flushedPurge: number;

  /** `flush`, reporting a failure and trying again later (the index stays right in memory meanwhile). */
  private flushOrRetry(): void {
    try {
      this.flush();
    } catch (error) {
      (this.options.onFlushError ?? console.error)(error);
      this.pendingSince = Date.now();
      this.scheduleFlush(FLUSH_MAX_DELAY_MS);
    }
  }

  private writePending(): void {
    for (const [id, rows] of this.pendingBack) {
      if (rows === undefined) this.deleteBack.run(id);
      else this.putBack.run(id, rows);
    }
    for (const store of this.stores) store.writePending();
    this.putMeta.run('update_seq', String(this.seq));
    this.putMeta.run('changed_seqs', JSON.stringify(this.changedSeqs));
    this.putMeta.run('purge_seq', String(this.purged));
  }

  /**
   * A flush `delay` ms from now, but not later than FLUSH_MAX_DELAY_MS after the first commit it
   * writes (a failed one is retried FLUSH_MAX_DELAY_MS later).
   */
  private scheduleFlush(delay: number): void {
    if (!this.sql.open) return;
    this.pendingSince ||= Date.now();
    const due = Math.max(0, Math.min(delay, this.pendingSince + FLUSH_MAX_DELAY_MS - Date.now()));
    clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushOrRetry();
    }, due);
    // A pending flush does not keep the process alive: `close` flushes.
    this.flushTimer.unref();
  }

  /** The back-index entries of these docs, by id: in statements of up to BACK_IDS_PER_SELECT ids. */
  private readBack(docs: readonly { id: string }[]): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    if (this.pendingBack.size > 0) {
      // Entries written since the last flush are read from memory.
      const unflushed = docs.filter((doc) => !this.pendingBack.has(doc.id));
      for (const doc of docs) {
        const bytes = this.pendingBack.get(doc.id);
        if (bytes !== undefined) out.set(doc.id, bytes);
      }
      docs = unflushed;
    }
    if (docs.length === 0) return out;
    if (docs.length === 1) {
      const old = this.getBack.get(docs[0]!.id) as Uint8Array | undefined;
      if (old !== undefined) out.set(docs[0]!.id, old);
      return out;
    }
    for (let from = 0; from < docs.length; from += BACK_IDS_PER_SELECT) {
      const n = Math.min(BACK_IDS_PER_SELECT, docs.length - from);
      let stmt = this.getBacks.get(n);
      if (stmt === undefined) {
        stmt = this.sql.prepare(`SELECT id, rows FROM back_index WHERE id IN (${Array(n).fill('?').join(', ')})`).raw();
        // Statements for odd sizes are used once: keep only the full-size one.
        if (n === BACK_IDS_PER_SELECT) this.getBacks.set(n, stmt);
      }
      const ids: string[] = new Array(n);
      for (let k = 0; k < n; k++) ids[k] = docs[from + k]!.id;
      for (const [id, rows] of stmt.all(ids) as [string, Uint8Array][]) out.set(id, rows);
    }
    return out;
  }

  /**
   * A build of this index from empty (undefined unless it is empty): the caller adds every
   * mapped document once, then `finish` writes all rows, the back-index and the sequence in one
   * transaction; until then the index stays as it is (empty). Rows are sorted on the way (in
   * memory, or in runs in temporary files next to the index when there are many), so each tree
   * is built bottom-up in one pass and nothing is read back.
   */
  startBuild(): IndexBuild | undefined {
    if (this.seq !== 0 || this.backFormat !== 2) return undefined;
    return new IndexBuild(
      this,
      (doc, out) => rowsOf(this.group.views, doc, out),
      (seq, rows, back, lastSeqs) => this.finishBuild(seq, rows, back, lastSeqs),
    );
  }

  /**
   * Writes a build in one transaction that stays open across event-loop turns: it pauses every
   * few thousand rows (PAUSE_MS at most between pauses), so other requests are answered while a
   * big index is written. Until it commits, readers see the index as it was (empty).
   */
  private async finishBuild(
    seq: number,
    rows: readonly ExternalSorter[],
    back: ExternalSorter,
    lastSeqs: readonly number[],
  ): Promise<void> {
    // A build's nodes go straight to disk: they would not fit in memory.
    this.flush();
    let slice = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - slice < PAUSE_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    };
    const run = async () => {
      this.sql.exec('DELETE FROM back_index');
      const statements = new Map<number, Sqlite.Statement>();
      const insert = (params: unknown[]): void => {
        const n = params.length / 2;
        let stmt = statements.get(n);
        if (stmt === undefined) {
          stmt = this.sql.prepare(`INSERT INTO back_index (id, rows) VALUES ${Array(n).fill('(?, ?)').join(', ')}`);
          statements.set(n, stmt);
        }
        stmt.run(params);
      };
      // Sorted by id bytes, which is SQLite's order of the ids: appends. A doc id twice means
      // the changes were not one entry per doc: the build is not valid.
      let params: unknown[] = [];
      let last: Buffer | undefined;
      for (const [id, entries] of back.sorted()) {
        if (last !== undefined && compareKeys(last, id) === 0) throw new DuplicateInBuild(id.toString('utf8'));
        last = id;
        params.push(id.toString('utf8'), entries);
        if (params.length === 2 * BACK_ROWS_PER_INSERT) {
          insert(params);
          params = [];
          await pause();
        }
      }
      if (params.length > 0) insert(params);
      const changedSeqs = [...this.changedSeqs];
      for (const [view, tree] of this.trees.entries()) {
        if (rows[view]!.size === 0 && tree.total() === 0) continue;
        const steps = tree.bulkLoadSteps(rows[view]!.sorted(), {
          cacheLeaves: rows[view]!.bytes <= CACHED_BUILD_BYTES,
        });
        for (const _ of steps) await pause();
        changedSeqs[view] = lastSeqs[view] || seq;
      }
      this.putMeta.run('update_seq', String(seq));
      this.putMeta.run('changed_seqs', JSON.stringify(changedSeqs));
      this.putMeta.run('purge_seq', String(this.purged));
      return changedSeqs;
    };
    for (const store of this.stores) store.buffering = false;
    this.sql.exec('BEGIN IMMEDIATE');
    try {
      this.changedSeqs = await run();
      this.sql.exec('COMMIT');
    } catch (error) {
      if (this.sql.open && this.sql.inTransaction) this.sql.exec('ROLLBACK');
      for (const tree of this.trees) tree.invalidate();
      throw error;
    } finally {
      for (const store of this.stores) store.buffering = true;
    }
    this.seq = seq;
    this.flushedSeq = seq;
  }

  /**
   * View compaction (`POST /db/_compact/{ddoc}`): what is pending is written, then the file is
   * rewritten without its free pages (VACUUM; an index is derived data, so it needs no more care).
   */
  compact(): void {
    if (!this.sql.open) return;
    this.flush();
    this.sql.exec('VACUUM');
    this.sql.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Closes the file, first writing what is pending (unless `flush: false`: the file is going away). */
  close(options: { flush?: boolean } = {}): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.sql.open) return;
    if (options.flush !== false) {
      try {
        this.flush();
      } catch (error) {
        // The file keeps the index of an older sequence: updated from there when next opened.
        (this.options.onFlushError ?? console.error)(error);
      }
    }
    this.sql.close();
  }
}

/** A build from empty saw a document twice (see `ViewIndex.startBuild`): apply incrementally instead. */
export class DuplicateInBuild extends Error {
  constructor(readonly docId: string) {
    super(`index build saw document ${docId} twice`);
  }
}

/** See `ViewIndex.startBuild`. */
export class IndexBuild {
  private readonly rows: ExternalSorter[];
  private readonly back: ExternalSorter;
  private readonly trees: readonly BuildableRowTree[];
  /** Per view, the latest sequence of a document with rows in it. */
  private readonly lastSeqs: number[];

  constructor(
    index: ViewIndex,
    private readonly rowsOf: (doc: MappedDoc, out: RowSink) => BackEntry[],
    private readonly write: (
      seq: number,
      rows: readonly ExternalSorter[],
      back: ExternalSorter,
      lastSeqs: readonly number[],
    ) => Promise<void>,
  ) {
    this.trees = index.trees;
    this.lastSeqs = index.trees.map(() => 0);
    this.rows = index.trees.map(
      (_, view) => new ExternalSorter({ file: `${index.file}.build-${view}.tmp`, memoryBytes: BUILD_MEMORY_BYTES }),
    );
    this.back = new ExternalSorter({ file: `${index.file}.build-back.tmp`, memoryBytes: BUILD_MEMORY_BYTES });
  }

  /** Adds mapped documents (each document once in the whole build). */
  add(docs: readonly MappedDoc[]): void {
    const rows = this.rows;
    const trees = this.trees;
    const lastSeqs = this.lastSeqs;
    let seq = 0;
    const out = (view: number, key: Buffer, value: RowValue): void => {
      rows[view]!.add(key, trees[view]!.encodeValue(value));
      if (seq > lastSeqs[view]!) lastSeqs[view] = seq;
    };
    for (const doc of docs) {
      seq = doc.seq ?? 0;
      const back = this.rowsOf(doc, out);
      if (back.length > 0) this.back.add(Buffer.from(doc.id), encodeBackIndex(back, 2));
    }
  }

  /** Writes everything added, and `seq` as the index's sequence, in one transaction. */
  finish(seq: number): Promise<void> {
    return this.write(seq, this.rows, this.back, this.lastSeqs);
  }

  /** Removes the temporary files (after `finish`, or instead of it). */
  dispose(): void {
    for (const sorter of this.rows) sorter.dispose();
    this.back.dispose();
  }
}

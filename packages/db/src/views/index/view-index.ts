/**
 * One view group's index: a B-tree of rows (with stored reductions) per view, the back-index
 * (doc id → its row keys), and the sequence the index is complete up to, kept by storage (a
 * `StoredIndex`: a SQLite file, or PostgreSQL shared by every node). One file (a little above
 * the house's ~500 lines) because commit, flush and reads share the pending write-back state.
 * `commit` applies a staged update (./index-update.ts) —
 * row removals and insertions in every view, the back-index and the new sequence — in memory
 * (the trees' write-back stores, a map of back-index writes), and `flush`, a moment later,
 * writes everything pending in one transaction: the index on disk is always the index of some
 * database sequence.
 *
 * Why write back. Half of an incremental update of a view was writing its nodes into SQLite
 * (page updates, WAL frames, a checkpoint every few updates; docs/benchmarks.md), all of it in
 * front of the query waiting for the update. Flushed
 * FLUSH_DELAY_MS after the last commit (at most FLUSH_MAX_DELAY_MS after the first, at once past
 * MAX_PENDING_BYTES, and on close), the query is answered first, and updates close together
 * share one transaction. The index is derived data: a crash loses at most the last unflushed
 * updates, and the index on disk, consistent at an older sequence, is brought up to date from
 * the database's changes on the next query, as after any restart.
 * (Writing on a thread of its own, tried too, kept the event loop free but cost more than it
 * saved on two cores: a second V8 isolate warming up, and a cold page cache for its connection.)
 * A shared index (several nodes) is written before its updater lets go of it (`flush`), and
 * takes in the other nodes' updates in `sync`.
 * An empty index is built differently (`startBuild`): rows sorted externally, trees built
 * bottom-up, the back-index appended in id order, all in one transaction. A local index opens
 * that transaction when the build starts, and back-index entries go straight in while their ids
 * come in ascending order (the usual order of a database's first changes): the transaction holds
 * them until the end, so a crash still leaves the old (empty) index, and they are not sorted,
 * spilled and read back again at the end.
 */
import type { IndexMeta, IndexWriter, StoredIndex } from '../../storage/view-index-store.js';
import { BackEntryWriter, decodeBackIndex } from './back-index.js';
import { compareUtf8 } from '../../collation/index.js';
import { ExternalSorter } from '../../btree/run-sort.js';
import { compareKeys, WriteBackNodeStore, type NodeStore } from '../../btree/index.js';
import type { ViewGroup } from '../design.js';
import { buildRowsOf, type BuildRowSink, type MappedDoc } from './index-rows.js';
import { IndexUpdate } from './index-update.js';
import type { RowTree, RowValue } from './row-tree.js';

/** A row tree that can also be filled in one go from sorted, encoded rows (an index build). */
export interface BuildableRowTree extends RowTree {
  /**
   * The bytes `bulkLoad` takes for a row value (possibly a view valid until the next call: copy
   * to keep). `value` is read at once, not kept (a build passes one array for every row).
   */
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
  /**
   * Applies to the rows the updates the tree took and deferred (a search index's documents' tree:
   * ../../search/search-docs-tree.ts): the index calls it before each flush, and before a
   * rolled-back commit invalidates the trees (the deferred updates are earlier commits'). A tree
   * whose settle failed fails its next update too (the index then goes back to its stored state).
   */
  settle?(): void;
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
/**
 * A commit is flushed this long after the last one (see the header), and not while an update
 * is still committing its batches (`updateStarted`): a flush between them stores (and a search
 * index's documents' tree writes: ../../search/search-docs-tree.ts) in front of the query waiting
 * for the update...
 */
const FLUSH_DELAY_MS = 10;
/** ...or this long after the first unflushed one, */
const FLUSH_MAX_DELAY_MS = 1000;
/** ...or at once when its node and back-index writes pend with this many bytes. */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** Back-index rows of a build written between two pause checks. */
const BACK_ROWS_PER_STEP = 128;
/** A build's write gives other work a turn at least this often (ms). */
const PAUSE_MS = 8;

/** A row of a view named by its document's back-index entry (`ViewIndex.rowsOf`). */
export interface DocRow {
  key: Buffer;
  docId: string;
  /** Both set when the back-index keeps them (a small row); else the row is read from the tree. */
  keyJson: string | undefined;
  valueJson: string | undefined;
}

export class ViewIndex {
  readonly trees: BuildableRowTree[];
  private seq: number;
  /** The sequence of the stored index. */
  private flushedSeq: number;
  private readonly stores: WriteBackNodeStore[];
  /** Back-index writes not stored yet: an entry, or undefined for a deleted one. */
  private readonly pendingBack = new Map<string, Buffer | undefined>();
  private pendingBackBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Updates committing batches now (`updateStarted`), and whether a flush waits for them to end. */
  private updating = 0;
  private flushAfterUpdate = false;
  /** When the first unflushed commit happened (0: none pending). */
  private pendingSince = 0;
  private closed = false;

  constructor(
    readonly group: ViewGroup,
    readonly stored: StoredIndex,
    makeTree: TreeFactory,
    private readonly options: ViewIndexOptions = {},
  ) {
    const meta = stored.meta();
    this.seq = meta.updateSeq;
    this.backFormat = meta.backFormat;
    this.changedSeqs = [...meta.changedSeqs];
    this.purged = meta.purgeSeq;
    this.flushedPurge = this.purged;
    this.flushedSeq = this.seq;
    this.stores = stored.nodes.map((store) => new WriteBackNodeStore(store));
    this.trees = this.stores.map((store, view) => makeTree(store, view));
  }

  private backFormat: 1 | 2;
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

  /** Whether other nodes update this index too (see the header). */
  get shared(): boolean {
    return this.stored.shared;
  }

  /**
   * Takes in what other nodes stored since (a shared index, nothing pending here): the trees
   * drop their caches and the sequences are the stored ones.
   */
  async sync(): Promise<void> {
    if (!this.stored.shared || this.closed) return;
    if (!(await this.stored.sync())) return;
    this.adopt(this.stored.meta());
  }

  private adopt(meta: IndexMeta): void {
    this.seq = this.flushedSeq = meta.updateSeq;
    this.purged = this.flushedPurge = meta.purgeSeq;
    this.changedSeqs = [...meta.changedSeqs];
    this.backFormat = meta.backFormat;
    for (const store of this.stores) store.changedBehind();
    for (const tree of this.trees) tree.invalidate();
  }

  /**
   * Forgets what was committed but not stored (a shared index's write failed): the index is the
   * stored one again.
   */
  discard(): void {
    for (const store of this.stores) store.discard();
    this.pendingBack.clear();
    this.pendingBackBytes = 0;
    this.pendingSince = 0;
    this.adopt(this.stored.meta());
  }

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
  async *backIds(): AsyncGenerator<string> {
    await this.flush();
    // A build's open write holds entries of an index that is still empty.
    if (this.building) return;
    for await (const page of this.stored.foldBackIds()) yield* page;
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
    return this.stored.size();
  }

  /** Bytes of the index file in use, what view compaction keeps (`_info`'s `sizes.active`). */
  activeSize(): number {
    return this.stored.activeSize();
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
   * (a reducer threw) none of it. It is stored at the next `flush` (which a shared index's
   * updater calls itself).
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
      // Trees that applied their part must forget it; what earlier commits deferred stays theirs
      // (a tree that defers is its group's last: search's documents, after its numbers)...
      for (const store of this.stores) store.rollback();
      let settled = true;
      for (const tree of this.trees) {
        try {
          tree.settle?.();
        } catch {
          settled = false;
        }
      }
      if (settled) for (const tree of this.trees) tree.invalidate();
      // ...unless it cannot be applied: then the index is the stored one again (this is its updater).
      else this.discard();
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
    if (this.stored.shared) return;
    if (this.pendingBytes() > MAX_PENDING_BYTES) void this.flushOrRetry();
    else this.scheduleFlush(FLUSH_DELAY_MS);
  }

  /** Bytes of node and back-index writes not stored yet. */
  pendingBytes(): number {
    let bytes = this.pendingBackBytes;
    for (const store of this.stores) bytes += store.pendingBytes;
    return bytes;
  }

  private pending(): boolean {
    return (
      this.flushedSeq !== this.seq ||
      this.flushedPurge !== this.purged ||
      this.pendingBack.size > 0 ||
      this.stores.some((store) => store.dirty)
    );
  }

  /**
   * Stores every committed update, in one write (rejects if that fails: it all stays pending).
   * No commit happens meanwhile: a local index's write is synchronous, and a shared index's
   * updater waits for it.
   */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const tree of this.trees) tree.settle?.();
    if (!this.pending()) return;
    await this.stored.write((writer) => this.writePending(writer));
    for (const store of this.stores) store.flushed();
    this.pendingBack.clear();
    this.pendingBackBytes = 0;
    this.pendingSince = 0;
    this.flushedSeq = this.seq;
    this.flushedPurge = this.purged;
  }

  /** A shared index's updater stores what it committed when it grew big (a local index does so itself). */
  async flushIfBig(): Promise<void> {
    if (this.pendingBytes() > MAX_PENDING_BYTES) await this.flush();
  }

  /** The purge sequence of the stored index. */
  private flushedPurge: number;

  /** `flush`, reporting a failure and trying again later (the index stays right in memory meanwhile). */
  private async flushOrRetry(): Promise<void> {
    try {
      await this.flush();
    } catch (error) {
      (this.options.onFlushError ?? console.error)(error);
      this.pendingSince = Date.now();
      this.scheduleFlush(FLUSH_MAX_DELAY_MS);
    }
  }

  private writePending(writer: IndexWriter): void {
    for (const [id, rows] of this.pendingBack) {
      if (rows === undefined) writer.deleteBack(id);
      else writer.putBack(id, rows);
    }
    for (const store of this.stores) store.writePending();
    writer.setMeta({
      updateSeq: this.seq,
      purgeSeq: this.purged,
      changedSeqs: this.changedSeqs,
      backFormat: this.backFormat,
    });
  }

  /** An update starts committing batches: no flush until it ends (`updateEnded`), but for FLUSH_MAX_DELAY_MS. */
  updateStarted(): void {
    this.updating++;
  }

  /** The update is over: a flush that waited for it comes FLUSH_DELAY_MS later, as after any commit. */
  updateEnded(): void {
    this.updating--;
    if (this.updating === 0 && this.flushAfterUpdate) {
      this.flushAfterUpdate = false;
      this.scheduleFlush(FLUSH_DELAY_MS);
    }
  }

  /**
   * A flush `delay` ms from now, but not later than FLUSH_MAX_DELAY_MS after the first commit it
   * writes (a failed one is retried FLUSH_MAX_DELAY_MS later).
   */
  private scheduleFlush(delay: number): void {
    if (this.closed) return;
    this.pendingSince ||= Date.now();
    const due = Math.max(0, Math.min(delay, this.pendingSince + FLUSH_MAX_DELAY_MS - Date.now()));
    clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      // Mid-update, the flush waits for the update's end (FLUSH_MAX_DELAY_MS still holds).
      if (this.updating > 0 && Date.now() - this.pendingSince < FLUSH_MAX_DELAY_MS) this.flushAfterUpdate = true;
      else void this.flushOrRetry();
    }, due);
    // A pending flush does not keep the process alive: `close` flushes.
    this.flushTimer.unref();
  }

  /**
   * The rows `view` holds of these documents, by their back-index entries: each row's key, and
   * its key and value JSON when the entry keeps them (small rows). What a reader's view is made
   * of (../query/reader-rows.ts): their documents' rows, without reading anyone else's.
   */
  rowsOf(ids: readonly string[], view: number): DocRow[] {
    const out: DocRow[] = [];
    for (const [docId, bytes] of this.readBack(ids.map((id) => ({ id })))) {
      for (const [v, key, keyJson, valueJson] of decodeBackIndex(bytes, this.backFormat)) {
        if (v === view) out.push({ key, docId, keyJson, valueJson });
      }
    }
    return out;
  }

  /** The back-index entries of these docs, by id (those written since the last flush from memory). */
  private readBack(docs: readonly { id: string }[]): Map<string, Uint8Array> {
    let ids: string[];
    const out = new Map<string, Uint8Array>();
    // A build's open write holds entries of an index that is still empty.
    if (this.building) return out;
    if (this.pendingBack.size > 0) {
      ids = [];
      for (const doc of docs) {
        if (!this.pendingBack.has(doc.id)) ids.push(doc.id);
        else {
          const bytes = this.pendingBack.get(doc.id);
          if (bytes !== undefined) out.set(doc.id, bytes);
        }
      }
    } else {
      ids = docs.map((doc) => doc.id);
    }
    if (ids.length === 0) return out;
    const stored = this.stored.readBack(ids);
    // Nothing pending among them (an update's usual case): the stored entries' own map.
    if (out.size === 0) return stored;
    for (const [id, bytes] of stored) out.set(id, bytes);
    return out;
  }

  /**
   * A build of this index from empty (undefined unless it is empty): the caller adds every
   * mapped document once, then `finish` writes all rows, the back-index and the sequence in one
   * write; until then the index stays as it is (empty). Rows are sorted on the way (in memory,
   * or in runs in temporary files when there are many), so each tree is built bottom-up in one
   * pass and nothing is read back.
   */
  startBuild(): IndexBuild | undefined {
    if (this.seq !== 0 || this.backFormat !== 2) return undefined;
    const build = new IndexBuild(
      this,
      (doc, out, entry) => buildRowsOf(this.group.views, doc, out, entry),
      (seq) => this.finishBuild(build, seq),
    );
    // Nothing pending (a build's trees must start empty, and a flush now would wait for the
    // build): the write opens at once and takes back-index entries as they come.
    if (!this.stored.shared && !this.pending()) this.openBuild(build);
    return build;
  }

  /** Whether a build's write is open (see `openBuild`). */
  private building = false;

  /**
   * Opens the build's write now (a local index, when storage starts it at once): back-index
   * entries go in while the build is fed (`IndexBuild.add`), and `finish` completes the same
   * write; a build given up instead (`dispose`) rolls it back.
   */
  private openBuild(build: IndexBuild): void {
    let late = false;
    const written = this.fillEmpty(async (writer) => {
      if (late) return undefined; // storage queued the write behind another: the build sorts its back-index
      this.building = true;
      try {
        writer.clearBack();
        build.openWith(writer);
        const seq = await build.finishing;
        return await this.writeBuild(writer, build, seq);
      } finally {
        this.building = false;
      }
    });
    if (!this.building) {
      late = true;
      written.catch(() => {});
      return;
    }
    build.written = written;
  }

  /**
   * Writes a build in one write that pauses every few thousand rows (PAUSE_MS at most between
   * pauses), so other requests are answered while a big index is written.
   */
  private async finishBuild(build: IndexBuild, seq: number): Promise<void> {
    const open = build.written;
    if (open === undefined) {
      // A build's nodes go straight to storage: they would not fit in memory.
      await this.flush();
    }
    for (const store of this.stores) store.buffering = false;
    try {
      const changedSeqs = await (open ??
        this.fillEmpty((writer) => {
          writer.clearBack();
          return this.writeBuild(writer, build, seq);
        }));
      if (changedSeqs === undefined) throw new Error('index build: its write ended before the build');
      this.changedSeqs = changedSeqs;
    } catch (error) {
      for (const tree of this.trees) tree.invalidate();
      throw error;
    } finally {
      for (const store of this.stores) store.buffering = true;
    }
    this.seq = seq;
    this.flushedSeq = seq;
  }

  /** A build's write (see `StoredIndex.fillEmpty`). */
  private fillEmpty<T>(fn: (writer: IndexWriter) => T | Promise<T>): Promise<T> {
    return this.stored.fillEmpty?.(fn) ?? this.stored.write(fn);
  }

  /** The rest of a build's write: the sorted back-index entries, the trees, the checkpoint. */
  private async writeBuild(writer: IndexWriter, build: IndexBuild, seq: number): Promise<number[]> {
    const { rows, back, lastSeqs } = build;
    let slice = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - slice < PAUSE_MS) return;
      await writer.pause();
      slice = performance.now();
    };
    // Sorted by id bytes. A doc id twice means the changes were not one entry per doc: the
    // build is not valid. Entries written as they came (ascending ids) are in storage already:
    // those the sorter got after the ids stopped ascending must not repeat one of them.
    const direct = build.directCount > 0;
    if (direct) await writer.pause(); // the entries put so far are readable
    let last: Buffer | undefined;
    let n = 0;
    let checks: [string, Uint8Array][] = [];
    const checkAndPut = (): void => {
      const found = this.stored.readBack(checks.map(([id]) => id));
      if (found.size > 0) throw new DuplicateInBuild([...found.keys()][0]!);
      for (const [id, entries] of checks) writer.putBack(id, entries);
      checks = [];
    };
    for (const [id, entries] of back.sorted()) {
      if (last !== undefined && compareKeys(last, id) === 0) throw new DuplicateInBuild(id.toString('utf8'));
      last = id;
      if (direct) {
        checks.push([id.toString('utf8'), Buffer.from(entries)]);
        if (checks.length === BACK_ROWS_PER_STEP) checkAndPut();
      } else {
        writer.putBack(id.toString('utf8'), entries);
      }
      if (++n % BACK_ROWS_PER_STEP === 0) await pause();
    }
    if (checks.length > 0) checkAndPut();
    const changedSeqs = [...this.changedSeqs];
    for (const [view, tree] of this.trees.entries()) {
      if (rows[view]!.size === 0 && tree.total() === 0) continue;
      const steps = tree.bulkLoadSteps(rows[view]!.sorted(), {
        cacheLeaves: rows[view]!.bytes <= CACHED_BUILD_BYTES,
      });
      for (const _ of steps) await pause();
      changedSeqs[view] = lastSeqs[view] || seq;
    }
    writer.setMeta({ updateSeq: seq, purgeSeq: this.purged, changedSeqs, backFormat: this.backFormat });
    return changedSeqs;
  }

  /**
   * View compaction (`POST /db/_compact/{ddoc}`): what is pending is written, then storage gives
   * back the space updates left free.
   */
  async compact(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    await this.stored.compact();
  }

  /** Closes the index, first storing what is pending (unless `flush: false`: it is going away). */
  async close(options: { flush?: boolean } = {}): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.closed) return;
    if (options.flush !== false) {
      try {
        await this.flush();
      } catch (error) {
        // The stored index is that of an older sequence: updated from there when next opened.
        (this.options.onFlushError ?? console.error)(error);
      }
    }
    this.closed = true;
    this.stored.close();
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
  readonly rows: ExternalSorter[];
  /** Back-index entries not written as they came (see `add`). */
  readonly back: ExternalSorter;
  /** Per view, the latest sequence of a document with rows in it. */
  readonly lastSeqs: number[];
  /** Back-index entries written as they came. */
  directCount = 0;
  /** The build's write when it opened with the build (ViewIndex.openBuild): settles once `finish`ed and stored. */
  written: Promise<number[] | undefined> | undefined;
  /** Resolves with the index's sequence at `finish`; rejects when the build is given up. */
  readonly finishing: Promise<number>;
  private readonly trees: readonly BuildableRowTree[];
  /** Where back-index entries go while their ids ascend (the open write); undefined once they do not. */
  private direct: IndexWriter | undefined;
  private lastDirectId: string | undefined;
  /** The back-index entry of the document being added. */
  private readonly entry = new BackEntryWriter();
  private settle: { resolve: (seq: number) => void; reject: (error: Error) => void } | undefined;

  constructor(
    index: ViewIndex,
    private readonly rowsOf: (doc: MappedDoc, out: BuildRowSink, entry: BackEntryWriter) => void,
    private readonly write: (seq: number) => Promise<void>,
  ) {
    this.trees = index.trees;
    this.lastSeqs = index.trees.map(() => 0);
    this.rows = index.trees.map(
      (_, view) => new ExternalSorter({ file: index.stored.scratch(`build-${view}`), memoryBytes: BUILD_MEMORY_BYTES }),
    );
    this.back = new ExternalSorter({ file: index.stored.scratch('build-back'), memoryBytes: BUILD_MEMORY_BYTES });
    this.finishing = new Promise<number>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.finishing.catch(() => {}); // awaited only when the write opened with the build
  }

  /** The build's write is open: back-index entries go into it while their ids ascend. */
  openWith(writer: IndexWriter): void {
    this.direct = writer;
  }

  /** Adds mapped documents (each document once in the whole build). */
  add(docs: readonly MappedDoc[]): void {
    for (const doc of docs) this.addDoc(doc);
  }

  /**
   * Adds one mapped document (once in the whole build). Nothing of `doc` is kept: a caller may
   * reuse it, and its rows' arrays, for the next document.
   */
  addDoc(doc: MappedDoc): void {
    const entry = this.entry;
    this.seq = doc.seq ?? 0;
    this.rowsOf(doc, this.out, entry);
    if (entry.empty) return;
    const direct = this.direct;
    if (direct !== undefined) {
      const last = this.lastDirectId;
      // UTF-8 byte order (the back-index's), without a Buffer per id.
      if (last === undefined || compareUtf8(last, doc.id) < 0) {
        const bytes = entry.bytes();
        const copy = Buffer.allocUnsafe(bytes.length);
        bytes.copy(copy);
        direct.putBack(doc.id, copy);
        this.lastDirectId = doc.id;
        this.directCount++;
        return;
      }
      // Out of order: the rest go through the sorter, checked against these at the end.
      this.direct = undefined;
    }
    this.back.add(Buffer.from(doc.id), entry.bytes());
  }

  /** The sequence of the document being added (`out` raises its views' `lastSeqs` to it). */
  private seq = 0;
  /** A row's value as the tree encodes it: one array for every row (encoded at once). */
  private readonly value: [keyJson: string, docId: string, valueJson: string] = ['', '', ''];
  /** Where the document being added puts each row: made once, not per document or batch. */
  private readonly out: BuildRowSink = (view, key, keyJson, docId, valueJson) => {
    const value = this.value;
    value[0] = keyJson;
    value[1] = docId;
    value[2] = valueJson;
    this.rows[view]!.add(key, this.trees[view]!.encodeValue(value));
    if (this.seq > this.lastSeqs[view]!) this.lastSeqs[view] = this.seq;
  };

  /** Writes everything added, and `seq` as the index's sequence, in one transaction. */
  finish(seq: number): Promise<void> {
    this.direct = undefined;
    this.settle?.resolve(seq);
    this.settle = undefined;
    return this.write(seq);
  }

  /** Removes the temporary files (after `finish`, or instead of it: then an open write is rolled back). */
  dispose(): void {
    this.direct = undefined;
    this.settle?.reject(new Error('index build given up'));
    this.settle = undefined;
    this.written?.catch(() => {});
    for (const sorter of this.rows) sorter.dispose();
    this.back.dispose();
  }
}

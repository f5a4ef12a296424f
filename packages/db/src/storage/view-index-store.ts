/**
 * The view-index part of the storage contract: where a database's view indexes keep their bytes.
 * The view engine (../views) owns what the bytes mean (B-tree nodes with stored reductions, the
 * back-index from a document to its rows); storage owns where they are and makes each write of
 * an index atomic with its checkpoint (`IndexMeta`).
 *
 * Reads are synchronous (`NodeStore.get`, `readBack`): a tree walk or a back-index lookup runs
 * inside one step of the event loop, from a local file. An engine behind a network keeps a local
 * copy and brings it up to date in `sync` (see postgres/shared-index.ts); its writes go to the
 * shared store before `write` resolves, under the `lock` one node holds at a time.
 *
 * `test/storage-conformance.ts` holds the suite every engine passes.
 */
import type { Page } from './records.js';

/**
 * Where a B-tree keeps its nodes: encoded node bytes by integer id, plus the root id.
 *
 * The tree writes nodes in place (a node keeps its id while it is rewritten), so a store must
 * either be used inside one writer's transactions or offer `atomic`. `generation` lets the tree
 * notice that the stored tree changed behind its node cache (a rolled-back transaction, another
 * handle): it must change on every `setRoot` and go back with a rollback.
 */
export interface NodeStore {
  get(id: number): Uint8Array | undefined;
  /**
   * Stores a node; `bytes` may be reused by the caller afterwards (copy it to keep it), unless
   * `owned`: then they are the store's (never changed again).
   */
  put(id: number, bytes: Uint8Array, owned?: boolean): void;
  delete(id: number): void;
  /** A fresh id (never one in use). */
  allocate(): number;
  getRoot(): number | undefined;
  /** Called once at the end of every tree update; must bump `generation`. */
  setRoot(id: number | undefined): void;
  /** Changes with every `setRoot`, and goes back on rollback. Without it the tree trusts its cache. */
  generation?(): number;
  /** Runs `fn` so that its writes happen all or not at all (a SAVEPOINT). */
  atomic?<T>(fn: () => T): T;
  /** Deletes every node and the root (faster than one delete per node). */
  clear?(): void;
}

/** An index's checkpoint: what it is complete up to. Written with the nodes it describes. */
export interface IndexMeta {
  /** The database sequence the index is complete up to. */
  updateSeq: number;
  /** The database purge sequence the index has caught up with. */
  purgeSeq: number;
  /** Per view, the sequence of the last batch that changed its rows. */
  changedSeqs: number[];
  /** The back-index entry format (see views/back-index.ts). */
  backFormat: 1 | 2;
}

/** What a `write` may change besides the nodes (written through `StoredIndex.nodes`). */
export interface IndexWriter {
  putBack(id: string, rows: Uint8Array): void;
  deleteBack(id: string): void;
  /** Removes every back-index entry. */
  clearBack(): void;
  setMeta(meta: IndexMeta): void;
  /**
   * Lets other work run (a long build calls it every few milliseconds); readers keep seeing
   * the index as it was before the write.
   */
  pause(): Promise<void>;
}

/** A temporary file for a build's sorted runs: positional reads and writes, gone with `remove`. */
export interface ScratchFile {
  write(buf: Uint8Array, offset: number, length: number, position: number): number;
  read(buf: Uint8Array, offset: number, length: number, position: number): number;
  remove(): void;
}

/** One view group's stored index. */
export interface StoredIndex {
  /** One node store per view: read at any time, written only inside `write`. */
  readonly nodes: readonly NodeStore[];
  /** The checkpoint as of the last `write` or `sync`. */
  meta(): IndexMeta;
  /** The back-index entries of these ids (those there are). */
  readBack(ids: readonly string[]): Map<string, Uint8Array>;
  /** Every document id with a back-index entry, in id order. */
  foldBackIds(): AsyncIterable<Page<string>>;
  /**
   * Whether other server nodes write this index too. Then an update holds `lock` from before its
   * `sync` until its last `write`, and writes before it lets go.
   */
  readonly shared: boolean;
  /**
   * Takes in what other nodes wrote since the last call; true when the index changed (node caches
   * are stale). Never while a `write` runs.
   */
  sync(): Promise<boolean>;
  /** Waits for the right to update the index: one holder at a time, released if its node dies. */
  lock(): Promise<{ release(): Promise<void> }>;
  /**
   * Runs `fn`, whose writes (nodes, back-index, checkpoint) are made all or none: a throw, or a
   * failure to store them, undoes them (then node caches are stale) and rejects.
   */
  write<T>(fn: (writer: IndexWriter) => T | Promise<T>): Promise<T>;
  /**
   * `write` for a write that fills an empty index (a build), where an engine has a cheaper way
   * to write many new pages at once (SQLite: a rollback journal rather than the WAL).
   */
  fillEmpty?<T>(fn: (writer: IndexWriter) => T | Promise<T>): Promise<T>;
  /** A temporary file (for a build), next to the index. */
  scratch(name: string): ScratchFile;
  /** Bytes the index takes here (`_info` sizes). */
  size(): number;
  /** Of those, the bytes in use: what `compact` keeps (`_info`'s `sizes.active`). */
  activeSize(): number;
  /** Gives back the space of what updates left free. */
  compact(): Promise<void>;
  close(): void;
}

/** The view indexes of one database, one per view-group signature. */
export interface ViewIndexStore {
  /** The index of a signature (empty when new), with `views` node stores. */
  open(signature: string, views: number): Promise<StoredIndex>;
  /** Deletes the index of a signature (close it first). */
  remove(signature: string): Promise<void>;
  /** The signatures with a stored index. */
  signatures(): Promise<string[]>;
}

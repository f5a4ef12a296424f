/**
 * The storage contract. Storage knows records, bodies as text and orders (ids by raw UTF-8 bytes,
 * changes by sequence); it knows nothing of revision trees, winners or HTTP. The documents layer
 * above it decides what to write; an engine writes it atomically. One engine today (SQLite via
 * better-sqlite3); PostgreSQL for several server nodes, or node:sqlite, can come in behind the
 * same interface without touching the document or view layers.
 *
 * Every method is synchronous: one writer per database, and a write, its revision tree, its
 * by-sequence entry and the counters commit in one transaction before the method returns.
 * Folds are generators that read in pages (keyset pagination), so no statement stays open while
 * a caller is between two rows (a streamed HTTP response may pause for seconds) and writes can
 * go on meanwhile.
 *
 * This synchronous interface is the SQLite engine's own (./sqlite/); everything above storage
 * uses the asynchronous contract of ./contract.ts, which ./sqlite/sqlite-storage.ts implements
 * on top of it.
 */

/** What storage keeps of one document (not its bodies). */
export interface DocRecord {
  id: string;
  /** The sequence of this document's last change; assigned by `writeDocs`. */
  seq: number;
  /** The winning revision, `"3-abc..."`. */
  rev: string;
  /** The winning leaf is a deletion: the document counts in `docDelCount`, not `docCount`. */
  deleted: boolean;
  /** The serialized revision tree; opaque to storage (the revisions module writes and reads it). */
  tree: string;
}

/** A changed document with its winner's body (see `DatabaseStore.foldChangedBodies`). */
export interface ChangedDoc {
  id: string;
  seq: number;
  rev: string;
  deleted: boolean;
  body: string | undefined;
  /** The document's serialized revision tree (a map function sees its `_conflicts`). */
  tree: string;
}

/** One revision's body: canonical JSON text of the document without its special `_` members. */
export interface RevBody {
  rev: string;
  body: string;
}

/** One document's change in a `writeDocs` batch. */
export interface DocWrite {
  /** The document's new record; `writeDocs` gives it the next sequence. */
  record: Omit<DocRecord, 'seq'>;
  /** Bodies of revisions new in this write (stored under `(record.id, rev)`). */
  bodies: RevBody[];
  /** Revisions whose bodies are no longer needed (stemmed out of the tree). */
  dropBodies?: string[];
  /**
   * The caller looked the id up in this same synchronous step and found no document: the
   * engine may insert without looking again (a bulk load of new documents does one lookup, not two).
   */
  isNew?: boolean;
}

/**
 * A document rewritten by compaction: its tree with the revisions whose bodies go marked as not
 * stored, and those bodies. No new sequence: the winner, the counters and the changes stay.
 */
export interface CompactWrite {
  id: string;
  tree: string;
  dropBodies: string[];
}

/** One document of a purge (`DatabaseStore.purgeDocs`). */
export interface PurgeWrite {
  id: string;
  /** The revisions the request named, as it named them (what the purge log keeps). */
  revs: string[];
  /**
   * The document after the purge: its new record (it gets the next sequence, so indexes see it
   * again), `null` when no revision is left (the document goes: record, bodies, by-sequence
   * entry), undefined when the purge changes nothing (it is only logged).
   */
  record?: Omit<DocRecord, 'seq'> | null;
  /** Bodies of revisions no longer in the tree (with a new record). */
  dropBodies?: string[];
}

/** An entry of the purge log: one document of one purge request. */
export interface PurgeInfo {
  purgeSeq: number;
  id: string;
  revs: string[];
}

/** A `_local/` document: no revision tree, no sequence, never in `_all_docs` or `_changes`. */
export interface LocalDoc {
  /** The full id, `_local/name`. */
  id: string;
  /** `"0-N"` */
  rev: string;
  /** Canonical JSON text without special members. */
  body: string;
}

export interface DbMeta {
  /** Number of document changes ever written (the latest sequence). */
  updateSeq: number;
  /** Number of purge log entries ever written (one per document of each purge request). */
  purgeSeq: number;
  /** Documents whose winner is live (design docs included, local docs not). */
  docCount: number;
  /** Documents whose winner is deleted. */
  docDelCount: number;
  sizes: {
    /** Bytes on disk (database file and its journal). */
    file: number;
    /** Bytes of the current documents' bodies as JSON. */
    external: number;
    /** Bytes of live data in the file. */
    active: number;
  };
  /** Milliseconds since the epoch when the database was created. */
  createdAt: number;
}

export interface IdRange {
  /** First id (inclusive); none: from the first (or, descending, the last) id. */
  start?: string;
  /** Last id; none: to the end. */
  end?: string;
  /** Whether `end` itself is included (default true). */
  inclusiveEnd?: boolean;
  /** Walk from high ids to low; `start` is then the high bound. */
  descending?: boolean;
  /** Include documents whose winner is deleted (default false). */
  includeDeleted?: boolean;
}

export interface DatabaseStore {
  readonly name: string;
  meta(): DbMeta;
  /** The counters alone, without file sizes (no I/O: asked on every request). */
  counters(): Pick<DbMeta, 'updateSeq' | 'purgeSeq' | 'docCount' | 'docDelCount'>;

  getDoc(id: string): DocRecord | undefined;
  /** One entry per id, in the order given (undefined where there is none). */
  getDocs(ids: readonly string[]): (DocRecord | undefined)[];
  /** A revision's body text, or undefined when it was never stored (or was dropped). */
  getBody(id: string, rev: string): string | undefined;
  /** Several bodies at once, one per pair, in order. */
  getBodies(wanted: readonly { id: string; rev: string }[]): (string | undefined)[];

  /**
   * Writes every document of the batch in one transaction, in order: each gets the next sequence
   * (its previous by-sequence entry goes), its new bodies are stored, the counters follow the old
   * and new `deleted` flags. Returns the sequence given to each write. All or nothing.
   */
  writeDocs(writes: readonly DocWrite[]): number[];

  /** Documents by id in raw UTF-8 byte order (code point order), paged internally. */
  foldDocs(range: IdRange): Generator<DocRecord>;
  /** How many documents `foldDocs(range)` would give (what `_all_docs` reports as `offset`). */
  countDocs(range: IdRange): number;
  /** Documents whose last change is after `since`, by sequence (descending: newest first). */
  foldChanges(since: number, descending?: boolean): Generator<DocRecord>;
  /**
   * `foldChanges` (ascending) with each live winner's body text read in the same statement (what
   * a view index update maps); `body` is undefined for deleted winners.
   */
  /** `foldDocs` with each live winner's body (`body` undefined for a deleted winner). */
  foldDocBodies(range: IdRange): Generator<ChangedDoc>;
  foldChangedBodies(since: number): Generator<ChangedDoc>;
  /** How many documents changed after `since` (what `_changes` reports as `pending`). */
  countChanges(since: number): number;

  getLocal(id: string): LocalDoc | undefined;
  /** Writes (inserts or replaces) a local document. */
  putLocal(doc: LocalDoc): void;
  /** Removes a local document; false when there was none. */
  deleteLocal(id: string): boolean;
  /** Local documents by id, same ordering rules as `foldDocs` (includeDeleted is meaningless). */
  foldLocal(range: IdRange): Generator<LocalDoc>;

  /**
   * Compaction's document step: rewrites each document's tree and drops the bodies named, all in
   * one transaction (a document no longer there is skipped).
   */
  compactDocs(writes: readonly CompactWrite[]): void;
  /**
   * Compaction's space step: gives up to `maxPages` free pages of the file back to the file
   * system. True while there are more to give (call again); false once the file is as small as
   * it gets.
   */
  reclaimSpace(maxPages: number): boolean;

  /**
   * Purges, in one transaction: each document gets a purge log entry (the next purge sequence)
   * and the change its `record` says; the update sequence moves on at least once (as CouchDB's,
   * so that indexes notice the purge even when no document remains to re-sequence); the log
   * keeps its last `keepInfos` entries. Returns the new purge and update sequences.
   */
  purgeDocs(purges: readonly PurgeWrite[], keepInfos: number): { purgeSeq: number; updateSeq: number };
  /** Purge log entries after `since`, in order. */
  foldPurges(since: number): Generator<PurgeInfo>;
  /** The lowest purge sequence the log still holds (purgeSeq + 1 when it is empty). */
  oldestPurge(): number;

  /** Small per-database settings as text (`revs_limit`, `security`, ...). */
  getProp(key: string): string | undefined;
  setProp(key: string, value: string): void;

  close(): void;
}

/** A folder of databases. */
export interface StorageEngine {
  /** Every database name, in code point order. */
  listDatabases(): string[];
  exists(name: string): boolean;
  /** Creates a database; throws `StorageExistsError` when it exists. */
  create(name: string): DatabaseStore;
  /** The open handle of a database (opened on first use, then cached), or undefined. */
  open(name: string): DatabaseStore | undefined;
  /** Deletes a database and its files; false when there was none. */
  destroy(name: string): boolean;
  /**
   * The folder holding a database's view indexes (one file per view group; they go with the
   * database when it is deleted).
   */
  indexDir(name: string): string;
  /** Closes every open database (checkpointing their journals). */
  close(): void;
}

export interface EngineOptions {
  /** The data folder. */
  dir: string;
  /** `'full'` syncs every commit to disk (survives power loss); `'normal'` (default) survives a killed process. */
  durability?: 'normal' | 'full';
}

export class StorageExistsError extends Error {
  constructor(name: string) {
    super(`database ${name} exists`);
    this.name = 'StorageExistsError';
  }
}

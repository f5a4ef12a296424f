/**
 * The SQLite engine's own synchronous interface, beneath the asynchronous contract
 * (../contract.ts) that ./sqlite-storage.ts implements on top of it. better-sqlite3 is
 * synchronous and this process is each file's only writer, so a write, its revision tree, its
 * by-sequence entry and the counters commit in one transaction before the method returns.
 * Folds are generators that read in pages (keyset pagination, ../keyset-pages.ts), so no
 * statement stays open while a caller is between two rows (a streamed HTTP response may pause
 * for seconds) and writes can go on meanwhile.
 *
 * Nothing above storage uses it; tests of the engine itself (and of crashes) do.
 */
import type { Planner, UpdateOptions } from '../contract.js';
import type { SqliteAccessRows } from './access-rows.js';
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
  PurgeWrite,
  RangeStats,
  RoleChange,
} from '../records.js';
import type { SqliteAttachments } from './attachments.js';

/** One database, synchronously: a file with one connection, this process its only writer. */
export interface SqliteSyncStore {
  readonly name: string;
  meta(): DbMeta;
  /** The counters alone, without file sizes (no I/O: asked on every request). */
  counters(): Pick<DbMeta, 'updateSeq' | 'purgeSeq' | 'docCount' | 'docDelCount'>;

  getDoc(id: string): DocRecord | undefined;
  /** One entry per id, in the order given (undefined where there is none). */
  getDocs(ids: readonly string[]): (DocRecord | undefined)[];
  /** The record and its winning revision's body in one statement. */
  getDocWithBody(id: string): { record: DocRecord; body: string | undefined } | undefined;
  /** A revision's body text, or undefined when it was never stored (or was dropped). */
  getBody(id: string, rev: string): string | undefined;
  /** Several bodies at once, one per pair, in order. */
  getBodies(wanted: readonly { id: string; rev: string }[]): (string | undefined)[];
  /** Records with their winners' bodies (undefined for a deleted winner), in the order asked. */
  getDocsWithBodies(ids: readonly string[]): (ChangedDoc | undefined)[];
  /** `DocumentStore.plainWinnersText` (./doc-reads.ts). */
  plainWinnersText(ids: readonly string[], maxSeq: number, count: number): string | undefined;

  /**
   * Writes every document of the batch in one transaction, in order: each gets the next sequence
   * (its previous by-sequence entry goes), its new bodies are stored, the counters follow the old
   * and new `deleted` flags. Returns the sequence given to each write. All or nothing.
   */
  writeDocs(writes: readonly DocWrite[]): number[];
  /** `DocumentStore.countStaleBodies`, synchronously. */
  countStaleBodies(leavesOf: (record: DocRecord) => readonly string[]): void;
  /**
   * The contract's write path (`DocumentStore.update`), synchronous: the records of `ids` are
   * read, planned over and written in one transaction.
   */
  updateDocs<R>(ids: readonly string[], plan: Planner<R>, options?: UpdateOptions): { result: R; seqs: number[] };
  /** Access rows (./access-rows.ts), written by `updateDocs`. */
  readonly access: SqliteAccessRows;
  /** `DocumentStore.recordRoles`, synchronous. */
  recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): { log: RoleChange[]; seq?: number };

  /** Documents by id in raw UTF-8 byte order (code point order), paged internally. */
  foldDocs(range: IdRange): Generator<DocRecord>;
  /** How many documents `foldDocs(range)` would give (what `_all_docs` reports as `offset`). */
  countDocs(range: IdRange): number;
  /** `DocumentStore.rangeStats`, synchronous. */
  rangeStats(start: string, end: string): RangeStats;
  /** Documents whose last change is after `since`, by sequence (descending: newest first). */
  foldChanges(since: number, descending?: boolean): Generator<DocRecord>;
  /** `foldDocs` with each live winner's body (`body` undefined for a deleted winner). */
  foldDocBodies(range: IdRange, bounds?: readonly NumberBound[]): Generator<ChangedDoc>;
  /**
   * `foldChanges` (ascending) with each live winner's body text read in the same statement (what
   * a view index update maps); `body` is undefined for deleted winners.
   */
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

  /** Attachment bytes (./attachments.ts). */
  readonly attachments: SqliteAttachments;

  close(): void;
}

/** A data folder of SQLite databases, one file each. */
export interface SqliteSyncEngine {
  /** Every database name, in code point order. */
  listDatabases(): string[];
  exists(name: string): boolean;
  /** Creates a database; throws `StorageExistsError` when it exists. */
  create(name: string): SqliteSyncStore;
  /** The open handle of a database (opened on first use, then cached), or undefined. */
  open(name: string): SqliteSyncStore | undefined;
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

/** How to open the SQLite engine (`openSqliteStorage`, `openSqliteEngine`). */
export interface SqliteOptions {
  /** The data folder. */
  dir: string;
  /** `'full'` syncs every commit to disk (survives power loss); `'normal'` (default) survives a killed process. */
  durability?: 'normal' | 'full';
}

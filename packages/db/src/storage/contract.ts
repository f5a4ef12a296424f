/**
 * The asynchronous storage contract: what a storage engine (SQLite in-process, PostgreSQL over
 * the network) offers the document layer. Every method returns a promise or an async iterable of
 * pages, so an engine behind a network never blocks the event loop; an in-process engine may
 * answer synchronously inside.
 *
 * Storage knows records, bodies as text and two orders (ids by raw UTF-8 bytes, changes by
 * sequence); it knows nothing of revision trees, winners or HTTP. The document layer decides
 * what to write (a pure plan over the records it is shown); the engine makes it atomic.
 *
 * One write path, `update`: the engine reads the records of the ids a batch touches with every
 * other writer of that database held off (on every node), lets the plan compute the writes, and
 * commits them with the next sequences, all in one transaction. So sequence order is commit order,
 * a batch is all or nothing, and concurrent writers (several requests, several server nodes) never
 * lose each other's revisions. The document layer batches concurrent requests into one call
 * (group commit).
 *
 * The values it takes and gives are in ./records.ts; where a database's view indexes live, in
 * ./view-index-store.ts. `test/storage-conformance.ts` is the one suite every engine passes.
 */
import type {
  AccessChange,
  AttachmentInfo,
  AttachmentSource,
  ChangedDoc,
  CompactWrite,
  DbEvent,
  Counters,
  DbMeta,
  DocRecord,
  DocWrite,
  IdRange,
  NumberBound,
  LocalDoc,
  Page,
  PurgeInfo,
  PurgeWrite,
  RangeStats,
  RoleChange,
  RoleRow,
} from './records.js';
import type { ViewIndexStore } from './view-index-store.js';

/** How an `update` reads its records. */
export interface UpdateOptions {
  /** Give each record its `access` text (an access-enabled database's planner checks writers against it). */
  access?: boolean;
}

/**
 * What an update plan returns: the writes (one per document, at most; committed in this order,
 * each with the next sequence) and any result the caller wants back.
 */
export interface UpdatePlan<R> {
  writes: readonly DocWrite[];
  result: R;
}

/**
 * Computes a batch's writes from the current records of its ids (absent: no document).
 * Synchronous and pure, so an engine may run it more than once for one `update`: on records it
 * assumes, before its transaction (a write in one round trip, ./postgres/assumed-write.ts), and
 * again on those it reads under its lock when they turn out otherwise. Only a run on the records
 * (and `designSeq`) current under the lock is committed and answered; a throw there aborts the
 * batch, nothing written.
 * `designSeq`, from an engine that keeps it (`DocumentStore.tellsDesignSeq`), read under the lock:
 * the update sequence of the database's last change to a design document (written or purged).
 */
export type Planner<R> = (records: ReadonlyMap<string, DocRecord>, designSeq?: number) => UpdatePlan<R>;

/**
 * Computes a purge from the current records of its ids (absent: no document), inside the
 * engine's transaction like a `Planner`: one `PurgeWrite` per id asked (see ./records.ts).
 */
export type PurgePlanner<R> = (records: ReadonlyMap<string, DocRecord>) => { purges: readonly PurgeWrite[]; result: R };

/** Computes compaction's rewrites of some documents from their current records (like `Planner`). */
export type CompactPlanner = (records: ReadonlyMap<string, DocRecord>) => readonly CompactWrite[];

/** Where an attachment sweep started: the attachment writes begun by then (see `sweepAttachments`). */
export type AttachmentSweepMark = number;

export interface DocumentStore {
  readonly name: string;
  /**
   * Whether `update` tells its plan the design sequence (see `Planner`). An engine whose counters
   * are a round trip away (PostgreSQL) does: the document layer then checks a write against the
   * design documents it kept without reading the counters first, and plans again a write checked
   * against design documents older than that sequence.
   */
  readonly tellsDesignSeq?: boolean;
  meta(): Promise<DbMeta>;
  counters(): Promise<Counters>;

  getDoc(id: string): Promise<DocRecord | undefined>;
  /** One entry per id, in the order given (undefined where there is none). */
  getDocs(ids: readonly string[]): Promise<(DocRecord | undefined)[]>;
  /** A revision's body text, or undefined when it was never stored (or was dropped). */
  getBody(id: string, rev: string): Promise<string | undefined>;
  /** The record and its winning revision's body in one read (a plain document GET: one round trip). */
  getDocWithBody(id: string): Promise<{ record: DocRecord; body: string | undefined } | undefined>;
  /** Several bodies at once (one per pair, in order): what `include_docs` reads a page of rows with. */
  getBodies(wanted: readonly { id: string; rev: string }[]): Promise<(string | undefined)[]>;
  /**
   * Records with their winners' bodies (undefined for a deleted winner), one entry per id in the
   * order given (undefined where there is none): a page of Mango results in one read.
   */
  getDocsWithBodies(ids: readonly string[]): Promise<(ChangedDoc | undefined)[]>;
  /**
   * The first `count` of `ids`' winners as a plain read renders them, `{"_id":…,"_rev":…` and
   * their bodies' members, joined by commas in the order given; undefined unless every id has a
   * live winner whose sequence is at most `maxSeq` and whose body has no special (`_`) member
   * first. A page of Mango results written without rendering each document (an engine may
   * leave it out: the page is then read with `getDocsWithBodies`).
   */
  plainWinnersText?(ids: readonly string[], maxSeq: number, count: number): Promise<string | undefined>;

  /** The one write path (see the top of this file). Resolves with the plan's result and each write's sequence. */
  update<R>(ids: readonly string[], plan: Planner<R>, options?: UpdateOptions): Promise<{ result: R; seqs: number[] }>;

  /*
   * Access rows (per-document `_access`, see `AccessWrite` in ./records.ts): written by `update`
   * for writes that carry `access`, removed with their document by a purge that removes it.
   */
  /** Each document's readers (principals of its current access rows), in the order asked; [] for none. */
  readersOf(ids: readonly string[]): Promise<string[][]>;
  /** The documents any of `principals` may read, by id in raw order (as `foldDocs`, each once). */
  foldReadable(principals: readonly string[], range: IdRange): AsyncIterable<Page<DocRecord>>;
  /** How many documents `foldReadable(principals, range)` would give. */
  countReadable(principals: readonly string[], range: IdRange): Promise<number>;
  /**
   * The documents whose newest access row of any of `principals` is after `since`, once each, by
   * that row's sequence (descending: newest first): `removed` when none of them may read it now.
   * `withRemoved` false leaves the removed ones out.
   */
  foldAccessChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): AsyncIterable<Page<AccessChange>>;
  /** How many documents `foldAccessChanges` would give. */
  countAccessChanges(principals: readonly string[], since: number, withRemoved: boolean): Promise<number>;
  /**
   * The role log (roles given or taken away in `_users`, as this database's feeds know them):
   * records `roles` as `user`'s roles now, in one transaction with the writers held off. The
   * first record of a user takes them as they are (sequence 0, nothing else written). A later
   * one that finds them changed gives the user one row per document a gained role reads now
   * that their principals before did not (`removed` false) and per document a lost role read while the user held it that none of
   * the user's principals (`principals`, the roles now included) reads now (`removed`), each at
   * its own new update sequence (at least one sequence, a change without a document as a
   * purge's), and each changed role that change's first sequence. `version` orders the
   * records (the account document's revision number): one older than the last that changed
   * something changes nothing, so a late reader of an older account cannot undo a newer one.
   * Answers the user's roles with their last changes, and the last sequence written, if any.
   */
  recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): Promise<{ log: RoleChange[]; seq?: number }>;
  /** The user's role rows (see `recordRoles`) after `since`, by sequence. */
  foldRoleRows(user: string, since: number): AsyncIterable<Page<RoleRow>>;

  /**
   * A purge, in one transaction with the writers held off: the plan sees the records of `ids`
   * (with their `access` text, as an `update` asked `{ access: true }`);
   * each purge gets a log entry (the next purge sequence) and its document the change it names
   * (a new record gets the next update sequence, `null` removes the document); the update
   * sequence moves on at least once; the log keeps its last `keepInfos` entries. A new record's
   * `access` rewrites its access rows at its new sequence, as an `update`'s write does.
   */
  purge<R>(
    ids: readonly string[],
    keepInfos: number,
    plan: PurgePlanner<R>,
  ): Promise<{ result: R; purgeSeq: number; updateSeq: number }>;
  /** The purge sequence (purge log entries ever written). */
  purgeSeq(): Promise<number>;
  /** Purge log entries after `since`, in order. */
  foldPurges(since: number): AsyncIterable<Page<PurgeInfo>>;
  /** The lowest purge sequence the log still holds (purgeSeq + 1 when it is empty). */
  oldestPurge(): Promise<number>;
  /**
   * Compaction's document step, in one transaction with the writers held off: the plan sees the
   * records of `ids`; each rewrite replaces a tree (no new sequence) and drops bodies.
   */
  compact(ids: readonly string[], plan: CompactPlanner): Promise<void>;
  /**
   * Counts the bytes of stored bodies of revisions that are not leaves (what `DbMeta.sizes`
   * leaves out of `active`) once, for a database stored before the engine kept that count;
   * with the writers held off. `leavesOf` names a record's leaf revisions. Where the count is
   * kept already, this only finds so (no scan).
   */
  countStaleBodies(leavesOf: (record: DocRecord) => readonly string[]): Promise<void>;
  /**
   * Compaction's space step: gives up to `maxPages` free pages back to the file system; true
   * while there is more to give. An engine whose space is not its own to give answers false.
   */
  reclaimSpace(maxPages: number): Promise<boolean>;

  /** Documents by id in raw UTF-8 byte order (code point order). */
  foldDocs(range: IdRange): AsyncIterable<Page<DocRecord>>;
  /** How many documents `foldDocs(range)` would give. */
  countDocs(range: IdRange): Promise<number>;
  /**
   * The documents with ids from `start` (inclusive) to `end` (exclusive): live and deleted counts
   * and the bytes of the live winners' bodies, read from that id range alone (a partition's info).
   */
  rangeStats(start: string, end: string): Promise<RangeStats>;
  /** Documents whose last change is after `since`, by sequence (descending: newest first). */
  foldChanges(since: number, descending?: boolean): AsyncIterable<Page<DocRecord>>;
  /**
   * `foldDocs` with each live winner's body (a scan of every document, Mango without an index);
   * `bounds` (./records.ts `NumberBound`) may leave out live documents that cannot match them.
   */
  foldDocBodies(range: IdRange, bounds?: readonly NumberBound[]): AsyncIterable<Page<ChangedDoc>>;
  /** `foldChanges` (ascending) with each live winner's body text; `body` is undefined for deleted winners. */
  foldChangedBodies(since: number): AsyncIterable<Page<ChangedDoc>>;
  /** How many documents changed after `since`. */
  countChanges(since: number): Promise<number>;

  getLocal(id: string): Promise<LocalDoc | undefined>;
  /** Writes (inserts or replaces) a local document. */
  putLocal(doc: LocalDoc): Promise<void>;
  /** Removes a local document; false when there was none. */
  deleteLocal(id: string): Promise<boolean>;
  foldLocal(range: IdRange): AsyncIterable<Page<LocalDoc>>;

  /**
   * Stores an attachment's bytes as they arrive, without holding them whole, and names them by
   * their MD5. Resolves once they are durable; bytes already stored under that digest are kept
   * once. A source that fails leaves nothing stored. Bytes no revision refers to are for a sweep
   * to delete: store them inside `attachmentWrite`.
   */
  putAttachment(data: AttachmentSource): Promise<AttachmentInfo>;
  attachmentInfo(digest: string): Promise<AttachmentInfo | undefined>;
  /** The stored bytes of `digest` from `start` up to `end` (exclusive; default: to the end), a chunk at a time. */
  readAttachment(digest: string, start?: number, end?: number): AsyncIterable<Uint8Array>;
  /** Forgets stored attachments (digests not stored are ignored). */
  deleteAttachments(digests: readonly string[]): Promise<void>;
  /** Every stored attachment, by digest. */
  foldAttachments(): AsyncIterable<Page<AttachmentInfo>>;
  /**
   * Runs `write`, which stores attachment bytes and then commits the revisions that refer to them
   * (or fails): until it ends, those bytes are referenced by nothing, and a sweep on any node
   * sharing this storage frees none of them. Settles as `write` does.
   */
  attachmentWrite<T>(write: () => Promise<T>): Promise<T>;
  /**
   * The start of a sweep of unreferenced attachments: a mark for `sweepAttachments`, or undefined
   * while an attachment write is under way (here or on another node), when nothing may be freed.
   */
  attachmentSweepMark(): Promise<AttachmentSweepMark | undefined>;
  /**
   * The end of a sweep: deletes `digests` (stored attachments the sweep found no revision refer
   * to, looking after `mark` was taken) and what uploads that never finished left (a node that
   * died mid-upload), unless an attachment write began since the mark or is under way, on any
   * node: then nothing is deleted, and false.
   */
  sweepAttachments(digests: readonly string[], mark: AttachmentSweepMark): Promise<boolean>;

  /** Small per-database settings as text (`revs_limit`, `security`, ...). */
  getProp(key: string): Promise<string | undefined>;
  setProp(key: string, value: string): Promise<void>;

  /** Where this database's view indexes are stored (./view-index-store.ts); they go with it. */
  viewIndexes(): ViewIndexStore;
}

/** Where a server's databases and its own state live. */
export interface Storage {
  /**
   * Whether other processes (nodes) may use this storage at the same time (PostgreSQL). When false,
   * this process holds it alone (SQLite's folder lock), so what nodes coordinate through server
   * values (replication leases, heartbeats) can stay in memory.
   */
  readonly sharedByNodes: boolean;
  /** Every database name, in code point order. */
  listDatabases(): Promise<string[]>;
  /** Creates a database; rejects with `StorageExistsError` when it exists. */
  create(name: string): Promise<DocumentStore>;
  /** The database of that name, or undefined. */
  open(name: string): Promise<DocumentStore | undefined>;
  /** Deletes a database and everything of it; false when there was none. */
  destroy(name: string): Promise<boolean>;
  /**
   * The server's database events, after `since`, by sequence (descending: newest first): each
   * database's latest `created`, `updated` and `deleted`, shared by every node on this storage
   * (CouchDB's `_db_updates`). The engine records them itself: `create` and `destroy` before they
   * resolve, `updated` for every `update` and `purge` that committed, shortly after the commit
   * (writes close together share one), and always before this storage's next read of them.
   */
  foldDbEvents(since: number, descending?: boolean): AsyncIterable<Page<DbEvent>>;
  /** The latest database event's sequence (0 before any). */
  dbEventSeq(): Promise<number>;
  /** Server-level values (admins, configuration, secrets), shared by every node on this storage. */
  getServerValue(key: string): Promise<string | undefined>;
  setServerValue(key: string, value: string): Promise<void>;
  /**
   * Stores `value` unless `key` holds a value already, atomically across every node on this
   * storage; answers the value now stored (`value`, or the one that was there). Two nodes starting
   * at once create one admin and one cookie secret with it.
   */
  addServerValue(key: string, value: string): Promise<string>;
  /** Removes a server value (nothing when there is none): `addServerValue` may then store one again. */
  deleteServerValue(key: string): Promise<void>;
  /** The keys of the server values stored now that start with `prefix`, sorted. */
  serverValueKeys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The storage could not be reached, or dropped the connection (a network engine whose server is
 * away): the request may succeed later. The HTTP layer answers 503.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** `Storage.create` of a name that exists. */
export class StorageExistsError extends Error {
  constructor(name: string) {
    super(`database ${name} exists`);
    this.name = 'StorageExistsError';
  }
}

/**
 * The values that cross the storage contract (./contract.ts): what storage keeps of a document,
 * what a write hands it, what a fold gives back. Storage knows records, bodies as text and two
 * orders (ids by raw UTF-8 bytes, changes by sequence); the revision tree is opaque text to it.
 */

/** What storage keeps of one document (not its bodies). */
export interface DocRecord {
  id: string;
  /** The sequence of this document's last change; given by the write that made it. */
  seq: number;
  /** The winning revision, `"3-abc..."`. */
  rev: string;
  /** The winning leaf is a deletion: the document counts in `docDelCount`, not `docCount`. */
  deleted: boolean;
  /** The serialized revision tree; opaque to storage (the revisions module writes and reads it). */
  tree: string;
  /**
   * The text the document layer keeps with a document of an access-enabled database
   * (`AccessWrite.leaves`): given only to the planner of an `update` asked `{ access: true }`.
   */
  access?: string;
}

/** A changed document with its winner's body (see `DocumentStore.foldChangedBodies`). */
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

/** One document's change in a write batch (what an update plan returns). */
export interface DocWrite {
  /** The document's new record; the write gives it the next sequence. */
  record: Omit<DocRecord, 'seq'>;
  /** Bodies of revisions new in this write (stored under `(record.id, rev)`). */
  bodies: RevBody[];
  /** Revisions whose bodies are no longer needed (stemmed out of the tree). */
  dropBodies?: string[];
  /**
   * Revisions that stop being leaves with this write (stemmed ones included): those that were
   * leaves with a stored body before it, and those new in `bodies` that are not leaves after it.
   * Their bodies stay until compaction and count as stale from now on (`DbMeta.sizes.active`
   * leaves them out); a body of one that is not stored counts nothing. Each revision once.
   */
  unleafed?: string[];
  /**
   * The caller looked the id up in this same synchronous step and found no document: the
   * engine may insert without looking again (a bulk load of new documents does one lookup, not two).
   */
  isNew?: boolean;
  /**
   * The new tree is the stored one with its oldest revisions stemmed and new ones added on its
   * one leaf (an interactive update of a history that is one line): an engine may store it by
   * appending (./sqlite/tree-chunks.ts). Absent: nothing is said about the tree.
   */
  treeGrowth?: TreeGrowth;
  /** Who may read the document after this write (an access-enabled database only): ./contract.ts. */
  access?: AccessWrite;
}

/** What a write did to a one-line history: `dropped` oldest revisions stemmed, `added` revisions after its leaf. */
export interface TreeGrowth {
  dropped: number;
  added: number;
}

/**
 * A document's access after a write (per-document `_access`). The engine keeps, in the write's
 * transaction, one access row per principal and document: `(principal, id, seq, removed)`. Each
 * reader gets a row at the write's sequence; a principal who could read the document before and
 * cannot now gets a `removed` row at that sequence; other rows stay. So a principal's readable
 * documents and their changes are a range scan of its rows.
 */
export interface AccessWrite {
  /**
   * Opaque text kept with the document, handed back as `DocRecord.access` (see `UpdateOptions`).
   * When it is `uniformLeaves(readers)` an engine may keep no text (and drop any it kept) and
   * hand back `uniformLeaves` of the document's readers, in UTF-8 byte order, when it has some.
   */
  leaves: string;
  /** The principals (user names, role names) who may read the document now; none: admins only. */
  readers: readonly string[];
}

/**
 * The `AccessWrite.leaves` text of a document whose every leaf has `readers` as its `_access`,
 * listed in UTF-8 byte order: the usual document, whose text an engine need not keep (one row
 * less per write), since its readers' access rows say it all.
 */
export function uniformLeaves(readers: readonly string[]): string {
  // `JSON.stringify({ [UNIFORM_LEAF]: readers })` without the object (a computed key makes a slow one).
  return `{"${UNIFORM_LEAF}":${JSON.stringify(readers)}}`;
}

/** The key of `uniformLeaves`' one entry (no revision is named `*`). */
export const UNIFORM_LEAF = '*';

/** A document in the changes of a set of principals (`DocumentStore.foldAccessChanges`). */
export interface AccessChange {
  /** The sequence of the principals' newest access row of the document. */
  seq: number;
  /** True when none of the principals may read the document since that sequence. */
  removed: boolean;
  /** The document's current record (its `seq` is later than `seq` for a removed row). */
  record: DocRecord;
}

/** A user's role in the role log of an access-enabled database (`DocumentStore.recordRoles`). */
export interface RoleChange {
  role: string;
  /** The sequence of its last change (0: held when the user was first recorded). */
  seq: number;
  /** Lost at that sequence. */
  removed: boolean;
}

/**
 * A user's row of the role log's per-document part: a document the user gained (`removed`
 * false) or lost through a role change, at its own sequence (`DocumentStore.foldRoleRows`).
 */
export interface RoleRow {
  id: string;
  seq: number;
  removed: boolean;
}

/**
 * A document rewritten by compaction: its tree with the revisions whose bodies go marked as not
 * stored, and those bodies. No new sequence: the winner, the counters and the changes stay.
 * Compaction drops bodies of revisions that are not leaves only: every one of them was stale.
 */
export interface CompactWrite {
  id: string;
  tree: string;
  dropBodies: string[];
}

/** One document of a purge (`DocumentStore.purge`). */
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
  /**
   * Revisions with a stored body that were not leaves before the purge and are gone or leaves
   * after it (with `record: null`, every such revision of the document): their bodies no longer
   * count as stale (`DocWrite.unleafed`).
   */
  staleGone?: string[];
  /** Who may read the document after the purge (with a new record, in an access-enabled database). */
  access?: AccessWrite;
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
  /**
   * `file` and `active` differ by what compaction would give back: bodies of revisions that are
   * no longer leaves (`DocWrite.unleafed`, counted by the engine as they happen) and free space.
   * After a compaction no write overlapped, they are equal.
   */
  sizes: {
    /** Bytes the database takes (SQLite: its file and journal; PostgreSQL: its stored bodies). */
    file: number;
    /** Bytes of the current documents' bodies as JSON. */
    external: number;
    /** Bytes of live data: `file` less the stale bodies and free pages. */
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

/**
 * A necessary condition on a live winner's top-level member, which a body fold may apply to pass
 * documents over unread (Mango's scan without an index: ../mango/number-bounds.ts): a document
 * whose member `member` is an integer that does not compare `op` with `value` may be left out.
 * Any other document (the member missing, not an integer) is kept, and an engine may ignore the
 * bounds: the caller matches what it is given again. `value` is below 2^53 in size, so that an
 * integer compares with it alike exactly and as a double (one larger is a double of at least
 * 2^53, on the same side).
 */
export interface NumberBound {
  member: string;
  op: '<' | '<=' | '>' | '>=' | '=';
  value: number;
}

/** A page of a fold: rows in order; folds read a page per query, so nothing stays open between pages. */
export type Page<T> = readonly T[];

/** Counts and sizes of an id range (`DocumentStore.rangeStats`). */
export interface RangeStats {
  docCount: number;
  docDelCount: number;
  /** Bytes of the live winners' bodies as JSON (what `sizes.external` sums). */
  external: number;
  /** Bytes of every revision body still stored, tombstones and old revisions included (`sizes.active`). */
  active: number;
}

/** The counters of a database, without file sizes. */
export type Counters = Pick<DbMeta, 'updateSeq' | 'docCount' | 'docDelCount'>;

/** A stored attachment: its bytes as stored (a compressed one's gzip stream), named by their MD5. */
export interface AttachmentInfo {
  /** `md5-<base64 of the MD5 of the stored bytes>`, CouchDB's digest. */
  digest: string;
  /** Bytes stored. */
  length: number;
}

/** The bytes of an attachment as they arrive (a request body, a decoded base64 string). */
export type AttachmentSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** What happened to a database, as CouchDB's `_db_updates` names it. */
export type DbEventType = 'created' | 'updated' | 'deleted';

/**
 * An entry of the server's database events (`Storage.foldDbEvents`): each database's latest event
 * of each type, at the server-wide sequence it was recorded with.
 */
export interface DbEvent {
  seq: number;
  dbName: string;
  type: DbEventType;
}

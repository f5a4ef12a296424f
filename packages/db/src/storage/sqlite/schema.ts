/**
 * The tables of one database file. `PRAGMA user_version` holds SCHEMA_VERSION.
 *
 * `docs` has a stable integer key `k` besides the id: bodies are keyed by `k`, so a bulk load of
 * new documents appends to `bodies` and to the `seq` index, and only the small `id` index takes
 * random-order inserts. (Keying `docs` and `bodies` by the id text, WITHOUT ROWID, measured 2 to 3
 * times slower for loads of random ids: every commit rewrote a page per document in both trees.)
 * Rows of `docs` go only when a purge removes a whole document, its bodies with it (so a `k`
 * used again never finds bodies of the one before).
 *
 * The winning revision's body is in its `docs` row (`body`, added last, after `access`, by
 * `WINNER_BODY_COLUMN`: reading the small columns never walks a big body's overflow pages), so a
 * new document's commit writes no `bodies` page; `bodies` keeps the other revisions' bodies
 * (conflicts, deleted branches, old revisions until compaction). When another revision becomes
 * the winner its body moves into the row and the old winner's into `bodies`.
 *
 * TEXT columns use the BINARY collation: UTF-8 byte order, which is code point order.
 */
/**
 * 2: long one-line revision histories may be stored in `tree_chunks` (./tree-chunks.ts), which
 * an older build would misread as tree text; a version-1 file is brought up to 2 on open.
 * 3: a document's access (readers, who lost it, its leaves' text) is kept in `docs.access`
 * (./access-rows.ts), not in a by-document index of the access rows and `access_leaves`, which an
 * older build would read as empty; a version-1 or -2 file is brought up to 3 on open.
 * 4: `meta` keeps `stale`, the bytes of stored bodies of revisions that are not leaves, which
 * every write keeps exact (an older build would not); a file of version 1 to 3 is brought up to
 * 4 on open without it, and `SqliteDatabase.countStaleBodies` counts it once.
 * 5: the access rows are one tree, `access_feed` by principal and sequence, and `docs.access`
 * holds their sequences (./access-rows.ts); `access_log` (by principal and document, indexed by
 * sequence), which an older build would read, is gone; a file of version 1 to 4 is brought up
 * to 5 on open.
 * 6: an access row holds integers, the principal's id (`access_principals`) and the document's
 * `docs.k`, where version 5 had their texts (which an older build would bind names against); a
 * file of version 1 to 5 is brought up to 6 on open.
 * 7: a write batch no longer saves the counters in `meta` (./sqlite-file.ts `loadCounters` counts
 * them again from the rows when `meta` is behind), which an older build would take as they are;
 * a file of version 1 to 6 (whose `meta` is exact) is brought up to 7 on open.
 * 8: a write's new access rows are read from the `docs.access` of the documents written after
 * `access_tail.merged` until a later write moves them into `access_feed` (./access-rows.ts), so
 * an older build would miss them; a file of version 1 to 7 (every row in `access_feed`) is brought
 * up to 8 on open, `merged` its last sequence.
 * 9: the winning revision's body is `docs.body` (the row's last column, after `access`); `bodies`
 * holds only the other revisions' bodies, so an older build would find no winner's body; a file
 * of version 1 to 8 is brought up to 9 on open (`WINNER_BODIES_MIGRATION`).
 */
export const SCHEMA_VERSION = 9;

export const SCHEMA = `
CREATE TABLE docs (
  k INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  seq INTEGER NOT NULL UNIQUE,
  rev TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  -- UTF-8 bytes of the winning body when the winner is live, else 0 (sums to sizes.external)
  size INTEGER NOT NULL,
  tree TEXT NOT NULL
);
-- Deleted documents by id, so counting the live ones in a range reads two indexes, not the rows.
CREATE INDEX docs_deleted ON docs (id) WHERE deleted = 1;
CREATE TABLE bodies (
  doc INTEGER NOT NULL,
  rev TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (doc, rev)
) WITHOUT ROWID;
CREATE TABLE local_docs (
  id TEXT PRIMARY KEY,
  rev TEXT NOT NULL,
  body TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE props (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/**
 * The purge log (one row per document of each purge request, by purge sequence), made on open
 * in files that predate it.
 */
export const PURGE_SCHEMA = `
CREATE TABLE IF NOT EXISTS purges (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  revs TEXT NOT NULL
);
`;

/**
 * Attachment bytes (./attachments.ts): one row per stored attachment (written last: an
 * attachment exists once its row does) naming the key its chunks were written under in
 * `attachment_data` (`chunks`), and the chunks by key and number. `attachment_data` is a rowid
 * table: big rows are appended, where the clustered b-tree of a WITHOUT ROWID table moved them
 * around on every insert (twice the time for a batch of 10 KB attachments). Rows without
 * `chunks` are attachments stored before it, whose chunks are in `attachment_chunks` under their
 * digest. `attachment_uploads` lists the keys of uploads whose chunks are being written before
 * their row (what a crash leaves behind, removed on open). Made on open in older files (with `ATTACHMENT_CHUNKS_COLUMN` where the column is missing).
 */
export const ATTACHMENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS attachments (
  digest TEXT PRIMARY KEY,
  length INTEGER NOT NULL,
  chunks TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attachment_chunks (
  digest TEXT NOT NULL,
  n INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (digest, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attachment_data (
  key TEXT NOT NULL,
  n INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (key, n)
);
CREATE TABLE IF NOT EXISTS attachment_uploads (
  key TEXT PRIMARY KEY
) WITHOUT ROWID;
`;

/** Adds `attachments.chunks` to a file made before it. */
export const ATTACHMENT_CHUNKS_COLUMN = 'ALTER TABLE attachments ADD COLUMN chunks TEXT';

/** Adds `docs.body` (schema version 9), after `access` (./access-rows.ts adds that one on open). */
export const WINNER_BODY_COLUMN = 'ALTER TABLE docs ADD COLUMN body TEXT';

/** Moves each winner's body from `bodies` into its row (a file of schema version 1 to 8). */
export const WINNER_BODIES_MIGRATION = `
UPDATE docs SET body = (SELECT b.body FROM bodies b WHERE b.doc = docs.k AND b.rev = docs.rev);
DELETE FROM bodies WHERE (doc, rev) IN (SELECT k, rev FROM docs);
`;

/** Counter keys of `meta`, written together (not by plain write batches: ./sqlite-file.ts `loadCounters`). */
export const COUNTERS = ['update_seq', 'doc_count', 'doc_del_count', 'external', 'purge_seq'] as const;
/** The `meta` key of the stale bodies' bytes (schema version 4), written with COUNTERS once known. */
export const STALE = 'stale';

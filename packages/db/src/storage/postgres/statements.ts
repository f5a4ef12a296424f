/**
 * The PostgreSQL engine's statements on the document tables of one schema (./schema.ts), built
 * once per storage and prepared once per connection, and the rows they give.
 */
import { createHash } from 'node:crypto';
import { CouchError } from '../../errors.js';
import type { ChangedDoc, DocRecord } from '../records.js';
import { COUNTERS_CHANGED, propChannel } from './prop-cache.js';
import { quoteIdent } from './schema.js';
import type { BatchStatement } from './statement-batch.js';
import { treeColumn, treeText } from './tree-chunks.js';

const namedByText = new Map<string, { name: string; text: string }>();

/**
 * A named statement: node-postgres parses it once per connection, then only binds values. Kept
 * by text, so a statement built per call (a range walk's few shapes) is named once.
 */
export function named(text: string): { name: string; text: string } {
  let statement = namedByText.get(text);
  if (statement === undefined) {
    statement = { name: `divan_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    namedByText.set(text, statement);
  }
  return statement;
}

/** The statements of one schema, built once per storage. */
export function documentStatements(schema: string) {
  const s = quoteIdent(schema);
  // `tree` is the text, joined from its chunks when stored in them (./tree-chunks.ts).
  const DOC = `id, seq, rev, deleted, ${treeColumn(s)}`;
  const D_DOC = `d.id, d.seq, d.rev, d.deleted, ${treeColumn(s, 'd')}`;
  // Every change of a `dbs` row tells the nodes at commit, so each can keep the row meanwhile
  // (./prop-cache.ts); in the statement that makes it, so no write takes a round trip more.
  const told = ` RETURNING pg_notify('${propChannel(schema)}', '${COUNTERS_CHANGED}' || db_id)`;
  return {
    /** The attachment tables, qualified (their statements are built where used). */
    attachments: `${s}.attachments`,
    chunks: `${s}.attachment_chunks`,
    counters: named(
      `SELECT update_seq, doc_count, doc_del_count, external, purge_seq, stored, stale FROM ${s}.dbs WHERE db_id = $1`,
    ),
    // The writers' lock: FOR NO KEY UPDATE conflicts with itself (one writer per database at a
    // time, on every node) but not with the KEY SHARE lock that local documents and properties
    // take, which only a DELETE of the row (destroy) waits for.
    lock: named(
      `SELECT update_seq, doc_count, doc_del_count, external, purge_seq, stored, stale, design_seq FROM ${s}.dbs WHERE db_id = $1 FOR NO KEY UPDATE`,
    ),
    /**
     * What update() reads under the lock, sent in the batch that takes it (in READ COMMITTED
     * each statement takes its snapshot when it starts: the records are read after the lock was
     * granted): the records of the ids $2, each with its counted size and its stored `tree`
     * value; the tree's text NULL for a row still at one of the (id, seq, head) of $3, $4, $5,
     * whose text the node kept (./tree-chunks.ts `KeptTreeTexts`).
     */
    readForUpdateKept: named(
      `SELECT id, seq, rev, deleted, CASE WHEN (id, seq, tree) IN (SELECT * FROM unnest($3::text[], $4::int8[], $5::text[])) ` +
        `THEN NULL ELSE ${treeText(s)} END AS tree, tree AS stored_tree, size FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`,
    ),
    /**
     * `readForUpdateKept` for one id ($2), the kept (seq, head) in $3, $4 (NULL: none kept): a
     * plan PostgreSQL keeps per connection by itself (the id arrays' plan it made afresh at every
     * run unless told otherwise: GENERIC_PLANS), so a single-document write's `BEGIN` batch needs
     * no settings around it.
     */
    readOneForUpdateKept: named(
      `SELECT id, seq, rev, deleted, CASE WHEN seq = $3::int8 AND tree = $4::text THEN NULL ELSE ${treeText(s)} END AS tree, ` +
        `tree AS stored_tree, size FROM ${s}.docs WHERE db_id = $1 AND id = $2::text`,
    ),
    setTrees: named(
      `UPDATE ${s}.docs d SET tree = x.tree FROM unnest($2::text[], $3::text[]) AS x(id, tree) ` +
        'WHERE d.db_id = $1 AND d.id = x.id',
    ),
    deleteDocs: named(`DELETE FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`),
    /** Chunks of trees dropped: every chunk of the ids $2, and of $3 those numbered from $4 up to $5. */
    dropTreeChunks: named(
      `DELETE FROM ${s}.tree_chunks c WHERE c.db_id = $1 AND (c.id = ANY($2::text[]) OR EXISTS ` +
        '(SELECT 1 FROM unnest($3::text[], $4::int4[], $5::int4[]) AS x(id, lo, hi) WHERE c.id = x.id AND c.n >= x.lo AND c.n < x.hi))',
    ),
    putTreeChunks: named(
      `INSERT INTO ${s}.tree_chunks (db_id, id, n, nodes) SELECT $1::int8, * FROM unnest($2::text[], $3::int4[], $4::text[])`,
    ),
    // Bodies deleted answer their bytes (the stored bodies' count follows them).
    deleteAllBodies: named(
      `WITH d AS (DELETE FROM ${s}.bodies WHERE db_id = $1 AND id = ANY($2::text[]) RETURNING octet_length(body) AS n) ` +
        'SELECT coalesce(sum(n), 0) AS n FROM d',
    ),
    logPurges: named(
      `INSERT INTO ${s}.purges (db_id, seq, id, revs) SELECT $1::int8, * FROM unnest($2::int8[], $3::text[], $4::text[])`,
    ),
    prunePurges: named(`DELETE FROM ${s}.purges WHERE db_id = $1 AND seq <= $2`),
    purges: named(`SELECT seq, id, revs FROM ${s}.purges WHERE db_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
    oldestPurge: named(`SELECT min(seq) AS seq FROM ${s}.purges WHERE db_id = $1`),
    savePurgeSeq: named(`UPDATE ${s}.dbs SET purge_seq = $2 WHERE db_id = $1${told}`),
    keyShare: `SELECT 1 FROM ${s}.dbs WHERE db_id = $1 FOR KEY SHARE`,
    getDoc: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND id = $2`),
    getDocs: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`),
    // What update() reads under the lock: the records, and each one's counted size.
    readForUpdate: named(
      `SELECT ${DOC}, tree AS stored_tree, size FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`,
    ),
    getBody: named(`SELECT body FROM ${s}.bodies WHERE db_id = $1 AND id = $2 AND rev = $3`),
    getDocWithBody: named(
      `SELECT ${D_DOC}, b.body FROM ${s}.docs d
       LEFT JOIN ${s}.bodies b ON b.db_id = d.db_id AND b.id = d.id AND b.rev = d.rev
       WHERE d.db_id = $1 AND d.id = $2`,
    ),
    // Each body looked up by the primary key: a join let PostgreSQL hash a scan of every body of
    // a small database (EXPLAIN ANALYZE, 100 ids of 5,000 documents: 2.2 → 0.9 ms).
    getDocsWithBodies: named(
      `SELECT ${D_DOC}, (SELECT b.body FROM ${s}.bodies b WHERE b.db_id = d.db_id AND b.id = d.id AND b.rev = d.rev ` +
        `AND NOT d.deleted) AS body FROM ${s}.docs d WHERE d.db_id = $1 AND d.id = ANY($2::text[])`,
    ),
    getBodies: named(
      `SELECT b.id, b.rev, b.body FROM ${s}.bodies b JOIN unnest($2::text[], $3::text[]) AS w(id, rev) ` +
        `ON b.id = w.id AND b.rev = w.rev WHERE b.db_id = $1`,
    ),
    // Names the bodies that were new (xmax 0: no row replaced), for the stored bodies' count: a
    // revision's body written again is the same text (its rev id is its content's).
    putBodies: named(
      `INSERT INTO ${s}.bodies (db_id, id, rev, body) SELECT $1::int8, * FROM unnest($2::text[], $3::text[], $4::text[]) ` +
        'ON CONFLICT (db_id, id, rev) DO UPDATE SET body = excluded.body RETURNING id, rev, xmax = 0 AS inserted',
    ),
    dropBodies: named(
      `WITH d AS (DELETE FROM ${s}.bodies b USING unnest($2::text[], $3::text[]) AS x(id, rev) ` +
        'WHERE b.db_id = $1 AND b.id = x.id AND b.rev = x.rev RETURNING octet_length(b.body) AS n) ' +
        'SELECT coalesce(sum(n), 0) AS n FROM d',
    ),
    /** The bytes of the bodies of the (id, rev) pairs stored (missing ones count nothing). */
    bodyBytes: named(
      `SELECT coalesce(sum((SELECT octet_length(b.body) FROM ${s}.bodies b ` +
        'WHERE b.db_id = $1 AND b.id = x.id AND b.rev = x.rev)), 0) AS n FROM unnest($2::text[], $3::text[]) AS x(id, rev)',
    ),
    /** Every stored body's bytes, and those of revisions that are not their document's winner. */
    bodyTotals: named(
      `SELECT coalesce(sum(octet_length(b.body)), 0) AS stored, ` +
        'coalesce(sum(octet_length(b.body)) FILTER (WHERE b.rev <> d.rev), 0) AS stale ' +
        `FROM ${s}.bodies b LEFT JOIN ${s}.docs d ON d.db_id = b.db_id AND d.id = b.id WHERE b.db_id = $1`,
    ),
    /** A page of records by id, for a walk of every document. */
    docsAfter: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND id > $2 ORDER BY id LIMIT $3`),
    bodySizes: named(
      `SELECT x.id, octet_length(b.body) AS size FROM unnest($2::text[], $3::text[]) AS x(id, rev) ` +
        `JOIN ${s}.bodies b ON b.db_id = $1 AND b.id = x.id AND b.rev = x.rev`,
    ),
    putDocs: named(
      `INSERT INTO ${s}.docs (db_id, id, seq, rev, deleted, size, tree) ` +
        'SELECT $1::int8, * FROM unnest($2::text[], $3::int8[], $4::text[], $5::bool[], $6::int8[], $7::text[]) ' +
        'ON CONFLICT (db_id, id) DO UPDATE SET seq = excluded.seq, rev = excluded.rev, deleted = excluded.deleted, ' +
        'size = excluded.size, tree = excluded.tree',
    ),
    saveCounters: named(
      `UPDATE ${s}.dbs SET update_seq = $2, doc_count = $3, doc_del_count = $4, external = $5 WHERE db_id = $1${told}`,
    ),
    /**
     * `putBodies`, `putDocs` and `saveCountersSized` in one statement: `stored` ($15, NULL until
     * counted) grows by the bytes of the bodies inserted (not those already there); `design_seq` $17.
     */
    writeBatch: named(writeBatchText(s, told, false)),
    /**
     * `writeBatch` and `dropBodies` ($18, $19): `stored` and `stale` ($16) shrink by the bytes of
     * the bodies dropped (each was stale). A statement of its own, so a batch that drops nothing
     * keeps the plan without the DELETE.
     */
    writeBatchDropping: named(writeBatchText(s, told, true)),
    /**
     * `writeBatch` on records assumed, not read (./assumed-write.ts): written only when, under
     * the lock, every document of $18 is at the (seq, stored tree) of $19, $20 (NULL: no row)
     * and `design_seq` is $17; the sequences are `update_seq` plus the offsets $6, the counters
     * move by $11–$15 (the stored and stale bytes stay NULL until counted), a design document
     * written at offset $16 (NULL: none) moves `design_seq`. Answers `update_seq` before the
     * write (`base`), no row when an assumption failed (nothing written then).
     */
    writeAssumed: named(writeAssumedText(s, told, false)),
    /** `writeAssumed` dropping the bodies of ($21, $22), as `writeBatchDropping`. */
    writeAssumedDropping: named(writeAssumedText(s, told, true)),
    /** `saveCounters`, the body bytes (`stored`, `stale`: NULL until counted) and `design_seq`. */
    saveCountersSized: named(
      `UPDATE ${s}.dbs SET update_seq = $2, doc_count = $3, doc_del_count = $4, external = $5, stored = $6, stale = $7, ` +
        `design_seq = $8 WHERE db_id = $1${told}`,
    ),
    saveSizes: named(`UPDATE ${s}.dbs SET stored = $2, stale = $3 WHERE db_id = $1${told}`),
    changes: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
    changesDesc: named(
      `SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq DESC LIMIT $4`,
    ),
    changedBodies: named(
      `SELECT ${D_DOC}, CASE WHEN NOT d.deleted THEN b.body END AS body ` +
        `FROM ${s}.docs d LEFT JOIN ${s}.bodies b ON b.db_id = d.db_id AND b.id = d.id AND b.rev = d.rev ` +
        'WHERE d.db_id = $1 AND d.seq > $2 ORDER BY d.seq LIMIT $3',
    ),
    /** The changes after $2 (up to $3 when given), with the database's state they were counted in. */
    countChanges: named(
      `SELECT (SELECT count(*) FROM ${s}.docs WHERE db_id = $1 AND seq > $2 AND ($3::int8 IS NULL OR seq <= $3)) AS n, ` +
        `update_seq || '/' || purge_seq || '/' || doc_count || '/' || doc_del_count AS version FROM ${s}.dbs WHERE db_id = $1`,
    ),
    getLocal: named(`SELECT id, rev, body FROM ${s}.local_docs WHERE db_id = $1 AND id = $2`),
    putLocal: named(
      `INSERT INTO ${s}.local_docs (db_id, id, rev, body) SELECT db_id, $2, $3, $4 FROM ${s}.dbs ` +
        'WHERE db_id = $1 FOR KEY SHARE ON CONFLICT (db_id, id) DO UPDATE SET rev = excluded.rev, body = excluded.body',
    ),
    deleteLocal: named(`DELETE FROM ${s}.local_docs WHERE db_id = $1 AND id = $2`),
    getProp: named(`SELECT value FROM ${s}.props WHERE db_id = $1 AND key = $2`),
    // Tells every node (./prop-cache.ts) on channel $4, at commit: one row when the database is there.
    setProp: named(
      `WITH w AS (INSERT INTO ${s}.props (db_id, key, value) SELECT db_id, $2, $3 FROM ${s}.dbs ` +
        'WHERE db_id = $1 FOR KEY SHARE ON CONFLICT (db_id, key) DO UPDATE SET value = excluded.value RETURNING db_id) ' +
        'SELECT pg_notify($4, db_id::text) FROM w',
    ),
    schema: s,
  };
}

/** The text of `writeBatch` (`dropping`: `writeBatchDropping`) on schema `s`. */
function writeBatchText(s: string, told: string, dropping: boolean): string {
  const dropped = dropping ? ' - (SELECT coalesce(sum(n), 0) FROM x)' : '';
  return (
    `WITH b AS (INSERT INTO ${s}.bodies (db_id, id, rev, body) SELECT $1::int8, * FROM unnest($2::text[], $3::text[], $4::text[]) ` +
    'ON CONFLICT (db_id, id, rev) DO UPDATE SET body = excluded.body RETURNING octet_length(body) AS n, xmax = 0 AS inserted), ' +
    (dropping
      ? `x AS (DELETE FROM ${s}.bodies o USING unnest($18::text[], $19::text[]) AS x(id, rev) ` +
        'WHERE o.db_id = $1 AND o.id = x.id AND o.rev = x.rev RETURNING octet_length(o.body) AS n), '
      : '') +
    `d AS (INSERT INTO ${s}.docs (db_id, id, seq, rev, deleted, size, tree) ` +
    'SELECT $1::int8, * FROM unnest($5::text[], $6::int8[], $7::text[], $8::bool[], $9::int8[], $10::text[]) ' +
    'ON CONFLICT (db_id, id) DO UPDATE SET seq = excluded.seq, rev = excluded.rev, deleted = excluded.deleted, ' +
    'size = excluded.size, tree = excluded.tree) ' +
    `UPDATE ${s}.dbs SET update_seq = $11, doc_count = $12, doc_del_count = $13, external = $14, ` +
    `stored = $15::int8 + (SELECT coalesce(sum(n), 0) FROM b WHERE inserted)${dropped}, stale = $16::int8${dropped}, ` +
    `design_seq = $17 WHERE db_id = $1${told}`
  );
}

/** The text of `writeAssumed` (`dropping`: `writeAssumedDropping`) on schema `s`. */
function writeAssumedText(s: string, told: string, dropping: boolean): string {
  const dropped = dropping ? ' - (SELECT coalesce(sum(n), 0) FROM x)' : '';
  return (
    // The one row of `dbs` while every assumption holds (read after the lock: its own snapshot).
    // Each row looked up by the primary key (a lateral subquery, OFFSET 0: never made a join, which
    // a kept plan made a hash join over every row of the database).
    `WITH ok AS (SELECT update_seq FROM ${s}.dbs WHERE db_id = $1 AND design_seq = $17::int8 AND NOT EXISTS ` +
    `(SELECT 1 FROM unnest($18::text[], $19::int8[], $20::text[]) AS k(id, seq, tree) LEFT JOIN LATERAL ` +
    `(SELECT d.seq, d.tree FROM ${s}.docs d WHERE d.db_id = $1 AND d.id = k.id OFFSET 0) d ON true ` +
    'WHERE d.seq IS DISTINCT FROM k.seq OR d.tree IS DISTINCT FROM k.tree)), ' +
    `b AS (INSERT INTO ${s}.bodies (db_id, id, rev, body) SELECT $1::int8, x.id, x.rev, x.body ` +
    'FROM unnest($2::text[], $3::text[], $4::text[]) AS x(id, rev, body), ok ' +
    'ON CONFLICT (db_id, id, rev) DO UPDATE SET body = excluded.body RETURNING octet_length(body) AS n, xmax = 0 AS inserted), ' +
    (dropping
      ? `x AS (DELETE FROM ${s}.bodies o USING unnest($21::text[], $22::text[]) AS x(id, rev) ` +
        'WHERE o.db_id = $1 AND o.id = x.id AND o.rev = x.rev AND EXISTS (SELECT FROM ok) RETURNING octet_length(o.body) AS n), '
      : '') +
    `d AS (INSERT INTO ${s}.docs (db_id, id, seq, rev, deleted, size, tree) ` +
    'SELECT $1::int8, x.id, ok.update_seq + x.off, x.rev, x.deleted, x.size, x.tree ' +
    'FROM unnest($5::text[], $6::int8[], $7::text[], $8::bool[], $9::int8[], $10::text[]) AS x(id, off, rev, deleted, size, tree), ok ' +
    'ON CONFLICT (db_id, id) DO UPDATE SET seq = excluded.seq, rev = excluded.rev, deleted = excluded.deleted, ' +
    'size = excluded.size, tree = excluded.tree) ' +
    `UPDATE ${s}.dbs SET update_seq = ok.update_seq + $11::int8, doc_count = doc_count + $12::int8, ` +
    'doc_del_count = doc_del_count + $13::int8, external = external + $14::int8, ' +
    `stored = stored + (SELECT coalesce(sum(n), 0) FROM b WHERE inserted)${dropped}, stale = stale + $15::int8${dropped}, ` +
    `design_seq = coalesce(ok.update_seq + $16::int8, design_seq) FROM ok WHERE db_id = $1${told}, ok.update_seq AS base`
  );
}

export type DocumentStatements = ReturnType<typeof documentStatements>;

export interface DocRow {
  id: string;
  seq: string;
  rev: string;
  deleted: boolean;
  tree: string;
}

/** A record read under the writers' lock: with its counted size and its stored `tree` value (a head, when chunked). */
export type LockedDocRow = DocRow & { size: string; stored_tree: string };

export interface CounterRow {
  update_seq: string;
  doc_count: string;
  doc_del_count: string;
  external: string;
  purge_seq: string;
  /** Bytes of the stored bodies, and of those that are stale (not leaves); NULL until counted. */
  stored: string | null;
  stale: string | null;
}

/** A `dbs` row read under the writers' lock (`lock`): its counters and `design_seq`. */
export type LockedCounterRow = CounterRow & { design_seq: string };

/**
 * Around a statement of a write's batch that PostgreSQL would plan afresh at every run: it then
 * runs on the plan kept per connection. Left to choose, PostgreSQL planned the records' read (the
 * `BEGIN` batch's) afresh at every write, its estimate of the id arrays' rows making the kept plan
 * look dearer (`pg_stat_statements`, 500 writes: 0.22–0.25 ms of planning a run against
 * 0.01–0.04 ms of executing), and so `writeBatchDropping` (an update at the revs limit: 0.21–0.25
 * ms of planning against 0.10 of executing); the kept plans are by the primary keys, as the fresh
 * ones (`EXPLAIN EXECUTE`). `writeBatch` chooses as before: kept plans for a group commit's write
 * were slower than fresh ones (`PUT` c16).
 */
export const GENERIC_PLANS: BatchStatement = {
  name: 'divan_generic_plans',
  text: 'SET LOCAL plan_cache_mode = force_generic_plan',
  values: [],
};
export const CHOSEN_PLANS: BatchStatement = {
  name: 'divan_chosen_plans',
  // Back to the server's own setting (`auto` unless its configuration says otherwise).
  text: 'SET LOCAL plan_cache_mode TO DEFAULT',
  values: [],
};

/**
 * Ids of design documents (documents/doc-id.ts `DESIGN_PREFIX`, a layer above storage): a change
 * to one moves `dbs.design_seq`, which a write's plan is told (storage/contract.ts `Planner`).
 */
export const DESIGN_PREFIX = '_design/';

/** The counters of a `dbs` row, as numbers. */
export function countersOf(row: CounterRow): {
  updateSeq: number;
  docCount: number;
  docDelCount: number;
  external: number;
  purgeSeq: number;
  /** Both undefined until counted (a database from before they were kept). */
  bodies: { stored: number; stale: number } | undefined;
} {
  return {
    updateSeq: Number(row.update_seq),
    docCount: Number(row.doc_count),
    docDelCount: Number(row.doc_del_count),
    external: Number(row.external),
    purgeSeq: Number(row.purge_seq),
    bodies:
      row.stored === null || row.stale === null ? undefined : { stored: Number(row.stored), stale: Number(row.stale) },
  };
}

/**
 * `countersOf` a row read under the lock, and its `design_seq`: the update sequence of the last
 * change to a design document (written or purged), which a write moves with the counters.
 */
export function lockedCountersOf(row: LockedCounterRow): ReturnType<typeof countersOf> & { designSeq: number } {
  return { ...countersOf(row), designSeq: Number(row.design_seq) };
}

export function toRecord(row: DocRow): DocRecord {
  return { id: row.id, seq: Number(row.seq), rev: row.rev, deleted: row.deleted, tree: row.tree };
}

/** A record read with its winner's body (NULL: none), as one object (a scan makes one a row). */
export function toChangedDoc(row: DocRow & { body: string | null }): ChangedDoc {
  return {
    id: row.id,
    seq: Number(row.seq),
    rev: row.rev,
    deleted: row.deleted,
    body: row.body ?? undefined,
    tree: row.tree,
  };
}

/** A database deleted under a handle still held. */
export function gone(name: string): CouchError {
  return new CouchError('not_found', `Database ${name} does not exist.`);
}

/** One database's place in the shared tables: its schema's statements, its id, and its name (for errors). */
export interface DbTarget {
  readonly sql: DocumentStatements;
  readonly dbId: string;
  readonly name: string;
}

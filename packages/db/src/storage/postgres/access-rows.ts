/**
 * The PostgreSQL engine's access rows (per-document `_access`, ../records.ts `AccessWrite`), the
 * same layout as the SQLite engine's (../sqlite/access-rows.ts) under each database's `db_id`:
 * `access_feed` (one row per principal and document, written in the document write's
 * transaction, keyed by principal then sequence: the one tree a write adds to) and `access_docs`
 * (each document's own access: readers and their rows' sequence, who lost it and when, its
 * leaves' text, ../doc-access.ts). A principal's changes are its rows in order, its readable
 * documents its rows with `removed = false`, sorted by id when read.
 */
import type { PoolClient, QueryConfig, QueryResultRow } from 'pg';
import {
  type DocAccess,
  decodeDocAccess,
  encodeDocAccess,
  isNewestRemoval,
  leavesOfDocAccess,
  nextDocAccess,
  readByAny,
  rowsOfDocAccess,
} from '../doc-access.js';
import type { AccessChange, DocRecord, DocWrite, IdRange, RoleChange, RoleRow } from '../records.js';
import { type CounterRow, countersOf, type DbTarget, type DocRow, gone, named, toRecord } from './statements.js';
import { treeColumn } from './tree-chunks.js';

/** The migration that makes the tables (appended to ./schema.ts's list). */
export function accessMigration(s: string): string {
  return `
    CREATE TABLE ${s}.access_log (
      db_id bigint NOT NULL,
      principal text COLLATE "C" NOT NULL,
      doc text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      removed boolean NOT NULL,
      PRIMARY KEY (db_id, principal, doc)
    );
    CREATE INDEX access_log_by_seq ON ${s}.access_log (db_id, principal, seq);
    CREATE INDEX access_log_by_doc ON ${s}.access_log (db_id, doc, principal);
    CREATE TABLE ${s}.access_leaves (
      db_id bigint NOT NULL,
      doc text COLLATE "C" NOT NULL,
      leaves text NOT NULL,
      PRIMARY KEY (db_id, doc)
    );
  `;
}

/** The migration of the role log (appended to ./schema.ts's list after `accessMigration`). */
export function roleLogMigration(s: string): string {
  return `
    CREATE TABLE ${s}.access_roles (
      db_id bigint NOT NULL,
      member text COLLATE "C" NOT NULL,
      role text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      removed boolean NOT NULL,
      PRIMARY KEY (db_id, member, role)
    );
    CREATE TABLE ${s}.access_role_rows (
      db_id bigint NOT NULL,
      member text COLLATE "C" NOT NULL,
      doc text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      removed boolean NOT NULL,
      PRIMARY KEY (db_id, member, doc)
    );
    CREATE INDEX access_role_rows_by_seq ON ${s}.access_role_rows (db_id, member, seq);
    CREATE INDEX access_role_rows_by_doc ON ${s}.access_role_rows (db_id, doc);
  `;
}

/**
 * The migration that moves each document's access into `access_docs` (appended after
 * `roleLogMigration`): readers and lost principals from its rows (through the by-document index,
 * which then goes), its leaves' text from `access_leaves`, which goes too. A write then adds to
 * the access rows' two orders and the document's one row.
 */
export function accessDocsMigration(s: string): string {
  return `
    CREATE TABLE ${s}.access_docs (
      db_id bigint NOT NULL,
      doc text COLLATE "C" NOT NULL,
      access text NOT NULL,
      PRIMARY KEY (db_id, doc)
    );
    INSERT INTO ${s}.access_docs (db_id, doc, access)
    SELECT coalesce(r.db_id, l.db_id), coalesce(r.doc, l.doc),
      (CASE WHEN l.leaves IS NULL
        THEN json_build_array(coalesce(r.readers, '{}'), coalesce(r.gone, '{}'))
        ELSE json_build_array(coalesce(r.readers, '{}'), coalesce(r.gone, '{}'), l.leaves) END)::text
    FROM (
      SELECT db_id, doc,
        array_agg(principal ORDER BY principal) FILTER (WHERE NOT removed) AS readers,
        array_agg(principal ORDER BY principal) FILTER (WHERE removed) AS gone
      FROM ${s}.access_log GROUP BY db_id, doc
    ) r FULL JOIN ${s}.access_leaves l ON l.db_id = r.db_id AND l.doc = r.doc;
    DROP INDEX ${s}.access_log_by_doc;
    DROP TABLE ${s}.access_leaves;
  `;
}

/**
 * The migration to one tree of access rows (appended after the size counts' migration 10):
 * `access_feed` keyed by principal and sequence replaces `access_log` (keyed by principal and
 * document, indexed by principal and sequence); each `access_docs` text gains its rows'
 * sequences (a reader's rows all have the document's last one, ../doc-access.ts).
 */
export function accessFeedMigration(s: string): string {
  return `
    CREATE TABLE ${s}.access_feed (
      db_id bigint NOT NULL,
      principal text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      doc text COLLATE "C" NOT NULL,
      removed boolean NOT NULL,
      PRIMARY KEY (db_id, principal, seq)
    );
    CREATE TEMPORARY TABLE access_at ON COMMIT DROP AS
      SELECT db_id, doc, max(seq) FILTER (WHERE NOT removed) AS at FROM ${s}.access_log GROUP BY db_id, doc;
    INSERT INTO ${s}.access_feed (db_id, principal, seq, doc, removed)
      SELECT l.db_id, l.principal, CASE WHEN l.removed THEN l.seq ELSE t.at END, l.doc, l.removed
      FROM ${s}.access_log l JOIN access_at t ON t.db_id = l.db_id AND t.doc = l.doc;
    UPDATE ${s}.access_docs a SET access = (CASE WHEN json_array_length(a.access::json->1) = 0
      THEN json_build_array(a.access::json->0, a.access::json->1, a.access::json->2, coalesce(t.at, 0))
      ELSE json_build_array(a.access::json->0, a.access::json->1, a.access::json->2, coalesce(t.at, 0),
        (SELECT json_agg(l.seq ORDER BY g.n)
         FROM json_array_elements_text(a.access::json->1) WITH ORDINALITY AS g(principal, n)
         JOIN ${s}.access_log l ON l.db_id = a.db_id AND l.doc = a.doc AND l.principal = g.principal))
      END)::text
    FROM access_at t WHERE t.db_id = a.db_id AND t.doc = a.doc;
    DROP TABLE ${s}.access_log;
  `;
}

/** The tables a database's deletion empties of its rows. */
export const ACCESS_TABLES = ['access_feed', 'access_docs', 'access_roles', 'access_role_rows'] as const;

/** The role log's row that says a user is known (the roles recorded at first sight are theirs). */
const KNOWN = '';

/** `DocumentStore.recordRoles` on `client`: the writers' lock first when something changes. */
export async function recordRoles(
  client: PoolClient,
  db: DbTarget,
  user: string,
  roles: readonly string[],
  principals: readonly string[],
  version: number,
): Promise<{ log: RoleChange[]; seq?: number }> {
  const s = db.sql.schema;
  const [locked] = (await client.query<CounterRow>({ ...db.sql.lock, values: [db.dbId] })).rows;
  if (locked === undefined) throw gone(db.name);
  const { rows } = await client.query<{ role: string; seq: string; removed: boolean }>(
    `SELECT role, seq, removed FROM ${s}.access_roles WHERE db_id = $1 AND member = $2`,
    [db.dbId, user],
  );
  const put = async (entries: readonly RoleChange[]) => {
    if (entries.length === 0) return;
    await client.query(
      `INSERT INTO ${s}.access_roles (db_id, member, role, seq, removed)
       SELECT $1, $2, * FROM unnest($3::text[], $4::bigint[], $5::boolean[])
       ON CONFLICT (db_id, member, role) DO UPDATE SET seq = excluded.seq, removed = excluded.removed`,
      [db.dbId, user, entries.map((e) => e.role), entries.map((e) => e.seq), entries.map((e) => e.removed)],
    );
  };
  const wanted = [...new Set(roles)];
  if (rows.length === 0) {
    const log = wanted.map((role) => ({ role, seq: 0, removed: false }));
    // The known row's sequence holds the version of the account last recorded.
    await put([{ role: KNOWN, seq: version, removed: false }, ...log]);
    return { log };
  }
  const log = new Map<string, RoleChange>();
  for (const row of rows) {
    if (row.role !== KNOWN) log.set(row.role, { role: row.role, seq: Number(row.seq), removed: row.removed });
  }
  const known = Number(rows.find((row) => row.role === KNOWN)?.seq ?? 0);
  const held = [...log.values()].filter((entry) => !entry.removed);
  const gained = wanted.filter((role) => !held.some((entry) => entry.role === role));
  const lost = held.filter((entry) => !wanted.includes(entry.role));
  if ((gained.length === 0 && lost.length === 0) || version < known) return { log: [...log.values()] };
  await put([{ role: KNOWN, seq: version, removed: false }]);
  const c = countersOf(locked);
  const docs: string[] = [];
  const seqs: number[] = [];
  const removed: boolean[] = [];
  const seen = new Set<string>();
  const add = (doc: string, gone: boolean) => {
    if (seen.has(doc)) return;
    seen.add(doc);
    docs.push(doc);
    seqs.push(++c.updateSeq);
    removed.push(gone);
  };
  // A role's rows with each document's access (its readers tell who else reads it).
  const roleRows = async (role: string) =>
    (
      await client.query<{ doc: string; seq: string; removed: boolean; access: string | null }>(
        `SELECT a.doc, a.seq, a.removed, d.access FROM ${s}.access_feed a
         LEFT JOIN ${s}.access_docs d ON d.db_id = a.db_id AND d.doc = a.doc
         WHERE a.db_id = $1 AND a.principal = $2 ORDER BY a.doc`,
        [db.dbId, role],
      )
    ).rows;
  // What a gained role reads that none of the user's principals before the change read.
  const before = new Set([...principals.filter((p) => !gained.includes(p)), ...lost.map((entry) => entry.role)]);
  for (const role of gained) {
    for (const row of await roleRows(role)) {
      if (!row.removed && !readByAny(decodeDocAccess(row.access), before)) add(row.doc, false);
    }
  }
  // What the role read while the user held it (now, or lost by the role since), and nobody of theirs reads now.
  const now = new Set(principals);
  for (const { role, seq } of lost) {
    for (const row of await roleRows(role)) {
      if ((!row.removed || Number(row.seq) > seq) && !readByAny(decodeDocAccess(row.access), now)) add(row.doc, true);
    }
  }
  const at = seqs[0] ?? ++c.updateSeq;
  if (docs.length > 0) {
    await client.query(
      `INSERT INTO ${s}.access_role_rows (db_id, member, doc, seq, removed)
       SELECT $1, $2, * FROM unnest($3::text[], $4::bigint[], $5::boolean[])
       ON CONFLICT (db_id, member, doc) DO UPDATE SET seq = excluded.seq, removed = excluded.removed`,
      [db.dbId, user, docs, seqs, removed],
    );
  }
  const changed = [
    ...gained.map((role) => ({ role, seq: at, removed: false })),
    ...lost.map(({ role }) => ({ role, seq: at, removed: true })),
  ];
  await put(changed);
  for (const entry of changed) log.set(entry.role, entry);
  await client.query({ ...db.sql.saveCounters, values: [db.dbId, c.updateSeq, c.docCount, c.docDelCount, c.external] });
  return { log: [...log.values()], seq: c.updateSeq };
}

/** Rows per page of the folds. */
const PAGE_ROWS = 256;

/** The stored access of `ids` (those with none are left out). */
async function storedAccess(client: PoolClient, db: DbTarget, ids: readonly string[]): Promise<Map<string, DocAccess>> {
  if (ids.length === 0) return new Map();
  const { rows } = await client.query<{ doc: string; access: string }>(
    `SELECT doc, access FROM ${db.sql.schema}.access_docs WHERE db_id = $1 AND doc = ANY($2::text[])`,
    [db.dbId, ids],
  );
  return new Map(rows.map((row) => [row.doc, decodeDocAccess(row.access)]));
}

/**
 * The records with their `access` text, read under the writers' lock; `read` (when given) gets
 * each found document's stored access, which `applyAccess` then uses instead of reading it again.
 */
export async function withLeaves(
  client: PoolClient,
  db: DbTarget,
  records: Map<string, DocRecord>,
  read?: Map<string, DocAccess>,
): Promise<Map<string, DocRecord>> {
  const stored = await storedAccess(
    client,
    db,
    [...records.values()].map((r) => r.id),
  );
  for (const [id, record] of records) {
    const access = stored.get(record.id);
    read?.set(record.id, access ?? decodeDocAccess(null));
    const leaves = access === undefined ? undefined : leavesOfDocAccess(access);
    if (leaves !== undefined) records.set(id, { ...record, access: leaves });
  }
  return records;
}

/**
 * A batch's access writes in one statement (one round trip): the replaced rows go, the new rows
 * go in, and the documents' own access is written or dropped.
 */
const applyStatement = (s: string) =>
  named(`WITH stale AS (
       DELETE FROM ${s}.access_feed a USING unnest($2::text[], $3::bigint[]) AS stale(principal, seq)
       WHERE a.db_id = $1 AND a.principal = stale.principal AND a.seq = stale.seq
     ), added AS (
       INSERT INTO ${s}.access_feed (db_id, principal, doc, seq, removed)
       SELECT $1, * FROM unnest($4::text[], $5::text[], $6::bigint[], $7::boolean[])
     ), dropped AS (
       DELETE FROM ${s}.access_docs WHERE db_id = $1 AND doc = ANY($10::text[])
     )
     INSERT INTO ${s}.access_docs (db_id, doc, access) SELECT $1, * FROM unnest($8::text[], $9::text[])
     ON CONFLICT (db_id, doc) DO UPDATE SET access = excluded.access`);
const applyStatements = new Map<string, ReturnType<typeof named>>();

/**
 * The access rows of a batch, in its transaction: `seqs[i]` is `writes[i]`'s sequence. `read`:
 * the stored access `withLeaves` read in this transaction (the rest is read here).
 */
export async function applyAccess(
  client: PoolClient,
  db: DbTarget,
  writes: readonly DocWrite[],
  seqs: readonly number[],
  read?: ReadonlyMap<string, DocAccess>,
): Promise<void> {
  // A new document has nothing stored (a purge takes a document's access with it).
  const known = writes
    .filter((w) => w.access !== undefined && w.isNew !== true && read?.has(w.record.id) !== true)
    .map((w) => w.record.id);
  const before = await storedAccess(client, db, known);
  const principals: string[] = [];
  const docs: string[] = [];
  const rowSeqs: number[] = [];
  const removed: boolean[] = [];
  const staleOf: string[] = [];
  const staleAt: number[] = [];
  const kept: string[] = [];
  const texts: string[] = [];
  const dropped: string[] = [];
  writes.forEach(({ record, access, isNew }, i) => {
    if (access === undefined) return;
    const previous = isNew === true ? undefined : (before.get(record.id) ?? read?.get(record.id));
    const seq = seqs[i]!;
    const { next, removed: lost, stale } = nextDocAccess(previous ?? decodeDocAccess(null), access, seq);
    const add = (principal: string, gone: boolean) => {
      principals.push(principal);
      docs.push(record.id);
      rowSeqs.push(seq);
      removed.push(gone);
    };
    for (const principal of next.readers) add(principal, false);
    for (const principal of lost) add(principal, true);
    for (const [principal, at] of stale) {
      staleOf.push(principal);
      staleAt.push(at);
    }
    const text = encodeDocAccess(next);
    if (text !== null) {
      kept.push(record.id);
      texts.push(text);
    } else if (previous !== undefined) dropped.push(record.id);
  });
  if (principals.length === 0 && staleOf.length === 0 && kept.length === 0 && dropped.length === 0) return;
  const s = db.sql.schema;
  let statement = applyStatements.get(s);
  if (statement === undefined) {
    statement = applyStatement(s);
    applyStatements.set(s, statement);
  }
  await client.query({
    ...statement,
    values: [db.dbId, staleOf, staleAt, principals, docs, rowSeqs, removed, kept, texts, dropped],
  });
}

/** Deletes the access rows keyed `(principals[i], seqs[i])`. */
async function dropRows(client: PoolClient, db: DbTarget, principals: string[], seqs: number[]): Promise<void> {
  if (principals.length === 0) return;
  await client.query(
    `DELETE FROM ${db.sql.schema}.access_feed a USING unnest($2::text[], $3::bigint[]) AS stale(principal, seq)
     WHERE a.db_id = $1 AND a.principal = stale.principal AND a.seq = stale.seq`,
    [db.dbId, principals, seqs],
  );
}

/** Documents purged away: their rows go with them (found through each one's stored access). */
export async function forgetAccess(client: PoolClient, db: DbTarget, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const s = db.sql.schema;
  const principals: string[] = [];
  const seqs: number[] = [];
  for (const access of (await storedAccess(client, db, ids)).values()) {
    for (const [principal, seq] of rowsOfDocAccess(access)) {
      principals.push(principal);
      seqs.push(seq);
    }
  }
  await dropRows(client, db, principals, seqs);
  for (const table of ['access_docs', 'access_role_rows']) {
    await client.query(`DELETE FROM ${s}.${table} WHERE db_id = $1 AND doc = ANY($2::text[])`, [db.dbId, ids]);
  }
}

type Query = <T extends QueryResultRow>(config: QueryConfig | string, values?: unknown[]) => Promise<T[]>;

/** A document's columns, its tree text joined from chunks when stored in them (./tree-chunks.ts). */
const docColumns = (s: string) => `d.id, d.seq, d.rev, d.deleted, ${treeColumn(s, 'd')}`;

/** The reads of access rows, on the pool. */
export class PostgresAccessReads {
  constructor(
    private readonly query: Query,
    private readonly db: DbTarget,
  ) {}

  async readersOf(ids: readonly string[]): Promise<string[][]> {
    if (ids.length === 0) return [];
    const rows = await this.query<{ doc: string; access: string }>(
      `SELECT doc, access FROM ${this.db.sql.schema}.access_docs WHERE db_id = $1 AND doc = ANY($2::text[])`,
      [this.db.dbId, ids],
    );
    const byId = new Map(rows.map((row) => [row.doc, decodeDocAccess(row.access).readers]));
    return ids.map((id) => byId.get(id) ?? []);
  }

  /** The principals' readable rows in `range` as a condition from `$2` on (`$1`: the database). */
  private idRange(principals: readonly string[], range: IdRange, alias: string): { where: string; params: unknown[] } {
    const desc = range.descending === true;
    const where = [`${alias}db_id = $1`, `${alias}principal = ANY($2::text[])`, `NOT ${alias}removed`];
    const params: unknown[] = [this.db.dbId, principals];
    if (range.start !== undefined) {
      params.push(range.start);
      where.push(`${alias}doc ${desc ? '<=' : '>='} $${params.length}`);
    }
    if (range.end !== undefined) {
      params.push(range.end);
      where.push(`${alias}doc ${desc ? '>' : '<'}${range.inclusiveEnd !== false ? '=' : ''} $${params.length}`);
    }
    return { where: where.join(' AND '), params };
  }

  /**
   * The documents the principals read in `range`, by id: their readable rows in range, sorted
   * (a user has two principals at least, so several ranges are merged by id anyway), then the
   * documents by page.
   */
  async *foldReadable(principals: readonly string[], range: IdRange): AsyncGenerator<DocRecord[]> {
    const s = this.db.sql.schema;
    const order = range.descending === true ? 'DESC' : '';
    const { where, params } = this.idRange(principals, range, '');
    const ids = (
      await this.query<{ doc: string }>(
        `SELECT DISTINCT doc FROM ${s}.access_feed WHERE ${where} ORDER BY doc ${order}`,
        params,
      )
    ).map((row) => row.doc);
    for (let i = 0; i < ids.length; i += PAGE_ROWS) {
      const rows = await this.query<DocRow>(
        `SELECT ${docColumns(s)} FROM ${s}.docs d WHERE d.db_id = $1 AND d.id = ANY($2::text[]) ORDER BY d.id ${order}`,
        [this.db.dbId, ids.slice(i, i + PAGE_ROWS)],
      );
      const page = rows.filter((row) => range.includeDeleted === true || !row.deleted).map(toRecord);
      if (page.length > 0) yield page;
    }
  }

  async countReadable(principals: readonly string[], range: IdRange): Promise<number> {
    const s = this.db.sql.schema;
    const { where, params } = this.idRange(principals, range, 'a.');
    const live =
      range.includeDeleted === true
        ? ''
        : `AND NOT EXISTS (SELECT 1 FROM ${s}.docs d WHERE d.db_id = a.db_id AND d.id = a.doc AND d.deleted)`;
    const [row] = await this.query<{ n: string }>(
      `SELECT count(DISTINCT a.doc) AS n FROM ${s}.access_feed a WHERE ${where} ${live}`,
      params,
    );
    return Number(row?.n ?? 0);
  }

  /**
   * The principals' changes after `since`, each document once at their newest row of it (as the
   * SQLite engine's: a readable row is always the newest, a `removed` one when the document's
   * access says no principal of theirs reads it or lost it later).
   */
  async *foldChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): AsyncGenerator<AccessChange[]> {
    const s = this.db.sql.schema;
    const desc = options.descending === true;
    const withRemoved = options.withRemoved === true;
    const sql = `SELECT l.seq AS row_seq, l.removed, ${withRemoved ? 'ad.access' : 'NULL AS access'}, ${docColumns(s)}
      FROM ${s}.access_feed l JOIN ${s}.docs d ON d.db_id = l.db_id AND d.id = l.doc
      ${withRemoved ? `LEFT JOIN ${s}.access_docs ad ON ad.db_id = l.db_id AND ad.doc = l.doc` : ''}
      WHERE l.db_id = $1 AND l.principal = ANY($2::text[]) AND l.seq > $3 AND l.seq < $4 ${withRemoved ? '' : 'AND NOT l.removed'}
      ORDER BY l.seq ${desc ? 'DESC' : ''}, l.removed LIMIT $5`;
    const mine = new Set(principals);
    let low = since;
    let high = Number.MAX_SAFE_INTEGER;
    let last: number | undefined;
    for (;;) {
      const rows = await this.query<DocRow & { row_seq: string; removed: boolean; access: string | null }>(sql, [
        this.db.dbId,
        principals,
        low,
        high,
        PAGE_ROWS,
      ]);
      const page: AccessChange[] = [];
      for (const row of rows) {
        const seq = Number(row.row_seq);
        if (seq === last) continue;
        last = seq;
        if (row.removed && !isNewestRemoval(decodeDocAccess(row.access), mine, seq)) continue;
        page.push({ seq, removed: row.removed, record: toRecord(row) });
      }
      if (page.length > 0) yield page;
      if (rows.length < PAGE_ROWS) return;
      // The rest of the last sequence's rows, if the page cut them, are not its first: skipped.
      const end = Number(rows[rows.length - 1]!.row_seq);
      if (desc) high = end;
      else low = end;
    }
  }

  /** The user's role log when it already holds exactly `roles` (no lock, no write needed), else undefined. */
  async unchangedRoles(user: string, roles: readonly string[], version: number): Promise<RoleChange[] | undefined> {
    const rows = await this.query<{ role: string; seq: string; removed: boolean }>(
      `SELECT role, seq, removed FROM ${this.db.sql.schema}.access_roles WHERE db_id = $1 AND member = $2`,
      [this.db.dbId, user],
    );
    if (rows.length === 0) return undefined;
    const log = rows
      .filter((row) => row.role !== KNOWN)
      .map((row) => ({ role: row.role, seq: Number(row.seq), removed: row.removed }));
    const known = Number(rows.find((row) => row.role === KNOWN)?.seq ?? 0);
    const held = log.filter((entry) => !entry.removed).map((entry) => entry.role);
    const wanted = new Set(roles);
    const same = held.length === wanted.size && held.every((role) => wanted.has(role));
    return same || version < known ? log : undefined;
  }

  async *foldRoleRows(user: string, since: number): AsyncGenerator<RoleRow[]> {
    let after = since;
    for (;;) {
      const rows = await this.query<{ doc: string; seq: string; removed: boolean }>(
        `SELECT doc, seq, removed FROM ${this.db.sql.schema}.access_role_rows
         WHERE db_id = $1 AND member = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        [this.db.dbId, user, after, PAGE_ROWS],
      );
      if (rows.length > 0) yield rows.map((row) => ({ id: row.doc, seq: Number(row.seq), removed: row.removed }));
      if (rows.length < PAGE_ROWS) return;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }

  async countChanges(principals: readonly string[], since: number, withRemoved: boolean): Promise<number> {
    const [row] = await this.query<{ n: string }>(
      `SELECT count(DISTINCT doc) AS n FROM ${this.db.sql.schema}.access_feed
       WHERE db_id = $1 AND principal = ANY($2::text[]) AND seq > $3 ${withRemoved ? '' : 'AND NOT removed'}`,
      [this.db.dbId, principals, since],
    );
    return Number(row?.n ?? 0);
  }
}

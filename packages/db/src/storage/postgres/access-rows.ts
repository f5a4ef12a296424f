/**
 * The PostgreSQL engine's access rows (per-document `_access`, ../records.ts `AccessWrite`), the
 * same layout as the SQLite engine's (../sqlite/access-rows.ts) under each database's `db_id`:
 * `access_log` (one row per principal and document, written in the document write's
 * transaction, keyed by principal then id, indexed by principal then sequence) and `access_docs`
 * (each document's own access: readers, who lost it, its leaves' text, ../doc-access.ts). A
 * principal's readable documents are its rows with `removed = false`, its changes its rows by
 * sequence.
 */
import type { PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { decodeDocAccess, type DocAccess, encodeDocAccess, leavesOfDocAccess, nextDocAccess } from '../doc-access.js';
import type { AccessChange, DocRecord, DocWrite, IdRange, RoleChange, RoleRow } from '../records.js';
import { type CounterRow, countersOf, type DbTarget, type DocRow, gone, toRecord } from './statements.js';

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

/** The tables a database's deletion empties of its rows. */
export const ACCESS_TABLES = ['access_log', 'access_docs', 'access_roles', 'access_role_rows'] as const;

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
  // What a gained role reads that none of the user's principals before the change read.
  const before = [...principals.filter((p) => !gained.includes(p)), ...lost.map((entry) => entry.role)];
  for (const role of gained) {
    const found = await client.query<{ doc: string }>(
      `SELECT a.doc FROM ${s}.access_log a WHERE a.db_id = $1 AND a.principal = $2 AND NOT a.removed
       AND NOT EXISTS (SELECT 1 FROM ${s}.access_log m WHERE m.db_id = a.db_id AND m.doc = a.doc AND NOT m.removed
         AND m.principal = ANY($3::text[]))
       ORDER BY a.doc`,
      [db.dbId, role, before],
    );
    for (const { doc } of found.rows) add(doc, false);
  }
  // What the role read while the user held it (now, or lost by the role since), and nobody of theirs reads now.
  for (const { role, seq } of lost) {
    const found = await client.query<{ doc: string }>(
      `SELECT a.doc FROM ${s}.access_log a WHERE a.db_id = $1 AND a.principal = $2 AND (NOT a.removed OR a.seq > $3)
       AND NOT EXISTS (SELECT 1 FROM ${s}.access_log m WHERE m.db_id = a.db_id AND m.doc = a.doc AND NOT m.removed
         AND m.principal = ANY($4::text[]))
       ORDER BY a.doc`,
      [db.dbId, role, seq, principals],
    );
    for (const { doc } of found.rows) add(doc, true);
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

/** The records with their `access` text, read under the writers' lock. */
export async function withLeaves(
  client: PoolClient,
  db: DbTarget,
  records: Map<string, DocRecord>,
): Promise<Map<string, DocRecord>> {
  const stored = await storedAccess(
    client,
    db,
    [...records.values()].map((r) => r.id),
  );
  for (const [id, record] of records) {
    const access = stored.get(record.id);
    const leaves = access === undefined ? undefined : leavesOfDocAccess(access);
    if (leaves !== undefined) records.set(id, { ...record, access: leaves });
  }
  return records;
}

/** The access rows of a batch, in its transaction: `seqs[i]` is `writes[i]`'s sequence. */
export async function applyAccess(
  client: PoolClient,
  db: DbTarget,
  writes: readonly DocWrite[],
  seqs: readonly number[],
): Promise<void> {
  // A new document has nothing stored (a purge takes a document's access with it).
  const known = writes.filter((w) => w.access !== undefined && w.isNew !== true).map((w) => w.record.id);
  const before = await storedAccess(client, db, known);
  const principals: string[] = [];
  const docs: string[] = [];
  const rowSeqs: number[] = [];
  const removed: boolean[] = [];
  const kept: string[] = [];
  const texts: string[] = [];
  const dropped: string[] = [];
  writes.forEach(({ record, access }, i) => {
    if (access === undefined) return;
    const previous = before.get(record.id);
    const { next, removed: lost } = nextDocAccess(previous ?? decodeDocAccess(null), access);
    const add = (principal: string, gone: boolean) => {
      principals.push(principal);
      docs.push(record.id);
      rowSeqs.push(seqs[i]!);
      removed.push(gone);
    };
    for (const principal of next.readers) add(principal, false);
    for (const principal of lost) add(principal, true);
    const text = encodeDocAccess(next);
    if (text !== null) {
      kept.push(record.id);
      texts.push(text);
    } else if (previous !== undefined) dropped.push(record.id);
  });
  const s = db.sql.schema;
  if (principals.length > 0) {
    await client.query(
      `INSERT INTO ${s}.access_log (db_id, principal, doc, seq, removed)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[])
       ON CONFLICT (db_id, principal, doc) DO UPDATE SET seq = excluded.seq, removed = excluded.removed`,
      [db.dbId, principals, docs, rowSeqs, removed],
    );
  }
  if (kept.length > 0) {
    await client.query(
      `INSERT INTO ${s}.access_docs (db_id, doc, access) SELECT $1, * FROM unnest($2::text[], $3::text[])
       ON CONFLICT (db_id, doc) DO UPDATE SET access = excluded.access`,
      [db.dbId, kept, texts],
    );
  }
  if (dropped.length > 0) {
    await client.query(`DELETE FROM ${s}.access_docs WHERE db_id = $1 AND doc = ANY($2::text[])`, [db.dbId, dropped]);
  }
}

/** Documents purged away: their rows go with them (found through each one's stored access). */
export async function forgetAccess(client: PoolClient, db: DbTarget, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const s = db.sql.schema;
  const principals: string[] = [];
  const docs: string[] = [];
  for (const [doc, { readers, gone }] of await storedAccess(client, db, ids)) {
    for (const principal of [...readers, ...gone]) {
      principals.push(principal);
      docs.push(doc);
    }
  }
  if (principals.length > 0) {
    await client.query(
      `DELETE FROM ${s}.access_log a USING unnest($2::text[], $3::text[]) AS gone(principal, doc)
       WHERE a.db_id = $1 AND a.principal = gone.principal AND a.doc = gone.doc`,
      [db.dbId, principals, docs],
    );
  }
  for (const table of ['access_docs', 'access_role_rows']) {
    await client.query(`DELETE FROM ${s}.${table} WHERE db_id = $1 AND doc = ANY($2::text[])`, [db.dbId, ids]);
  }
}

type Query = <T extends QueryResultRow>(config: QueryConfig | string, values?: unknown[]) => Promise<T[]>;

const DOC_COLUMNS = 'd.id, d.seq, d.rev, d.deleted, d.tree';

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

  async *foldReadable(principals: readonly string[], range: IdRange): AsyncGenerator<DocRecord[]> {
    const desc = range.descending === true;
    const order = desc ? 'DESC' : '';
    const inclusiveEnd = range.inclusiveEnd !== false;
    let from: string | undefined;
    for (;;) {
      const where = ['db_id = $1', 'principal = ANY($2::text[])', 'NOT removed'];
      const params: unknown[] = [this.db.dbId, principals];
      if (from !== undefined) {
        params.push(from);
        where.push(`doc ${desc ? '<' : '>'} $${params.length}`);
      } else if (range.start !== undefined) {
        params.push(range.start);
        where.push(`doc ${desc ? '<=' : '>='} $${params.length}`);
      }
      if (range.end !== undefined) {
        params.push(range.end);
        where.push(`doc ${desc ? '>' : '<'}${inclusiveEnd ? '=' : ''} $${params.length}`);
      }
      params.push(PAGE_ROWS);
      const rows = await this.query<DocRow & { doc: string }>(
        `SELECT a.doc, ${DOC_COLUMNS} FROM (SELECT DISTINCT doc FROM ${this.db.sql.schema}.access_log
         WHERE ${where.join(' AND ')} ORDER BY doc ${order} LIMIT $${params.length}) a
         LEFT JOIN ${this.db.sql.schema}.docs d ON d.db_id = $1 AND d.id = a.doc ORDER BY a.doc ${order}`,
        params,
      );
      const page = rows
        .filter((row) => row.id !== null && (range.includeDeleted === true || !row.deleted))
        .map(toRecord);
      if (page.length > 0) yield page;
      if (rows.length < PAGE_ROWS) return;
      from = rows[rows.length - 1]!.doc;
    }
  }

  async countReadable(principals: readonly string[], range: IdRange): Promise<number> {
    const s = this.db.sql.schema;
    const desc = range.descending === true;
    const where = ['a.db_id = $1', 'a.principal = ANY($2::text[])', 'NOT a.removed'];
    const params: unknown[] = [this.db.dbId, principals];
    if (range.start !== undefined) {
      params.push(range.start);
      where.push(`a.doc ${desc ? '<=' : '>='} $${params.length}`);
    }
    if (range.end !== undefined) {
      params.push(range.end);
      where.push(`a.doc ${desc ? '>' : '<'}${range.inclusiveEnd !== false ? '=' : ''} $${params.length}`);
    }
    if (range.includeDeleted !== true) {
      where.push(`NOT EXISTS (SELECT 1 FROM ${s}.docs d WHERE d.db_id = a.db_id AND d.id = a.doc AND d.deleted)`);
    }
    const [row] = await this.query<{ n: string }>(
      `SELECT count(DISTINCT a.doc) AS n FROM ${s}.access_log a WHERE ${where.join(' AND ')}`,
      params,
    );
    return Number(row?.n ?? 0);
  }

  async *foldChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): AsyncGenerator<AccessChange[]> {
    const s = this.db.sql.schema;
    const desc = options.descending === true;
    const removed = options.withRemoved === true ? '' : 'AND NOT l.removed';
    // The newest row of each document among the principals' rows (as the SQLite engine's).
    const sql = `SELECT l.seq AS row_seq, l.removed, ${DOC_COLUMNS} FROM ${s}.access_log l
      JOIN ${s}.docs d ON d.db_id = l.db_id AND d.id = l.doc
      WHERE l.db_id = $1 AND l.principal = ANY($2::text[]) AND l.seq > $3 AND l.seq < $4 ${removed}
      AND NOT EXISTS (SELECT 1 FROM ${s}.access_log m WHERE m.db_id = l.db_id AND m.doc = l.doc
        AND m.principal = ANY($2::text[]) AND (m.seq > l.seq OR (m.seq = l.seq AND
        ((NOT m.removed AND l.removed) OR (m.removed = l.removed AND m.principal < l.principal)))))
      ORDER BY l.seq ${desc ? 'DESC' : ''} LIMIT $5`;
    let low = since;
    let high = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = await this.query<DocRow & { row_seq: string; removed: boolean }>(sql, [
        this.db.dbId,
        principals,
        low,
        high,
        PAGE_ROWS,
      ]);
      if (rows.length > 0) {
        yield rows.map((row) => ({ seq: Number(row.row_seq), removed: row.removed, record: toRecord(row) }));
      }
      if (rows.length < PAGE_ROWS) return;
      const last = Number(rows[rows.length - 1]!.row_seq);
      if (desc) high = last;
      else low = last;
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
      `SELECT count(DISTINCT doc) AS n FROM ${this.db.sql.schema}.access_log
       WHERE db_id = $1 AND principal = ANY($2::text[]) AND seq > $3 ${withRemoved ? '' : 'AND NOT removed'}`,
      [this.db.dbId, principals, since],
    );
    return Number(row?.n ?? 0);
  }
}

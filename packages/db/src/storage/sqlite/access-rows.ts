/**
 * The SQLite engine's access rows (per-document `_access`, ../records.ts `AccessWrite`): one row
 * per principal and document in `access_log`, written in the transaction of the document's write,
 * and each document's own access (its readers, who lost it, its leaves' text: ../doc-access.ts)
 * in its `docs` row's `access` column, which the write rewrites anyway. A principal's readable
 * documents are its rows with `removed = 0` (by id: the primary key), its changes its rows by
 * sequence; a user's few principals are bound as one JSON array.
 */
import type Database from 'better-sqlite3';
import { decodeDocAccess, type DocAccess, encodeDocAccess, leavesOfDocAccess, nextDocAccess } from '../doc-access.js';
import type { AccessChange, DocRecord, DocWrite, IdRange, RoleChange, RoleRow } from '../records.js';
import { DOC_COLUMNS, type DocRow, toRecord } from './doc-rows.js';
import type { TreeChunks } from './tree-chunks.js';

type Statement = Database.Statement;

/**
 * Made on open (in files made before them too): a file without access rows simply has none.
 * A principal's rows by id (the key) and by sequence: the only two trees a write adds to.
 */
export const ACCESS_SCHEMA = `
CREATE TABLE IF NOT EXISTS access_log (
  principal TEXT NOT NULL,
  doc TEXT NOT NULL,
  seq INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  PRIMARY KEY (principal, doc)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS access_log_by_seq ON access_log (principal, seq);
CREATE TABLE IF NOT EXISTS access_roles (
  member TEXT NOT NULL,
  role TEXT NOT NULL,
  seq INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  PRIMARY KEY (member, role)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS access_role_rows (
  member TEXT NOT NULL,
  doc TEXT NOT NULL,
  seq INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  PRIMARY KEY (member, doc)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS access_role_rows_by_seq ON access_role_rows (member, seq);
CREATE INDEX IF NOT EXISTS access_role_rows_by_doc ON access_role_rows (doc);
`;

/**
 * Brings a file of the layout before `docs.access` up to it: each document's readers and lost
 * principals come from its rows (through the old by-document index), its leaves' text from
 * `access_leaves`; then the index and the table go. A file that never had access rows only
 * gains the column.
 */
function migrateAccessLayout(db: Database.Database): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('docs') as string[];
  if (columns.includes('access')) return;
  db.transaction(() => {
    db.exec('ALTER TABLE docs ADD COLUMN access TEXT');
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
    if (!tables.includes('access_log')) return;
    const byDoc = new Map<string, DocAccess>();
    const entry = (doc: string) => {
      let found = byDoc.get(doc);
      if (found === undefined) {
        found = { readers: [], gone: [] };
        byDoc.set(doc, found);
      }
      return found;
    };
    // BINARY order of principals within a document, as the readers are kept.
    const rows = db.prepare('SELECT doc, principal, removed FROM access_log ORDER BY doc, principal').raw().all();
    for (const [doc, principal, removed] of rows as [string, string, number][]) {
      const found = entry(doc);
      (removed === 0 ? found.readers : found.gone).push(principal);
    }
    if (tables.includes('access_leaves')) {
      const leaves = db.prepare('SELECT doc, leaves FROM access_leaves').raw().all() as [string, string][];
      for (const [doc, text] of leaves) entry(doc).leaves = text;
    }
    const put = db.prepare('UPDATE docs SET access = ? WHERE id = ?');
    for (const [doc, access] of byDoc) put.run(encodeDocAccess(access), doc);
    db.exec('DROP INDEX IF EXISTS access_log_by_doc; DROP TABLE IF EXISTS access_leaves;');
  }).immediate();
}

/** The role log's row that says a user is known (the roles recorded at first sight are theirs). */
const KNOWN = '';

/** Rows per page of the folds. */
const PAGE_ROWS = 256;

const PRINCIPALS = 'principal IN (SELECT value FROM json_each(?))';

/**
 * The newest row of each document among the principals' rows: no row of theirs is later, or as
 * late and better (readable before removed, then the lowest principal), so each document once.
 */
const NEWEST = `NOT EXISTS (SELECT 1 FROM access_log m WHERE m.doc = l.doc AND m.${PRINCIPALS}
  AND (m.seq > l.seq OR (m.seq = l.seq AND (m.removed < l.removed OR (m.removed = l.removed AND m.principal < l.principal)))))`;

/** A write's access as `SqliteAccessRows.plan` computes it. */
export interface AccessPlan {
  readers: readonly string[];
  /** Principals who read the document before the write and do not after it. */
  removed: readonly string[];
  /** The `docs.access` text after the write. */
  text: string | null;
}

export class SqliteAccessRows {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly trees: TreeChunks,
  ) {
    migrateAccessLayout(db);
    db.exec(ACCESS_SCHEMA);
  }

  private stmt(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** A document's stored access (none for a document without a row). */
  private stored(id: string): DocAccess {
    return decodeDocAccess(this.stmt('SELECT access FROM docs WHERE id = ?').pluck().get(id) as string | null);
  }

  /**
   * The stored access `withLeaves` read in the write transaction under way, which `plan` then
   * reads again: one read per updated document, not two. Emptied by each transaction's `withLeaves`.
   */
  private readonly readForWrite = new Map<string, DocAccess>();

  /** Each record with its `access` text (the planner of an access-enabled database reads it). */
  withLeaves(records: Map<string, DocRecord>): Map<string, DocRecord> {
    this.readForWrite.clear();
    for (const [id, record] of records) {
      const stored = this.stored(record.id);
      this.readForWrite.set(record.id, stored);
      const leaves = leavesOfDocAccess(stored);
      if (leaves !== undefined) records.set(id, { ...record, access: leaves });
    }
    return records;
  }

  /**
   * Each write's access after it (undefined: the write carries none), computed before the batch is
   * written: a new document's text (`text`) then goes in with its `docs` row instead of an UPDATE
   * of the row just inserted.
   */
  plan(writes: readonly DocWrite[]): (AccessPlan | undefined)[] {
    const plans = writes.map(({ record, access, isNew }) => {
      if (access === undefined) return undefined;
      // A new document has no rows yet (a purge takes a document's rows with it).
      const before = isNew ? decodeDocAccess(null) : (this.readForWrite.get(record.id) ?? this.stored(record.id));
      const { next, removed } = nextDocAccess(before, access);
      return { readers: next.readers, removed, text: encodeDocAccess(next) };
    });
    this.readForWrite.clear();
    return plans;
  }

  /**
   * The access rows of a committed batch (inside its transaction): `seqs[i]` is `writes[i]`'s.
   * With `plans` (of `plan`, before the batch was written) the new documents' texts went in
   * with their rows; without, they are computed here and every text is written by an UPDATE.
   */
  apply(writes: readonly DocWrite[], seqs: readonly number[], plans?: readonly (AccessPlan | undefined)[]): void {
    let planned = plans;
    if (planned === undefined) {
      // Not after `withLeaves` (a purge): what a failed transaction read may not be kept.
      this.readForWrite.clear();
      planned = this.plan(writes);
    }
    writes.forEach(({ record, isNew }, i) => {
      const access = planned[i];
      if (access === undefined) return;
      const seq = seqs[i]!;
      const put = this.stmt('INSERT OR REPLACE INTO access_log (principal, doc, seq, removed) VALUES (?, ?, ?, ?)');
      for (const principal of access.readers) put.run(principal, record.id, seq, 0);
      for (const principal of access.removed) put.run(principal, record.id, seq, 1);
      if (isNew === true && (plans !== undefined || access.text === null)) return;
      this.stmt('UPDATE docs SET access = ? WHERE id = ?').run(access.text, record.id);
    });
  }

  /** A document purged away (before its row goes): its rows go with it. */
  forget(id: string): void {
    const { readers, gone } = this.stored(id);
    const drop = this.stmt('DELETE FROM access_log WHERE principal = ? AND doc = ?');
    for (const principal of [...readers, ...gone]) drop.run(principal, id);
    this.stmt('DELETE FROM access_role_rows WHERE doc = ?').run(id);
  }

  /**
   * `DocumentStore.recordRoles` inside the caller's transaction; `allocate` gives the next update
   * sequence (the caller saves the counters when `seq` is set).
   */
  recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
    allocate: () => number,
  ): { log: RoleChange[]; seq?: number } {
    const rows = this.stmt('SELECT role, seq, removed FROM access_roles WHERE member = ?').raw().all(user) as [
      string,
      number,
      number,
    ][];
    const put = this.stmt('INSERT OR REPLACE INTO access_roles (member, role, seq, removed) VALUES (?, ?, ?, ?)');
    const wanted = new Set(roles);
    if (rows.length === 0) {
      // The known row's sequence holds the version of the account last recorded.
      put.run(user, KNOWN, version, 0);
      for (const role of wanted) put.run(user, role, 0, 0);
      return { log: [...wanted].map((role) => ({ role, seq: 0, removed: false })) };
    }
    const log = new Map<string, RoleChange>();
    for (const [role, seq, removed] of rows) if (role !== KNOWN) log.set(role, { role, seq, removed: removed !== 0 });
    const known = rows.find(([role]) => role === KNOWN)?.[1] ?? 0;
    const held = [...log.values()].filter((entry) => !entry.removed);
    const gained = [...wanted].filter((role) => !held.some((entry) => entry.role === role));
    const lost = held.filter((entry) => !wanted.has(entry.role));
    if ((gained.length === 0 && lost.length === 0) || version < known) return { log: [...log.values()] };
    put.run(user, KNOWN, version, 0);
    let first: number | undefined;
    let last = 0;
    const next = () => {
      last = allocate();
      first ??= last;
      return last;
    };
    const putRow = this.stmt('INSERT OR REPLACE INTO access_role_rows (member, doc, seq, removed) VALUES (?, ?, ?, ?)');
    const seen = new Set<string>();
    // What a gained role reads that none of the user's principals before the change read.
    const before = JSON.stringify([
      ...principals.filter((p) => !gained.includes(p)),
      ...lost.map((entry) => entry.role),
    ]);
    const readable = this.stmt(
      `SELECT doc FROM access_log a WHERE a.principal = ? AND a.removed = 0
       AND NOT EXISTS (SELECT 1 FROM access_log m WHERE m.doc = a.doc AND m.removed = 0 AND m.${PRINCIPALS})
       ORDER BY a.doc`,
    ).pluck();
    for (const role of gained) {
      for (const doc of readable.all(role, before) as string[]) {
        if (seen.has(doc)) continue;
        seen.add(doc);
        putRow.run(user, doc, next(), 0);
      }
    }
    // What the role read while the user held it (now, or lost by the role since), and nobody of theirs reads now.
    const heldRows = this.stmt(
      `SELECT doc FROM access_log a WHERE a.principal = ? AND (a.removed = 0 OR a.seq > ?)
       AND NOT EXISTS (SELECT 1 FROM access_log m WHERE m.doc = a.doc AND m.removed = 0 AND m.${PRINCIPALS})
       ORDER BY a.doc`,
    ).pluck();
    const list = JSON.stringify(principals);
    for (const { role, seq } of lost) {
      for (const doc of heldRows.all(role, seq, list) as string[]) {
        if (seen.has(doc)) continue;
        seen.add(doc);
        putRow.run(user, doc, next(), 1);
      }
    }
    const at = first ?? next();
    for (const role of gained) {
      put.run(user, role, at, 0);
      log.set(role, { role, seq: at, removed: false });
    }
    for (const { role } of lost) {
      put.run(user, role, at, 1);
      log.set(role, { role, seq: at, removed: true });
    }
    return { log: [...log.values()], seq: last };
  }

  *foldRoleRows(user: string, since: number): Generator<RoleRow> {
    const page = this.stmt(
      'SELECT doc, seq, removed FROM access_role_rows WHERE member = ? AND seq > ? ORDER BY seq LIMIT ?',
    ).raw();
    let after = since;
    for (;;) {
      const rows = page.all(user, after, PAGE_ROWS) as [string, number, number][];
      for (const [id, seq, removed] of rows) yield { id, seq, removed: removed !== 0 };
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1]![1];
    }
  }

  readersOf(ids: readonly string[]): string[][] {
    return ids.map((id) => this.stored(id).readers);
  }

  *foldReadable(principals: readonly string[], range: IdRange): Generator<DocRecord> {
    const desc = range.descending === true;
    const bound = boundsOf(range);
    const list = JSON.stringify(principals);
    let from: string | undefined;
    for (;;) {
      const where = [`${PRINCIPALS}`, 'removed = 0'];
      const params: unknown[] = [list];
      if (from !== undefined) {
        where.push(desc ? 'doc < ?' : 'doc > ?');
        params.push(from);
      } else if (bound.start !== undefined) {
        where.push(desc ? 'doc <= ?' : 'doc >= ?');
        params.push(bound.start);
      }
      if (bound.end !== undefined) {
        where.push(`doc ${desc ? '>' : '<'}${bound.inclusiveEnd ? '=' : ''} ?`);
        params.push(bound.end);
      }
      const order = desc ? 'DESC' : '';
      const sql = `SELECT a.doc, ${DOC_COLUMNS.split(', ')
        .map((c) => `d.${c}`)
        .join(
          ', ',
        )} FROM (SELECT DISTINCT doc FROM access_log WHERE ${where.join(' AND ')} ORDER BY doc ${order} LIMIT ?) a
        LEFT JOIN docs d ON d.id = a.doc ORDER BY a.doc ${order}`;
      const rows = this.stmt(sql)
        .raw()
        .all(...params, PAGE_ROWS) as [string, ...DocRow][];
      for (const [, ...row] of rows) {
        if (row[0] === null) continue;
        const record = toRecord(row as DocRow, this.trees);
        if (record.deleted && range.includeDeleted !== true) continue;
        yield record;
      }
      if (rows.length < PAGE_ROWS) return;
      from = rows[rows.length - 1]![0];
    }
  }

  countReadable(principals: readonly string[], range: IdRange): number {
    const desc = range.descending === true;
    const bound = boundsOf(range);
    const where = [`a.${PRINCIPALS}`, 'a.removed = 0'];
    const params: unknown[] = [JSON.stringify(principals)];
    if (bound.start !== undefined) {
      where.push(desc ? 'a.doc <= ?' : 'a.doc >= ?');
      params.push(bound.start);
    }
    if (bound.end !== undefined) {
      where.push(`a.doc ${desc ? '>' : '<'}${bound.inclusiveEnd ? '=' : ''} ?`);
      params.push(bound.end);
    }
    if (range.includeDeleted !== true)
      where.push('NOT EXISTS (SELECT 1 FROM docs d WHERE d.id = a.doc AND d.deleted = 1)');
    const sql = `SELECT count(DISTINCT a.doc) FROM access_log a WHERE ${where.join(' AND ')}`;
    return this.stmt(sql)
      .pluck()
      .get(...params) as number;
  }

  *foldChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): Generator<AccessChange> {
    const desc = options.descending === true;
    const list = JSON.stringify(principals);
    const removed = options.withRemoved === true ? '' : 'AND l.removed = 0';
    const sql = `SELECT l.seq, l.removed, ${DOC_COLUMNS.split(', ')
      .map((c) => `d.${c}`)
      .join(', ')} FROM access_log l JOIN docs d ON d.id = l.doc
      WHERE l.${PRINCIPALS} AND l.seq > ? AND l.seq < ? ${removed} AND ${NEWEST}
      ORDER BY l.seq ${desc ? 'DESC' : ''} LIMIT ?`;
    let low = since;
    let high = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = this.stmt(sql).raw().all(list, low, high, list, PAGE_ROWS) as [number, number, ...DocRow][];
      for (const [seq, gone, ...row] of rows)
        yield { seq, removed: gone !== 0, record: toRecord(row as DocRow, this.trees) };
      if (rows.length < PAGE_ROWS) return;
      const last = rows[rows.length - 1]![0];
      if (desc) high = last;
      else low = last;
    }
  }

  countChanges(principals: readonly string[], since: number, withRemoved: boolean): number {
    const sql = `SELECT count(DISTINCT doc) FROM access_log WHERE ${PRINCIPALS} AND seq > ? ${withRemoved ? '' : 'AND removed = 0'}`;
    return this.stmt(sql).pluck().get(JSON.stringify(principals), since) as number;
  }
}

/** A range's bounds with CouchDB's defaults (`inclusiveEnd` true). */
function boundsOf(range: IdRange): { start?: string; end?: string; inclusiveEnd: boolean } {
  return {
    ...(range.start === undefined ? {} : { start: range.start }),
    ...(range.end === undefined ? {} : { end: range.end }),
    inclusiveEnd: range.inclusiveEnd !== false,
  };
}

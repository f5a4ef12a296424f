/**
 * The SQLite engine's access rows (per-document `_access`, ../records.ts `AccessWrite`): one row
 * per principal and document in `access_feed`, keyed by principal and sequence, written in the
 * transaction of the document's write; and each document's own access (its readers and their
 * rows' sequence, who lost it and when, its leaves' text: ../doc-access.ts) in its `docs` row's
 * `access` column, which the write rewrites anyway. A write adds to one access tree, at the end
 * of each reader's range. A principal's changes are its rows in order; its readable documents
 * its rows with `removed = 0`, sorted by id when read (a user's few principals are bound as one
 * JSON array).
 *
 * A row holds integers only: the principal's id (`access_principals`, given at its first row)
 * and the document's key (`docs.k`). Small rows put more of a principal's range in a page, so
 * an update's move of its row (from its old sequence to the range's end) stays in one page more
 * often, and a read joins the documents by key.
 */
import type Database from 'better-sqlite3';
import {
  type DocAccess,
  decodeDocAccess,
  encodeDocAccess,
  isNewestRemoval,
  leavesOfStoredText,
  type NextDocAccessText,
  nextDocAccessText,
  readByAny,
  rowsOfDocAccess,
} from '../doc-access.js';
import type { AccessChange, DocRecord, DocWrite, IdRange, RoleChange, RoleRow } from '../records.js';
import { DOC_COLUMNS, type DocRow, toRecord } from './doc-rows.js';
import type { TreeChunks } from './tree-chunks.js';

type Statement = Database.Statement;

/**
 * Made on open (in files made before them too): a file without access rows simply has none.
 * A principal's rows by sequence: the only tree a write adds to.
 */
export const ACCESS_SCHEMA = `
CREATE TABLE IF NOT EXISTS access_principals (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS access_feed (
  principal INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  doc INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  PRIMARY KEY (principal, seq)
) WITHOUT ROWID;
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
 * Brings a file of an older layout up to this one. Before schema version 5 the rows were
 * `access_log`, keyed by principal and document with an index by principal and sequence (and
 * before version 3 each document's access was in those rows and `access_leaves`, not in
 * `docs.access`): each document's access text gains its rows' sequences (a reader's rows all
 * have the document's last one), the rows move to `access_feed`, and the old tables go.
 */
function migrateAccessLayout(db: Database.Database): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('docs') as string[];
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  const hasColumn = columns.includes('access');
  if (hasColumn && !tables.includes('access_log')) return;
  db.transaction(() => {
    if (!hasColumn) db.exec('ALTER TABLE docs ADD COLUMN access TEXT');
    if (!tables.includes('access_log')) return;
    db.exec(TEXT_FEED_SCHEMA);
    const byDoc = new Map<string, DocAccess>();
    const entry = (doc: string) => {
      let found = byDoc.get(doc);
      if (found === undefined) {
        found = { readers: [], at: 0, gone: [], goneAt: [] };
        byDoc.set(doc, found);
      }
      return found;
    };
    if (hasColumn) {
      const texts = db.prepare('SELECT id, access FROM docs WHERE access IS NOT NULL').raw().all();
      for (const [doc, text] of texts as [string, string][]) {
        const leaves = decodeDocAccess(text).leaves;
        if (leaves !== undefined) entry(doc).leaves = leaves;
      }
    } else if (tables.includes('access_leaves')) {
      const leaves = db.prepare('SELECT doc, leaves FROM access_leaves').raw().all() as [string, string][];
      for (const [doc, text] of leaves) entry(doc).leaves = text;
    }
    // BINARY order of principals within a document, as the readers are kept.
    const rows = db.prepare('SELECT doc, principal, seq, removed FROM access_log ORDER BY doc, principal').raw().all();
    for (const [doc, principal, seq, removed] of rows as [string, string, number, number][]) {
      const found = entry(doc);
      if (removed === 0) {
        found.readers.push(principal);
        found.at = Math.max(found.at, seq);
      } else {
        found.gone.push(principal);
        found.goneAt.push(seq);
      }
    }
    const put = db.prepare('UPDATE docs SET access = ? WHERE id = ?');
    const putRow = db.prepare('INSERT INTO access_feed (principal, seq, doc, removed) VALUES (?, ?, ?, ?)');
    for (const [doc, access] of byDoc) {
      put.run(encodeDocAccess(access), doc);
      for (const principal of access.readers) putRow.run(principal, access.at, doc, 0);
      access.gone.forEach((principal, i) => {
        putRow.run(principal, access.goneAt[i], doc, 1);
      });
    }
    db.exec('DROP TABLE access_log; DROP TABLE IF EXISTS access_leaves;');
  }).immediate();
}

/** Schema version 5's rows: the principal's name and the document's id. */
const TEXT_FEED_SCHEMA = `
CREATE TABLE access_feed (
  principal TEXT NOT NULL,
  seq INTEGER NOT NULL,
  doc TEXT NOT NULL,
  removed INTEGER NOT NULL,
  PRIMARY KEY (principal, seq)
) WITHOUT ROWID;
`;

/**
 * Brings rows of schema version 5 (principal names and document ids, TEXT) to integers: each
 * principal gets an id, each row its document's key. Runs after `migrateAccessLayout`, which
 * leaves an older file's rows in version 5's form.
 */
function migrateToIntegerRows(db: Database.Database): void {
  const type = db.prepare("SELECT type FROM pragma_table_info('access_feed') WHERE name = 'principal'").pluck().get();
  if (type !== 'TEXT') return;
  db.transaction(() => {
    db.exec(`
      ALTER TABLE access_feed RENAME TO access_feed_text;
      ${ACCESS_SCHEMA}
      INSERT INTO access_principals (name) SELECT DISTINCT principal FROM access_feed_text ORDER BY principal;
      INSERT INTO access_feed (principal, seq, doc, removed)
        SELECT p.id, f.seq, d.k, f.removed FROM access_feed_text f
        JOIN access_principals p ON p.name = f.principal JOIN docs d ON d.id = f.doc;
      DROP TABLE access_feed_text;
    `);
  }).immediate();
}

/** The role log's row that says a user is known (the roles recorded at first sight are theirs). */
const KNOWN = '';

/**
 * Rows per multi-row insert of a batch's new access rows (a group commit of several clients'
 * documents): one statement call for many rows; smaller sizes mop up the remainder.
 */
const ADD_ROWS = [16, 4, 1] as const;

/** Rows per page of the folds. */
const PAGE_ROWS = 256;

const PRINCIPALS = 'principal IN (SELECT value FROM json_each(?))';

/** A write's access as `SqliteAccessRows.plan` computes it. */
export interface AccessPlan extends NextDocAccessText {
  /** The write's sequence (its rows'). */
  seq: number;
}

export class SqliteAccessRows {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly trees: TreeChunks,
  ) {
    migrateAccessLayout(db);
    migrateToIntegerRows(db);
    db.exec(ACCESS_SCHEMA);
  }

  /** Principals' ids as committed (an id never changes once its transaction committed). */
  private readonly known = new Map<string, number>();
  /** Ids the write transaction under way gave: known once it commits, forgotten if it rolls back. */
  private readonly given = new Map<string, number>();

  /** A principal's id, if it has one. */
  private idOf(name: string): number | undefined {
    const id = this.known.get(name) ?? this.given.get(name);
    if (id !== undefined) return id;
    const found = this.stmt('SELECT id FROM access_principals WHERE name = ?').pluck().get(name) as number | undefined;
    // Not one the transaction under way gave (that one is in `given`): committed.
    if (found !== undefined) this.known.set(name, found);
    return found;
  }

  /** A principal's id, given one if it has none yet (inside a write transaction: see `guard`). */
  private idFor(name: string): number {
    const id = this.idOf(name);
    if (id !== undefined) return id;
    const given = Number(this.stmt('INSERT INTO access_principals (name) VALUES (?)').run(name).lastInsertRowid);
    this.given.set(name, given);
    return given;
  }

  /** The ids of those of `names` that have rows, as the JSON array a query binds. */
  private idList(names: readonly string[]): string {
    const ids: number[] = [];
    for (const name of names) {
      const id = this.idOf(name);
      if (id !== undefined) ids.push(id);
    }
    return JSON.stringify(ids);
  }

  /**
   * `transaction` (a write transaction that may give principals ids: a document write, a purge)
   * followed by the fate of the ids it gave: kept when it committed, forgotten when it threw (its
   * rollback took them, and a later transaction may give the same id to someone else).
   */
  guard<A extends unknown[], R>(transaction: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      let committed = false;
      try {
        const result = transaction(...args);
        committed = true;
        return result;
      } finally {
        if (committed) for (const [name, id] of this.given) this.known.set(name, id);
        this.given.clear();
      }
    };
  }

  private stmt(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** A document's stored access text (null for a document without a row or access). */
  private storedText(id: string): string | null {
    return (this.stmt('SELECT access FROM docs WHERE id = ?').pluck().get(id) as string | null | undefined) ?? null;
  }

  /** A document's stored access (none for a document without a row). */
  private stored(id: string): DocAccess {
    return decodeDocAccess(this.storedText(id));
  }

  /**
   * The stored access texts `withLeaves` was given in the write transaction under way (read with
   * the documents' rows), which `plan` then uses: no read of its own per updated document.
   * Emptied by each transaction's `withLeaves`.
   */
  private readonly readForWrite = new Map<string, string | null>();

  /**
   * Each record with its `access` text (the planner of an access-enabled database reads it);
   * `texts`: the documents' `docs.access` as the transaction read them with their records (else
   * each is read here). The records are the transaction's own (just read): each gets its text.
   */
  withLeaves(records: Map<string, DocRecord>, texts?: ReadonlyMap<string, string | null>): Map<string, DocRecord> {
    this.readForWrite.clear();
    for (const record of records.values()) {
      const text = texts?.get(record.id);
      const stored = text === undefined ? this.storedText(record.id) : text;
      this.readForWrite.set(record.id, stored);
      const leaves = leavesOfStoredText(stored);
      if (leaves !== undefined) record.access = leaves;
    }
    return records;
  }

  /**
   * Each write's access after it (undefined: the write carries none), computed before the batch is
   * written (`seqs[i]`: the sequence `writes[i]` will take): a document's text (`text`) then goes
   * in with its `docs` row instead of an UPDATE of the row just written.
   */
  plan(writes: readonly DocWrite[], seqs: readonly number[]): (AccessPlan | undefined)[] {
    const plans = writes.map(({ record, access, isNew }, i): AccessPlan | undefined => {
      if (access === undefined) return undefined;
      // A new document has no rows yet (a purge takes a document's rows with it).
      const before = isNew ? null : (this.readForWrite.get(record.id) ?? this.storedText(record.id));
      const seq = seqs[i]!;
      return { ...nextDocAccessText(before, access, seq), seq };
    });
    this.readForWrite.clear();
    return plans;
  }

  /**
   * The access rows of a committed batch (inside its transaction): `seqs[i]` is `writes[i]`'s,
   * `keys[i]` its `docs.k` (else read here). With `plans` (of `plan`, before the batch was
   * written) the documents' texts went in with their rows; without, they are computed here and
   * every text is written by an UPDATE.
   */
  apply(
    writes: readonly DocWrite[],
    seqs: readonly number[],
    plans?: readonly (AccessPlan | undefined)[],
    keys?: readonly number[],
  ): void {
    let planned = plans;
    if (planned === undefined) {
      // Not after `withLeaves` (a purge): what a failed transaction read may not be kept.
      this.readForWrite.clear();
      planned = this.plan(writes, seqs);
    }
    // New rows wait here (4 values each) and go in together: a batch's writes each have their
    // own sequence, so no row of the batch is another's replaced row.
    const added: number[] = [];
    writes.forEach(({ record }, i) => {
      const access = planned[i];
      if (access === undefined) return;
      const seq = seqs[i]!;
      // The plan placed the rows at the sequence it was told the write takes.
      if (access.seq !== seq)
        throw new Error(`access rows of ${record.id} planned at ${access.seq}, written at ${seq}`);
      this.writeRows(record.id, keys?.[i], access, added);
      if (plans === undefined) this.stmt('UPDATE docs SET access = ? WHERE id = ?').run(access.text, record.id);
    });
    this.insertRows(added);
  }

  private stmtMove: Statement | undefined;
  private stmtDrop: Statement | undefined;
  /** Multi-row inserts of new rows by row count (ADD_ROWS), prepared on first use. */
  private readonly stmtPuts = new Map<number, Statement>();

  /** Inserts `values` (4 per row) in as few statements as ADD_ROWS allow. */
  private insertRows(values: number[]): void {
    let at = 0;
    for (const rows of ADD_ROWS) {
      const n = rows * 4;
      if (values.length - at < n) continue;
      let stmt = this.stmtPuts.get(rows);
      if (stmt === undefined) {
        stmt = this.db.prepare(
          `INSERT INTO access_feed (principal, seq, doc, removed) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}`,
        );
        this.stmtPuts.set(rows, stmt);
      }
      // One row (a lone write's) bound as arguments: cheaper than an array to take apart.
      if (rows === 1)
        for (; at < values.length; at += 4) stmt.run(values[at], values[at + 1], values[at + 2], values[at + 3]);
      else
        for (; values.length - at >= n; at += n)
          stmt.run(at === 0 && values.length === n ? values : values.slice(at, at + n));
    }
  }

  /**
   * One write's rows (`doc`: its `docs.k`, else read here when a row is new); its new rows are
   * added to `added` (principal, seq, doc, removed), for the caller to insert.
   */
  private writeRows(
    id: string,
    doc: number | undefined,
    { readers, removed, stale, seq }: AccessPlan,
    added: number[],
  ): void {
    const put = (principal: number, gone: 0 | 1) => added.push(principal, seq, (doc ??= this.keyOf(id)), gone);
    // A principal's replaced row moves to its new key in one statement, not a delete and an insert.
    const move = (this.stmtMove ??= this.db.prepare(
      'UPDATE access_feed SET seq = ?, removed = ? WHERE principal = ? AND seq = ?',
    ));
    const usual =
      removed.length === 0 &&
      (stale.length === 0 || (stale.length === readers.length && stale.every(([p], j) => p === readers[j])));
    if (usual) {
      // The usual write: a new document's readers, or an update's readers as they were.
      for (let j = 0; j < readers.length; j++) {
        const principal = this.idFor(readers[j]!);
        if (stale.length === 0) put(principal, 0);
        else move.run(seq, 0, principal, stale[j]![1]);
      }
      return;
    }
    const moved = new Array<boolean>(stale.length).fill(false);
    const write = (principal: string, gone: 0 | 1) => {
      // A document's rows have one principal each: its replaced row, if any, is this one's.
      const at = stale.findIndex(([p], j) => p === principal && !moved[j]);
      if (at < 0) put(this.idFor(principal), gone);
      else {
        move.run(seq, gone, this.idFor(principal), stale[at]![1]);
        moved[at] = true;
      }
    };
    for (const principal of readers) write(principal, 0);
    for (const principal of removed) write(principal, 1);
    const drop = (this.stmtDrop ??= this.db.prepare('DELETE FROM access_feed WHERE principal = ? AND seq = ?'));
    stale.forEach(([principal, at], j) => {
      if (!moved[j]) drop.run(this.idFor(principal), at);
    });
  }

  /** A document's `docs.k`. */
  private keyOf(id: string): number {
    return this.stmt('SELECT k FROM docs WHERE id = ?').pluck().get(id) as number;
  }

  /** A document purged away (before its row goes): its rows go with it. */
  forget(id: string): void {
    const drop = this.stmt('DELETE FROM access_feed WHERE principal = ? AND seq = ?');
    for (const [principal, seq] of rowsOfDocAccess(this.stored(id))) {
      const principalId = this.idOf(principal);
      if (principalId !== undefined) drop.run(principalId, seq);
    }
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
    // The role's readable documents with each one's access (its readers tell who else reads it).
    const rowsOf = this.stmt(
      `SELECT d.id, a.seq, a.removed, d.access FROM access_feed a JOIN docs d ON d.k = a.doc
       WHERE a.principal = ? ORDER BY d.id`,
    ).raw();
    const roleRows = (role: string) => {
      const id = this.idOf(role);
      return id === undefined ? [] : (rowsOf.all(id) as [string, number, number, string | null][]);
    };
    const before = new Set([...principals.filter((p) => !gained.includes(p)), ...lost.map((entry) => entry.role)]);
    for (const role of gained) {
      for (const [doc, , removed, text] of roleRows(role)) {
        if (removed !== 0 || seen.has(doc) || readByAny(decodeDocAccess(text), before)) continue;
        seen.add(doc);
        putRow.run(user, doc, next(), 0);
      }
    }
    // What the role read while the user held it (now, or lost by the role since), and nobody of theirs reads now.
    const now = new Set(principals);
    for (const { role, seq } of lost) {
      for (const [doc, at, removed, text] of roleRows(role)) {
        if ((removed !== 0 && at <= seq) || seen.has(doc) || readByAny(decodeDocAccess(text), now)) continue;
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

  /**
   * The documents the principals read in `range`, by id: their readable rows in range, sorted
   * (a user has two principals at least, so the rows of several ranges are merged by id anyway),
   * then the documents by page.
   */
  *foldReadable(principals: readonly string[], range: IdRange): Generator<DocRecord> {
    const desc = range.descending === true;
    const { where, params } = idRangeOf(this.idList(principals), range);
    const ids = this.stmt(
      `SELECT DISTINCT d.id FROM access_feed a JOIN docs d ON d.k = a.doc WHERE ${where} ORDER BY d.id ${desc ? 'DESC' : ''}`,
    )
      .pluck()
      .all(...params) as string[];
    const page = this.stmt(
      `SELECT ${DOC_COLUMNS} FROM docs WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id ${desc ? 'DESC' : ''}`,
    ).raw();
    for (let i = 0; i < ids.length; i += PAGE_ROWS) {
      for (const row of page.all(JSON.stringify(ids.slice(i, i + PAGE_ROWS))) as DocRow[]) {
        const record = toRecord(row, this.trees);
        if (record.deleted && range.includeDeleted !== true) continue;
        yield record;
      }
    }
  }

  countReadable(principals: readonly string[], range: IdRange): number {
    const { where, params } = idRangeOf(this.idList(principals), range);
    const live = range.includeDeleted === true ? '' : 'AND d.deleted = 0';
    const sql = `SELECT count(DISTINCT a.doc) FROM access_feed a JOIN docs d ON d.k = a.doc WHERE ${where} ${live}`;
    return this.stmt(sql)
      .pluck()
      .get(...params) as number;
  }

  /**
   * The principals' changes after `since`: each document once, at their newest row of it. Rows
   * of one sequence are one write of one document, readable ones first; a readable row is at
   * the document's last write, so always the newest; a `removed` row is the newest when no
   * principal of theirs reads the document now or lost it later (its `docs.access` says).
   */
  *foldChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): Generator<AccessChange> {
    const desc = options.descending === true;
    const list = this.idList(principals);
    const withRemoved = options.withRemoved === true;
    const sql = `SELECT l.seq, l.removed, ${withRemoved ? 'd.access' : 'NULL'}, ${DOC_COLUMNS.split(', ')
      .map((c) => `d.${c}`)
      .join(', ')} FROM access_feed l JOIN docs d ON d.k = l.doc
      WHERE l.${PRINCIPALS} AND l.seq > ? AND l.seq < ? ${withRemoved ? '' : 'AND l.removed = 0'}
      ORDER BY l.seq ${desc ? 'DESC' : ''}, l.removed LIMIT ?`;
    const mine = new Set(principals);
    let low = since;
    let high = Number.MAX_SAFE_INTEGER;
    let last: number | undefined;
    for (;;) {
      const rows = this.stmt(sql).raw().all(list, low, high, PAGE_ROWS) as [number, number, string | null, ...DocRow][];
      for (const [seq, gone, text, ...row] of rows) {
        if (seq === last) continue;
        last = seq;
        if (gone !== 0 && !isNewestRemoval(decodeDocAccess(text), mine, seq)) continue;
        yield { seq, removed: gone !== 0, record: toRecord(row as DocRow, this.trees) };
      }
      if (rows.length < PAGE_ROWS) return;
      const end = rows[rows.length - 1]![0];
      // The rest of the last sequence's rows, if the page cut them, are not its first: skipped.
      if (desc) high = end;
      else low = end;
    }
  }

  countChanges(principals: readonly string[], since: number, withRemoved: boolean): number {
    const sql = `SELECT count(DISTINCT doc) FROM access_feed WHERE ${PRINCIPALS} AND seq > ? ${withRemoved ? '' : 'AND removed = 0'}`;
    return this.stmt(sql).pluck().get(this.idList(principals), since) as number;
  }
}

/**
 * The condition (and its parameters) of the principals' readable rows (`a`, joined with their
 * documents `d`) in an id range; `ids`: the principals' ids as a JSON array.
 */
function idRangeOf(ids: string, range: IdRange): { where: string; params: unknown[] } {
  const desc = range.descending === true;
  const bound = boundsOf(range);
  const where = [`a.${PRINCIPALS}`, 'a.removed = 0'];
  const params: unknown[] = [ids];
  if (bound.start !== undefined) {
    where.push(`d.id ${desc ? '<=' : '>='} ?`);
    params.push(bound.start);
  }
  if (bound.end !== undefined) {
    where.push(`d.id ${desc ? '>' : '<'}${bound.inclusiveEnd ? '=' : ''} ?`);
    params.push(bound.end);
  }
  return { where: where.join(' AND '), params };
}

/** A range's bounds with CouchDB's defaults (`inclusiveEnd` true). */
function boundsOf(range: IdRange): { start?: string; end?: string; inclusiveEnd: boolean } {
  return {
    ...(range.start === undefined ? {} : { start: range.start }),
    ...(range.end === undefined ? {} : { end: range.end }),
    inclusiveEnd: range.inclusiveEnd !== false,
  };
}

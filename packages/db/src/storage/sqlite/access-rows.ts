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
 *
 * The tail: a write's new rows are not inserted by the write. A document's rows are exactly what
 * its `docs.access` says (its readers at `at`, each principal who lost it at its sequence), and
 * the write rewrites that text in the `docs` row anyway; so the rows of sequences after
 * `access_tail.merged` are read from the documents written since (`docs` by sequence: at most
 * TAIL_SEQS of them), and a write that takes the tail past TAIL_SEQS moves them into
 * `access_feed` in its own transaction. `access_feed` holds the rows up to `merged`, the tail
 * those after it: every read takes both, and is exact at once. A write still deletes the rows it
 * replaces (an update's old row up to `merged`). What it saves: the page at the end of each
 * reader's range, which a commit changed for its one row, is changed once per merge.
 */
import type Database from 'better-sqlite3';
import {
  type DocAccess,
  decodeDocAccess,
  decodeDocAccessFields,
  encodeDocAccess,
  isNewestRemoval,
  leavesOfStoredText,
  type AccessRowKey,
  nextDocAccessText,
  readByAny,
  rowsOfDocAccess,
  usualDocAccess,
  usualNewText,
} from '../doc-access.js';
import {
  type AccessChange,
  type AccessWrite,
  type DocRecord,
  type DocWrite,
  type IdRange,
  type RoleChange,
  type RoleRow,
  UNIFORM_LEAF,
} from '../records.js';
import { DOC_COLUMNS, type DocRow, toRecord } from './doc-rows.js';
import type { TreeChunks } from './tree-chunks.js';
import { compareCodePoints } from '../../support/unicode.js';

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
CREATE TABLE IF NOT EXISTS access_tail (
  merged INTEGER NOT NULL
);
INSERT INTO access_tail (merged) SELECT coalesce((SELECT max(seq) FROM docs), 0)
  WHERE NOT EXISTS (SELECT 1 FROM access_tail);
`;

/**
 * Sequences a write leaves in the tail (its new rows said by its `docs.access` alone) before a
 * write moves the tail's rows into `access_feed`: a user's read reads at most this many documents'
 * rows besides its range, and one merge writes each principal's rows of that many writes with one
 * page, where a row per write changed the page at the end of its principal's range every commit.
 * 64 rather than 32: a merge's fixed work is paid half as often (an update's CPU for it ~40% less),
 * and the reads share one read of the tail until the file changes (`tailRows`).
 */
export const TAIL_SEQS = 64;

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
const ADD_ROWS = [64, 32, 16, 4, 1] as const;

/** Sequences per statement of a merge's deletes, the remainder by smaller ones. */
const DROP_SEQS = [64, 32, 16, 4, 1] as const;

/** Consecutive sequences of one principal's drops deleted by one range (`dropRuns`). */
const DROP_RUN = 8;

/** Rows per page of the folds. */
const PAGE_ROWS = 256;

const PRINCIPALS = 'principal IN (SELECT value FROM json_each(?))';

/** A write's access as `SqliteAccessRows.plan` computes it. */
export interface AccessPlan {
  /** The write's sequence (its rows'). */
  seq: number;
  /** The document's stored access text after the write. */
  text: string | null;
  /** The rows that text says, when it is the usual one (the merge then reads it without parsing). */
  rows?: UsualRows;
}

/** The rows of a usual text (`usualParts`): its readers at `at`, and the feed's rows it drops. */
interface UsualRows {
  readers: readonly string[];
  at: number;
  /**
   * As a list, or its JSON (the drops an earlier write left, as its text had them), or a
   * sequence: each reader's row at it (the usual update's, the readers' rows before it).
   */
  drops: readonly AccessRowKey[] | string | number | undefined;
}

/** A tail document's stored access text, with its rows when a usual write of this connection made it. */
interface TailText {
  text: string | null;
  rows?: UsualRows | undefined;
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
    this.merged = db.prepare('SELECT merged FROM access_tail').pluck().get() as number;
  }

  /** `access_tail.merged` as committed: rows up to it are in `access_feed`, later ones in the tail. */
  private merged: number;
  /** `merged` after a merge in the write transaction under way: kept when it commits. */
  private mergedNext: number | undefined;

  /**
   * The tail's documents' `docs.access` texts by `docs.k`, as committed: each written by a
   * planned write of this connection (the file's only writer) since `merged`, so a merge reads
   * none of them back from `docs`. Undefined when not known (from the file's opening to its first
   * merge; after a purge): the merge then reads `docs`.
   */
  private tailTexts: Map<number, TailText> | undefined;
  /** The texts the write transaction under way wrote (since its merge, if it made one). */
  private tailWritten = new Map<number, TailText>();
  /** The write transaction under way changed texts or rows `tailWritten` does not say (a purge). */
  private tailUnknown = false;
  /** The write transaction under way merged: the tail was empty after it. */
  private tailMerged = false;

  /**
   * The tail's rows as last read outside a transaction (see `tailRows`), with the state of the
   * file they were read in. Readers take them as they are: never changed once made.
   */
  private tailCache: { state: string; rows: readonly TailRow[] } | undefined;

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
        if (committed) {
          for (const [name, id] of this.given) this.known.set(name, id);
          if (this.mergedNext !== undefined) this.merged = this.mergedNext;
          this.commitTail();
        }
        this.given.clear();
        this.mergedNext = undefined;
        this.tailWritten.clear();
        this.tailUnknown = false;
        this.tailMerged = false;
      }
    };
  }

  /** `tailTexts` after a write transaction committed (see `guard`). */
  private commitTail(): void {
    if (this.tailUnknown) this.tailTexts = undefined;
    else if (this.tailMerged) {
      this.tailTexts = this.tailWritten;
      this.tailWritten = new Map();
    } else if (this.tailTexts !== undefined) for (const [k, text] of this.tailWritten) this.tailTexts.set(k, text);
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
   * the documents' rows), the usual ones taken apart (`usualParts`), which `plan` then uses: no
   * read or parse of its own per updated document. Emptied by each transaction's `withLeaves`.
   */
  private readonly readForWrite = new Map<string, StoredAccess>();

  /**
   * Each record with its `access` text (the planner of an access-enabled database reads it);
   * `texts`: the documents' `docs.access` as the transaction read them with their records (else
   * each is read here). The records are the transaction's own (just read): each gets its text.
   */
  withLeaves(records: Map<string, DocRecord>, texts?: ReadonlyMap<string, string | null>): Map<string, DocRecord> {
    this.readForWrite.clear();
    for (const record of records.values()) {
      const text = texts?.get(record.id);
      const stored = storedAccessOf(text === undefined ? this.storedText(record.id) : text);
      this.readForWrite.set(record.id, stored);
      const leaves =
        stored.leaves ?? leavesOfStoredText(splitDrops(stored.text, this.mergedNext ?? this.merged).before);
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
      const merged = this.mergedNext ?? this.merged;
      const stored = isNew
        ? NO_STORED
        : (this.readForWrite.get(record.id) ?? storedAccessOf(this.storedText(record.id)));
      const seq = seqs[i]!;
      const usual =
        stored.usual === undefined ? undefined : usualUpdate(stored.usual, stored.leaves, access, seq, merged);
      if (usual !== undefined) return usual;
      // The usual new document's: its rows said with it, as an update's (the merge parses no text).
      const created = stored.text === null ? usualNewText(access, seq) : undefined;
      if (created !== undefined)
        return { seq, text: created, rows: { readers: access.readers, at: seq, drops: undefined } };
      const { before, pending } = splitDrops(stored.text, merged);
      const next = nextDocAccessText(before, access, seq);
      // The replaced rows in `access_feed` are the merge's to delete (the write changes no page
      // of the feed): the text keeps them with those earlier writes left (see `withDrops`).
      const drops = [...pending, ...next.stale.filter(([, at]) => at <= merged)];
      const text = drops.length === 0 ? next.text : withDrops(next.text, seq, drops);
      return { text, seq };
    });
    this.readForWrite.clear();
    return plans;
  }

  /**
   * The access rows of a committed batch (inside its transaction): `seqs[i]` is `writes[i]`'s.
   * Its new rows are the tail's (see the top); the rows it replaces go. With `plans` (of `plan`, before the batch was
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
    if (plans === undefined || keys === undefined) this.tailUnknown = true;
    let last = 0;
    writes.forEach(({ record }, i) => {
      const access = planned[i];
      if (access === undefined) return;
      const seq = seqs[i]!;
      // The plan placed the rows at the sequence it was told the write takes.
      if (access.seq !== seq)
        throw new Error(`access rows of ${record.id} planned at ${access.seq}, written at ${seq}`);
      if (plans === undefined) this.stmt('UPDATE docs SET access = ? WHERE id = ?').run(access.text, record.id);
      // The plan itself (its text and rows): no object of its own per write.
      else if (keys !== undefined) this.tailWritten.set(keys[i]!, access);
      if (seq > last) last = seq;
    });
    // The write's own rows are in the tail (its `docs.access`); a long tail goes into the feed.
    if (last - (this.mergedNext ?? this.merged) >= TAIL_SEQS) this.merge(last);
  }

  /**
   * Moves the tail's rows into `access_feed` now, in a transaction of its own: every row is then
   * in the feed, as a file of schema version 7 or older has them (a test's older file).
   */
  mergeTail(): void {
    this.guard(
      this.db.transaction(() => {
        const last = (this.db.prepare('SELECT max(seq) FROM docs').pluck().get() as number | null) ?? 0;
        if (last > this.merged) this.merge(last);
      }),
    )();
  }

  /**
   * Moves the tail's rows (every row after `merged`, up to `upTo`: the write transaction under
   * way's last sequence) into `access_feed`, by principal and sequence (each principal's rows in
   * one place of the tree), and makes `upTo` the new `merged`.
   */
  private merge(upTo: number): void {
    const from = this.mergedNext ?? this.merged;
    // The new rows, 4 values each (principal id, sequence, docs.k, removed), as the insert binds them.
    const rows = new MergeRows();
    // The drops of every text, by principal (deleted by `dropRows`).
    const drops = new DropRows((name) => this.idOf(name));
    for (const [k, { text, rows: known }] of this.tailTextsSince(from)) {
      // A usual write of this connection said its rows: no text to take apart.
      if (known !== undefined) {
        if (known.at <= from) continue;
        for (const principal of known.readers) rows.add(this.idFor(principal), known.at, k, 0);
        const own = known.drops;
        if (typeof own === 'number') for (const principal of known.readers) drops.add(principal, own);
        else if (own !== undefined) drops.addAll(typeof own === 'string' ? (JSON.parse(own) as AccessRowKey[]) : own);
        continue;
      }
      if (text === null) continue;
      // The text keeps its drops (no rewrite of the row): the document's next write leaves out
      // those of a write up to `merged` (`splitDrops`). A text whose write is up to `from` was
      // merged, its drops deleted, by an earlier merge.
      // The usual text (readers at its write's sequence, nobody lost it), its drops' JSON as it is.
      const usual = usualParts(text);
      if (usual !== undefined) {
        if (usual.at <= from) continue;
        for (const principal of JSON.parse(usual.readersJson) as string[]) {
          rows.add(this.idFor(principal), usual.at, k, 0);
        }
        if (usual.dropsJson !== undefined) drops.addAll(JSON.parse(usual.dropsJson) as AccessRowKey[]);
        continue;
      }
      const fields = JSON.parse(text) as unknown[];
      for (const [principal, seq, removed] of tailRowsOf(decodeDocAccessFields(fields), from)) {
        rows.add(this.idFor(principal), seq, k, removed);
      }
      drops.addAll((fields[5] as AccessRowKey[] | undefined) ?? []);
    }
    this.dropRows(drops);
    this.insertRows(rows.inOrder());
    this.stmt('UPDATE access_tail SET merged = ?').run(upTo);
    this.mergedNext = upTo;
    this.tailWritten.clear();
    this.tailUnknown = false;
    this.tailMerged = true;
  }

  /**
   * `[docs.k, docs.access]` of the documents written since `from` (`merged` as the transaction
   * under way sees it) that have an access text: those `tailTexts` and the transaction's own
   * writes say, else read from `docs`.
   */
  private tailTextsSince(from: number): [number, TailText][] {
    const committed = this.tailTexts;
    if (committed === undefined || this.tailUnknown) {
      const read = this.stmt('SELECT k, access FROM docs WHERE seq > ? AND access IS NOT NULL').raw().all(from);
      return (read as [number, string][]).map(([k, text]) => [k, { text }]);
    }
    const texts: [number, TailText][] = [];
    // Those the transaction under way rewrote are its own (the newer).
    for (const entry of committed) if (!this.tailWritten.has(entry[0])) texts.push(entry);
    for (const entry of this.tailWritten) texts.push(entry);
    return texts;
  }

  /**
   * Deletes rows of `access_feed` (deleting a deleted row again is harmless: a key is never used
   * twice): each principal's in statements of DROP_SEQS sequences, in order. A list of bound
   * sequences costs a third less than a statement per row (the usual merge: 64 rows of one
   * principal, one statement); a JSON list joined to the keys (one statement for all) measured
   * 2.5× one per row.
   */
  private dropRows(drops: DropRows): void {
    for (const [id, sorted] of drops.byPrincipal) {
      sorted.sort((a, b) => a - b);
      const seqs = this.dropRuns(id, sorted);
      let at = 0;
      for (const n of DROP_SEQS) {
        if (seqs.length - at < n) continue;
        let stmt = this.stmtDrops.get(n);
        if (stmt === undefined) {
          stmt = this.db.prepare(
            `DELETE FROM access_feed WHERE principal = ? AND seq IN (${Array(n).fill('?').join(', ')})`,
          );
          this.stmtDrops.set(n, stmt);
        }
        for (; seqs.length - at >= n; at += n) stmt.run(id, ...seqs.slice(at, at + n));
      }
    }
  }

  /**
   * Deletes a principal's runs of at least DROP_RUN consecutive sequences (`seqs` sorted) by one
   * range each, and hands back the sequences left for the lists. The key is (principal, seq), seq
   * an integer: a range of consecutive sequences holds no row but theirs, so it deletes the same
   * rows. The usual merge's drops (one principal's documents updated in turn) are one run, and a
   * range costs about half a list of 64 bound sequences.
   */
  private dropRuns(id: number, seqs: number[]): number[] {
    if (seqs.length < DROP_RUN) return seqs;
    const left: number[] = [];
    let start = 0;
    for (let i = 1; i <= seqs.length; i++) {
      // A run goes on while the next sequence is the same (a drop said twice) or the next one.
      if (i < seqs.length && seqs[i]! - seqs[i - 1]! <= 1) continue;
      if (i - start >= DROP_RUN) {
        this.stmtDropRange ??= this.db.prepare('DELETE FROM access_feed WHERE principal = ? AND seq BETWEEN ? AND ?');
        this.stmtDropRange.run(id, seqs[start], seqs[i - 1]);
      } else for (let j = start; j < i; j++) left.push(seqs[j]!);
      start = i;
    }
    return left;
  }

  /** `dropRuns`' statement, prepared on first use. */
  private stmtDropRange: Statement | undefined;
  /** `dropRows`' statements by sequence count (DROP_SEQS), prepared on first use. */
  private readonly stmtDrops = new Map<number, Statement>();
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

  /** A document purged away (before its row goes): its rows go with it. */
  forget(id: string): void {
    this.tailUnknown = true;
    const text = this.storedText(id);
    const drops = new DropRows((name) => this.idOf(name));
    drops.addAll(rowsOfDocAccess(decodeDocAccess(text)));
    drops.addAll(dropsOf(text));
    this.dropRows(drops);
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
       WHERE a.principal = ? AND d.seq <= ? ORDER BY d.id`,
    ).raw();
    // The tail read once: a role's rows are those of `access_feed` and the tail's, by id.
    const merged = this.mergedNext ?? this.merged;
    const tail = this.tailRows(merged);
    const roleRows = (role: string) => {
      const id = this.idOf(role);
      const rows = id === undefined ? [] : (rowsOf.all(id, merged) as [string, number, number, string | null][]);
      const more = tail.filter((row) => row.principal === role);
      if (more.length === 0) return rows;
      rows.push(
        ...more.map((row): [string, number, number, string | null] => [row.doc[0], row.seq, row.removed, row.text]),
      );
      return rows.sort((a, b) => compareCodePoints(a[0], b[0]));
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
    const { where, params } = idRangeOf(this.idList(principals), this.mergedNext ?? this.merged, range);
    const fed = this.stmt(
      `SELECT DISTINCT d.id FROM access_feed a JOIN docs d ON d.k = a.doc WHERE ${where} ORDER BY d.id ${desc ? 'DESC' : ''}`,
    )
      .pluck()
      .all(...params) as string[];
    // A document's readable rows are all in the feed or all in the tail: the two lists share no id.
    const tail = [...new Set(this.tailReadable(principals, range).map((row) => row.doc[0]))].sort((a, b) =>
      desc ? compareCodePoints(b, a) : compareCodePoints(a, b),
    );
    const ids = tail.length === 0 ? fed : mergeOrdered(fed, tail, desc);
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
    const { where, params } = idRangeOf(this.idList(principals), this.mergedNext ?? this.merged, range);
    const live = range.includeDeleted === true ? '' : 'AND d.deleted = 0';
    const sql = `SELECT count(DISTINCT a.doc) FROM access_feed a JOIN docs d ON d.k = a.doc WHERE ${where} ${live}`;
    const tail = this.tailReadable(principals, range).filter(
      (row) => range.includeDeleted === true || row.doc[3] === 0,
    );
    return (
      (this.stmt(sql)
        .pluck()
        .get(...params) as number) + new Set(tail.map((row) => row.doc[0])).size
    );
  }

  /** The tail's readable rows of `principals` whose documents are in `range`. */
  private tailReadable(principals: readonly string[], range: IdRange): TailRow[] {
    const mine = new Set(principals);
    const bound = boundsOf(range);
    const desc = range.descending === true;
    // Ids in BINARY (code point) order, as the feed's SQL compares them; `after`: from the start's side.
    const after = (id: string, start: string) =>
      desc ? compareCodePoints(id, start) <= 0 : compareCodePoints(id, start) >= 0;
    const before = (id: string, end: string) => {
      const order = compareCodePoints(id, end);
      return desc ? order > 0 || (bound.inclusiveEnd && order === 0) : order < 0 || (bound.inclusiveEnd && order === 0);
    };
    return this.tailRows().filter(
      (row) =>
        row.removed === 0 &&
        mine.has(row.principal) &&
        (bound.start === undefined || after(row.doc[0], bound.start)) &&
        (bound.end === undefined || before(row.doc[0], bound.end)),
    );
  }

  /** The `docs.k` of every document written since `merged`. */
  private tailKeys(): number[] {
    return this.stmt('SELECT k FROM docs WHERE seq > ?')
      .pluck()
      .all(this.mergedNext ?? this.merged) as number[];
  }

  /**
   * The tail's rows (after `merged`: ../doc-access.ts rows of the documents written since), by
   * sequence, a sequence's readable rows first, as `access_feed` orders a principal's.
   */
  private tailRows(merged = this.mergedNext ?? this.merged): readonly TailRow[] {
    // Outside a transaction, the rows of the file as it was when last read are reused while no
    // row changed since: this connection's changes (`total_changes()`) and any other's
    // (`data_version`) say so. Inside one they are read again (a rollback takes back changes the
    // count has seen).
    const outside = !this.db.inTransaction;
    let state: string | undefined;
    if (outside) {
      const [changes, version] = this.stmt('SELECT total_changes(), data_version FROM pragma_data_version')
        .raw()
        .get() as [number, number];
      state = `${merged} ${changes} ${version}`;
      if (this.tailCache?.state === state) return this.tailCache.rows;
    }
    const rows = this.readTailRows(merged);
    if (state !== undefined) this.tailCache = { state, rows };
    return rows;
  }

  /** The tail's rows as `tailRows` gives them, read from `docs`. */
  private readTailRows(merged: number): TailRow[] {
    const docs = this.stmt(
      `SELECT access, k, ${DOC_COLUMNS} FROM docs WHERE seq > ? AND access IS NOT NULL ORDER BY seq`,
    ).raw();
    const rows: TailRow[] = [];
    for (const [text, k, ...doc] of docs.all(merged) as [string, number, ...DocRow][]) {
      // Every row of a document written since `merged`: its rows in the feed are not read.
      for (const [principal, seq, removed] of tailRowsOf(decodeDocAccess(text), 0)) {
        rows.push({ principal, seq, removed, text, k, doc });
      }
    }
    return rows.sort((a, b) => a.seq - b.seq || a.removed - b.removed);
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
      WHERE l.${PRINCIPALS} AND l.seq > ? AND l.seq < ? AND d.seq <= ? ${withRemoved ? '' : 'AND l.removed = 0'}
      ORDER BY l.seq ${desc ? 'DESC' : ''}, l.removed LIMIT ?`;
    const mine = new Set(principals);
    // The documents written since `merged` as the fold begins are the tail's, read now and
    // woven in by sequence; the feed's rows are the other documents' (a merge while the fold
    // pages changes none of them).
    const merged = this.mergedNext ?? this.merged;
    const tail = this.tailRows(merged).filter(
      (row) => row.seq > since && mine.has(row.principal) && (withRemoved || row.removed === 0),
    );
    if (desc) tail.sort((a, b) => b.seq - a.seq || a.removed - b.removed);
    let next = 0;
    let last: number | undefined;
    const change = (seq: number, gone: number, text: string | null, row: DocRow): AccessChange | undefined => {
      if (seq === last) return undefined;
      last = seq;
      if (gone !== 0 && !isNewestRemoval(decodeDocAccess(text), mine, seq)) return undefined;
      return { seq, removed: gone !== 0, record: toRecord(row, this.trees) };
    };
    let low = since;
    let high = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = this.stmt(sql).raw().all(list, low, high, merged, PAGE_ROWS) as [
        number,
        number,
        string | null,
        ...DocRow,
      ][];
      for (const [seq, gone, text, ...row] of rows) {
        // The tail's rows that come before this one.
        for (; next < tail.length && (desc ? tail[next]!.seq > seq : tail[next]!.seq < seq); next++) {
          const { seq: at, removed, text: own, doc } = tail[next]!;
          const found = change(at, removed, own, doc);
          if (found !== undefined) yield found;
        }
        const found = change(seq, gone, text, row as DocRow);
        if (found !== undefined) yield found;
      }
      if (rows.length < PAGE_ROWS) break;
      const end = rows[rows.length - 1]![0];
      // The rest of the last sequence's rows, if the page cut them, are not its first: skipped.
      if (desc) high = end;
      else low = end;
    }
    for (; next < tail.length; next++) {
      const { seq: at, removed, text: own, doc } = tail[next]!;
      const found = change(at, removed, own, doc);
      if (found !== undefined) yield found;
    }
  }

  countChanges(principals: readonly string[], since: number, withRemoved: boolean): number {
    // A document may have rows in both (a removed row in the feed, a readable one in the tail): once.
    const mine = new Set(principals);
    const tail = new Set(
      this.tailRows()
        .filter((row) => row.seq > since && mine.has(row.principal) && (withRemoved || row.removed === 0))
        .map((row) => row.k),
    );
    // The feed's rows of a document written since `merged` are not read (the tail says its rows).
    const sql = `SELECT count(DISTINCT doc) FROM access_feed WHERE ${PRINCIPALS} AND seq > ? ${withRemoved ? '' : 'AND removed = 0'}
      AND doc NOT IN (SELECT value FROM json_each(?))`;
    const written = JSON.stringify([...new Set(this.tailKeys())]);
    return tail.size + (this.stmt(sql).pluck().get(this.idList(principals), since, written) as number);
  }
}

/**
 * Rows of `access_feed` to delete, each principal's sequences in a list of its own (by id: a
 * principal without one has no rows), as `dropRows` deletes them.
 */
class DropRows {
  readonly byPrincipal = new Map<number, number[]>();

  constructor(private readonly idOf: (name: string) => number | undefined) {}

  add(principal: string, seq: number): void {
    const id = this.idOf(principal);
    if (id === undefined) return;
    const seqs = this.byPrincipal.get(id);
    if (seqs === undefined) this.byPrincipal.set(id, [seq]);
    else seqs.push(seq);
  }

  addAll(rows: readonly AccessRowKey[]): void {
    for (const [principal, seq] of rows) this.add(principal, seq);
  }
}

/**
 * A merge's new rows as the flat list of values its inserts bind (4 a row), put in key order
 * (principal, sequence) only when they came out of it: the usual merge's rows (one principal,
 * the tail's writes in sequence order) are in order already, and then no row is an array.
 */
class MergeRows {
  private readonly values: number[] = [];
  private ordered = true;

  add(principal: number, seq: number, doc: number, removed: number): void {
    const values = this.values;
    const n = values.length;
    if (n > 0 && this.ordered) {
      const last = values[n - 4]!;
      if (principal < last || (principal === last && seq < values[n - 3]!)) this.ordered = false;
    }
    values.push(principal, seq, doc, removed);
  }

  /** The values, rows in key order. */
  inOrder(): number[] {
    if (this.ordered) return this.values;
    const rows: number[][] = [];
    for (let i = 0; i < this.values.length; i += 4) rows.push(this.values.slice(i, i + 4));
    rows.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    return rows.flat();
  }
}

/** A row of the tail (`SqliteAccessRows.tailRows`): its key and document, read from the document's access. */
interface TailRow {
  principal: string;
  seq: number;
  removed: 0 | 1;
  /** The document's `docs.access`. */
  text: string;
  /** Its `docs.k`. */
  k: number;
  doc: DocRow;
}

/** The rows `access` says the document has after sequence `after`: principal, sequence, removed. */
function tailRowsOf(access: DocAccess, after: number): [string, number, 0 | 1][] {
  const rows: [string, number, 0 | 1][] = [];
  if (access.at > after) for (const principal of access.readers) rows.push([principal, access.at, 0]);
  access.gone.forEach((principal, i) => {
    const at = access.goneAt[i] ?? 0;
    if (at > after) rows.push([principal, at, 1]);
  });
  return rows;
}

/**
 * The rows of `access_feed` a document's writes since the last merge replaced, which the merge
 * deletes: the sixth field of its `docs.access` text, `[[principal, seq], …]` (none in the usual
 * text, which has four).
 */
function dropsOf(text: string | null): AccessRowKey[] {
  if (text === null || usualDocAccess(text) !== undefined) return [];
  return ((JSON.parse(text) as unknown[])[5] as AccessRowKey[] | undefined) ?? [];
}

/** A stored access text apart from its drops (`splitDrops`). */
interface SplitText {
  before: string | null;
  pending: readonly AccessRowKey[];
}

const NO_TEXT: SplitText = { before: null, pending: [] };

/**
 * A stored access text without its drops (`before`: what `nextDocAccessText` reads, the usual
 * text when it is one), and those drops a merge has yet to apply (`pending`): none once the
 * text's write (its fourth field, the sequence of its rows) is up to `merged`, since the merge
 * that took that write into `access_feed` deleted them.
 */
function splitDrops(text: string | null, merged: number): SplitText {
  if (text === null) return NO_TEXT;
  const usual = usualParts(text);
  if (usual !== undefined) {
    const before = `[${usual.readersJson},[],null,${usual.at}]`;
    if (usual.dropsJson === undefined) return { before: text, pending: [] };
    const pending = usual.at > merged ? (JSON.parse(usual.dropsJson) as AccessRowKey[]) : [];
    return { before, pending };
  }
  const fields = JSON.parse(text) as unknown[];
  const drops = fields[5] as AccessRowKey[] | undefined;
  if (drops === undefined) return { before: text, pending: [] };
  const before = encodeDocAccess(decodeDocAccessFields(fields));
  return { before, pending: ((fields[3] as number | undefined) ?? 0) > merged ? drops : [] };
}

/**
 * The usual stored text taken apart by scanning, without JSON: `[readers,[],null,at]` (every
 * leaf has the readers' `_access`, nobody lost the document: `nextDocAccessText`'s usual text)
 * or that with drops, `[readers,[],null,at,[],drops]` (`withDrops` of it). Undefined for any
 * other text. The readers are scanned string by string (a name may hold any character), so the
 * parts are where JSON would put them; a stored text's readers are in order, once each.
 */
interface UsualParts {
  /** The readers' JSON list (one name at least). */
  readersJson: string;
  /** The sequence of the readers' rows. */
  at: number;
  /** The drops' JSON list, when the text has them. */
  dropsJson: string | undefined;
}

function usualParts(text: string): UsualParts | undefined {
  if (!text.startsWith('[["')) return undefined;
  let i = 2;
  for (;;) {
    // A JSON string from its opening quote: to the first quote no backslash escapes.
    if (text.charCodeAt(i) !== 0x22) return undefined;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i++;
      else if (c === 0x22) break;
    }
    i++;
    const next = text.charCodeAt(i);
    if (next === 0x5d) break;
    if (next !== 0x2c) return undefined;
    i++;
  }
  const USUAL = '],[],null,';
  if (!text.startsWith(USUAL, i)) return undefined;
  let at = 0;
  let j = i + USUAL.length;
  const digits = j;
  for (; j < text.length; j++) {
    const digit = text.charCodeAt(j) - 0x30;
    if (digit < 0 || digit > 9) break;
    at = at * 10 + digit;
  }
  if (j === digits) return undefined;
  const readersJson = text.slice(1, i + 1);
  if (j === text.length - 1 && text.charCodeAt(j) === 0x5d) return { readersJson, at, dropsJson: undefined };
  if (!text.startsWith(',[],[', j) || text.charCodeAt(text.length - 1) !== 0x5d) return undefined;
  return { readersJson, at, dropsJson: text.slice(j + 4, -1) };
}

/**
 * A stored access text as `plan` reads it: the usual one taken apart, with its leaves' text
 * (`uniformLeaves` of its readers: the record's `access`, and what the usual update's write says).
 */
interface StoredAccess {
  text: string | null;
  usual: UsualParts | undefined;
  leaves: string | undefined;
}

const NO_STORED: StoredAccess = { text: null, usual: undefined, leaves: undefined };

function storedAccessOf(text: string | null): StoredAccess {
  const usual = text === null ? undefined : usualParts(text);
  return { text, usual, leaves: usual === undefined ? undefined : uniformLeavesOf(usual.readersJson) };
}

/**
 * `uniformLeaves` texts by their readers' JSON, each made once: the documents of one user or role
 * share the text, so the planner's lookups by it (its parsed leaves, `usualUpdate`'s comparison)
 * meet the same string every write (flattened and hashed once), not a new rope. Emptied when full.
 */
const uniformTexts = new Map<string, string>();
const UNIFORM_TEXTS = 1024;

function uniformLeavesOf(readersJson: string): string {
  let text = uniformTexts.get(readersJson);
  if (text === undefined) {
    text = `{"${UNIFORM_LEAF}":${readersJson}}`;
    if (uniformTexts.size >= UNIFORM_TEXTS) uniformTexts.clear();
    uniformTexts.set(readersJson, text);
  }
  return text;
}

/**
 * The stored text after the usual update (`stored`: the usual text before it; `write`'s readers
 * those same readers, every leaf with them) at `seq`, by concatenation: what `nextDocAccessText`
 * then `withDrops` make of it. Undefined for any other write. The readers' old rows are the
 * merge's to delete when they are in `access_feed` (their write up to `merged`); else the text
 * keeps the drops its write before left (the feed has yet to lose them), and nothing of that
 * write's rows, which never reached the feed.
 */
function usualUpdate(
  stored: UsualParts,
  leaves: string | undefined,
  write: AccessWrite,
  seq: number,
  merged: number,
): AccessPlan | undefined {
  // `leaves`, the stored text's (`uniformLeaves` of the stored readers) is the write's only when the
  // write's readers are the stored ones, in order: no JSON of them here.
  if (write.leaves !== leaves) return undefined;
  const readersJson = stored.readersJson;
  const readers = write.readers;
  if (stored.at > merged) {
    const pending = stored.dropsJson;
    return pending === undefined || pending === '[]'
      ? { seq, text: `[${readersJson},[],null,${seq}]`, rows: { readers, at: seq, drops: undefined } }
      : { seq, text: `[${readersJson},[],null,${seq},[],${pending}]`, rows: { readers, at: seq, drops: pending } };
  }
  // One reader (the usual document): the drops' JSON from the readers' (the name as JSON wrote it).
  const dropsJson =
    readers.length === 1
      ? `[[${readersJson.slice(1, -1)},${stored.at}]]`
      : JSON.stringify(readers.map((principal): AccessRowKey => [principal, stored.at]));
  return {
    seq,
    text: `[${readersJson},[],null,${seq},[],${dropsJson}]`,
    // The drops: each reader's row at the stored sequence.
    rows: { readers, at: seq, drops: stored.at },
  };
}

/**
 * A stored access text (`encodeDocAccess`'s, null: none) with `drops` as its sixth field; the
 * usual text (four fields, ending in its sequence) by concatenation.
 */
function withDrops(text: string | null, at: number, drops: readonly AccessRowKey[]): string {
  if (text !== null && usualDocAccess(text) !== undefined) return `${text.slice(0, -1)},[],${JSON.stringify(drops)}]`;
  const fields = (text === null ? [[], [], null, at] : JSON.parse(text)) as unknown[];
  if (fields.length < 5) fields[4] = [];
  fields[5] = drops;
  return JSON.stringify(fields);
}

/** Two lists of ids in order (ascending, or descending when `desc`), as one. */
function mergeOrdered(a: readonly string[], b: readonly string[], desc: boolean): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const order = compareCodePoints(a[i]!, b[j]!);
    if (desc ? order >= 0 : order <= 0) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * The condition (and its parameters) of the principals' readable rows (`a`, joined with their
 * documents `d`) in an id range; `ids`: the principals' ids as a JSON array.
 */
function idRangeOf(ids: string, merged: number, range: IdRange): { where: string; params: unknown[] } {
  const desc = range.descending === true;
  const bound = boundsOf(range);
  // A document written since `merged` is read from the tail (its rows here may be replaced ones).
  const where = [`a.${PRINCIPALS}`, 'a.removed = 0', 'd.seq <= ?'];
  const params: unknown[] = [ids, merged];
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

/**
 * The walks of a database file, by id (documents, local documents) or by sequence (changes, the
 * purge log), a page per query (../keyset-pages.ts), and the counts that go with them.
 */
import type Database from 'better-sqlite3';
import { ChangesCountMemo } from '../changes-count-memo.js';
import { GROWING_PAGES, keysetPages } from '../keyset-pages.js';
import type { ChangedDoc, DocRecord, IdRange, LocalDoc, NumberBound, PurgeInfo, RangeStats } from '../records.js';
import {
  type BodyRow,
  DOC_COLUMNS,
  type DocRow,
  type LocalRow,
  type StoredCounters,
  toChangedDoc,
  toLocal,
  toRecord,
} from './doc-rows.js';
import type { TreeChunks } from './tree-chunks.js';

type Statement = Database.Statement;

/** Purge log entries per page. */
const PURGES_PAGE = 1024;

export class SqliteDocFolds {
  private readonly stmtChanges: Statement;
  private readonly stmtChangesDesc: Statement;
  private readonly stmtChangedBodies: Statement;
  private readonly stmtCountChanges: Statement;
  private readonly stmtCountChangesTo: Statement;
  private readonly changesCounts = new ChangesCountMemo();
  private readonly stmtPurges: Statement;
  /** Range statements by shape, prepared on first use. */
  private readonly rangeStatements = new Map<string, Statement>();

  constructor(
    private readonly db: Database.Database,
    /** The counters as committed (counts of everything need no query). */
    private readonly totals: () => StoredCounters,
    private readonly trees: TreeChunks,
  ) {
    this.stmtChanges = db.prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE seq > ? ORDER BY seq LIMIT ?`).raw();
    this.stmtChangesDesc = db
      .prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .raw();
    this.stmtChangedBodies = db
      .prepare(
        'SELECT id, seq, rev, deleted, CASE WHEN deleted = 0 THEN body END, tree FROM docs ' +
          'WHERE seq > ? ORDER BY seq LIMIT ?',
      )
      .raw();
    this.stmtCountChanges = db.prepare('SELECT count(*) FROM docs WHERE seq > ?').pluck();
    this.stmtCountChangesTo = db.prepare('SELECT count(*) FROM docs WHERE seq > ? AND seq <= ?').pluck();
    this.stmtPurges = db.prepare('SELECT seq, id, revs FROM purges WHERE seq > ? ORDER BY seq LIMIT ?').raw();
  }

  *foldDocs(range: IdRange): Generator<DocRecord> {
    const where = range.includeDeleted === true ? '' : 'deleted = 0';
    for (const row of this.foldRange<DocRow>('docs', DOC_COLUMNS, where, range)) yield toRecord(row, this.trees);
  }

  *foldDocBodies(range: IdRange, bounds: readonly NumberBound[] = []): Generator<ChangedDoc> {
    const live = range.includeDeleted === true ? '' : 'deleted = 0';
    const columns = 'd.id, d.seq, d.rev, d.deleted, CASE WHEN d.deleted = 0 THEN d.body END, d.tree';
    // The winner's body is in its row (./schema.ts).
    const table = 'docs d';
    const judged = live === '' ? [] : bounds.filter((bound) => Math.abs(bound.value) < 2 ** 53);
    const judge = judged.length === 0 ? undefined : this.boundsJudge(range, judged);
    for (const row of this.foldRange<BodyRow>(table, columns, live, range, judge)) yield toChangedDoc(row, this.trees);
  }

  /**
   * `bounds` judged in a body walk's statement: a document passed over is never read into
   * JavaScript, and a scan that leaves most out costs about half of reading them all. Judging
   * costs a row more than reading it, though (SQLite parses its body): once a page keeps more than
   * half the documents it walked (counted by id, the index alone), the rest of the walk reads
   * every document (docs/benchmarks.md, Mango, session 45).
   */
  private boundsJudge(range: IdRange, bounds: readonly NumberBound[]): PageJudge<BodyRow> {
    const conditions: string[] = [];
    const params: (string | number)[] = [];
    for (const bound of bounds) {
      conditions.push(`NOT ${OUT_OF_BOUND[bound.op]}`);
      const path = `$."${bound.member}"`;
      params.push(path, path, bound.value);
    }
    const upTo = `id ${range.descending === true ? '>=' : '<='} ?`;
    return {
      filter: conditions.join(' AND '),
      params,
      goesOn: (rows, limit, from, fromOp) => {
        const last = rows[rows.length - 1];
        // Not a full page: the walk ends here.
        if (last === undefined || rows.length < limit) return true;
        const walked = rangeWhere(range, from, fromOp, upTo);
        const count = this.rangeStatement(`SELECT count(*) FROM docs${walked.where}`);
        return rows.length * 2 <= (count.get(...walked.params, last[0]) as number);
      },
    };
  }

  countDocs(range: IdRange): number {
    const { where, params } = rangeWhere(range, range.start, range.descending === true ? '<=' : '>=', '');
    if (where === '') return this.totals().docCount + (range.includeDeleted === true ? this.totals().docDelCount : 0);
    const all = this.rangeStatement(`SELECT count(*) FROM docs${where}`).get(...params) as number;
    if (range.includeDeleted === true) return all;
    return all - (this.rangeStatement(`SELECT count(*) FROM docs${where} AND deleted = 1`).get(...params) as number);
  }

  rangeStats(start: string, end: string): RangeStats {
    // The `id` index bounds the scan to the range; sizes are 0 for deleted winners.
    const row = this.rangeStatement(
      'SELECT coalesce(sum(deleted = 0), 0), coalesce(sum(deleted), 0), coalesce(sum(size), 0) FROM docs WHERE id >= ? AND id < ?',
    ).get(start, end) as [number, number, number];
    // Every stored revision body counts (until compaction drops the old ones), as CouchDB's active
    // size: the winners' in their rows, the others' in `bodies`.
    const [active] = this.rangeStatement(
      'SELECT coalesce(sum(length(CAST(d.body AS BLOB))), 0) + (SELECT coalesce(sum(length(CAST(b.body AS BLOB))), 0) ' +
        'FROM docs o JOIN bodies b ON b.doc = o.k WHERE o.id >= ? AND o.id < ?) FROM docs d WHERE d.id >= ? AND d.id < ?',
    ).get(start, end, start, end) as [number];
    return { docCount: row[0], docDelCount: row[1], external: row[2], active };
  }

  *foldChanges(since: number, descending = false): Generator<DocRecord> {
    const pages = descending
      ? keysetPages(
          Number.MAX_SAFE_INTEGER,
          bySeq,
          GROWING_PAGES,
          ({ from, limit }) => this.stmtChangesDesc.all(since, from, limit) as DocRow[],
        )
      : keysetPages(since, bySeq, GROWING_PAGES, ({ from, limit }) => this.stmtChanges.all(from, limit) as DocRow[]);
    for (const rows of pages) for (const row of rows) yield toRecord(row, this.trees);
  }

  /** `foldChangedBodies` from the tables, after `since`. */
  *changedBodies(since: number): Generator<ChangedDoc> {
    const pages = keysetPages(
      since,
      bySeq,
      GROWING_PAGES,
      ({ from, limit }) => this.stmtChangedBodies.all(from, limit) as BodyRow[],
    );
    for (const rows of pages) for (const row of rows) yield toChangedDoc(row, this.trees);
  }

  countChanges(since: number): number {
    const t = this.totals();
    if (since <= 0) return t.docCount + t.docDelCount;
    const version = `${t.updateSeq}/${t.purgeSeq}/${t.docCount}/${t.docDelCount}`;
    const known = this.changesCounts.from(since, version);
    const count =
      known === undefined
        ? (this.stmtCountChanges.get(since) as number)
        : known.count - (this.stmtCountChangesTo.get(known.since, since) as number);
    this.changesCounts.remember(since, count, version);
    return count;
  }

  *foldLocal(range: IdRange): Generator<LocalDoc> {
    for (const row of this.foldRange<LocalRow>('local_docs', 'id, rev, body', '', range)) yield toLocal(row);
  }

  *foldPurges(since: number): Generator<PurgeInfo> {
    const page = this.stmtPurges;
    type PurgeRow = [seq: number, id: string, revs: string];
    const pages = keysetPages(
      since,
      (row: PurgeRow) => row[0],
      PURGES_PAGE,
      ({ from, limit }) => page.all(from, limit) as PurgeRow[],
    );
    for (const rows of pages) {
      for (const [purgeSeq, id, revs] of rows) yield { purgeSeq, id, revs: JSON.parse(revs) as string[] };
    }
  }

  oldestPurge(): number {
    const oldest = this.db.prepare('SELECT min(seq) FROM purges').pluck().get() as number | null;
    return oldest ?? this.totals().purgeSeq + 1;
  }

  /**
   * Rows of `table` by id in walk order, a page per query: each page starts after the last id of
   * the one before, so nothing stays open between two yields and concurrent writes are fine.
   * Rows must have the id first. A `judge`'s filter narrows the pages until it says it no longer
   * pays.
   */
  private *foldRange<Row extends [string, ...unknown[]]>(
    table: string,
    columns: string,
    filter: string,
    range: IdRange,
    judge?: PageJudge<Row>,
  ): Generator<Row> {
    const desc = range.descending === true;
    let judging = judge;
    const pages = keysetPages(
      range.start,
      (row: Row) => row[0],
      GROWING_PAGES,
      ({ from, first, limit }) => {
        const fromOp = desc ? (first ? '<=' : '<') : first ? '>=' : '>';
        const narrowed =
          judging === undefined ? filter : [filter, judging.filter].filter((f) => f !== '').join(' AND ');
        const { where, params } = rangeWhere(range, from, fromOp, narrowed);
        const sql = `SELECT ${columns} FROM ${table}${where} ORDER BY id${desc ? ' DESC' : ''} LIMIT ?`;
        const rows = this.rangeStatement(sql).all(...params, ...(judging?.params ?? []), limit) as Row[];
        if (judging !== undefined && !judging.goesOn(rows, limit, from, fromOp)) judging = undefined;
        return rows;
      },
    );
    for (const rows of pages) yield* rows;
  }

  private rangeStatement(sql: string): Statement {
    let stmt = this.rangeStatements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      // Page queries give arrays; a count gives its one value.
      if (sql.startsWith('SELECT count(*)')) stmt.pluck();
      else stmt.raw();
      this.rangeStatements.set(sql, stmt);
    }
    return stmt;
  }
}

/**
 * A body whose member is an integer that does not compare so (`NumberBound`; SQLite compares an
 * integer past 64 bits as a double, on the same side of a bound below 2^53): 0 or 1, never NULL
 * (a missing member's `json_type` is NULL, which `IS` makes 0), and 0 for a text SQLite would not
 * read as JSON (which its other JSON functions would fail the statement on). The parameters: the
 * member's path twice, the bound's value. Each JSON function is a path lookup in the body's
 * parse, which SQLite keeps for the row: fewer of them are cheaper.
 */
const OUT_OF_BOUND: Record<NumberBound['op'], string> = Object.fromEntries(
  (['<', '<=', '>', '>=', '='] as const).map((op) => [
    op,
    `(CASE WHEN json_valid(d.body) THEN json_type(d.body, ?) IS 'integer' AND NOT (json_extract(d.body, ?) ${op} ?) ELSE 0 END)`,
  ]),
) as Record<NumberBound['op'], string>;

/** A condition a walk's pages are narrowed by while it pays (`foldRange`). */
interface PageJudge<Row> {
  /** SQL conditions on the page's rows, after the range's own in the statement. */
  filter: string;
  /** Their parameters. */
  params: readonly (string | number)[];
  /** After a page (its rows, its limit, where it started): whether the next is narrowed too. */
  goesOn(rows: readonly Row[], limit: number, from: string | undefined, fromOp: string): boolean;
}

/** The key of a by-sequence walk. */
function bySeq(row: DocRow | BodyRow): number {
  return row[1];
}

/** The WHERE clause of a range walk whose next row is `fromOp from` (`from` undefined: no bound). */
function rangeWhere(
  range: IdRange,
  from: string | undefined,
  fromOp: string,
  filter: string,
): { where: string; params: string[] } {
  const desc = range.descending === true;
  const conditions: string[] = [];
  const params: string[] = [];
  if (from !== undefined) {
    conditions.push(`id ${fromOp} ?`);
    params.push(from);
  }
  if (range.end !== undefined) {
    const inclusive = range.inclusiveEnd !== false;
    conditions.push(`id ${desc ? '>' : '<'}${inclusive ? '=' : ''} ?`);
    params.push(range.end);
  }
  if (filter !== '') conditions.push(filter);
  return { where: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '', params };
}

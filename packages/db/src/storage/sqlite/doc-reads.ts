/**
 * Reading documents' records and bodies: one statement per id (or pair) when they are few, a
 * statement per LOOKUP_CHUNK of them otherwise.
 */
import type Database from 'better-sqlite3';
import { isWellFormed } from '../../support/unicode.js';
import type { ChangedDoc, DocRecord } from '../records.js';
import {
  type BodyRow,
  DOC_COLUMNS,
  type DocRow,
  type OldRow,
  toChangedDoc,
  toRecord,
  UPDATE_COLUMNS,
  type UpdateRow,
} from './doc-rows.js';
import type { TreeChunks } from './tree-chunks.js';

type Statement = Database.Statement;

/** Ids per `IN (...)` lookup (a short last chunk is padded with NULLs, which match nothing). */
const LOOKUP_CHUNK = 64;
/** Below this many ids a lookup per id is as cheap. */
const MIN_BATCH_LOOKUP = 8;

export class SqliteDocReads {
  private readonly stmtGetDoc: Statement;
  private readonly stmtGetBody: Statement;
  private readonly stmtGetDocWithBody: Statement;
  private readonly stmtGetDocsIn: Statement;
  private readonly stmtGetBodiesIn: Statement;
  private readonly stmtGetDocsWithBodiesIn: Statement;
  private readonly stmtGetForUpdate: Statement;
  private readonly stmtGetForUpdateIn: Statement;
  private readonly stmtPlainWinnersText: Statement;
  /** The parameters of an `IN (...)` lookup, reused (better-sqlite3 binds them before `all` returns). */
  private readonly params: (string | null)[] = new Array<string | null>(LOOKUP_CHUNK).fill(null);

  constructor(
    db: Database.Database,
    private readonly trees: TreeChunks,
  ) {
    this.stmtGetDoc = db.prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE id = ?`).raw();
    this.stmtGetForUpdate = db.prepare(`SELECT ${UPDATE_COLUMNS} FROM docs WHERE id = ?`).raw();
    this.stmtGetForUpdateIn = db
      .prepare(`SELECT ${UPDATE_COLUMNS} FROM docs WHERE id IN (${Array(LOOKUP_CHUNK).fill('?').join(', ')})`)
      .raw();
    // The winner's body is in its row, the other revisions' in `bodies` (./schema.ts).
    this.stmtGetBody = db
      .prepare(
        'SELECT CASE WHEN d.rev = ? THEN d.body ELSE (SELECT b.body FROM bodies b WHERE b.doc = d.k AND b.rev = ?) END ' +
          'FROM docs d WHERE d.id = ?',
      )
      .pluck();
    this.stmtGetDocWithBody = db.prepare('SELECT id, seq, rev, deleted, tree, body FROM docs WHERE id = ?').raw();
    this.stmtGetDocsIn = db
      .prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE id IN (${Array(LOOKUP_CHUNK).fill('?').join(', ')})`)
      .raw();
    this.stmtGetBodiesIn = db
      .prepare(
        `WITH w(id, rev) AS (VALUES ${Array(LOOKUP_CHUNK).fill('(?, ?)').join(', ')})
         SELECT d.id, w.rev, CASE WHEN d.rev = w.rev THEN d.body
           ELSE (SELECT b.body FROM bodies b WHERE b.doc = d.k AND b.rev = w.rev) END
         FROM w JOIN docs d ON d.id = w.id`,
      )
      .raw();
    this.stmtGetDocsWithBodiesIn = db
      .prepare(
        'SELECT id, seq, rev, deleted, body, tree FROM docs ' +
          `WHERE id IN (${Array(LOOKUP_CHUNK).fill('?').join(', ')})`,
      )
      .raw();
    // The ids come as one JSON array, read in its order (`j.key`): CROSS JOIN keeps json_each the
    // outer loop, so the rows, and the texts group_concat joins, come in that order (an ORDER BY
    // in group_concat sorted them again: ~10% of the statement). Its rows are the ones found live:
    // a count short of the ids' says some are not. A body whose first member is a special one
    // (attachment stubs) is written otherwise (the document layer's): counted.
    this.stmtPlainWinnersText = db
      .prepare(
        `SELECT count(*), max(d.seq), sum(substr(d.body, 1, 3) = '{"_'), group_concat(CASE WHEN j.key < ? THEN
           '{"_id":' || json_quote(d.id) || ',"_rev":' || json_quote(d.rev) ||
           CASE WHEN length(d.body) > 2 THEN ',' || substr(d.body, 2) ELSE '}' END END, ',')
         FROM json_each(?) j CROSS JOIN docs d ON d.id = j.value
         WHERE d.deleted = 0`,
      )
      .raw();
  }

  getDoc(id: string): DocRecord | undefined {
    const row = this.stmtGetDoc.get(id) as DocRow | undefined;
    return row === undefined ? undefined : toRecord(row, this.trees);
  }

  getDocWithBody(id: string): { record: DocRecord; body: string | undefined } | undefined {
    const row = this.stmtGetDocWithBody.get(id) as [...DocRow, body: string | null] | undefined;
    if (row === undefined) return undefined;
    return { record: toRecord(row as unknown as DocRow, this.trees), body: row[5] ?? undefined };
  }

  getDocs(ids: readonly string[]): (DocRecord | undefined)[] {
    if (ids.length < MIN_BATCH_LOOKUP) return ids.map((id) => this.getDoc(id));
    const rows = new Map<string, DocRow>();
    for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
      const chunk: (string | null)[] = ids.slice(at, at + LOOKUP_CHUNK);
      while (chunk.length < LOOKUP_CHUNK) chunk.push(null);
      for (const row of this.stmtGetDocsIn.all(chunk) as DocRow[]) rows.set(row[0], row);
    }
    return ids.map((id) => {
      const row = rows.get(id);
      if (row !== undefined) return toRecord(row, this.trees);
      // An id with a lone surrogate is bound as U+FFFD, so its row (if any) comes back under
      // another id: only the lookup of that one id finds it.
      return isWellFormed(id) ? undefined : this.getDoc(id);
    });
  }

  /**
   * What a write transaction reads of the documents it writes, in one statement per id (or per
   * LOOKUP_CHUNK ids): their records (`getDocs`) and the rows the write replaces (`olds`, by id),
   * so that the write does not look each row up again.
   */
  getForUpdate(ids: readonly string[]): {
    found: (DocRecord | undefined)[];
    olds: Map<string, OldRow>;
    /** Each found document's `docs.access` text (./access-rows.ts), by id. */
    access: Map<string, string | null>;
  } {
    if (ids.length === 1) return this.getOneForUpdate(ids[0]!);
    const rows = new Map<string, UpdateRow>();
    if (ids.length < MIN_BATCH_LOOKUP) {
      for (const id of ids) {
        const row = this.stmtGetForUpdate.get(id) as UpdateRow | undefined;
        if (row !== undefined) rows.set(id, row);
      }
    } else {
      for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
        const chunk: (string | null)[] = ids.slice(at, at + LOOKUP_CHUNK);
        while (chunk.length < LOOKUP_CHUNK) chunk.push(null);
        for (const row of this.stmtGetForUpdateIn.all(chunk) as UpdateRow[]) rows.set(row[0], row);
      }
    }
    const olds = new Map<string, OldRow>();
    const access = new Map<string, string | null>();
    const found = ids.map((id) => {
      const row = rows.get(id);
      // An id with a lone surrogate is bound as U+FFFD, so its row (if any) comes back under
      // another id: only the lookup of that one id finds it (and the write looks its row up).
      if (row === undefined || row[0] !== id) return isWellFormed(id) ? undefined : this.getDoc(id);
      olds.set(id, [row[5], row[3], row[6], row[4], row[2]]);
      access.set(id, row[7]);
      return toRecord(row as unknown as DocRow, this.trees);
    });
    return { found, olds, access };
  }

  /** `getForUpdate` of one id (a single-document write): no map of the rows read. */
  private getOneForUpdate(id: string): ReturnType<SqliteDocReads['getForUpdate']> {
    const olds = new Map<string, OldRow>();
    const access = new Map<string, string | null>();
    const row = this.stmtGetForUpdate.get(id) as UpdateRow | undefined;
    // As in `getForUpdate`: a row under another id is the lone surrogate's U+FFFD.
    if (row === undefined || row[0] !== id)
      return { found: [isWellFormed(id) ? undefined : this.getDoc(id)], olds, access };
    olds.set(id, [row[5], row[3], row[6], row[4], row[2]]);
    access.set(id, row[7]);
    return { found: [toRecord(row as unknown as DocRow, this.trees)], olds, access };
  }

  /** Records with their winners' bodies (a deleted winner's left out), in the order asked. */
  getDocsWithBodies(ids: readonly string[]): (ChangedDoc | undefined)[] {
    const one = (id: string): ChangedDoc | undefined => {
      const found = this.getDocWithBody(id);
      if (found === undefined) return undefined;
      const { record, body } = found;
      return { ...record, body: record.deleted ? undefined : body };
    };
    if (ids.length < MIN_BATCH_LOOKUP) return ids.map(one);
    if (ids.length <= LOOKUP_CHUNK) {
      // One statement (a Mango page, an `include_docs` page): its rows come in id order, which
      // is mostly the order asked (an index's rows by one key), and then need no map by id.
      const rows = this.stmtGetDocsWithBodiesIn.all(this.lookupParams(ids)) as BodyRow[];
      if (inOrderAsked(rows, ids)) return rows.map((row) => this.liveChangedDoc(row));
      return this.byId(ids, rows, one);
    }
    const rows: BodyRow[] = [];
    for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
      for (const row of this.stmtGetDocsWithBodiesIn.all(this.lookupParams(ids, at)) as BodyRow[]) rows.push(row);
    }
    return this.byId(ids, rows, one);
  }

  /**
   * The first `count` of `ids`' winners written as a plain read renders them (`{"_id":…,"_rev":…`
   * and the body's members), joined by commas, in one statement and one string: a page of Mango
   * results read and written without a string, a record and a rendering per document. Undefined
   * unless every id has a live winner with a sequence at most `maxSeq` and a body without special
   * members (an id with a lone surrogate is not found this way either: the caller reads them
   * one by one then).
   */
  plainWinnersText(ids: readonly string[], maxSeq: number, count: number): string | undefined {
    const row = this.stmtPlainWinnersText.get(count, JSON.stringify(ids)) as
      | [found: number, seq: number | null, special: number | null, text: string | null]
      | undefined;
    if (row === undefined || row[0] !== ids.length || row[1] === null || row[1] > maxSeq || row[2] !== 0) {
      return undefined;
    }
    return row[3] ?? '';
  }

  /** LOOKUP_CHUNK parameters: the ids from `at` on, NULLs after them (kept between calls: no array per lookup). */
  private lookupParams(ids: readonly string[], at = 0): (string | null)[] {
    const params = this.params;
    for (let i = 0; i < LOOKUP_CHUNK; i++) params[i] = ids[at + i] ?? null;
    return params;
  }

  /** A row as a record with its body (none for a deleted winner). */
  private liveChangedDoc(row: BodyRow): ChangedDoc {
    const doc = toChangedDoc(row, this.trees);
    if (doc.deleted) doc.body = undefined;
    return doc;
  }

  /** `getDocsWithBodies`'s answer from rows in another order than asked (or some missing). */
  private byId(
    ids: readonly string[],
    found: readonly BodyRow[],
    one: (id: string) => ChangedDoc | undefined,
  ): (ChangedDoc | undefined)[] {
    const rows = new Map<string, BodyRow>();
    for (const row of found) rows.set(row[0], row);
    return ids.map((id) => {
      const row = rows.get(id);
      if (row === undefined) return isWellFormed(id) ? undefined : one(id);
      return this.liveChangedDoc(row);
    });
  }

  getBody(id: string, rev: string): string | undefined {
    return (this.stmtGetBody.get(rev, rev, id) as string | null | undefined) ?? undefined;
  }

  /**
   * Bodies of (id, rev) pairs, in order: a statement per LOOKUP_CHUNK pairs (a page of
   * `include_docs` rows or Mango results), one statement per pair when they are few.
   */
  getBodies(wanted: readonly { id: string; rev: string }[]): (string | undefined)[] {
    if (wanted.length < MIN_BATCH_LOOKUP) return wanted.map(({ id, rev }) => this.getBody(id, rev));
    const found = new Map<string, string>();
    const params: (string | null)[] = [];
    for (let at = 0; at < wanted.length; at += LOOKUP_CHUNK) {
      params.length = 0;
      for (const { id, rev } of wanted.slice(at, at + LOOKUP_CHUNK)) params.push(id, rev);
      while (params.length < 2 * LOOKUP_CHUNK) params.push(null, null);
      for (const [id, rev, body] of this.stmtGetBodiesIn.all(params) as [string, string, string | null][]) {
        if (body !== null) found.set(`${rev} ${id}`, body);
      }
    }
    // An id with a lone surrogate is bound as U+FFFD: only its own lookup finds its row.
    return wanted.map(
      ({ id, rev }) => found.get(`${rev} ${id}`) ?? (isWellFormed(id) ? undefined : this.getBody(id, rev)),
    );
  }
}

/** Whether `rows` are one for each of `ids`, in that order. */
function inOrderAsked(rows: readonly BodyRow[], ids: readonly string[]): boolean {
  if (rows.length !== ids.length) return false;
  for (let i = 0; i < rows.length; i++) if (rows[i]![0] !== ids[i]) return false;
  return true;
}

/** The records found, by the id asked. */
export function recordsOf(ids: readonly string[], found: readonly (DocRecord | undefined)[]): Map<string, DocRecord> {
  const records = new Map<string, DocRecord>();
  ids.forEach((id, i) => {
    const record = found[i];
    if (record !== undefined) records.set(id, record);
  });
  return records;
}

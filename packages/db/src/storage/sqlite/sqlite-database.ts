import Database from 'better-sqlite3';
import { isWellFormed } from '../../support/unicode.js';
import { statSync } from 'node:fs';
import { RecentChanges } from '../recent-changes.js';
import { GROWING_PAGES, keysetPages } from '../keyset-pages.js';
import type { Planner } from '../contract.js';
import type {
  ChangedDoc,
  CompactWrite,
  DbMeta,
  DocRecord,
  DocWrite,
  IdRange,
  LocalDoc,
  PurgeInfo,
  PurgeWrite,
} from '../records.js';
import type { SqliteSyncStore } from './sync-store.js';
import { SqliteAttachments } from './attachments.js';
import { SAFETY_NET_PAGES, WalCheckpointer } from './wal-checkpointer.js';
import {
  ATTACHMENT_CHUNKS_COLUMN,
  ATTACHMENT_SCHEMA,
  COUNTERS,
  PURGE_SCHEMA,
  SCHEMA,
  SCHEMA_VERSION,
} from './schema.js';

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * Rows per multi-row statement: one statement call for many rows saves most of the per-call
 * cost of better-sqlite3 on bulk writes and lookups. Smaller sizes mop up a batch's remainder.
 */
const CHUNK_ROWS = [64, 16, 4, 1] as const;
/** Ids per `IN (...)` lookup (a short last chunk is padded with NULLs, which match nothing). */
const LOOKUP_CHUNK = 64;
/** Below this many ids a lookup per id is as cheap. */
const MIN_BATCH_LOOKUP = 8;

/** Bodies of the latest writes kept in memory: 1% of a 1M-doc database of ~400-byte docs. */
const RECENT_BYTES = 4 * 1024 * 1024;
/** Purge log entries per page. */
const PURGES_PAGE = 1024;
/** PRAGMA auto_vacuum's value for INCREMENTAL. */
const INCREMENTAL = 2;

export interface SqliteDatabaseOptions {
  durability: 'normal' | 'full';
  /** Called once when the handle closes, so the engine drops it from its cache. */
  onClose?: (db: SqliteDatabase) => void;
  /** Bytes of bodies of the latest writes kept in memory (../recent-changes.ts). Default 4 MiB. */
  recentBytes?: number;
}

interface Counters {
  updateSeq: number;
  docCount: number;
  docDelCount: number;
  external: number;
  purgeSeq: number;
}

type DocRow = [id: string, seq: number, rev: string, deleted: number, tree: string];
type LocalRow = [id: string, rev: string, body: string];
/** A record with its winner's body (NULL for a deleted winner), the tree last. */
type BodyRow = [id: string, seq: number, rev: string, deleted: number, body: string | null, tree: string];

const DOC_COLUMNS = 'id, seq, rev, deleted, tree';

function toRecord(row: DocRow): DocRecord {
  return { id: row[0], seq: row[1], rev: row[2], deleted: row[3] !== 0, tree: row[4] };
}

function toChangedDoc([id, seq, rev, deleted, body, tree]: BodyRow): ChangedDoc {
  return { id, seq, rev, deleted: deleted !== 0, body: body ?? undefined, tree };
}

/** The key of a by-sequence walk. */
function bySeq(row: DocRow | BodyRow): number {
  return row[1];
}

function toLocal(row: LocalRow): LocalDoc {
  return { id: row[0], rev: row[1], body: row[2] };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** One database: one SQLite file with a single connection, the only writer. */
export class SqliteDatabase implements SqliteSyncStore {
  private readonly db: Db;
  /** Attachment bytes (./attachments.ts). */
  readonly attachments: SqliteAttachments;
  private totals: Counters;
  /** The latest writes, for index updates that follow them (../recent-changes.ts). */
  private readonly recent: RecentChanges;
  private readonly createdAt: number;
  private readonly onClose: ((db: SqliteDatabase) => void) | undefined;
  /** This file's watch by the checkpoint worker (./wal-checkpointer.ts), when one runs. */
  private walWatch: { checkpointer: WalCheckpointer; id: number; synchronous: 'NORMAL' | 'FULL' } | undefined;
  /** Range statements by shape, prepared on first use. */
  private readonly rangeStatements = new Map<string, Statement>();

  private readonly stmtGetDoc: Statement;
  private readonly stmtGetBody: Statement;
  private readonly stmtGetDocWithBody: Statement;
  private readonly stmtOld: Statement;
  private readonly stmtGetDocsIn: Statement;
  private readonly stmtGetBodiesIn: Statement;
  private readonly stmtMaxKey: Statement;
  /** Multi-row inserts by row count (CHUNK_ROWS), prepared on first use. */
  private readonly stmtInsertDocs = new Map<number, Statement>();
  private readonly stmtPutBodies = new Map<number, Statement>();
  private readonly stmtUpdateDoc: Statement;
  private readonly stmtPutBody: Statement;
  private readonly stmtDropBody: Statement;
  private readonly stmtSetTree: Statement;
  private readonly stmtBodySize: Statement;
  private readonly stmtSaveCounters: Statement;
  private readonly stmtChanges: Statement;
  private readonly stmtChangesDesc: Statement;
  private readonly stmtChangedBodies: Statement;
  private readonly stmtCountChanges: Statement;
  private readonly stmtGetLocal: Statement;
  private readonly stmtPutLocal: Statement;
  private readonly stmtDeleteLocal: Statement;
  private readonly stmtGetProp: Statement;
  private readonly stmtSetProp: Statement;
  /**
   * Props as stored: read on every request (`_security`), and changed only through setProp on
   * this connection, since one process owns the file.
   */
  private readonly props = new Map<string, string | undefined>();
  private readonly stmtPages: Statement;
  private readonly writeTransaction: (writes: readonly DocWrite[]) => { seqs: number[]; counters: Counters };
  private readonly updateTransaction: <R>(
    ids: readonly string[],
    plan: Planner<R>,
  ) => { result: R; writes: readonly DocWrite[]; seqs: number[]; counters: Counters };

  constructor(
    readonly name: string,
    private readonly path: string,
    options: SqliteDatabaseOptions,
  ) {
    this.onClose = options.onClose;
    this.db = new Database(path, { timeout: 5000 });
    const checkpointer = WalCheckpointer.shared();
    try {
      this.configure(options.durability, checkpointer?.running === true);
      this.createdAt = this.migrate();
    } catch (err) {
      this.db.close();
      throw err;
    }
    if (checkpointer?.running === true) {
      const synchronous = options.durability === 'full' ? 'FULL' : 'NORMAL';
      this.walWatch = { checkpointer, id: checkpointer.watch(path, synchronous), synchronous };
    }
    const db = this.db;
    this.attachments = new SqliteAttachments(db);
    this.stmtGetDoc = db.prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE id = ?`).raw();
    this.stmtGetBody = db
      .prepare('SELECT body FROM bodies WHERE doc = (SELECT k FROM docs WHERE id = ?) AND rev = ?')
      .pluck();
    this.stmtGetDocWithBody = db
      .prepare(
        'SELECT d.id, d.seq, d.rev, d.deleted, d.tree, b.body FROM docs d ' +
          'LEFT JOIN bodies b ON b.doc = d.k AND b.rev = d.rev WHERE d.id = ?',
      )
      .raw();
    this.stmtOld = db.prepare('SELECT k, deleted, size FROM docs WHERE id = ?').raw();
    this.stmtGetDocsIn = db
      .prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE id IN (${Array(LOOKUP_CHUNK).fill('?').join(', ')})`)
      .raw();
    this.stmtGetBodiesIn = db
      .prepare(
        `WITH w(id, rev) AS (VALUES ${Array(LOOKUP_CHUNK).fill('(?, ?)').join(', ')})
         SELECT d.id, b.rev, b.body FROM w JOIN docs d ON d.id = w.id JOIN bodies b ON b.doc = d.k AND b.rev = w.rev`,
      )
      .raw();
    // `k` is given explicitly on insert, as SQLite would pick it: one more than the largest.
    this.stmtMaxKey = db.prepare('SELECT max(k) FROM docs').pluck();
    this.stmtUpdateDoc = db.prepare('UPDATE docs SET seq = ?, rev = ?, deleted = ?, size = ?, tree = ? WHERE k = ?');
    this.stmtPutBody = db.prepare('INSERT OR REPLACE INTO bodies (doc, rev, body) VALUES (?, ?, ?)');
    this.stmtDropBody = db.prepare('DELETE FROM bodies WHERE doc = ? AND rev = ?');
    this.stmtSetTree = db.prepare('UPDATE docs SET tree = ? WHERE k = ?');
    // CAST to BLOB makes length() count bytes instead of characters.
    this.stmtBodySize = db.prepare('SELECT length(CAST(body AS BLOB)) FROM bodies WHERE doc = ? AND rev = ?').pluck();
    this.stmtSaveCounters = db.prepare(
      `INSERT OR REPLACE INTO meta (key, value) VALUES ${COUNTERS.map((k) => `('${k}', ?)`).join(', ')}`,
    );
    this.stmtChanges = db.prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE seq > ? ORDER BY seq LIMIT ?`).raw();
    this.stmtChangesDesc = db
      .prepare(`SELECT ${DOC_COLUMNS} FROM docs WHERE seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .raw();
    this.stmtChangedBodies = db
      .prepare(
        'SELECT d.id, d.seq, d.rev, d.deleted, CASE WHEN d.deleted = 0 THEN b.body END, d.tree FROM docs d ' +
          'LEFT JOIN bodies b ON b.doc = d.k AND b.rev = d.rev WHERE d.seq > ? ORDER BY d.seq LIMIT ?',
      )
      .raw();
    this.stmtCountChanges = db.prepare('SELECT count(*) FROM docs WHERE seq > ?').pluck();
    this.stmtGetLocal = db.prepare('SELECT id, rev, body FROM local_docs WHERE id = ?').raw();
    this.stmtPutLocal = db.prepare('INSERT OR REPLACE INTO local_docs (id, rev, body) VALUES (?, ?, ?)');
    this.stmtDeleteLocal = db.prepare('DELETE FROM local_docs WHERE id = ?');
    this.stmtGetProp = db.prepare('SELECT value FROM props WHERE key = ?').pluck();
    this.stmtSetProp = db.prepare('INSERT OR REPLACE INTO props (key, value) VALUES (?, ?)');
    this.stmtPages = db.prepare('SELECT * FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()').raw();
    this.totals = this.loadCounters();
    this.recent = new RecentChanges(this.totals.updateSeq, options.recentBytes ?? RECENT_BYTES);
    this.writeTransaction = db.transaction((writes: readonly DocWrite[]) => this.applyWrites(writes));
    // better-sqlite3's Transaction type loses the generic: the cast restores it.
    this.updateTransaction = db.transaction((ids: readonly string[], plan: Planner<unknown>) => {
      const records = new Map<string, DocRecord>();
      const found = this.getDocs(ids);
      ids.forEach((id, i) => {
        const record = found[i];
        if (record !== undefined) records.set(id, record);
      });
      const { writes, result } = plan(records);
      const marked = writes.map((w) => (w.isNew === undefined ? { ...w, isNew: !records.has(w.record.id) } : w));
      return { result, writes: marked, ...this.applyWrites(marked) };
    }) as SqliteDatabase['updateTransaction'];
  }

  private configure(durability: 'normal' | 'full', checkpointedElsewhere: boolean): void {
    const db = this.db;
    // 8 KiB pages for new files (an existing file keeps its own): a bulk load commits about half
    // as many WAL frames (one write each) and B-tree pages for the same rows, which measured
    // ~0.2-0.3 µs of system time less per document on loads of ~365-byte documents.
    db.pragma('page_size = 8192');
    // WAL: readers never block the writer. A commit has written its WAL frames with write(2)
    // before returning, so with synchronous=NORMAL it survives kill -9 of this process (the OS
    // holds the pages); only an OS crash or power loss can drop the last commits, which FULL
    // (an fsync of the WAL per commit) prevents.
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // Up to 8 MiB of page cache per open database (allocated as used); the OS caches the file
    // too. Measured against 32 MiB: random GETs of 100k docs ~5% slower (12.2k vs 12.9k req/s at
    // c16), bulk loads alike, and 25-40 MB less resident memory once a big database was loaded
    // (peak RSS of a 1M-doc index build: 242-266 MB in 5 runs, instead of 278-311 MB).
    db.pragma('cache_size = -8192');
    db.pragma('temp_store = MEMORY');
    // Checkpoints are the worker's (./wal-checkpointer.ts); this connection's own is a far safety
    // net then. Without a worker: every ~16 MiB of WAL (2048 pages of 8 KiB) rather than 4 MiB,
    // fewer checkpoints and faster bulk loads (32 and 64 MiB measured no better). mmap gave no
    // clear gain, so it stays off.
    db.pragma(`wal_autocheckpoint = ${checkpointedElsewhere ? SAFETY_NET_PAGES : 2048}`);
    // After a checkpoint, cut a WAL that grew past 64 MiB back down.
    db.pragma('journal_size_limit = 67108864');
  }

  /** Creates the tables of a new file; returns createdAt. */
  private migrate(): number {
    const db = this.db;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === 0) {
      // New file (or one whose creation was interrupted before this transaction committed).
      const createdAt = Date.now();
      // Compaction gives free pages back with incremental_vacuum (see reclaimSpace); the mode
      // must be set before the first table exists.
      db.pragma('auto_vacuum = INCREMENTAL');
      db.transaction(() => {
        db.exec(SCHEMA);
        db.exec(PURGE_SCHEMA);
        db.exec(ATTACHMENT_SCHEMA);
        const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
        for (const key of COUNTERS) put.run(key, 0);
        put.run('created_at', createdAt);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
      return createdAt;
    }
    if (version !== SCHEMA_VERSION) {
      throw new Error(`database ${this.name}: unsupported storage schema version ${version}`);
    }
    db.exec(PURGE_SCHEMA);
    db.exec(ATTACHMENT_SCHEMA);
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('attachments');
    if (!columns.includes('chunks')) db.exec(ATTACHMENT_CHUNKS_COLUMN);
    const createdAt = db.prepare("SELECT value FROM meta WHERE key = 'created_at'").pluck().get();
    return createdAt as number;
  }

  private loadCounters(): Counters {
    const rows = this.db.prepare('SELECT key, value FROM meta').raw().all() as [string, number][];
    const values = new Map(rows);
    const get = (key: string): number => values.get(key) ?? 0;
    return {
      updateSeq: get('update_seq'),
      docCount: get('doc_count'),
      docDelCount: get('doc_del_count'),
      external: get('external'),
      purgeSeq: get('purge_seq'),
    };
  }

  counters(): Pick<DbMeta, 'updateSeq' | 'purgeSeq' | 'docCount' | 'docDelCount'> {
    const c = this.totals;
    return { updateSeq: c.updateSeq, purgeSeq: c.purgeSeq, docCount: c.docCount, docDelCount: c.docDelCount };
  }

  meta(): DbMeta {
    const [pageCount, freePages, pageSize] = this.stmtPages.get() as [number, number, number];
    const c = this.totals;
    return {
      updateSeq: c.updateSeq,
      purgeSeq: c.purgeSeq,
      docCount: c.docCount,
      docDelCount: c.docDelCount,
      sizes: {
        file: fileSize(this.path) + fileSize(`${this.path}-wal`),
        external: c.external,
        active: (pageCount - freePages) * pageSize,
      },
      createdAt: this.createdAt,
    };
  }

  getDoc(id: string): DocRecord | undefined {
    const row = this.stmtGetDoc.get(id) as DocRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  getDocWithBody(id: string): { record: DocRecord; body: string | undefined } | undefined {
    const row = this.stmtGetDocWithBody.get(id) as [...DocRow, body: string | null] | undefined;
    if (row === undefined) return undefined;
    return { record: toRecord(row as unknown as DocRow), body: row[5] ?? undefined };
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
      if (row !== undefined) return toRecord(row);
      // An id with a lone surrogate is bound as U+FFFD, so its row (if any) comes back under
      // another id: only the lookup of that one id finds it.
      return isWellFormed(id) ? undefined : this.getDoc(id);
    });
  }

  getBody(id: string, rev: string): string | undefined {
    return this.stmtGetBody.get(id, rev) as string | undefined;
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
      for (const [id, rev, body] of this.stmtGetBodiesIn.all(params) as [string, string, string][]) {
        found.set(`${rev} ${id}`, body);
      }
    }
    // An id with a lone surrogate is bound as U+FFFD: only its own lookup finds its row.
    return wanted.map(
      ({ id, rev }) => found.get(`${rev} ${id}`) ?? (isWellFormed(id) ? undefined : this.getBody(id, rev)),
    );
  }

  private readonly bodyOf = (id: string, rev: string): string | undefined => this.getBody(id, rev);

  /**
   * The contract's write path, synchronous: the records of `ids` are read, planned over and
   * written in one transaction (this connection is the database's only writer).
   */
  updateDocs<R>(ids: readonly string[], plan: Planner<R>): { result: R; seqs: number[] } {
    const { result, writes, seqs, counters } = this.updateTransaction(ids, plan);
    if (writes.length > 0) this.committed(writes, seqs, counters);
    return { result, seqs };
  }

  writeDocs(writes: readonly DocWrite[]): number[] {
    if (writes.length === 0) return [];
    const { seqs, counters } = this.writeTransaction(writes);
    this.committed(writes, seqs, counters);
    return seqs;
  }

  /** After a commit (a throwing transaction leaves the counters as they were). */
  private committed(writes: readonly DocWrite[], seqs: readonly number[], counters: Counters): void {
    this.totals = counters;
    this.recent.record(
      writes.map(({ record, bodies }, i) => ({
        seq: seqs[i]!,
        id: record.id,
        rev: record.rev,
        deleted: record.deleted,
        body: bodies.find((b) => b.rev === record.rev)?.body,
        tree: record.tree,
      })),
    );
  }

  /** The body of `writeDocs`, run inside its transaction; counters change on a copy. */
  private applyWrites(writes: readonly DocWrite[]): { seqs: number[]; counters: Counters } {
    const c = { ...this.totals };
    const seqs: number[] = [];
    // New documents' rows wait here and go in with multi-row INSERTs (flushed before any
    // statement that could see them): 7 values per docs row, 3 per bodies row.
    const docRows: unknown[] = [];
    const bodyRows: unknown[] = [];
    const flush = (): void => {
      this.insertRows(this.stmtInsertDocs, 'INSERT INTO docs (k, id, seq, rev, deleted, size, tree)', 7, docRows);
      this.insertRows(this.stmtPutBodies, 'INSERT OR REPLACE INTO bodies (doc, rev, body)', 3, bodyRows);
    };
    let nextKey = 0; // read when the first new document needs one
    for (const { record, bodies, dropBodies, isNew } of writes) {
      for (const b of bodies) {
        if (typeof b.body !== 'string') throw new TypeError(`body of ${record.id} ${b.rev} is not a string`);
      }
      const seq = ++c.updateSeq;
      const deleted = record.deleted ? 1 : 0;
      let old: [k: number, deleted: number, size: number] | undefined;
      if (!isNew) {
        flush();
        old = this.stmtOld.get(record.id) as [k: number, deleted: number, size: number] | undefined;
      }
      let size = 0;
      if (old === undefined) {
        if (!record.deleted) size = sizeInBatch(bodies, record.rev) ?? 0;
        if (nextKey === 0) nextKey = ((this.stmtMaxKey.get() as number | null) ?? 0) + 1;
        const k = nextKey++;
        docRows.push(k, record.id, seq, record.rev, deleted, size, record.tree);
        for (const b of bodies) bodyRows.push(k, b.rev, b.body);
      } else {
        const k = old[0];
        for (const b of bodies) this.stmtPutBody.run(k, b.rev, b.body);
        if (dropBodies !== undefined) for (const rev of dropBodies) this.stmtDropBody.run(k, rev);
        if (!record.deleted) {
          size = sizeInBatch(bodies, record.rev) ?? (this.stmtBodySize.get(k, record.rev) as number | undefined) ?? 0;
        }
        this.stmtUpdateDoc.run(seq, record.rev, deleted, size, record.tree, k);
        if (old[1] !== 0) c.docDelCount--;
        else c.docCount--;
        c.external -= old[2];
      }
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
      seqs.push(seq);
    }
    flush();
    this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
    return { seqs, counters: c };
  }

  /** Runs `insert VALUES (...), ...` over `values` (`width` per row) in as few calls as CHUNK_ROWS allow; empties it. */
  private insertRows(statements: Map<number, Statement>, insert: string, width: number, values: unknown[]): void {
    let at = 0;
    for (const rows of CHUNK_ROWS) {
      const n = rows * width;
      if (values.length - at < n) continue;
      let stmt = statements.get(rows);
      if (stmt === undefined) {
        const row = `(${Array(width).fill('?').join(', ')})`;
        stmt = this.db.prepare(`${insert} VALUES ${Array(rows).fill(row).join(', ')}`);
        statements.set(rows, stmt);
      }
      while (values.length - at >= n) {
        stmt.run(at === 0 && values.length === n ? values : values.slice(at, at + n));
        at += n;
      }
    }
    values.length = 0;
  }

  *foldDocs(range: IdRange): Generator<DocRecord> {
    const where = range.includeDeleted === true ? '' : 'deleted = 0';
    for (const row of this.foldRange<DocRow>('docs', DOC_COLUMNS, where, range)) yield toRecord(row);
  }

  *foldDocBodies(range: IdRange): Generator<ChangedDoc> {
    const where = range.includeDeleted === true ? '' : 'deleted = 0';
    const columns = 'd.id, d.seq, d.rev, d.deleted, CASE WHEN d.deleted = 0 THEN b.body END, d.tree';
    const table = 'docs d LEFT JOIN bodies b ON b.doc = d.k AND b.rev = d.rev';
    for (const row of this.foldRange<BodyRow>(table, columns, where, range)) yield toChangedDoc(row);
  }

  countDocs(range: IdRange): number {
    const { where, params } = rangeWhere(range, range.start, range.descending === true ? '<=' : '>=', '');
    if (where === '') return this.totals.docCount + (range.includeDeleted === true ? this.totals.docDelCount : 0);
    const all = this.rangeStatement(`SELECT count(*) FROM docs${where}`).get(...params) as number;
    if (range.includeDeleted === true) return all;
    return all - (this.rangeStatement(`SELECT count(*) FROM docs${where} AND deleted = 1`).get(...params) as number);
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
    for (const rows of pages) for (const row of rows) yield toRecord(row);
  }

  *foldChangedBodies(since: number): Generator<ChangedDoc> {
    let after = since;
    // From memory while the latest writes cover the changes, then from the tables.
    for (;;) {
      const next = this.recent.next(after, this.bodyOf);
      if (next === undefined) break;
      if (next === null) return;
      yield next;
      after = next.seq;
    }
    const pages = keysetPages(
      after,
      bySeq,
      GROWING_PAGES,
      ({ from, limit }) => this.stmtChangedBodies.all(from, limit) as BodyRow[],
    );
    for (const rows of pages) for (const row of rows) yield toChangedDoc(row);
  }

  countChanges(since: number): number {
    if (since <= 0) return this.totals.docCount + this.totals.docDelCount;
    return this.stmtCountChanges.get(since) as number;
  }

  purgeDocs(purges: readonly PurgeWrite[], keepInfos: number): { purgeSeq: number; updateSeq: number } {
    const counters = this.db.transaction(() => this.applyPurges(purges, keepInfos))();
    this.totals = counters;
    // Documents it holds may be gone: the next index update reads the tables.
    this.recent.clear(counters.updateSeq);
    return { purgeSeq: counters.purgeSeq, updateSeq: counters.updateSeq };
  }

  private applyPurges(purges: readonly PurgeWrite[], keepInfos: number): Counters {
    const c = { ...this.totals };
    const db = this.db;
    const before = c.updateSeq;
    const logPurge = db.prepare('INSERT INTO purges (seq, id, revs) VALUES (?, ?, ?)');
    for (const { id, revs, record, dropBodies } of purges) {
      logPurge.run(++c.purgeSeq, id, JSON.stringify(revs));
      if (record === undefined) continue;
      const old = this.stmtOld.get(id) as [k: number, deleted: number, size: number] | undefined;
      if (old === undefined) continue;
      const [k, oldDeleted, oldSize] = old;
      if (oldDeleted !== 0) c.docDelCount--;
      else c.docCount--;
      c.external -= oldSize;
      if (record === null) {
        db.prepare('DELETE FROM bodies WHERE doc = ?').run(k);
        db.prepare('DELETE FROM docs WHERE k = ?').run(k);
        continue;
      }
      for (const rev of dropBodies ?? []) this.stmtDropBody.run(k, rev);
      const size = record.deleted ? 0 : ((this.stmtBodySize.get(k, record.rev) as number | undefined) ?? 0);
      this.stmtUpdateDoc.run(++c.updateSeq, record.rev, record.deleted ? 1 : 0, size, record.tree, k);
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
    }
    // As CouchDB: the update sequence moves even when no document was re-sequenced.
    if (c.updateSeq === before) c.updateSeq++;
    db.prepare('DELETE FROM purges WHERE seq <= ?').run(c.purgeSeq - Math.max(1, keepInfos));
    this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
    return c;
  }

  *foldPurges(since: number): Generator<PurgeInfo> {
    const page = this.db.prepare('SELECT seq, id, revs FROM purges WHERE seq > ? ORDER BY seq LIMIT ?').raw();
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
    return oldest ?? this.totals.purgeSeq + 1;
  }

  compactDocs(writes: readonly CompactWrite[]): void {
    if (writes.length === 0) return;
    this.db.transaction(() => {
      for (const { id, tree, dropBodies } of writes) {
        const old = this.stmtOld.get(id) as [k: number, deleted: number, size: number] | undefined;
        if (old === undefined) continue;
        for (const rev of dropBodies) this.stmtDropBody.run(old[0], rev);
        this.stmtSetTree.run(tree, old[0]);
      }
    })();
  }

  /**
   * Incremental vacuum: free pages move to the end of the file, which is then cut (in WAL mode at
   * the checkpoint, forced once there is nothing left to move). A file made before auto_vacuum
   * was INCREMENTAL (new files are created so) is converted by one VACUUM first: it rewrites the
   * file, which cuts it to its live pages in the same step.
   */
  reclaimSpace(maxPages: number): boolean {
    const db = this.db;
    if ((db.pragma('auto_vacuum', { simple: true }) as number) !== INCREMENTAL) {
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
      this.truncateWal();
      return false;
    }
    const free = db.pragma('freelist_count', { simple: true }) as number;
    if (free > 0) db.pragma(`incremental_vacuum(${Math.max(1, Math.min(free, maxPages))})`);
    if (free > maxPages) return true;
    this.truncateWal();
    return false;
  }

  getLocal(id: string): LocalDoc | undefined {
    const row = this.stmtGetLocal.get(id) as LocalRow | undefined;
    return row === undefined ? undefined : toLocal(row);
  }

  putLocal(doc: LocalDoc): void {
    this.stmtPutLocal.run(doc.id, doc.rev, doc.body);
  }

  deleteLocal(id: string): boolean {
    return this.stmtDeleteLocal.run(id).changes > 0;
  }

  *foldLocal(range: IdRange): Generator<LocalDoc> {
    for (const row of this.foldRange<LocalRow>('local_docs', 'id, rev, body', '', range)) yield toLocal(row);
  }

  getProp(key: string): string | undefined {
    if (this.props.has(key)) return this.props.get(key);
    const value = this.stmtGetProp.get(key) as string | undefined;
    this.props.set(key, value);
    return value;
  }

  setProp(key: string, value: string): void {
    this.stmtSetProp.run(key, value);
    this.props.set(key, value);
  }

  /**
   * Copies the whole WAL into the file and empties it. The checkpoint worker lets go of the file
   * meanwhile: while it runs a checkpoint of its own, this one would be refused (SQLite allows one
   * checkpointer at a time) and the WAL would stay at its size.
   */
  private truncateWal(): void {
    const watch = this.walWatch;
    if (watch !== undefined) watch.checkpointer.unwatch(watch.id);
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      if (watch !== undefined) {
        this.walWatch = { ...watch, id: watch.checkpointer.watch(this.path, watch.synchronous) };
      }
    }
  }

  close(): void {
    if (!this.db.open) return;
    // The worker lets go first, so that this is the last connection: closing the last one
    // checkpoints the WAL into the main file and removes it.
    if (this.walWatch !== undefined) this.walWatch.checkpointer.unwatch(this.walWatch.id);
    this.db.close();
    this.onClose?.(this);
  }

  /**
   * Rows of `table` by id in walk order, a page per query: each page starts after the last id of
   * the one before, so nothing stays open between two yields and concurrent writes are fine.
   * Rows must have the id first.
   */
  private *foldRange<Row extends [string, ...unknown[]]>(
    table: string,
    columns: string,
    filter: string,
    range: IdRange,
  ): Generator<Row> {
    const desc = range.descending === true;
    const pages = keysetPages(
      range.start,
      (row: Row) => row[0],
      GROWING_PAGES,
      ({ from, first, limit }) => {
        const fromOp = desc ? (first ? '<=' : '<') : first ? '>=' : '>';
        const { where, params } = rangeWhere(range, from, fromOp, filter);
        const sql = `SELECT ${columns} FROM ${table}${where} ORDER BY id${desc ? ' DESC' : ''} LIMIT ?`;
        return this.rangeStatement(sql).all(...params, limit) as Row[];
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

/** UTF-8 bytes of `rev`'s body when this write carries it. */
function sizeInBatch(bodies: DocWrite['bodies'], rev: string): number | undefined {
  for (const b of bodies) if (b.rev === rev) return Buffer.byteLength(b.body, 'utf8');
  return undefined;
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

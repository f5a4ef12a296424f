/**
 * One view group's index on disk: a SQLite file per design-doc signature holding a B-tree of
 * rows (with stored reductions) per view, the back-index (doc id → its row keys), and the
 * sequence the index is complete up to. `commit` writes a staged update (./index-update.ts) —
 * row removals and insertions in every view, the back-index and the new sequence — in one
 * transaction, so the index on disk is always the index of some database sequence.
 * An empty index is built differently (`startBuild`): rows sorted externally, trees built
 * bottom-up, the back-index appended in id order, all in one transaction at the end.
 */
import Sqlite from 'better-sqlite3';
import { encodeBackIndex, type BackEntry } from './back-index.js';
import { ExternalSorter } from './btree/run-sort.js';
import { compareKeys } from './btree/index.js';
import type { ViewGroup } from './design.js';
import { rowsOf, type MappedDoc, type RowSink } from './index-rows.js';
import { IndexUpdate } from './index-update.js';
import type { RowTree, RowValue } from './row-tree.js';

/** A row tree that can also be filled in one go from sorted, encoded rows (an index build). */
export interface BuildableRowTree extends RowTree {
  /** The bytes `bulkLoad` takes for a row value. */
  encodeValue(value: RowValue): Uint8Array;
  /**
   * Replaces every row by the given ones, in ascending key order (equal keys: the last wins).
   * `cacheLeaves`: keep the written rows in the tree's node cache (the caller knows they fit).
   */
  bulkLoad(rows: Iterable<readonly [key: Buffer, value: Buffer]>, options?: { cacheLeaves?: boolean }): void;
}

export type TreeFactory = (sql: Sqlite.Database, view: number) => BuildableRowTree;

/** Rows of a build kept in memory before a sorted run goes to a temporary file, per sorter (three of them for two views: 4 MB each kept the 1M-doc build under 300 MB RSS, 8 MB did not always). */
const BUILD_MEMORY_BYTES = 4 * 1024 * 1024;
/**
 * A view whose built rows take at most this many bytes stays in its tree's node cache after the
 * build (within the cache's own node budget), so the first updates and queries start warm.
 * Measured on the bench's 100k-doc views (by_author_date ~14 MB of rows, count_by_author
 * ~6 MB): the second update of 1% ~7 ms faster server-side, most of its leaves being still cold
 * otherwise. A bigger view is not cached: a few MB of its lowest keys would help little, and
 * count against a big build's memory.
 */
const CACHED_BUILD_BYTES = 16 * 1024 * 1024;
/** Doc ids per back-index SELECT of an update. */
const BACK_IDS_PER_SELECT = 500;
/** Back-index rows per INSERT statement of a build. */
const BACK_ROWS_PER_INSERT = 128;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS back_index (id TEXT PRIMARY KEY, rows BLOB NOT NULL) WITHOUT ROWID;
`;

export class ViewIndex {
  readonly trees: BuildableRowTree[];
  private seq: number;
  private readonly getBack: Sqlite.Statement;
  private readonly putBack: Sqlite.Statement;
  private readonly deleteBack: Sqlite.Statement;
  private readonly putMeta: Sqlite.Statement;
  private readonly commitTransaction: (update: IndexUpdate, seq: number) => void;

  constructor(
    readonly group: ViewGroup,
    readonly file: string,
    makeTree: TreeFactory,
  ) {
    const sql = new Sqlite(file);
    this.sql = sql;
    // The index can always be rebuilt from the database: no need to sync every commit.
    sql.pragma('journal_mode = WAL');
    sql.pragma('synchronous = OFF');
    // Checkpoint every ~16 MiB of WAL (4096 pages of 4 KiB, as the database files) rather than
    // SQLite's 4 MiB: an update of 1% of a 100k-doc index writes ~5 MB of WAL, so the default
    // checkpointed after every update; less often, pages rewritten by several updates (inner
    // nodes, SQLite's own interior pages) are copied once (~2 ms less CPU per update on average).
    sql.pragma('wal_autocheckpoint = 4096');
    sql.pragma('journal_size_limit = 67108864');
    sql.exec(SCHEMA);
    this.getBack = sql.prepare('SELECT rows FROM back_index WHERE id = ?').pluck();
    this.putBack = sql.prepare('INSERT OR REPLACE INTO back_index (id, rows) VALUES (?, ?)');
    this.deleteBack = sql.prepare('DELETE FROM back_index WHERE id = ?');
    this.putMeta = sql.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    const signature = sql.prepare("SELECT value FROM meta WHERE key = 'signature'").pluck().get() as string | undefined;
    if (signature !== undefined && signature !== group.signature) {
      throw new Error(`index file ${file} belongs to signature ${signature}, not ${group.signature}`);
    }
    this.putMeta.run('signature', group.signature);
    this.seq = Number(sql.prepare("SELECT value FROM meta WHERE key = 'update_seq'").pluck().get() ?? 0);
    // Back-index format 2 (./back-index.ts) for indexes started since it exists.
    const format = sql.prepare("SELECT value FROM meta WHERE key = 'back_format'").pluck().get() as string | undefined;
    if (format === undefined && this.seq === 0) this.putMeta.run('back_format', '2');
    this.backFormat = format === '2' || (format === undefined && this.seq === 0) ? 2 : 1;
    const changed = sql.prepare("SELECT value FROM meta WHERE key = 'changed_seqs'").pluck().get() as string | undefined;
    this.changedSeqs = changed === undefined ? group.views.map(() => 0) : (JSON.parse(changed) as number[]);
    this.trees = group.views.map((_, view) => makeTree(sql, view));
    this.commitTransaction = sql.transaction((update: IndexUpdate, seq: number) => this.commitNow(update, seq));
  }

  private readonly sql: Sqlite.Database;
  private readonly getBacks = new Map<number, Sqlite.Statement>();
  private readonly backFormat: 1 | 2;
  /** Per view, the sequence of the last batch that changed its rows (its ETag moves with it). */
  private changedSeqs: number[];

  /** The database sequence this index is complete up to. */
  get updateSeq(): number {
    return this.seq;
  }

  /** The sequence at which a view's rows last changed. */
  changedSeq(view: number): number {
    return this.changedSeqs[view] ?? 0;
  }

  /** Bytes of the index file (for `_info` sizes). */
  fileSize(): number {
    const pages = this.sql.pragma('page_count', { simple: true }) as number;
    const size = this.sql.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  /** An empty update, to stage mapped documents in (see ./index-update.ts). */
  startUpdate(): IndexUpdate {
    return new IndexUpdate(this.group.views, (docs) => this.readBack(docs), this.backFormat);
  }

  /** Stages and commits mapped documents (each id once) in one go. */
  apply(docs: readonly MappedDoc[], seq: number): void {
    const update = this.startUpdate();
    update.add(docs);
    this.commit(update, seq);
  }

  /** Writes a staged update and the sequence it brings the index to, atomically. */
  commit(update: IndexUpdate, seq: number): void {
    try {
      this.commitTransaction(update, seq);
    } catch (error) {
      // The transaction rolled back: trees that applied their part must forget it.
      for (const tree of this.trees) tree.invalidate();
      throw error;
    }
    this.seq = seq;
  }

  private commitNow(update: IndexUpdate, seq: number): void {
    for (const [id, bytes] of update.backWrites) {
      if (bytes === undefined) this.deleteBack.run(id);
      else this.putBack.run(id, bytes);
    }
    const changedSeqs = [...this.changedSeqs];
    this.trees.forEach((tree, view) => {
      const inserts = update.inserts[view];
      const removes = update.removes[view];
      if (inserts.length === 0 && removes.length === 0) return;
      tree.update(inserts, removes);
      changedSeqs[view] = seq;
    });
    this.putMeta.run('update_seq', String(seq));
    this.putMeta.run('changed_seqs', JSON.stringify(changedSeqs));
    this.changedSeqs = changedSeqs;
  }

  /** The back-index entries of these docs, by id: in statements of up to BACK_IDS_PER_SELECT ids. */
  private readBack(docs: readonly { id: string }[]): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    if (docs.length === 1) {
      const old = this.getBack.get(docs[0].id) as Uint8Array | undefined;
      if (old !== undefined) out.set(docs[0].id, old);
      return out;
    }
    for (let from = 0; from < docs.length; from += BACK_IDS_PER_SELECT) {
      const n = Math.min(BACK_IDS_PER_SELECT, docs.length - from);
      let stmt = this.getBacks.get(n);
      if (stmt === undefined) {
        stmt = this.sql.prepare(`SELECT id, rows FROM back_index WHERE id IN (${Array(n).fill('?').join(', ')})`).raw();
        // Statements for odd sizes are used once: keep only the full-size one.
        if (n === BACK_IDS_PER_SELECT) this.getBacks.set(n, stmt);
      }
      const ids: string[] = new Array(n);
      for (let k = 0; k < n; k++) ids[k] = docs[from + k].id;
      for (const [id, rows] of stmt.all(ids) as [string, Uint8Array][]) out.set(id, rows);
    }
    return out;
  }

  /**
   * A build of this index from empty (undefined unless it is empty): the caller adds every
   * mapped document once, then `finish` writes all rows, the back-index and the sequence in one
   * transaction; until then the index stays as it is (empty). Rows are sorted on the way (in
   * memory, or in runs in temporary files next to the index when there are many), so each tree
   * is built bottom-up in one pass and nothing is read back.
   */
  startBuild(): IndexBuild | undefined {
    if (this.seq !== 0 || this.backFormat !== 2) return undefined;
    return new IndexBuild(this, (doc, out) => rowsOf(this.group.views, doc, out), (seq, rows, back) => this.finishBuild(seq, rows, back));
  }

  private finishBuild(seq: number, rows: readonly ExternalSorter[], back: ExternalSorter): void {
    const run = this.sql.transaction(() => {
      this.sql.exec('DELETE FROM back_index');
      const statements = new Map<number, Sqlite.Statement>();
      const insert = (params: unknown[]): void => {
        const n = params.length / 2;
        let stmt = statements.get(n);
        if (stmt === undefined) {
          stmt = this.sql.prepare(`INSERT INTO back_index (id, rows) VALUES ${Array(n).fill('(?, ?)').join(', ')}`);
          statements.set(n, stmt);
        }
        stmt.run(params);
      };
      // Sorted by id bytes, which is SQLite's order of the ids: appends. A doc id twice means
      // the changes were not one entry per doc: the build is not valid.
      let params: unknown[] = [];
      let last: Buffer | undefined;
      for (const [id, entries] of back.sorted()) {
        if (last !== undefined && compareKeys(last, id) === 0) throw new DuplicateInBuild(id.toString('utf8'));
        last = id;
        params.push(id.toString('utf8'), entries);
        if (params.length === 2 * BACK_ROWS_PER_INSERT) {
          insert(params);
          params = [];
        }
      }
      if (params.length > 0) insert(params);
      const changedSeqs = [...this.changedSeqs];
      this.trees.forEach((tree, view) => {
        if (rows[view].size === 0 && tree.total() === 0) return;
        tree.bulkLoad(rows[view].sorted(), { cacheLeaves: rows[view].bytes <= CACHED_BUILD_BYTES });
        changedSeqs[view] = seq;
      });
      this.putMeta.run('update_seq', String(seq));
      this.putMeta.run('changed_seqs', JSON.stringify(changedSeqs));
      return changedSeqs;
    });
    try {
      this.changedSeqs = run();
    } catch (error) {
      for (const tree of this.trees) tree.invalidate();
      throw error;
    }
    this.seq = seq;
  }

  close(): void {
    if (this.sql.open) this.sql.close();
  }
}

/** A build from empty saw a document twice (see `ViewIndex.startBuild`): apply incrementally instead. */
export class DuplicateInBuild extends Error {
  constructor(readonly docId: string) {
    super(`index build saw document ${docId} twice`);
  }
}

/** See `ViewIndex.startBuild`. */
export class IndexBuild {
  private readonly rows: ExternalSorter[];
  private readonly back: ExternalSorter;
  private readonly trees: readonly BuildableRowTree[];

  constructor(
    index: ViewIndex,
    private readonly rowsOf: (doc: MappedDoc, out: RowSink) => BackEntry[],
    private readonly write: (seq: number, rows: readonly ExternalSorter[], back: ExternalSorter) => void,
  ) {
    this.trees = index.trees;
    this.rows = index.trees.map((_, view) => new ExternalSorter({ file: `${index.file}.build-${view}.tmp`, memoryBytes: BUILD_MEMORY_BYTES }));
    this.back = new ExternalSorter({ file: `${index.file}.build-back.tmp`, memoryBytes: BUILD_MEMORY_BYTES });
  }

  /** Adds mapped documents (each document once in the whole build). */
  add(docs: readonly MappedDoc[]): void {
    const rows = this.rows;
    const trees = this.trees;
    const out = (view: number, key: Buffer, value: RowValue): void => rows[view].add(key, trees[view].encodeValue(value));
    for (const doc of docs) {
      const back = this.rowsOf(doc, out);
      if (back.length > 0) this.back.add(Buffer.from(doc.id), encodeBackIndex(back, 2));
    }
  }

  /** Writes everything added, and `seq` as the index's sequence, in one transaction. */
  finish(seq: number): void {
    this.write(seq, this.rows, this.back);
  }

  /** Removes the temporary files (after `finish`, or instead of it). */
  dispose(): void {
    for (const sorter of this.rows) sorter.dispose();
    this.back.dispose();
  }
}


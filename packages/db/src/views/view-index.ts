/**
 * One view group's index on disk: a SQLite file per design-doc signature holding a B-tree of
 * rows (with stored reductions) per view, the back-index (doc id → its row keys), and the
 * sequence the index is complete up to. `apply` writes one batch of mapped changes — row
 * removals and insertions in every view, the back-index and the new sequence — in one
 * transaction, so the index on disk is always the index of some database sequence. Rows a
 * document emits again unchanged are not touched (./back-index.ts keeps small rows' JSON).
 * An empty index is built differently (`startBuild`): rows sorted externally, trees built
 * bottom-up, the back-index appended in id order, all in one transaction at the end.
 */
import Sqlite from 'better-sqlite3';
import { encodeRowKey } from './collation/index.js';
import { SMALL_ROW, decodeBackIndex, encodeBackIndex, type BackEntry } from './back-index.js';
import { ExternalSorter } from './btree/run-sort.js';
import { compareKeys } from './btree/index.js';
import type { ViewGroup } from './design.js';
import type { RowEntry, RowTree, RowValue } from './row-tree.js';

/** What the map step produced for one changed document: rows per view, or none (deleted). */
export interface MappedDoc {
  id: string;
  /** `rows[view]` = the `[key, value]` pairs emitted; undefined when the doc has no rows any more. */
  rows: ReadonlyArray<ReadonlyArray<readonly [unknown, unknown]>> | undefined;
}

/** A row tree that can also be filled in one go from sorted, encoded rows (an index build). */
export interface BuildableRowTree extends RowTree {
  /** The bytes `bulkLoad` takes for a row value. */
  encodeValue(value: RowValue): Uint8Array;
  /** Replaces every row by the given ones, in ascending key order (equal keys: the last wins). */
  bulkLoad(rows: Iterable<readonly [key: Buffer, value: Buffer]>): void;
}

export type TreeFactory = (sql: Sqlite.Database, view: number) => BuildableRowTree;

/** Rows of a build kept in memory before a sorted run goes to a temporary file, per sorter (three of them for two views: 4 MB each kept the 1M-doc build under 300 MB RSS, 8 MB did not always). */
const BUILD_MEMORY_BYTES = 4 * 1024 * 1024;
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
  private readonly applyTransaction: (docs: readonly MappedDoc[], seq: number) => void;

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
    this.applyTransaction = sql.transaction((docs: readonly MappedDoc[], seq: number) => this.applyNow(docs, seq));
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

  /** Writes one batch of mapped changes and the sequence they bring the index to, atomically. */
  apply(docs: readonly MappedDoc[], seq: number): void {
    try {
      this.applyTransaction(docs, seq);
    } catch (error) {
      // The transaction rolled back: trees that applied their part must forget it.
      for (const tree of this.trees) tree.invalidate();
      throw error;
    }
    this.seq = seq;
  }

  private applyNow(docs: readonly MappedDoc[], seq: number): void {
    const views = this.group.views;
    const inserts: RowEntry[][] = views.map(() => []);
    const removes: Buffer[][] = views.map(() => []);
    const format = this.backFormat;
    const olds = this.readBack(docs);
    for (const doc of docs) {
      const old = olds.get(doc.id);
      const before = old === undefined ? NO_ROWS : decodeBackIndex(old, format);
      // Rows of `before` found again (same view and row key): unchanged ones are left alone,
      // changed ones are replaced by their insert; the others are removed.
      const found = before.length === 0 ? undefined : new Uint8Array(before.length);
      let unchanged = 0;
      const back = this.rowsOf(doc, (view, key, value) => {
        if (found !== undefined) {
          const k = findRow(before, found, view, key);
          if (k >= 0) {
            found[k] = 1;
            const [, , keyJson, valueJson] = before[k];
            if (keyJson === value[0] && valueJson === value[2]) {
              unchanged++;
              return;
            }
          }
        }
        inserts[view].push({ key, value });
      });
      if (found !== undefined) {
        for (let k = 0; k < before.length; k++) if (found[k] === 0) removes[before[k][0]]?.push(before[k][1]);
      }
      if (back.length > 0) {
        // Same rows (or same keys, with values too big to keep here): nothing to write.
        if (unchanged === back.length && back.length === before.length) continue;
        const bytes = encodeBackIndex(back, format);
        if (old === undefined || !bytes.equals(old)) this.putBack.run(doc.id, bytes);
      } else if (old !== undefined) this.deleteBack.run(doc.id);
    }
    const changedSeqs = [...this.changedSeqs];
    this.trees.forEach((tree, view) => {
      if (inserts[view].length === 0 && removes[view].length === 0) return;
      tree.update(inserts[view], removes[view]);
      changedSeqs[view] = seq;
    });
    this.putMeta.run('update_seq', String(seq));
    this.putMeta.run('changed_seqs', JSON.stringify(changedSeqs));
    this.changedSeqs = changedSeqs;
  }

  /** The back-index entries of these docs, by id: in statements of up to BACK_IDS_PER_SELECT ids. */
  private readBack(docs: readonly MappedDoc[]): Map<string, Uint8Array> {
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

  /** Calls `out` for each row of a mapped doc (with its row key); returns its back-index entries. */
  private rowsOf(doc: MappedDoc, out: (view: number, key: Buffer, value: RowValue) => void): BackEntry[] {
    const back: BackEntry[] = [];
    const all = doc.rows;
    if (all === undefined) return back;
    const views = this.group.views;
    for (let view = 0; view < all.length; view++) {
      const rows = all[view];
      if (rows === undefined || rows.length === 0) continue;
      const raw = views[view].raw;
      // A document may emit the same key twice: the later rows get a suffix that keeps
      // them distinct and in emit order (never 0xFF, which range bounds rely on).
      let seen: Set<string> | undefined;
      for (let n = 0; n < rows.length; n++) {
        const [key, value] = rows[n];
        let rowKey = encodeRowKey(key, doc.id, raw);
        if (rows.length > 1) {
          seen ??= new Set();
          const bytes = rowKey.toString('latin1');
          if (seen.has(bytes)) rowKey = Buffer.concat([rowKey, duplicateSuffix(n)]);
          else seen.add(bytes);
        }
        const keyJson = JSON.stringify(key);
        const valueJson = JSON.stringify(value ?? null);
        out(view, rowKey, [keyJson, doc.id, valueJson]);
        back.push(keyJson.length + valueJson.length <= SMALL_ROW ? [view, rowKey, keyJson, valueJson] : [view, rowKey]);
      }
    }
    return back;
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
    return new IndexBuild(this, (doc, out) => this.rowsOf(doc, out), (seq, rows, back) => this.finishBuild(seq, rows, back));
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
        tree.bulkLoad(rows[view].sorted());
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

const NO_ROWS: BackEntry[] = [];

/** The first row of `rows` not yet `found` with this view and row key, or -1. */
function findRow(rows: readonly BackEntry[], found: Uint8Array, view: number, key: Buffer): number {
  if (rows.length > 16) return findRowIndexed(rows, found, view, key);
  for (let k = 0; k < rows.length; k++) {
    if (found[k] === 0 && rows[k][0] === view && rows[k][1].equals(key)) return k;
  }
  return -1;
}

/** findRow for documents with many rows: through a map built once per row list. */
const rowMaps = new WeakMap<readonly BackEntry[], Map<string, number[]>>();
function findRowIndexed(rows: readonly BackEntry[], found: Uint8Array, view: number, key: Buffer): number {
  let map = rowMaps.get(rows);
  if (map === undefined) {
    map = new Map();
    rows.forEach(([v, k], i) => {
      const name = `${v}:${k.toString('latin1')}`;
      const list = map!.get(name);
      if (list === undefined) map!.set(name, [i]);
      else list.push(i);
    });
    rowMaps.set(rows, map);
  }
  for (const k of map.get(`${view}:${key.toString('latin1')}`) ?? []) if (found[k] === 0) return k;
  return -1;
}

/** 0x01 then the emit index as a u32: orders duplicates by emit, never starts with 0xFF. */
function duplicateSuffix(n: number): Buffer {
  const suffix = Buffer.allocUnsafe(5);
  suffix[0] = 0x01;
  suffix.writeUInt32BE(n, 1);
  return suffix;
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
    private readonly rowsOf: (doc: MappedDoc, out: (view: number, key: Buffer, value: RowValue) => void) => BackEntry[],
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


/**
 * One view group's index on disk: a SQLite file per design-doc signature holding a B-tree of
 * rows (with stored reductions) per view, the back-index (doc id → its row keys), and the
 * sequence the index is complete up to. `apply` writes one batch of mapped changes — row
 * removals and insertions in every view, the back-index and the new sequence — in one
 * transaction, so the index on disk is always the index of some database sequence.
 */
import Sqlite from 'better-sqlite3';
import { encodeRowKey } from './collation/index.js';
import { decodeBackIndex, encodeBackIndex, type BackEntry } from './back-index.js';
import type { ViewGroup } from './design.js';
import type { RowEntry, RowTree } from './row-tree.js';

/** What the map step produced for one changed document: rows per view, or none (deleted). */
export interface MappedDoc {
  id: string;
  /** `rows[view]` = the `[key, value]` pairs emitted; undefined when the doc has no rows any more. */
  rows: ReadonlyArray<ReadonlyArray<readonly [unknown, unknown]>> | undefined;
}

export type TreeFactory = (sql: Sqlite.Database, view: number) => RowTree;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS back_index (id TEXT PRIMARY KEY, rows BLOB NOT NULL) WITHOUT ROWID;
`;

export class ViewIndex {
  readonly trees: RowTree[];
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
    const changed = sql.prepare("SELECT value FROM meta WHERE key = 'changed_seqs'").pluck().get() as string | undefined;
    this.changedSeqs = changed === undefined ? group.views.map(() => 0) : (JSON.parse(changed) as number[]);
    this.trees = group.views.map((_, view) => makeTree(sql, view));
    this.applyTransaction = sql.transaction((docs: readonly MappedDoc[], seq: number) => this.applyNow(docs, seq));
  }

  private readonly sql: Sqlite.Database;
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
    for (const doc of docs) {
      const old = this.getBack.get(doc.id) as Uint8Array | undefined;
      if (old !== undefined) for (const [view, key] of decodeBackIndex(old)) removes[view]?.push(key);
      const back: BackEntry[] = [];
      doc.rows?.forEach((rows, view) => {
        if (rows.length === 0) return;
        const raw = views[view].raw;
        // A document may emit the same key twice: the later rows get a suffix that keeps
        // them distinct and in emit order (never 0xFF, which range bounds rely on).
        let seen: Set<string> | undefined;
        rows.forEach(([key, value], n) => {
          let rowKey = encodeRowKey(key, doc.id, raw);
          if (rows.length > 1) {
            seen ??= new Set();
            const bytes = rowKey.toString('latin1');
            if (seen.has(bytes)) rowKey = Buffer.concat([rowKey, duplicateSuffix(n)]);
            else seen.add(bytes);
          }
          inserts[view].push({ key: rowKey, value: [JSON.stringify(key), doc.id, JSON.stringify(value ?? null)] });
          back.push([view, rowKey]);
        });
      });
      if (back.length > 0) this.putBack.run(doc.id, encodeBackIndex(back));
      else if (old !== undefined) this.deleteBack.run(doc.id);
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

  close(): void {
    if (this.sql.open) this.sql.close();
  }
}

/** 0x01 then the emit index as a u32: orders duplicates by emit, never starts with 0xFF. */
function duplicateSuffix(n: number): Buffer {
  const suffix = Buffer.allocUnsafe(5);
  suffix[0] = 0x01;
  suffix.writeUInt32BE(n, 1);
  return suffix;
}

/**
 * The SQLite engine's `tree_chunks`: where long one-line revision histories are kept so that a
 * write appends to them (what to store: ../tree-chunks.ts). Chunks are keyed by the document's
 * integer key `k`, named in its head.
 */
import type Database from 'better-sqlite3';
import type { TreeGrowth } from '../records.js';
import { isHead, joinChunks, parseHead, planStoredTree } from '../tree-chunks.js';

/** Documents whose text is kept with their head (the documents just written: the next update reads it again). */
const KEPT_TEXTS = 32;

export const TREE_CHUNKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS tree_chunks (
  doc INTEGER NOT NULL,
  n INTEGER NOT NULL,
  nodes TEXT NOT NULL,
  PRIMARY KEY (doc, n)
) WITHOUT ROWID;
`;

export class TreeChunks {
  private readonly stmtRead: Database.Statement;
  private readonly stmtPut: Database.Statement;
  private readonly stmtDropRange: Database.Statement;
  private readonly stmtDropAll: Database.Statement;
  /** The text of a chunked tree by document, with the head it belongs to, for the last KEPT_TEXTS written (oldest first). */
  private readonly kept = new Map<number, { head: string; text: string }>();

  constructor(db: Database.Database) {
    this.stmtRead = db.prepare('SELECT nodes FROM tree_chunks WHERE doc = ? AND n >= ? AND n < ? ORDER BY n').pluck();
    this.stmtPut = db.prepare('INSERT INTO tree_chunks (doc, n, nodes) VALUES (?, ?, ?)');
    this.stmtDropRange = db.prepare('DELETE FROM tree_chunks WHERE doc = ? AND n >= ? AND n < ?');
    this.stmtDropAll = db.prepare('DELETE FROM tree_chunks WHERE doc = ?');
  }

  /** The tree text a stored `docs.tree` value stands for. */
  text(stored: string): string {
    if (!isHead(stored)) return stored;
    const head = parseHead(stored);
    const kept = this.kept.get(head.k);
    if (kept !== undefined && kept.head === stored) return kept.text;
    const chunks = this.stmtRead.all(head.k, head.first, head.first + head.count) as string[];
    if (chunks.length !== head.count) throw new Error(`tree_chunks: document ${head.k} lacks chunks of its tree`);
    return joinChunks(head, chunks);
  }

  /**
   * The value to store in `docs.tree` of document `k` for the tree `text`, its chunks written:
   * `old` is the value stored now (undefined for a new row), `growth` what the planner says the
   * write did to the tree.
   */
  store(k: number, text: string, old: string | undefined, growth: TreeGrowth | undefined): string {
    this.kept.delete(k);
    const { stored, dropAll, drop, puts } = planStoredTree(k, text, old, growth);
    if (dropAll) this.stmtDropAll.run(k);
    if (drop !== undefined) this.stmtDropRange.run(k, drop[0], drop[1]);
    for (const { n, nodes } of puts) this.stmtPut.run(k, n, nodes);
    // Kept for the next read (a transaction that fails leaves the old head stored, which this one is not).
    if (stored !== text) {
      this.kept.set(k, { head: stored, text });
      if (this.kept.size > KEPT_TEXTS) this.kept.delete(this.kept.keys().next().value!);
    }
    return stored;
  }

  /** Drops the chunks of a document whose row goes. */
  drop(k: number): void {
    this.kept.delete(k);
    this.stmtDropAll.run(k);
  }
}

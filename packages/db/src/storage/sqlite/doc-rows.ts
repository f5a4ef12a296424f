/**
 * The SQLite engine's rows of `docs` and `local_docs` (./schema.ts) as the statements give them
 * (raw arrays), and the records they become; the counters the file keeps in `meta`.
 */
import type { ChangedDoc, DocRecord, LocalDoc } from '../records.js';
import type { TreeChunks } from './tree-chunks.js';

/** The counters stored in `meta` (./schema.ts `COUNTERS`), kept in memory by the file's one writer. */
export interface StoredCounters {
  updateSeq: number;
  docCount: number;
  docDelCount: number;
  external: number;
  purgeSeq: number;
  /**
   * Bytes of stored bodies of revisions that are not leaves (what compaction drops); undefined
   * in a file from before it was kept, until `SqliteDatabase.countStaleBodies`.
   */
  stale: number | undefined;
}

export type DocRow = [id: string, seq: number, rev: string, deleted: number, tree: string];
export type LocalRow = [id: string, rev: string, body: string];
/** A record with its winner's body (NULL for a deleted winner), the tree last. */
export type BodyRow = [id: string, seq: number, rev: string, deleted: number, body: string | null, tree: string];
/** What a write needs of a document's current row: its key, deleted flag, counted body size, stored tree and winner. */
export type OldRow = [k: number, deleted: number, size: number, tree: string, rev: string];

export const DOC_COLUMNS = 'id, seq, rev, deleted, tree';
/**
 * A record's columns and what a write needs of the row it replaces (an OldRow, and the access
 * an access-enabled database's write reads: ./access-rows.ts), in one read.
 */
export type UpdateRow = [...DocRow, k: number, size: number, access: string | null];
export const UPDATE_COLUMNS = `${DOC_COLUMNS}, k, size, access`;

/** The record of a row; `trees` gives the text of a tree stored in chunks (./tree-chunks.ts). */
export function toRecord(row: DocRow, trees: TreeChunks): DocRecord {
  return { id: row[0], seq: row[1], rev: row[2], deleted: row[3] !== 0, tree: trees.text(row[4]) };
}

export function toChangedDoc([id, seq, rev, deleted, body, tree]: BodyRow, trees: TreeChunks): ChangedDoc {
  return { id, seq, rev, deleted: deleted !== 0, body: body ?? undefined, tree: trees.text(tree) };
}

export function toLocal(row: LocalRow): LocalDoc {
  return { id: row[0], rev: row[1], body: row[2] };
}

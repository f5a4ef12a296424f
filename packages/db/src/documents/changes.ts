/**
 * The changes feed: one row per document at its latest sequence, as JSON text, oldest first (or
 * newest first). Filters (`_doc_ids`, `_design`) are predicates on the record.
 */
import { parseRev } from '../revisions/index.js';
import type { DocRecord } from '../storage/engine.js';
import type { Database } from './database.js';

export interface ChangesOptions {
  since: number;
  descending: boolean;
  limit?: number;
  includeDocs: boolean;
  conflicts: boolean;
  /** `style=all_docs`: every leaf, not only the winner. */
  allLeaves: boolean;
  filter?: (record: DocRecord) => boolean;
  /**
   * `filter=_doc_ids`: how many times each wanted id was named. CouchDB looks each one up, so an
   * id named twice gives its row twice.
   */
  docIds?: ReadonlyMap<string, number>;
}

export interface ChangeRow {
  seq: number;
  json: string;
}

export function* changeRows(db: Database, options: ChangesOptions): Generator<ChangeRow> {
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for (const record of db.store.foldChanges(options.since, options.descending)) {
    if (options.filter !== undefined && !options.filter(record)) continue;
    const times = options.docIds === undefined ? 1 : (options.docIds.get(record.id) ?? 0);
    if (times === 0) continue;
    const row = { seq: record.seq, json: changeRow(db, record, options) };
    for (let i = 0; i < times; i++) {
      yield row;
      if (--left <= 0) return;
    }
  }
}

function changeRow(db: Database, record: DocRecord, options: ChangesOptions): string {
  let row = `{"seq":${record.seq},"id":${JSON.stringify(record.id)},"changes":${JSON.stringify(db.changeRevs(record, options.allLeaves))}`;
  if (record.deleted) row += ',"deleted":true';
  if (options.includeDocs) row += `,"doc":${changeDoc(db, record, options.conflicts)}`;
  return `${row}}`;
}

/** A deleted document's row carries its tombstone (`{_id, _rev, _deleted: true}` and kept members). */
function changeDoc(db: Database, record: DocRecord, conflicts: boolean): string {
  if (!record.deleted) return db.winningDoc(record, conflicts) ?? 'null';
  try {
    return db.openDoc(record.id, { rev: parseRev(record.rev) }).json;
  } catch {
    return 'null';
  }
}

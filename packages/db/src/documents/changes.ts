/**
 * The changes feed: one row per document at its latest sequence, as JSON text, oldest first (or
 * newest first). Filters (`_doc_ids`, `_design`) are predicates on the record.
 */
import { parseRev } from '../revisions/index.js';
import type { DocRecord } from '../storage/contract.js';
import { attachmentViewOf } from './all-docs.js';
import type { Database } from './database.js';

export interface ChangesOptions {
  since: number;
  descending: boolean;
  limit?: number;
  includeDocs: boolean;
  conflicts: boolean;
  /** With `includeDocs`: inline attachment data (`attachments=true`). */
  attachments?: boolean;
  /** With `includeDocs`: `att_encoding_info=true`. */
  attEncodingInfo?: boolean;
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

export async function* changeRows(db: Database, options: ChangesOptions): AsyncGenerator<ChangeRow> {
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const page of db.store.foldChanges(options.since, options.descending)) {
    for (const record of page) {
      if (options.filter !== undefined && !options.filter(record)) continue;
      const times = options.docIds === undefined ? 1 : (options.docIds.get(record.id) ?? 0);
      if (times === 0) continue;
      const row = { seq: record.seq, json: await changeRow(db, record, options) };
      for (let i = 0; i < times; i++) {
        yield row;
        if (--left <= 0) return;
      }
    }
  }
}

async function changeRow(db: Database, record: DocRecord, options: ChangesOptions): Promise<string> {
  let row = `{"seq":${record.seq},"id":${JSON.stringify(record.id)},"changes":${JSON.stringify(db.changeRevs(record, options.allLeaves))}`;
  if (record.deleted) row += ',"deleted":true';
  if (options.includeDocs) row += `,"doc":${await changeDoc(db, record, options)}`;
  return `${row}}`;
}

/** A deleted document's row carries its tombstone (`{_id, _rev, _deleted: true}` and kept members). */
async function changeDoc(db: Database, record: DocRecord, options: ChangesOptions): Promise<string> {
  if (!record.deleted) return (await db.winningDoc(record, options.conflicts, attachmentViewOf(options))) ?? 'null';
  try {
    const { attachments, attEncodingInfo } = options;
    return (await db.openDoc(record.id, { rev: parseRev(record.rev), attachments, attEncodingInfo })).json;
  } catch {
    return 'null';
  }
}

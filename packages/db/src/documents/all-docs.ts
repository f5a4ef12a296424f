/**
 * `_all_docs`, `_design_docs` and `_local_docs`: rows by id in raw order, or one row per requested
 * key. Rows come out as JSON text, one at a time, so the HTTP layer can stream them.
 */
import type { DocRecord, IdRange } from '../storage/engine.js';
import type { Database } from './database.js';
import { DESIGN_PREFIX, LOCAL_PREFIX } from './doc-id.js';
import { compareIds } from './id-order.js';

export type IdSpace = 'all' | 'design' | 'local';

export interface AllDocsOptions {
  keys?: readonly unknown[];
  startkey?: unknown;
  endkey?: unknown;
  startkeyDocid?: string;
  endkeyDocid?: string;
  inclusiveEnd: boolean;
  descending: boolean;
  limit?: number;
  skip: number;
  includeDocs: boolean;
  conflicts: boolean;
  updateSeq?: boolean;
}

export interface AllDocsResult {
  totalRows: number | null;
  offset: number | null;
  rows: Iterable<string>;
}

export function allDocs(db: Database, space: IdSpace, options: AllDocsOptions): AllDocsResult {
  if (space === 'local') return localDocs(db, options);
  const totalRows = space === 'design' ? countDesign(db) : db.meta().docCount;
  if (options.keys !== undefined) {
    return { totalRows, offset: null, rows: keyRows(db, options.keys, options) };
  }
  const range = rangeOf(space, options);
  if (range === null) return { totalRows, offset: totalRows === null ? null : 0, rows: [] };
  const offset = space === 'design' ? totalRows : db.store.countDocs(rangeBefore(range)) + options.skip;
  return { totalRows, offset, rows: rangeRows(db, range, options) };
}

function* rangeRows(db: Database, range: IdRange, options: AllDocsOptions): Generator<string> {
  let skip = options.skip;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for (const record of db.store.foldDocs(range)) {
    if (skip > 0) {
      skip--;
      continue;
    }
    yield rowOf(db, record, record.id, options);
    if (--left <= 0) return;
  }
}

function* keyRows(db: Database, keys: readonly unknown[], options: AllDocsOptions): Generator<string> {
  const ordered = options.descending ? [...keys].reverse() : keys;
  const selected = ordered.slice(options.skip, options.limit === undefined ? undefined : options.skip + options.limit);
  const ids = selected.filter((key): key is string => typeof key === 'string');
  const records = new Map<string, DocRecord | undefined>();
  const found = db.store.getDocs(ids);
  ids.forEach((id, i) => records.set(id, found[i]));
  for (const key of selected) {
    const record = typeof key === 'string' ? records.get(key) : undefined;
    if (record === undefined) {
      yield `{"key":${JSON.stringify(key)},"error":"not_found"}`;
    } else if (record.deleted) {
      const value = `{"rev":${JSON.stringify(record.rev)},"deleted":true}`;
      yield `{"id":${JSON.stringify(record.id)},"key":${JSON.stringify(key)},"value":${value}${options.includeDocs ? ',"doc":null' : ''}}`;
    } else {
      yield rowOf(db, record, key as string, options);
    }
  }
}

function rowOf(db: Database, record: DocRecord, key: string, options: AllDocsOptions): string {
  const id = JSON.stringify(record.id);
  let row = `{"id":${id},"key":${key === record.id ? id : JSON.stringify(key)},"value":{"rev":${JSON.stringify(record.rev)}}`;
  if (options.includeDocs) row += `,"doc":${db.winningDoc(record, options.conflicts) ?? 'null'}`;
  return `${row}}`;
}

/**
 * The id range of a query, or null when it is empty. Keys that are not strings sort before every
 * string in CouchDB's raw order (numbers, atoms, objects, arrays < binaries), so as a start they
 * mean "from the first id" and as an end "nothing".
 */
function rangeOf(space: IdSpace, options: AllDocsOptions): IdRange | null {
  const { descending } = options;
  let start: string | undefined;
  let end: string | undefined;
  if (options.startkey !== undefined) {
    if (typeof options.startkey === 'string') start = options.startkey;
    else if (descending) return null;
  } else if (options.startkeyDocid !== undefined) {
    start = options.startkeyDocid;
  }
  if (options.endkey !== undefined) {
    if (typeof options.endkey === 'string') end = options.endkey;
    else if (!descending) return null;
  } else if (options.endkeyDocid !== undefined) {
    end = options.endkeyDocid;
  }
  if (space === 'design') {
    // The design documents are the ids between "_design/" and "_design0" ('0' follows '/').
    const low = DESIGN_PREFIX;
    const high = '_design0';
    if (descending) {
      start = start === undefined || compareIds(start, high) >= 0 ? high : start;
      end = end === undefined || compareIds(end, low) < 0 ? low : end;
    } else {
      start = start === undefined || compareIds(start, low) < 0 ? low : start;
      end = end === undefined || compareIds(end, high) >= 0 ? high : end;
    }
  }
  if (start !== undefined && end !== undefined) {
    const order = compareIds(start, end);
    if (descending ? order < 0 : order > 0) return null;
  }
  return { start, end, inclusiveEnd: options.inclusiveEnd, descending };
}

/** The ids before a range's start, in its direction: what `offset` counts. */
function rangeBefore(range: IdRange): IdRange {
  if (range.start === undefined) return { start: '', end: '', inclusiveEnd: false };
  return { end: range.start, inclusiveEnd: false, descending: range.descending };
}

function countDesign(db: Database): number {
  return db.store.countDocs({ start: DESIGN_PREFIX, end: '_design0', inclusiveEnd: false });
}

function localDocs(db: Database, options: AllDocsOptions): AllDocsResult {
  const start = typeof options.startkey === 'string' ? options.startkey : options.descending ? undefined : LOCAL_PREFIX;
  const end = typeof options.endkey === 'string' ? options.endkey : options.descending ? LOCAL_PREFIX : undefined;
  function* rows(): Generator<string> {
    let skip = options.skip;
    let left = options.limit ?? Infinity;
    if (left <= 0) return;
    for (const doc of db.local.fold({ start, end, inclusiveEnd: options.inclusiveEnd, descending: options.descending })) {
      if (skip > 0) {
        skip--;
        continue;
      }
      const id = JSON.stringify(doc.id);
      let row = `{"id":${id},"key":${id},"value":{"rev":${JSON.stringify(doc.rev)}}`;
      if (options.includeDocs) row += `,"doc":${db.local.render(doc)}`;
      yield `${row}}`;
      if (--left <= 0) return;
    }
  }
  return { totalRows: null, offset: null, rows: rows() };
}

/**
 * `_all_docs`, `_design_docs` and `_local_docs`: rows by id in raw order, or one row per requested
 * key. Rows come out as JSON text, one at a time, so the HTTP layer can stream them.
 */
import type { DocRecord, IdRange, LocalDoc } from '../storage/records.js';
import { type AccessReader, accessOfText, overlaps } from './access-rules.js';
import type { AttachmentView } from './attachment-read.js';
import type { Viewer } from './replicator-reads.js';
import type { Database } from './database.js';
import { DESIGN_PREFIX, isLocalId } from './doc-id.js';
import { inPartition, partitionIdRange } from './partition.js';
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
  /** With `includeDocs`: inline attachment data (`attachments=true`). */
  attachments?: boolean;
  /** With `includeDocs`: `att_encoding_info=true`. */
  attEncodingInfo?: boolean;
  /** A partitioned database's partition: only its id range is read (./partition.ts). */
  partition?: string;
  /** Who reads: `include_docs` documents as they may see them (./replicator-reads.ts). */
  viewer?: Viewer;
}

export interface AllDocsResult {
  totalRows: number | null;
  offset: number | null;
  rows: AsyncIterable<string>;
}

/**
 * `reader`: a non-admin of an access-enabled database (./access-rules.ts), who sees only the
 * documents they may read, counted in `total_rows` and `offset` (from their access rows), and
 * no design document. (A partitioned database is never access-enabled: server/couch-server.ts.)
 */
export async function allDocs(
  db: Database,
  space: IdSpace,
  options: AllDocsOptions,
  reader?: AccessReader,
): Promise<AllDocsResult> {
  if (space === 'all' && options.partition !== undefined) return partitionDocs(db, options.partition, options);
  const docs = sourceOf(db, reader);
  const totalRows =
    space === 'local'
      ? null
      : space === 'design'
        ? reader === undefined
          ? await countDesign(db)
          : 0
        : reader === undefined
          ? (await db.store.counters()).docCount
          : await docs.count({});
  // Keys are opened one by one as documents, whatever the namespace (CouchDB's fabric does so).
  if (options.keys !== undefined) return { totalRows, offset: null, rows: keyRows(db, options.keys, options, reader) };
  const { range, empty } = rangeOf(space, options);
  if (space === 'local') {
    return { totalRows: null, offset: null, rows: empty ? none() : localRows(db, range, options, reader) };
  }
  if (space === 'design' && reader !== undefined) return { totalRows, offset: 0, rows: none() };
  // CouchDB clips the range to the partition's ids (`p:`..`p;`) and then to `_design/`..`_design0`:
  // no id is in both, so a partition's `_design_docs` is always empty.
  if (space === 'design' && options.partition !== undefined) return { totalRows, offset: totalRows, rows: none() };
  // CouchDB 3 reports the design doc count as the offset of `_design_docs`.
  const offset =
    space === 'design' ? totalRows : Math.min(totalRows!, (await docs.count(rangeBefore(range))) + options.skip);
  return { totalRows, offset, rows: empty ? none() : rangeRows(docs, db, range, options) };
}

/** Where rows come from: every document, or those a reader may read (their access rows). */
interface DocSource {
  fold(range: IdRange): AsyncIterable<readonly DocRecord[]>;
  count(range: IdRange): Promise<number>;
}

function sourceOf(db: Database, reader: AccessReader | undefined): DocSource {
  if (reader === undefined) return { fold: (r) => db.store.foldDocs(r), count: (r) => db.store.countDocs(r) };
  const { principals } = reader;
  return { fold: (r) => db.store.foldReadable(principals, r), count: (r) => db.store.countReadable(principals, r) };
}

/**
 * A partition's `_all_docs`: the query's range clipped to the partition's id range, so storage
 * reads that range alone; `total_rows` and `offset` count within the partition, and a key of
 * another partition is not found.
 */
async function partitionDocs(db: Database, partition: string, options: AllDocsOptions): Promise<AllDocsResult> {
  const bounds = partitionIdRange(partition);
  const totalRows = (await db.store.rangeStats(bounds.start, bounds.end)).docCount;
  if (options.keys !== undefined)
    return { totalRows, offset: null, rows: keyRows(db, options.keys, options, undefined) };
  const { range, empty } = rangeOf('all', options);
  const clipped = clipToPartition(range, bounds);
  if (clipped === undefined) return { totalRows, offset: totalRows, rows: none() };
  // The partition's ids before the range's start, in its direction.
  const before = clipped.descending
    ? { start: bounds.end, end: clipped.start, inclusiveEnd: false, descending: true }
    : { start: bounds.start, end: clipped.start, inclusiveEnd: false };
  const offset = Math.min(totalRows, (await db.store.countDocs(before)) + options.skip);
  return { totalRows, offset, rows: empty ? none() : rangeRows(sourceOf(db, undefined), db, clipped, options) };
}

/** A range within a partition's ids, or undefined when they do not meet. */
function clipToPartition(range: IdRange, bounds: { start: string; end: string }): IdRange | undefined {
  const { descending } = range;
  const low = descending ? range.end : range.start;
  const high = descending ? range.start : range.end;
  const lowIn = low === undefined || compareIds(low, bounds.start) < 0 ? bounds.start : low;
  // The partition's end bound is exclusive; a query's high bound is inclusive unless inclusiveEnd is false (ascending).
  const highAbove = high === undefined || compareIds(high, bounds.end) >= 0;
  const highIn = highAbove ? bounds.end : high;
  if (compareIds(lowIn, highIn) > 0) return undefined;
  if (descending) {
    // Walking down from `start` (inclusive): the partition end itself is never a document of it.
    return {
      start: highIn,
      end: lowIn,
      inclusiveEnd: low === undefined || lowIn !== low ? true : range.inclusiveEnd,
      descending: true,
    };
  }
  return { start: lowIn, end: highIn, inclusiveEnd: highAbove ? false : range.inclusiveEnd, descending: false };
}

async function* none(): AsyncGenerator<string> {}

async function* rangeRows(
  docs: DocSource,
  db: Database,
  range: IdRange,
  options: AllDocsOptions,
): AsyncGenerator<string> {
  let skip = options.skip;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const page of docs.fold(range)) {
    const selected: DocRecord[] = [];
    for (const record of page) {
      if (skip > 0) {
        skip--;
        continue;
      }
      selected.push(record);
      if (--left <= 0) break;
    }
    // A page's documents are read together.
    const docs = options.includeDocs
      ? await db.winningDocs(selected, options.conflicts, attachmentViewOf(options), options.viewer)
      : undefined;
    for (const [i, record] of selected.entries()) yield rowText(record, record.id, docs?.[i]);
    if (left <= 0) return;
  }
}

async function* keyRows(
  db: Database,
  keys: readonly unknown[],
  options: AllDocsOptions,
  reader: AccessReader | undefined,
): AsyncGenerator<string> {
  const ordered = options.descending ? [...keys].reverse() : keys;
  const selected = ordered.slice(options.skip, options.limit === undefined ? undefined : options.skip + options.limit);
  // A partition's query finds its own documents only.
  const { partition } = options;
  const inScope = (key: unknown): key is string =>
    typeof key === 'string' && (partition === undefined || inPartition(key, partition));
  const ids = [...new Set(selected.filter((key): key is string => inScope(key) && !isLocalId(key)))];
  const records = new Map<string, DocRecord | undefined>();
  const found = await db.store.getDocs(ids);
  // A reader's unreadable documents answer as absent ones.
  const readers = reader === undefined ? undefined : await db.store.readersOf(ids);
  ids.forEach((id, i) => {
    const unreadable = readers !== undefined && !overlaps(reader!.principals, readers[i]!);
    records.set(id, unreadable ? undefined : found[i]);
  });
  for (const key of selected) {
    if (inScope(key) && isLocalId(key)) {
      const local = await db.store.getLocal(key);
      yield local === undefined || !localReadable(local, reader) ? notFoundRow(key) : localRow(db, local, options);
      continue;
    }
    const record = inScope(key) ? records.get(key) : undefined;
    if (record === undefined) {
      yield notFoundRow(key);
    } else if (record.deleted) {
      const value = `{"rev":${JSON.stringify(record.rev)},"deleted":true}`;
      yield `{"id":${JSON.stringify(record.id)},"key":${JSON.stringify(key)},"value":${value}${options.includeDocs ? ',"doc":null' : ''}}`;
    } else {
      yield await rowOf(db, record, key as string, options);
    }
  }
}

const notFoundRow = (key: unknown): string => `{"key":${JSON.stringify(key)},"error":"not_found"}`;

function localRow(db: Database, doc: LocalDoc, options: AllDocsOptions): string {
  const id = JSON.stringify(doc.id);
  const row = `{"id":${id},"key":${id},"value":{"rev":${JSON.stringify(doc.rev)}}`;
  return `${row}${options.includeDocs ? `,"doc":${db.local.render(doc)}` : ''}}`;
}

async function rowOf(db: Database, record: DocRecord, key: string, options: AllDocsOptions): Promise<string> {
  return rowText(
    record,
    key,
    options.includeDocs
      ? await db.winningDoc(record, options.conflicts, attachmentViewOf(options), options.viewer)
      : undefined,
  );
}

/** A row; `doc` undefined: without `include_docs`. */
function rowText(record: DocRecord, key: string, doc: string | null | undefined): string {
  const id = JSON.stringify(record.id);
  const row = `{"id":${id},"key":${key === record.id ? id : JSON.stringify(key)},"value":{"rev":${JSON.stringify(record.rev)}}`;
  return doc === undefined ? `${row}}` : `${row},"doc":${doc ?? 'null'}}`;
}

/**
 * The id range of a query, and whether it is empty (bounds reversed for its direction: CouchDB
 * answers no rows, not an error). As couch_mrview_util's all_docs_key_opts: a bound is the
 * key when it is a string, else the doc id param when that is one; other keys bound nothing.
 */
function rangeOf(space: IdSpace, options: AllDocsOptions): { range: IdRange; empty: boolean } {
  const { descending } = options;
  const stringOr = (key: unknown, docid: unknown): string | undefined =>
    typeof key === 'string' ? key : typeof docid === 'string' ? docid : undefined;
  let start = stringOr(options.startkey, options.startkeyDocid);
  let end = stringOr(options.endkey, options.endkeyDocid);
  if (space === 'design') {
    // couch_db:set_design_doc_keys: the range is clamped to "_design/".."_design0".
    const low = DESIGN_PREFIX;
    const high = '_design0';
    if (descending) {
      start = start === undefined || compareIds(start, high) > 0 ? high : start;
      end = end === undefined || compareIds(end, low) < 0 ? low : end;
    } else {
      start = start === undefined || compareIds(start, low) < 0 ? low : start;
      end = end === undefined || compareIds(end, high) > 0 ? high : end;
    }
  }
  let empty = false;
  if (start !== undefined && end !== undefined) {
    const order = compareIds(start, end);
    empty = descending ? order < 0 : order > 0;
  }
  return { range: { start, end, inclusiveEnd: options.inclusiveEnd, descending }, empty };
}

/** The ids before a range's start, in its direction: what `offset` counts. */
function rangeBefore(range: IdRange): IdRange {
  if (range.start === undefined) return { start: '', end: '', inclusiveEnd: false };
  return { end: range.start, inclusiveEnd: false, descending: range.descending };
}

function countDesign(db: Database): Promise<number> {
  return db.store.countDocs({ start: DESIGN_PREFIX, end: '_design0', inclusiveEnd: false });
}

/** A `_local` document a reader may read: by the `_access` in its body. */
function localReadable(doc: LocalDoc, reader: AccessReader | undefined): boolean {
  return reader === undefined || overlaps(reader.principals, accessOfText(doc.body));
}

async function* localRows(
  db: Database,
  range: IdRange,
  options: AllDocsOptions,
  reader: AccessReader | undefined,
): AsyncGenerator<string> {
  let skip = options.skip;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const page of db.local.fold(range)) {
    for (const doc of page) {
      if (!localReadable(doc, reader)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      yield localRow(db, doc, options);
      if (--left <= 0) return;
    }
  }
}

/** How included documents show their attachments. */
export function attachmentViewOf(options: { attachments?: boolean; attEncodingInfo?: boolean }): AttachmentView {
  return { data: options.attachments === true, encodingInfo: options.attEncodingInfo === true };
}

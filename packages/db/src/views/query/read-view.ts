/**
 * Reading a view: map rows (ranges, keys, skip/limit, offset, include_docs) and reduce groups,
 * all as JSON text rows generated lazily so the HTTP layer can stream them. Bounds come from
 * ../../collation (byte-comparable row keys); reductions come from the B-tree's stored values.
 */
import type { AttachmentView } from '../../documents/attachment-read.js';
import type { Database } from '../../documents/database.js';
import type { Rows } from '../../support/rows.js';
import { parseRev } from '../../revisions/index.js';
import { exactKeyRange, rowKeyRange, type RowKeyRange } from '../../collation/index.js';
import type { ViewDef } from '../design.js';
import type { ViewQuery } from './query-options.js';
import { groupKeyOf, type Grouping } from './group-key.js';
import { isReduceOverflowError, type Reducer } from '../reduce/index.js';
import type { RowEntry, RowTree } from '../index/row-tree.js';
import { partitionRows } from '../index/partition-rows.js';
import type { GroupState } from '../group-state.js';
import { type ReaderView, readerReduceRows, type Visible } from './reader-rows.js';

/** The parts of a parsed query (./query-options.ts) that reading rows needs. */
export type ViewQueryOptions = Pick<
  ViewQuery,
  | 'startkey'
  | 'endkey'
  | 'startkeyDocid'
  | 'endkeyDocid'
  | 'keys'
  | 'inclusiveEnd'
  | 'descending'
  | 'limit'
  | 'skip'
  | 'reduce'
  | 'group'
  | 'includeDocs'
  | 'conflicts'
  | 'attachments'
  | 'attEncodingInfo'
  | 'viewer'
>;

export interface MapResult {
  totalRows: number;
  offset: number;
  rows: Rows;
}

/** `visible`: a reader's view (./reader-rows.ts): `tree` holds only their rows, linked documents they cannot read are null. */
export function queryMap(
  db: Database,
  tree: RowTree,
  view: ViewDef,
  q: ViewQueryOptions,
  visible?: Visible,
): MapResult {
  const totalRows = tree.total();
  const ranges =
    q.keys !== undefined ? orderedKeys(q).map((key) => keyRange(key, view, q)) : [rowKeyRange(q, view.raw)];
  return { totalRows, offset: offsetOf(tree, ranges, q), rows: mapRows(db, tree, ranges, q, visible) };
}

/**
 * `offset` as CouchDB 3.5 computes it (couch_mrview:map_fold on the shard, fabric_view_map on
 * the coordinator): the shard reads the keys in request order with skip 0 and reports the rows
 * before the first row it finds (rows after it when descending); when no key has rows, the rows
 * before the last key's position. The coordinator adds skip, capped at total_rows. So skipped
 * rows are counted from the first key that has rows, not from the first row returned.
 */
function offsetOf(tree: RowTree, ranges: readonly RowKeyRange[], q: ViewQueryOptions): number {
  const before = (range: RowKeyRange): number =>
    q.descending
      ? range.lt === undefined
        ? 0
        : tree.countFrom(range.lt)
      : range.gte === undefined
        ? 0
        : tree.countBelow(range.gte);
  const rowsIn = (range: RowKeyRange): number =>
    (range.lt === undefined ? tree.total() : tree.countBelow(range.lt)) -
    (range.gte === undefined ? 0 : tree.countBelow(range.gte));
  // `ranges` follow the answer's order (reversed keys when descending); the shard reads request order.
  const requestOrder = q.keys !== undefined && q.descending ? [...ranges].reverse() : ranges;
  const found = requestOrder.find((range) => rowsIn(range) > 0) ?? requestOrder[requestOrder.length - 1];
  const shardOffset = found === undefined ? 0 : before(found);
  return Math.min(tree.total(), shardOffset + q.skip);
}

/** Map rows; with include_docs each row waits for its document from storage. */
function mapRows(
  db: Database,
  tree: RowTree,
  ranges: readonly RowKeyRange[],
  q: ViewQueryOptions,
  visible?: Visible,
): Rows {
  return q.includeDocs
    ? withDocs(db, entries(tree, ranges, q), q, docsPage(tree.total()), visible)
    : plainRows(entries(tree, ranges, q));
}

/** The row entries a query reads: its ranges in order, after skip, up to limit. */
function* entries(tree: RowTree, ranges: readonly RowKeyRange[], q: ViewQueryOptions): Generator<RowEntry> {
  let skip = q.skip;
  let left = q.limit ?? Infinity;
  if (left <= 0) return;
  for (const range of ranges) {
    const entries = tree.rows(range, q.descending);
    for (const entry of q.descending ? duplicatesAscending(entries) : entries) {
      if (skip > 0) {
        skip--;
        continue;
      }
      yield entry;
      if (--left <= 0) return;
    }
  }
}

/**
 * Rows of a descending read with one document's duplicates of a key (same doc id and key) put
 * back in ascending value order: CouchDB keeps them as one B-tree entry whose values it expands
 * in the same order whichever way it walks (couch_mrview_util:expand_dups).
 */
function* duplicatesAscending(entries: Iterable<RowEntry>): Generator<RowEntry> {
  let run: RowEntry[] = [];
  for (const entry of entries) {
    const last = run[run.length - 1];
    if (last !== undefined && (last.value[1] !== entry.value[1] || last.value[0] !== entry.value[0])) {
      if (run.length === 1) yield last;
      else yield* run.reverse();
      run = [];
    }
    run.push(entry);
  }
  if (run.length === 1) yield run[0]!;
  else yield* run.reverse();
}

function* plainRows(rows: Iterable<RowEntry>): Generator<string> {
  for (const { value } of rows) yield mapRow(value);
}

/**
 * Rows with their documents, a page at a time: the rows' own documents are read together (one
 * storage call a page: records with their winners' bodies); a value that links another document
 * or revision is opened by itself.
 */
async function* withDocs(
  db: Database,
  rows: Iterable<RowEntry>,
  q: ViewQueryOptions,
  maxPage: number,
  visible?: Visible,
): AsyncGenerator<string> {
  let page: RowEntry['value'][] = [];
  const flush = async function* (): AsyncGenerator<string> {
    const own = page.filter(([, , valueJson]) => !valueJson.startsWith('{'));
    // In id order, the storage's order: rows that share a page of the documents' file are read
    // together, however far apart the view's key order puts them.
    const ids = [...new Set(own.map(([, docId]) => docId))].sort();
    // A storage call per DOCS_READ ids: what a call builds on the way to the documents' text dies
    // young, only the text is kept until the page goes out.
    const docOf = new Map<string, string | null>();
    for (let at = 0; at < ids.length; at += DOCS_READ) {
      const some = ids.slice(at, at + DOCS_READ);
      const docs = await db.winningDocsOf(some, q.conflicts, q.viewer, attachmentView(q));
      for (let i = 0; i < some.length; i++) docOf.set(some[i]!, docs[i] ?? null);
    }
    for (const value of page) {
      const [, docId, valueJson] = value;
      const doc = valueJson.startsWith('{')
        ? await includedDoc(db, docId, valueJson, q, visible)
        : (docOf.get(docId) ?? 'null');
      yield `${mapRow(value).slice(0, -1)},"doc":${doc}}`;
    }
    page = [];
  };
  // A small first page, so the first row goes out at once; then pages twice as big up to
  // `maxPage`, so a short read holds few documents at a time.
  let size = 8;
  for (const { value } of rows) {
    page.push(value);
    if (page.length === size) {
      yield* flush();
      size = Math.min(size * 2, maxPage);
    }
  }
  if (page.length > 0) yield* flush();
}

/**
 * Rows whose documents are read together (`include_docs`): a share of the view's rows, within
 * bounds. A view's key order visits the documents far apart, in rounds over the documents' file
 * (the views bench: an author's posts, 500 documents apart), and a round grows with the view: at
 * 100k documents an author's 200 rows read ~600 pages of the documents' B-trees, which the
 * 8 MiB page cache holds for the next author's rows, at 1M its 2,000 rows ~6,000 pages (48 MB),
 * which it does not, so every row read its leaves again from the OS (`pread`s: ~9 µs of system
 * time a row; measured with the bodies in a third tree, before SQLite's schema 9 put a winner's
 * body in its `docs` row). Read in id order, the rows of a page that share a leaf read it once: a page
 * of 1/96 of the rows spans four authors there at either size. The page's documents' text is held
 * until it goes out (~0.6 KB a row there): the bound keeps a small view's pages small.
 */
function docsPage(viewRows: number): number {
  return Math.min(MAX_DOCS_PAGE, Math.max(MIN_DOCS_PAGE, Math.ceil(viewRows / 96)));
}

const MIN_DOCS_PAGE = 128;
const MAX_DOCS_PAGE = 8192;
/** Documents read by one storage call (one statement a few dozen ids: ../../storage/sqlite/doc-reads.ts). */
const DOCS_READ = 128;

/** What `include_docs` rows carry of their documents' attachments (`attachments`, `att_encoding_info`). */
function attachmentView(q: ViewQueryOptions): AttachmentView {
  return { data: q.attachments, encodingInfo: q.attEncodingInfo };
}

function mapRow([keyJson, docId, valueJson]: RowEntry['value']): string {
  return `{"id":${JSON.stringify(docId)},"key":${keyJson},"value":${valueJson}}`;
}

/**
 * The doc of an include_docs row: the row's document, or the one the value links to
 * (`{"_id": ..., "_rev"?: ...}`); null when missing or deleted.
 */
async function includedDoc(
  db: Database,
  docId: string,
  valueJson: string,
  q: ViewQueryOptions,
  visible?: Visible,
): Promise<string> {
  let id = docId;
  let rev: string | undefined;
  if (valueJson.startsWith('{')) {
    const value = JSON.parse(valueJson) as Record<string, unknown>;
    if ('_id' in value) {
      if (typeof value._id !== 'string') return 'null';
      id = value._id;
    }
    // `{_rev}` alone names a revision of the row's own document.
    if (typeof value._rev === 'string') rev = value._rev;
  }
  // A reader's linked document they may not read is as missing.
  if (visible !== undefined && !visible(id)) return 'null';
  try {
    // A linked revision is fetched exactly (couch_index_util:load_doc with a rev opens that
    // revision alone): no _conflicts even with conflicts=true.
    if (rev !== undefined) {
      return (
        await db.openDoc(id, {
          rev: parseRev(rev),
          attachments: q.attachments,
          attEncodingInfo: q.attEncodingInfo,
          ...(q.viewer && { viewer: q.viewer }),
        })
      ).json;
    }
    const record = await db.record(id);
    if (record === undefined) return 'null';
    return (await db.winningDoc(record, q.conflicts, attachmentView(q), q.viewer)) ?? 'null';
  } catch {
    return 'null';
  }
}

/** Reduce rows `{"key","value"}`, one per group, skip/limit counting groups. */
export function* reduceRows(tree: RowTree, view: ViewDef, reducer: Reducer, q: ViewQueryOptions): Generator<string> {
  // Grouped by keys: one group per key, in the order given whatever the direction (CouchDB 3).
  const ranges = q.keys !== undefined ? q.keys.map((key) => keyRange(key, view, q)) : [rowKeyRange(q, view.raw)];
  const grouping = q.group;
  const groupKey = (key: Buffer) => groupKeyOf(key, grouping, view.raw);
  let skip = q.skip;
  let left = q.limit ?? Infinity;
  if (left <= 0) return;
  for (const range of ranges) {
    for (const { first, reduction } of tree.groups(range, q.descending, groupKey)) {
      if (skip > 0) {
        skip--;
        continue;
      }
      const key = groupKeyJson(first.value[0], grouping);
      const [value] = reducer.finalize(reduction);
      yield isReduceOverflowError(value)
        ? `{"key":${key},"error":"reduce_overflow_error","reason":${JSON.stringify(value.reason)}}`
        : `{"key":${key},"value":${JSON.stringify(value ?? null)}}`;
      if (--left <= 0) return;
    }
  }
}

/** The key a group shows: null without grouping, the key, or its first N elements (arrays only). */
function groupKeyJson(keyJson: string, grouping: Grouping): string {
  if (grouping === 'none') return 'null';
  if (grouping === 'exact' || !keyJson.startsWith('[')) return keyJson;
  const key = JSON.parse(keyJson) as unknown[];
  return key.length <= grouping ? keyJson : JSON.stringify(key.slice(0, grouping));
}

/** Map rows of `keys` are read in the order given, reversed with descending=true (CouchDB 3). */
function orderedKeys(q: ViewQueryOptions): unknown[] {
  return q.descending ? [...q.keys!].reverse() : q.keys!;
}

/** The rows of one requested key; docid bounds apply inside it. */
function keyRange(key: unknown, view: ViewDef, q: ViewQueryOptions): RowKeyRange {
  if (q.startkeyDocid === undefined && q.endkeyDocid === undefined) return exactKeyRange(key, view.raw);
  return rowKeyRange(
    {
      startkey: key,
      endkey: key,
      startkeyDocid: q.startkeyDocid,
      endkeyDocid: q.endkeyDocid,
      inclusiveEnd: q.inclusiveEnd,
      descending: q.descending,
    },
    view.raw,
  );
}

/** What a view answers besides its rows (`total_rows`/`offset` for map rows, `update_seq` if asked). */
export interface ViewMeta {
  total_rows?: number;
  offset?: number | null;
  update_seq?: number;
}

/** The answer to a view query: its members before `rows`, and the rows as JSON text, lazily. */
export function answerQuery(
  db: Database,
  state: GroupState,
  viewNo: number,
  q: ViewQuery,
  /** A reader of an access-enabled database: only rows of documents they may read (./reader-rows.ts). */
  reader?: ReaderView,
): { meta: ViewMeta; rows: Rows } {
  const view = state.group.views[viewNo]!;
  const whole = reader?.tree ?? state.index.trees[viewNo]!;
  // A partition's query reads the partition's rows alone (../index/partition-rows.ts).
  const tree = view.partitioned && q.partition !== undefined ? partitionRows(whole, q.partition) : whole;
  // The view's own update_seq (the last change to its rows; its ETag moves with it): a change
  // the view ignores (a design doc, a doc it emits nothing for) leaves it, as in CouchDB.
  const seq = q.updateSeq ? { update_seq: state.index.changedSeq(viewNo) } : {};
  if (q.reduce && reader !== undefined) {
    const ranges = q.keys !== undefined ? q.keys.map((key) => keyRange(key, view, q)) : [rowKeyRange(q, view.raw)];
    const options = { descending: q.descending, skip: q.skip, limit: q.limit, raw: view.raw };
    const keyJsonOf = (keyJson: string) => groupKeyJson(keyJson, q.group);
    const reducer = state.reducers[viewNo]!;
    return { meta: seq, rows: readerReduceRows(tree, ranges, options, q.group, reducer, keyJsonOf) };
  }
  if (q.reduce) return { meta: seq, rows: reduceRows(tree, view, state.reducers[viewNo]!, q) };
  const result = queryMap(db, tree, view, q, reader?.visible);
  // sorted=false (CouchDB 3): rows only, without total_rows and offset.
  if (!q.sorted) return { meta: seq, rows: result.rows };
  return { meta: { total_rows: result.totalRows, offset: result.offset, ...seq }, rows: result.rows };
}

/**
 * A view as a reader of an access-enabled database sees it (documents/access-rules.ts): the
 * index is built once over every document, and at query time only rows whose document the reader
 * may read are shown: the rows of their documents, found by the documents' back-index entries. `total_rows` and `offset` count those rows; reductions are recomputed over
 * them (stored reductions cover every document, so they serve admins only). Visibility is the
 * reader's current access, so a revocation applies at once, whatever `stale`/`update` says.
 */
import type { Reducer } from '../reduce/index.js';
import { isReduceOverflowError } from '../reduce/index.js';
import type { RowEntry, RowRange, RowTree } from '../index/row-tree.js';
import type { DocRow, ViewIndex } from '../index/view-index.js';
import { readableIdSet } from '../../documents/access-reads.js';
import type { AccessReader } from '../../documents/access-rules.js';
import type { DocumentReader } from '../../documents/document-reader.js';
import { groupKeyOf } from './group-key.js';

/** Whether the reader may read a row's document. */
export type Visible = (docId: string) => boolean;

/** A reader's rows of one view, and which documents they may read (for linked `include_docs`). */
export interface ReaderView {
  tree: RowTree;
  visible: Visible;
}

/**
 * The reader's view: the rows `view` holds of the documents they may read, found through those
 * documents' back-index entries, so a query costs the reader's documents and the rows it reads,
 * not every row of the view (a user among a thousand reads a thousandth).
 */
export async function readerView(
  db: DocumentReader,
  index: ViewIndex,
  view: number,
  reader: AccessReader,
): Promise<ReaderView> {
  const readable = await readableIdSet(db, reader);
  const rows = index.rowsOf([...readable], view);
  return { tree: readerTree(index.trees[view]!, rows), visible: (id) => readable.has(id) };
}

/**
 * `rows` (rows of `tree`) as a read-only tree of their own: sorted by key, counts are positions.
 * A row's key and value JSON come from its back-index entry when kept there, else from `tree`
 * by its key, and only for the rows read.
 */
export function readerTree(tree: RowTree, rows: DocRow[]): RowTree {
  rows.sort((a, b) => Buffer.compare(a.key, b.key));
  // The first position whose key is `key` or above.
  const position = (key: Buffer): number => {
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (Buffer.compare(rows[mid]!.key, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const entryOf = (row: DocRow): RowEntry | undefined => {
    if (row.keyJson !== undefined && row.valueJson !== undefined) {
      return { key: row.key, value: [row.keyJson, row.docId, row.valueJson] };
    }
    // The row itself: no row key is between it and it followed by a zero byte.
    for (const entry of tree.rows({ gte: row.key, lt: Buffer.concat([row.key, ZERO]) }, false)) return entry;
    return undefined;
  };
  return {
    update: () => {
      throw new Error('a reader’s view is read-only');
    },
    *rows(range: RowRange, descending: boolean): Generator<RowEntry> {
      const from = range.gte === undefined ? 0 : position(range.gte);
      const to = range.lt === undefined ? rows.length : position(range.lt);
      for (let i = descending ? to - 1 : from; descending ? i >= from : i < to; i += descending ? -1 : 1) {
        const entry = entryOf(rows[i]!);
        if (entry !== undefined) yield entry;
      }
    },
    countBelow: (key: Buffer) => position(key),
    countFrom: (key: Buffer) => rows.length - position(key),
    total: () => rows.length,
    invalidate: () => tree.invalidate(),
    groups: () => {
      throw new Error('a reader’s reductions are recomputed (readerReduceRows)');
    },
  };
}

const ZERO = Buffer.from([0]);

/**
 * Reduce rows over a reader's rows (`tree`, a `readerTree`) in `ranges`, one per group (as
 * `reduceRows` in ./read-view.ts, skip/limit counting groups), each group reduced from its rows.
 */
export async function* readerReduceRows(
  tree: RowTree,
  ranges: readonly RowRange[],
  options: { descending: boolean; skip: number; limit: number | undefined; raw: boolean },
  grouping: Parameters<typeof groupKeyOf>[1],
  reducer: Reducer,
  keyJsonOf: (keyJson: string) => string,
): AsyncGenerator<string> {
  let skip = options.skip;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  const emit = async (group: RowEntry[]): Promise<string> => {
    const keys = group.map((e) => [JSON.parse(e.value[0]), e.value[1]] as [unknown, string]);
    const values = group.map((e) => JSON.parse(e.value[2]) as unknown);
    const [value] = reducer.finalize(await reducer.reduce(keys, values));
    const key = keyJsonOf(group[0]!.value[0]);
    return isReduceOverflowError(value)
      ? `{"key":${key},"error":"reduce_overflow_error","reason":${JSON.stringify(value.reason)}}`
      : `{"key":${key},"value":${JSON.stringify(value ?? null)}}`;
  };
  for (const range of ranges) {
    let group: RowEntry[] = [];
    let groupKey: Buffer | undefined;
    for (const entry of tree.rows(range, options.descending)) {
      const key = groupKeyOf(entry.key, grouping, options.raw);
      if (groupKey !== undefined && !key.equals(groupKey)) {
        if (skip > 0) skip--;
        else {
          yield await emit(group);
          if (--left <= 0) return;
        }
        group = [];
      }
      groupKey = key;
      group.push(entry);
    }
    if (group.length > 0) {
      if (skip > 0) skip--;
      else {
        yield await emit(group);
        if (--left <= 0) return;
      }
    }
  }
}

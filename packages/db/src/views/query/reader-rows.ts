/**
 * A view as a reader of an access-enabled database sees it (documents/access-rules.ts): the
 * index is built once over every document, and at query time only rows whose document the reader
 * may read are shown. `total_rows` and `offset` count those rows; reductions are recomputed over
 * them (stored reductions cover every document, so they serve admins only). Visibility is the
 * reader's current access, so a revocation applies at once, whatever `stale`/`update` says.
 */
import type { Reducer } from '../reduce/index.js';
import { isReduceOverflowError } from '../reduce/index.js';
import type { RowEntry, RowRange, RowTree } from '../index/row-tree.js';
import { groupKeyOf } from './group-key.js';

/** Whether the reader may read a row's document. */
export type Visible = (docId: string) => boolean;

/** The rows of `tree` the reader may see, as a tree for the map-row reads (counts by scanning them). */
export function visibleTree(tree: RowTree, visible: Visible): RowTree {
  const count = (range: RowRange): number => {
    let n = 0;
    for (const entry of tree.rows(range, false)) if (visible(entry.value[1])) n++;
    return n;
  };
  return {
    update: () => {
      throw new Error('a reader’s view is read-only');
    },
    *rows(range: RowRange, descending: boolean): Generator<RowEntry> {
      for (const entry of tree.rows(range, descending)) if (visible(entry.value[1])) yield entry;
    },
    countBelow: (key: Buffer) => count({ lt: key }),
    countFrom: (key: Buffer) => count({ gte: key }),
    total: () => count({}),
    invalidate: () => tree.invalidate(),
    groups: () => {
      throw new Error('a reader’s reductions are recomputed (readerReduceRows)');
    },
  };
}

/**
 * Reduce rows over the visible rows of `ranges`, one per group (as `reduceRows` in
 * ./read-view.ts, skip/limit counting groups), each group reduced from its rows.
 */
export async function* readerReduceRows(
  tree: RowTree,
  ranges: readonly RowRange[],
  options: { descending: boolean; skip: number; limit: number | undefined; raw: boolean },
  grouping: Parameters<typeof groupKeyOf>[1],
  reducer: Reducer,
  keyJsonOf: (keyJson: string) => string,
  visible: Visible,
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
      if (!visible(entry.value[1])) continue;
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

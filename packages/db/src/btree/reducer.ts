import type { Entry } from './node.js';

/** Caller-supplied, synchronous reduce functions. R is opaque (e.g. one reduction per view). */
export interface Reducer<V, R> {
  /** Reduction of leaf entries (called with [] for an empty range). */
  reduce(entries: readonly Entry<V>[]): R;
  /**
   * Set when the reduction of entries depends on nothing but how many there are (a `_count`):
   * rewritten leaves are then reduced without making an entry object per row.
   */
  reduceCount?(count: number): R;
  /** Reduction of reductions. */
  rereduce(reductions: readonly R[]): R;
}

/** Several reducers as one whose reduction is the array of theirs (one tree, several reduce functions). */
export function combineReducers<V>(reducers: readonly Reducer<V, unknown>[]): Reducer<V, unknown[]> {
  const combined: Reducer<V, unknown[]> = {
    reduce: (entries) => reducers.map((r) => r.reduce(entries)),
    rereduce: (reductions) => reducers.map((r, i) => r.rereduce(reductions.map((red) => red[i]))),
  };
  if (reducers.every((r) => r.reduceCount !== undefined))
    combined.reduceCount = (n) => reducers.map((r) => r.reduceCount!(n));
  return combined;
}

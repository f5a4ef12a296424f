/**
 * Reduce execution for CouchDB views: builtins (`_sum`, `_count`, `_stats`,
 * `_approx_count_distinct`, matched by prefix) in-process, JavaScript reduce functions
 * `function(keys, values, rereduce)` batched into a sandbox (see ../../sandbox).
 *
 * Contract for the index builder / query code:
 * - `createReducer(sources, options)` once per index (the reduce sources of the views sharing
 *   one map); every call returns one reduction per source.
 * - `reduce(keys, values)` for a set of rows (keys are `[key, docId]`), `rereduce(reductions)`
 *   to combine stored reductions; `reduceGroups` / `rereduceGroups` do many groups in one
 *   sandbox call (use them for group=true and for building B-tree nodes).
 * - Reductions are JSON values to store; `finalize(reductions)` gives what a query shows.
 * - reduce_limit: a JS reduction that does not shrink becomes a {@link ReduceOverflowError}
 *   (`isReduceOverflowError`) — show it as `{"key":…, "error":"reduce_overflow_error",
 *   "reason":…}`; `_sum` overflows into a `{"error":"builtin_reduce_error","reason":…}` value.
 */
export {
  createReducer,
  isReduceOverflowError,
  type Reducer,
  type ReducerOptions,
  type ReduceGroup,
  type KeyAndId,
  type ReduceOverflowError,
} from './reducer.js';
export {
  builtinName,
  builtinReduce,
  builtinRereduce,
  builtinFinalize,
  validateReduceSource,
  SUM_ERROR,
  type BuiltinName,
  type BuiltinOptions,
} from './builtins.js';
export { Hll, HLL_PRECISION, isHllState, type HllState } from './hll.js';
export { formatErlangTerm } from './erlang-format.js';

/**
 * The view engine's query side, the one way in for its callers (HTTP handlers, the embedded
 * API): parse a view's or `_all_docs`' parameters (one parser), open a view, and answer a query. Answers come
 * with their ETag and body (through the answer cache); callers never touch the manager's cache
 * or an index's state.
 */
export {
  ALL_DOCS,
  PARTITIONED_ALL_DOCS,
  type BodyKind,
  parseQuery,
  type QueryIndex,
  type ViewQuery,
  viewIndex,
} from './query-params.js';
export type { AnswerBody } from './answer-cache.js';
export { openView, queryView, type ViewAnswer, type ViewTarget } from './view-query.js';

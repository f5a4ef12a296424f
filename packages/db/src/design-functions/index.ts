/**
 * CouchDB's design-document functions beyond views: show, list, update and rewrite, run in the
 * sandbox (../sandbox/render-runner.ts) on documents read and written through `documents/`
 * and view rows read through the view engine's query entry point.
 */
export { openDesignDoc, refuseLanguageOf, type DesignDoc } from './design-doc.js';
export type { ExternalAnswer } from './external-response.js';
export { prepareShow, type PreparedShow, type ShowTarget } from './show.js';
export { runUpdate, type UpdateTarget } from './update.js';
export { allDocsRows, type ListRows, type ListSink, openList, runList, viewRows } from './list.js';
export {
  resolveRewritePath,
  rewriteByResult,
  rewriteByRules,
  rewriteWith,
  type RewriteAnswer,
  type Rewritten,
} from './rewrite.js';

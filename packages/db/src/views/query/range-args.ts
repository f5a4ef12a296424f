/**
 * What the view parser (./query-params.ts) and the `_all_docs` parser (./all-docs-params.ts)
 * share: couch_mrview's query_parse_error, its limit ceiling, its reading of a decoded positive
 * integer, and validate_args' checks on `keys` and the doc-id bounds. The parsers still differ
 * in how they take `keys` (chttpd_db's errors for `_all_docs`, chttpd_view's for views),
 * booleans, doc-id bounds and the freshness params (ignored by `_all_docs`), and only views have
 * design-document defaults and reduce.
 */
import { CouchError } from '../../errors.js';

/** couch_mrview's internal maximum limit (2^59 - 1), the default `[query_server_config] query_limit`. */
export const MAX_LIMIT = 576460752303423487n;

export const queryParseError = (reason: string): CouchError => new CouchError('query_parse_error', reason);

/** A decoded JSON integer as a positive integer (printed as Erlang's ~p prints it: bare). */
export function decodedPositiveInteger(value: number): number {
  if (value < 0) throw queryParseError(`Invalid value for positive integer: ${value}`);
  return value;
}

/** The range members validate_args checks the same way for views and `_all_docs`. */
export interface RangeArgs {
  startkey?: unknown;
  endkey?: unknown;
  keys?: unknown;
  startkeyDocid?: unknown;
  endkeyDocid?: unknown;
}

/** validate_args: `keys` excludes a range; doc-id bounds are strings. */
export function checkRangeArgs(args: RangeArgs): void {
  if (Array.isArray(args.keys) && args.keys.length > 0 && (args.startkey !== undefined || args.endkey !== undefined)) {
    throw queryParseError('`keys` is incompatible with `key`, `start_key` and `end_key`');
  }
  if (args.startkeyDocid !== undefined && typeof args.startkeyDocid !== 'string') {
    throw queryParseError('`start_key_docid` must be a string.');
  }
  if (args.endkeyDocid !== undefined && typeof args.endkeyDocid !== 'string') {
    throw queryParseError('`end_key_docid` must be a string.');
  }
}

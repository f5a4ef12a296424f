/**
 * The query parameters of `_all_docs` (and its `_design_docs`/`_local_docs` siblings), parsed as
 * couch_mrview_http does: from the query string, for POST also from the body (already decoded
 * JSON), the query string applied last so it wins. Params apply left to right, so `key` sets both
 * bounds and a later `endkey` overrides one. Then couch_mrview_util:validate_args' checks.
 */
import { CouchError } from '../../errors.js';
import type { AllDocsOptions } from '../../documents/all-docs.js';
import { parseBool, parseJsonParam, parsePositiveInteger } from '../../support/query-values.js';
import { MAX_LIMIT, checkRangeArgs, decodedPositiveInteger, queryParseError } from './range-args.js';

/** Where a param came from: it decides the error wording for `keys`. */
export type ParamSource = 'query' | 'body' | 'queries';

export function defaultAllDocsOptions(): AllDocsOptions {
  return { inclusiveEnd: true, descending: false, skip: 0, includeDocs: false, conflicts: false };
}

/**
 * Options from the query string and, for POST, the body (`bodySource` says which kind of body:
 * the POST body of `_all_docs`, or one query of `_all_docs/queries` on top of `base`).
 */
export function allDocsOptions(
  query: URLSearchParams,
  body?: Record<string, unknown>,
  bodySource: ParamSource = 'body',
  base: AllDocsOptions = defaultAllDocsOptions(),
): AllDocsOptions {
  const options: AllDocsOptions = { ...base };
  const misuse: Misuse = { reduce: false, group: false };
  const apply = (o: AllDocsOptions, name: string, value: unknown, source: ParamSource) =>
    applyParam(o, name, value, source, misuse);
  if (bodySource === 'body' && body?.keys !== undefined && query.has('keys')) {
    throw queryParseError('`keys` is incompatible with `key`, `start_key` and `end_key`');
  }
  if (bodySource === 'queries') {
    // `_all_docs/queries`: the URL params are defaults, each query's members override them.
    for (const [name, value] of query) apply(options, name, value, 'query');
    if (body !== undefined) for (const name of Object.keys(body)) apply(options, name, body[name], 'queries');
  } else {
    if (body !== undefined) for (const name of Object.keys(body)) apply(options, name, body[name], bodySource);
    for (const [name, value] of query) apply(options, name, value, 'query');
  }
  // _all_docs is a map-only view: couch_mrview's checks for reduce and grouping apply.
  if (misuse.reduce) throw queryParseError('Reduce is invalid for map-only views.');
  if (misuse.group) throw queryParseError('Invalid use of grouping on a map view.');
  checkRangeArgs(options);
  return options;
}

/** Params that only a reduce view takes, seen on this map-only one. */
interface Misuse {
  reduce: boolean;
  group: boolean;
}

function applyParam(options: AllDocsOptions, name: string, value: unknown, source: ParamSource, misuse: Misuse): void {
  const decoded = source !== 'query';
  const json = (): unknown => (decoded ? value : parseJsonParam(value as string));
  const bool = (): boolean => (typeof value === 'boolean' ? value : parseBool(String(value)));
  switch (name) {
    case 'key': {
      const key = json();
      options.startkey = key;
      options.endkey = key;
      break;
    }
    case 'keys': {
      const keys = json();
      if (!Array.isArray(keys)) {
        if (source === 'query') throw new CouchError('bad_request', '`keys` parameter must be an array.');
        if (source === 'body') throw new CouchError('bad_request', '`keys` body member must be an array.');
        throw queryParseError('`keys` must be an array of strings.');
      }
      options.keys = keys;
      break;
    }
    case 'startkey':
    case 'start_key':
      options.startkey = json();
      break;
    case 'endkey':
    case 'end_key':
      options.endkey = json();
      break;
    // Doc ids are raw strings in the URL, decoded JSON in a body (checked to be strings later).
    case 'startkey_docid':
    case 'start_key_doc_id':
      options.startkeyDocid = value as string;
      break;
    case 'endkey_docid':
    case 'end_key_doc_id':
      options.endkeyDocid = value as string;
      break;
    case 'inclusive_end':
      options.inclusiveEnd = bool();
      break;
    case 'descending':
      options.descending = bool();
      break;
    case 'limit':
      options.limit = positiveInteger(value);
      if (BigInt(typeof value === 'string' ? value : options.limit) > MAX_LIMIT) {
        throw queryParseError(`Limit is too large, must not exceed ${MAX_LIMIT}`);
      }
      break;
    case 'skip':
      options.skip = positiveInteger(value);
      break;
    case 'include_docs':
      options.includeDocs = bool();
      break;
    case 'conflicts':
      options.conflicts = bool();
      break;
    case 'update_seq':
      options.updateSeq = bool();
      break;
    case 'attachments':
      options.attachments = value === true || value === 'true';
      break;
    case 'att_encoding_info':
      options.attEncodingInfo = value === true || value === 'true';
      break;
    case 'reduce':
      misuse.reduce = bool();
      break;
    case 'group':
      misuse.group = bool();
      break;
    case 'group_level':
      misuse.group = positiveInteger(value) > 0;
      break;
    default:
      // View-only, cluster-only (stable, update, sorted, ...) and unknown params are ignored, as CouchDB.
      break;
  }
}

/** A decoded integer is taken as it is (printed without quotes in the error, as Erlang's ~p). */
function positiveInteger(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return decodedPositiveInteger(value);
  return parsePositiveInteger(String(value));
}

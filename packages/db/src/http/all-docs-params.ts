/**
 * The query parameters of `_all_docs` (and its `_design_docs`/`_local_docs` siblings): from the
 * query string, and for POST also from the body, the query string applied last so it wins.
 * Params apply left to right, so `key` sets both bounds and a later `endkey` overrides one.
 */
import { CouchError } from '../errors.js';
import type { AllDocsOptions } from '../documents/all-docs.js';
import { parseBool, parseJsonParam, parsePositiveInteger } from './query.js';

type Source = 'query' | 'body';

export function allDocsOptions(query: URLSearchParams, body?: Record<string, unknown>): AllDocsOptions {
  const options: AllDocsOptions = { inclusiveEnd: true, descending: false, skip: 0, includeDocs: false, conflicts: false };
  if (body !== undefined) {
    for (const name of Object.keys(body)) apply(options, name, body[name], 'body');
  }
  for (const [name, value] of query) apply(options, name, value, 'query');
  if (options.keys !== undefined && body?.keys !== undefined && query.has('keys')) {
    throw new CouchError('bad_request', '`keys` is incompatible with `key`, `start_key` and `end_key`');
  }
  return options;
}

function apply(options: AllDocsOptions, name: string, value: unknown, source: Source): void {
  const json = (): unknown => (source === 'query' ? parseJsonParam(value as string) : value);
  const bool = (): boolean => (typeof value === 'boolean' ? value : parseBool(String(value)));
  const int = (): number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : parsePositiveInteger(String(value));
  switch (name) {
    case 'key': {
      const key = json();
      options.startkey = key;
      options.endkey = key;
      break;
    }
    case 'keys': {
      const keys = json();
      if (!Array.isArray(keys)) throw new CouchError('bad_request', '`keys` member must be an array.');
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
    case 'startkey_docid':
    case 'start_key_doc_id':
      options.startkeyDocid = String(value);
      break;
    case 'endkey_docid':
    case 'end_key_doc_id':
      options.endkeyDocid = String(value);
      break;
    case 'inclusive_end':
      options.inclusiveEnd = bool();
      break;
    case 'descending':
      options.descending = bool();
      break;
    case 'limit':
      options.limit = int();
      break;
    case 'skip':
      options.skip = int();
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
    case 'stale':
    case 'update':
    case 'stable':
    case 'sorted':
    case 'attachments':
    case 'att_encoding_info':
    case 'group':
    case 'group_level':
    case 'reduce':
      break; // view-only or accepted and ignored by _all_docs, as CouchDB
    default:
      break; // unknown params are ignored, as CouchDB
  }
}

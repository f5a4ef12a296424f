/**
 * The query parameters of `GET|POST /{db}/_design/{ddoc}/_view/{view}`, parsed and validated as
 * CouchDB 3 does (couch_mrview_http:parse_params, chttpd_view, couch_mrview_util:validate_args
 * and check_range), plus design-document `options` as per-view query defaults (a Divan extension).
 *
 * Params apply left to right (body members first, then the query string), so `key` sets both
 * bounds and a later `endkey` overrides one. Parse errors surface in that order; then the
 * validation checks run in CouchDB's order; the reversed-range check comes last.
 *
 * Design-document defaults: a known query param named in the ddoc's `options` is applied before
 * the request (as a decoded JSON value, like a POST body member; integer params also take a
 * numeric string). The request always overrides, per group of related params: any of
 * key/keys/startkey/endkey/*_docid in the request discards all range defaults, group/group_level
 * are one setting, and so are stale/update/stable. A default is used only if the request stays
 * valid with it: invalid values (`limit: "x"`), and defaults that would make this view's query
 * fail (`reduce: true` or `group: true` on a map-only view, `include_docs: true` on a reduce view
 * queried with reduce, a default `reduce: false` against a requested `group=true`, ...) are
 * ignored instead of failing every query of the design document. `partition` and `callback` are
 * never defaults.
 */
import { CouchError, badRequest } from '../../errors.js';
import { parseBool, parseJsonParam, parsePositiveInteger } from '../../support/query-values.js';
import { collateRows, compareUtf8 } from '../../collation/index.js';
import type { ViewQuery } from './query-options.js';
import { MAX_LIMIT, checkRangeArgs, decodedPositiveInteger, queryParseError } from './range-args.js';

export type { ViewQuery } from './query-options.js';

/** Where a value came from: query-string values are text, the others decoded JSON. */
type Source = 'query' | 'body' | 'ddoc';

/** The #mrargs being built. Loosely typed where CouchDB checks types only in validation. */
interface Args {
  startkey?: unknown;
  endkey?: unknown;
  /** Whether the bound was last set by `startkey`/`endkey` themselves (not by `key`). */
  explicitStart?: boolean;
  explicitEnd?: boolean;
  startkeyDocid?: unknown;
  endkeyDocid?: unknown;
  keys?: unknown;
  inclusiveEnd: boolean;
  descending: boolean;
  limit?: bigint;
  skip: number;
  reduce?: boolean;
  group?: boolean;
  groupLevel?: number;
  includeDocs: boolean;
  /** undefined = not given: on a reduce view even `conflicts=false` is an error. */
  conflicts?: boolean;
  updateSeq: boolean;
  update: 'true' | 'false' | 'lazy';
  stable: boolean;
  sorted: boolean;
  attachments: boolean;
  attEncodingInfo: boolean;
  partition?: string;
}

const initialArgs = (): Args => ({
  inclusiveEnd: true,
  descending: false,
  skip: 0,
  includeDocs: false,
  updateSeq: false,
  update: 'true',
  stable: false,
  sorted: true,
  attachments: false,
  attEncodingInfo: false,
});

const ALIASES: Record<string, string> = {
  start_key: 'startkey',
  end_key: 'endkey',
  start_key_doc_id: 'startkey_docid',
  end_key_doc_id: 'endkey_docid',
};
const canonical = (name: string): string => ALIASES[name] ?? name;

/** Params a request overrides as a whole: giving one of them discards the ddoc defaults of all. */
const UNITS: Record<string, string> = {
  key: 'range',
  keys: 'range',
  startkey: 'range',
  endkey: 'range',
  startkey_docid: 'range',
  endkey_docid: 'range',
  group: 'group',
  group_level: 'group',
  stale: 'freshness',
  update: 'freshness',
  stable: 'freshness',
};
const unitOf = (name: string): string => UNITS[canonical(name)] ?? canonical(name);

const DEFAULTABLE = new Set([
  'reduce',
  'key',
  'keys',
  'startkey',
  'endkey',
  'startkey_docid',
  'endkey_docid',
  'limit',
  'skip',
  'stale',
  'stable',
  'update',
  'descending',
  'group',
  'group_level',
  'inclusive_end',
  'include_docs',
  'attachments',
  'att_encoding_info',
  'update_seq',
  'conflicts',
  'sorted',
]);

/**
 * Parses and validates a view query. `body` is the decoded POST body (undefined for GET; any
 * decoded JSON is accepted, a non-object is rejected); its members apply before the query
 * string, so the query string wins. `ddocOptions` is the design
 * document's `options` (see the module comment for how they act as defaults).
 */
export function parseViewQuery(
  query: URLSearchParams,
  body: unknown,
  view: { reduce?: string; raw: boolean },
  ddocOptions: Record<string, unknown>,
): ViewQuery {
  if (body !== undefined) {
    // chttpd_view's POST checks, before any param is parsed.
    if (!isObject(body)) throw badRequest('Request body must be a JSON object');
    if (Object.hasOwn(body, 'queries')) {
      if (!Array.isArray(body.queries)) throw badRequest('`queries` member must be an array.');
      throw badRequest('The `queries` parameter is no longer supported at this endpoint');
    }
    if (Object.hasOwn(body, 'keys') && !Array.isArray(body.keys)) throw badRequest('`keys` member must be an array.');
  } else {
    // GET: chttpd decodes the first `keys` before parsing the params, so its JSON error comes first.
    const keys = query.get('keys');
    if (keys !== null) parseJsonParam(keys);
  }

  const requested = new Set<string>();
  for (const name of Object.keys(isObject(body) ? body : {})) requested.add(unitOf(name));
  for (const name of query.keys()) requested.add(unitOf(name));
  const units = new Map<string, [string, unknown][]>();
  for (const name of Object.keys(isObject(ddocOptions) ? ddocOptions : {})) {
    const unit = unitOf(name);
    if (!DEFAULTABLE.has(canonical(name)) || requested.has(unit)) continue;
    if (!units.has(unit)) units.set(unit, []);
    units.get(unit)!.push([name, ddocOptions[name]]);
  }

  const run = (defaults: [string, unknown][]): ViewQuery => {
    const args = initialArgs();
    for (const [name, value] of defaults) apply(args, name, value, 'ddoc');
    if (isObject(body)) for (const name of Object.keys(body)) apply(args, name, body[name], 'body');
    for (const [name, value] of query) apply(args, name, value, 'query');
    return validate(args, view);
  };
  if (units.size === 0) return run([]);
  const all = [...units.values()].flat();
  const first = attempt(() => run(all));
  if (first !== undefined) return first;
  // Some default breaks the query: keep each group of defaults only if the query stays valid with it.
  let accepted: [string, unknown][] = [];
  const pending = [...units.values()];
  for (let progress = true; progress; ) {
    progress = false;
    for (const unit of [...pending]) {
      if (attempt(() => run([...accepted, ...unit])) === undefined) continue;
      accepted = [...accepted, ...unit];
      pending.splice(pending.indexOf(unit), 1);
      progress = true;
    }
  }
  return run(accepted);
}

function attempt(fn: () => ViewQuery): ViewQuery | undefined {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CouchError) return undefined;
    throw error;
  }
}

/** couch_mrview_http:parse_param. */
function apply(args: Args, name: string, value: unknown, source: Source): void {
  const decoded = source !== 'query';
  const json = (): unknown => (decoded ? value : parseJsonParam(value as string));
  const bool = (): boolean => toBool(value);
  // A ddoc may spell an integer as text, as in a URL.
  const int = (): bigint => positiveInteger(value, decoded && !(source === 'ddoc' && typeof value === 'string'));
  switch (name) {
    case 'reduce':
      args.reduce = bool();
      break;
    case 'key': {
      const key = json();
      args.startkey = key;
      args.endkey = key;
      args.explicitStart = args.explicitEnd = false;
      break;
    }
    case 'keys':
      args.keys = json();
      break;
    case 'startkey':
    case 'start_key':
      args.startkey = json();
      args.explicitStart = true;
      break;
    case 'endkey':
    case 'end_key':
      args.endkey = json();
      args.explicitEnd = true;
      break;
    case 'startkey_docid':
    case 'start_key_doc_id':
      args.startkeyDocid = docId(value);
      break;
    case 'endkey_docid':
    case 'end_key_doc_id':
      args.endkeyDocid = docId(value);
      break;
    case 'limit':
      args.limit = int();
      break;
    case 'skip':
      args.skip = Number(int());
      break;
    case 'group_level':
      args.groupLevel = Number(int());
      break;
    case 'stale':
      if (value === 'ok') {
        args.stable = true;
        args.update = 'false';
      } else if (value === 'update_after') {
        args.stable = true;
        args.update = 'lazy';
      } else {
        throw queryParseError('Invalid value for `stale`.');
      }
      break;
    // `stable` and `update` are matched exactly (no case folding), unlike booleans.
    case 'stable':
      if (value === true || value === 'true') args.stable = true;
      else if (value === false || value === 'false') args.stable = false;
      else throw queryParseError('Invalid value for `stable`.');
      break;
    case 'update':
      if (value === true || value === 'true') args.update = 'true';
      else if (value === false || value === 'false') args.update = 'false';
      else if (value === 'lazy') args.update = 'lazy';
      else throw queryParseError('Invalid value for `update`.');
      break;
    case 'descending':
      args.descending = bool();
      break;
    case 'group':
      args.group = bool();
      break;
    case 'inclusive_end':
      args.inclusiveEnd = bool();
      break;
    case 'include_docs':
      args.includeDocs = bool();
      break;
    // CouchDB only ever adds these doc options; here a later `false` overrides (so a request can undo a ddoc default).
    case 'attachments':
      args.attachments = bool();
      break;
    case 'att_encoding_info':
      args.attEncodingInfo = bool();
      break;
    case 'update_seq':
      args.updateSeq = bool();
      break;
    case 'conflicts':
      args.conflicts = bool();
      break;
    case 'sorted':
      args.sorted = bool();
      break;
    case 'partition':
      args.partition = String(value);
      break;
    default:
      // '' (as in `?&limit=1`), `callback`, `count` and unknown params are ignored, as in CouchDB 3.
      break;
  }
}

/** parse_boolean: `true`/`false` in any case, or a decoded boolean. */
function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return parseBool(value);
  // CouchDB crashes (500) on a decoded non-string; answer the parse error instead.
  throw queryParseError(`Invalid boolean parameter: ${JSON.stringify(value)}`);
}

/** parse_pos_int, exact (bigint) so that a too large `limit` can be reported. */
function positiveInteger(value: unknown, decoded: boolean): bigint {
  if (!decoded) {
    parsePositiveInteger(value as string);
    return BigInt(value as string);
  }
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(decodedPositiveInteger(value));
  throw queryParseError(`Invalid value for integer: ${erlangTerm(value)}`);
}

/** ~p of a decoded JSON value: strings are binaries (`<<"5">>`); the rest close enough as JSON. */
function erlangTerm(value: unknown): string {
  return typeof value === 'string' ? `<<${JSON.stringify(value)}>>` : String(JSON.stringify(value));
}

/** couch_util:to_binary: scalars become their text; arrays and objects fail validation later. */
function docId(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return value;
}

/** couch_mrview_util:validate_args (in the order of its checks), then check_range. */
function validate(args: Args, view: { reduce?: string; raw: boolean }): ViewQuery {
  // 3.3.1+: a one-element `keys` is rewritten to start_key = end_key = the key (so it works on a
  // reduce view without group=true). It wins over `key`; a `startkey` or `endkey` given as such
  // keeps its bound, making a range (checked like any range below).
  if (Array.isArray(args.keys) && args.keys.length === 1) {
    const [key] = args.keys;
    if (args.explicitStart !== true) args.startkey = key;
    if (args.explicitEnd !== true) args.endkey = key;
    args.keys = undefined;
  }
  // apply_limit runs before validate_args.
  if (args.limit !== undefined && args.limit > MAX_LIMIT) {
    throw queryParseError(`Limit is too large, must not exceed ${MAX_LIMIT}`);
  }
  const groupLevel = determineGroupLevel(args);
  const reducing = view.reduce !== undefined && args.reduce !== false;
  if (!reducing && args.reduce === true) throw queryParseError('Reduce is invalid for map-only views.');
  if (reducing && groupLevel !== 'exact' && Array.isArray(args.keys)) {
    throw queryParseError('Multi-key fetches for reduce views must use `group=true`');
  }
  if (args.keys !== undefined && !Array.isArray(args.keys))
    throw queryParseError('`keys` must be an array of strings.');
  checkRangeArgs(args);
  // direction, limit/skip >= 0, stable, update, inclusive_end and sorted are already typed by parsing.
  if (groupLevel !== 0 && !reducing) throw queryParseError('Invalid use of grouping on a map view.');
  if (reducing && args.includeDocs) throw queryParseError('`include_docs` is invalid for reduce');
  if (reducing && args.conflicts !== undefined) throw queryParseError('`conflicts` is invalid for reduce views.');
  if (args.partition !== undefined) throw queryParseError('`partition` parameter is not supported in this design doc');
  checkRange(args, view.raw);

  const result: ViewQuery = {
    inclusiveEnd: args.inclusiveEnd,
    descending: args.descending,
    skip: args.skip,
    reduce: reducing,
    group: !reducing || groupLevel === 0 ? 'none' : groupLevel,
    includeDocs: args.includeDocs,
    conflicts: args.conflicts ?? false,
    updateSeq: args.updateSeq,
    update: args.update,
    stable: args.stable,
    sorted: args.sorted,
    attachments: args.attachments,
    attEncodingInfo: args.attEncodingInfo,
  };
  if (args.startkey !== undefined) result.startkey = args.startkey;
  if (args.endkey !== undefined) result.endkey = args.endkey;
  if (args.startkeyDocid !== undefined) result.startkeyDocid = args.startkeyDocid as string;
  if (args.endkeyDocid !== undefined) result.endkeyDocid = args.endkeyDocid as string;
  if (args.keys !== undefined) result.keys = args.keys as unknown[];
  if (args.limit !== undefined) result.limit = Number(args.limit);
  return result;
}

/** 3.x: group_level, when given, wins over group (whatever their order); group=false with a level > 0 is an error. */
function determineGroupLevel(args: Args): 'exact' | number {
  if (args.groupLevel === undefined) return args.group === true ? 'exact' : 0;
  if (args.group === false && args.groupLevel > 0) {
    throw queryParseError("Can't specify group=false and group_level>0 at the same time");
  }
  return args.groupLevel;
}

/** The doc id above every other (CouchDB's <<255>>, the default end doc id going forward). */
const HIGHEST_ID = Symbol('highest doc id');
type BoundId = string | typeof HIGHEST_ID;

/**
 * check_range: (startkey, startkey_docid) must sort before (endkey, endkey_docid) in the
 * iteration direction, with the view's collation and CouchDB's default doc ids. Skipped when the
 * two keys are the same term, whatever the doc ids.
 */
function checkRange(args: Args, raw: boolean): void {
  const { startkey, endkey, descending } = args;
  if (startkey === undefined || endkey === undefined || sameTerm(startkey, endkey)) return;
  const startId: BoundId = (args.startkeyDocid as string | undefined) ?? (descending ? HIGHEST_ID : '');
  const endId: BoundId = (args.endkeyDocid as string | undefined) ?? (descending ? '' : HIGHEST_ID);
  const less = compareBounds(startkey, startId, endkey, endId, raw) < 0;
  if (!descending && !less) {
    throw queryParseError(
      'No rows can match your key range, reverse your start_key and end_key or set descending=true',
    );
  }
  if (descending && less) {
    throw queryParseError(
      'No rows can match your key range, reverse your start_key and end_key or set descending=false',
    );
  }
}

function compareBounds(aKey: unknown, aId: BoundId, bKey: unknown, bId: BoundId, raw: boolean): number {
  if (typeof aId === 'string' && typeof bId === 'string') return collateRows(aKey, aId, bKey, bId, raw);
  const byKey = collateRows(aKey, '', bKey, '', raw);
  if (byKey !== 0) return byKey;
  if (aId === bId) return 0;
  return aId === HIGHEST_ID ? 1 : bId === HIGHEST_ID ? -1 : compareUtf8(aId, bId);
}

/** Erlang term equality of two decoded JSON values (object member order matters). */
function sameTerm(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameTerm(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a);
    const bk = Object.keys(b);
    return ak.length === bk.length && ak.every((k, i) => k === bk[i] && sameTerm(a[k], b[k]));
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The one parser of query parameters, for a view (`GET|POST /{db}/_design/{ddoc}/_view/{view}`
 * and its `/queries`) and for `_all_docs` and its siblings, as CouchDB 3 has it
 * (couch_mrview_http:parse_params into one #mrargs, chttpd_view's and chttpd_db's checks around it,
 * couch_mrview_util:validate_args and check_range), plus design-document `options` as per-view
 * query defaults (a Divan extension). The parameters are in ./params.ts; what `_all_docs`
 * answers differently from a view is its endpoint's rules (./endpoints.ts).
 *
 * Params apply left to right: for a POST body, body members first, then the query string; for
 * one query of `/queries`, the query string first (its defaults), then the query's members. So
 * `key` sets both bounds and a later `endkey` overrides one. Parse errors surface in that order;
 * then the validation checks run in CouchDB's order; the reversed-range check comes last.
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
import { parseJsonParam } from '../../support/query-values.js';
import { checkRange } from './check-range.js';
import { ALL_DOCS_RULES, type EndpointRules, VIEW_RULES } from './endpoints.js';
import {
  type Args,
  type Source,
  applyParam,
  defaultable,
  initialArgs,
  isObject,
  paramValue,
  queryParseError,
  unitOf,
} from './params.js';
import type { ViewQuery } from './query-options.js';

export type { ViewQuery } from './query-options.js';

/** couch_mrview's internal maximum limit (2^59 - 1), the default `[query_server_config] query_limit`. */
export const MAX_LIMIT = 576460752303423487n;

/** CouchDB's default `[query_server_config] partition_query_limit`: the most rows a partition's query reads. */
export const PARTITION_QUERY_LIMIT = 2000n;

const KEYS_INCOMPATIBLE = '`keys` is incompatible with `key`, `start_key` and `end_key`';

/** What a query reads: a view of a design document, or `_all_docs` (a map-only view of the by-id index). */
export interface QueryIndex {
  rules: EndpointRules;
  /** The view's reduce function; undefined for a map-only view and for `_all_docs`. */
  reduce?: string;
  /** The view's raw collation (for check_range). */
  raw: boolean;
  /** The design document's `options`, as query defaults (none for `_all_docs`). */
  defaults: Record<string, unknown>;
  /**
   * A partitioned view (it needs a `partition`), or for `_all_docs` a partitioned database (it
   * takes one); the partition rules are in ../../documents/partition.ts.
   */
  partitioned?: boolean;
}

export const ALL_DOCS: QueryIndex = { rules: ALL_DOCS_RULES, raw: false, defaults: {} };

/** `_all_docs` of a partitioned database: a `partition` may scope it. */
export const PARTITIONED_ALL_DOCS: QueryIndex = { ...ALL_DOCS, partitioned: true };

export function viewIndex(
  view: { reduce?: string; raw: boolean },
  ddocOptions: Record<string, unknown>,
  partitioned = false,
): QueryIndex {
  const index: QueryIndex = { rules: VIEW_RULES, raw: view.raw, defaults: ddocOptions, partitioned };
  if (view.reduce !== undefined) index.reduce = view.reduce;
  return index;
}

/**
 * Where `body` comes from: a POST body (also the embedded API's params), or one query of a
 * `/queries` request (on top of the query string, without the POST body's checks).
 */
export type BodyKind = 'body' | 'member';

type Layer = [Source, [string, unknown][]];

/**
 * Parses and validates a query of `index`. `body` is the decoded POST body or `/queries` member
 * (undefined for GET; any decoded JSON is accepted, a non-object is rejected).
 */
export function parseQuery(
  index: QueryIndex,
  query: URLSearchParams,
  body?: unknown,
  kind: BodyKind = 'body',
): ViewQuery {
  const { rules } = index;
  const fromQuery: [string, unknown][] = [...query];
  let layers: Layer[];
  if (kind === 'member') {
    if (!isObject(body)) throw badRequest('Each query must be a JSON object');
    layers = [
      ['query', fromQuery],
      ['member', Object.entries(body)],
    ];
  } else if (body !== undefined) {
    // chttpd's POST checks, before any param is parsed.
    if (!isObject(body)) throw badRequest('Request body must be a JSON object');
    if (rules.refusesQueries && Object.hasOwn(body, 'queries')) {
      if (!Array.isArray(body.queries)) throw badRequest('`queries` member must be an array.');
      throw badRequest('The `queries` parameter is no longer supported at this endpoint');
    }
    if (Object.hasOwn(body, 'keys')) {
      if (!Array.isArray(body.keys)) throw badRequest(rules.keysNotArray.body);
      if (rules.refusesKeysTwice && query.has('keys')) throw queryParseError(KEYS_INCOMPATIBLE);
    }
    layers = [
      ['body', Object.entries(body)],
      ['query', fromQuery],
    ];
  } else {
    // GET: chttpd decodes the first `keys` before parsing the params, so its JSON error comes first.
    const keys = query.get('keys');
    if (keys !== null) {
      const decoded = parseJsonParam(keys);
      if (rules.keysNotArray.get !== undefined && !Array.isArray(decoded)) throw badRequest(rules.keysNotArray.get);
    }
    layers = [['query', fromQuery]];
  }

  const units = defaultUnits(index.defaults, layers);
  const run = (defaults: [string, unknown][]): ViewQuery => {
    const args = initialArgs();
    for (const [source, params] of [['ddoc', defaults] as Layer, ...layers]) {
      const textIntegers = rules.textIntegers.has(source);
      for (const [name, value] of params) applyParam(args, name, paramValue(value, source, textIntegers));
    }
    return validate(args, index);
  };
  if (units.length === 0) return run([]);
  const first = attempt(() => run(units.flat()));
  if (first !== undefined) return first;
  // Some default breaks the query: keep each group of defaults only if the query stays valid with it.
  let accepted: [string, unknown][] = [];
  const pending = [...units];
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

/** The design-document defaults the request leaves in place, by group of related params. */
function defaultUnits(defaults: Record<string, unknown>, layers: Layer[]): [string, unknown][][] {
  const requested = new Set<string | undefined>();
  for (const [, params] of layers) for (const [name] of params) requested.add(unitOf(name));
  const units = new Map<string, [string, unknown][]>();
  for (const [name, value] of Object.entries(isObject(defaults) ? defaults : {})) {
    const unit = unitOf(name);
    if (unit === undefined || !defaultable(name) || requested.has(unit)) continue;
    if (!units.has(unit)) units.set(unit, []);
    units.get(unit)!.push([name, value]);
  }
  return [...units.values()];
}

function attempt(fn: () => ViewQuery): ViewQuery | undefined {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CouchError) return undefined;
    throw error;
  }
}

/** couch_mrview_util:validate_args (in the order of its checks), then check_range. */
function validate(args: Args, index: QueryIndex): ViewQuery {
  // 3.3.1+: a one-element `keys` is rewritten to start_key = end_key = the key (so it works on a
  // reduce view without group=true). It wins over `key`; a `startkey` or `endkey` given as such
  // keeps its bound, making a range (checked like any range below).
  if (index.rules.oneKeyIsKey && Array.isArray(args.keys) && args.keys.length === 1) {
    const [key] = args.keys;
    if (args.explicitStart !== true) args.startkey = key;
    if (args.explicitEnd !== true) args.endkey = key;
    args.keys = undefined;
  }
  // apply_limit runs before validate_args; a partition's query has the lower limit, its default too.
  const partitionScoped = index.partitioned === true && (index.rules === VIEW_RULES || args.partition !== undefined);
  const maxLimit = partitionScoped ? PARTITION_QUERY_LIMIT : MAX_LIMIT;
  if (args.limit !== undefined && args.limit > maxLimit) {
    throw queryParseError(`Limit is too large, must not exceed ${maxLimit}`);
  }
  if (partitionScoped && args.limit === undefined) args.limit = PARTITION_QUERY_LIMIT;
  const groupLevel = determineGroupLevel(args);
  const reducing = index.reduce !== undefined && args.reduce !== false;
  if (!reducing && args.reduce === true) throw queryParseError('Reduce is invalid for map-only views.');
  if (reducing && groupLevel !== 'exact' && Array.isArray(args.keys)) {
    throw queryParseError('Multi-key fetches for reduce views must use `group=true`');
  }
  if (args.keys !== undefined && !Array.isArray(args.keys)) {
    throw queryParseError('`keys` must be an array of strings.');
  }
  if (Array.isArray(args.keys) && args.keys.length > 0 && (args.startkey !== undefined || args.endkey !== undefined)) {
    throw queryParseError(KEYS_INCOMPATIBLE);
  }
  if (args.startkeyDocid !== undefined && typeof args.startkeyDocid !== 'string') {
    throw queryParseError('`start_key_docid` must be a string.');
  }
  if (args.endkeyDocid !== undefined && typeof args.endkeyDocid !== 'string') {
    throw queryParseError('`end_key_docid` must be a string.');
  }
  // direction, limit/skip >= 0, stable, update, inclusive_end and sorted are already typed by parsing.
  if (groupLevel !== 0 && !reducing) throw queryParseError('Invalid use of grouping on a map view.');
  if (reducing && args.includeDocs) throw queryParseError('`include_docs` is invalid for reduce');
  if (reducing && args.conflicts !== undefined) throw queryParseError('`conflicts` is invalid for reduce views.');
  checkPartition(args.partition, index);
  if (index.rules.checksRange) checkRange(args, index.raw);

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
  if (args.partition !== undefined) result.partition = args.partition;
  return result;
}

/**
 * validate_args' partition rules: a partitioned view needs a partition, any other view refuses
 * one, and `_all_docs` takes one in a partitioned database only.
 */
function checkPartition(partition: string | undefined, index: QueryIndex): void {
  const view = index.rules === VIEW_RULES;
  if (index.partitioned === true) {
    if (view && partition === undefined) {
      throw queryParseError('`partition` parameter is mandatory for queries to this view.');
    }
    return;
  }
  if (partition !== undefined) throw queryParseError(index.rules.partitionRefusal);
}

/** 3.x: group_level, when given, wins over group (whatever their order); group=false with a level > 0 is an error. */
function determineGroupLevel(args: Args): 'exact' | number {
  if (args.groupLevel === undefined) return args.group === true ? 'exact' : 0;
  if (args.group === false && args.groupLevel > 0) {
    throw queryParseError("Can't specify group=false and group_level>0 at the same time");
  }
  return args.groupLevel;
}

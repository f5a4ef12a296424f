/**
 * The one table of query parameters, for views and `_all_docs` alike (couch_mrview_http:parse_param
 * fills one #mrargs for both): each parameter's reader, written once. What an endpoint does with
 * the result differently is in ./endpoints.ts; the checks on the whole are in ./query-params.ts.
 */
import { CouchError } from '../../errors.js';
import { parseBool, parseJsonParam, parsePositiveInteger } from '../../support/query-values.js';
import { validatePartition } from '../../documents/partition.js';
import type { ViewQuery } from './query-options.js';

/** Where a value came from: query-string values are text, the others decoded JSON. */
export type Source = 'query' | 'body' | 'member' | 'ddoc';

/**
 * The #mrargs being built: the parsed query's members where parsing already types them, the
 * others loose where CouchDB checks types only in validation.
 */
export type Args = Pick<
  ViewQuery,
  | 'startkey'
  | 'endkey'
  | 'inclusiveEnd'
  | 'descending'
  | 'skip'
  | 'includeDocs'
  | 'updateSeq'
  | 'update'
  | 'stable'
  | 'sorted'
  | 'attachments'
  | 'attEncodingInfo'
> & {
  /** Whether the bound was last set by `startkey`/`endkey` themselves (not by `key`). */
  explicitStart?: boolean;
  explicitEnd?: boolean;
  startkeyDocid?: unknown;
  endkeyDocid?: unknown;
  keys?: unknown;
  limit?: bigint;
  reduce?: boolean;
  group?: boolean;
  groupLevel?: number;
  /** undefined = not given: on a reduce view even `conflicts=false` is an error. */
  conflicts?: boolean;
  partition?: string;
};

export const initialArgs = (): Args => ({
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

export const queryParseError = (reason: string): CouchError => new CouchError('query_parse_error', reason);

/** One value of a parameter, read as its parameter needs it. */
export interface ParamValue {
  /** As it came: text from the query string, decoded JSON otherwise. */
  raw: unknown;
  json(): unknown;
  bool(): boolean;
  /** parse_pos_int, exact (bigint) so that a too large `limit` can be reported. */
  int(): bigint;
  /** couch_util:to_binary: scalars become their text; arrays and objects fail validation later. */
  docId(): unknown;
}

/**
 * A value from `source`; `textIntegers` says whether a decoded string is read as an integer's
 * text (as in a URL) rather than refused as a string.
 */
export function paramValue(raw: unknown, source: Source, textIntegers: boolean): ParamValue {
  const decoded = source !== 'query';
  return {
    raw,
    json: () => (decoded ? raw : parseJsonParam(raw as string)),
    bool: () => toBool(raw),
    int: () => positiveInteger(raw, decoded && !(textIntegers && typeof raw === 'string')),
    docId: () => docId(raw),
  };
}

/** Params a request overrides as a whole: giving one of them discards the ddoc defaults of all. */
export type Unit = 'range' | 'group' | 'freshness';

interface Param {
  unit?: Unit;
  /** Never a design-document default. */
  requestOnly?: true;
  apply(args: Args, value: ParamValue): void;
}

const rangeParam = (apply: Param['apply']): Param => ({ unit: 'range', apply });

/**
 * couch_mrview_http:parse_param, one reader a parameter. `''` (as in `?&limit=1`), `callback`,
 * `count` and unknown names are not here: they are ignored, as in CouchDB 3.
 */
const PARAMS: Record<string, Param> = {
  reduce: { apply: (a, v) => void (a.reduce = v.bool()) },
  key: rangeParam((a, v) => {
    const key = v.json();
    a.startkey = key;
    a.endkey = key;
    a.explicitStart = a.explicitEnd = false;
  }),
  keys: rangeParam((a, v) => void (a.keys = v.json())),
  startkey: rangeParam((a, v) => {
    a.startkey = v.json();
    a.explicitStart = true;
  }),
  endkey: rangeParam((a, v) => {
    a.endkey = v.json();
    a.explicitEnd = true;
  }),
  startkey_docid: rangeParam((a, v) => void (a.startkeyDocid = v.docId())),
  endkey_docid: rangeParam((a, v) => void (a.endkeyDocid = v.docId())),
  limit: { apply: (a, v) => void (a.limit = v.int()) },
  skip: { apply: (a, v) => void (a.skip = Number(v.int())) },
  group: { unit: 'group', apply: (a, v) => void (a.group = v.bool()) },
  group_level: { unit: 'group', apply: (a, v) => void (a.groupLevel = Number(v.int())) },
  stale: {
    unit: 'freshness',
    apply(a, v) {
      if (v.raw === 'ok') a.update = 'false';
      else if (v.raw === 'update_after') a.update = 'lazy';
      else throw queryParseError('Invalid value for `stale`.');
      a.stable = true;
    },
  },
  // `stable` and `update` are matched exactly (no case folding), unlike booleans.
  stable: {
    unit: 'freshness',
    apply(a, v) {
      if (v.raw === true || v.raw === 'true') a.stable = true;
      else if (v.raw === false || v.raw === 'false') a.stable = false;
      else throw queryParseError('Invalid value for `stable`.');
    },
  },
  update: {
    unit: 'freshness',
    apply(a, v) {
      if (v.raw === true || v.raw === 'true') a.update = 'true';
      else if (v.raw === false || v.raw === 'false') a.update = 'false';
      else if (v.raw === 'lazy') a.update = 'lazy';
      else throw queryParseError('Invalid value for `update`.');
    },
  },
  descending: { apply: (a, v) => void (a.descending = v.bool()) },
  inclusive_end: { apply: (a, v) => void (a.inclusiveEnd = v.bool()) },
  include_docs: { apply: (a, v) => void (a.includeDocs = v.bool()) },
  // CouchDB only ever adds these doc options; here a later `false` overrides (so a request can undo a ddoc default).
  attachments: { apply: (a, v) => void (a.attachments = v.bool()) },
  att_encoding_info: { apply: (a, v) => void (a.attEncodingInfo = v.bool()) },
  update_seq: { apply: (a, v) => void (a.updateSeq = v.bool()) },
  conflicts: { apply: (a, v) => void (a.conflicts = v.bool()) },
  sorted: { apply: (a, v) => void (a.sorted = v.bool()) },
  // couch_mrview_http checks the name as it parses it.
  partition: { requestOnly: true, apply: (a, v) => void (a.partition = validatePartition(v.raw)) },
};

const ALIASES: Record<string, string> = {
  start_key: 'startkey',
  end_key: 'endkey',
  start_key_doc_id: 'startkey_docid',
  end_key_doc_id: 'endkey_docid',
};

const paramOf = (name: string): Param | undefined => PARAMS[ALIASES[name] ?? name];

/** Applies one parameter to `args`; unknown names are ignored. */
export function applyParam(args: Args, name: string, value: ParamValue): void {
  paramOf(name)?.apply(args, value);
}

/** The group of params `name` is overridden with (itself when alone); undefined if it is no parameter. */
export function unitOf(name: string): string | undefined {
  const param = paramOf(name);
  return param === undefined ? undefined : (param.unit ?? ALIASES[name] ?? name);
}

/** Whether a design document's `options` may give `name` a default. */
export const defaultable = (name: string): boolean => paramOf(name)?.requestOnly === undefined;

/** parse_boolean: `true`/`false` in any case, or a decoded boolean. */
function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return parseBool(value);
  // CouchDB crashes (500) on a decoded non-string; answer the parse error instead.
  throw queryParseError(`Invalid boolean parameter: ${JSON.stringify(value)}`);
}

function positiveInteger(value: unknown, decoded: boolean): bigint {
  if (!decoded) {
    parsePositiveInteger(String(value));
    return BigInt(String(value));
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (value < 0) throw queryParseError(`Invalid value for positive integer: ${value}`);
    return BigInt(value);
  }
  throw queryParseError(`Invalid value for integer: ${erlangTerm(value)}`);
}

/** ~p of a decoded JSON value: strings are binaries (`<<"5">>`); the rest close enough as JSON. */
function erlangTerm(value: unknown): string {
  return typeof value === 'string' ? `<<${JSON.stringify(value)}>>` : String(JSON.stringify(value));
}

function docId(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

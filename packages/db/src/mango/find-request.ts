/**
 * The body of `POST /{db}/_find` and `/_explain` (mango_opts:validate_find): every member checked
 * in CouchDB's fixed order, each with its default, the first failure reported; then any member
 * left over is `invalid_key`. Where CouchDB answers 500 (a non-string bookmark, a bad `stale`)
 * the answer here is a 400 saying what is wrong.
 */
import type { Viewer } from '../documents/replicator-reads.js';
import { CouchError } from '../errors.js';
import { type JsonValue, JsonNumber, JsonObject } from '../json/index.js';
import { formatW } from './erlang-text.js';
import { parseFields, type Projection } from './projection.js';
import { parseSelector, type Selector } from './selector.js';
import { parseSort, type SortField } from './sort.js';

/** `use_index` parsed: `[]` (none), `[ddoc]` or `[ddoc, name]`, ddoc without `_design/`. */
export type UseIndex = readonly [] | readonly [string] | readonly [string, string];

export interface FindRequest {
  readonly selector: Selector;
  readonly useIndex: UseIndex;
  /** undefined for none (absent, `null` or `""`; `_explain` shows `"nil"`). */
  readonly bookmark: string | undefined;
  readonly limit: number;
  readonly skip: number;
  readonly sort: readonly SortField[];
  readonly fields: Projection;
  readonly partition: string;
  readonly r: number;
  readonly conflicts: boolean;
  /** `"ok"` or false (`"false"` reads as false). */
  readonly stale: 'ok' | false;
  readonly update: boolean;
  readonly stable: boolean;
  readonly executionStats: boolean;
  readonly allowFallback: boolean;
  /** Who reads: documents are judged and answered as they may see them (documents/replicator-reads.ts). */
  readonly viewer?: Viewer;
}

/** The default `limit` (CouchDB's `[mango] default_limit`). */
export const DEFAULT_LIMIT = 25;

const MEMBERS = [
  'selector',
  'use_index',
  'bookmark',
  'limit',
  'skip',
  'sort',
  'fields',
  'partition',
  'r',
  'conflicts',
  'stale',
  'update',
  'stable',
  'execution_stats',
  'allow_fallback',
] as const;

const KNOWN: ReadonlySet<string> = new Set(MEMBERS);

/** Parses a `_find`/`_explain` body (any JSON value) into a typed request, or throws CouchDB's 400. */
export function parseFindRequest(body: JsonValue): FindRequest {
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object', 400);
  const get = (name: (typeof MEMBERS)[number]): JsonValue | undefined => body.get(name);

  const selectorJson = get('selector');
  if (selectorJson === undefined) throw new CouchError('missing_required_key', 'Missing required key: selector', 400);
  if (!(selectorJson instanceof JsonObject)) {
    throw new CouchError('invalid_selector_json', `Selector must be a JSON object, not: ${formatW(selectorJson)}`, 400);
  }
  const selector = parseSelector(selectorJson);
  const useIndex = parseUseIndex(get('use_index'));
  const bookmark = parseBookmark(get('bookmark'));
  const limit = nonNegativeInteger(get('limit'), DEFAULT_LIMIT);
  const skip = nonNegativeInteger(get('skip'), 0);
  const sort = parseSort(get('sort'));
  const fields = parseFields(get('fields'));
  const partition = parsePartition(get('partition'));
  const r = positiveInteger(get('r'), 1);
  const conflicts = boolean(get('conflicts'), false);
  const stale = parseStale(get('stale'));
  const update = boolean(get('update'), true);
  const stable = boolean(get('stable'), false);
  const executionStats = boolean(get('execution_stats'), false);
  const allowFallback = boolean(get('allow_fallback'), true);
  const unknown = body.keys.find((key) => !KNOWN.has(key));
  if (unknown !== undefined) throw new CouchError('invalid_key', `Invalid key ${unknown} for this request.`, 400);
  return {
    selector,
    useIndex,
    bookmark,
    limit,
    skip,
    sort,
    fields,
    partition,
    r,
    conflicts,
    stale,
    update,
    stable,
    executionStats,
    allowFallback,
  };
}

/** `use_index`: `"ddoc"`, `"_design/ddoc"`, `"ddoc/name"`, `"_design/ddoc/name"`, `[]`, `null`, `[ddoc]`, `[ddoc, name]`. */
export function parseUseIndex(json: JsonValue | undefined): UseIndex {
  if (json === undefined || json === null) return [];
  if (typeof json === 'string') {
    const parts = json.split('/');
    if (parts.length === 1) return [parts[0]!];
    if (parts.length === 2) return parts[0] === '_design' ? [parts[1]!] : [parts[0]!, parts[1]!];
    if (parts.length === 3 && parts[0] === '_design') return [parts[1]!, parts[2]!];
  } else if (Array.isArray(json) && json.every((part) => typeof part === 'string')) {
    if (json.length === 0) return [];
    if (json.length === 1) return [json[0] as string];
    if (json.length === 2) return [json[0] as string, json[1] as string];
  }
  throw new CouchError('invalid_index_name', `Invalid index name: ${formatW(json)}`, 400);
}

function parseBookmark(json: JsonValue | undefined): string | undefined {
  if (json === undefined || json === null || json === '') return undefined;
  if (typeof json === 'string') return json;
  // CouchDB: 500 {invalid_bookmark, …}.
  throw new CouchError('invalid_bookmark', `Invalid bookmark value: ${formatW(json)}`, 400);
}

function isInteger(json: JsonValue): json is number | JsonNumber {
  return typeof json === 'number' ? Number.isSafeInteger(json) : json instanceof JsonNumber && !json.isFloat;
}

/** An integer's value; big integers beyond any count are clamped. */
function integerValue(json: number | JsonNumber): number {
  return typeof json === 'number' ? json : Math.min(json.toNumber(), Number.MAX_SAFE_INTEGER);
}

function nonNegativeInteger(json: JsonValue | undefined, fallback: number): number {
  if (json === undefined) return fallback;
  if (isInteger(json) && integerValue(json) >= 0) return integerValue(json);
  throw new CouchError(
    'invalid_non_neg_integer',
    `${formatW(json)} is not an integer greater than or equal to zero`,
    400,
  );
}

function positiveInteger(json: JsonValue | undefined, fallback: number): number {
  if (json === undefined) return fallback;
  if (isInteger(json) && integerValue(json) > 0) return integerValue(json);
  throw new CouchError('invalid_pos_integer', `${formatW(json)} is not an integer greater than zero`, 400);
}

function boolean(json: JsonValue | undefined, fallback: boolean): boolean {
  if (json === undefined) return fallback;
  if (typeof json === 'boolean') return json;
  throw new CouchError('invalid_boolean', `Invalid boolean value: ${formatW(json)}`, 400);
}

function parsePartition(json: JsonValue | undefined): string {
  if (json === undefined) return '';
  if (typeof json === 'string') return json;
  throw new CouchError('illegal_partition', 'Partition must be a string', 400);
}

function parseStale(json: JsonValue | undefined): 'ok' | false {
  if (json === undefined || json === false || json === 'false') return false;
  if (json === 'ok') return 'ok';
  // CouchDB: 500 {invalid_ok_or_false_value, …}.
  throw new CouchError(
    'invalid_ok_or_false_value',
    `Invalid value for stale: ${formatW(json)}, expected "ok" or false`,
    400,
  );
}

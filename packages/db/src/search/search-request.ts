/**
 * The parameters of `GET/POST /{db}/_design/{ddoc}/_search/{index}`, from the query string or
 * a JSON body (the body's members win), checked as dreyfus_httpd checks them. `partition` is
 * checked against the design document by ./search-partition.ts.
 */
import type { Viewer } from '../documents/replicator-reads.js';
import { CouchError } from '../errors.js';
import { parseBool, parseJsonParam, parsePositiveInteger } from '../support/query-values.js';
import { type FacetParams, parseCounts, parseDrilldown, parseRanges } from './facets.js';
import type { HighlightParams } from './highlights.js';
import { GLOBAL_LIMITS, partitionParam, type SearchLimits } from './search-partition.js';

export interface SortField {
  /** A field's name; `<score>` / `<doc>` for relevance and index order. */
  field: string;
  type: 'number' | 'string' | 'score' | 'doc';
  descending: boolean;
}

export interface SearchParams {
  query: string;
  limit: number;
  bookmark: string | undefined;
  /** Undefined: by relevance. */
  sort: SortField[] | undefined;
  includeDocs: boolean;
  conflicts: boolean;
  includeFields: string[] | undefined;
  /**
   * `now` (the default): the index brought up to date first; `never` (`stale=ok`,
   * `update=false`): answered from the index as it is; `after` (`stale=update_after`,
   * `update=lazy`): as it is, then brought up to date.
   */
  update: 'now' | 'never' | 'after';
  facets: FacetParams;
  /** `group_field`: hits grouped by a field's value, `group_limit` groups, ordered by `group_sort`. */
  group: { field: string; limit: number; sort: SortField[] | undefined } | undefined;
  highlight: HighlightParams | undefined;
  /** Only the hits of this partition's documents (a partitioned index's query). */
  partition?: string;
  /** Who reads the included documents (a replication document's credentials: documents/replicator-reads.ts). */
  viewer?: Viewer;
}

/** Groups a grouped search answers when `group_limit` is not given. */
const DEFAULT_GROUP_LIMIT = 10;

const KNOWN = new Set([
  'q',
  'query',
  'limit',
  'bookmark',
  'sort',
  'include_docs',
  'conflicts',
  'include_fields',
  'stale',
  'update',
  'counts',
  'ranges',
  'drilldown',
  'group_field',
  'group_limit',
  'group_sort',
  'highlight_fields',
  'highlight_pre_tag',
  'highlight_post_tag',
  'highlight_number',
  'highlight_size',
  'partition',
]);

const bad = (reason: string) => new CouchError('bad_request', reason);

export function parseSearchParams(
  query: URLSearchParams,
  body: Record<string, unknown> | undefined,
  /** The database's (./search-partition.ts searchLimits): a partitioned one's searches take more. */
  limits: SearchLimits = GLOBAL_LIMITS,
): SearchParams {
  const values = new Map<string, unknown>();
  for (const [name, raw] of query) values.set(name, { raw });
  for (const [name, value] of Object.entries(body ?? {})) values.set(name, { value });
  for (const name of values.keys()) {
    if (!KNOWN.has(name)) throw new CouchError('query_parse_error', `Unknown search parameter: ${name}`);
  }
  const get = (name: string): { raw?: string; value?: unknown } | undefined =>
    values.get(name) as { raw?: string; value?: unknown } | undefined;

  const q = get('q') ?? get('query');
  const text = q?.raw ?? q?.value;
  if (text === undefined)
    throw new CouchError('query_parse_error', 'No query parameter found: `q` or `query` is required');
  if (typeof text !== 'string') throw bad('`q` must be a string');

  const partition = partitionParam(query, body);
  return {
    query: text,
    limit: limitOf(get('limit'), limits),
    bookmark: stringOf(get('bookmark'), 'bookmark'),
    sort: sortOf(get('sort')),
    includeDocs: boolOf(get('include_docs'), 'include_docs'),
    conflicts: boolOf(get('conflicts'), 'conflicts'),
    includeFields: includeFieldsOf(get('include_fields')),
    update: updateOf(get('stale'), get('update')),
    facets: {
      counts: jsonOf(get('counts'), parseCounts),
      ranges: jsonOf(get('ranges'), parseRanges),
      drilldown: drilldownOf(query, body),
    },
    group: groupOf(get('group_field'), get('group_limit'), get('group_sort')),
    highlight: highlightOf(get),
    ...(partition === undefined ? {} : { partition }),
  };
}

/** `highlight_fields` and its options (Clouseau's defaults: `<em>`, `</em>`, 1 fragment of 100 characters). */
function highlightOf(
  get: (name: string) => { raw?: string; value?: unknown } | undefined,
): HighlightParams | undefined {
  const fields = get('highlight_fields');
  const options = ['highlight_pre_tag', 'highlight_post_tag', 'highlight_number', 'highlight_size'];
  if (fields === undefined) {
    const stray = options.find((name) => get(name) !== undefined);
    if (stray !== undefined) throw new CouchError('query_parse_error', `\`${stray}\` needs \`highlight_fields\``);
    return undefined;
  }
  const names = includeFieldsOf(fields, 'highlight_fields')!;
  const count = (name: string, fallback: number): number => {
    const param = get(name);
    if (param === undefined) return fallback;
    const value = param.raw !== undefined ? parsePositiveInteger(param.raw) : param.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new CouchError('query_parse_error', `\`${name}\` must be a positive integer`);
    }
    return value;
  };
  return {
    fields: names,
    pre: stringOf(get('highlight_pre_tag'), 'highlight_pre_tag') ?? '<em>',
    post: stringOf(get('highlight_post_tag'), 'highlight_post_tag') ?? '</em>',
    number: count('highlight_number', 1),
    size: count('highlight_size', 100),
  };
}

function groupOf(
  field: { raw?: string; value?: unknown } | undefined,
  limit: { raw?: string; value?: unknown } | undefined,
  sort: { raw?: string; value?: unknown } | undefined,
): SearchParams['group'] {
  if (field === undefined) {
    if (limit !== undefined || sort !== undefined) {
      throw new CouchError('query_parse_error', '`group_limit` and `group_sort` need a `group_field`');
    }
    return undefined;
  }
  const name = stringOf(field, 'group_field')!;
  let groups = DEFAULT_GROUP_LIMIT;
  if (limit !== undefined) {
    const value = limit.raw !== undefined ? parsePositiveInteger(limit.raw) : limit.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new CouchError('query_parse_error', '`group_limit` must be a positive integer');
    }
    groups = value;
  }
  return { field: name, limit: groups, sort: sortOf(sort) };
}

/** A JSON-valued parameter (JSON text in a query string), checked by `parse`. */
function jsonOf<T>(param: { raw?: string; value?: unknown } | undefined, parse: (value: unknown) => T): T | undefined {
  if (param === undefined) return undefined;
  return parse(param.raw !== undefined ? parseJsonParam(param.raw) : param.value);
}

/** `drilldown`: repeated in a query string, an array of them (or one) in a body. */
function drilldownOf(query: URLSearchParams, body: Record<string, unknown> | undefined): string[][] | undefined {
  if (body?.drilldown !== undefined) {
    const value = body.drilldown;
    if (Array.isArray(value) && value.every((v) => Array.isArray(v))) return value.map(parseDrilldown);
    return [parseDrilldown(value)];
  }
  const raw = query.getAll('drilldown');
  return raw.length === 0 ? undefined : raw.map((text) => parseDrilldown(parseJsonParam(text)));
}

function limitOf(param: { raw?: string; value?: unknown } | undefined, limits: SearchLimits): number {
  if (param === undefined) return limits.default;
  const value = param.raw !== undefined ? parsePositiveInteger(param.raw) : param.value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new CouchError('query_parse_error', 'limit must be a non-negative integer');
  }
  if (value > limits.max) throw new CouchError('query_parse_error', `Limit is ${value}, maximum is ${limits.max}`);
  return value;
}

function stringOf(param: { raw?: string; value?: unknown } | undefined, name: string): string | undefined {
  if (param === undefined) return undefined;
  const value = param.raw ?? param.value;
  if (typeof value !== 'string') throw bad(`\`${name}\` must be a string`);
  return value;
}

function boolOf(param: { raw?: string; value?: unknown } | undefined, name: string): boolean {
  if (param === undefined) return false;
  const value = param.raw !== undefined ? parseBool(param.raw) : param.value;
  if (typeof value !== 'boolean') throw new CouchError('query_parse_error', `Invalid boolean parameter: ${name}`);
  return value;
}

function includeFieldsOf(
  param: { raw?: string; value?: unknown } | undefined,
  name = 'include_fields',
): string[] | undefined {
  if (param === undefined) return undefined;
  const value = param.raw !== undefined ? parseJsonParam(param.raw) : param.value;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw bad(`\`${name}\` must be an array of field names`);
  }
  return value as string[];
}

function updateOf(
  stale: { raw?: string; value?: unknown } | undefined,
  update: { raw?: string; value?: unknown } | undefined,
): SearchParams['update'] {
  if (stale !== undefined) {
    const value = stale.raw ?? stale.value;
    if (value === 'ok') return 'never';
    if (value === 'update_after') return 'after';
    throw new CouchError('query_parse_error', 'stale must be `ok` or `update_after`');
  }
  if (update === undefined) return 'now';
  const value = update.raw ?? update.value;
  if (value === true || value === 'true') return 'now';
  if (value === false || value === 'false') return 'never';
  if (value === 'lazy') return 'after';
  throw new CouchError('query_parse_error', 'update must be `true`, `false` or `lazy`');
}

/** Clouseau's sort field syntax: `[-+]name[<number|string>]`, `<score>`, `<doc>`; numbers by default. */
const SORT_FIELD = /^([-+])?([.\w]+)(?:<(\w+)>)?$/u;

function sortOf(param: { raw?: string; value?: unknown } | undefined): SortField[] | undefined {
  if (param === undefined) return undefined;
  let value: unknown = param.value;
  if (param.raw !== undefined) {
    // A bare field name works too in a query string (`sort=foo`), as CouchDB's docs write it.
    value = /^\s*[["]/.test(param.raw) ? parseJsonParam(param.raw) : param.raw;
  }
  const specs = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(specs) || specs.length === 0 || specs.some((s) => typeof s !== 'string')) {
    throw bad('`sort` must be a field name or an array of field names');
  }
  return (specs as string[]).map(sortField);
}

function sortField(spec: string): SortField {
  const special = /^([-+])?<(score|doc)>$/.exec(spec);
  if (special !== null)
    return { field: `<${special[2]}>`, type: special[2] as 'score' | 'doc', descending: special[1] === '-' };
  const match = SORT_FIELD.exec(spec);
  if (match === null) throw bad(`Unrecognized sort field: ${spec}`);
  const type = match[3] ?? 'number';
  if (type !== 'number' && type !== 'string') throw bad(`Unrecognized type: ${type}`);
  return { field: match[2]!, type, descending: match[1] === '-' };
}

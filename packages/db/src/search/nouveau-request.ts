/**
 * The parameters of `GET/POST /{db}/_design/{ddoc}/_nouveau/{index}`, checked as CouchDB 3.5's
 * nouveau_httpd and the Nouveau server (SearchRequest's bounds) check them, and turned into the
 * search index's own parameters (./search-request.ts). A GET takes them from the query string
 * (JSON text for `sort`, `counts`, `ranges`), a POST from its JSON body (`partition` from the
 * query string either way, as `/{db}/_partition/{p}/_design/...` puts it there). Nouveau reads only the names it knows; so does this.
 */
import { CouchError } from '../errors.js';
import { parseJsonParam } from '../support/query-values.js';
import type { NamedRange } from './facets.js';
import type { SearchParams, SortField } from './search-request.js';

export interface NouveauParams {
  search: SearchParams;
  /** `top_n`: how many values of each `counts` field (the most frequent), 1 to 100, default 10. */
  topN: number;
  /** The `sort` fields as asked (the answer's `order` follows them), undefined: by relevance. */
  sort: SortField[] | undefined;
}

const qpe = (reason: string) => new CouchError('query_parse_error', reason);

/** Nouveau's sort field: `[-+]name<string|double>`, or `relevance`. */
const SORT_FIELD = /^([-+])?([.\w]+)(?:<(\w+)>)$/u;

export function parseNouveauParams(query: URLSearchParams, body: Record<string, unknown> | undefined): NouveauParams {
  const fromBody = body !== undefined;
  const get = (name: string): unknown => (fromBody ? body[name] : (query.get(name) ?? undefined));
  /** A JSON-valued parameter: JSON text in a query string, a value in a body. */
  const json = (name: string): unknown => {
    const value = get(name);
    return value === undefined || fromBody ? value : parseJsonParam(value as string);
  };

  if (get('locale') !== undefined) {
    throw new CouchError('not_implemented', 'Not available on this server yet: Nouveau query locales (`locale`).');
  }
  const q = get('q');
  if (q === undefined || q === null) throw qpe('q parameter is mandatory');
  if (typeof q !== 'string') throw invalid('query', q);

  const sort = sortOf(json('sort'));
  const counts = json('counts');
  if (counts !== undefined && counts !== null && !isStrings(counts)) {
    throw qpe('all items in counts parameter must be strings');
  }
  // A partition's search (the query string's, POST too): Nouveau adds `_partition:{p}` to the query.
  const partition = query.get('partition') ?? undefined;
  return {
    search: {
      ...(partition === undefined ? {} : { partition }),
      query: q,
      limit: limitOf(get('limit')),
      bookmark: bookmarkOf(get('bookmark')),
      sort,
      includeDocs: boolOf('include_docs', get('include_docs')),
      conflicts: false,
      includeFields: undefined,
      update: boolOf('update', get('update'), true) ? 'now' : 'never',
      facets: {
        counts: counts === undefined || counts === null ? undefined : (counts as string[]),
        ranges: rangesOf(json('ranges')),
        drilldown: undefined,
      },
      group: undefined,
      highlight: undefined,
    },
    topN: topNOf(get('top_n')),
    sort,
  };
}

function invalid(name: string, value: unknown): CouchError {
  return qpe(`Invalid value for ${name}: ${JSON.stringify(value)}`);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function limitOf(value: unknown): number {
  if (value === undefined || value === null) return 25;
  if (typeof value === 'string') {
    if (!/^-?\d+$/.test(value)) throw qpe('limit parameter must be an integer');
    value = Number(value);
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid('limit', value);
  if (value <= 0) throw qpe('limit parameter must be greater than zero');
  return value;
}

function topNOf(value: unknown): number {
  if (value === undefined || value === null) return 10;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 100) {
    throw new CouchError('bad_request', 'top_n must be an integer from 1 to 100');
  }
  return n;
}

function bookmarkOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid('bookmark', value);
  return value;
}

function boolOf(name: string, value: unknown, fallback = false): boolean {
  if (value === undefined || value === null) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid(name, value);
}

function sortOf(value: unknown): SortField[] | undefined {
  if (value === undefined || value === null) return undefined;
  const specs = typeof value === 'string' ? [value] : value;
  if (!isStrings(specs)) throw qpe('sort parameter must be a list of strings');
  const fields = specs.map(sortField);
  // Nouveau ends every sort with `_id<string>` (the ties' order, ascending here too).
  const last = specs[specs.length - 1];
  if (last === '_id<string>') fields.pop();
  if (fields.some((f) => f.field === '_id')) {
    throw new CouchError(
      'not_implemented',
      'Not available on this server yet: Nouveau sorts on `_id` but last, ascending.',
    );
  }
  // `_id<string>` alone: the ids' order, which is the index's.
  if (fields.length === 0) return specs.length === 0 ? undefined : [{ field: '<doc>', type: 'doc', descending: false }];
  return fields;
}

function sortField(spec: string): SortField {
  if (spec === 'relevance') return { field: '<score>', type: 'score', descending: false };
  const match = SORT_FIELD.exec(spec);
  if (match === null) throw new CouchError('bad_request', `${spec} is not a valid sort parameter`);
  const type = match[3];
  if (type !== 'string' && type !== 'double') throw new CouchError('bad_request', `${type} is not a valid sort type`);
  return { field: match[2]!, type: type === 'double' ? 'number' : 'string', descending: match[1] === '-' };
}

/**
 * Nouveau's `ranges`: `{"field": [{"label", "min", "max", "min_inclusive", "max_inclusive"}]}`
 * (an absent bound open, both inclusive by default).
 */
function rangesOf(value: unknown): { field: string; ranges: NamedRange[] }[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('ranges', value);
  return Object.entries(value as Record<string, unknown>).map(([field, list]) => {
    if (!Array.isArray(list)) throw qpe('range values must be lists of objects');
    return {
      field,
      ranges: list.map((range: unknown) => {
        if (typeof range !== 'object' || range === null || Array.isArray(range)) {
          throw qpe('all values in ranges parameter must be objects');
        }
        const r = range as Record<string, unknown>;
        const bound = (name: string, open: number): number => {
          const b = r[name];
          if (b === undefined || b === null) return open;
          if (typeof b !== 'number') throw new CouchError('bad_request', `${name} of a range must be a number`);
          return b;
        };
        const inclusive = (name: string): boolean => {
          const b = r[name];
          if (b === undefined || b === null) return true;
          if (typeof b !== 'boolean') throw new CouchError('bad_request', `${name} of a range must be a boolean`);
          return b;
        };
        if (typeof r.label !== 'string') throw new CouchError('bad_request', 'label of a range must be a string');
        return {
          label: r.label,
          lower: bound('min', -Infinity),
          upper: bound('max', Infinity),
          includeLower: inclusive('min_inclusive'),
          includeUpper: inclusive('max_inclusive'),
        };
      }),
    };
  });
}

/**
 * The `sort` of a Mango query (mango_sort): an array of field names (ascending) or one-member
 * objects `{"field": "asc"|"desc"}`, all in one direction.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonObject } from '../json/index.js';
import { formatP } from './erlang-text.js';

export type SortDirection = 'asc' | 'desc';

export interface SortField {
  /** The field name as written (a path; CouchDB does not check it here). */
  readonly field: string;
  readonly direction: SortDirection;
}

/** Parses `sort` with CouchDB's 400s; `[]` when absent. */
export function parseSort(json: JsonValue | undefined): SortField[] {
  if (json === undefined) return [];
  if (!Array.isArray(json)) {
    throw new CouchError('invalid_sort_json', `Sort must be an array of sort specs, not: ${formatP(json)}`, 400);
  }
  const fields = json.map(parseSortField);
  if (fields.some((f) => f.direction !== fields[0]!.direction)) {
    throw new CouchError(
      'unsupported_mixed_sort',
      'Sorts currently only support a single direction for all fields.',
      400,
    );
  }
  return fields;
}

function parseSortField(item: JsonValue): SortField {
  if (typeof item === 'string' && item !== '') return { field: item, direction: 'asc' };
  if (item instanceof JsonObject && item.size === 1) {
    const field = item.keys[0]!;
    const direction = item.values[0];
    if (field !== '' && (direction === 'asc' || direction === 'desc')) return { field, direction };
  }
  throw new CouchError('invalid_sort_field', `Invalid sort field: ${formatP(item)}`, 400);
}

/** The direction of a sort (ascending when empty). */
export function sortDirection(sort: readonly SortField[]): SortDirection {
  return sort[0]?.direction ?? 'asc';
}

/** The sort as `_explain` shows it in `opts.sort`: `{}` or `{"f":"asc",…}`. */
export function sortToJson(sort: readonly SortField[]): JsonObject {
  return new JsonObject(
    sort.map((f) => f.field),
    sort.map((f) => f.direction),
  );
}

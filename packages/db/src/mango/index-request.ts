/**
 * The body of `POST /{db}/_index`, read as CouchDB 3.5 reads it: `index` (an object with
 * `fields`, the sort syntax, and an optional `partial_filter_selector`; for `"type": "text"` a
 * text index's definition, ./text-index.ts), `type`, `name`, `ddoc`,
 * `w`, `partitioned`, each checked in that order with CouchDB's errors; any other member is a
 * 400 `invalid_key`. Where CouchDB answers 500 (a bad `partitioned`), this answers 400.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonObject, isFloat } from '../json/index.js';
import { formatW } from './erlang-text.js';
import type { IndexRequest } from './indexes.js';
import { parseSelector, selectorToJson } from './selector.js';
import { parseSort } from './sort.js';
import { textIndexDef } from './text-index.js';

const KNOWN = new Set(['index', 'type', 'name', 'ddoc', 'w', 'partitioned']);

export function parseIndexRequest(body: JsonValue): IndexRequest {
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object', 400);
  const def = body.get('index');
  if (def === undefined) throw new CouchError('missing_required_key', 'Missing required key: index', 400);
  let request: IndexRequest;
  const kind = body.get('type');
  if (kind === 'text' || kind === 'nouveau') {
    // A text or nouveau index (./text-index.ts): its own definition, every member optional.
    request = { def, fields: [], type: kind, textDef: textIndexDef(def, kind) };
  } else {
    if (!(def instanceof JsonObject)) {
      throw new CouchError('invalid_index', `JSON indexes must be an object, not: ${formatW(def)}`, 400);
    }
    const spec = def.get('fields');
    if (spec === undefined) throw new CouchError('missing_required_key', 'Missing required key: fields', 400);
    const fields = parseSort(spec).map(({ field, direction }) => ({ name: field, dir: direction }));
    let partialFilter: JsonObject | undefined;
    for (const key of def.keys) {
      if (key === 'fields') continue;
      if (key !== 'partial_filter_selector')
        throw new CouchError('invalid_key', `Invalid key ${key} for this request.`, 400);
      const selector = def.get(key)!;
      if (!(selector instanceof JsonObject)) {
        throw new CouchError('invalid_selector_json', `Selector must be a JSON object, not: ${formatW(selector)}`, 400);
      }
      const normalized = selectorToJson(parseSelector(selector));
      if (normalized instanceof JsonObject && normalized.size > 0) partialFilter = normalized;
    }
    request = { def, fields, type: 'json', ...(partialFilter ? { partialFilter } : {}) };
  }
  const type = body.get('type');
  if (type !== undefined) {
    if (typeof type !== 'string') throw new CouchError('invalid_string', `Invalid string: ${formatW(type)}`, 400);
    if (type !== 'json' && type !== 'text' && type !== 'nouveau')
      throw new CouchError('invalid_index', `Invalid type for index: ${type}`, 400);
  }
  const name = optionalString(body.get('name'));
  if (name !== undefined) request.name = name;
  const ddoc = optionalString(body.get('ddoc'));
  if (ddoc !== undefined) request.ddoc = ddoc;
  const w = body.get('w');
  if (w !== undefined) {
    if (typeof w !== 'number' || isFloat(w) || !Number.isSafeInteger(w) || w <= 0) {
      throw new CouchError('invalid_pos_integer', `${formatW(w)} is not an integer greater than zero`, 400);
    }
    request.w = w;
  }
  const partitioned = body.get('partitioned');
  if (partitioned !== undefined) {
    if (typeof partitioned !== 'boolean') {
      throw new CouchError('invalid_boolean', `Invalid boolean value: ${formatW(partitioned)}`, 400);
    }
    // `true` needs a partitioned database (./indexes.ts).
    request.partitioned = partitioned;
  }
  for (const key of body.keys) {
    if (!KNOWN.has(key)) throw new CouchError('invalid_key', `Invalid key ${key} for this request.`, 400);
  }
  return request;
}

/** `name` and `ddoc`: a non-empty string when given. */
function optionalString(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new CouchError('invalid_string', `Invalid string: ${formatW(value)}`, 400);
  if (value === '') throw new CouchError('invalid_empty_string', 'Index name or ddoc cannot be empty string', 400);
  return value;
}

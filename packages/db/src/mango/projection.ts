/**
 * The `fields` of a Mango query (and of a `_selector` changes filter): which members of each
 * result to keep (mango_fields).
 *
 * Each listed path that resolves in the document is copied into a new object at the same path,
 * in the order of `fields`; paths through arrays create objects with numeric member names
 * (`"scores.0"` → `{"scores":{"0":…}}`), missing paths are left out, and a listed parent wins
 * over a listed child. `[]` (or no `fields`) keeps the whole document.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonObject } from '../json/index.js';
import { formatW } from './erlang-text.js';
import { BAD_PATH, type FieldPath, NOT_FOUND, parseFieldPath, resolvePath } from './field-path.js';

export interface Projection {
  /** The field names as given (what `_explain` echoes). */
  readonly names: readonly string[];
  readonly paths: readonly FieldPath[];
}

/** Every field: `fields` absent or `[]`. */
export const ALL_FIELDS: Projection = { names: [], paths: [] };

/** Parses `fields` with CouchDB's 400s (an object entry, a 500 in CouchDB, is refused as invalid JSON). */
export function parseFields(json: JsonValue | undefined): Projection {
  if (json === undefined) return ALL_FIELDS;
  if (!Array.isArray(json)) {
    throw new CouchError('invalid_fields', `Fields must be an array of strings, not: ${formatW(json)}`, 400);
  }
  const names: string[] = [];
  const paths: FieldPath[] = [];
  for (const item of json) {
    if (typeof item !== 'string') {
      throw new CouchError('invalid_field', `Invalid JSON for field spec: ${formatW(item)}`, 400);
    }
    paths.push(parseFieldPath(item));
    names.push(item);
  }
  return { names, paths };
}

export function isAllFields(projection: Projection): boolean {
  return projection.paths.length === 0;
}

/** The document reduced to the projection's fields (the document itself for all fields). */
export function project(doc: JsonObject, projection: Projection): JsonObject {
  if (isAllFields(projection)) return doc;
  const out = new JsonObject();
  // Objects this projection built (as opposed to values copied from the document, which must
  // not be written into).
  const built = new Set<JsonObject>([out]);
  for (const path of projection.paths) {
    const value = resolvePath(doc, path);
    if (value === NOT_FOUND || value === BAD_PATH) continue;
    let at = out;
    let copiedAbove = false;
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i]!;
      const next = at.get(segment);
      if (next instanceof JsonObject && built.has(next)) {
        at = next;
        continue;
      }
      if (next !== undefined) {
        copiedAbove = true; // a listed parent is already in: it holds this value
        break;
      }
      const child = new JsonObject();
      built.add(child);
      at.set(segment, child);
      at = child;
    }
    if (!copiedAbove) at.set(path[path.length - 1]!, value);
  }
  return out;
}

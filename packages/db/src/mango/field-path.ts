/**
 * Mango field paths (`"addr.city"`, `"scores.0"`, `"a\\.b"`): how a selector, `fields`, `sort`
 * or an index definition names a value inside a document, and how such a name is resolved.
 *
 * A path is split on every `.` not preceded by a backslash; `\.` is a literal dot inside a
 * segment. An empty segment is an invalid name. Resolution tells a missing member
 * (`NOT_FOUND`, which `$exists: false` matches) from a path that cannot apply (`BAD_PATH`: a
 * segment into a number or string, a non-index into an array, an index out of range), which
 * nothing matches.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonObject } from '../json/index.js';

/** A path's segments, unescaped. */
export type FieldPath = readonly string[];

/** The member a path names is absent. */
export const NOT_FOUND: unique symbol = Symbol('not_found');
/** The path cannot apply to the document's shape. */
export const BAD_PATH: unique symbol = Symbol('bad_path');

export type Resolved = JsonValue | typeof NOT_FOUND | typeof BAD_PATH;

/** Splits a field name into segments: 400 `invalid_field_name` for an empty segment. */
export function parseFieldPath(name: string): FieldPath {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '\\' && name[i + 1] === '.') {
      current += '.';
      i++;
    } else if (c === '.') {
      segments.push(current);
      current = '';
    } else current += c;
  }
  segments.push(current);
  if (segments.some((segment) => segment === '')) {
    throw new CouchError('invalid_field_name', `Invalid field name: ${name}`, 400);
  }
  return segments;
}

/** The path written back as a field name (dots inside segments escaped). */
export function fieldName(path: FieldPath): string {
  return path.map((segment) => segment.replaceAll('.', '\\.')).join('.');
}

/** A non-negative decimal integer, as an array segment must be. */
const INDEX = /^(0|[1-9][0-9]*)$/;

/** Follows `path` from `value` (see the header for NOT_FOUND and BAD_PATH). */
export function resolvePath(value: JsonValue, path: FieldPath): Resolved {
  let at: JsonValue = value;
  for (const segment of path) {
    if (at instanceof JsonObject) {
      const next = at.get(segment);
      if (next === undefined) return NOT_FOUND;
      at = next;
    } else if (Array.isArray(at)) {
      if (!INDEX.test(segment)) return BAD_PATH;
      const i = Number(segment);
      if (i >= at.length) return BAD_PATH;
      at = at[i]!;
    } else return BAD_PATH;
  }
  return at;
}

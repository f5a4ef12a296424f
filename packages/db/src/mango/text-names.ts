/**
 * The names of a Mango text index's fields (CouchDB's mango_util): a document's value at
 * `addr.city`, a string, is the field `addr.city_3astring` — each segment of the path, then
 * `:type` on the last one, with every byte but ASCII letters and digits written `_xx` (its UTF-8
 * byte in lower-case hex), the segments joined with `.`. Array elements are the segment `[]`.
 */
import { CouchError } from '../errors.js';

/** mango_util:lucene_escape_field: every byte of the UTF-8 text but `[A-Za-z0-9]` as `_xx`. */
export function escapeField(segment: string): string {
  let out = '';
  for (const byte of Buffer.from(segment, 'utf8')) {
    const alnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
    out += alnum ? String.fromCharCode(byte) : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** mango_util:lucene_escape_user: a field name as written (dots separate, `\.` does not), escaped. */
export function escapeUserField(name: string): string {
  return parseField(name).map(escapeField).join('.');
}

/** The field a value at `path` (first segment first) of `type` is indexed as. */
export function textFieldName(path: readonly string[], type: string): string {
  const last = path.length - 1;
  return path.map((segment, i) => escapeField(i === last ? `${segment}:${type}` : segment)).join('.');
}

/** mango_util:parse_field: split at unescaped dots, backslashes then dropped; no empty segment. */
export function parseField(name: string): string[] {
  const parts = name.includes('\\') ? name.split(/(?<!\\)\./).map((p) => p.replaceAll('\\', '')) : name.split('.');
  if (parts.some((p) => p === '')) throw new CouchError('invalid_field_name', `Invalid field name: ${name}`, 400);
  return parts;
}

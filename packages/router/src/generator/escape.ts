/**
 * Percent-encoding as Rails generates URLs: path segments keep RFC 3986's unreserved and
 * sub-delimiter characters plus `:` and `@` (globs also keep `/`); query strings use
 * form encoding (`CGI.escape`: space → `+`).
 */

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(`%${i < 16 ? '0' : ''}${i.toString(16).toUpperCase()}`);

function table(safe: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 1;
  for (let c = 97; c <= 122; c++) t[c] = 1;
  for (const ch of safe) t[ch.charCodeAt(0)] = 1;
  return t;
}

const UTF8 = new TextEncoder();

const SEGMENT = table("-._~!$&'()*+,;=:@");
const PATH = table("-._~!$&'()*+,;=:@/");
const FORM = table('-._~');
const FRAGMENT = table("-._~!$&'()*+,;=:@/?");

function escapeWith(text: string, safe: Uint8Array, spaceAsPlus: boolean): string {
  let i = 0;
  const n = text.length;
  // Fast path: most values need no escaping at all.
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128 || safe[c] === 0) break;
    i++;
  }
  if (i === n) return text;
  let out = text.slice(0, i);
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (safe[c] === 1) out += text[i];
      else if (c === 32 && spaceAsPlus) out += '+';
      else out += HEX[c];
    } else {
      // Encode the whole code point as UTF-8 bytes.
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      // TextEncoder, not Buffer: generation runs on runtimes without Node's globals (Hono on workers).
      for (const byte of UTF8.encode(String.fromCodePoint(cp))) out += HEX[byte];
    }
  }
  return out;
}

/** A `:param` value. */
export function escapeSegment(text: string): string {
  return escapeWith(text, SEGMENT, false);
}

/** A `*glob` value: slashes stay. */
export function escapePath(text: string): string {
  return escapeWith(text, PATH, false);
}

/** A query-string key or value. */
export function escapeForm(text: string): string {
  return escapeWith(text, FORM, true);
}

/** A `#fragment`. */
export function escapeFragment(text: string): string {
  return escapeWith(text, FRAGMENT, false);
}

/**
 * Rails' `to_param`: `toParam()` when the value has one, else a record's `id` (what an Active
 * Record model's `to_param` gives), arrays joined by `/`, else the string.
 */
export function toParam(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    if (typeof (value as { toParam?: unknown }).toParam === 'function') {
      const p = (value as { toParam: () => unknown }).toParam();
      return p === null || p === undefined ? null : String(p);
    }
    if (Array.isArray(value)) return value.map((v) => toParam(v) ?? '').join('/');
    if ('id' in value) return toParam(value.id);
  }
  return String(value);
}

/** Rails' `Hash#to_query`: nested keys as `a[b]`, arrays as `a[]` in order, each hash's pairs sorted; top-level nulls dropped. */
export function toQuery(params: Record<string, unknown>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== null && v !== undefined);
  return hashToQuery(entries, null);
}

function hashToQuery(entries: Array<[string, unknown]>, namespace: string | null): string {
  const parts: string[] = [];
  for (const [key, value] of entries) {
    const part = valueToQuery(value, namespace === null ? key : `${namespace}[${key}]`);
    if (part !== '') parts.push(part);
  }
  return parts.sort().join('&');
}

function valueToQuery(value: unknown, key: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${escapeForm(`${key}[]`)}=`;
    return value.map((v) => valueToQuery(v, `${key}[]`)).join('&');
  }
  if (typeof value === 'object' && value !== null && typeof (value as { toParam?: unknown }).toParam !== 'function') {
    return hashToQuery(Object.entries(value), key);
  }
  return `${escapeForm(key)}=${escapeForm(toParam(value) ?? '')}`;
}

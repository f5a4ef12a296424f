import { badRequest } from '../errors.js';

/** A revision: `"3-abc"` is `{ pos: 3, id: "abc" }`. */
export interface Rev {
  pos: number;
  id: string;
}

/**
 * CouchDB's parse_rev: `"N-id"` with N a non-negative integer (digits, an optional leading
 * '+' as Erlang's list_to_integer allows); the id is normalized (see normalizeRevId) and may be
 * empty, as CouchDB's (`"0-"` on a new doc, `"1-"` replicated). Anything else is 400 "Invalid rev format".
 */
export function parseRev(text: unknown): Rev {
  if (typeof text !== 'string') throw badRequest('Invalid rev format');
  const dash = text.indexOf('-');
  if (dash <= 0) throw badRequest('Invalid rev format');
  const digits = text.charCodeAt(0) === 43 ? text.slice(1, dash) : text.slice(0, dash);
  if (!/^[0-9]+$/.test(digits)) throw badRequest('Invalid rev format');
  const pos = Number(digits);
  if (!Number.isSafeInteger(pos)) throw badRequest('Invalid rev format');
  return { pos, id: normalizeRevId(text.slice(dash + 1)) };
}

export function formatRev(rev: Rev): string {
  return `${rev.pos}-${rev.id}`;
}

/**
 * The form CouchDB gives a rev id back in. It keeps ids as bytes: 32 hex digits become their
 * 16 raw bytes (so upper case comes back lower case), other ids their UTF-8 bytes — and any id
 * of 16 bytes is printed as hex, so a 16-byte non-hex id comes back as the hex of its bytes.
 */
export function normalizeRevId(id: string): string {
  if (id.length === 32 && isHex(id)) return id.toLowerCase();
  if (id.length <= 16 && id.length >= 6 && Buffer.byteLength(id, 'utf8') === 16) {
    return Buffer.from(id, 'utf8').toString('hex');
  }
  return id;
}

/** The bytes CouchDB stores for a rev id (and hashes into its children's ids). */
export function revIdBytes(id: string): Buffer {
  return id.length === 32 && isHex(id) ? Buffer.from(id, 'hex') : Buffer.from(id, 'utf8');
}

/**
 * Orders rev ids the way CouchDB does: as their stored bytes. For two 32-hex ids that is the
 * (lower-case) string order; a non-hex id is its UTF-8 bytes, so `zzz` (0x7a…) sorts above
 * `6ebc…` (0x6e) but below `8ff0…` (0x8f).
 */
export function compareRevIds(a: string, b: string): number {
  if (a === b) return 0;
  const aHex = a.length === 32 && isHex(a);
  const bHex = b.length === 32 && isHex(b);
  if (aHex && bHex) {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // UTF-16 order equals UTF-8 byte order as long as both are ASCII.
  if (!aHex && !bHex && isAscii(a) && isAscii(b)) return a < b ? -1 : 1;
  return Buffer.compare(revIdBytes(a), revIdBytes(b));
}

/** Orders revs by generation, then id bytes. */
export function compareRevs(a: Rev, b: Rev): number {
  return a.pos - b.pos || compareRevIds(a.id, b.id);
}

function isHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

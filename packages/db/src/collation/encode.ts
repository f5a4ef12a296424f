import { JsonNumber } from '../json/index.js';
import { exactNumber, members, type NumberLike } from './compare.js';
import { icuCollator, type IcuCollator } from './icu.js';

/**
 * Byte-comparable view keys: for any two JSON keys, `Buffer.compare(encodeKey(a), encodeKey(b))`
 * has the sign of `collate(a, b)` (and `encodeRawKey` that of `collateRaw`), so SQLite (BLOB,
 * memcmp) and PostgreSQL (bytea) order index rows exactly as CouchDB orders view rows, with no
 * collation support of their own. Encodings are one-way (ICU sort keys lose the text): store the
 * original JSON key next to the encoded one.
 *
 * ICU (default) layout, one tag byte per value:
 *   0x10 null · 0x20 false · 0x21 true
 *   0x30 number: 8 bytes, the IEEE-754 double big-endian with the sign bit flipped for >= 0 and
 *        all bits flipped for < 0 (so unsigned byte order is numeric order); -0 is written as 0
 *   0x40 string: ICU sort key (no 0x00 inside) + 0x00
 *   0x50 array: elements + 0x00 (0x00 is below every tag, so a prefix sorts first)
 *   0x60 object: per member, key sort key + 0x00 + value; then 0x00 (sort keys never start with 0x00)
 * Raw (`collation: "raw"`, Erlang term order) layout:
 *   0x10 number (as above) · 0x20 false · 0x21 null · 0x22 true
 *   0x30 object: per member 0x01 + raw string body of the key + value; then 0x00
 *   0x40 array: elements + 0x00 · 0x50 string: raw string body
 * Raw string body: the UTF-8 bytes with 0x00 → 0x01 0x01 and 0x01 → 0x01 0x02, then 0x00; this
 * keeps byte order and makes the body self-terminating. Lone surrogates are written as U+FFFD.
 *
 * Every encoding of a JSON key is self-delimiting (none is a proper prefix of another; the one
 * exception, a big-integer bound below, is followed by 0xFF where no row has it), and equal keys
 * (3 and 3.0; ICU-equal strings such as "a" and "a\u200B") encode to identical bytes, so
 * `group=true` and `key=` can use byte equality.
 *
 * Numbers: doubles are exact. An integer beyond double precision (a JsonNumber or bigint; only
 * query parameters can hold one, since map output passes through JS numbers) is written as the
 * largest double below it followed by 0xFF. No row key ever has 0xFF at that position, so such a
 * bound sits strictly between its neighbouring doubles, exactly where CouchDB's exact Erlang
 * comparison puts it; two such integers within the same gap encode equal (they never meet a row
 * key that tells them apart).
 */

const ICU = { Null: 0x10, False: 0x20, True: 0x21, Number: 0x30, String: 0x40, Array: 0x50, Object: 0x60 } as const;
const RAW = { Number: 0x10, False: 0x20, Null: 0x21, True: 0x22, Object: 0x30, Array: 0x40, String: 0x50 } as const;
const END = 0x00;
const RAW_MEMBER = 0x01;
/** Above every byte that can follow a complete key inside a row key (tags, terminators, doc-id bytes). */
const HIGH = 0xff;

/** CouchDB default-collation encoding of a JSON key. */
export function encodeKey(key: unknown): Buffer {
  begin();
  writeValue(key, collation(false));
  return finish();
}

/** Raw-collation encoding of a JSON key. */
export function encodeRawKey(key: unknown): Buffer {
  begin();
  writeValue(key, collation(true));
  return finish();
}

/**
 * The index row key: encoded key, then the doc id as a raw string body, so byte order is
 * (key in the view's collation, doc id in UTF-8 byte order), CouchDB's row order.
 * A doc id body never starts with 0xFF (UTF-8 has no 0xFF byte), which the range bounds rely on;
 * an engine that appends more bytes (say an emit counter for duplicate (key, id) rows) must not
 * start them with 0xFF, or keep them in a separate primary-key column instead.
 */
export function encodeRowKey(key: unknown, docId: string, raw = false): Buffer {
  begin();
  writeValue(key, collation(raw));
  writeRawString(docId);
  return finish();
}

/**
 * `encodeRowKey` as a view of the encoder's own buffer, valid until the next encode: for a
 * caller that copies it at once (an index build, which put a fresh Buffer per row before).
 */
export function encodeRowKeyScratch(key: unknown, docId: string, raw = false): Buffer {
  begin();
  writeValue(key, collation(raw));
  writeRawString(docId);
  return buf.subarray(0, pos);
}

/** A doc id as it appears at the end of a row key (raw string body). */
export function encodeDocId(docId: string): Buffer {
  begin();
  writeRawString(docId);
  return finish();
}

/**
 * A half-open byte range of row keys: `gte <= rowKey < lt` (either side absent = unbounded).
 * Scan it ascending for descending=false, descending for descending=true.
 */
export interface RowKeyRange {
  gte?: Buffer;
  lt?: Buffer;
}

/** View query range parameters (as CouchDB's start_key/end_key family, already JSON-decoded). */
export interface RowRangeQuery {
  /** `undefined` = not given (JSON `null` is a real key). */
  startkey?: unknown;
  startkeyDocid?: string;
  endkey?: unknown;
  endkeyDocid?: string;
  /** Default true. */
  inclusiveEnd?: boolean;
  /** Default false. */
  descending?: boolean;
}

/**
 * Byte bounds for a view query, matching CouchDB's couch_mrview key options. CouchDB compares
 * (key, docid) pairs; a missing startkey_docid / endkey_docid is the lowest id (<<>>) or the
 * highest (<<255>>) on whichever side keeps all rows with that key, and a *_docid without its key
 * is ignored. With K = encodeKey(key), D = encodeDocId(id), and ε for a missing id:
 *
 *   descending=false:
 *     startkey[, sid]                    → gte = K(startkey) + D(sid)|ε      (key, id) >= (sk, sid)
 *     endkey[, eid], inclusive_end=true  → lt  = K(endkey) + D(eid)|ε + FF   (key, id) <= (ek, eid)
 *     endkey[, eid], inclusive_end=false → lt  = K(endkey) + D(eid)|ε        (key, id) <  (ek, eid)
 *   descending=true (startkey is the high end):
 *     startkey[, sid]                    → lt  = K(startkey) + D(sid)|ε + FF (key, id) <= (sk, sid)
 *     endkey[, eid], inclusive_end=true  → gte = K(endkey) + D(eid)|ε        (key, id) >= (ek, eid)
 *     endkey[, eid], inclusive_end=false → gte = K(endkey) + D(eid)|ε + FF   (key, id) >  (ek, eid)
 *
 * Why it holds: every row with key k starts with K(k), K is self-delimiting, D is
 * self-delimiting, and the byte after K(k) or K(k)+D(id) in a row is never 0xFF; so "+ FF" turns a
 * prefix P into the smallest byte string above every row that starts with P.
 *
 * Ranges where start is past end come out empty (gte >= lt); CouchDB rejects some of those with
 * an error, which the caller checks with `collateRows`.
 */
export function rowKeyRange(q: RowRangeQuery, raw = false): RowKeyRange {
  const range: RowKeyRange = {};
  const inclusiveEnd = q.inclusiveEnd ?? true;
  if (q.descending) {
    if (q.startkey !== undefined) range.lt = rowKeyBound(q.startkey, q.startkeyDocid, true, raw);
    if (q.endkey !== undefined) range.gte = rowKeyBound(q.endkey, q.endkeyDocid, !inclusiveEnd, raw);
  } else {
    if (q.startkey !== undefined) range.gte = rowKeyBound(q.startkey, q.startkeyDocid, false, raw);
    if (q.endkey !== undefined) range.lt = rowKeyBound(q.endkey, q.endkeyDocid, inclusiveEnd, raw);
  }
  return range;
}

/** All rows whose key equals `key` in the view's collation (`key=`, each of `keys=`). */
export function exactKeyRange(key: unknown, raw = false): Required<RowKeyRange> {
  // The key encoded once (a `keys=` read of 100 keys did every ICU sort key twice): lt is gte + FF.
  const gte = rowKeyBound(key, undefined, false, raw);
  const lt = Buffer.allocUnsafe(gte.length + 1);
  gte.copy(lt);
  lt[gte.length] = HIGH;
  return { gte, lt };
}

/**
 * K(key) [+ D(docId)] [+ 0xFF]: the lowest row key at or after (key, docId), or with `above`,
 * the lowest byte string above every row key starting with that prefix.
 */
export function rowKeyBound(key: unknown, docId: string | undefined, above: boolean, raw = false): Buffer {
  begin();
  writeValue(key, collation(raw));
  if (docId !== undefined) writeRawString(docId);
  if (above) {
    ensure(1);
    buf[pos++] = HIGH;
  }
  return finish();
}

// ---------------------------------------------------------------------------------------------
// One growable scratch buffer shared by all encodes (they are synchronous and never nest); each
// result is a copy of the used part.

let buf = Buffer.allocUnsafe(4096);
let pos = 0;

function begin(): void {
  pos = 0;
}

function finish(): Buffer {
  const out = Buffer.allocUnsafe(pos);
  buf.copy(out, 0, 0, pos);
  return out;
}

function ensure(n: number): void {
  if (pos + n > buf.length) grow(pos + n);
}

function grow(min: number): void {
  const next = Buffer.allocUnsafe(Math.max(min, buf.length * 2));
  buf.copy(next, 0, 0, pos);
  buf = next;
}

/** What differs between the two collations' encodings: kind tags, and how strings are written. */
interface Collation {
  tag: typeof ICU | typeof RAW;
  /** A string value (after its tag). */
  string(s: string): void;
  /** An object member's name. */
  member(s: string): void;
}

const RAW_COLLATION: Collation = {
  tag: RAW,
  string: writeRawString,
  member(s) {
    ensure(1);
    buf[pos++] = RAW_MEMBER;
    writeRawString(s);
  },
};

let icuCollation: Collation | undefined;
function collation(raw: boolean): Collation {
  if (raw) return RAW_COLLATION;
  if (icuCollation === undefined) {
    const icu = icuCollator();
    const string = (s: string): void => writeSortKey(s, icu);
    icuCollation = { tag: ICU, string, member: string };
  }
  return icuCollation;
}

/** Writes a JSON value in a collation's encoding (non-finite numbers and undefined as null, as JSON.stringify). */
function writeValue(v: unknown, c: Collation): void {
  const tag = c.tag;
  switch (typeof v) {
    case 'string':
      ensure(1);
      buf[pos++] = tag.String;
      c.string(v);
      return;
    case 'number':
      if (!Number.isFinite(v)) break; // JSON.stringify writes null
      writeNumber(tag.Number, v);
      return;
    case 'boolean':
      ensure(1);
      buf[pos++] = v ? tag.True : tag.False;
      return;
    case 'bigint':
      writeNumber(tag.Number, v);
      return;
    case 'object': {
      if (v === null) break;
      if (Array.isArray(v)) {
        ensure(1);
        buf[pos++] = tag.Array;
        for (const item of v) writeValue(item, c);
        ensure(1);
        buf[pos++] = END;
        return;
      }
      if (isJsonNumber(v)) {
        writeNumber(tag.Number, v);
        return;
      }
      const [keys, values] = members(v);
      ensure(1);
      buf[pos++] = tag.Object;
      for (let i = 0; i < keys.length; i++) {
        c.member(keys[i]!);
        writeValue(values[i], c);
      }
      ensure(1);
      buf[pos++] = END;
      return;
    }
    default:
      throw new TypeError(`not a JSON value: ${typeof v}`);
  }
  ensure(1);
  buf[pos++] = tag.Null;
}

/**
 * Sort keys of short strings met before. View keys repeat the same short strings (an author, a
 * type, a tag: 175k of the 250k strings of the bench's two views at 100k docs), and a call into
 * ICU through N-API costs several times a Map lookup and a copy. Longer strings (dates, ids,
 * titles) seldom repeat: they are not looked up. Filled until MEMO_STRINGS (~0.3 MB at most),
 * then only read; emptied after MEMO_MISSES misses once full, so that a memo filled by strings
 * never seen again makes room for those that repeat now.
 */
const sortKeyMemo = new Map<string, Uint8Array>();
const MEMO_LENGTH = 16;
const MEMO_STRINGS = 4096;
const MEMO_MISSES = 65_536;
let missesWhileFull = 0;

/** ICU sort key + 0x00. */
function writeSortKey(s: string, icu: IcuCollator): void {
  const short = s.length <= MEMO_LENGTH;
  if (short) {
    const known = sortKeyMemo.get(s);
    if (known !== undefined) {
      const n = known.length;
      ensure(n + 1);
      for (let i = 0; i < n; i++) buf[pos + i] = known[i]!;
      pos += n;
      buf[pos++] = END;
      return;
    }
  }
  let n = icu.sortKeyInto(s, buf, pos);
  if (n < 0) {
    grow(pos - n + 1);
    n = icu.sortKeyInto(s, buf, pos);
  }
  if (short) remember(s, n);
  pos += n;
  ensure(1);
  buf[pos++] = END;
}

/** Keeps the sort key just written at `pos` (n bytes) for `s` (see `sortKeyMemo`). */
function remember(s: string, n: number): void {
  if (sortKeyMemo.size >= MEMO_STRINGS) {
    if (++missesWhileFull < MEMO_MISSES) return;
    sortKeyMemo.clear();
    missesWhileFull = 0;
  }
  const key = new Uint8Array(n);
  for (let i = 0; i < n; i++) key[i] = buf[pos + i]!;
  sortKeyMemo.set(s, key);
}

/** UTF-8 with 0x00 → 01 01, 0x01 → 01 02, then 0x00. */
function writeRawString(s: string): void {
  ensure(s.length * 3 + 1);
  // Short ASCII without 0x00/0x01 (most doc ids): a loop, not a call into Buffer.write.
  const length = s.length;
  if (length <= 64) {
    let i = 0;
    for (; i < length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80 || c <= 0x01) break;
      buf[pos + i] = c;
    }
    if (i === length) {
      pos += length;
      buf[pos++] = END;
      return;
    }
  }
  const start = pos;
  const n = buf.write(s, start, 'utf8');
  pos = start + n;
  let escapes = 0;
  for (let i = start; i < pos; i++) if (buf[i]! <= 0x01) escapes++;
  if (escapes > 0) {
    // Rare: shift right to make room, back to front.
    ensure(escapes + 1);
    let to = pos + escapes;
    for (let from = pos - 1; from >= start; from--) {
      const b = buf[from]!;
      if (b <= 0x01) {
        buf[--to] = b + 1;
        buf[--to] = 0x01;
      } else {
        buf[--to] = b;
      }
    }
    pos += escapes;
  }
  buf[pos++] = END;
}

function writeNumber(tag: number, v: NumberLike): void {
  const exact = exactNumber(v);
  ensure(10);
  buf[pos++] = tag;
  if (typeof exact === 'number') {
    writeDouble(exact);
  } else {
    writeDouble(doubleBelow(exact));
    buf[pos++] = HIGH;
  }
}

function writeDouble(d: number): void {
  buf.writeDoubleBE(d === 0 ? 0 : d, pos); // -0 → 0
  if (buf[pos]! & 0x80) {
    for (let i = pos; i < pos + 8; i++) buf[i]! ^= 0xff;
  } else {
    buf[pos]! ^= 0x80;
  }
  pos += 8;
}

/** The largest double below an integer that no double equals (−Infinity below −MAX_VALUE). */
function doubleBelow(x: bigint): number {
  const d = Number(x); // nearest, may round up or overflow
  if (d === Infinity) return Number.MAX_VALUE;
  if (d === -Infinity || BigInt(d) < x) return d;
  // d > x: step one ulp toward −∞ (|d| > 2^53 here, so d is neither 0 nor subnormal).
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, d);
  bits.setBigUint64(0, d > 0 ? bits.getBigUint64(0) - 1n : bits.getBigUint64(0) + 1n);
  return bits.getFloat64(0);
}

function isJsonNumber(v: object): v is JsonNumber {
  return v instanceof JsonNumber;
}

import { JsonNumber, JsonObject } from '../json/index.js';
import { isWellFormed, toWellFormed } from '../support/unicode.js';
import { icuCollator } from './icu.js';

/**
 * CouchDB's two view-key orders as JS comparators. They define the order the byte encodings in
 * `encode.ts` must reproduce (and the tests hold them to it), and serve where two keys are
 * compared directly, such as checking that startkey <= endkey.
 *
 * Keys are JSON values as `JSON.parse` gives them (plain objects in their own key order) or as
 * the package's JSON model holds them (`JsonObject` keeps member order, `JsonNumber` exact big
 * integers). A non-finite number counts as null, as `JSON.stringify` would write it; anything
 * else that is not JSON is a TypeError.
 */

/**
 * CouchDB's default ("UCA") order: null < false < true < numbers < strings < arrays < objects.
 * Numbers by value (3 == 3.0), strings by the ICU root collator, arrays element by element
 * (a prefix first), objects member by member in their own order (key by ICU, then value; fewer
 * members first). Returns <0, 0 or >0.
 */
export function collate(a: unknown, b: unknown): number {
  const ra = icuRank(a);
  const rb = icuRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case Rank.Number:
      return compareNumbers(a as NumberLike, b as NumberLike);
    case Rank.String:
      return icuCollator().compare(a as string, b as string);
    case Rank.Array:
      return compareArrays(a as unknown[], b as unknown[], collate);
    case Rank.Object:
      return compareObjects(a as object, b as object, icuCollator().compare, collate);
    default:
      return 0; // null, false, true: one value each
  }
}

/**
 * CouchDB's `collation: "raw"` order (Erlang term order of the decoded JSON): numbers < false <
 * null < true < objects < arrays < strings. Numbers by value, strings by UTF-8 bytes (= code
 * points), objects as lists of (key bytes, value) pairs, arrays element by element.
 */
export function collateRaw(a: unknown, b: unknown): number {
  const ra = rawRank(a);
  const rb = rawRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case RawRank.Number:
      return compareNumbers(a as NumberLike, b as NumberLike);
    case RawRank.String:
      return compareUtf8(a as string, b as string);
    case RawRank.Array:
      return compareArrays(a as unknown[], b as unknown[], collateRaw);
    case RawRank.Object:
      return compareObjects(a as object, b as object, compareUtf8, collateRaw);
    default:
      return 0;
  }
}

/** View rows: key in the view's collation, ties by doc id in raw byte order (CouchDB's less_json_ids). */
export function collateRows(aKey: unknown, aId: string, bKey: unknown, bId: string, raw = false): number {
  return (raw ? collateRaw(aKey, bKey) : collate(aKey, bKey)) || compareUtf8(aId, bId);
}

/**
 * Strings in UTF-8 byte order, which is code point order (doc ids, raw collation). JS `<`
 * compares UTF-16 code units and puts U+E000..U+FFFF after astral characters; this does not.
 * A lone surrogate counts as U+FFFD, as it becomes in UTF-8.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  if (!isWellFormed(a)) a = toWellFormed(a);
  if (!isWellFormed(b)) b = toWellFormed(b);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

// Moves surrogates (astral code points) above U+E000..U+FFFF so code units compare as code points.
function fixup(unit: number): number {
  return unit >= 0xd800 ? (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000) : unit;
}

/** A number as a key may hold it: a double, an exact big integer, or the JSON model's number. */
export type NumberLike = number | bigint | JsonNumber;

// Type ranks of the two orders (plain numbers: const enums do not survive isolated transpiling).
const Rank = { Null: 0, False: 1, True: 2, Number: 3, String: 4, Array: 5, Object: 6 } as const;
type Rank = (typeof Rank)[keyof typeof Rank];
const RawRank = { Number: 0, False: 1, Null: 2, True: 3, Object: 4, Array: 5, String: 6 } as const;
type RawRank = (typeof RawRank)[keyof typeof RawRank];

function icuRank(v: unknown): Rank {
  switch (typeof v) {
    case 'string':
      return Rank.String;
    case 'number':
      return Number.isFinite(v) ? Rank.Number : Rank.Null;
    case 'boolean':
      return v ? Rank.True : Rank.False;
    case 'bigint':
      return Rank.Number;
    case 'object':
      if (v === null) return Rank.Null;
      if (Array.isArray(v)) return Rank.Array;
      if (v instanceof JsonNumber) return Rank.Number;
      return Rank.Object;
    default:
      throw new TypeError(`not a JSON value: ${typeof v}`);
  }
}

function rawRank(v: unknown): RawRank {
  switch (icuRank(v)) {
    case Rank.Null:
      return RawRank.Null;
    case Rank.False:
      return RawRank.False;
    case Rank.True:
      return RawRank.True;
    case Rank.Number:
      return RawRank.Number;
    case Rank.String:
      return RawRank.String;
    case Rank.Array:
      return RawRank.Array;
    default:
      return RawRank.Object;
  }
}

function compareArrays(a: unknown[], b: unknown[], cmp: (x: unknown, y: unknown) => number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = cmp(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareObjects(
  a: object,
  b: object,
  keyCmp: (x: string, y: string) => number,
  cmp: (x: unknown, y: unknown) => number,
): number {
  const [ak, av] = members(a);
  const [bk, bv] = members(b);
  const n = Math.min(ak.length, bk.length);
  for (let i = 0; i < n; i++) {
    const c = keyCmp(ak[i]!, bk[i]!) || cmp(av[i], bv[i]);
    if (c !== 0) return c;
  }
  return ak.length - bk.length;
}

/** Member keys and values in document order. */
export function members(o: object): [string[], unknown[]] {
  if (o instanceof JsonObject) return [o.keys, o.values];
  const keys = Object.keys(o);
  const values = keys.map((k) => (o as Record<string, unknown>)[k]);
  return [keys, values];
}

/**
 * Numbers by exact value. Doubles compare as doubles (JSON.parse and map output give nothing
 * else); a big integer beyond double precision (JsonNumber from a query parameter, or a bigint)
 * compares exactly against a double, as Erlang compares CouchDB's bignums.
 */
export function compareNumbers(a: NumberLike, b: NumberLike): number {
  const x = exactNumber(a);
  const y = exactNumber(b);
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  return typeof x === 'bigint' ? compareBigDouble(x, y as number) : -compareBigDouble(y as bigint, x as number);
}

/** A double, or a bigint when the integer is not exactly a double. */
export function exactNumber(v: NumberLike): number | bigint {
  if (typeof v === 'number') return v;
  if (!(typeof v === 'bigint') && v.isFloat) return v.toNumber();
  const big = typeof v === 'bigint' ? v : v.toBigInt();
  const n = Number(big);
  return Number.isFinite(n) && BigInt(n) === big ? n : big;
}

function compareBigDouble(x: bigint, y: number): number {
  if (!Number.isFinite(y)) return y > 0 ? -1 : 1;
  const floor = BigInt(Math.floor(y));
  if (x < floor) return -1;
  if (x > floor) return 1;
  return Number.isInteger(y) ? 0 : -1; // x == floor(y) < y
}

/**
 * The JSON parser every request body and stored document goes through: strict RFC 8259, exact
 * numbers, member order kept, a depth limit. One file (above the house's ~500 lines) because it
 * is one hot loop: its scanners are written out inline for speed (docs/benchmarks.md).
 */
import { stringifyNumber } from './stringify.js';
import { JsonNumber, JsonObject, type JsonValue } from './value.js';

/** Any text that is not one strict RFC 8259 JSON value. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'JsonSyntaxError';
  }
}

/** Nesting deeper than MAX_DEPTH: refused with its own message (a 400 that says why). */
export class JsonTooDeepError extends JsonSyntaxError {}

/**
 * Deeper nesting is refused rather than risking a stack overflow here or in the recursive code
 * downstream (the rev hash's term writer, collation keys, plain-value copies, the sandbox), which
 * together need about three stack frames a level. Real documents nest a few levels; 1,000 leaves
 * room (serde_json stops at 128, Python at about 1,000).
 */
export const MAX_DEPTH = 1000;

/**
 * Parses one strict RFC 8259 JSON text into the value model of `value.ts`.
 *
 * Rejected: empty input, a BOM, NaN/Infinity, trailing garbage or a second value, control
 * characters in strings, lone surrogates written as escapes (`"\ud800"`), numbers that
 * overflow to Infinity (`1e400`), nesting deeper than MAX_DEPTH.
 *
 * Duplicate keys collapse like CouchDB's decoder (jiffy with `dedupe_keys`): the LAST value
 * wins and the member sits at the position of its LAST occurrence —
 * `{"a":1,"b":2,"a":3}` becomes `{"b":2,"a":3}`.
 *
 * Unescaped lone surrogates in the input string are kept as they are: text decoded from
 * UTF-8 bytes cannot contain them.
 *
 * An object whose source text is exactly what `stringifyJson` would write for it (no
 * whitespace, no collapsed duplicate, numbers and strings spelled canonically) remembers it:
 * see `JsonObject.canonicalText`.
 */
export function parseJson(text: string): JsonValue {
  src = text;
  pos = 0;
  depth = 0;
  dirt = 0;
  try {
    skipWhitespace();
    if (pos >= src.length) fail('Unexpected end of input');
    const value = parseValue();
    skipWhitespace();
    if (pos < src.length) fail('Unexpected data after the JSON value');
    return value;
  } finally {
    src = '';
  }
}

/**
 * The members `keep` names of a JSON object text, parsed; the others skipped without building a
 * value (a test that reads a few fields of many documents: Mango's scan). For texts this
 * package wrote (stored documents): the skipped values are not checked, and a text that is not
 * an object gives an empty object.
 */
export function parseJsonMembers(text: string, keep: ReadonlySet<string>): JsonObject {
  src = text;
  pos = 0;
  depth = 0;
  dirt = 0;
  const keys: string[] = [];
  const values: JsonValue[] = [];
  try {
    skipWhitespace();
    if (src.charCodeAt(pos) !== 123) return new JsonObject();
    pos++;
    skipWhitespace();
    if (src.charCodeAt(pos) === 125) return new JsonObject();
    for (;;) {
      skipWhitespace();
      const key = memberKey();
      if (keep.has(key)) {
        const at = keys.indexOf(key);
        if (at >= 0) {
          keys.splice(at, 1);
          values.splice(at, 1);
        }
        keys.push(key);
        values.push(parseValue());
      } else skipValue();
      skipWhitespace();
      const c = src.charCodeAt(pos++);
      if (c === 44) continue; // ,
      if (c === 125) break; // }
      fail('Expected , or }', pos - 1);
    }
    return new JsonObject(keys, values);
  } finally {
    src = '';
  }
}

/** Moves past one value: strings by their closing quote, arrays and objects by bracket depth. */
function skipValue(): void {
  const s = src;
  let nesting = 0;
  for (;;) {
    const c = s.charCodeAt(pos);
    if (c === 34) {
      // A string: its closing quote is the first one not escaped.
      pos++;
      for (;;) {
        const q = s.indexOf('"', pos);
        if (q < 0) fail('Unterminated string');
        let backslashes = 0;
        for (let i = q - 1; s.charCodeAt(i) === 92; i--) backslashes++;
        pos = q + 1;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      nesting++;
      pos++;
    } else if (c === 125 || c === 93) {
      if (nesting === 0) return;
      nesting--;
      pos++;
    } else if (c === 44 && nesting === 0) return;
    else if (Number.isNaN(c)) return;
    else pos++;
    if (nesting === 0 && (c === 34 || c === 125 || c === 93)) return;
  }
}

// The parser state lives in module variables: cheaper than a class or closures in the hot path,
// and parsing is synchronous so no two parses interleave.
let src = '';
let pos = 0;
let depth = 0;
/**
 * Counts what makes source text differ from the canonical text (whitespace, a collapsed
 * duplicate key, a non-canonical number or string escape): a value is canonical when the
 * count did not move while it was parsed.
 */
let dirt = 0;

/** Marks a member replaced by a later duplicate (compacted away at the end of the object). */
const REPLACED: JsonValue[] = [];

/** The deepest nesting of `[` and `{` in a JSON text (strings skipped); for texts parsed elsewhere. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \\ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) max = depth;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return max;
}

function fail(message: string, at = pos): never {
  throw new JsonSyntaxError(message, at);
}

function skipWhitespace(): void {
  const s = src;
  let i = pos;
  for (;;) {
    const c = s.charCodeAt(i);
    // space, \n, \r, \t — and nothing else (no BOM, no NBSP)
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else break;
  }
  if (i !== pos) dirt++;
  pos = i;
}

function parseValue(): JsonValue {
  const c = src.charCodeAt(pos);
  switch (c) {
    case 34: // "
      return parseString();
    case 123: // {
      return parseObject();
    case 91: // [
      return parseArray();
    case 116: // t
      return literal('true', true);
    case 102: // f
      return literal('false', false);
    case 110: // n
      return literal('null', null);
    default:
      if (c === 45 || (c >= 48 && c <= 57)) return parseNumber();
      return pos >= src.length ? fail('Unexpected end of input') : fail('Unexpected character');
  }
}

function literal<T extends JsonValue>(word: string, value: T): T {
  if (!src.startsWith(word, pos)) fail('Unexpected character');
  pos += word.length;
  return value;
}

function enter(): void {
  if (++depth > MAX_DEPTH) throw new JsonTooDeepError(`JSON nested deeper than ${MAX_DEPTH} levels`, pos);
}

function parseArray(): JsonValue[] {
  enter();
  pos++; // [
  const items: JsonValue[] = [];
  skipWhitespace();
  if (src.charCodeAt(pos) === 93) {
    pos++;
    depth--;
    return items;
  }
  for (;;) {
    skipWhitespace();
    items.push(parseValue());
    skipWhitespace();
    const c = src.charCodeAt(pos++);
    if (c === 44) continue; // ,
    if (c === 93) break; // ]
    fail('Expected , or ]', pos - 1);
  }
  depth--;
  return items;
}

function parseObject(): JsonObject {
  enter();
  const start = pos;
  const dirtBefore = dirt;
  pos++; // {
  const keys: string[] = [];
  const values: JsonValue[] = [];
  skipWhitespace();
  if (src.charCodeAt(pos) === 125) {
    pos++;
    depth--;
    return dirt === dirtBefore
      ? JsonObject.withSource(keys, values, src, start, pos, undefined)
      : new JsonObject(keys, values);
  }
  // Small objects find duplicates by a linear scan; past 16 members a map takes over.
  let index: Map<string, number> | null = null;
  let replaced = 0;
  // [start, end) of the members whose key starts with '_' (see JsonObject.canonicalText).
  let spans: number[] | undefined;
  for (;;) {
    skipWhitespace();
    const memberStart = pos;
    const key = memberKey();
    const value = parseValue();
    if (key.charCodeAt(0) === 95) {
      if (spans === undefined) spans = [memberStart, pos];
      else spans.push(memberStart, pos);
    }

    const previous = index === null ? keys.indexOf(key) : (index.get(key) ?? -1);
    if (previous >= 0) {
      dirt++;
      if (index === null) {
        keys.splice(previous, 1);
        values.splice(previous, 1);
      } else {
        values[previous] = REPLACED;
        replaced++;
      }
    }
    keys.push(key);
    values.push(value);
    if (index !== null) {
      index.set(key, keys.length - 1);
    } else if (keys.length > 16) {
      index = new Map();
      for (let i = 0; i < keys.length; i++) index.set(keys[i]!, i);
    }

    skipWhitespace();
    const c = src.charCodeAt(pos++);
    if (c === 44) continue; // ,
    if (c === 125) break; // }
    fail('Expected , or }', pos - 1);
  }
  depth--;
  if (replaced === 0) {
    return dirt === dirtBefore
      ? JsonObject.withSource(keys, values, src, start, pos, spans)
      : new JsonObject(keys, values);
  }
  const liveKeys: string[] = [];
  const liveValues: JsonValue[] = [];
  for (let i = 0; i < keys.length; i++) {
    if (values[i] === REPLACED) continue;
    liveKeys.push(keys[i]!);
    liveValues.push(values[i]!);
  }
  return new JsonObject(liveKeys, liveValues);
}

/** A member's key and its colon, up to where its value starts. */
function memberKey(): string {
  if (src.charCodeAt(pos) !== 34) fail('Expected a string key');
  const key = parseString();
  skipWhitespace();
  if (src.charCodeAt(pos) !== 58) fail('Expected :');
  pos++;
  skipWhitespace();
  return key;
}

/** A run of characters a string takes as they are (long strings are scanned natively past 32). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters end the run (they are refused)
const PLAIN_RUN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;

function parseString(): string {
  const s = src;
  const start = pos + 1;
  let i = start;
  // Fast path: no escapes, so the value is a slice of the input.
  for (;;) {
    if (i - start >= 32) {
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(s);
      i = PLAIN_RUN.lastIndex;
    }
    const c = s.charCodeAt(i);
    if (c === 34) {
      pos = i + 1;
      return s.slice(start, i);
    }
    if (c === 92) break;
    // biome-ignore lint/suspicious/noSelfCompare: c !== c is NaN (past the end), without a call in this hot loop
    if (c < 32 || c !== c) {
      // c !== c: NaN, i.e. past the end
      // biome-ignore lint/suspicious/noSelfCompare: NaN test, see above
      fail(c !== c ? 'Unterminated string' : 'Control character in string', i);
    }
    if (c >= 0xd800 && c <= 0xdfff) i = surrogate(c, i);
    i++;
  }
  return parseEscapedString(start, i);
}

/** The slow path: copies runs between escapes, decoding each escape. */
function parseEscapedString(start: number, firstEscape: number): string {
  const s = src;
  let out = s.slice(start, firstEscape);
  let i = firstEscape;
  let runStart = i;
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      pos = i + 1;
      return out + s.slice(runStart, i);
    }
    if (c === 92) {
      out += s.slice(runStart, i);
      const e = s.charCodeAt(i + 1);
      i += 2;
      switch (e) {
        case 34:
          out += '"';
          break;
        case 92:
          out += '\\';
          break;
        case 98:
          out += '\b';
          break;
        case 102:
          out += '\f';
          break;
        case 110:
          out += '\n';
          break;
        case 114:
          out += '\r';
          break;
        case 116:
          out += '\t';
          break;
        case 117: {
          const unit = hex4(i);
          i += 4;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate must be followed by an escaped low surrogate.
            if (s.charCodeAt(i) !== 92 || s.charCodeAt(i + 1) !== 117) fail('Lone surrogate in string', i - 6);
            const low = hex4(i + 2);
            if (low < 0xdc00 || low > 0xdfff) fail('Lone surrogate in string', i - 6);
            i += 6;
            out += String.fromCharCode(unit, low);
            dirt++; // JSON.stringify writes the pair as it is
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            fail('Lone surrogate in string', i - 6);
          } else {
            out += String.fromCharCode(unit);
            if (!isCanonicalUnicodeEscape(unit, i - 4)) dirt++;
          }
          break;
        }
        case 47: // `\/`: JSON.stringify leaves '/' alone
          out += '/';
          dirt++;
          break;
        default:
          // biome-ignore lint/suspicious/noSelfCompare: e !== e is NaN, past the end
          fail(e !== e ? 'Unterminated string' : 'Invalid escape', i - 2);
      }
      runStart = i;
      continue;
    }
    // biome-ignore lint/suspicious/noSelfCompare: c !== c is NaN, past the end
    if (c < 32 || c !== c) fail(c !== c ? 'Unterminated string' : 'Control character in string', i);
    if (c >= 0xd800 && c <= 0xdfff) i = surrogate(c, i);
    i++;
  }
}

/**
 * An unescaped surrogate at `i`: a well-formed pair is kept as JSON.stringify keeps it (returns
 * the index of its low half); a lone one JSON.stringify would escape, so the text is not canonical.
 */
function surrogate(c: number, i: number): number {
  if (c <= 0xdbff) {
    const next = src.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return i + 1;
  }
  dirt++;
  return i;
}

/**
 * Whether `\uXXXX` (hex digits at `at`) is how JSON.stringify writes `unit`: only control
 * characters without a short escape, as `\u00xx` in lower case.
 */
function isCanonicalUnicodeEscape(unit: number, at: number): boolean {
  if (unit >= 32 || unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13) return false;
  const c = src.charCodeAt(at + 3);
  return !(c >= 65 && c <= 70); // the only digit that can be a letter; upper case is not canonical
}

function hex4(at: number): number {
  let value = 0;
  for (let k = 0; k < 4; k++) {
    const c = src.charCodeAt(at + k);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else return fail('Invalid \\u escape', at - 2);
    value = value * 16 + d;
  }
  return value;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parseNumber(): JsonValue {
  const s = src;
  const start = pos;
  let i = pos;
  let negative = false;
  if (s.charCodeAt(i) === 45) {
    negative = true;
    i++;
  }
  // Integer part, accumulated on the way while it is certainly exact (≤ 15 digits).
  let value = 0;
  let c = s.charCodeAt(i);
  if (c === 48) {
    i++;
  } else if (c >= 49 && c <= 57) {
    do {
      value = value * 10 + (c - 48);
      c = s.charCodeAt(++i);
    } while (c >= 48 && c <= 57);
  } else {
    fail('Invalid number', i);
  }
  const integerDigits = i - start - (negative ? 1 : 0);
  c = s.charCodeAt(i);
  let hasFraction = false;
  let hasExponent = false;
  let exponent = 0;
  if (c === 46) {
    hasFraction = true;
    if (!isDigit(s.charCodeAt(++i))) fail('Invalid number', i);
    while (isDigit(s.charCodeAt(++i)));
    c = s.charCodeAt(i);
  }
  if (c === 101 || c === 69) {
    hasExponent = true;
    c = s.charCodeAt(++i);
    let exponentNegative = false;
    if (c === 43 || c === 45) {
      exponentNegative = c === 45;
      c = s.charCodeAt(++i);
    }
    if (!isDigit(c)) fail('Invalid number', i);
    do {
      if (exponent < 1e6) exponent = exponent * 10 + (c - 48);
      c = s.charCodeAt(++i);
    } while (isDigit(c));
    if (exponentNegative) exponent = -exponent;
  }
  pos = i;

  if (!hasFraction && !hasExponent) {
    // Digits without leading zeros are canonical, except `-0`.
    if (integerDigits <= 15) {
      if (!negative) return value;
      if (value !== 0) return -value;
      dirt++;
      return 0;
    }
    const text = s.slice(start, i);
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : JsonNumber.integer(text);
  }

  let n = Number(s.slice(start, i));
  if (!Number.isFinite(n)) fail('Number out of range', start);
  // CouchDB quirk: its decoder turns `5e-324` into 0.0 (while `4.9e-324` and `1e-320` keep
  // their value). Our reading of it: a mantissa without a fraction scaled by a power of ten
  // that itself underflows (10^-324 and below) gives zero.
  if (!hasFraction && exponent <= -324) n = 0;
  const result = Number.isSafeInteger(n) ? JsonNumber.float(n) : n;
  const canonical = typeof result === 'number' ? stringifyNumber(result) : result.text;
  if (canonical.length !== i - start || !s.startsWith(canonical, start)) dirt++;
  return result;
}

/**
 * A document's postings in one field as its row keeps them (./search-rows.ts): `[norm, terms,
 * codes]`, the terms in the order they first occur (one string joined by spaces, or an array
 * when a term is empty or holds a space) and, per term in that order, its frequency and its
 * positions as small numbers in one string: the frequency less one, the first position less the
 * previous term's first position, each further position less the one before, all zigzagged (any
 * sign) and written as base-64 digits. Numbers of 1 KB English texts are then a character each,
 * where the JSON numbers of the first format took ~3.5 and the index was 1.52 times the
 * documents' JSON.
 *
 * The first format, `[norm, term, position, ..., term, position, ...]`, is still read: an
 * index written by it opens as it is, and its rows are written anew as their documents change.
 */

/** A field's postings in a row, either format. */
export type FieldPostings = (string | number)[] | [norm: number, terms: string | string[], codes: string];

/**
 * The last digit of a number (0-63), and the digits before it (0-28, most significant first):
 * characters JSON writes as they are.
 */
const LAST_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';
const LEADING_DIGITS = "!#$%&'()*+,./:;<=>?@[]^`{|}~ ";
const LAST_BASE = LAST_DIGITS.length;
const LEADING_BASE = LEADING_DIGITS.length;

/** Per character code: its last digit's value, or LEADING + its leading digit's value, or -1. */
const LEADING = 64;
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < LAST_BASE; i++) DIGIT_OF[LAST_DIGITS.charCodeAt(i)] = i;
for (let i = 0; i < LEADING_BASE; i++) DIGIT_OF[LEADING_DIGITS.charCodeAt(i)] = LEADING + i;

/** The value of the digit character `code` (LEADING + value for a leading digit); a bad one throws. */
function digitOf(code: number): number {
  // Past the end (NaN) or not a digit: -1.
  const digit = code < 128 ? DIGIT_OF[code]! : -1;
  if (digit < 0) throw new Error('search row: bad postings codes');
  return digit;
}

/** Reads the zigzagged numbers of a codes string in turn. */
class CodesReader {
  private at = 0;
  constructor(private readonly codes: string) {}

  digit(): number {
    return digitOf(this.codes.charCodeAt(this.at++));
  }

  number(): number {
    let n = 0;
    for (;;) {
      const digit = this.digit();
      if (digit < LEADING) {
        n = n * LAST_BASE + digit;
        break;
      }
      n = n * LEADING_BASE + digit - LEADING;
    }
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** Past one number, its value not made. */
  skip(): void {
    while (this.digit() >= LEADING);
  }
}

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function writeNumber(out: string[], value: number): void {
  let n = zigzag(value);
  const last = LAST_DIGITS[n % LAST_BASE]!;
  n = Math.floor(n / LAST_BASE);
  let leading = '';
  while (n > 0) {
    leading = LEADING_DIGITS[n % LEADING_BASE]! + leading;
    n = Math.floor(n / LEADING_BASE);
  }
  out.push(leading, last);
}

/** A field's row postings: `positions` per term, in the order the terms first occur. */
export function encodeFieldPostings(norm: number, positions: ReadonlyMap<string, readonly number[]>): FieldPostings {
  const terms = [...positions.keys()];
  const codes: string[] = [];
  let previousFirst = 0;
  for (const list of positions.values()) {
    writeNumber(codes, list.length - 1);
    writeNumber(codes, list[0]! - previousFirst);
    previousFirst = list[0]!;
    for (let i = 1; i < list.length; i++) writeNumber(codes, list[i]! - list[i - 1]!);
  }
  const joinable = terms.every((term) => term !== '' && !term.includes(' '));
  return [norm, joinable ? terms.join(' ') : terms, codes.join('')];
}

/**
 * The same row postings as `encodeFieldPostings`, from the terms in the order they first occur
 * (`terms[0..count)`), each one's frequency, and every position grouped by term in that order,
 * ascending within a term (./search-mapper.ts: no Map and no array per term). The digits are
 * written as bytes into a scratch buffer, one string made of them.
 */
export function encodeGroupedPostings(
  norm: number,
  terms: readonly string[],
  count: number,
  frequencies: Int32Array,
  positions: Int32Array,
): FieldPostings {
  let bytes = codeBytes;
  let at = 0;
  let previousFirst = 0;
  let p = 0;
  let joinable = true;
  for (let t = 0; t < count; t++) {
    const frequency = frequencies[t]!;
    // A number takes at most 6 digits.
    if (at + (frequency + 1) * 6 > bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(bytes.length * 2, at + (frequency + 1) * 6));
      bytes.copy(grown, 0, 0, at);
      bytes = codeBytes = grown;
    }
    const first = positions[p]!;
    at = writeDigits(bytes, at, frequency - 1);
    at = writeDigits(bytes, at, first - previousFirst);
    previousFirst = first;
    for (let i = 1; i < frequency; i++) at = writeDigits(bytes, at, positions[p + i]! - positions[p + i - 1]!);
    p += frequency;
  }
  const codes = bytes.toString('latin1', 0, at);
  // The terms joined by spaces, written as bytes while they are Latin-1 (the one string made):
  // a join of the terms' slice made an array and a join's scratch per field.
  let text = termBytes;
  let end = 0;
  let latin1 = true;
  for (let t = 0; t < count && joinable; t++) {
    const term = terms[t]!;
    if (term === '') joinable = false;
    if (!latin1) {
      if (term.includes(' ')) joinable = false;
      continue;
    }
    if (end + term.length + 1 > text.length) {
      const grown = Buffer.allocUnsafe(Math.max(text.length * 2, end + term.length + 1));
      text.copy(grown, 0, 0, end);
      text = termBytes = grown;
    }
    if (t > 0) text[end++] = SPACE;
    for (let i = 0; i < term.length; i++) {
      const code = term.charCodeAt(i);
      if (code === SPACE) joinable = false;
      else if (code > 0xff) latin1 = false;
      text[end++] = code;
    }
  }
  if (!joinable) return [norm, terms.slice(0, count), codes];
  return [norm, latin1 ? text.toString('latin1', 0, end) : terms.slice(0, count).join(' '), codes];
}

let codeBytes = Buffer.allocUnsafe(4096);
let termBytes = Buffer.allocUnsafe(4096);
const SPACE = 0x20;

/** `writeNumber` into bytes at `at`; where they end. */
function writeDigits(bytes: Buffer, at: number, value: number): number {
  let n = zigzag(value);
  if (n < LAST_BASE) {
    bytes[at] = LAST_CODES[n]!;
    return at + 1;
  }
  const last = n % LAST_BASE;
  n = Math.floor(n / LAST_BASE);
  let digits = 0;
  for (let rest = n; rest > 0; rest = Math.floor(rest / LEADING_BASE)) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    bytes[at + i] = LEADING_CODES[n % LEADING_BASE]!;
    n = Math.floor(n / LEADING_BASE);
  }
  bytes[at + digits] = LAST_CODES[last]!;
  return at + digits + 1;
}

const LAST_CODES = Uint8Array.from(LAST_DIGITS, (digit) => digit.charCodeAt(0));
const LEADING_CODES = Uint8Array.from(LEADING_DIGITS, (digit) => digit.charCodeAt(0));

/**
 * Reads a field's row postings (either format): `term` is called once per term with its
 * positions in `positions[0..frequency)` (a scratch array, overwritten by the next call).
 */
export function readFieldPostings(
  list: FieldPostings,
  term: (term: string, positions: Int32Array, frequency: number) => void,
): void {
  if (list.length === 3 && typeof list[2] === 'string') {
    const given = list[1]!;
    const codes = list[2];
    const terms = typeof given === 'string' ? (given === '' ? [] : given.split(' ')) : (given as string[]);
    const reader = new CodesReader(codes);
    let first = 0;
    for (const text of terms) {
      const frequency = reader.number() + 1;
      let positions = scratch;
      if (frequency > positions.length) positions = scratch = new Int32Array(frequency * 2);
      first += reader.number();
      positions[0] = first;
      for (let i = 1; i < frequency; i++) positions[i] = positions[i - 1]! + reader.number();
      term(text, positions, frequency);
    }
    return;
  }
  // The first format.
  let i = 1;
  while (i < list.length) {
    const text = list[i] as string;
    const from = ++i;
    while (i < list.length && typeof list[i] === 'number') i++;
    let positions = scratch;
    if (i - from > positions.length) positions = scratch = new Int32Array((i - from) * 2);
    for (let k = from; k < i; k++) positions[k - from] = list[k] as number;
    term(text, positions, i - from);
  }
}

/**
 * A field's length (its positions counted) in row postings of the second form, without reading
 * them: per term its frequency and then as many positions, each a number whose last digit is a
 * LAST_DIGITS character, so the positions are the numbers less the terms.
 */
export function postingsLength(terms: string | string[], codes: string): number {
  let numbers = 0;
  for (let i = 0; i < codes.length; i++) if (digitOf(codes.charCodeAt(i)) < LEADING) numbers++;
  let count = 0;
  if (typeof terms !== 'string') count = terms.length;
  else if (terms !== '') {
    count = 1;
    for (let at = terms.indexOf(' '); at >= 0; at = terms.indexOf(' ', at + 1)) count++;
  }
  return numbers - count;
}

/**
 * One term of row postings of the second form, the `index`-th in the row's order: its positions
 * to `found` (a scratch, as readFieldPostings gives them). The terms before it are skipped over
 * (their first positions summed, their other numbers passed by their last digit): a query moving
 * one term's postings out of the delta (./postings.ts) read every term of each row before.
 */
export function readTermAt(
  codes: string,
  index: number,
  found: (positions: Int32Array, frequency: number) => void,
): void {
  const reader = new CodesReader(codes);
  let first = 0;
  for (let t = 0; t < index; t++) {
    const frequency = reader.number() + 1;
    first += reader.number();
    for (let i = 1; i < frequency; i++) reader.skip();
  }
  const frequency = reader.number() + 1;
  let positions = scratch;
  if (frequency > positions.length) positions = scratch = new Int32Array(frequency * 2);
  first += reader.number();
  positions[0] = first;
  for (let i = 1; i < frequency; i++) positions[i] = positions[i - 1]! + reader.number();
  found(positions, frequency);
}

let scratch = new Int32Array(64);

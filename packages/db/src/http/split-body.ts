/**
 * A large JSON object body (`_bulk_docs`: `{"docs": [...], ...}`) parsed in pieces: each element
 * of its large top-level arrays on its own, the rest as a small skeleton. Decoding the whole body
 * at once makes one string of its size, which V8 places in a memory mapping of its own (strings
 * over 128 KB) and unmaps again: on a virtual machine whose first touch of a page is slow, that
 * was the largest part of a bulk load's page faults. The pieces are small strings, and each
 * document keeps a source text of its own (`JsonObject.canonicalText`) instead of a slice of the
 * whole body's.
 *
 * The byte scan only finds where the pieces are (strings, escapes and nesting); the JSON parser
 * still checks every byte. Whatever the scan does not expect gives up on splitting, and the caller
 * parses the body whole, so every error is the one a whole parse gives.
 */
import { type JsonValue, parseJson } from '../json/index.js';

/** Arrays shorter than this stay in the skeleton. */
const SPLIT_ARRAY_BYTES = 32 * 1024;

/** A top-level member of the body: where its key and value are, and the value's elements when split. */
interface Member {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
  /** Start and end of each element, when the value is an array that is parsed element by element. */
  elements?: number[];
}

/**
 * The body parsed in pieces, or undefined when it is no object with a large array member, or
 * anything about it is unusual (duplicate keys, a syntax error): then parse it whole.
 * `decode` turns bytes into text as the whole body's would be (strict UTF-8).
 */
export function parseSplitBody(bytes: Buffer, decode: (bytes: Buffer) => string): JsonValue | undefined {
  const members = scanTopMembers(bytes);
  if (members === undefined || !members.some((m) => m.elements !== undefined)) return undefined;
  try {
    // Duplicate keys collapse in the parser (the last one wins); a split member must be the one kept.
    const keys = members.map((m) => parseJson(decode(bytes.subarray(m.keyStart, m.keyEnd))) as string);
    if (new Set(keys).size !== keys.length) return undefined;
    // The split arrays are `[ ]` in the skeleton: the space keeps the parser from taking the
    // skeleton's text for the body's own canonical text.
    const pieces: Buffer[] = [];
    let at = 0;
    for (const m of members) {
      if (m.elements === undefined) continue;
      pieces.push(bytes.subarray(at, m.valueStart), PLACEHOLDER);
      at = m.valueEnd;
    }
    pieces.push(bytes.subarray(at));
    const top = parseJson(decode(Buffer.concat(pieces)));
    if (!(top !== null && typeof top === 'object' && !Array.isArray(top) && 'get' in top)) return undefined;
    members.forEach((m, i) => {
      const elements = m.elements;
      if (elements === undefined) return;
      const items = top.get(keys[i]!);
      if (!Array.isArray(items)) throw new Error('not the placeholder');
      // Each element sits two levels deep: in the body's object, in the array.
      for (let e = 0; e < elements.length; e += 2) {
        items.push(parseJson(decode(bytes.subarray(elements[e]!, elements[e + 1]!)), 2));
      }
    });
    return top;
  } catch {
    return undefined;
  }
}

const PLACEHOLDER = Buffer.from('[ ]');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The top-level members of an object text; undefined when it is not one as far as the scan can tell. */
function scanTopMembers(bytes: Buffer): Member[] | undefined {
  const n = bytes.length;
  let i = 0;
  const skip = (): void => {
    while (isSpace(bytes[i])) i++;
  };
  skip();
  if (bytes[i] !== OPEN_OBJECT) return undefined;
  i++;
  const members: Member[] = [];
  skip();
  if (bytes[i] === CLOSE_OBJECT) return members;
  for (;;) {
    skip();
    if (bytes[i] !== QUOTE) return undefined;
    const keyStart = i;
    i = stringEnd(bytes, i);
    if (i < 0) return undefined;
    const keyEnd = i;
    skip();
    if (bytes[i] !== COLON) return undefined;
    i++;
    skip();
    const valueStart = i;
    const elements: number[] | undefined = bytes[i] === OPEN_ARRAY ? [] : undefined;
    i = valueEnd(bytes, i, elements);
    if (i < 0) return undefined;
    const member: Member = { keyStart, keyEnd, valueStart, valueEnd: i };
    if (elements !== undefined && i - valueStart >= SPLIT_ARRAY_BYTES) member.elements = elements;
    members.push(member);
    skip();
    const c = bytes[i++];
    if (c === COMMA) continue;
    if (c !== CLOSE_OBJECT) return undefined;
    skip();
    return i === n ? members : undefined;
  }
}

/** Past the closing quote of the string starting at `i`; -1 when it does not end. */
function stringEnd(bytes: Buffer, i: number): number {
  for (;;) {
    // The next quote (a native search), unless an odd run of backslashes escapes it.
    const quote = bytes.indexOf(QUOTE, i + 1);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote;
  }
}

/**
 * Past the value starting at `i` (a string, an array or object by its brackets, or anything else
 * up to the next `,` `}` `]` or space); -1 when it does not end. For an array, `elements` gets the
 * start and end of each element (whitespace around it included).
 */
function valueEnd(bytes: Buffer, i: number, elements: number[] | undefined): number {
  const n = bytes.length;
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) {
    while (i < n) {
      const c = bytes[i];
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  let elementStart = i + 1;
  for (; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      i = stringEnd(bytes, i) - 1;
      if (i < 0) return -1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
      if (depth === 0) {
        // A mismatched closing bracket at this level would go unseen by the parses of the pieces.
        if (c !== (first === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT)) return -1;
        if (elements !== undefined && !(elements.length === 0 && onlySpace(bytes, elementStart, i))) {
          elements.push(elementStart, i);
        }
        return i + 1;
      }
    } else if (c === COMMA && depth === 1 && elements !== undefined) {
      elements.push(elementStart, i);
      elementStart = i + 1;
    }
  }
  return -1;
}

function onlySpace(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(bytes[i])) return false;
  return true;
}

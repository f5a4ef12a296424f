/**
 * A document's text read only as far as a map function needs it: the top-level members it
 * names, each parsed on its own, every other member skipped over as text (issue #31: a whole
 * `JSON.parse` of each document, most of it members no view reads, was most of the native map
 * step and of its garbage).
 *
 * The result holds exactly the named members the document has, with the values `JSON.parse`
 * gives them (a member written twice: the last, as `JSON.parse`). A name written with an escape
 * (`"\u0074ype"`) or anything unexpected makes the reader give up (undefined): the caller parses
 * the whole text instead. The texts are stored documents, valid JSON: skipped members are not
 * checked.
 */
import { jsonStringEnd, jsonValueEnd, skipJsonSpace } from '../../json/index.js';

/** Reads `names` (none of them a member every object inherits) out of a JSON object's text. */
export function readDocMembers(text: string, names: readonly string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let i = skipJsonSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipJsonSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return skipJsonSpace(text, i + 1) === text.length ? out : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const nameEnd = jsonStringEnd(text, i + 1);
    if (nameEnd < 0) return undefined;
    const name = nameAt(text, i + 1, nameEnd, names);
    i = skipJsonSpace(text, nameEnd + 1);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipJsonSpace(text, i + 1);
    const end = jsonValueEnd(text, start);
    if (end < 0) return undefined;
    if (name === ESCAPED) return undefined;
    if (name !== undefined) out[name] = parsedValue(text, start, end);
    i = skipJsonSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_OBJECT) return skipJsonSpace(text, i + 1) === text.length ? out : undefined;
    if (c !== COMMA) return undefined;
    i = skipJsonSpace(text, i + 1);
  }
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
/** A member name with an escape in it: it cannot be compared as written. */
const ESCAPED = '\\';

/** Which of `names` the name text in [from, end) is (undefined: none; ESCAPED: cannot tell). */
function nameAt(text: string, from: number, end: number, names: readonly string[]): string | undefined {
  const length = end - from;
  for (const name of names) {
    if (name.length === length && text.startsWith(name, from)) return name;
  }
  return hasEscape(text, from, end) ? ESCAPED : undefined;
}

/** Whether [from, end) holds a backslash (an indexOf would search on to the text's end). */
function hasEscape(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

function parsedValue(text: string, start: number, end: number): unknown {
  if (text.charCodeAt(start) === QUOTE && !hasEscape(text, start + 1, end - 1)) return text.slice(start + 1, end - 1);
  return JSON.parse(text.slice(start, end));
}

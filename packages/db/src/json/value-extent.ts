/**
 * Where a JSON value or string ends in a text, found without parsing it: the readers that take
 * one or two members out of a stored document skip every other member as text (views' map
 * functions, Mango's scans and index builds). The texts are stored documents, valid JSON: what is
 * skipped is not checked.
 */

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** The index of the quote closing a string whose text starts at `from` (-1: none). */
export function jsonStringEnd(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q >= 0) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/** The index just past the JSON value starting at `start` (-1: cannot tell). */
export function jsonValueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === QUOTE) {
    const end = jsonStringEnd(text, start + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = jsonStringEnd(text, i + 1);
        if (i < 0) return -1;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = start;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || d <= 0x20) break;
  }
  return i > start ? i : -1;
}

/** Past JSON whitespace (space, tab, line feed, carriage return) from `i`. */
export function skipJsonSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/**
 * The named top-level members of a document's text, found by searching for their names rather
 * than walking every member (json/parse.ts `parseJsonMembers`), for the common shape where that
 * is safe: a text with no nested object and no escape. A scan or an index build reads one or two
 * members of every document; walking the others was most of its parsing (issue #31).
 *
 * Why a name found is a member of the outer object: without a backslash every `"` delimits a
 * string, and in valid JSON a closing quote is never followed by a letter, so `"name"` followed
 * by `:` is that key itself; keys live only in objects, and the only object is the outer one.
 * The last occurrence wins, as `JSON.parse` (and `parseJsonMembers`) take a duplicate key's last
 * value. Any other text is left to `parseJsonMembers`.
 */
import { type JsonValue, JsonObject, parseJson, parseJsonMembers } from '../json/index.js';

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;

/** A reader of `names`' members of JSON object texts (stored documents: valid JSON). */
export function membersReader(names: ReadonlySet<string>): (text: string) => JsonObject {
  // A name with a quote or a backslash is written escaped: searched for as written, it would be missed.
  if ([...names].some((name) => name.includes('"') || name.includes('\\'))) {
    return (text) => parseJsonMembers(text, names);
  }
  const quoted = [...names].map((name) => [name, `"${name}"`] as const);
  return (text) => flatMembers(text, quoted) ?? parseJsonMembers(text, names);
}

/** The members, or undefined when the text is not of the flat shape this reads. */
function flatMembers(text: string, quoted: readonly (readonly [string, string])[]): JsonObject | undefined {
  if (text.charCodeAt(0) !== OPEN_OBJECT || text.indexOf('{', 1) >= 0 || text.indexOf('\\') >= 0) return undefined;
  // Each member found with where it starts: the object keeps the text's order, as the walk does.
  const found: { at: number; name: string; value: JsonValue }[] = [];
  for (const [name, key] of quoted) {
    for (let at = text.lastIndexOf(key); at > 0; at = text.lastIndexOf(key, at - 1)) {
      const colon = skipSpace(text, at + key.length);
      // The same characters as a string value (in an array, or a member's value): not a key.
      if (text.charCodeAt(colon) !== COLON) continue;
      const start = skipSpace(text, colon + 1);
      const end = valueEnd(text, start);
      if (end < 0) return undefined;
      found.push({ at, name, value: valueAt(text, start, end) });
      break;
    }
  }
  if (found.length > 1) found.sort((a, b) => a.at - b.at);
  return new JsonObject(
    found.map((member) => member.name),
    found.map((member) => member.value),
  );
}

/**
 * A short integer needs no parser; other numbers get `parseJson`'s reading (a JsonNumber for a
 * big or float-spelled one).
 */
const PLAIN_INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;

/** The value in [start, end) of a flat text (no escapes: a string is its characters). */
function valueAt(text: string, start: number, end: number): JsonValue {
  if (text.charCodeAt(start) === QUOTE) return text.slice(start + 1, end - 1);
  const spelled = text.slice(start, end);
  return PLAIN_INTEGER.test(spelled) ? Number(spelled) : parseJson(spelled);
}

/**
 * Just past the value starting at `start` in a text without escapes or nested objects (-1: not
 * such a value).
 */
function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === QUOTE) {
    const end = text.indexOf('"', start + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_ARRAY) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return -1;
      } else if (d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_ARRAY && --depth === 0) return i + 1;
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

/** Past JSON whitespace (space, tab, line feed, carriage return). */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

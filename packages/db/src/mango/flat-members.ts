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
import { type JsonValue, JsonObject, jsonValueEnd, parseJson, parseJsonMembers, skipJsonSpace } from '../json/index.js';

const OPEN_OBJECT = 0x7b;
const QUOTE = 0x22;
const COLON = 0x3a;

/** A reader of `names`' members of JSON object texts (stored documents: valid JSON). */
export function membersReader(names: ReadonlySet<string>): (text: string) => JsonObject {
  // A name with a quote or a backslash is written escaped: searched for as written, it would be missed.
  if (!searchable(names)) return (text) => parseJsonMembers(text, names);
  const quoted = [...names].map((name) => [name, `"${name}"`] as const);
  return (text) => flatMembers(text, quoted) ?? parseJsonMembers(text, names);
}

/**
 * A reader of the values of `names` into the caller's array (undefined where a member is
 * missing), in that order: the values `membersReader` gives, without the object around them (an
 * index build reads one or two per document, and its keys are made of nothing else; the array is
 * the build's, reused from document to document).
 */
export function memberValuesInto(names: readonly string[]): (text: string, values: (JsonValue | undefined)[]) => void {
  const wanted = new Set(names);
  const walked = (text: string, values: (JsonValue | undefined)[]) => {
    const members = parseJsonMembers(text, wanted);
    for (let i = 0; i < names.length; i++) values[i] = members.get(names[i]!);
  };
  if (!searchable(names)) return walked;
  const keys = names.map((name) => `"${name}"`);
  return (text, values) => {
    if (!flatValues(text, keys, values)) walked(text, values);
  };
}

function searchable(names: Iterable<string>): boolean {
  for (const name of names) if (name.includes('"') || name.includes('\\')) return false;
  return true;
}

/** The members, or undefined when the text is not of the flat shape this reads. */
function flatMembers(text: string, quoted: readonly (readonly [string, string])[]): JsonObject | undefined {
  if (text.charCodeAt(0) !== OPEN_OBJECT || text.indexOf('{', 1) >= 0 || text.indexOf('\\') >= 0) return undefined;
  // Each member found with where it starts: the object keeps the text's order, as the walk does.
  const found: { at: number; name: string; value: JsonValue }[] = [];
  for (const [name, key] of quoted) {
    for (let at = text.lastIndexOf(key); at > 0; at = text.lastIndexOf(key, at - 1)) {
      const colon = skipJsonSpace(text, at + key.length);
      // The same characters as a string value (in an array, or a member's value): not a key.
      if (text.charCodeAt(colon) !== COLON) continue;
      const start = skipJsonSpace(text, colon + 1);
      const end = jsonValueEnd(text, start);
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
 * The values of the members `keys` (quoted names) into `values`, or false when the text is not
 * flat (as `flatMembers`). Its search repeats `flatMembers`' inline: the two as calls of one
 * helper cost the full scan ~5%.
 */
function flatValues(text: string, keys: readonly string[], values: (JsonValue | undefined)[]): boolean {
  if (text.charCodeAt(0) !== OPEN_OBJECT || text.indexOf('{', 1) >= 0 || text.indexOf('\\') >= 0) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    values[i] = undefined;
    for (let at = text.lastIndexOf(key); at > 0; at = text.lastIndexOf(key, at - 1)) {
      const colon = skipJsonSpace(text, at + key.length);
      if (text.charCodeAt(colon) !== COLON) continue;
      const start = skipJsonSpace(text, colon + 1);
      const end = jsonValueEnd(text, start);
      if (end < 0) return false;
      values[i] = valueAt(text, start, end);
      break;
    }
  }
  return true;
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

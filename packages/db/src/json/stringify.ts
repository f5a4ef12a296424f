import { JsonNumber, JsonObject, type JsonValue } from './value.js';

/**
 * The canonical text CouchDB returns for a value: no whitespace, strings escaped like
 * `JSON.stringify`, integers as exact digits, floats in JS shortest form with ".0" appended
 * when the text would otherwise read as an integer (`100.0`, `1e+21` stays as it is).
 * Member order is kept.
 */
export function stringifyJson(value: JsonValue): string {
  return write(value);
}

/** The text of a number: integers (safe ones) as digits, anything else as a float. */
export function stringifyNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n); // String(-0) is "0"
  if (!Number.isFinite(n)) throw new RangeError(`${n} has no JSON form`);
  const text = String(n);
  // Non-safe integral values print as plain digits ("1e+21" and up already carry an exponent).
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 || c === 101) return text; // '.' or 'e'
  }
  return `${text}.0`;
}

function write(value: JsonValue): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return stringifyNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let out = `[${write(value[0]!)}`;
        for (let i = 1; i < value.length; i++) out += `,${write(value[i]!)}`;
        return `${out}]`;
      }
      if (value instanceof JsonObject) {
        const { keys, values } = value;
        if (keys.length === 0) return '{}';
        let out = `{${JSON.stringify(keys[0])}:${write(values[0]!)}`;
        for (let i = 1; i < keys.length; i++) out += `,${JSON.stringify(keys[i])}:${write(values[i]!)}`;
        return `${out}}`;
      }
      if (value instanceof JsonNumber) return value.text;
  }
  throw new TypeError(`not a JSON value: ${Object.prototype.toString.call(value)}`);
}

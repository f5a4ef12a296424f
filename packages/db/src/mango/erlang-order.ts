/**
 * Erlang's comparisons of EJSON terms, which Mango uses in two places: a condition on the path
 * `_id` compares in term order (numbers < false < null < true < objects < arrays < strings,
 * strings by UTF-8 bytes: the view collation's `raw` order), and `$all` tests membership with
 * exact equality (`=:=`: `1` is not `1.0`).
 */
import { isFloat, type JsonValue, JsonNumber, JsonObject } from '../json/index.js';
import { collateRaw } from '../collation/index.js';

/** Erlang term order of two decoded JSON values: <0, 0 or >0 (`1` and `1.0` are equal here). */
export function compareTerms(a: JsonValue, b: JsonValue): number {
  return collateRaw(a, b);
}

/** Erlang's `==`: equal in term order (numbers by value). */
export function termsEqual(a: JsonValue, b: JsonValue): boolean {
  return collateRaw(a, b) === 0;
}

/** Erlang's `=:=`: the same term (an integer never equals a float). */
export function termsExactlyEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (isNumber(a) || isNumber(b)) {
    if (!isNumber(a) || !isNumber(b) || isFloat(a) !== isFloat(b)) return false;
    return collateRaw(a, b) === 0;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => termsExactlyEqual(item, b[i]!));
  }
  if (a instanceof JsonObject) {
    if (!(b instanceof JsonObject) || a.size !== b.size) return false;
    return a.keys.every((key, i) => key === b.keys[i] && termsExactlyEqual(a.values[i]!, b.values[i]!));
  }
  return false; // null, booleans and strings are equal only when identical
}

function isNumber(value: JsonValue): value is number | JsonNumber {
  return typeof value === 'number' || value instanceof JsonNumber;
}

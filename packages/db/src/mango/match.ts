/**
 * Evaluating a normalized selector against a JSON value (CouchDB's mango_selector:match).
 *
 * A field condition resolves its path first: a missing member satisfies only a plain
 * `{"$exists": false}`, a path that cannot apply (into a number, a bad array index) satisfies
 * nothing, so every other operator, `$ne`, `$nin` and negations included, is false on a missing
 * field. Values compare in CouchDB's view collation, except under the path `_id`, which compares
 * in Erlang term order. Which documents are offered (design docs, deleted ones) is the caller's
 * decision.
 */
import { type JsonValue, JsonNumber, JsonObject } from '../json/index.js';
import { collate } from '../collation/index.js';
import { compareTerms, termsEqual, termsExactlyEqual } from './erlang-order.js';
import { BAD_PATH, NOT_FOUND, resolvePath } from './field-path.js';
import { type Condition, type FieldSelector, isInteger, type Selector } from './selector.js';

type Compare = (a: JsonValue, b: JsonValue) => number;

/** True when `value` (a document body, or any JSON value) satisfies the selector. */
export function matches(selector: Selector, value: JsonValue): boolean {
  return match(selector, value, collate);
}

/** A selector CouchDB's matcher does not know (`$nor` left inside `$elemMatch`): it fails. */
class UnknownOperator extends Error {}

function match(selector: Selector, value: JsonValue, cmp: Compare): boolean {
  switch (selector.kind) {
    case 'empty':
    case 'text':
      return true;
    case 'and':
      return selector.items.every((item) => match(item, value, cmp));
    case 'or':
      return selector.items.length === 0 || selector.items.some((item) => match(item, value, cmp));
    case 'not':
      return !match(selector.item, value, cmp);
    case 'nor':
      throw new UnknownOperator('$nor');
    case 'field':
      return matchField(selector, value, cmp);
  }
}

function matchField(selector: FieldSelector, value: JsonValue, cmp: Compare): boolean {
  const { path, condition } = selector;
  if (path === undefined) throw selector.pathError!;
  const resolved = path.length === 0 ? value : resolvePath(value, path);
  if (resolved === NOT_FOUND) return !selector.negated && condition.op === '$exists' && condition.arg === false;
  if (resolved === BAD_PATH) return false;
  const fieldCmp = selector.field === '_id' ? compareTerms : cmp;
  const result = test(condition, resolved, fieldCmp);
  return selector.negated ? !result : result;
}

function test(condition: Condition, value: JsonValue, cmp: Compare): boolean {
  switch (condition.op) {
    case '$eq':
      return cmp(value, condition.arg) === 0;
    case '$ne':
      return cmp(value, condition.arg) !== 0;
    case '$lt':
      return cmp(value, condition.arg) < 0;
    case '$lte':
      return cmp(value, condition.arg) <= 0;
    case '$gt':
      return cmp(value, condition.arg) > 0;
    case '$gte':
      return cmp(value, condition.arg) >= 0;
    case '$in':
      return isIn(condition.arg, value, cmp);
    case '$nin':
      if (condition.arg.length === 0) return true;
      if (Array.isArray(value)) return !isIn(condition.arg, value, cmp);
      return condition.arg.every((arg) => cmp(value, arg) !== 0);
    case '$all': {
      const args = condition.arg;
      if (args.length === 0 || !Array.isArray(value)) return false;
      if (args.every((arg) => value.some((item) => termsExactlyEqual(arg, item)))) return true;
      const only = args.length === 1 ? args[0] : undefined;
      return Array.isArray(only) && termsEqual(only, value);
    }
    case '$exists':
      return condition.arg; // the path resolved
    case '$type':
      return condition.arg === typeName(value);
    case '$size':
      return Array.isArray(value) && cmp(value.length, condition.arg) === 0;
    case '$mod': {
      if (!isInteger(value)) return false;
      const n = typeof value === 'number' ? BigInt(value) : value.toBigInt();
      // BigInt `%` truncates like Erlang's `rem`: the remainder has the sign of the dividend.
      return n % condition.divisor === condition.remainder;
    }
    case '$regex':
      return typeof value === 'string' && condition.regex.test(value);
    case '$beginsWith':
      return typeof value === 'string' && beginsWith(value, condition.arg);
    case '$elemMatch':
      return Array.isArray(value) && failsAsFalse(() => value.some((item) => match(condition.arg, item, cmp)));
    case '$allMatch':
      return (
        Array.isArray(value) &&
        value.length > 0 &&
        failsAsFalse(() => value.every((item) => match(condition.arg, item, cmp)))
      );
    case '$keyMapMatch':
      return (
        value instanceof JsonObject && failsAsFalse(() => value.keys.some((key) => match(condition.arg, key, cmp)))
      );
  }
}

/** `$in`: for an array value, some element equals some argument; else the value equals one. */
function isIn(args: readonly JsonValue[], value: JsonValue, cmp: Compare): boolean {
  if (Array.isArray(value)) return args.some((arg) => value.some((item) => cmp(item, arg) === 0));
  return args.some((arg) => cmp(value, arg) === 0);
}

/**
 * CouchDB evaluates `$elemMatch`, `$allMatch` and `$keyMapMatch` inside a catch-all: any
 * failure below them (an invalid field name, an unknown operator) is "no match".
 */
function failsAsFalse(evaluate: () => boolean): boolean {
  try {
    return evaluate();
  } catch {
    return false;
  }
}

/** mango_json:type/1. */
export function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number' || value instanceof JsonNumber) return 'number';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) ? 'array' : 'object';
}

let graphemes: Intl.Segmenter | undefined;

/**
 * Erlang's `string:prefix(Value, Prefix) =/= nomatch`: a prefix in whole grapheme clusters, so
 * `"e\u0301x"` does not begin with `"e"` and `"\r\n"` not with `"\r"`.
 */
export function beginsWith(value: string, prefix: string): boolean {
  if (!value.startsWith(prefix)) return false;
  const end = prefix.length;
  if (end === 0 || end === value.length) return true;
  const next = value.charCodeAt(end);
  // An ASCII character starts a new cluster, except a line feed after a carriage return.
  if (next < 0x80 && !(next === 0x0a && value.charCodeAt(end - 1) === 0x0d)) return true;
  graphemes ??= new Intl.Segmenter('und', { granularity: 'grapheme' });
  for (const { index } of graphemes.segment(value)) {
    if (index === end) return true;
    if (index > end) return false;
  }
  return false;
}

/**
 * Mango selectors: parsing a selector's JSON into CouchDB's normalized form and the typed tree
 * the matcher, the planner and `_explain` work on.
 *
 * CouchDB normalizes in three passes (mango_selector.erl), reproduced here on the JSON itself so
 * that every quirk carries over, then reads the result into the `Selector` union:
 * 1. operators: implicit `$and` for objects with several members, implicit `$eq` for non-object
 *    values, argument checks;
 * 2. field names pushed down to the operators (`{"a":{"b":{"$gt":1}}}` → `{"a.b":{"$gt":1}}`);
 *    the arguments of `$elemMatch`/`$allMatch`/`$keyMapMatch` are independent selectors;
 * 3. negations pushed to the leaves (De Morgan, `not $lt` → `$gte`, …); what cannot be negated
 *    keeps an explicit `$not`.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonNumber, JsonObject } from '../json/index.js';
import { formatW } from './erlang-text.js';
import { type FieldPath, parseFieldPath } from './field-path.js';
import { compileRegex, type MangoRegex } from './regex.js';

/** A normalized selector. */
export type Selector =
  | EmptySelector
  | AndSelector
  | OrSelector
  | NotSelector
  | NorSelector
  | TextSelector
  | FieldSelector;

/** `{}`: matches every document. */
export interface EmptySelector {
  readonly kind: 'empty';
}

/** `{"$and":[…]}`: all hold (`[]` holds). */
export interface AndSelector {
  readonly kind: 'and';
  readonly items: readonly Selector[];
}

/** `{"$or":[…]}`: some holds (`[]` holds too, as CouchDB's matcher has it). */
export interface OrSelector {
  readonly kind: 'or';
  readonly items: readonly Selector[];
}

/**
 * `{"$not": selector}` left over by normalization: only inside the argument of `$elemMatch`/
 * `$allMatch`/`$keyMapMatch`, which CouchDB does not push negations into. Plain negation (so,
 * unlike a negated field condition, true when the field is missing).
 */
export interface NotSelector {
  readonly kind: 'not';
  readonly item: Selector;
}

/**
 * `{"$nor":[…]}` left over inside the argument of `$elemMatch`/`$allMatch`/`$keyMapMatch` (see
 * `NotSelector`). CouchDB's matcher does not know it and fails, which those operators turn into
 * "no match".
 */
export interface NorSelector {
  readonly kind: 'nor';
  readonly items: readonly Selector[];
}

/** `{"$default":{"$text": arg}}`: a text search; true for every document without a text index. */
export interface TextSelector {
  readonly kind: 'text';
  readonly arg: JsonValue;
}

/**
 * `{"field": {op: arg}}` or, when the operator has no negated form, `{"field": {"$not": {op: arg}}}`.
 * `field` is the normalized name as `_explain` shows it; `""` is the value itself (operator-only
 * selectors inside `$elemMatch` and friends).
 */
export interface FieldSelector {
  readonly kind: 'field';
  readonly field: string;
  /** The field's segments ([] for `""`); undefined when the name is invalid (`pathError`). */
  readonly path: FieldPath | undefined;
  /** 400 `invalid_field_name`, thrown when the path is used (as CouchDB does, while matching). */
  readonly pathError: CouchError | undefined;
  readonly negated: boolean;
  readonly condition: Condition;
}

export type ComparisonOp = '$eq' | '$ne' | '$lt' | '$lte' | '$gt' | '$gte';

/** One operator and its argument, typed per operator. */
export type Condition =
  | { readonly op: ComparisonOp; readonly arg: JsonValue }
  | { readonly op: '$in' | '$nin' | '$all'; readonly arg: readonly JsonValue[] }
  | { readonly op: '$exists'; readonly arg: boolean }
  | { readonly op: '$type'; readonly arg: string }
  | { readonly op: '$size'; readonly arg: number | JsonNumber }
  | {
      readonly op: '$mod';
      readonly arg: readonly [JsonValue, JsonValue];
      readonly divisor: bigint;
      readonly remainder: bigint;
    }
  | { readonly op: '$regex'; readonly arg: string; readonly regex: MangoRegex }
  | { readonly op: '$beginsWith'; readonly arg: string }
  | { readonly op: '$elemMatch' | '$allMatch' | '$keyMapMatch'; readonly arg: Selector };

export type Operator = Condition['op'];

/** Parses and normalizes a selector (any JSON value; not an object is the caller's error to report). */
export function parseSelector(json: JsonValue): Selector {
  return readSelector(normalizeSelectorJson(json));
}

/** The normalized selector's JSON, exactly as `_explain` shows it. */
export function selectorToJson(selector: Selector): JsonValue {
  switch (selector.kind) {
    case 'empty':
      return new JsonObject();
    case 'and':
    case 'or':
    case 'nor':
      return one(`$${selector.kind}`, selector.items.map(selectorToJson));
    case 'not':
      return one('$not', selectorToJson(selector.item));
    case 'text':
      return one('$default', one('$text', selector.arg));
    case 'field': {
      const { condition } = selector;
      const arg: JsonValue = isSubSelector(condition)
        ? selectorToJson(condition.arg)
        : condition.op === '$in' || condition.op === '$nin' || condition.op === '$all' || condition.op === '$mod'
          ? [...condition.arg]
          : (condition.arg as JsonValue);
      const cond = one(condition.op, arg);
      return one(selector.field, selector.negated ? one('$not', cond) : cond);
    }
  }
}

/** True for `{}`. */
export function isEmptySelector(selector: Selector): boolean {
  return selector.kind === 'empty';
}

/**
 * True for a selector CouchDB's `_find` does not run at all (answer `{"docs":[]}`): exactly
 * `{"$or":[]}` or `{"$and":[]}`.
 */
export function isEmptyRangeSelector(selector: Selector): boolean {
  return (selector.kind === 'and' || selector.kind === 'or') && selector.items.length === 0;
}

function isSubSelector(
  condition: Condition,
): condition is { op: '$elemMatch' | '$allMatch' | '$keyMapMatch'; arg: Selector } {
  return condition.op === '$elemMatch' || condition.op === '$allMatch' || condition.op === '$keyMapMatch';
}

// ---- the three passes, on JSON ----

/** CouchDB's `mango_selector:normalize/1`: the normalized JSON, or CouchDB's 400. */
export function normalizeSelectorJson(json: JsonValue): JsonValue {
  if (json instanceof JsonObject && json.size === 0) return new JsonObject();
  const normalized = normNegations(normFields(normOps(json), ''));
  if (normalized instanceof JsonObject && normalized.keys.includes('')) {
    throw new CouchError('invalid_selector', 'One or more conditions is missing a field name.', 400);
  }
  return normalized;
}

const one = (key: string, value: JsonValue): JsonObject => new JsonObject([key], [value]);

const badArg = (op: string, arg: JsonValue): CouchError =>
  new CouchError('bad_arg', `Bad argument for operator ${op}: ${formatW(arg)}`, 400);

const UNSUPPORTED = new Set(['$where', '$geoWithin', '$geoIntersects', '$near', '$nearSphere']);
const ANY_ARG = new Set(['$lt', '$lte', '$eq', '$ne', '$gte', '$gt']);

/** The single member of a one-member object, else undefined. */
function only(value: JsonValue): [string, JsonValue] | undefined {
  return value instanceof JsonObject && value.size === 1 ? [value.keys[0]!, value.values[0]!] : undefined;
}

export function isInteger(value: JsonValue): value is number | JsonNumber {
  return typeof value === 'number' ? Number.isSafeInteger(value) : value instanceof JsonNumber && !value.isFloat;
}

function bigIntOf(value: number | JsonNumber): bigint {
  return typeof value === 'number' ? BigInt(value) : value.toBigInt();
}

/** Pass 1 (norm_ops). */
function normOps(value: JsonValue): JsonValue {
  const member = only(value);
  if (member === undefined) {
    if (value instanceof JsonObject && value.size > 1) {
      return one(
        '$and',
        value.keys.map((key, i) => normOps(one(key, value.values[i]!))),
      );
    }
    return one('$eq', value);
  }
  const [op, arg] = member;
  switch (op) {
    case '$and':
    case '$or':
    case '$nor':
      if (!Array.isArray(arg)) throw badArg(op, arg);
      return one(op, arg.map(normOps));
    case '$not':
    case '$elemMatch':
    case '$allMatch':
    case '$keyMapMatch':
      if (!(arg instanceof JsonObject)) throw badArg(op, arg);
      return one(op, normOps(arg));
    case '$in':
    case '$nin':
    case '$all':
      if (!Array.isArray(arg)) throw badArg(op, arg);
      return value;
    case '$size':
      if (!isInteger(arg) || bigIntOf(arg) < 0n) throw badArg(op, arg);
      return value;
    case '$text':
      if (typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean' || arg instanceof JsonNumber) {
        return one('$default', one('$text', arg));
      }
      throw badArg(op, arg);
    case '$exists':
      if (typeof arg !== 'boolean') throw badArg(op, arg);
      return value;
    case '$type':
      if (typeof arg !== 'string') throw badArg(op, arg);
      return value;
    case '$mod':
      if (!Array.isArray(arg) || arg.length !== 2 || !isInteger(arg[0]!) || !isInteger(arg[1]!)) {
        throw badArg(op, arg);
      }
      // CouchDB crashes (500 badarith) when a document is tested; refused up front instead.
      if (bigIntOf(arg[0]) === 0n) throw badArg(op, arg);
      return value;
    case '$regex':
      if (typeof arg !== 'string') break;
      compileRegex(arg); // 400 when it does not compile or cannot be matched faithfully
      return value;
    case '$beginsWith':
      if (typeof arg !== 'string') break;
      return value;
    default:
      if (ANY_ARG.has(op)) return value;
      if (op === '$default') return value; // checked by the field pass
      if (op.startsWith('$')) {
        if (UNSUPPORTED.has(op)) throw new CouchError('not_supported', `Unsupported operator: ${op}`, 400);
        break;
      }
      return one(op, normOps(arg));
  }
  throw new CouchError('invalid_operator', `Invalid operator: ${op}`, 400);
}

/** Pass 2 (norm_fields): field names pushed down and joined with dots. */
function normFields(value: JsonValue, path: string): JsonValue {
  const member = only(value);
  if (member === undefined) return value; // {} (only at the top: normalize/1 returns it early)
  const [key, arg] = member;
  switch (key) {
    case '$and':
    case '$or':
    case '$nor':
      return one(
        key,
        (arg as JsonValue[]).map((item) => normFields(item, path)),
      );
    case '$not':
      return one(key, normFields(arg, path));
    case '$elemMatch':
    case '$allMatch':
    case '$keyMapMatch':
      return one(path, one(key, normFields(arg, '')));
    case '$default':
      if (path === '' && only(arg)?.[0] === '$text') return value;
      throw new CouchError('bad_field', `Invalid field normalization on selector: ${formatW(value)}`, 400);
    default:
      if (key.startsWith('$')) return one(path, value);
      return normFields(arg, path === '' ? key : `${path}.${key}`);
  }
}

/** Pass 3 (norm_negations). */
function normNegations(value: JsonValue): JsonValue {
  const member = only(value);
  if (member === undefined) return value;
  const [key, arg] = member;
  switch (key) {
    case '$and':
    case '$or':
      return one(key, (arg as JsonValue[]).map(normNegations));
    case '$nor':
      return one(
        '$and',
        (arg as JsonValue[]).map((item) => negate(item)),
      );
    case '$elemMatch':
    case '$allMatch':
    case '$keyMapMatch':
      return one(key, normNegations(arg));
    case '$not':
      return negate(arg);
    default:
      // A field is a leaf here: CouchDB does not look inside, so negations in the arguments of
      // `$elemMatch`/`$allMatch`/`$keyMapMatch` (always below a field) stay as written.
      return value;
  }
}

const NEGATED: Record<string, string> = {
  $lt: '$gte',
  $lte: '$gt',
  $gt: '$lte',
  $gte: '$lt',
  $eq: '$ne',
  $ne: '$eq',
  $in: '$nin',
  $nin: '$in',
};

function negate(value: JsonValue): JsonValue {
  const member = only(value);
  if (member === undefined) return value;
  const [key, arg] = member;
  switch (key) {
    case '$not':
      return normNegations(arg);
    case '$nor':
      return one('$or', (arg as JsonValue[]).map(normNegations));
    case '$and':
      return one(
        '$or',
        (arg as JsonValue[]).map((item) => negate(item)),
      );
    case '$or':
      return one(
        '$and',
        (arg as JsonValue[]).map((item) => negate(item)),
      );
    case '$default':
      throw badArg('$not', value);
    case '$exists':
      return one('$exists', !(arg as boolean));
    default: {
      const negated = NEGATED[key];
      if (negated !== undefined) return one(negated, arg);
      if (key.startsWith('$')) return one('$not', value);
      return one(key, negate(arg));
    }
  }
}

// ---- the normalized JSON read into the typed tree ----

function readSelector(json: JsonValue): Selector {
  const member = only(json);
  if (member === undefined) {
    if (json instanceof JsonObject && json.size === 0) return { kind: 'empty' };
    throw new Error(`not a normalized selector: ${formatW(json)}`);
  }
  const [key, arg] = member;
  switch (key) {
    case '$and':
    case '$or':
    case '$nor':
      return {
        kind: key === '$and' ? 'and' : key === '$or' ? 'or' : 'nor',
        items: (arg as JsonValue[]).map(readSelector),
      };
    case '$not':
      return { kind: 'not', item: readSelector(arg) };
    case '$default':
      return { kind: 'text', arg: only(arg)![1] };
    default:
      return readField(key, arg);
  }
}

function readField(field: string, cond: JsonValue): FieldSelector {
  let path: FieldPath | undefined = [];
  let pathError: CouchError | undefined;
  if (field !== '') {
    try {
      path = parseFieldPath(field);
    } catch (err) {
      path = undefined;
      pathError = err as CouchError;
    }
  }
  let [op, arg] = only(cond)!;
  const negated = op === '$not';
  if (negated) [op, arg] = only(arg)!;
  return { kind: 'field', field, path, pathError, negated, condition: readCondition(op, arg) };
}

function readCondition(op: string, arg: JsonValue): Condition {
  switch (op) {
    case '$eq':
    case '$ne':
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
      return { op, arg };
    case '$in':
    case '$nin':
    case '$all':
      return { op, arg: arg as JsonValue[] };
    case '$exists':
      return { op, arg: arg as boolean };
    case '$type':
    case '$beginsWith':
      return { op, arg: arg as string };
    case '$size':
      return { op, arg: arg as number | JsonNumber };
    case '$mod': {
      const [divisor, remainder] = arg as [number | JsonNumber, number | JsonNumber];
      return { op, arg: [divisor, remainder], divisor: bigIntOf(divisor), remainder: bigIntOf(remainder) };
    }
    case '$regex':
      return { op, arg: arg as string, regex: compileRegex(arg as string) };
    case '$elemMatch':
    case '$allMatch':
    case '$keyMapMatch':
      return { op, arg: readSelector(arg) };
    default:
      // Normalization lets only the operators above through.
      throw new CouchError('invalid_operator', `Invalid operator: ${op}`, 400);
  }
}

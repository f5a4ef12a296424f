/**
 * A Mango selector as the Lucene query a text index answers it with (CouchDB's
 * mango_selector_text): each condition on a field becomes a query on the index's field of the
 * value's type (`age:number` → `age_3anumber`, names escaped as ./text-names.ts says), an existence
 * test a query of `$fieldnames`, `$text` a query of `$default`. The query finds a superset of the
 * documents (`$elemMatch`, `$regex`, `$mod`, `$type`... become "the field exists"): the selector
 * itself then decides (./text-find.ts), as CouchDB's text cursor does.
 *
 * The query strings are CouchDB's to the character (`_explain` shows them), quirks included:
 * string ranges run up to the literal `u0x10FFFF`, a string with a digit in it is quoted without
 * escaping, floats are written as Erlang's `float_to_list` writes them.
 */
import { CouchError } from '../errors.js';
import { type JsonValue, JsonNumber, JsonObject, isFloat } from '../json/index.js';
import { escapeUserField, parseField } from './text-names.js';

/** The converted selector (mango_selector_text's tuple tree). `path` is reversed: its head is the last segment. */
type Node =
  | { op: 'and' | 'or'; args: Node[] }
  | { op: 'not'; exists: Node; arg: Node | false }
  | { op: 'field' | 'null'; path: readonly string[]; type: string; value: string }
  | { op: 'fieldname'; name: string; wildcard: string }
  | { op: 'regex'; path: readonly string[] }
  | { op: 'default'; value: string };

const invalidOperator = (op: string) => new CouchError('invalid_operator', `Invalid operator: ${op}`, 400);

/** The Lucene query of a normalized selector (its JSON, as `_explain` shows it). */
export function textQuery(selector: JsonValue): string {
  if (selector instanceof JsonObject && selector.size === 0) return '';
  return toQuery(convert([], selector));
}

/** The tree of a normalized selector, for `indexableFields`. */
function convertSelector(selector: JsonValue): Node | undefined {
  if (selector instanceof JsonObject && selector.size === 0) return undefined;
  return convert([], selector);
}

function single(value: JsonValue): [string, JsonValue] | undefined {
  return value instanceof JsonObject && value.size === 1 ? [value.keys[0]!, value.values[0]!] : undefined;
}

function isNumber(value: JsonValue): value is number | JsonNumber {
  return typeof value === 'number' || value instanceof JsonNumber;
}

function isScalar(value: JsonValue): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || isNumber(value);
}

function convert(path: readonly string[], selector: JsonValue): Node {
  const member = single(selector);
  if (member === undefined) {
    if (isScalar(selector)) return field(path, selector);
    throw new CouchError('text_search_error', `Cannot search a text index for: ${JSON.stringify(selector)}`, 400);
  }
  const [key, arg] = member;
  switch (key) {
    case '$and':
    case '$or':
      return { op: key === '$and' ? 'and' : 'or', args: (arg as JsonValue[]).map((a) => convert(path, a)) };
    case '$not':
      return { op: 'not', exists: fieldExists(path), arg: convert(path, arg) };
    case '$default': {
      const inner = convert(path, arg);
      if (inner.op !== 'field') throw invalidOperator('$default');
      return { op: 'default', value: inner.value };
    }
    case '$text':
      if (typeof arg !== 'string') throw invalidOperator('$text');
      return field(path, arg);
    case '$all': {
      if (!Array.isArray(arg)) throw invalidOperator('$all');
      if (arg.length === 1 && Array.isArray(arg[0])) {
        return {
          op: 'or',
          args: [convert(path, eq(arg[0])), convert(['[]', ...path], eq(arg[0]))],
        };
      }
      return convert(['[]', ...path], JsonObject.from([['$and', arg]]));
    }
    case '$elemMatch':
    case '$allMatch':
      return convert(['[]', ...path], arg);
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
      if (arg === null || Array.isArray(arg) || arg instanceof JsonObject) return fieldExists(path);
      return field(path, arg, range(key, arg));
    case '$eq':
      if (arg === null) return { op: 'null', path, type: 'null', value: 'true' };
      if (Array.isArray(arg)) {
        const inner = ['[]', ...path];
        return {
          op: 'and',
          args: [
            { op: 'field', path: inner, type: 'length', value: String(arg.length) },
            ...arg.map((a) => convert(inner, eq(a))),
          ],
        };
      }
      if (arg instanceof JsonObject) return convert(path, arg);
      return field(path, arg);
    case '$ne':
      return { op: 'not', exists: fieldExists(path), arg: convert(path, eq(arg)) };
    case '$in':
      return { op: 'or', args: convertIn(path, arg as JsonValue[]) };
    case '$nin':
      return { op: 'not', exists: fieldExists(path), arg: { op: 'or', args: convertIn(path, arg as JsonValue[]) } };
    case '$exists':
      return arg === true ? fieldExists(path) : { op: 'not', exists: fieldExists(path), arg: false };
    case '$beginsWith':
      if (typeof arg !== 'string') throw invalidOperator(key);
      return { op: 'field', path, type: 'string', value: `${escapeQueryValue(arg)}*` };
    case '$type':
      return fieldExists(path);
    case '$mod':
      return { op: 'fieldname', name: `${pathString(path)}:`, wildcard: 'number' };
    case '$regex':
      return { op: 'regex', path };
    case '$size':
      return { op: 'field', path: ['[]', ...path], type: 'length', value: valueString(arg) };
  }
  if (key.startsWith('$')) throw invalidOperator(key);
  return fieldSpecifier(path, key, arg);
}

/**
 * A field name: its segments (literal dots kept escaped, for the second parse of the name when
 * it is escaped), array positions as `[]` — both forms queried when there is one.
 */
function fieldSpecifier(path: readonly string[], name: string, condition: JsonValue): Node {
  const parts = name === '' ? [] : parseField(name).map((p) => p.replaceAll('.', '\\.'));
  const replaced = parts.map((p) => (/^[+-]?\d+$/.test(p) ? '[]' : p));
  const newPath = [...replaced].reverse().concat(path);
  if (replaced.some((p, i) => p !== parts[i])) {
    const oldPath = [...parts].reverse().concat(path);
    return { op: 'or', args: [convert(oldPath, condition), convert(newPath, condition)] };
  }
  return convert(newPath, condition);
}

const eq = (value: JsonValue): JsonObject => JsonObject.from([['$eq', value]]);

function field(path: readonly string[], value: JsonValue, text = valueString(value)): Node {
  return { op: 'field', path, type: typeName(value), value: text };
}

function convertIn(path: readonly string[], args: readonly JsonValue[]): Node[] {
  const inner = ['[]', ...path];
  return args.map((arg) => {
    if (arg instanceof JsonObject) {
      return {
        op: 'or',
        args: arg.keys.map((key, i) => {
          const sub = JsonObject.from([[key, arg.values[i]!]]);
          return { op: 'or', args: [convert(path, sub), convert(inner, sub)] } as Node;
        }),
      };
    }
    return { op: 'or', args: [field(path, arg), field(inner, arg)] };
  });
}

function fieldExists(path: readonly string[]): Node {
  const name = pathString(path);
  return {
    op: 'or',
    args: [
      { op: 'fieldname', name: `${name}:`, wildcard: '*' },
      { op: 'fieldname', name, wildcard: '.*' },
    ],
  };
}

function range(op: string, arg: JsonValue): string {
  const numeric = isNumber(arg);
  const value = valueString(arg);
  switch (op) {
    case '$lt':
      return `[${numeric ? '-Infinity' : '""'} TO ${value}}`;
    case '$lte':
      return `[${numeric ? '-Infinity' : '""'} TO ${value}]`;
    case '$gte':
      return `[${value} TO ${numeric ? 'Infinity' : 'u0x10FFFF'}]`;
    default:
      return `{${value} TO ${numeric ? 'Infinity' : 'u0x10FFFF'}]`;
  }
}

/** The path's segments joined with `.` (first to last), empty segments but the first left out. */
export function pathString(path: readonly string[]): string {
  if (path.length === 0) return '';
  const forward = [...path].reverse();
  let out = forward[0]!;
  for (const part of forward.slice(1)) if (part !== '') out += `.${part}`;
  return out;
}

function typeName(value: JsonValue): string {
  if (isNumber(value)) return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'null';
}

/** Java's number syntax anywhere in the text (CouchDB runs its NUMSTRING pattern unanchored). */
const NUMBER_SOMEWHERE = /\p{N}|NaN|Infinity/u;

function valueString(value: JsonValue): string {
  if (typeof value === 'string') {
    return NUMBER_SOMEWHERE.test(value) ? `"${value}"` : `"${escapeQueryValue(value)}"`;
  }
  if (typeof value === 'boolean') return String(value);
  if (value === null) return 'true';
  if (isNumber(value)) return isFloat(value) ? erlangFloat(Number(value.toString())) : value.toString();
  throw new CouchError('text_search_error', `Cannot search a text index for: ${JSON.stringify(value)}`, 400);
}

/** Erlang's `float_to_list/1`: 20 decimals in scientific notation, a two-digit exponent at least. */
export function erlangFloat(n: number): string {
  return n.toExponential(20).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** mango_util:lucene_escape_query_value: Lucene's special characters and whitespace escaped. */
export function escapeQueryValue(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const pair = text.slice(i, i + 2);
    if (pair === '&&' || pair === '||') {
      out += `\\${pair}`;
      i++;
    } else out += '+-(){}[]!^~*?:/\\" \t\r\n'.includes(c) ? `\\${c}` : c;
  }
  return out;
}

function toQuery(node: Node): string {
  switch (node.op) {
    case 'and':
    case 'or': {
      const parts = node.args.map(toQuery).filter((q) => q !== '' && q !== '()');
      return parts.length === 0 ? '' : `(${parts.join(node.op === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'not': {
      const exists = toQuery(node.exists);
      if (node.arg === false) return `($fieldnames:/.*/  AND NOT (${exists}))`;
      const query = toQuery(node.arg);
      return query === '' ? `(${exists})` : `(${exists} AND NOT (${query}))`;
    }
    case 'field':
    case 'null':
      return `(${escapeUserField(`${pathString(node.path)}:${node.type}`)}:${node.value})`;
    case 'fieldname':
      return `($fieldnames:${escapeUserField(node.name)}${node.wildcard})`;
    case 'regex':
      return `($fieldnames:${escapeUserField(`${pathString(node.path)}:`)}string)`;
    case 'default':
      return `($default:${node.value})`;
  }
}

/**
 * The fields a selector's query reads, as `name:type` (mango_idx_text:indexable_fields): an index
 * with a fields list serves the selector when it has them all. Existence tests, nulls, regular
 * expressions and array lengths name none; `$default` is itself.
 */
export function indexableFields(selector: JsonValue): string[] {
  const tree = convertSelector(selector);
  const out: string[] = [];
  const walk = (node: Node): void => {
    switch (node.op) {
      case 'and':
        node.args.forEach(walk);
        return;
      case 'or': {
        const [first, second] = node.args;
        // `$in` and array positions query a field and its `[]` form; an index defines one of them.
        if (node.args.length === 2 && first?.op === 'field' && second?.op === 'field') {
          if (second.path.includes('[]')) walk(second);
          else {
            walk(first);
            walk(second);
          }
          return;
        }
        node.args.forEach(walk);
        return;
      }
      case 'not':
        walk(node.exists);
        if (node.arg !== false) walk(node.arg);
        return;
      case 'field':
        if (node.type !== 'length') out.push(`${pathString(node.path)}:${node.type}`);
        return;
      case 'default':
        out.push('$default');
        return;
      default:
        return;
    }
  };
  if (tree !== undefined) walk(tree);
  return out;
}

/**
 * A sort field as the text index sorts it (mango_selector_text:append_sort_type): `name:string`
 * and `name:number` say their type; a bare name takes it from the selector's conditions on it,
 * which must all be strings or all numbers (400 `text_sort_error` otherwise).
 */
export function sortFieldOf(raw: string, selector: JsonValue): { field: string; type: 'string' | 'number' } {
  const encoded = escapeUserField(raw);
  if (encoded.endsWith('_3astring')) return { field: encoded, type: 'string' };
  if (encoded.endsWith('_3anumber')) return { field: encoded, type: 'number' };
  const types = new Set<string>();
  const walk = (value: JsonValue): void => {
    const member = single(value);
    if (member === undefined) return;
    const [key, cond] = member;
    const inner = single(cond);
    if (key === raw && inner !== undefined && inner[0].startsWith('$')) {
      if (typeof inner[1] === 'string') {
        types.add('string');
        return;
      }
      if (isNumber(inner[1])) {
        types.add('number');
        return;
      }
    }
    if (Array.isArray(cond)) cond.forEach(walk);
    else if (cond instanceof JsonObject) walk(cond);
  };
  walk(selector);
  if (types.size === 1) {
    const type = [...types][0] as 'string' | 'number';
    return { field: `${encoded}_3a${type}`, type };
  }
  throw new CouchError(
    'text_sort_error',
    `Unspecified or ambiguous sort type. Try appending :number or :string to the sort field. ${raw}`,
    400,
  );
}

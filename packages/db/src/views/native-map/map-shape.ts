/**
 * Map functions of a common, closed shape, run without the sandbox: `emit` calls of document
 * members and literals, under `if`s comparing them. Issue #31: mapping through the sandbox
 * (copying each document's text into the isolate, parsing it there, the rows' text back) was
 * most of an index build's CPU for functions like `function (doc) { if (doc.type === 'post')
 * emit([doc.author, doc.date], doc.title); }`.
 *
 * Exactness. The shape is a subset of JavaScript whose meaning does not depend on the
 * environment: no calls but `emit`, no assignment, no loops, no global but `undefined`, and only
 * member names no prototype of a JSON value has (so a member is the document's own data, or
 * undefined, in any realm; `length` excepted: it is the string's or array's own). It is
 * evaluated here with the same engine semantics as in the sandbox (`===`, `<`, truthiness,
 * `typeof` are V8's either way), and emitted keys and values are normalized as the sandbox's
 * JSON round trip does. Where the sandbox would throw (a member of `null` or `undefined`), the
 * evaluation says so and the caller maps that document in the sandbox instead, so the error
 * and its log line are the sandbox's own. Any other source is not compiled here (undefined).
 */

/** A document's rows in one view. */
export type EmittedRows = [key: unknown, value: unknown][];

/** One compiled map function: the rows it emits for a parsed document (throws MemberOfNothing where the sandbox would throw). */
export type NativeMap = (doc: unknown, rows: EmittedRows) => void;

/** The evaluation reached a member of `null` or `undefined`: a TypeError in the sandbox. */
export class MemberOfNothing extends Error {}
const MEMBER_OF_NOTHING = new MemberOfNothing('member of null or undefined');
/** A call whose arguments the sandbox's wrapper refuses (it throws there): the caller maps in the sandbox. */
const REFUSED_ARGUMENTS = new Error('arguments the sandbox refuses');

/** Member names some prototype of a JSON value (or of a literal here) has: their value would not be data. */
const INHERITED = new Set<string>();
for (const proto of [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype]) {
  for (const name of Object.getOwnPropertyNames(proto)) INHERITED.add(name);
}
INHERITED.delete('length');

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined emit ' +
    'log sum isArray toJSON require'
  ).split(' '),
);

type Token =
  | { kind: 'punct'; text: string; newlineBefore: boolean }
  | { kind: 'name'; text: string; newlineBefore: boolean }
  | { kind: 'string'; text: string; newlineBefore: boolean }
  | { kind: 'number'; value: number; newlineBefore: boolean };

const PUNCTUATORS = [
  '===',
  '!==',
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  '.',
  ':',
  '!',
  '<',
  '>',
  '-',
];
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const NUMBER = /^(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][+-]?\d+)?|^\.\d+(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_$][\w$]*/;

/** The source's tokens, or undefined for anything outside the shape (a regex, a template, an escape...). */
function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let at = 0;
  let newline = false;
  while (at < source.length) {
    const c = source[at]!;
    if (c === ' ' || c === '\t' || c === '\v' || c === '\f' || c === '\u00a0' || c === '\ufeff') {
      at++;
      continue;
    }
    if (LINE_BREAK.test(c)) {
      newline = true;
      at++;
      continue;
    }
    if (source.startsWith('//', at)) {
      const rest = source.slice(at);
      const end = rest.search(LINE_BREAK);
      at = end < 0 ? source.length : at + end;
      continue;
    }
    if (source.startsWith('/*', at)) {
      const end = source.indexOf('*/', at + 2);
      if (end < 0) return undefined;
      if (LINE_BREAK.test(source.slice(at, end))) newline = true;
      at = end + 2;
      continue;
    }
    const rest = source.slice(at, at + 256);
    const name = NAME.exec(rest);
    if (name !== null) {
      tokens.push({ kind: 'name', text: name[0], newlineBefore: newline });
      at += name[0].length;
    } else if (c === '"' || c === "'") {
      let end = at + 1;
      while (end < source.length && source[end] !== c) {
        const d = source[end]!;
        if (d === '\\' || d === '\n' || d === '\r') return undefined;
        end++;
      }
      if (end >= source.length) return undefined;
      tokens.push({ kind: 'string', text: source.slice(at + 1, end), newlineBefore: newline });
      at = end + 1;
    } else if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(source[at + 1] ?? ''))) {
      const number = NUMBER.exec(rest);
      if (number === null) return undefined;
      // `1.x`, `0x1`, `01`, `1_000`, `1n`: not a plain decimal literal.
      if (/^[\w$.]/.test(source.slice(at + number[0].length, at + number[0].length + 1))) return undefined;
      tokens.push({ kind: 'number', value: Number(number[0]), newlineBefore: newline });
      at += number[0].length;
    } else {
      const punct = PUNCTUATORS.find((p) => source.startsWith(p, at));
      if (punct === undefined) return undefined;
      // `=>`, `<<`, `!==` read whole above; a punctuator run longer than the shape knows is not it.
      if (/^[=<>&|]/.test(source.slice(at + punct.length, at + punct.length + 1))) return undefined;
      tokens.push({ kind: 'punct', text: punct, newlineBefore: newline });
      at += punct.length;
    }
    newline = false;
  }
  return tokens;
}

/** An expression evaluated two ways: as JavaScript sees it, and as emitted (JSON-normalized; undefined: none). */
interface Expr {
  value(doc: unknown): unknown;
  json(doc: unknown): unknown;
}

/** A number, string, boolean or null as the sandbox's JSON round trip gives it back (undefined: omitted). */
function jsonOfValue(value: unknown): unknown {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object':
      // A member of the document: JSON data already, but `-0` inside becomes 0.
      return value === null ? null : JSON.parse(JSON.stringify(value));
    default:
      return value;
  }
}

function literal(value: unknown): Expr {
  const json = jsonOfValue(value);
  return { value: () => value, json: () => json };
}

/** The call a function's rows come from: `emit(key, value)`, or a search index function's `index(name, value, options)`. */
export type RowCall = 'emit' | 'index';

class Parser {
  private at = 0;
  private param = '';
  /** The document's top-level members the function reads (undefined once it reads the document itself). */
  docMembers: Set<string> | undefined = new Set();

  constructor(
    private readonly tokens: Token[],
    private readonly call: RowCall = 'emit',
  ) {}

  /** `function [name](param) { statements }` then nothing but semicolons. */
  program(): NativeMap | undefined {
    if (!this.takeName('function')) return undefined;
    let name: string | undefined;
    const first = this.peek();
    if (first?.kind === 'name') {
      name = first.text;
      // A function named as its call would call itself (a named function expression's own binding).
      if (RESERVED.has(name) || name === this.call) return undefined;
      this.at++;
    }
    if (!this.takePunct('(')) return undefined;
    const param = this.peek();
    if (param?.kind !== 'name' || RESERVED.has(param.text) || param.text === name || param.text === this.call) {
      return undefined;
    }
    this.param = param.text;
    this.at++;
    if (!this.takePunct(')')) return undefined;
    const body = this.block();
    if (body === undefined) return undefined;
    while (this.takePunct(';'));
    if (this.at !== this.tokens.length) return undefined;
    return body;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  private isPunct(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.kind === 'punct' && token.text === text;
  }

  private takePunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.at++;
    return true;
  }

  private takeName(text: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'name' || token.text !== text) return false;
    this.at++;
    return true;
  }

  private block(): NativeMap | undefined {
    if (!this.takePunct('{')) return undefined;
    const statements: NativeMap[] = [];
    while (!this.takePunct('}')) {
      if (this.peek() === undefined) return undefined;
      const statement = this.statement();
      if (statement === undefined) return undefined;
      statements.push(statement);
    }
    return (doc, rows) => {
      for (const statement of statements) statement(doc, rows);
    };
  }

  private statement(): NativeMap | undefined {
    if (this.isPunct('{')) return this.block();
    if (this.takePunct(';')) return () => {};
    if (this.takeName('if')) {
      if (!this.takePunct('(')) return undefined;
      const test = this.expression();
      if (test === undefined || !this.takePunct(')')) return undefined;
      const then = this.statement();
      if (then === undefined) return undefined;
      if (!this.takeName('else')) {
        return (doc, rows) => {
          if (test.value(doc)) then(doc, rows);
        };
      }
      const otherwise = this.statement();
      if (otherwise === undefined) return undefined;
      return (doc, rows) => {
        if (test.value(doc)) then(doc, rows);
        else otherwise(doc, rows);
      };
    }
    if (this.call === 'index') return this.takeName('index') ? this.indexCall() : undefined;
    if (this.takeName('emit')) {
      if (!this.takePunct('(')) return undefined;
      const key = this.expression();
      if (key === undefined) return undefined;
      let value: Expr | undefined;
      if (this.takePunct(',')) {
        value = this.expression();
        if (value === undefined) return undefined;
      }
      if (!this.takePunct(')')) return undefined;
      // The statement ends with `;`, or where JavaScript inserts one (a line break, a `}`).
      if (!this.takePunct(';')) {
        const next = this.peek();
        if (next !== undefined && !next.newlineBefore && !this.isPunct('}')) return undefined;
      }
      if (value === undefined) {
        return (doc, rows) => {
          rows.push([key.json(doc) ?? null, null]);
        };
      }
      return (doc, rows) => {
        // Arguments are evaluated in order: the key's failure comes first, as in the sandbox.
        const k = key.json(doc);
        rows.push([k ?? null, value.json(doc) ?? null]);
      };
    }
    return undefined;
  }

  /**
   * `index(name, value[, options])` as search's sandbox wrapper runs it (search/search-mapper.ts):
   * a row `[name, [value, options || {}]]`. Where the wrapper's checks throw (a name not a
   * string or starting with `_`, a value not a string, number or boolean, truthy options not
   * an object), this throws too: the document goes to the sandbox, whose error it is.
   */
  private indexCall(): NativeMap | undefined {
    if (!this.takePunct('(')) return undefined;
    const args: Expr[] = [];
    for (;;) {
      const arg = this.expression();
      if (arg === undefined) return undefined;
      args.push(arg);
      if (this.takePunct(')')) break;
      if (!this.takePunct(',') || args.length === 3) return undefined;
    }
    if (args.length < 2) return undefined;
    if (!this.takePunct(';')) {
      const next = this.peek();
      if (next !== undefined && !next.newlineBefore && !this.isPunct('}')) return undefined;
    }
    const [name, value, options] = args as [Expr, Expr, Expr | undefined];
    return (doc, rows) => {
      const n = name.value(doc);
      const v = value.value(doc);
      const o = options?.value(doc);
      if (typeof n !== 'string' || n.startsWith('_')) throw REFUSED_ARGUMENTS;
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw REFUSED_ARGUMENTS;
      if (o && typeof o !== 'object') throw REFUSED_ARGUMENTS;
      rows.push([n, [jsonOfValue(v) ?? null, o ? jsonOfValue(o) : {}]]);
    };
  }

  private expression(): Expr | undefined {
    return this.binary(0);
  }

  private static readonly LEVELS: readonly (readonly string[])[] = [
    ['||'],
    ['&&'],
    ['===', '!==', '==', '!='],
    ['<', '<=', '>', '>='],
  ];

  private binary(level: number): Expr | undefined {
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      if (left === undefined) return undefined;
      const token = this.peek();
      if (token?.kind !== 'punct' || !Parser.LEVELS[level]!.includes(token.text)) return left;
      this.at++;
      const right = this.binary(level + 1);
      if (right === undefined) return undefined;
      left = operation(token.text, left, right);
    }
  }

  private unary(): Expr | undefined {
    if (this.takePunct('!')) {
      const operand = this.unary();
      if (operand === undefined) return undefined;
      return computed((doc) => !operand.value(doc));
    }
    if (this.takeName('typeof')) {
      const operand = this.unary();
      if (operand === undefined) return undefined;
      return computed((doc) => typeof operand.value(doc));
    }
    if (this.takePunct('-')) {
      const token = this.peek();
      if (token?.kind !== 'number') return undefined;
      this.at++;
      return literal(-token.value);
    }
    return this.primary();
  }

  private primary(): Expr | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    this.at++;
    switch (token.kind) {
      case 'number':
        return literal(token.value);
      case 'string':
        return literal(token.text);
      case 'name':
        if (token.text === 'true') return literal(true);
        if (token.text === 'false') return literal(false);
        if (token.text === 'null') return literal(null);
        if (token.text === 'undefined') return literal(undefined);
        if (token.text === this.param) return this.members();
        return undefined;
      case 'punct':
        if (token.text === '(') {
          const inner = this.expression();
          return inner !== undefined && this.takePunct(')') ? inner : undefined;
        }
        if (token.text === '[') return this.arrayLiteral();
        if (token.text === '{') return this.objectLiteral();
        return undefined;
    }
  }

  /** The parameter and its member chain: `doc.a.b`, `doc['a']`. */
  private members(): Expr | undefined {
    const names: string[] = [];
    for (;;) {
      if (this.takePunct('.')) {
        const token = this.peek();
        if (token?.kind !== 'name') return undefined;
        names.push(token.text);
        this.at++;
      } else if (this.isPunct('[')) {
        const token = this.peek(1);
        if (token?.kind !== 'string' || !this.isPunct(']', 2)) return undefined;
        names.push(token.text);
        this.at += 3;
      } else {
        break;
      }
    }
    if (names.some((name) => INHERITED.has(name))) return undefined;
    // The next token may not make this a call or an assignment.
    if (this.isPunct('(')) return undefined;
    if (names[0] === undefined) this.docMembers = undefined;
    else this.docMembers?.add(names[0]);
    const value = memberChain(names);
    return { value, json: (doc) => jsonOfValue(value(doc)) };
  }

  private arrayLiteral(): Expr | undefined {
    const items: Expr[] = [];
    if (!this.takePunct(']')) {
      for (;;) {
        const item = this.expression();
        if (item === undefined) return undefined;
        items.push(item);
        if (this.takePunct(']')) break;
        if (!this.takePunct(',') || this.isPunct(']')) return undefined;
      }
    }
    return {
      value: (doc) => items.map((item) => item.value(doc)),
      json: (doc) => {
        const out = new Array<unknown>(items.length);
        for (let i = 0; i < items.length; i++) out[i] = items[i]!.json(doc) ?? null;
        return out;
      },
    };
  }

  private objectLiteral(): Expr | undefined {
    const members: [string, Expr][] = [];
    if (!this.takePunct('}')) {
      for (;;) {
        const key = this.peek();
        if (key?.kind !== 'name' && key?.kind !== 'string') return undefined;
        // `__proto__: x` sets the prototype rather than a member.
        if (key.text === '__proto__') return undefined;
        this.at++;
        if (!this.takePunct(':')) return undefined;
        const value = this.expression();
        if (value === undefined) return undefined;
        members.push([key.text, value]);
        if (this.takePunct('}')) break;
        if (!this.takePunct(',') || this.isPunct('}')) return undefined;
      }
    }
    const build = (doc: unknown): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      for (const [key, e] of members) out[key] = e.value(doc);
      return out;
    };
    return {
      value: build,
      // JSON's text of it: undefined members dropped, the members' order kept (a key given
      // twice where it was first), NaN as null, as the sandbox's round trip gives it.
      json: (doc) => JSON.parse(JSON.stringify(build(doc))),
    };
  }
}

function computed(value: (doc: unknown) => unknown): Expr {
  return { value, json: (doc) => jsonOfValue(value(doc)) };
}

function operation(op: string, left: Expr, right: Expr): Expr {
  const l = left.value;
  const r = right.value;
  switch (op) {
    case '||':
      return computed((doc) => l(doc) || r(doc));
    case '&&':
      return computed((doc) => l(doc) && r(doc));
    case '===':
      return computed((doc) => l(doc) === r(doc));
    case '!==':
      return computed((doc) => l(doc) !== r(doc));
    case '==':
      // biome-ignore lint/suspicious/noDoubleEquals: the map function's own operator
      return computed((doc) => l(doc) == r(doc));
    case '!=':
      // biome-ignore lint/suspicious/noDoubleEquals: the map function's own operator
      return computed((doc) => l(doc) != r(doc));
    case '<':
      return computed((doc) => (l(doc) as number) < (r(doc) as number));
    case '<=':
      return computed((doc) => (l(doc) as number) <= (r(doc) as number));
    case '>':
      return computed((doc) => (l(doc) as number) > (r(doc) as number));
    default:
      return computed((doc) => (l(doc) as number) >= (r(doc) as number));
  }
}

/** `doc.a.b...`: a member of null or undefined throws MemberOfNothing. */
function memberChain(names: readonly string[]): (doc: unknown) => unknown {
  if (names.length === 0) return (doc) => doc;
  if (names.length === 1) {
    const [name] = names as [string];
    return (doc) => {
      if (doc === null || doc === undefined) throw MEMBER_OF_NOTHING;
      return (doc as Record<string, unknown>)[name];
    };
  }
  return (doc) => {
    let value = doc;
    for (const name of names) {
      if (value === null || value === undefined) throw MEMBER_OF_NOTHING;
      value = (value as Record<string, unknown>)[name];
    }
    return value;
  };
}

/** A map function compiled, and what of the document it reads. */
export interface CompiledShape {
  map: NativeMap;
  /** The top-level members of the document it reads; undefined when it reads the document itself. */
  members: ReadonlySet<string> | undefined;
}

/**
 * The map function compiled, when its source is of the shape this file runs (see the header);
 * `call` is `index` for a search index function of the same shape, with `index(name, value[,
 * options])` calls where a map function has `emit` (the rows search's sandbox wrapper emits for
 * it: search/search-mapper.ts).
 */
export function compileShape(source: string, call: RowCall = 'emit'): CompiledShape | undefined {
  const tokens = tokenize(source);
  if (tokens === undefined) return undefined;
  const parser = new Parser(tokens, call);
  const map = parser.program();
  return map === undefined ? undefined : { map, members: parser.docMembers };
}

/** `compileShape`'s function alone. */
export function compileMapShape(source: string): NativeMap | undefined {
  return compileShape(source)?.map;
}

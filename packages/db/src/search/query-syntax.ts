/**
 * Lucene's classic query syntax (the `q` of `_search`), parsed as Lucene 4's `QueryParser`
 * reads it: the same tokens (terms with `\` escapes, `*`/`?` wildcards, quoted phrases, ranges,
 * `~` and `^` suffixes), the same clause rules (`AND`/`&&`, `OR`/`||`, `NOT`/`!`, `+`, `-`, the
 * default operator OR) and the same shape of result: one clause alone is that clause, several are
 * a boolean query. What is parsed here is syntax only; terms are analyzed later
 * (./query-build.ts), with the index's analyzer for their field.
 *
 * A query the parser refuses is a `CouchError('bad_request')` (400) naming the query and where
 * it failed; nothing else is ever thrown. `formatQuery` writes a parsed query back so that it
 * parses to the same thing (the property tests' round trip).
 */
import { CouchError } from '../errors.js';

export type Occur = 'must' | 'should' | 'must_not';

export type SyntaxQuery =
  | { type: 'term'; field: string; text: string; boost?: number }
  | { type: 'phrase'; field: string; text: string; slop: number; boost?: number }
  | { type: 'prefix'; field: string; prefix: string; boost?: number }
  | { type: 'wildcard'; field: string; pattern: string; boost?: number }
  | { type: 'fuzzy'; field: string; text: string; maxEdits: number; boost?: number }
  | {
      type: 'range';
      field: string;
      lower: string | null;
      upper: string | null;
      includeLower: boolean;
      includeUpper: boolean;
      boost?: number;
    }
  | { type: 'all'; boost?: number }
  | { type: 'bool'; clauses: { occur: Occur; query: SyntaxQuery }[]; boost?: number };

type TokenKind =
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'PLUS'
  | 'MINUS'
  | 'BAREOPER'
  | 'LPAREN'
  | 'RPAREN'
  | 'COLON'
  | 'STAR'
  | 'CARAT'
  | 'QUOTED'
  | 'TERM'
  | 'FUZZY_SLOP'
  | 'PREFIXTERM'
  | 'WILDTERM'
  | 'REGEXPTERM'
  | 'RANGEIN_START'
  | 'RANGEEX_START'
  | 'NUMBER'
  | 'RANGE_TO'
  | 'RANGEIN_END'
  | 'RANGEEX_END'
  | 'RANGE_QUOTED'
  | 'RANGE_GOOP'
  | 'EOF';

interface Tok {
  kind: TokenKind;
  image: string;
  at: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
/** Characters that cannot start or continue a term unescaped. */
const SPECIAL = new Set(['+', '-', '!', '(', ')', ':', '^', '[', ']', '"', '{', '}', '~', '*', '?', '\\', '/']);

function isTermStart(ch: string): boolean {
  return !WHITESPACE.has(ch) && !SPECIAL.has(ch);
}

function isTermChar(ch: string): boolean {
  return isTermStart(ch) || ch === '-' || ch === '+';
}

/** The lexer: three states as Lucene's grammar has them (default, after `^`, inside a range). */
class Lexer {
  private pos = 0;
  private state: 'default' | 'boost' | 'range' = 'default';

  constructor(
    private readonly text: string,
    private readonly fail: (message: string) => never,
  ) {}

  /** A lexer at the same place, to look ahead with. */
  clone(): Lexer {
    const copy = new Lexer(this.text, this.fail);
    copy.pos = this.pos;
    copy.state = this.state;
    return copy;
  }

  next(): Tok {
    const text = this.text;
    while (this.pos < text.length && WHITESPACE.has(text[this.pos]!)) this.pos++;
    const at = this.pos;
    if (at >= text.length) return { kind: 'EOF', image: '', at };
    if (this.state === 'boost') return this.boostToken(at);
    if (this.state === 'range') return this.rangeToken(at);
    const ch = text[at]!;
    const two = text.slice(at, at + 2);
    const single: Record<string, TokenKind> = { '(': 'LPAREN', ')': 'RPAREN', ':': 'COLON', '^': 'CARAT' };
    // `&&`/`||` followed by term characters lex as a term (JavaCC's longest match).
    if ((two === '&&' || two === '||') && !isTermChar(text[at + 2] ?? ' '))
      return this.take(two === '&&' ? 'AND' : 'OR', 2);
    if ((ch === '+' || ch === '-' || ch === '!') && WHITESPACE.has(text[at + 1] ?? '')) return this.take('BAREOPER', 2);
    if (ch === '+') return this.take('PLUS', 1);
    if (ch === '-') return this.take('MINUS', 1);
    if (ch === '!') return this.take('NOT', 1);
    if (single[ch] !== undefined) {
      const tok = this.take(single[ch]!, 1);
      if (ch === '^') this.state = 'boost';
      return tok;
    }
    if (ch === '[' || ch === '{') {
      this.state = 'range';
      return this.take(ch === '[' ? 'RANGEIN_START' : 'RANGEEX_START', 1);
    }
    if (ch === '"') return this.quoted(at);
    if (ch === '~') return this.fuzzySlop(at);
    if (ch === '/') return this.regexp(at);
    return this.word(at);
  }

  private take(kind: TokenKind, length: number): Tok {
    const at = this.pos;
    this.pos += length;
    return { kind, image: this.text.slice(at, at + length), at };
  }

  private boostToken(at: number): Tok {
    this.state = 'default';
    const match = /^[0-9]+(?:\.[0-9]+)?/.exec(this.text.slice(at));
    if (match === null) this.fail(`a number after '^' at position ${at + 1}`);
    return this.take('NUMBER', match[0].length);
  }

  private rangeToken(at: number): Tok {
    const text = this.text;
    const ch = text[at]!;
    if (ch === ']' || ch === '}') {
      this.state = 'default';
      return this.take(ch === ']' ? 'RANGEIN_END' : 'RANGEEX_END', 1);
    }
    let i = at;
    while (i < text.length && !WHITESPACE.has(text[i]!) && text[i] !== ']' && text[i] !== '}') i++;
    if (ch === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      // JavaCC's longest match: a quoted bound (one character at least) unless the bare one is
      // longer (`""` and an unclosed quote are bare bounds, `"a"b` one bare bound).
      const quoted = end < text.length && end > at + 1 ? end + 1 - at : 0;
      if (quoted > 0 && quoted >= i - at) return this.take('RANGE_QUOTED', quoted);
    }
    const image = text.slice(at, i);
    return this.take(image === 'TO' ? 'RANGE_TO' : 'RANGE_GOOP', i - at);
  }

  private quoted(at: number): Tok {
    const text = this.text;
    let i = at + 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) this.fail(`an unterminated phrase starting at position ${at + 1}`);
    return this.take('QUOTED', i + 1 - at);
  }

  private fuzzySlop(at: number): Tok {
    const match = /^~(?:[0-9]+(?:\.[0-9]+)?)?/.exec(this.text.slice(at))!;
    let length = match[0].length;
    // Lucene's FUZZY_SLOP swallows term characters after the number (they are ignored).
    while (at + length < this.text.length && isTermChar(this.text[at + length]!)) length++;
    return this.take('FUZZY_SLOP', length);
  }

  private regexp(at: number): Tok {
    const text = this.text;
    let i = at + 1;
    while (i < text.length && text[i] !== '/') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) this.fail(`an unterminated regular expression starting at position ${at + 1}`);
    return this.take('REGEXPTERM', i + 1 - at);
  }

  /** TERM, PREFIXTERM, WILDTERM or STAR: the longest match, ties to the one Lucene declares first. */
  private word(at: number): Tok {
    const text = this.text;
    let i = at;
    let wild = false;
    const first = text[i]!;
    if (first === '\\') {
      if (i + 1 >= text.length) this.fail('a lone escape character at the end');
      i += 2;
    } else if (first === '*' || first === '?') {
      wild = true;
      i++;
    } else if (isTermStart(first)) i++;
    else this.fail(`an unexpected '${first}' at position ${at + 1}`);
    for (;;) {
      const ch = text[i];
      if (ch === undefined) break;
      if (ch === '\\') {
        if (i + 1 >= text.length) this.fail('a lone escape character at the end');
        i += 2;
      } else if (ch === '*' || ch === '?') {
        wild = true;
        i++;
      } else if (isTermChar(ch)) i++;
      else break;
    }
    const image = text.slice(at, i);
    if (image === '*') return this.take('STAR', 1);
    if (!wild) {
      if (image === 'AND') return this.take('AND', 3);
      if (image === 'OR') return this.take('OR', 2);
      if (image === 'NOT') return this.take('NOT', 3);
      return this.take('TERM', i - at);
    }
    // PREFIXTERM: one unescaped trailing `*` and no other wildcard.
    const body = image.slice(0, -1);
    if (image.endsWith('*') && !hasUnescapedWildcard(body) && !endsEscaping(body)) {
      return this.take('PREFIXTERM', i - at);
    }
    return this.take('WILDTERM', i - at);
  }
}

function hasUnescapedWildcard(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '*' || s[i] === '?') return true;
  }
  return false;
}

/** Whether the text ends with an escape character that escapes what follows it. */
function endsEscaping(s: string): boolean {
  let n = 0;
  while (n < s.length && s[s.length - 1 - n] === '\\') n++;
  return n % 2 === 1;
}

/** Lucene's discardEscapeChar: `\x` is `x`. */
export function discardEscapes(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) i++;
    out += s[i];
  }
  return out;
}

/** The parse of a query string, or a 400 naming what stopped it. */
export function parseQuerySyntax(query: string, defaultField = 'default'): SyntaxQuery {
  const fail = (message: string): never => {
    throw new CouchError('bad_request', `Cannot parse '${query}': ${message}`);
  };
  if (query.trim() === '') fail('the query is empty');
  return new Parser(new Lexer(query, fail), fail).top(defaultField);
}

const CLAUSE_START = new Set<TokenKind>([
  'AND',
  'OR',
  'NOT',
  'PLUS',
  'MINUS',
  'BAREOPER',
  'LPAREN',
  'STAR',
  'QUOTED',
  'TERM',
  'PREFIXTERM',
  'WILDTERM',
  'REGEXPTERM',
  'RANGEIN_START',
  'RANGEEX_START',
  'NUMBER',
]);

/** Nested groups deeper than this are refused (a guard for the stack, far beyond real queries). */
const MAX_DEPTH = 100;

class Parser {
  private tok: Tok;
  private depth = 0;

  constructor(
    private readonly lexer: Lexer,
    private readonly fail: (message: string) => never,
  ) {
    this.tok = lexer.next();
  }

  private advance(): Tok {
    const tok = this.tok;
    this.tok = this.lexer.next();
    return tok;
  }

  private expect(kind: TokenKind, what: string): Tok {
    if (this.tok.kind !== kind) this.unexpected(what);
    return this.advance();
  }

  private unexpected(expecting: string): never {
    const found =
      this.tok.kind === 'EOF' ? 'the end of the query' : `'${this.tok.image}' at position ${this.tok.at + 1}`;
    return this.fail(`found ${found}, expecting ${expecting}`);
  }

  top(field: string): SyntaxQuery {
    const query = this.query(field);
    if (this.tok.kind !== 'EOF') this.unexpected('the end of the query');
    return query;
  }

  private query(field: string): SyntaxQuery {
    const clauses: { occur: Occur; query: SyntaxQuery }[] = [];
    let first: SyntaxQuery | undefined;
    let conj: 'none' | 'and' | 'or' = 'none';
    for (;;) {
      const mods = this.modifiers();
      const q = this.clause(field);
      addClause(clauses, conj, mods, q);
      if (clauses.length === 1 && conj === 'none' && mods === 'none') first = q;
      if (!CLAUSE_START.has(this.tok.kind)) break;
      conj = this.conjunction();
    }
    if (clauses.length === 1 && first !== undefined) return first;
    return { type: 'bool', clauses };
  }

  private conjunction(): 'none' | 'and' | 'or' {
    if (this.tok.kind === 'AND') {
      this.advance();
      return 'and';
    }
    if (this.tok.kind === 'OR') {
      this.advance();
      return 'or';
    }
    return 'none';
  }

  private modifiers(): 'none' | 'req' | 'not' {
    const kind = this.tok.kind;
    if (kind === 'PLUS') {
      this.advance();
      return 'req';
    }
    if (kind === 'MINUS' || kind === 'NOT') {
      this.advance();
      return 'not';
    }
    return 'none';
  }

  private clause(field: string): SyntaxQuery {
    if ((this.tok.kind === 'TERM' || this.tok.kind === 'STAR') && this.peekColon()) {
      const name = this.advance();
      this.advance();
      field = name.kind === 'STAR' ? '*' : discardEscapes(name.image);
    }
    if (this.tok.kind === 'LPAREN') {
      this.advance();
      if (++this.depth > MAX_DEPTH) this.fail(`groups nested deeper than ${MAX_DEPTH}`);
      const q = this.query(field);
      this.depth--;
      this.expect('RPAREN', "')'");
      return withBoost(q, this.boost());
    }
    return this.term(field);
  }

  /** Whether the token after this one is `:` (the grammar's LOOKAHEAD(2)). */
  private peekColon(): boolean {
    return this.lexer.clone().next().kind === 'COLON';
  }

  private boost(): number | undefined {
    if (this.tok.kind !== 'CARAT') return undefined;
    this.advance();
    const number = this.expect('NUMBER', 'a number after ^');
    return Number(number.image);
  }

  private term(field: string): SyntaxQuery {
    const tok = this.tok;
    switch (tok.kind) {
      case 'TERM':
      case 'STAR':
      case 'PREFIXTERM':
      case 'WILDTERM':
      case 'REGEXPTERM':
      case 'NUMBER':
      case 'BAREOPER': {
        this.advance();
        let slop: Tok | undefined;
        if (this.tok.kind === 'FUZZY_SLOP') slop = this.advance();
        let boost: number | undefined;
        if (this.tok.kind === 'CARAT') {
          boost = this.boost();
          if ((this.tok.kind as TokenKind) === 'FUZZY_SLOP') slop = this.advance();
        }
        return withBoost(this.bareToken(field, tok, slop), boost);
      }
      case 'RANGEIN_START':
      case 'RANGEEX_START':
        return this.range(field);
      case 'QUOTED': {
        this.advance();
        let slop = 0;
        if (this.tok.kind === 'FUZZY_SLOP') {
          const image = this.advance().image;
          const n = Number.parseFloat(image.slice(1));
          if (!Number.isNaN(n)) slop = Math.trunc(n);
        }
        const boost = this.boost();
        return withBoost({ type: 'phrase', field, text: discardEscapes(tok.image.slice(1, -1)), slop }, boost);
      }
      default:
        return this.unexpected('a term, a phrase, a range or a group');
    }
  }

  private bareToken(field: string, tok: Tok, slop: Tok | undefined): SyntaxQuery {
    const image = tok.kind === 'BAREOPER' ? tok.image.slice(0, 1) : tok.image;
    if (tok.kind === 'REGEXPTERM') {
      return this.fail(`regular expression queries (${image}) are not supported by this server`);
    }
    if (tok.kind === 'STAR' || tok.kind === 'WILDTERM') {
      if (field === '*' && image === '*') return { type: 'all' };
      return { type: 'wildcard', field, pattern: image };
    }
    if (tok.kind === 'PREFIXTERM') return { type: 'prefix', field, prefix: discardEscapes(image.slice(0, -1)) };
    if (slop !== undefined) {
      let maxEdits = 2;
      const given = slop.image.slice(1).match(/^[0-9]+(?:\.[0-9]+)?/)?.[0];
      if (given !== undefined) {
        const value = Number(given);
        if (value >= 1 && value !== Math.floor(value)) this.fail('fractional edit distances are not allowed');
        // FuzzyQuery.floatToEdits: at most 2 edits; below 1, Lucene 3's minimum similarity turned
        // into edits for the term's length.
        maxEdits =
          value >= 1
            ? Math.min(value, 2)
            : value === 0
              ? 0
              : Math.min(2, Math.floor((1 - value) * [...discardEscapes(image)].length));
      }
      return { type: 'fuzzy', field, text: discardEscapes(image), maxEdits };
    }
    return { type: 'term', field, text: discardEscapes(image) };
  }

  private range(field: string): SyntaxQuery {
    const includeLower = this.advance().kind === 'RANGEIN_START';
    const lower = this.rangeBound();
    if (this.tok.kind === 'RANGE_TO') this.advance();
    const upper = this.rangeBound();
    const end = this.tok.kind;
    if (end !== 'RANGEIN_END' && end !== 'RANGEEX_END') this.unexpected("']' or '}'");
    this.advance();
    const boost = this.boost();
    return withBoost({ type: 'range', field, lower, upper, includeLower, includeUpper: end === 'RANGEIN_END' }, boost);
  }

  private rangeBound(): string | null {
    const tok = this.tok;
    if (tok.kind === 'RANGE_GOOP') {
      this.advance();
      return tok.image === '*' ? null : discardEscapes(tok.image);
    }
    if (tok.kind === 'RANGE_QUOTED') {
      this.advance();
      return discardEscapes(tok.image.slice(1, -1));
    }
    return this.unexpected('a range bound');
  }
}

function withBoost(q: SyntaxQuery, boost: number | undefined): SyntaxQuery {
  return boost === undefined ? q : { ...q, boost };
}

/** Lucene's QueryParserBase.addClause with the default operator OR. */
function addClause(
  clauses: { occur: Occur; query: SyntaxQuery }[],
  conj: 'none' | 'and' | 'or',
  mods: 'none' | 'req' | 'not',
  query: SyntaxQuery,
): void {
  const previous = clauses[clauses.length - 1];
  if (previous !== undefined && conj === 'and' && previous.occur !== 'must_not') previous.occur = 'must';
  const prohibited = mods === 'not';
  const required = mods === 'req' || (conj === 'and' && !prohibited);
  clauses.push({ query, occur: prohibited ? 'must_not' : required ? 'must' : 'should' });
}

/** Writes a parsed query back in the syntax (`parseQuerySyntax(formatQuery(q))` is `q`). */
export function formatQuery(q: SyntaxQuery, defaultField = 'default'): string {
  const boost = q.boost === undefined ? '' : `^${formatBoost(q.boost)}`;
  const prefix = (field: string) => (field === defaultField ? '' : `${escapeTerm(field)}:`);
  switch (q.type) {
    case 'all':
      return `*:*${boost}`;
    case 'term':
      return `${prefix(q.field)}${escapeTerm(q.text)}${boost}`;
    case 'fuzzy':
      return `${prefix(q.field)}${escapeTerm(q.text)}~${q.maxEdits}${boost}`;
    case 'prefix':
      return `${prefix(q.field)}${escapeTerm(q.prefix)}*${boost}`;
    case 'wildcard':
      return `${prefix(q.field)}${q.pattern}${boost}`;
    case 'phrase':
      return `${prefix(q.field)}"${q.text.replace(/["\\]/g, '\\$&')}"${q.slop > 0 ? `~${q.slop}` : ''}${boost}`;
    case 'range': {
      const bound = (b: string | null) => (b === null ? '*' : `"${b.replace(/["\\]/g, '\\$&')}"`);
      return `${prefix(q.field)}${q.includeLower ? '[' : '{'}${bound(q.lower)} TO ${bound(q.upper)}${q.includeUpper ? ']' : '}'}${boost}`;
    }
    case 'bool': {
      const inner = q.clauses
        .map(
          ({ occur, query }) =>
            `${occur === 'must' ? '+' : occur === 'must_not' ? '-' : ''}${formatGrouped(query, defaultField)}`,
        )
        .join(' ');
      return `(${inner})${boost}`;
    }
  }
}

function formatGrouped(q: SyntaxQuery, defaultField: string): string {
  return formatQuery(q, defaultField);
}

function formatBoost(boost: number): string {
  return String(boost);
}

/** A term's text with every character the syntax gives a meaning escaped. */
export function escapeTerm(text: string): string {
  let out = '';
  for (const ch of text) out += SPECIAL.has(ch) || WHITESPACE.has(ch) || ch === '&' || ch === '|' ? `\\${ch}` : ch;
  if (out === 'AND' || out === 'OR' || out === 'NOT') out = `\\${out}`;
  return out;
}

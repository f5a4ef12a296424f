/**
 * What the architecture test reads of a TypeScript source: its tokens (comments dropped;
 * strings, template literals and regular expressions kept whole, so text inside them is never
 * taken for code), the modules it imports, and the places it reads a `store` member. A lexer
 * and no more: it knows no types, so a `.store` read is judged by its receiver's spelling.
 */

export type TokenKind = 'ident' | 'punct' | 'string' | 'template' | 'regex' | 'number';

export interface Token {
  kind: TokenKind;
  /** An identifier's name, a punctuator, or a string's value (its quotes and escapes removed). */
  text: string;
  line: number;
}

/** Punctuators longest first, so `===` is never read as `==` then `=`. */
const PUNCTUATORS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
];

/** Words after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

const isIdentStart = (c: string): boolean => /[A-Za-z_$#\u0080-\uffff]/.test(c);
const isIdentPart = (c: string): boolean => /[\w$\u0080-\uffff]/.test(c);

/** The tokens of a TypeScript source, comments left out. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  let line = 1;
  /** For each `{` or `${` still open: whether it opened a template's substitution. */
  const braces: boolean[] = [];

  const push = (kind: TokenKind, text: string, startLine: number): void => {
    tokens.push({ kind, text, line: startLine });
  };
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (last === undefined) return true;
    if (last.kind === 'ident') return REGEX_AFTER_WORDS.has(last.text);
    if (last.kind === 'punct') return !(last.text === ')' || last.text === ']' || last.text === '}');
    return false;
  };
  /** Reads template text from `at` up to its end or its next `${` (which it enters). */
  const templateText = (): void => {
    const startLine = line;
    let text = '';
    while (at < source.length) {
      const c = source[at]!;
      if (c === '\\') {
        text += source.slice(at, at + 2);
        if (source[at + 1] === '\n') line++;
        at += 2;
        continue;
      }
      if (c === '`') {
        at++;
        push('template', text, startLine);
        return;
      }
      if (c === '$' && source[at + 1] === '{') {
        at += 2;
        push('template', text, startLine);
        braces.push(true);
        return;
      }
      if (c === '\n') line++;
      text += c;
      at++;
    }
    throw new Error(`unterminated template literal from line ${startLine}`);
  };

  while (at < source.length) {
    const c = source[at]!;
    const next = source[at + 1];
    if (c === '\n') {
      line++;
      at++;
    } else if (/\s/.test(c)) {
      at++;
    } else if (c === '/' && next === '/') {
      while (at < source.length && source[at] !== '\n') at++;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', at + 2);
      if (end < 0) throw new Error(`unterminated comment from line ${line}`);
      for (const ch of source.slice(at, end)) if (ch === '\n') line++;
      at = end + 2;
    } else if (c === "'" || c === '"') {
      const startLine = line;
      let text = '';
      at++;
      while (at < source.length && source[at] !== c) {
        if (source[at] === '\\') {
          text += source[at + 1] ?? '';
          if (source[at + 1] === '\n') line++;
          at += 2;
        } else {
          if (source[at] === '\n') throw new Error(`unterminated string on line ${startLine}`);
          text += source[at];
          at++;
        }
      }
      at++;
      push('string', text, startLine);
    } else if (c === '`') {
      at++;
      templateText();
    } else if (c === '/' && regexAllowed()) {
      const startLine = line;
      let inClass = false;
      let end = at + 1;
      for (; end < source.length; end++) {
        const ch = source[end]!;
        if (ch === '\n') throw new Error(`unterminated regular expression on line ${startLine}`);
        if (ch === '\\') end++;
        else if (ch === '[') inClass = true;
        else if (ch === ']') inClass = false;
        else if (ch === '/' && !inClass) break;
      }
      end++;
      while (end < source.length && isIdentPart(source[end]!)) end++;
      push('regex', source.slice(at, end), startLine);
      at = end;
    } else if (isIdentStart(c)) {
      let end = at + 1;
      while (end < source.length && isIdentPart(source[end]!)) end++;
      push('ident', source.slice(at, end), line);
      at = end;
    } else if (/[0-9]/.test(c) || (c === '.' && next !== undefined && /[0-9]/.test(next))) {
      let end = at + 1;
      while (end < source.length && /[\w.]/.test(source[end]!)) end++;
      push('number', source.slice(at, end), line);
      at = end;
    } else if (c === '{') {
      braces.push(false);
      push('punct', c, line);
      at++;
    } else if (c === '}') {
      at++;
      if (braces.pop() === true) templateText();
      else push('punct', c, line);
    } else {
      // `?.` followed by a digit is a conditional and a number (`a?.5:1`), not optional chaining.
      const op = PUNCTUATORS.find(
        (p) => source.startsWith(p, at) && !(p === '?.' && /[0-9]/.test(source[at + 2] ?? '')),
      );
      const text = op ?? c;
      push('punct', text, line);
      at += text.length;
    }
  }
  return tokens;
}

export interface ImportRef {
  /** The module as written (`'../storage/records.js'`, `'node:fs'`). */
  specifier: string;
  /** `import type …` / `export type … from`: a type alone, erased from the JavaScript. */
  typeOnly: boolean;
  line: number;
}

/** Every module a source imports or re-exports: static, side-effect, dynamic and `import('…')` types. */
export function importsOf(tokens: readonly Token[]): ImportRef[] {
  const refs: ImportRef[] = [];
  /** Where the current `import`/`export` statement began (a `from` belongs to it). */
  let statement: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const after = tokens[i + 1];
    if (token.kind === 'ident' && (token.text === 'import' || token.text === 'export')) {
      const previous = tokens[i - 1];
      // `x.import` is a member, not a statement.
      if (previous?.kind === 'punct' && (previous.text === '.' || previous.text === '?.')) continue;
      if (token.text === 'import' && after?.kind === 'string') {
        refs.push({ specifier: after.text, typeOnly: false, line: token.line });
      } else if (token.text === 'import' && after?.text === '(' && tokens[i + 2]?.kind === 'string') {
        // `import('…')`, a value or a type: counted as an import either way.
        refs.push({ specifier: tokens[i + 2]!.text, typeOnly: false, line: token.line });
      } else {
        statement = i;
      }
    } else if (token.kind === 'ident' && token.text === 'from' && after?.kind === 'string' && statement !== undefined) {
      const typeOnly = tokens[statement + 1]?.kind === 'ident' && tokens[statement + 1]!.text === 'type';
      refs.push({ specifier: after.text, typeOnly, line: after.line });
      statement = undefined;
    } else if (token.kind === 'punct' && token.text === ';') {
      statement = undefined;
    }
  }
  return refs;
}

export interface StoreRead {
  line: number;
  /** The receiver as written (`db`, `this.db`), or `…` where it is no plain name. */
  receiver: string;
  /** How it is read: `db.store`, `db['store']`, `{ store } = db`. */
  text: string;
}

/** The receiver spelled by the tokens that end just before `end` (`this.db`, `options`). */
function receiverBefore(tokens: readonly Token[], end: number): string {
  const parts: string[] = [];
  let i = end - 1;
  while (i >= 0 && tokens[i]?.kind === 'ident') {
    parts.unshift(tokens[i]!.text);
    const dot = tokens[i - 1];
    if (dot?.kind !== 'punct' || (dot.text !== '.' && dot.text !== '?.')) break;
    i -= 2;
  }
  return parts.length === 0 ? '…' : parts.join('.');
}

/**
 * Every read of a member named `store`: `x.store`, `x?.store`, `x['store']`, and `store` taken
 * by destructuring (`const { store } = x`, `({ store: s } = x)`).
 */
export function storeReads(tokens: readonly Token[]): StoreRead[] {
  const reads: StoreRead[] = [];
  const open: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const after = tokens[i + 1];
    if (
      token.kind === 'ident' &&
      token.text === 'store' &&
      tokens[i - 1]?.kind === 'punct' &&
      (tokens[i - 1]!.text === '.' || tokens[i - 1]!.text === '?.')
    ) {
      const receiver = receiverBefore(tokens, i - 1);
      reads.push({ line: token.line, receiver, text: `${receiver}${tokens[i - 1]!.text}store` });
    } else if (
      token.kind === 'punct' &&
      token.text === '[' &&
      after?.kind === 'string' &&
      after.text === 'store' &&
      tokens[i + 2]?.text === ']' &&
      tokens[i - 1] !== undefined &&
      (tokens[i - 1]!.kind === 'ident' || [')', ']'].includes(tokens[i - 1]!.text))
    ) {
      const receiver = receiverBefore(tokens, i);
      reads.push({ line: token.line, receiver, text: `${receiver}['store']` });
    } else if (token.kind === 'punct' && token.text === '{') {
      open.push(i);
    } else if (token.kind === 'punct' && token.text === '}') {
      const start = open.pop();
      // A brace group followed by `=` is a destructuring pattern: its `store` member is read.
      if (start === undefined || after?.kind !== 'punct' || after.text !== '=') continue;
      let depth = 0;
      for (let j = start + 1; j < i; j++) {
        const inner = tokens[j]!;
        if (inner.kind === 'punct' && ['{', '[', '('].includes(inner.text)) depth++;
        else if (inner.kind === 'punct' && ['}', ']', ')'].includes(inner.text)) depth--;
        else if (
          depth === 0 &&
          inner.kind === 'ident' &&
          inner.text === 'store' &&
          ['{', ','].includes(tokens[j - 1]!.text) &&
          [',', '}', ':', '='].includes(tokens[j + 1]!.text)
        ) {
          const receiver = receiverBefore(tokens, nextExpressionEnd(tokens, i + 2));
          reads.push({ line: inner.line, receiver, text: `{ store } = ${receiver}` });
        }
      }
    }
  }
  return reads;
}

/**
 * Where the value after `=` ends when it is a plain name (`this.db` in `= this.db;`): the index
 * past its last token; `from` (so no receiver is named) when it is anything else.
 */
function nextExpressionEnd(tokens: readonly Token[], from: number): number {
  let i = from;
  while (tokens[i]?.kind === 'ident' && ['.', '?.'].includes(tokens[i + 1]?.text ?? '')) i += 2;
  const plain = tokens[i]?.kind === 'ident' && [';', ',', ')'].includes(tokens[i + 1]?.text ?? ';');
  return plain ? i + 1 : from;
}

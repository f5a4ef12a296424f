/**
 * `$regex` as CouchDB runs it: Erlang's `re` (PCRE) on the UTF-8 bytes of the value, compiled
 * without the UTF-8 flag. `.` is one byte, `(?i)`, `\w`, `\d`, `\s` and POSIX classes are ASCII,
 * `$` also matches before a final newline, `[]a]` is a class holding `]`. A leading `(*UTF8)` or
 * `(*UTF)` switches to code points.
 *
 * The pattern is translated token by token into a JavaScript RegExp with the same meaning:
 * without UTF it runs on the value's UTF-8 bytes spelled as a latin1 string, so one JS unit is
 * one byte; every literal is written as an escape, case-insensitivity is spelled out as
 * classes (JS `i` would fold latin1 letters too), classes are written as explicit ranges.
 * A pattern PCRE does not compile is 400 `bad_arg` (CouchDB's own answer); a construct that
 * has no faithful JS translation (atomic groups, possessive quantifiers, recursion, backreferences
 * to groups that may not take part, …) is 400 `not_supported` rather than a different result.
 *
 * One file (above the house's ~500 lines) because it is one translator: the tokenizer, the class
 * builder and the emitter share the pattern's state and PCRE's flags at every step.
 */
import { CouchError } from '../errors.js';
import { formatW } from './erlang-text.js';

export interface MangoRegex {
  /** The pattern as the selector gave it. */
  readonly source: string;
  /** PCRE's `re:run(Value, Pattern)` result: a match anywhere in the string. */
  test(value: string): boolean;
}

const cache = new Map<string, MangoRegex>();

/** Compiles a `$regex` argument, or throws CouchDB's 400. Compiled patterns are cached. */
export function compileRegex(pattern: string): MangoRegex {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = translate(pattern);
    if (cache.size >= 1000) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

class NotCompiled extends Error {}
class Unfaithful extends Error {}

function translate(pattern: string): MangoRegex {
  try {
    const { js, utf } = new Translator(pattern).run();
    let regex: RegExp;
    try {
      regex = new RegExp(js, utf ? 'u' : '');
    } catch {
      throw new NotCompiled();
    }
    const test = utf
      ? (value: string) => regex.test(value)
      : (value: string) => regex.test(Buffer.from(value, 'utf8').toString('latin1'));
    return { source: pattern, test };
  } catch (err) {
    if (err instanceof NotCompiled) {
      throw new CouchError('bad_arg', `Bad argument for operator $regex: ${formatW(pattern)}`, 400);
    }
    if (err instanceof Unfaithful) {
      throw new CouchError(
        'not_supported',
        `Unsupported $regex construct ${err.message} in ${JSON.stringify(pattern)}: Divan cannot match it as CouchDB's PCRE does.`,
        400,
      );
    }
    throw err;
  }
}

type Ranges = [number, number][];

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

interface Group {
  /** Capture number, or 0 for a non-capturing group or assertion. */
  capture: number;
  lookbehind: boolean;
  flags: Flags;
  /** Captures opened before this group (those opened after it are inside it). */
  capturesBefore: number;
  /** Where the group's translation starts in the output. */
  outStart: number;
  /** Something inside repeats without bound (`*`, `+`, `{n,}`): repeating the group again could backtrack exponentially. */
  repeats?: boolean;
}

const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const DIGIT: Ranges = [[0x30, 0x39]];
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
];
const HSPACE: Ranges = [
  [0x09, 0x09],
  [0x20, 0x20],
  [0xa0, 0xa0],
];
const VSPACE: Ranges = [
  [0x0a, 0x0d],
  [0x85, 0x85],
];

const POSIX: Record<string, Ranges> = {
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  digit: DIGIT,
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  upper: [[0x41, 0x5a]],
  lower: [[0x61, 0x7a]],
  space: SPACE,
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  print: [[0x20, 0x7e]],
  graph: [[0x21, 0x7e]],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
  word: WORD,
  ascii: [[0x00, 0x7f]],
};

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isAlnum = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

class Translator {
  private units: number[];
  private utf = false;
  private max = 0xff;
  private at = 0;
  private out = '';
  private flags: Flags = { i: false, m: false, s: false, x: false };
  private groups: Group[] = [];
  private captures = 0;
  /** Capture numbers closed so far, and where each closed (index into `out`). */
  private closed = new Set<number>();
  /** Captures that may not take part in a match (inside an optional quantifier). */
  private optional = new Set<number>();
  private names = new Map<string, number>();
  private backrefs: { ref: number | string; closedBefore: Set<number> }[] = [];
  private alternation = false;
  /** What the last emitted item was, for quantifiers. */
  private last: { kind: 'none' | 'atom' | 'assertion' | 'group'; start: number; group?: Group } = {
    kind: 'none',
    start: 0,
  };

  constructor(pattern: string) {
    if (/^\(\*UTF8?\)/.test(pattern)) {
      this.utf = true;
      this.max = 0x10ffff;
      pattern = pattern.replace(/^\(\*UTF8?\)/, '');
    } else if (pattern.startsWith('(*')) {
      throw new Unfaithful('(*…) verb');
    }
    this.units = this.utf ? Array.from(pattern, (ch) => ch.codePointAt(0)!) : [...Buffer.from(pattern, 'utf8')];
  }

  run(): { js: string; utf: boolean } {
    while (this.at < this.units.length) this.step();
    if (this.groups.length > 0) throw new NotCompiled(); // missing )
    for (const { ref, closedBefore } of this.backrefs) {
      const n = typeof ref === 'number' ? ref : this.names.get(ref);
      if (n === undefined || n > this.captures || n === 0) throw new NotCompiled();
      // JS lets a reference to a group that did not take part match the empty string; PCRE
      // fails it. Only references that cannot meet such a group are translated.
      if (!closedBefore.has(n) || this.optional.has(n) || this.alternation) {
        throw new Unfaithful('backreference to a group that may not take part');
      }
    }
    return { js: this.out, utf: this.utf };
  }

  private peek(offset = 0): number | undefined {
    return this.units[this.at + offset];
  }

  private step(): void {
    const c = this.units[this.at++]!;
    if (this.flags.x && (c === 0x20 || (c >= 0x09 && c <= 0x0d))) return;
    if (this.flags.x && c === 0x23 /* # */) {
      while (this.at < this.units.length && this.units[this.at] !== 0x0a) this.at++;
      return;
    }
    switch (c) {
      case 0x5c /* \ */:
        return this.escape();
      case 0x5b /* [ */:
        return this.atom(this.classExpression());
      case 0x28 /* ( */:
        return this.openGroup();
      case 0x29 /* ) */:
        return this.closeGroup();
      case 0x7c /* | */:
        this.alternation = true;
        this.out += '|';
        this.last = { kind: 'none', start: this.out.length };
        return;
      case 0x2a /* * */:
        return this.quantifier(0, false, '*');
      case 0x2b /* + */:
        return this.quantifier(1, false, '+');
      case 0x3f /* ? */:
        return this.quantifier(0, false, '?');
      case 0x7b /* { */:
        {
          const braces = this.braceQuantifier();
          if (braces === undefined) return this.atom(this.literal(c));
          return this.quantifier(braces.min, braces.exact, braces.text);
        }
      case 0x2e /* . */:
        return this.atom(this.flags.s ? '[\\s\\S]' : '[^\\n]');
      case 0x5e /* ^ */:
        return this.assertion(this.flags.m ? '(?:^|(?<=\\n)(?=[\\s\\S]))' : '^');
      case 0x24 /* $ */:
        return this.assertion(this.flags.m ? '(?=\\n|$)' : '(?=\\n?$)');
      default:
        return this.atom(this.literal(c));
    }
  }

  private atom(js: string, kind: 'atom' | 'group' = 'atom', group?: Group): void {
    const start = this.out.length;
    this.out += js;
    this.last = { kind, start, ...(group === undefined ? {} : { group }) };
  }

  private assertion(js: string): void {
    this.out += js;
    this.last = { kind: 'assertion', start: this.out.length - js.length };
  }

  /** `{n}`, `{n,}`, `{n,m}` at the current position (after `{`), or undefined: a literal brace. */
  private braceQuantifier(): { min: number; exact: boolean; text: string } | undefined {
    let j = this.at;
    let digits = '';
    while (isDigit(this.units[j])) digits += String.fromCharCode(this.units[j++]!);
    if (digits === '') return undefined;
    let text = `{${digits}`;
    let exact = true;
    if (this.units[j] === 0x2c /* , */) {
      exact = false;
      text += ',';
      j++;
      while (isDigit(this.units[j])) text += String.fromCharCode(this.units[j++]!);
    }
    if (this.units[j] !== 0x7d /* } */) return undefined;
    this.at = j + 1;
    return { min: Number(digits), exact, text: `${text}}` };
  }

  private quantifier(min: number, exact: boolean, text: string): void {
    const last = this.last;
    if (last.kind === 'none') throw new NotCompiled(); // nothing to repeat
    if (last.kind === 'assertion') throw new Unfaithful('quantified assertion');
    if (this.peek() === 0x2b /* + */) throw new Unfaithful('possessive quantifier');
    if (this.groups.some((g) => g.lookbehind) && !exact) throw new NotCompiled(); // lookbehind not fixed length
    // JavaScript has no match limit (PCRE gives up; this would hold the server): an unbounded
    // repetition of something that repeats without bound, `(a+)+`, is refused.
    const unbounded = text === '*' || text === '+' || /^\{\d+,\}$/.test(text);
    if (unbounded && last.kind === 'group' && last.group?.repeats === true) {
      throw new Unfaithful('a repetition of a group that repeats (it can take exponential time)');
    }
    const open = this.groups[this.groups.length - 1];
    if (open !== undefined && (unbounded || (last.kind === 'group' && last.group?.repeats === true)))
      open.repeats = true;
    let lazy = '';
    if (this.peek() === 0x3f /* ? */) {
      this.at++;
      lazy = '?';
    }
    if (min === 0 && last.group !== undefined) {
      const { group } = last;
      // The group and every capture inside it may not take part.
      for (let n = group.capturesBefore + 1; n <= this.captures; n++) this.optional.add(n);
    }
    // Wrap what the quantifier applies to, so a multi-unit translation repeats as one.
    const target = this.out.slice(last.start);
    const wrapped = last.kind === 'group' || target.length <= 1 ? target : `(?:${target})`;
    this.out = `${this.out.slice(0, last.start)}${wrapped}${text}${lazy}`;
    // A quantified item cannot be quantified again (`a**` does not compile).
    this.last = { kind: 'assertion', start: this.out.length };
    if (this.peek() === 0x2a || this.peek() === 0x3f || this.peek() === 0x2b || this.peek() === 0x7b) {
      if (this.peek() !== 0x7b || this.peekBraceQuantifier()) throw new NotCompiled();
    }
  }

  private peekBraceQuantifier(): boolean {
    const save = this.at;
    this.at++;
    const q = this.braceQuantifier();
    this.at = save;
    return q !== undefined;
  }

  // ---- groups ----

  private openGroup(): void {
    const outer = { ...this.flags };
    let js = '(';
    let capture = 0;
    let lookbehind = false;
    if (this.peek() === 0x2a /* * */) throw new Unfaithful('(*…) verb');
    if (this.peek() === 0x3f /* ? */) {
      this.at++;
      const k = this.units[this.at++];
      const k2 = this.peek();
      if (k === 0x3a /* : */) js = '(?:';
      else if (k === 0x3d /* = */) js = '(?=';
      else if (k === 0x21 /* ! */) js = '(?!';
      else if (k === 0x3c /* < */ && (k2 === 0x3d || k2 === 0x21)) {
        this.at++;
        js = k2 === 0x3d ? '(?<=' : '(?<!';
        lookbehind = true;
        if (this.groups.some((g) => g.lookbehind)) throw new Unfaithful('nested lookbehind');
      } else if (k === 0x3c /* < */ || k === 0x27 /* ' */ || (k === 0x50 /* P */ && k2 === 0x3c)) {
        if (k === 0x50) this.at++;
        const name = this.readName(k === 0x27 ? 0x27 : 0x3e);
        capture = ++this.captures;
        if (this.names.has(name)) throw new NotCompiled(); // duplicate name
        this.names.set(name, capture);
      } else if (k === 0x50 /* P */ && k2 === 0x3d /* = */) {
        this.at++;
        return this.backref(this.readName(0x29));
      } else if (k === 0x23 /* # */) {
        while (this.at < this.units.length && this.units[this.at] !== 0x29) this.at++;
        if (this.at >= this.units.length) throw new NotCompiled();
        this.at++;
        return;
      } else if (k !== undefined && this.isFlagStart(k)) {
        this.at--;
        const scoped = this.readFlags();
        if (!scoped) return; // (?i): applies to the rest of the enclosing group
        js = '(?:';
        this.groups.push({
          capture: 0,
          lookbehind: false,
          flags: outer,
          capturesBefore: this.captures,
          outStart: this.out.length,
        });
        this.out += js;
        this.last = { kind: 'none', start: this.out.length };
        return;
      } else if (k === 0x3e /* > */) throw new Unfaithful('atomic group');
      else if (k === 0x7c /* | */) throw new Unfaithful('branch reset group');
      else if (k === 0x28 /* ( */) throw new Unfaithful('conditional group');
      else if (k === 0x52 /* R */ || isDigit(k) || k === 0x2b || k === 0x26 || k === 0x50) {
        throw new Unfaithful('recursion');
      } else if (k === 0x43 /* C */) throw new Unfaithful('callout');
      else throw new NotCompiled();
    } else capture = ++this.captures;
    if (capture !== 0 && this.groups.some((g) => g.lookbehind)) throw new Unfaithful('capture in lookbehind');
    this.groups.push({
      capture,
      lookbehind,
      flags: outer,
      capturesBefore: capture === 0 ? this.captures : capture - 1,
      outStart: this.out.length,
    });
    this.out += capture === 0 ? js : '(';
    this.last = { kind: 'none', start: this.out.length };
  }

  private closeGroup(): void {
    const group = this.groups.pop();
    if (group === undefined) throw new NotCompiled(); // unmatched )
    // PCRE needs each top-level alternative of a lookbehind to have a fixed length; alternatives
    // of different lengths are refused rather than checked.
    if (group.lookbehind && /(^|[^\\])\|/.test(this.out.slice(group.outStart))) {
      throw new Unfaithful('alternation in lookbehind');
    }
    this.flags = group.flags;
    this.out += ')';
    if (group.capture !== 0) this.closed.add(group.capture);
    const parent = this.groups[this.groups.length - 1];
    if (group.repeats === true && parent !== undefined) parent.repeats = true;
    this.last = { kind: 'group', start: group.outStart, group };
  }

  private isFlagStart(k: number): boolean {
    return (
      k === 0x2d /* - */ ||
      k === 0x69 ||
      k === 0x6d ||
      k === 0x73 ||
      k === 0x78 ||
      k === 0x4a ||
      k === 0x55 ||
      k === 0x58
    );
  }

  /** Reads `flags)` or `flags:`; returns true for the scoped form. */
  private readFlags(): boolean {
    let on = true;
    for (;;) {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled();
      if (k === 0x29 /* ) */) return false;
      if (k === 0x3a /* : */) return true;
      if (k === 0x2d) on = false;
      else if (k === 0x69) this.flags.i = on;
      else if (k === 0x6d) this.flags.m = on;
      else if (k === 0x73) this.flags.s = on;
      else if (k === 0x78) this.flags.x = on;
      else if (k === 0x4a || k === 0x55 || k === 0x58) throw new Unfaithful(`(?${String.fromCharCode(k)}) option`);
      else throw new NotCompiled();
    }
  }

  private readName(terminator: number): string {
    let name = '';
    for (;;) {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled();
      if (k === terminator) break;
      if (!isAlnum(k) && k !== 0x5f) throw new NotCompiled();
      name += String.fromCharCode(k);
    }
    if (name === '' || isDigit(name.charCodeAt(0))) throw new NotCompiled();
    return name;
  }

  private backref(ref: number | string): void {
    if (this.groups.some((g) => g.lookbehind)) throw new NotCompiled();
    this.backrefs.push({ ref, closedBefore: new Set(this.closed) });
    // Resolved now when possible; names are resolved by number once all groups are known.
    const n = typeof ref === 'number' ? ref : this.names.get(ref);
    if (n === undefined) throw new Unfaithful('backreference to a later named group');
    this.atom(`(?:\\${n})`);
  }

  // ---- escapes ----

  private escape(): void {
    const k = this.units[this.at++];
    if (k === undefined) throw new NotCompiled(); // \ at end of pattern
    switch (k) {
      case 0x64 /* d */:
        return this.atom(this.classOf(DIGIT, false));
      case 0x44:
        return this.atom(this.classOf(DIGIT, true));
      case 0x77 /* w */:
        return this.atom(this.classOf(WORD, false));
      case 0x57:
        return this.atom(this.classOf(WORD, true));
      case 0x73 /* s */:
        return this.atom(this.classOf(SPACE, false));
      case 0x53:
        return this.atom(this.classOf(SPACE, true));
      case 0x68 /* h */:
        return this.atom(this.classOf(HSPACE, false));
      case 0x48:
        return this.atom(this.classOf(HSPACE, true));
      case 0x76 /* v */:
        return this.atom(this.classOf(VSPACE, false));
      case 0x56:
        return this.atom(this.classOf(VSPACE, true));
      case 0x4e /* N */:
        if (this.peek() === 0x7b) throw new NotCompiled();
        return this.atom('[^\\n]');
      case 0x52 /* R */:
        return this.atom('(?:\\r\\n|[\\n\\x0b\\f\\r\\x85])');
      case 0x62 /* b */:
        return this.assertion('\\b');
      case 0x42:
        return this.assertion('\\B');
      case 0x41 /* A */:
      case 0x47 /* G */:
        return this.assertion('(?<![\\s\\S])');
      case 0x7a /* z */:
        return this.assertion('(?![\\s\\S])');
      case 0x5a /* Z */:
        return this.assertion('(?=\\n?(?![\\s\\S]))');
      case 0x51 /* Q */:
        {
          while (this.at < this.units.length) {
            if (this.units[this.at] === 0x5c && this.units[this.at + 1] === 0x45) {
              this.at += 2;
              break;
            }
            this.atom(this.literal(this.units[this.at++]!));
          }
          return;
        }
      case 0x45 /* E */:
        return;
      case 0x43 /* C */:
        if (this.utf) throw new Unfaithful('\\C');
        return this.atom('[\\s\\S]');
      case 0x4c /* L */:
      case 0x6c /* l */:
      case 0x55 /* U */:
      case 0x75 /* u */:
        throw new NotCompiled();
      case 0x70 /* p */:
      case 0x50 /* P */:
        // Caseless matching does not touch a property (PCRE), so no folding here.
        return this.atom(this.writeClass(this.property(k === 0x50)));
      case 0x58 /* X */:
        throw new Unfaithful(`\\${String.fromCharCode(k)}`);
      case 0x4b /* K */:
        throw new Unfaithful('\\K');
      case 0x67 /* g */:
        return this.gReference();
      case 0x6b /* k */:
        {
          const open = this.units[this.at++];
          const close = open === 0x3c ? 0x3e : open === 0x27 ? 0x27 : open === 0x7b ? 0x7d : undefined;
          if (close === undefined) throw new NotCompiled();
          return this.backref(this.readName(close));
        }
      default:
        if (k >= 0x31 && k <= 0x39) {
          if (isDigit(this.peek())) throw new Unfaithful('backreference or octal escape above \\9');
          return this.backref(k - 0x30);
        }
        return this.atom(this.literal(this.escapedCharacter(k)));
    }
  }

  /** `\g{n}`, `\gn`, `\g{-n}`, `\g{name}`. */
  private gReference(): void {
    let text = '';
    if (this.peek() === 0x7b) {
      this.at++;
      for (;;) {
        const k = this.units[this.at++];
        if (k === undefined) throw new NotCompiled();
        if (k === 0x7d) break;
        text += String.fromCharCode(k);
      }
    } else {
      if (this.peek() === 0x2d) text += String.fromCharCode(this.units[this.at++]!);
      while (isDigit(this.peek())) text += String.fromCharCode(this.units[this.at++]!);
    }
    if (/^-?[0-9]+$/.test(text)) {
      const n = Number(text);
      const ref = n < 0 ? this.captures + 1 + n : n;
      if (ref <= 0) throw new NotCompiled();
      return this.backref(ref);
    }
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) return this.backref(text);
    throw new NotCompiled();
  }

  /** The character an escape stands for: `\n`, `\x41`, `\101`, `\cA`, or a literal (`\.`, `\y`). */
  private escapedCharacter(k: number): number {
    switch (k) {
      case 0x61 /* a */:
        return 0x07;
      case 0x65 /* e */:
        return 0x1b;
      case 0x66 /* f */:
        return 0x0c;
      case 0x6e /* n */:
        return 0x0a;
      case 0x72 /* r */:
        return 0x0d;
      case 0x74 /* t */:
        return 0x09;
      case 0x30 /* 0 */:
        {
          let value = 0;
          for (let n = 0; n < 2 && this.peek() !== undefined && this.peek()! >= 0x30 && this.peek()! <= 0x37; n++) {
            value = value * 8 + (this.units[this.at++]! - 0x30);
          }
          return value;
        }
      case 0x6f /* o */:
        {
          if (this.units[this.at++] !== 0x7b) throw new NotCompiled();
          return this.checkCode(this.readDigits(8, 0x7d));
        }
      case 0x78 /* x */:
        {
          if (this.peek() === 0x7b) {
            this.at++;
            return this.checkCode(this.readDigits(16, 0x7d));
          }
          let value = 0;
          for (let n = 0; n < 2 && isHex(this.peek()); n++) value = value * 16 + hexValue(this.units[this.at++]!);
          return value;
        }
      case 0x63 /* c */:
        {
          const x = this.units[this.at++];
          if (x === undefined || x > 0x7f) throw new NotCompiled();
          const upper = x >= 0x61 && x <= 0x7a ? x - 0x20 : x;
          return upper ^ 0x40;
        }
      default:
        return k;
    }
  }

  private readDigits(base: number, terminator: number): number {
    let value = 0;
    let count = 0;
    for (;;) {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled();
      if (k === terminator) break;
      const digit = base === 16 ? (isHex(k) ? hexValue(k) : -1) : k >= 0x30 && k <= 0x37 ? k - 0x30 : -1;
      if (digit < 0) throw new NotCompiled();
      value = value * base + digit;
      if (value > 0x10ffff) throw new NotCompiled();
      count++;
    }
    if (count === 0) throw new NotCompiled();
    return value;
  }

  private checkCode(value: number): number {
    if (value > this.max) throw new NotCompiled(); // character value too large (non-UTF mode)
    return value;
  }

  // ---- literals and classes ----

  /** A literal character; case-insensitive letters become a class of both cases. */
  private literal(c: number): string {
    if (this.flags.i) {
      const folded = this.caseVariants(c);
      if (folded.length > 1) return `[${folded.map((u) => this.unit(u)).join('')}]`;
    }
    return this.unit(c);
  }

  private caseVariants(c: number): number[] {
    if (c >= 0x41 && c <= 0x5a) return [c, c + 0x20];
    if (c >= 0x61 && c <= 0x7a) return [c, c - 0x20];
    if (this.utf && c > 0x7f) {
      const ch = String.fromCodePoint(c);
      const variants = new Set([c]);
      for (const v of [ch.toLowerCase(), ch.toUpperCase()]) {
        if ([...v].length === 1) variants.add(v.codePointAt(0)!);
      }
      return [...variants];
    }
    return [c];
  }

  /** One character written so that it means itself in any JS pattern position. */
  private unit(c: number): string {
    if (isAlnum(c) || c === 0x5f) return String.fromCharCode(c);
    if (c <= 0xff) return `\\x${c.toString(16).padStart(2, '0')}`;
    return `\\u{${c.toString(16)}}`;
  }

  private classOf(ranges: Ranges, negated: boolean): string {
    return this.writeClass(negated ? complement(ranges, this.max) : ranges);
  }

  private writeClass(ranges: Ranges): string {
    const normalized = normalize(ranges);
    if (normalized.length === 0) return '[^\\s\\S]';
    return `[${normalized.map(([lo, hi]) => (lo === hi ? this.unit(lo) : `${this.unit(lo)}-${this.unit(hi)}`)).join('')}]`;
  }

  /** A `[...]` class (after the `[`), written as explicit ranges. */
  private classExpression(): string {
    let negated = false;
    if (this.peek() === 0x5e) {
      negated = true;
      this.at++;
    }
    const ranges: Ranges = [];
    let first = true;
    for (;;) {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled(); // missing terminating ]
      if (k === 0x5d /* ] */ && !first) break;
      first = false;
      if (k === 0x5b /* [ */ && (this.peek() === 0x3a || this.peek() === 0x2e || this.peek() === 0x3d)) {
        ranges.push(...this.posixClass());
        continue;
      }
      let lo: number;
      if (k === 0x5c /* \ */) {
        const set = this.classEscape();
        if (Array.isArray(set)) {
          ranges.push(...set);
          continue;
        }
        lo = set;
      } else lo = k;
      // A range `lo-hi` unless the `-` is last.
      if (this.peek() === 0x2d && this.peek(1) !== undefined && this.peek(1) !== 0x5d) {
        this.at++;
        let hi = this.units[this.at++]!;
        if (hi === 0x5b && this.peek() === 0x3a) throw new NotCompiled(); // range ending in a POSIX class
        if (hi === 0x5c) {
          const set = this.classEscape();
          if (Array.isArray(set)) throw new NotCompiled(); // invalid range
          hi = set;
        }
        if (hi < lo) throw new NotCompiled(); // range out of order
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    let set = ranges;
    if (this.flags.i) set = this.foldRanges(set);
    return this.writeClass(negated ? complement(set, this.max) : set);
  }

  /** `\d`, `\w`, … inside a class as ranges, or the single character an escape stands for. */
  private classEscape(): Ranges | number {
    const k = this.units[this.at++];
    if (k === undefined) throw new NotCompiled();
    const sets: Record<number, [Ranges, boolean]> = {
      100: [DIGIT, false],
      68: [DIGIT, true],
      119: [WORD, false],
      87: [WORD, true],
      115: [SPACE, false],
      83: [SPACE, true],
      104: [HSPACE, false],
      72: [HSPACE, true],
      118: [VSPACE, false],
      86: [VSPACE, true],
    };
    const set = sets[k];
    if (set !== undefined) return set[1] ? complement(set[0], this.max) : set[0];
    if (k === 0x62 /* b */) return 0x08;
    if (k === 0x51 || k === 0x45) throw new Unfaithful('\\Q…\\E in a class');
    if (k === 0x70 || k === 0x50) {
      // A class under (?i) is folded as a whole, which PCRE does not do to a property in it.
      if (this.flags.i) throw new Unfaithful(`\\${String.fromCharCode(k)} in a caseless class`);
      return this.property(k === 0x50);
    }
    if (k === 0x58) throw new Unfaithful(`\\${String.fromCharCode(k)}`);
    if (k === 0x4c || k === 0x6c || k === 0x55 || k === 0x75 || k === 0x4e) throw new NotCompiled();
    if (k >= 0x31 && k <= 0x39) throw new Unfaithful('octal escape in a class');
    return this.escapedCharacter(k);
  }

  /** `[:alpha:]`, `[:^digit:]` (after the `[`); `[.x.]` and `[=x=]` do not compile in PCRE. */
  private posixClass(): Ranges {
    const kind = this.units[this.at++]!;
    let name = '';
    for (;;) {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled();
      if (k === kind && this.peek() === 0x5d) {
        this.at++;
        break;
      }
      name += String.fromCharCode(k);
    }
    if (kind !== 0x3a) throw new NotCompiled();
    const negated = name.startsWith('^');
    const set = POSIX[negated ? name.slice(1) : name];
    if (set === undefined) throw new NotCompiled(); // unknown POSIX class name
    return negated ? complement(set, this.max) : set;
  }

  /**
   * `\p{Name}`, `\p{^Name}`, `\pL` (after the `p`/`P`): a Unicode property as PCRE reads it,
   * as ranges. Without UTF the subject's units are bytes, which PCRE takes as code points 0..255
   * (so the lead byte of a UTF-8 letter may match `\p{Lu}`, as in CouchDB).
   */
  private property(negated: boolean): Ranges {
    let name: string;
    if (this.peek() === 0x7b /* { */) {
      this.at++;
      name = '';
      for (;;) {
        const k = this.units[this.at++];
        if (k === undefined) throw new NotCompiled(); // malformed \p
        if (k === 0x7d) break;
        name += String.fromCharCode(k);
      }
      if (name.startsWith('^')) {
        negated = !negated;
        name = name.slice(1);
      }
    } else {
      const k = this.units[this.at++];
      if (k === undefined) throw new NotCompiled();
      name = String.fromCharCode(k);
    }
    const ranges = propertyRanges(name, this.max);
    return negated ? complement(ranges, this.max) : ranges;
  }

  /** Adds the other ASCII case of every letter in the ranges. */
  private foldRanges(ranges: Ranges): Ranges {
    const out: Ranges = [...ranges];
    for (const [lo, hi] of ranges) {
      const upper = intersect(lo, hi, 0x41, 0x5a);
      if (upper) out.push([upper[0] + 0x20, upper[1] + 0x20]);
      const lower = intersect(lo, hi, 0x61, 0x7a);
      if (lower) out.push([lower[0] - 0x20, lower[1] - 0x20]);
      if (this.utf && hi > 0x7f) {
        if (hi - Math.max(lo, 0x80) > 64) throw new Unfaithful('case-insensitive range beyond ASCII');
        for (let c = Math.max(lo, 0x80); c <= hi; c++) for (const v of this.caseVariants(c)) out.push([v, v]);
      }
    }
    return out;
  }
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10;
}

function intersect(lo: number, hi: number, a: number, b: number): [number, number] | undefined {
  const l = Math.max(lo, a);
  const h = Math.min(hi, b);
  return l <= h ? [l, h] : undefined;
}

function normalize(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(ranges: Ranges, max: number): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= max) out.push([next, max]);
  return out;
}

/** PCRE's general category names (and `L&`, `Any`); any other name is a script. */
const CATEGORIES = new Set(
  'C Cc Cf Cn Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '),
);
const propertyCache = new Map<string, Ranges>();

/** The code points up to `max` that have the property, as ranges (a scan, cached per name). */
function propertyRanges(name: string, max: number): Ranges {
  const key = `${name}/${max}`;
  const cached = propertyCache.get(key);
  if (cached !== undefined) return cached;
  let test: RegExp | undefined;
  if (name === 'Any') test = undefined;
  else if (name === 'L&') test = /[\p{Lu}\p{Ll}\p{Lt}]/u;
  else if (CATEGORIES.has(name)) test = new RegExp(`\\p{${name}}`, 'u');
  else if (/^[A-Z][A-Za-z_]*$/.test(name)) {
    try {
      test = new RegExp(`\\p{Script=${name}}`, 'u');
    } catch {
      throw new NotCompiled(); // unknown property name after \P or \p
    }
  } else throw new NotCompiled();
  const ranges: Ranges = [];
  for (let c = 0; c <= max; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    if (test !== undefined && !test.test(String.fromCodePoint(c))) continue;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  }
  propertyCache.set(key, ranges);
  return ranges;
}

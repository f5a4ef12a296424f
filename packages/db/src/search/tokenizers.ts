/**
 * Lucene's tokenizers, as the analyzers here need them: a token is its text and its position
 * (the number of tokens before it; filters that drop tokens leave the gap, as Lucene's
 * position increments do, so phrases do not match across a removed stop word).
 *
 * - `standardTokens`: Unicode word boundaries (UAX #29) as Lucene 4's `StandardTokenizer` draws
 *   them: letters and digits with the characters allowed between them (`can't`, `3.14`, `U.S.A`,
 *   `foo_bar`), each Han ideograph and Hiragana character a token of its own, Katakana runs.
 * - `letterTokens` (`LetterTokenizer`), `whitespaceTokens` (`WhitespaceTokenizer`),
 *   `keywordTokens` (`KeywordTokenizer`: the whole text, one token).
 * - `classicTokens`: the grammar of Lucene's `ClassicTokenizer` (acronyms, companies, e-mail
 *   addresses, host names, numbers with separators).
 * - `emailTokens`: `UAX29URLEmailTokenizer`: URLs and e-mail addresses kept whole, the rest as
 *   `standardTokens`.
 */

export interface Token {
  text: string;
  position: number;
}

/** Lucene's StandardAnalyzer default `maxTokenLength`: longer tokens are skipped. */
const MAX_TOKEN_LENGTH = 255;

type WordClass =
  | 'letter'
  | 'numeric'
  | 'katakana'
  | 'ideo'
  | 'extendNumLet'
  | 'midLetter'
  | 'midNumLet'
  | 'midNum'
  | 'extend'
  | 'other';

const LETTER = /[\p{L}\p{Nl}]/u;
const HAN = /[\p{Script=Han}\p{Script=Hiragana}]/u;
const KATAKANA = /\p{Script=Katakana}/u;
const DIGIT = /\p{Nd}/u;
const EXTEND = /[\p{M}\p{Cf}]/u;
const MID_LETTER = new Set([':', '\u00b7', '\u0387', '\u05f4', '\u2027', '\ufe13', '\ufe55', '\uff1a']);
const MID_NUM_LET = new Set(['.', "'", '\u2018', '\u2019', '\u2024', '\ufe52', '\uff07', '\uff0e']);
const MID_NUM = new Set([
  ',',
  ';',
  '\u037e',
  '\u0589',
  '\u060c',
  '\u060d',
  '\u066c',
  '\u07f8',
  '\u2044',
  '\ufe10',
  '\ufe14',
  '\ufe50',
  '\ufe54',
  '\uff0c',
  '\uff1b',
]);
const EXTEND_NUM_LET = /\p{Pc}/u;

function classOf(ch: string): WordClass {
  // ASCII first: most text is, and a regular expression per character is slow.
  const code = ch.charCodeAt(0);
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return 'letter';
    if (code >= 0x30 && code <= 0x39) return 'numeric';
    if (code === 0x5f) return 'extendNumLet';
    if (code === 0x2e || code === 0x27) return 'midNumLet';
    if (code === 0x3a) return 'midLetter';
    if (code === 0x2c || code === 0x3b) return 'midNum';
    return 'other';
  }
  if (DIGIT.test(ch)) return 'numeric';
  if (KATAKANA.test(ch)) return 'katakana';
  if (HAN.test(ch)) return 'ideo';
  if (LETTER.test(ch)) return 'letter';
  if (EXTEND.test(ch)) return 'extend';
  if (EXTEND_NUM_LET.test(ch)) return 'extendNumLet';
  if (MID_LETTER.has(ch)) return 'midLetter';
  if (MID_NUM_LET.has(ch)) return 'midNumLet';
  if (MID_NUM.has(ch)) return 'midNum';
  return 'other';
}

/** Whether a run of these classes is a word Lucene emits (not only connectors). */
function isWordStart(c: WordClass): boolean {
  return c === 'letter' || c === 'numeric' || c === 'katakana' || c === 'extendNumLet';
}

/** UAX #29 word segmentation, keeping the segments `StandardTokenizer` emits, from `start`. */
function* standardWords(text: string): Generator<string> {
  // By code point; a text without surrogates is its own code points (no array of one-character
  // strings: spreading a ~1 KB text was a tenth of an index build's tokenizing).
  const chars: string | string[] = SURROGATE.test(text) ? [...text] : text;
  const classes: WordClass[] = new Array(chars.length);
  for (let k = 0; k < chars.length; k++) classes[k] = classOf(chars[k]!);
  let i = 0;
  while (i < chars.length) {
    const c = classes[i]!;
    if (c === 'ideo') {
      let word = chars[i]!;
      i++;
      while (i < chars.length && classes[i] === 'extend') word += chars[i++];
      yield word;
      continue;
    }
    if (!isWordStart(c)) {
      i++;
      continue;
    }
    const start = i;
    let last: WordClass = c; // class of the last non-extend character in the word
    i++;
    for (;;) {
      while (i < chars.length && classes[i] === 'extend') i++;
      if (i >= chars.length) break;
      const next = classes[i]!;
      if (joins(last, next)) {
        last = next;
        i++;
        continue;
      }
      // WB6/7, WB11/12: letter (mid) letter, digit (mid) digit.
      if (next === 'midLetter' || next === 'midNumLet' || next === 'midNum') {
        let after = i + 1;
        while (after < chars.length && classes[after] === 'extend') after++;
        const then = classes[after];
        const letters = last === 'letter' && then === 'letter' && next !== 'midNum';
        const digits = last === 'numeric' && then === 'numeric' && next !== 'midLetter';
        if (letters || digits) {
          last = then!;
          i = after + 1;
          continue;
        }
      }
      break;
    }
    const word = typeof chars === 'string' ? chars.slice(start, i) : chars.slice(start, i).join('');
    // A run of connectors only (`___`) is no word.
    if (c === 'letter' || c === 'numeric' || ALNUM.test(word)) yield word;
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;
const ALNUM = /[\p{L}\p{N}]/u;

/** The UAX #29 rules that keep two adjacent classes in one word (WB5, 8–10, 13, 13a/b). */
function joins(a: WordClass, b: WordClass): boolean {
  const alnum = (c: WordClass) => c === 'letter' || c === 'numeric';
  if (alnum(a) && alnum(b)) return true;
  if (a === 'katakana' && b === 'katakana') return true;
  if (b === 'extendNumLet') return alnum(a) || a === 'katakana' || a === 'extendNumLet';
  if (a === 'extendNumLet') return alnum(b) || b === 'katakana';
  return false;
}

function positioned(words: Iterable<string>): Token[] {
  const out: Token[] = [];
  let position = 0;
  for (const text of words) {
    // Code points counted only when the UTF-16 length could be past the limit.
    if (text.length > MAX_TOKEN_LENGTH && [...text].length > MAX_TOKEN_LENGTH) {
      position++;
      continue;
    }
    out.push({ text, position: position++ });
  }
  return out;
}

export function standardTokens(text: string): Token[] {
  return positioned(standardWords(text));
}

export function letterTokens(text: string): Token[] {
  return positioned(text.match(/[\p{L}]+/gu) ?? []);
}

/** Java's Character.isWhitespace: Unicode spaces but the no-break ones, and the separators U+001C–U+001F. */
function isJavaWhitespace(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return (code >= 0x1c && code <= 0x1f) || /\s/u.test(ch);
}

export function whitespaceTokens(text: string): Token[] {
  const words: string[] = [];
  let word = '';
  for (const ch of text) {
    if (!isJavaWhitespace(ch)) word += ch;
    else if (word !== '') {
      words.push(word);
      word = '';
    }
  }
  if (word !== '') words.push(word);
  return positioned(words);
}

export function keywordTokens(text: string): Token[] {
  return [{ text, position: 0 }];
}

const EMAIL =
  /[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}]{2,}/uy;
const URL = /(?:(?:https?|ftp|file):\/\/|www\.)[^\s<>"]+[^\s<>".,;:!?')\]]/uy;

export function emailTokens(text: string): Token[] {
  const words: string[] = [];
  let plain = '';
  let i = 0;
  const flush = () => {
    for (const word of standardWords(plain)) words.push(word);
    plain = '';
  };
  while (i < text.length) {
    // A URL or an address starts at a word's start only.
    const atStart = i === 0 || !/[\p{L}\p{N}_.@-]/u.test(text[i - 1]!);
    let match: RegExpExecArray | null = null;
    if (atStart) {
      URL.lastIndex = i;
      match = URL.exec(text);
      if (match === null) {
        EMAIL.lastIndex = i;
        match = EMAIL.exec(text);
      }
    }
    if (match !== null) {
      flush();
      words.push(match[0]);
      i += match[0].length;
    } else {
      plain += text[i];
      i++;
    }
  }
  flush();
  return positioned(words);
}

/** ClassicTokenizer's token types, for ClassicFilter. */
export type ClassicType = 'alphanum' | 'apostrophe' | 'acronym' | 'company' | 'email' | 'host' | 'num' | 'cj';

export interface ClassicToken extends Token {
  type: ClassicType;
}

const AN = '[\\p{L}\\p{Nd}]';
const HAS_DIGIT = `${AN}*\\p{Nd}${AN}*`;
const P = '[_\\-/.,]';
/** JFlex picks the longest match, then the rule declared first: the rules in declaration order. */
const CLASSIC_RULES: readonly (readonly [ClassicType, RegExp])[] = [
  ['alphanum', new RegExp(`${AN}+`, 'uy')],
  ['apostrophe', /\p{L}+(?:'\p{L}+)+/uy],
  ['acronym', /\p{L}\.(?:\p{L}\.)+/uy],
  ['company', /\p{L}+[&@]\p{L}+/uy],
  ['email', new RegExp(`${AN}+(?:[._-]${AN}+)*@${AN}+(?:[.-]${AN}+)+`, 'uy')],
  ['host', new RegExp(`${AN}+(?:\\.${AN}+)+`, 'uy')],
  [
    'num',
    new RegExp(
      `(?:${AN}+${P}${HAS_DIGIT}|${HAS_DIGIT}${P}${AN}+)(?:${P}${HAS_DIGIT}${P}${AN}+|${P}${AN}+${P}${HAS_DIGIT})*`,
      'uy',
    ),
  ],
];
const CJ = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function classicTokens(text: string): ClassicToken[] {
  const out: ClassicToken[] = [];
  let position = 0;
  let i = 0;
  while (i < text.length) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (CJ.test(ch)) {
      out.push({ text: ch, position: position++, type: 'cj' });
      i += ch.length;
      continue;
    }
    let best: [ClassicType, string] | undefined;
    for (const [type, rule] of CLASSIC_RULES) {
      rule.lastIndex = i;
      const match = rule.exec(text);
      if (match !== null && (best === undefined || match[0].length > best[1].length)) best = [type, match[0]];
    }
    if (best === undefined) {
      i += ch.length;
      continue;
    }
    // The classic grammar's letters exclude CJ characters: a word stops before one.
    let word = best[1];
    const cut = [...word].findIndex((c) => CJ.test(c));
    if (cut > 0) word = [...word].slice(0, cut).join('');
    if ([...word].length <= MAX_TOKEN_LENGTH) out.push({ text: word, position: position, type: best[0] });
    position++;
    i += word.length;
  }
  return out;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * CJKWidthFilter's folding: full-width ASCII (U+FF01–FF5E) to ASCII, half-width Katakana to
 * full width (with its voicing marks composed).
 */
export function foldWidth(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xff01 && code <= 0xff5e) out += String.fromCharCode(code - 0xfee0);
    else out += ch;
  }
  return /[\uff65-\uff9f]/u.test(out) ? out.replace(/[\uff65-\uff9f]+/gu, (run) => run.normalize('NFKC')) : out;
}

/**
 * CJKAnalyzer's tokens before lowercasing and stop words: runs of Han, Hiragana, Katakana and
 * Hangul as overlapping bigrams (a run of one character as itself), the rest as `standardTokens`.
 */
export function cjkTokens(text: string): Token[] {
  const words: string[] = [];
  let plain = '';
  let run: string[] = [];
  const flushPlain = () => {
    for (const word of standardWords(plain)) words.push(word);
    plain = '';
  };
  const flushRun = () => {
    if (run.length === 1) words.push(run[0]!);
    for (let i = 0; i + 1 < run.length; i++) words.push(run[i]! + run[i + 1]!);
    run = [];
  };
  for (const ch of foldWidth(text)) {
    if (CJK.test(ch)) {
      if (plain !== '') flushPlain();
      run.push(ch);
    } else {
      if (run.length > 0) flushRun();
      plain += ch;
    }
  }
  if (run.length > 0) flushRun();
  if (plain !== '') flushPlain();
  return positioned(words);
}

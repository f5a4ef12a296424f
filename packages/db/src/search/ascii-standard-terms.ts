/**
 * The `standard` and `english` analyzers over an ASCII text, as term ids of a TermDictionary
 * (./term-dictionary.ts) and positions: ./tokenizers.ts' UAX #29 words as its `standardWords`
 * draws them in ASCII (letters and digits with `_` between or around them; `.` `'` between
 * letters or digits, `:` between letters, `,` `;` between digits), lowercased, then each word
 * through the analyzer's own filters once per distinct word (stop words, `'s`, the stemmer),
 * kept by id. The same terms and positions as the Token path (tested on the bench's corpus and
 * the tokenizer's edge cases), without a string or an object per token.
 */
import { HASH_START, hashStep, type TermDictionary } from './term-dictionary.js';

/** Where terms go: each one's id and position, in position order. */
export interface TermSink {
  add(id: number, position: number): void;
}

/**
 * An analyzer's path over ASCII texts: false when `text` is not ASCII (the caller then takes the
 * analyzer's tokens), else every term given to `sink` in position order.
 */
export type InterningAnalysis = (text: string, dictionary: TermDictionary, sink: TermSink) => boolean;

/**
 * The analysis of an analyzer whose filters after lowercasing are a function of each word alone:
 * `termOf` gives a lowercased word's term, or undefined when the word is dropped (its position
 * stays empty).
 */
export function interningAnalysis(termOf: (word: string) => string | undefined): InterningAnalysis {
  const words = new WordTerms(termOf);
  return (text, dictionary, sink) => {
    if (NOT_ASCII.test(text)) return false;
    words.start(dictionary, sink);
    // Scanned as bytes: a text read out of a stored body is a slice of it, and each character
    // read of a slice goes through its parent (the scan and the dictionary's compares: 10-15%).
    let bytes = textBytes;
    if (text.length > bytes.length) {
      bytes = Buffer.allocUnsafe(Math.max(text.length, bytes.length * 2));
      // A very long text's bytes are not kept for the next.
      if (bytes.length <= MAX_KEPT_BYTES) textBytes = bytes;
    }
    bytes.write(text, 0, 'latin1');
    asciiStandardWords(text, bytes, dictionary, words);
    return true;
  };
}

/** The words of a text to their terms, each distinct word's term found once per dictionary. */
class WordTerms implements TermSink {
  /** Per word id: its term's id + 1, -1 dropped, 0 not known yet (for `dictionary` at `generation`). */
  private cache = new Int32Array(0);
  private dictionary: TermDictionary | undefined;
  private generation = -1;
  private sink: TermSink | undefined;

  constructor(private readonly termOf: (word: string) => string | undefined) {}

  start(dictionary: TermDictionary, sink: TermSink): void {
    if (dictionary !== this.dictionary || dictionary.generation !== this.generation) {
      this.dictionary = dictionary;
      this.generation = dictionary.generation;
      this.cache = new Int32Array(1024);
    }
    this.sink = sink;
  }

  /** A word (its id) at a position. */
  add(word: number, position: number): void {
    let cache = this.cache;
    if (word >= cache.length) {
      cache = new Int32Array(Math.max(word + 1, cache.length * 2));
      cache.set(this.cache);
      this.cache = cache;
    }
    let known = cache[word]!;
    if (known === 0) {
      const dictionary = this.dictionary!;
      const term = this.termOf(dictionary.terms[word]!);
      known = term === undefined ? -1 : dictionary.idOf(term) + 1;
      // idOf may have grown the dictionary past the cache: it is grown on the next word that needs it.
      cache[word] = known;
    }
    if (known > 0) this.sink!.add(known - 1, position);
  }
}

const NOT_ASCII = /[\u0080-\uffff]/;

/** The text being scanned, as bytes (ASCII: one a character), kept up to MAX_KEPT_BYTES. */
let textBytes = Buffer.allocUnsafe(4096);
const MAX_KEPT_BYTES = 1 << 20;

/** Lucene's StandardAnalyzer `maxTokenLength`: a longer word is skipped (its position kept). */
const MAX_TOKEN_LENGTH = 255;

const OTHER = 0;
const LETTER = 1;
const NUMERIC = 2;
const EXTEND_NUM_LET = 3;
const MID_NUM_LET = 4;
const MID_LETTER = 5;
const MID_NUM = 6;

/** The UAX #29 word class of each ASCII character (./tokenizers.ts `classOf`). */
const CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  CLASS[code] =
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)
      ? LETTER
      : code >= 0x30 && code <= 0x39
        ? NUMERIC
        : code === 0x5f
          ? EXTEND_NUM_LET
          : code === 0x2e || code === 0x27
            ? MID_NUM_LET
            : code === 0x3a
              ? MID_LETTER
              : code === 0x2c || code === 0x3b
                ? MID_NUM
                : OTHER;
}

function alnum(c: number): boolean {
  return c === LETTER || c === NUMERIC;
}

/** The rules that keep two adjacent classes in one word (WB5, 8–10, 13a/b; no Katakana in ASCII). */
function joins(a: number, b: number): boolean {
  if (alnum(a) && alnum(b)) return true;
  if (b === EXTEND_NUM_LET) return alnum(a) || a === EXTEND_NUM_LET;
  if (a === EXTEND_NUM_LET) return alnum(b);
  return false;
}

/** The standard tokenizer's words of an ASCII text, lowercased, as word ids with their positions. */
function asciiStandardWords(text: string, bytes: Uint8Array, dictionary: TermDictionary, sink: TermSink): void {
  const n = text.length;
  let position = 0;
  let i = 0;
  while (i < n) {
    let code = bytes[i]!;
    const c = CLASS[code]!;
    if (c !== LETTER && c !== NUMERIC && c !== EXTEND_NUM_LET) {
      i++;
      continue;
    }
    const start = i;
    // The word's dictionary hash, made in the same pass (./term-dictionary.ts).
    let hash = hashStep(HASH_START, LOWERED[code]!);
    let last = c;
    i++;
    while (i < n) {
      code = bytes[i]!;
      const next = CLASS[code]!;
      if (joins(last, next)) {
        hash = hashStep(hash, LOWERED[code]!);
        last = next;
        i++;
        continue;
      }
      // WB6/7, WB11/12: letter (mid) letter, digit (mid) digit.
      if (next === MID_LETTER || next === MID_NUM_LET || next === MID_NUM) {
        const after = i + 1 < n ? bytes[i + 1]! : 0;
        const then = CLASS[after]!;
        const letters = last === LETTER && then === LETTER && next !== MID_NUM;
        const digits = last === NUMERIC && then === NUMERIC && next !== MID_LETTER;
        if (letters || digits) {
          hash = hashStep(hashStep(hash, code), LOWERED[after]!);
          last = then;
          i += 2;
          continue;
        }
      }
      break;
    }
    // A run of connectors only (`___`) is no word.
    if (c === EXTEND_NUM_LET && !hasAlnum(text, start, i)) continue;
    if (i - start > MAX_TOKEN_LENGTH) {
      position++;
      continue;
    }
    sink.add(dictionary.idOfHashedBytes(text, bytes, start, i, hash), position++);
  }
}

/** Each ASCII code lowered (A-Z to a-z). */
const LOWERED = Uint8Array.from({ length: 128 }, (_, code) => (code >= 0x41 && code <= 0x5a ? code + 0x20 : code));

function hasAlnum(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (alnum(CLASS[text.charCodeAt(i)]!)) return true;
  return false;
}

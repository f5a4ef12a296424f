/**
 * SmartCN's two dictionaries (Lucene's `coredict.mem` and `bigramdict.mem`, converted by
 * scripts/lucene/ChineseDictionaries.java): words with their frequencies, grouped by first
 * character and sorted as Lucene sorts them, and the frequencies of word pairs, known only by the
 * FNV-1 hash of `word1@word2`. Lookups answer as Lucene's WordDictionary and BigramDictionary do.
 */
import { dictionaryBytes } from './dictionary-files.js';

/** The words that start with one character: the rest of each word ("" for the character alone). */
interface WordGroup {
  rests: string[];
  frequencies: Int32Array;
}

export class WordDictionary {
  private constructor(private readonly groups: Map<number, WordGroup>) {}

  static read(bytes: Uint8Array): WordDictionary {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const groups = new Map<number, WordGroup>();
    let at = 4;
    for (let count = view.getInt32(0), n = 0; n < count; n++) {
      const first = view.getUint16(at);
      const items = view.getInt32(at + 2);
      at += 6;
      const rests: string[] = [];
      const frequencies = new Int32Array(items);
      for (let i = 0; i < items; i++) {
        const length = view.getInt16(at);
        at += 2;
        let rest = '';
        for (let c = 0; c < length; c++, at += 2) rest += String.fromCharCode(view.getUint16(at));
        rests.push(rest);
        frequencies[i] = view.getInt32(at);
        at += 4;
      }
      groups.set(first, { rests, frequencies });
    }
    return new WordDictionary(groups);
  }

  /** How often the word occurs; 0 for a word not in the dictionary. */
  frequency(word: string): number {
    const group = this.groups.get(word.charCodeAt(0));
    if (group === undefined) return 0;
    const rest = word.slice(1);
    let start = 0;
    let end = group.rests.length - 1;
    while (start <= end) {
      const mid = Math.trunc((start + end) / 2);
      const compared = compare(group.rests[mid]!, rest);
      if (compared === 0) return group.frequencies[mid]!;
      if (compared < 0) start = mid + 1;
      else end = mid - 1;
    }
    return 0;
  }

  /**
   * Lucene's `getPrefixMatch`: the first entry (searching from `knownStart`, as Lucene does) of
   * the words that begin with `word`, or -1.
   */
  prefixMatch(word: string, knownStart = 0): number {
    const group = this.groups.get(word.charCodeAt(0));
    if (group === undefined) return -1;
    const rest = word.slice(1);
    let start = knownStart;
    let end = group.rests.length - 1;
    let mid = Math.trunc((start + end) / 2);
    while (start <= end) {
      const compared = comparePrefix(rest, group.rests[mid]!);
      if (compared === 0) {
        while (mid >= 0 && comparePrefix(rest, group.rests[mid]!) === 0) mid--;
        return mid + 1;
      }
      if (compared < 0) end = mid - 1;
      else start = mid + 1;
      mid = Math.trunc((start + end) / 2);
    }
    return -1;
  }

  /** Whether entry `index` of the word's first character is the word itself. */
  isEntry(word: string, index: number): boolean {
    const group = this.groups.get(word.charCodeAt(0));
    return group !== undefined && group.rests[index] === word.slice(1);
  }
}

/** Lucene's Utility.compareArray on whole strings: UTF-16 unit order, a prefix first. */
function compare(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Lucene's Utility.compareArrayByPrefix: 0 when `prefix` begins `word`, else their order. */
function comparePrefix(prefix: string, word: string): number {
  if (word.startsWith(prefix)) return 0;
  return prefix < word ? -1 : 1;
}

/** Pair frequencies by the pair's 64-bit hash, kept as two 32-bit halves in Java's (signed) order. */
export class BigramDictionary {
  private constructor(
    private readonly highs: Int32Array,
    private readonly lows: Uint32Array,
    private readonly frequencies: Int32Array,
  ) {}

  static read(bytes: Uint8Array): BigramDictionary {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = view.getInt32(0);
    const highs = new Int32Array(count);
    const lows = new Uint32Array(count);
    const frequencies = new Int32Array(count);
    for (let i = 0, at = 4; i < count; i++, at += 8) {
      highs[i] = view.getInt32(at);
      lows[i] = view.getUint32(at + 4);
    }
    for (let i = 0, at = 4 + count * 8; i < count; i++, at += 4) frequencies[i] = view.getInt32(at);
    return new BigramDictionary(highs, lows, frequencies);
  }

  /** How often the pair `pair` (`word1@word2`) occurs; 0 for a pair not in the dictionary. */
  frequency(pair: string): number {
    fnv1(pair);
    const high = hashHigh | 0;
    const low = hashLow;
    let min = 0;
    let max = this.highs.length - 1;
    while (min <= max) {
      const mid = (min + max) >>> 1;
      const atHigh = this.highs[mid]!;
      const atLow = this.lows[mid]!;
      if (atHigh === high && atLow === low) return this.frequencies[mid]!;
      if (atHigh < high || (atHigh === high && atLow < low)) min = mid + 1;
      else max = mid - 1;
    }
    return 0;
  }
}

/** FNV-1's 64-bit offset basis and prime (2^40 + 0x1b3), in 32-bit halves. */
const FNV_OFFSET_HIGH = 0xcbf29ce4;
const FNV_OFFSET_LOW = 0x84222325;
const FNV_PRIME_LOW = 0x1b3;
let hashHigh = 0;
let hashLow = 0;

/**
 * AbstractDictionary.hash1 over a string: 64-bit FNV-1 of each unit's low then high byte, left in
 * `hashHigh`/`hashLow` (unsigned halves). The multiply by 2^40 + 0x1b3 is done on halves so
 * every intermediate stays an exact double.
 */
function fnv1(text: string): void {
  let high = FNV_OFFSET_HIGH;
  let low = FNV_OFFSET_LOW;
  const multiply = () => {
    const lowProduct = low * FNV_PRIME_LOW;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (high * FNV_PRIME_LOW + carry + low * 256) >>> 0;
    low = lowProduct >>> 0;
  };
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    low = (low ^ (unit & 0xff)) >>> 0;
    multiply();
    low = (low ^ (unit >> 8)) >>> 0;
    multiply();
  }
  hashHigh = high;
  hashLow = low;
}

export interface SmartcnDictionaries {
  words: WordDictionary;
  bigrams: BigramDictionary;
}

export function readSmartcnDictionaries(): SmartcnDictionaries {
  return {
    words: WordDictionary.read(dictionaryBytes('chinese-words.bin.gz')),
    bigrams: BigramDictionary.read(dictionaryBytes('chinese-bigrams.bin.gz')),
  };
}

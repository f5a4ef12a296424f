/**
 * Kuromoji's IPADIC as Lucene 8's JapaneseTokenizer reads it (TokenInfoDictionary, its FST,
 * UnknownDictionary, CharacterDefinition, ConnectionCosts), from the one file
 * scripts/lucene/JapaneseDictionaries.java wrote out of Lucene's jar (its header gives the format).
 *
 * Known and unknown words are one numbering of "entries" (left id = right id, cost, part of
 * speech); a surface form's entries are consecutive and in Lucene's order, which decides ties in
 * the lattice. The FST becomes the sorted surface forms, walked a character at a time by
 * narrowing a range of them (what the FST's arcs do).
 */
import { dictionaryBytes } from './dictionary-files.js';

const CLASS_INVOKE = 1;
const CLASS_GROUP = 2;
const CLASS_KANJI = 4;

export class KuromojiDictionary {
  private constructor(
    /** Row-major [right id of a word][left id of the next]. */
    private readonly costs: Int16Array,
    private readonly costColumns: number,
    private readonly classOf: Uint8Array,
    private readonly classFlags: Uint8Array,
    private readonly punctuationBits: Uint8Array,
    private readonly leftIds: Uint16Array,
    private readonly wordCosts: Int16Array,
    private readonly partsOfSpeech: Uint16Array,
    private readonly partOfSpeechNames: string[],
    private readonly unknownFirst: Uint32Array,
    private readonly unknownCount: Uint16Array,
    /** Entry `e`'s base form is `baseFormUnits[baseFormStart[e]]` up to the next start (empty: none). */
    private readonly baseFormStart: Int32Array,
    private readonly baseFormUnits: Uint16Array,
    /** Every surface form, one after the other; surface `s` is `surfaceStart[s]` to `surfaceStart[s + 1]`. */
    private readonly surfaces: Uint16Array,
    private readonly surfaceStart: Int32Array,
    /** Surface `s`'s entries are `surfaceEntry[s]` to `surfaceEntry[s + 1]`. */
    private readonly surfaceEntry: Int32Array,
    /** The surfaces that start with UTF-16 unit `u` are `byFirstUnit[u]` to `byFirstUnit[u + 1]`. */
    private readonly byFirstUnit: Int32Array,
    readonly stopWords: ReadonlySet<string>,
    readonly stopTags: ReadonlySet<string>,
  ) {}

  static read(bytes: Uint8Array): KuromojiDictionary {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const utf8 = new TextDecoder();
    let at = 0;
    const u8 = () => view.getUint8(at++);
    const u16 = () => {
      const v = view.getUint16(at, true);
      at += 2;
      return v;
    };
    const u32 = () => {
      const v = view.getUint32(at, true);
      at += 4;
      return v;
    };
    const take = (length: number) => {
      const slice = bytes.subarray(at, at + length);
      at += length;
      return slice;
    };
    const units = (count: number) => {
      const out = new Uint16Array(count);
      for (let i = 0; i < count; i++, at += 2) out[i] = view.getUint16(at, true);
      return out;
    };
    const string = () => utf8.decode(take(u16()));
    const strings = () => Array.from({ length: u32() }, string);

    if (new TextDecoder('ascii').decode(take(8)) !== 'IPADIC1\n') throw new Error('not an IPADIC file');
    const rows = u16();
    const columns = u16();
    const costs = new Int16Array(rows * columns);
    for (let row = 0, i = 0; row < rows; row++) {
      let cost = 0;
      for (let column = 0; column < columns; column++, i++, at += 2) {
        cost = ((cost + view.getInt16(at, true)) << 16) >> 16;
        costs[i] = cost;
      }
    }
    const classFlags = take(u8()).slice();
    const classOf = take(65536).slice();
    const punctuationBits = take(8192).slice();
    const partOfSpeechNames = strings();
    const entries = u32();
    const leftIds = new Uint16Array(entries);
    const wordCosts = new Int16Array(entries);
    const partsOfSpeech = new Uint16Array(entries);
    for (let e = 0; e < entries; e++, at += 6) {
      leftIds[e] = view.getUint16(at, true);
      wordCosts[e] = view.getInt16(at + 2, true);
      partsOfSpeech[e] = view.getUint16(at + 4, true);
    }
    const unknownFirst = new Uint32Array(classFlags.length);
    const unknownCount = new Uint16Array(classFlags.length);
    for (let c = 0; c < classFlags.length; c++) {
      unknownFirst[c] = u32();
      unknownCount[c] = u16();
    }
    // Base forms come in entry order: each entry's start is where the next base form would go.
    const baseFormStart = new Int32Array(entries + 1);
    let baseFormUnitCount = 0;
    let nextEntry = 0;
    for (let n = u32(), i = 0; i < n; i++) {
      const entry = u32();
      while (nextEntry <= entry) baseFormStart[nextEntry++] = baseFormUnitCount;
      baseFormUnitCount += u8();
    }
    while (nextEntry <= entries) baseFormStart[nextEntry++] = baseFormUnitCount;
    const baseFormUnits = units(baseFormUnitCount);

    const surfaceCount = u32();
    const shared = new Uint8Array(surfaceCount);
    const surfaceStart = new Int32Array(surfaceCount + 1);
    const surfaceEntry = new Int32Array(surfaceCount + 1);
    for (let s = 0; s < surfaceCount; s++) {
      shared[s] = u8();
      const suffix = u8();
      surfaceEntry[s + 1] = surfaceEntry[s]! + u8();
      surfaceStart[s + 1] = surfaceStart[s]! + shared[s]! + suffix;
    }
    // Undo the front coding: each surface is the previous one's first `shared` units, then its own.
    const surfaces = new Uint16Array(surfaceStart[surfaceCount]!);
    for (let s = 0, to = 0; s < surfaceCount; s++) {
      const previous = s === 0 ? 0 : surfaceStart[s - 1]!;
      surfaces.copyWithin(to, previous, previous + shared[s]!);
      to += shared[s]!;
      for (const end = surfaceStart[s + 1]!; to < end; to++, at += 2) surfaces[to] = view.getUint16(at, true);
    }
    const byFirstUnit = new Int32Array(65537);
    for (let s = 0; s < surfaceCount; s++) byFirstUnit[surfaces[surfaceStart[s]!]! + 1]!++;
    for (let u = 0; u < 65536; u++) byFirstUnit[u + 1]! += byFirstUnit[u]!;
    const stopWords = new Set(strings());
    const stopTags = new Set(strings());
    return new KuromojiDictionary(
      costs,
      columns,
      classOf,
      classFlags,
      punctuationBits,
      leftIds,
      wordCosts,
      partsOfSpeech,
      partOfSpeechNames,
      unknownFirst,
      unknownCount,
      baseFormStart,
      baseFormUnits,
      surfaces,
      surfaceStart,
      surfaceEntry,
      byFirstUnit,
      stopWords,
      stopTags,
    );
  }

  /** ConnectionCosts.get: the cost of a word with right id `right` followed by one with left id `left`. */
  cost(right: number, left: number): number {
    return this.costs[right * this.costColumns + left]!;
  }

  leftId(entry: number): number {
    return this.leftIds[entry]!;
  }

  wordCost(entry: number): number {
    return this.wordCosts[entry]!;
  }

  partOfSpeech(entry: number): string {
    return this.partOfSpeechNames[this.partsOfSpeech[entry]!]!;
  }

  /** The dictionary form of an inflected word (`落ち` → `落ちる`); undefined when it is the word itself. */
  baseForm(entry: number): string | undefined {
    const start = this.baseFormStart[entry]!;
    const end = this.baseFormStart[entry + 1]!;
    return start === end ? undefined : String.fromCharCode(...this.baseFormUnits.subarray(start, end));
  }

  characterClass(unit: number): number {
    return this.classOf[unit]!;
  }

  /** Whether unknown-word processing runs at this character even where a known word starts. */
  isInvoke(unit: number): boolean {
    return (this.classFlags[this.classOf[unit]!]! & CLASS_INVOKE) !== 0;
  }

  /** Whether an unknown word takes the whole run of characters of this one's class. */
  isGroup(unit: number): boolean {
    return (this.classFlags[this.classOf[unit]!]! & CLASS_GROUP) !== 0;
  }

  isKanji(unit: number): boolean {
    return (this.classFlags[this.classOf[unit]!]! & CLASS_KANJI) !== 0;
  }

  /** JapaneseTokenizer.isPunctuation, by Java's character types. */
  isPunctuation(unit: number): boolean {
    return (this.punctuationBits[unit >> 3]! & (1 << (unit & 7))) !== 0;
  }

  /** The unknown-word entries of a character class: `[first, end)`. */
  unknownEntries(characterClass: number): [number, number] {
    const first = this.unknownFirst[characterClass]!;
    return [first, first + this.unknownCount[characterClass]!];
  }

  /**
   * Every dictionary word that starts at `start`, shortest first, as the FST walk finds them:
   * `found(end, firstEntry, endEntry)` for each.
   */
  matches(text: string, start: number, found: (end: number, firstEntry: number, endEntry: number) => void): void {
    const first = text.charCodeAt(start);
    let low = this.byFirstUnit[first]!;
    let high = this.byFirstUnit[first + 1]!;
    if (low === high) return;
    if (this.surfaceLength(low) === 1) found(start + 1, this.surfaceEntry[low]!, this.surfaceEntry[low + 1]!);
    for (let depth = 1; start + depth < text.length; depth++) {
      const unit = text.charCodeAt(start + depth);
      // All of [low, high) share their first `depth` units; one that has no more sorts first.
      if (low < high && this.surfaceLength(low) === depth) low++;
      const from = this.firstAtOrAbove(low, high, depth, unit);
      const to = this.firstAtOrAbove(from, high, depth, unit + 1);
      if (from === to) return;
      low = from;
      high = to;
      if (this.surfaceLength(low) === depth + 1)
        found(start + depth + 1, this.surfaceEntry[low]!, this.surfaceEntry[low + 1]!);
    }
  }

  private surfaceLength(surface: number): number {
    return this.surfaceStart[surface + 1]! - this.surfaceStart[surface]!;
  }

  /** The first surface in [low, high) whose unit at `depth` is `unit` or more (each is longer than `depth`). */
  private firstAtOrAbove(low: number, high: number, depth: number, unit: number): number {
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.surfaces[this.surfaceStart[middle]! + depth]! < unit) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

export const readKuromojiDictionary = (): KuromojiDictionary =>
  KuromojiDictionary.read(dictionaryBytes('japanese-ipadic.bin.gz'));

/**
 * A search index's inverted postings, packed in memory: per field and term, the documents
 * (small integers, ascending), each with where its positions end in one flat array of positions;
 * per field, each document's norm byte apart. Queries read them without a tree walk, a parse or
 * a string per posting (./query-eval.ts).
 *
 * They are made of the documents' rows (./search-rows.ts, the only thing stored per document)
 * the first time they are needed, and kept in step with those rows by the documents' tree
 * (./search-docs-tree.ts): a changed document's old number is marked dead and its new postings
 * go under a new number (documents keep ascending in every list), a removed one is marked dead.
 * A document put after the load waits in a delta, uninverted, until a query reads one of its
 * terms or the delta is merged (`deferring`). Dead entries are dropped from a term's lists when
 * they are a quarter of them, and all of it is made again from the rows once more documents are
 * dead than alive.
 *
 * Document numbers are given in id order when made from the rows (an index's tree is in id
 * order): two of those compare as numbers; a number given later compares by id (Lucene's order
 * among equal scores is the documents' order in the index, here the ids' UTF-8 order).
 */
import { compareUtf8 } from '../collation/index.js';
import { lengthByte } from './bm25.js';
import { DocRanks } from './doc-ranks.js';
import { type FieldPostings, postingsLength, readFieldPostings, readTermAt } from './postings-codec.js';
import type { DocValue } from './search-rows.js';

/**
 * One term's postings in one field, in typed arrays (grown by doubling) read through views of
 * their filled part: a hundred thousand documents of ~1 KB text hold some 35 million numbers,
 * which as JS arrays were ~650 MB of heap the collector went over again and again (a 1% update
 * spent more of its time in scavenges than in putting the postings).
 */
export class TermPostings {
  private docsBuffer = new Int32Array(2);
  private endsBuffer = new Int32Array(2);
  private positionsBuffer = new Int32Array(2);
  private count = 0;
  private positionCount = 0;
  private docsView: Int32Array | undefined;
  private endsView: Int32Array | undefined;
  private positionsView: Int32Array | undefined;
  /** Live documents among `docs`, as of `epoch` (the postings' removal count then). */
  private liveCount = 0;
  private epoch = -1;
  private blockImpacts: BlockImpacts | undefined;

  /** Document numbers, ascending (a view: valid until the next add or compaction). */
  get docs(): Int32Array {
    return (this.docsView ??= this.docsBuffer.subarray(0, this.count));
  }

  /** Per document, where its positions end in `positions` (they start where the previous end). */
  get ends(): Int32Array {
    return (this.endsView ??= this.endsBuffer.subarray(0, this.count));
  }

  get positions(): Int32Array {
    return (this.positionsView ??= this.positionsBuffer.subarray(0, this.positionCount));
  }

  /** Live documents (counted again, and dead entries dropped when many, after removals). */
  live(postings: Postings): number {
    if (this.epoch === postings.epoch) return this.liveCount;
    const alive = postings.liveness;
    const { docsBuffer, count } = this;
    let live = 0;
    for (let i = 0; i < count; i++) if (alive[docsBuffer[i]!] === 1) live++;
    this.epoch = postings.epoch;
    this.liveCount = live;
    if ((count - live) * 4 > count) this.compact(postings);
    return live;
  }

  /**
   * Per block of BLOCK postings, the (frequency, norm byte) pairs no other posting of the block
   * beats on both (a higher norm byte is worth more: `norms` are Lucene 4's bytes, or stored
   * so; with `lowerIsBetter`, BM25's length bytes, a lower byte is worth more): a query's best
   * score in a block is its score of one of them (./query-top.ts). Dead entries are kept in (a
   * bound stays a bound); made again from the first block that changed.
   */
  impacts(norms: Uint8Array, lowerIsBetter = false): BlockImpacts {
    let impacts = this.blockImpacts;
    if (impacts === undefined || impacts.norms !== norms || impacts.lowerIsBetter !== lowerIsBetter) {
      impacts = this.blockImpacts = { norms, lowerIsBetter, covered: 0, ends: [], freqs: [], bytes: [] };
    }
    const flip = lowerIsBetter ? 255 : 0;
    if (impacts.covered === this.docs.length) return impacts;
    // A last block that was not full is made again with the postings appended since.
    let block = Math.floor(impacts.covered / BLOCK);
    impacts.ends.length = block;
    const kept = block === 0 ? 0 : impacts.ends[block - 1]!;
    impacts.freqs.length = kept;
    impacts.bytes.length = kept;
    const { docs, ends } = this;
    // Per block, each norm byte's highest frequency, then those bytes best first: a pair stays
    // when its frequency beats every better byte's. A block's documents share few norm bytes
    // (~1 KB texts: two or three), so this is a pass over the block, where sorting its 128
    // (frequency, byte) pairs was most of a term query's CPU the first time a term was asked.
    const highest = BYTE_FREQS;
    const bytes: number[] = [];
    for (let from = block * BLOCK; from < docs.length; from += BLOCK, block++) {
      const to = Math.min(from + BLOCK, docs.length);
      bytes.length = 0;
      for (let i = from; i < to; i++) {
        // One more than the frequency: 0 is a byte not seen in this block.
        const count = ends[i]! - (i === 0 ? 0 : ends[i - 1]!) + 1;
        const byte = flip ^ norms[docs[i]!]!;
        const seen = highest[byte]!;
        if (seen === 0) {
          // Kept in descending order (few bytes: an insertion).
          let at = bytes.length;
          bytes.push(byte);
          while (at > 0 && bytes[at - 1]! < byte) {
            bytes[at] = bytes[at - 1]!;
            at--;
          }
          bytes[at] = byte;
        }
        if (count > seen) highest[byte] = count;
      }
      let best = 0;
      for (const byte of bytes) {
        const count = highest[byte]!;
        highest[byte] = 0;
        if (count <= best) continue;
        best = count;
        impacts.freqs.push(count - 1);
        impacts.bytes.push(flip ^ byte);
      }
      impacts.ends.push(impacts.freqs.length);
    }
    impacts.covered = docs.length;
    return impacts;
  }

  /** The delta's entries before this one are in these postings (./postings.ts `FieldIndex.pending`). */
  movedUpTo = 0;

  /** A document's postings, after every document added before: `positions[from..to)` in it. */
  add(doc: number, positions: ArrayLike<number>, from: number, to: number): void {
    const count = this.count;
    if (count === this.docsBuffer.length) {
      this.docsBuffer = grownTo(this.docsBuffer, count + 1);
      this.endsBuffer = grownTo(this.endsBuffer, count + 1);
    }
    let at = this.positionCount;
    const end = at + to - from;
    if (end > this.positionsBuffer.length) this.positionsBuffer = grownTo(this.positionsBuffer, end);
    const buffer = this.positionsBuffer;
    for (let i = from; i < to; i++) buffer[at++] = positions[i]!;
    this.docsBuffer[count] = doc;
    this.endsBuffer[count] = end;
    this.count = count + 1;
    this.positionCount = end;
    this.docsView = this.endsView = this.positionsView = undefined;
    if (this.epoch >= 0) this.liveCount++;
  }

  private compact(postings: Postings): void {
    const alive = postings.liveness;
    const { docsBuffer: docs, endsBuffer: ends, positionsBuffer: positions } = this;
    let kept = 0;
    let write = 0;
    let start = 0;
    for (let i = 0; i < this.count; i++) {
      const end = ends[i]!;
      const doc = docs[i]!;
      if (alive[doc] === 1) {
        positions.copyWithin(write, start, end);
        write += end - start;
        docs[kept] = doc;
        ends[kept] = write;
        kept++;
      }
      start = end;
    }
    this.count = kept;
    this.positionCount = write;
    this.docsView = this.endsView = this.positionsView = undefined;
    this.blockImpacts = undefined;
  }
}

/** A copy of `numbers` with room for `size` of them (at least doubled). */
function grownTo(numbers: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(size, numbers.length * 2));
  out.set(numbers);
  return out;
}

/** Postings per block of the top-k scoring (./query-top.ts). */
export const BLOCK = 128;

/** Scratch of `impacts`: per norm byte, one more than its highest frequency in a block (0 after each block). */
const BYTE_FREQS = new Int32Array(256);

/** A term's best (frequency, norm byte) pairs per block of its postings, as of `covered` postings. */
export interface BlockImpacts {
  norms: Uint8Array;
  lowerIsBetter: boolean;
  covered: number;
  /** Per block, where its pairs end in `freqs` and `bytes`. */
  ends: number[];
  freqs: number[];
  bytes: number[];
}

/** One field: its terms, their order (made when asked for), the documents' norm bytes and lengths. */
class FieldIndex {
  readonly terms = new Map<string, TermPostings>();
  /** The terms in UTF-8 order; undefined until asked for, or after a new term. */
  sorted: string[] | undefined;
  norms: Uint8Array<ArrayBuffer> = new Uint8Array(64);
  /** Per document, its number of terms in the field (0: none), and Lucene 9's norm byte of it (./bm25.ts). */
  lengths: Int32Array<ArrayBuffer> = new Int32Array(64);
  lengthBytes: Uint8Array<ArrayBuffer> = new Uint8Array(64);
  /** The live documents with the field and their lengths summed, as of `statsAt`. */
  stats: FieldStats | undefined;
  statsAt = -1;
  /**
   * The delta: documents put since the load with this field, in the order put, each with its
   * row's postings as they are (not inverted). Entry `pendingBase + i` is `pending[i]`; entries
   * before `mergedUpTo` are in `terms` (./postings.ts `mergeSome`), and a term's own from
   * entry `TermPostings.movedUpTo` on are not.
   */
  pending: PendingDoc[] = [];
  pendingBase = 0;
  mergedUpTo = 0;
}

/** A document of the delta: its number, its row's postings of one field (./postings-codec.ts's second form). */
interface PendingDoc {
  doc: number;
  terms: string | string[];
  list: FieldPostings;
}

/** Lucene's CollectionStatistics of a field: documents with a term in it, and their terms summed. */
export interface FieldStats {
  docCount: number;
  sumTotalTermFreq: number;
}

export class Postings {
  /** Removals so far: a term's live count made before the last one is counted again. */
  epoch = 0;
  private readonly ids: string[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byId = new Map<string, number>();
  private alives: Uint8Array<ArrayBuffer> = new Uint8Array(64);
  private liveDocs = 0;
  /** Numbers below this one were given in id order. */
  private inOrder = 0;
  /** Each document's place in index order, for a page's rows. */
  private readonly ranks = new DocRanks();
  private readonly fields = new Map<string, FieldIndex>();
  /** Per document of a small row, its stored fields, sort and facet values (a page reads them). */
  private readonly values: (DocValue | undefined)[] = [];
  /**
   * After the load, a put's postings are not inverted: its fields' rows go to their `pending`
   * (a delta beside the main postings). Inverting them was most of a 1% update's work in memory
   * (each of a document's ~100 terms appended to its big arrays: a few cache misses each),
   * where a query asks for a few terms. Queries see no difference: every read of a term's
   * postings (`term`, `docFreq`, `sortedTerms`) first moves in the term's postings of the
   * delta's documents, in the order they were put; the delta is merged in whole when it grows
   * past a fraction of the main postings (`mergeDue`, `mergeSome`).
   */
  private deferring = false;
  /** (document, field) entries in the deltas, and in the main postings (dead ones included). */
  private pendingEntries = 0;
  private mainEntries = 0;

  /** The documents put so far were a documents' tree's rows in id order (later ones are pending: see `deferring`). */
  loaded(): void {
    this.inOrder = this.ids.length;
    this.ranks.loaded();
    this.deferring = true;
  }

  /** Whether the delta is big enough to be merged into the main postings (`mergeSome`). */
  get mergeDue(): boolean {
    return this.pendingEntries > Math.max(MERGE_MIN, this.mainEntries * MERGE_PAST);
  }

  /**
   * Merges the delta's documents into the main postings, in the order put, until `deadline`
   * (performance.now()), then says whether any are left. Answers do not change: a merge only
   * inverts earlier what a query would.
   */
  mergeSome(deadline = Number.POSITIVE_INFINITY): boolean {
    for (const index of this.fields.values()) {
      const { pending } = index;
      while (index.mergedUpTo - index.pendingBase < pending.length) {
        const at = index.mergedUpTo;
        const entry = pending[at - index.pendingBase]!;
        if (this.alives[entry.doc] === 1) {
          readFieldPostings(entry.list, (term, positions, frequency) => {
            let postings = index.terms.get(term);
            if (postings === undefined) {
              index.terms.set(term, (postings = new TermPostings()));
              index.sorted = undefined;
            }
            // A term asked for since has this document already.
            if (postings.movedUpTo <= at) postings.add(entry.doc, positions, 0, frequency);
          });
        }
        index.mergedUpTo = at + 1;
        this.pendingEntries--;
        this.mainEntries++;
        if ((at & 63) === 63 && performance.now() > deadline) return true;
      }
      index.pendingBase = index.mergedUpTo;
      index.pending = [];
    }
    return false;
  }

  /** A term's postings of the delta's documents (those not yet merged) moved into its main ones. */
  private movePending(index: FieldIndex, term: string, postings: TermPostings | undefined): TermPostings | undefined {
    const end = index.pendingBase + index.pending.length;
    let at = Math.max(index.mergedUpTo, postings?.movedUpTo ?? 0);
    for (; at < end; at++) {
      const entry = index.pending[at - index.pendingBase]!;
      // Dead documents are left out (their entries would be skipped by every query).
      if (this.alives[entry.doc] !== 1) continue;
      const nth = termIndex(entry.terms, term);
      if (nth < 0) continue;
      readTermAt(entry.list[2] as string, nth, (positions, frequency) => {
        if (postings === undefined) {
          index.terms.set(term, (postings = new TermPostings()));
          index.sorted = undefined;
        }
        postings.add(entry.doc, positions, 0, frequency);
      });
    }
    if (postings !== undefined) postings.movedUpTo = end;
    return postings;
  }

  /** Whether more documents are dead than alive (then it is cheaper made again). */
  get wasteful(): boolean {
    return this.ids.length - this.liveDocs > Math.max(1024, this.liveDocs);
  }

  /** Live documents (one per row of the documents' tree). */
  get liveCount(): number {
    return this.liveDocs;
  }

  /** Numbers given so far (dead ones included): every document number is below. */
  get size(): number {
    return this.ids.length;
  }

  alive(doc: number): boolean {
    return this.alives[doc] === 1;
  }

  /** Per document number, 1 when it is alive (for loops over many postings; valid until the next update). */
  get liveness(): Uint8Array {
    return this.alives;
  }

  idOf(doc: number): string {
    return this.ids[doc]!;
  }

  docOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** Every live document, ascending. */
  allDocs(): number[] {
    const out: number[] = [];
    for (let doc = 0; doc < this.ids.length; doc++) if (this.alives[doc] === 1) out.push(doc);
    return out;
  }

  /** Whether every document numbered `first` to `last` comes after `doc` in index order (numbers given in id order). */
  allAfter(first: number, last: number, doc: number): boolean {
    return last < this.inOrder && doc < this.inOrder && first > doc;
  }

  /** Index order (the ids' UTF-8 order) of two documents. */
  compare(a: number, b: number): number {
    if (a < this.inOrder && b < this.inOrder) return a - b;
    return compareUtf8(this.ids[a]!, this.ids[b]!);
  }

  term(field: string, term: string): TermPostings | undefined {
    const index = this.fields.get(field);
    if (index === undefined) return undefined;
    const postings = index.terms.get(term);
    if (index.pending.length === 0 || (postings?.movedUpTo ?? 0) === index.pendingBase + index.pending.length) {
      return postings;
    }
    return this.movePending(index, term, postings);
  }

  docFreq(field: string, term: string): number {
    return this.term(field, term)?.live(this) ?? 0;
  }

  /** A field's norm byte per document. */
  norms(field: string): Uint8Array {
    return this.fields.get(field)?.norms ?? EMPTY_NORMS;
  }

  /** A field's BM25 norm byte per document (./bm25.ts). */
  lengthBytes(field: string): Uint8Array {
    return this.fields.get(field)?.lengthBytes ?? EMPTY_NORMS;
  }

  /** A field's statistics over the live documents (counted again after a change). */
  fieldStats(field: string): FieldStats {
    const index = this.fields.get(field);
    if (index === undefined) return { docCount: 0, sumTotalTermFreq: 0 };
    const at = this.epoch * 2 ** 26 + this.ids.length;
    if (index.stats !== undefined && index.statsAt === at) return index.stats;
    let docCount = 0;
    let sumTotalTermFreq = 0;
    const { lengths } = index;
    const end = Math.min(lengths.length, this.ids.length);
    for (let doc = 0; doc < end; doc++) {
      const length = lengths[doc]!;
      if (length > 0 && this.alives[doc] === 1) {
        docCount++;
        sumTotalTermFreq += length;
      }
    }
    index.stats = { docCount, sumTotalTermFreq };
    index.statsAt = at;
    return index.stats;
  }

  /** A field's terms in UTF-8 order (those without a live document included). */
  sortedTerms(field: string): readonly string[] {
    const index = this.fields.get(field);
    if (index === undefined) return [];
    // A term only the delta has is in no list yet: the delta is merged first (wildcards, ranges and fuzzy terms).
    if (index.pending.length > 0) this.mergeSome();
    index.sorted ??= [...index.terms.keys()].sort(compareUtf8);
    return index.sorted;
  }

  /** A document's stored fields, sort and facet values, when its row is small (else undefined: read the row). */
  valueOf(doc: number): DocValue | undefined {
    return this.values[doc];
  }

  /** A live document's place in the index (Lucene's document number: live documents with a lower id). */
  rankOf(doc: number): number {
    // Nothing changed since the load: its number.
    if (this.inOrder === this.ids.length && this.liveDocs === this.ids.length) return doc;
    return this.ranks.rankOf(doc, this.alives);
  }

  /**
   * A document's row was written (`key` its row key, `json` its value, `parsed` that JSON's value
   * when the caller has it): its postings replace any before.
   */
  put(key: Buffer, id: string, json: string, parsed?: DocValue): void {
    const name = key.toString('latin1');
    this.remove(name);
    const doc = this.ids.length;
    this.ids.push(id);
    this.ranks.added(name);
    this.byKey.set(name, doc);
    this.byId.set(id, doc);
    if (doc >= this.alives.length) this.alives = grown(this.alives, doc);
    this.alives[doc] = 1;
    this.liveDocs++;
    const { p: fields, ...value } = parsed ?? (JSON.parse(json) as DocValue);
    // The row's size counts its postings, which are not kept here: a row of a ~1 KB text is
    // past SMALL_ROW by its postings alone, and reading it back per hit of a page was a quarter
    // of a term query's CPU (bench, ~1 KB English docs).
    this.values[doc] = json.length <= SMALL_ROW || JSON.stringify(value).length <= SMALL_ROW ? value : undefined;
    if (fields === undefined) return;
    for (const field in fields) {
      const list = fields[field]!;
      let index = this.fields.get(field);
      if (index === undefined) this.fields.set(field, (index = new FieldIndex()));
      if (doc >= index.norms.length) {
        index.norms = grown(index.norms, doc);
        index.lengthBytes = grown(index.lengthBytes, doc);
        const lengths = new Int32Array(index.norms.length);
        lengths.set(index.lengths);
        index.lengths = lengths;
      }
      index.norms[doc] = list[0] as number;
      let length = 0;
      const terms = list[1];
      if (this.deferring && list.length === 3 && typeof list[2] === 'string' && terms !== undefined) {
        length = postingsLength(terms as string | string[], list[2]);
        index.pending.push({ doc, terms: terms as string | string[], list });
        this.pendingEntries++;
      } else {
        // The first form's rows are inverted at once, after the delta (documents ascend in every list).
        if (this.deferring) this.mergeSome();
        this.mainEntries++;
        readFieldPostings(list, (term, positions, frequency) => {
          length += frequency;
          let postings = index!.terms.get(term);
          if (postings === undefined) {
            index!.terms.set(term, (postings = new TermPostings()));
            index!.sorted = undefined;
          }
          postings.add(doc, positions, 0, frequency);
        });
      }
      index.lengths[doc] = length;
      // A field without norms (value.k) reads as one term long.
      index.lengthBytes[doc] = value.k?.includes(field) ? 1 : lengthByte(length);
    }
  }

  /** A document's row was removed (by its row key, latin1). */
  remove(name: string): void {
    const doc = this.byKey.get(name);
    if (doc === undefined) return;
    this.byKey.delete(name);
    this.byId.delete(this.ids[doc]!);
    // A dead document's values are read no more (pages and facets read live documents'): not kept.
    this.values[doc] = undefined;
    this.alives[doc] = 0;
    this.ranks.removed(doc);
    this.liveDocs--;
    this.epoch++;
  }
}

const EMPTY_NORMS = new Uint8Array(0);

/**
 * The delta is merged in when it is past this fraction of the main postings (a term's first
 * query after an update reads each delta document that has it: ~7 µs each for a common term)...
 */
const MERGE_PAST = 0.05;
/** ...and past this many entries whatever their size. */
const MERGE_MIN = 2_000;

/** Where `term` is among a row's terms (./postings-codec.ts: joined by spaces, or an array); -1 when not there. */
function termIndex(terms: string | string[], term: string): number {
  if (typeof terms !== 'string') return terms.indexOf(term);
  // Joined terms have no empty term and none with a space.
  if (term === '' || term.includes(' ')) return -1;
  for (let at = terms.indexOf(term); at >= 0; at = terms.indexOf(term, at + 1)) {
    const end = at + term.length;
    if ((at === 0 || terms.charCodeAt(at - 1) === 32) && (end === terms.length || terms.charCodeAt(end) === 32)) {
      let index = 0;
      for (let space = terms.indexOf(' '); space >= 0 && space < at; space = terms.indexOf(' ', space + 1)) index++;
      return index;
    }
  }
  return -1;
}

/** Rows whose values (all but the postings) take at most this many characters keep them in memory. */
const SMALL_ROW = 1024;

/** A copy of `bytes` with room for index `at` (doubling). */
function grown(bytes: Uint8Array, at: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(Math.max(at + 1, bytes.length * 2));
  out.set(bytes);
  return out;
}

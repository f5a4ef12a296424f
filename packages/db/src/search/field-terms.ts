/**
 * One field of one document as the mapper (./search-mapper.ts) collects it: its terms' ids
 * (./term-dictionary.ts) and positions in the order analyzed, then grouped by term in the order
 * the terms first occur, which is how its row keeps them (./postings-codec.ts). Flat typed
 * arrays and scratch reused from one document to the next, where a Map of a number array per
 * term made garbage for every document.
 */
import { compareUtf8 } from '../collation/index.js';
import type { TermSink } from './ascii-standard-terms.js';
import type { TermDictionary } from './term-dictionary.js';

export class FieldTerms implements TermSink {
  ids = new Int32Array(256);
  positions = new Int32Array(256);
  /** Terms added (the field's length). */
  count = 0;
  /** Where the field's next value starts (positions continue from one value to the next)... */
  next = 0;
  /** ...and where the value being added started: `add`'s positions are from there. */
  base = 0;
  boost = 1;
  /** Whether every value was Nouveau's `string` (no norms, a term once). */
  keyword = true;

  /** Empty again, for another document's field (the arrays kept). */
  reset(): void {
    this.count = 0;
    this.next = 0;
    this.base = 0;
    this.boost = 1;
    this.keyword = true;
    this.seen = undefined;
    this.seenUpTo = 0;
  }

  /** Term `id` at `position` of the value being added. */
  add(id: number, position: number): void {
    if (this.count === this.ids.length) {
      this.ids = doubled(this.ids);
      this.positions = doubled(this.positions);
    }
    const at = this.base + position;
    this.ids[this.count] = id;
    this.positions[this.count] = at;
    this.count++;
    this.next = at + 1;
  }

  /** Whether the field has term `id` already (Nouveau's `string` fields: a scan while they are few). */
  has(id: number): boolean {
    if (this.count <= 16) {
      for (let i = 0; i < this.count; i++) if (this.ids[i] === id) return true;
      return false;
    }
    const seen = (this.seen ??= new Set());
    for (; this.seenUpTo < this.count; this.seenUpTo++) seen.add(this.ids[this.seenUpTo]!);
    return seen.has(id);
  }

  /** `has`'s set of the ids up to `seenUpTo`, once the field has many. */
  private seen: Set<number> | undefined;
  private seenUpTo = 0;
}

/**
 * A field's terms grouped: `terms[0..count)` in first-occurrence order (entries past `count` are
 * left from earlier calls), their frequencies, positions by term.
 */
export interface GroupedTerms {
  terms: string[];
  count: number;
  frequencies: Int32Array;
  positions: Int32Array;
  /** The largest term in UTF-8 order (a string sort's value), undefined when none. */
  largest: string | undefined;
}

/** Groups fields' terms, its scratch kept between calls (valid until the next call). */
export class TermGrouper {
  /** Per term id: the call that gave it a slot, and its slot. */
  private stamps = new Int32Array(1024);
  private slots = new Int32Array(1024);
  private stamp = 0;
  private readonly out: GroupedTerms = {
    terms: [],
    count: 0,
    frequencies: new Int32Array(256),
    positions: new Int32Array(256),
    largest: undefined,
  };
  private starts = new Int32Array(256);

  group(field: FieldTerms, dictionary: TermDictionary): GroupedTerms {
    const size = dictionary.terms.length;
    if (size > this.stamps.length) {
      const length = Math.max(size, this.stamps.length * 2);
      const stamps = new Int32Array(length);
      stamps.set(this.stamps);
      this.stamps = stamps;
      this.slots = new Int32Array(length);
    }
    // Stamps tell this call's slots from earlier calls' (started again before they wrap).
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const { stamps, slots, out } = this;
    const { ids, count } = field;
    if (out.frequencies.length < count) {
      out.frequencies = new Int32Array(count * 2);
      this.starts = new Int32Array(count * 2);
    }
    if (out.positions.length < count) out.positions = new Int32Array(count * 2);
    const { frequencies, positions } = out;
    const starts = this.starts;
    // Written over, not emptied: an array emptied gives up its backing store, and its pushes
    // then grew it again for every field (a sixth of a 1% update's allocations).
    const terms = out.terms;
    let largest: string | undefined;
    let slotCount = 0;
    for (let i = 0; i < count; i++) {
      const id = ids[i]!;
      if (stamps[id] !== stamp) {
        stamps[id] = stamp;
        slots[id] = slotCount;
        frequencies[slotCount] = 0;
        const term = dictionary.terms[id]!;
        terms[slotCount] = term;
        if (largest === undefined || isLarger(term, largest)) largest = term;
        slotCount++;
      }
      frequencies[slots[id]!]!++;
    }
    // Positions by term: each term's run starts after the runs of the terms before it.
    let at = 0;
    for (let slot = 0; slot < slotCount; slot++) {
      starts[slot] = at;
      at += frequencies[slot]!;
    }
    const given = field.positions;
    for (let i = 0; i < count; i++) positions[starts[slots[ids[i]!]!]!++] = given[i]!;
    out.count = slotCount;
    out.largest = largest;
    return out;
  }
}

/** compareUtf8(term, than) > 0, told by the first code units when they differ below the surrogates (most terms). */
function isLarger(term: string, than: string): boolean {
  const a = term.charCodeAt(0);
  const b = than.charCodeAt(0);
  if (a !== b && a < 0xd800 && b < 0xd800) return a > b;
  return compareUtf8(term, than) > 0;
}

function doubled(numbers: Int32Array): Int32Array<ArrayBuffer> {
  const out = new Int32Array(numbers.length * 2);
  out.set(numbers);
  return out;
}

/**
 * A set of strings that lists its elements in the order Erlang/OTP 25's `sets` module does (the
 * default, version 1: Larson's dynamic hashing over `erlang:phash/2`). CouchDB 3.5 builds
 * `_explain`'s `selector_hints` from such sets (mango_cursor:extract_selector_hints), so their
 * fields come out in this order: by hash slot, and within a slot by how the set was built.
 * Strings stand for Erlang binaries of their UTF-8 bytes.
 */

const SEGMENT_SIZE = 16;
const EXPAND_LOAD = 5;
const CONTRACT_LOAD = 3;
// Primes just above 2^28 that erts' make_hash uses for binaries.
const FUNNY_NUMBER1 = 268440163;
const FUNNY_NUMBER4 = 268436141;

/** `erlang:phash(Binary, Range)`: 1..range. */
export function erlangPhash(value: string, range: number): number {
  const bytes = Buffer.from(value, 'utf8');
  let hash = 0;
  for (const byte of bytes) hash = (Math.imul(hash, FUNNY_NUMBER1) + byte) >>> 0;
  hash = (Math.imul(hash, FUNNY_NUMBER4) + bytes.length) >>> 0;
  return 1 + (hash % range);
}

export class ErlangSet {
  private size = 0;
  /** Active slots, the most slots before the table doubles, the buddy slot offset. */
  private n = SEGMENT_SIZE;
  private maxn = SEGMENT_SIZE;
  private bso = SEGMENT_SIZE / 2;
  private expandAt = SEGMENT_SIZE * EXPAND_LOAD;
  private contractAt = SEGMENT_SIZE * CONTRACT_LOAD;
  /** Slot i + 1's bucket, newest element first (as `[E | Bkt]`). */
  private buckets: string[][] = Array.from({ length: SEGMENT_SIZE }, () => []);

  /** `sets:from_list/1`: the elements added in list order. */
  static from(values: Iterable<string>): ErlangSet {
    const set = new ErlangSet();
    for (const value of values) set.add(value);
    return set;
  }

  has(value: string): boolean {
    return this.bucketOf(value).includes(value);
  }

  /** `sets:add_element/2`. */
  add(value: string): void {
    const slot = this.slotOf(value);
    const bucket = this.buckets[slot - 1]!;
    if (bucket.includes(value)) return;
    this.buckets[slot - 1] = [value, ...bucket];
    this.maybeExpand();
  }

  /** `sets:subtract(This, Other)`: a filter, which reverses each bucket it keeps. */
  subtract(other: ErlangSet): ErlangSet {
    const result = new ErlangSet();
    Object.assign(result, this);
    let removed = 0;
    result.buckets = this.buckets.map((bucket) => {
      const kept: string[] = [];
      for (const value of bucket) {
        if (other.has(value)) removed++;
        else kept.unshift(value);
      }
      return kept;
    });
    result.maybeContract(removed);
    return result;
  }

  /** `sets:to_list/1`: a fold from the last slot to the first, each bucket from its head, consing. */
  toList(): string[] {
    const out: string[] = [];
    for (const bucket of this.buckets) for (let i = bucket.length - 1; i >= 0; i--) out.push(bucket[i]!);
    return out;
  }

  private slotOf(value: string): number {
    const hash = erlangPhash(value, this.maxn);
    return hash > this.n ? hash - this.bso : hash;
  }

  private bucketOf(value: string): string[] {
    return this.buckets[this.slotOf(value) - 1]!;
  }

  private maybeExpand(): void {
    if (this.size + 1 <= this.expandAt) {
      this.size++;
      return;
    }
    if (this.n === this.maxn) {
      this.maxn *= 2;
      this.bso *= 2;
      while (this.buckets.length < this.maxn) this.buckets.push([]);
    }
    const next = this.n + 1;
    const buddy = next - this.bso;
    // rehash/4 keeps each element's relative order.
    const old = this.buckets[buddy - 1]!;
    this.buckets[buddy - 1] = old.filter((value) => erlangPhash(value, this.maxn) === buddy);
    this.buckets[next - 1] = old.filter((value) => erlangPhash(value, this.maxn) === next);
    this.size++;
    this.n = next;
    this.expandAt = next * EXPAND_LOAD;
    this.contractAt = next * CONTRACT_LOAD;
  }

  /** maybe_contract/2: at most one slot folded back per call, as sets does after a filter. */
  private maybeContract(removed: number): void {
    if (!(this.size - removed < this.contractAt && this.n > SEGMENT_SIZE)) {
      this.size -= removed;
      return;
    }
    const last = this.n;
    const buddy = last - this.bso;
    this.buckets[buddy - 1] = [...this.buckets[buddy - 1]!, ...this.buckets[last - 1]!];
    this.buckets[last - 1] = [];
    this.size -= removed;
    this.n = last - 1;
    this.expandAt = this.n * EXPAND_LOAD;
    this.contractAt = this.n * CONTRACT_LOAD;
    if (this.n === this.bso) {
      this.maxn /= 2;
      this.bso /= 2;
      this.buckets.length = this.maxn;
    }
  }
}

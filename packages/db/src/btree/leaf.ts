/**
 * A B+tree leaf kept as its encoded bytes (the encoding is in ./node.ts) plus where each key
 * starts and ends. Decoding a leaf read from the store is one scan over its length prefixes, with no
 * object per entry: a cold leaf decodes many times faster than as key/value views, and a cached
 * one costs about its encoded size (docs/benchmarks.md). Keys are compared in place; entry
 * objects are made only for the rows a read hands out or a reducer reads.
 *
 * An update rewrites a leaf as a list of items (LeafItems below): items of old leaves are
 * copied as byte runs, new ones encoded, in one pass that also records the new item starts.
 */
import { tryVarint, writeVarint } from '../support/varint.js';
import { LEAF, NODE_HEADER_BYTES, entryBytes, keysEqual, varintBytes, type Entry } from './node.js';

/** The position after the varint at `pos` (its value is not needed, only where it ends). */
function skipVarint(bytes: Uint8Array, pos: number): number {
  while (bytes[pos++]! >= 0x80);
  return pos;
}

/** The varint at `pos` and the position after it; throws if the node ends first. */
function readVarint(bytes: Buffer, pos: number): [value: number, next: number] {
  const at = { i: pos };
  const n = tryVarint(bytes, at);
  if (n < 0) throw new Error('B-tree node truncated');
  return [n, at.i];
}

export class LeafNode<V> {
  readonly leaf = true as const;

  /**
   * `bytes`: the encoded leaf. `marks`: per item, where its key starts (after its length
   * prefix) and ends (where the value's length prefix starts), then one more number, the end of
   * the last item.
   */
  constructor(
    readonly bytes: Buffer,
    private readonly marks: readonly number[],
    private readonly decode: (raw: Buffer) => V,
  ) {}

  /** Reads an encoded leaf (kind byte, count, items), checking that every item fits. */
  static decode<V>(bytes: Buffer, decode: (raw: Buffer) => V): LeafNode<V> {
    const end = bytes.length;
    if (bytes[0] !== LEAF) throw new Error(`B-tree node of kind ${bytes[0]} is not a leaf`);
    const [n, first] = readVarint(bytes, 1);
    const marks: number[] = new Array(2 * n + 1);
    let pos = first;
    for (let i = 0; i < n; i++) {
      let len = bytes[pos]!;
      if (len < 0x80) pos += 1;
      else [len, pos] = readVarint(bytes, pos);
      marks[2 * i] = pos;
      pos += len;
      marks[2 * i + 1] = pos;
      len = bytes[pos]!;
      if (len < 0x80) pos += 1 + len;
      else {
        [len, pos] = readVarint(bytes, pos);
        pos += len;
      }
      if (pos > end) throw new Error('B-tree node truncated');
    }
    marks[2 * n] = pos;
    return new LeafNode(bytes, marks, decode);
  }

  /** Number of entries. */
  get length(): number {
    return (this.marks.length - 1) >> 1;
  }

  /** Where item i starts in `bytes` (item `length` = the end of the items). */
  itemStart(i: number): number {
    const marks = this.marks;
    if (2 * i === marks.length - 1) return marks[2 * i]!;
    return marks[2 * i]! - varintBytes(marks[2 * i + 1]! - marks[2 * i]!);
  }

  /** Where item i's key starts (after its length prefix). */
  keyStart(i: number): number {
    return this.marks[2 * i]!;
  }

  /** Where item i's key ends (its value's length prefix starts). */
  keyEnd(i: number): number {
    return this.marks[2 * i + 1]!;
  }

  /** Encoded bytes of item i. */
  itemBytes(i: number): number {
    return this.itemStart(i + 1) - this.itemStart(i);
  }

  keyAt(i: number): Buffer {
    return this.bytes.subarray(this.marks[2 * i], this.marks[2 * i + 1]);
  }

  rawAt(i: number): Buffer {
    return this.bytes.subarray(skipVarint(this.bytes, this.marks[2 * i + 1]!), this.itemStart(i + 1));
  }

  valueAt(i: number): V {
    return this.decode(this.rawAt(i));
  }

  /** memcmp order of key i and `key`, without making a view of key i. */
  compareKeyAt(i: number, key: Uint8Array): number {
    const bytes = this.bytes;
    const start = this.marks[2 * i]!;
    const al = this.marks[2 * i + 1]! - start;
    const bl = key.length;
    // Computed first, as in ./node.ts compareKeys: feedback for equal keys before any are seen.
    const byLength = al - bl;
    const n = byLength < 0 ? al : bl;
    for (let k = 0; k < n; k++) {
      const d = bytes[start + k]! - key[k]!;
      if (d !== 0) return d;
    }
    return byLength;
  }

  /** `mismatch` of key i and `key` from `from` (./node.ts), without making a view of key i. */
  mismatchAt(i: number, key: Uint8Array, from: number): number {
    const bytes = this.bytes;
    const start = this.marks[2 * i]!;
    const al = this.marks[2 * i + 1]! - start;
    const n = Math.min(al, key.length);
    let k = from;
    while (k < n && bytes[start + k] === key[k]) k++;
    return k;
  }

  /** compareKeyAt, given `at`, where key i and `key` first differ (`mismatchAt`). */
  compareKeyAtMismatch(i: number, key: Uint8Array, at: number): number {
    const start = this.marks[2 * i]!;
    const al = this.marks[2 * i + 1]! - start;
    return at < al && at < key.length ? this.bytes[start + at]! - key[at]! : al - key.length;
  }

  /** Whether value i's encoded bytes are `raw`. */
  rawEqualsAt(i: number, raw: Uint8Array): boolean {
    const bytes = this.bytes;
    const start = skipVarint(bytes, this.marks[2 * i + 1]!);
    const n = raw.length;
    if (this.itemStart(i + 1) - start !== n) return false;
    if (n > 96) return keysEqual(this.rawAt(i), raw);
    for (let k = 0; k < n; k++) if (bytes[start + k] !== raw[k]) return false;
    return true;
  }

  /** Entry i (its key and value views made when first asked for). */
  entry(i: number): Entry<V> {
    return new LeafEntry(this, i);
  }

  /** Entries [from, to). */
  entries(from = 0, to = this.length): Entry<V>[] {
    const out: Entry<V>[] = [];
    for (let i = from; i < to; i++) out.push(new LeafEntry(this, i));
    return out;
  }
}

class LeafEntry<V> implements Entry<V> {
  private k: Buffer | undefined;
  private v: V | undefined;
  private decoded = false;
  constructor(
    private readonly node: LeafNode<V>,
    private readonly i: number,
  ) {}
  get key(): Buffer {
    return (this.k ??= this.node.keyAt(this.i));
  }
  get value(): V {
    if (!this.decoded) {
      this.v = this.node.valueAt(this.i);
      this.decoded = true;
    }
    return this.v as V;
  }
}

/** A new item of a leaf: its key and encoded value. */
export interface NewItem {
  readonly key: Buffer;
  readonly raw: Buffer | undefined;
}

/**
 * The items of a leaf an update is writing, in key order, as runs: item ranges of old leaves
 * (copied as bytes) and new items. Written in chunks (`write`), each chunk one new leaf. One
 * instance can be used again (`clear`): an update rewrites a leaf per changed row, and a new
 * object with three growing arrays for each was a quarter of the trees' allocations.
 */
export class LeafItems<V> {
  /** Per run: the old leaf its items are in, or the one new item (entries past `runs` are unused). */
  private readonly src: (LeafNode<V> | NewItem | undefined)[] = [];
  /** Per run of an old leaf: its items [from, to) (unused for a new item). */
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  /** Number of runs. */
  private runs = 0;
  /** Number of items. */
  length = 0;
  /** Encoded bytes of all items. */
  bytes = 0;

  /** Every item of a leaf. */
  static of<V>(leaf: LeafNode<V>): LeafItems<V> {
    const items = new LeafItems<V>();
    items.pushRun(leaf, 0, leaf.length);
    return items;
  }

  /** No items (the arrays kept for the next use; the old leaves and items let go). */
  clear(): void {
    for (let r = 0; r < this.runs; r++) this.src[r] = undefined;
    this.runs = 0;
    this.length = 0;
    this.bytes = 0;
  }

  /** The same items in a new instance (for one that is used again). */
  copy(): LeafItems<V> {
    return new LeafItems<V>().append(this);
  }

  /** Items [from, to) of an old leaf. */
  pushRun(leaf: LeafNode<V>, from: number, to: number): void {
    if (from >= to) return;
    const last = this.runs - 1;
    if (last >= 0 && this.src[last] === leaf && this.to[last] === from) this.to[last] = to;
    else {
      const r = this.runs++;
      this.src[r] = leaf;
      this.from[r] = from;
      this.to[r] = to;
    }
    this.length += to - from;
    this.bytes += leaf.itemStart(to) - leaf.itemStart(from);
  }

  /** A new item (`raw` must be set). */
  pushNew(item: NewItem): void {
    const r = this.runs++;
    this.src[r] = item;
    this.from[r] = 0;
    this.to[r] = 0;
    this.length++;
    this.bytes += entryBytes(item.key, item.raw!);
  }

  /** These items followed by `more`'s. */
  concat(more: LeafItems<V>): LeafItems<V> {
    return new LeafItems<V>().append(this).append(more);
  }

  /** `items`' items added after these. */
  private append(items: LeafItems<V>): this {
    for (let r = 0; r < items.runs; r++) {
      const s = items.src[r]!;
      if (s instanceof LeafNode) this.pushRun(s, items.from[r]!, items.to[r]!);
      else this.pushNew(s);
    }
    return this;
  }

  /** Encoded bytes of each item, in order (to cut the items into several leaves). */
  sizes(): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.runs; r++) {
      const s = this.src[r]!;
      if (s instanceof LeafNode) for (let i = this.from[r]!; i < this.to[r]!; i++) out.push(s.itemBytes(i));
      else out.push(entryBytes(s.key, s.raw!));
    }
    return out;
  }

  /**
   * Encodes items [from, to) as a leaf; `size` is an upper bound of its encoded size. Each run
   * of an old leaf is copied with one call.
   */
  write(from: number, to: number, size: number, decode: (raw: Buffer) => V): LeafNode<V> {
    // `size` allows NODE_HEADER_BYTES for the header; the exact size saves a view of the buffer.
    const buf = Buffer.allocUnsafe(size - NODE_HEADER_BYTES + 1 + varintBytes(to - from));
    buf[0] = LEAF;
    let pos = writeVarint(buf, 1, to - from);
    const marks: number[] = new Array(2 * (to - from) + 1);
    let m = 0;
    // Item number of the current run's first item.
    let first = 0;
    for (let r = 0; r < this.runs && first < to; r++) {
      const s = this.src[r]!;
      const count = s instanceof LeafNode ? this.to[r]! - this.from[r]! : 1;
      const lo = Math.max(from, first);
      const hi = Math.min(to, first + count);
      first += count;
      if (lo >= hi) continue;
      if (s instanceof LeafNode) {
        // The run's items [a, b) that fall in [from, to).
        const a = this.from[r]! + (lo - (first - count));
        const b = a + (hi - lo);
        const start = s.itemStart(a);
        const shift = pos - start;
        for (let k = a; k < b; k++) {
          marks[m++] = s.keyStart(k) + shift;
          marks[m++] = s.keyEnd(k) + shift;
        }
        const end = s.itemStart(b);
        buf.set(new Uint8Array(s.bytes.buffer, s.bytes.byteOffset + start, end - start), pos);
        pos += end - start;
      } else {
        pos = writeVarint(buf, pos, s.key.length);
        marks[m++] = pos;
        buf.set(s.key, pos);
        pos += s.key.length;
        marks[m++] = pos;
        pos = writeBytes(buf, pos, s.raw!);
      }
    }
    marks[m] = pos;
    return new LeafNode(pos === buf.length ? buf : buf.subarray(0, pos), marks, decode);
  }
}

function writeBytes(buf: Buffer, pos: number, bytes: Uint8Array): number {
  pos = writeVarint(buf, pos, bytes.length);
  buf.set(bytes, pos);
  return pos + bytes.length;
}

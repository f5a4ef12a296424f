/**
 * B+tree nodes: their in-memory (decoded) shape, their byte encoding, and key comparison.
 *
 * Encoding (all lengths and integers are unsigned LEB128 varints):
 *
 *   leaf:  0x00, n, then n × (keyLen, key bytes, valueLen, value bytes)
 *   inner: 0x01 | 0x02 (has reductions), n, then n × (firstLen, first key, lastLen, last key,
 *          child id, subtree count[, reductionLen, reduction bytes])
 *
 * Keys are stored raw. Values and reductions are opaque bytes produced by the caller's codecs.
 * A leaf stays as its bytes (./leaf.ts); a decoded inner node keeps `Buffer.subarray` views of
 * its edge keys (no copies) and its decoded reductions.
 */
import type { LeafNode } from './leaf.js';

/** One index row: a byte-comparable sort key and the caller's value. */
export interface Entry<V> {
  readonly key: Buffer;
  readonly value: V;
}

/** A child pointer of an inner node: CouchDB's `{LastKey, {Ptr, Reduction, SubtreeSize}}`, plus the first key. */
export interface Ptr<R> {
  /** Smallest key in the subtree. */
  readonly first: Buffer;
  /** Largest key in the subtree. */
  readonly last: Buffer;
  /** Node id in the NodeStore. */
  readonly id: number;
  /** Number of entries in the subtree. */
  readonly count: number;
  /** Stored reduction of the subtree (undefined when the tree has no reducer). */
  readonly red: R;
  /** `red` encoded (kept so rewriting a parent does not re-encode unchanged pointers). */
  readonly redRaw: Buffer | undefined;
}

export interface InnerNode<R> {
  readonly leaf: false;
  readonly ptrs: readonly Ptr<R>[];
}

export type Node<V, R> = LeafNode<V> | InnerNode<R>;

/** The kind byte of an encoded leaf. */
export const LEAF = 0x00;

const INNER = 0x01;
const INNER_WITH_REDUCTIONS = 0x02;

/** Bytes of a node before its items: kind byte + item count (varint, up to 3 bytes for sizes we use). */
export const NODE_HEADER_BYTES = 4;

/**
 * memcmp order. A JS loop beats the `Buffer.compare` binding (~15 vs ~115 ns) for short keys.
 * The length difference is computed before the loop: code optimized during an index build, which
 * never compares equal keys, then has type feedback for it, and the first update that does
 * compare equal keys does not deoptimize this and every caller that inlined it.
 */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const al = a.length;
  const bl = b.length;
  const byLength = al - bl;
  const n = byLength < 0 ? al : bl;
  if (n > 96) return Buffer.compare(a, b);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return byLength;
}

/** compareKeys of keys known to share their first `from` bytes. */
export function compareFrom(a: Uint8Array, b: Uint8Array, from: number): number {
  const al = a.length;
  const bl = b.length;
  const byLength = al - bl;
  const n = byLength < 0 ? al : bl;
  for (let i = from; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return byLength;
}

/**
 * The first index from `from` at which `a` and `b` differ (the shorter one's length when one is
 * a prefix of the other), for searches that know the keys share their first `from` bytes.
 */
export function mismatch(a: Uint8Array, b: Uint8Array, from: number): number {
  const n = Math.min(a.length, b.length);
  let i = from;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** compareKeys of `a` and `b`, given `at`, the index where they first differ (`mismatch`). */
export function compareAt(a: Uint8Array, b: Uint8Array, at: number): number {
  return at < a.length && at < b.length ? a[at]! - b[at]! : a.length - b.length;
}

export function keysEqual(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  if (n > 96) return Buffer.compare(a, b) === 0;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function varintBytes(n: number): number {
  if (n < 0x80) return 1;
  if (n < 0x4000) return 2;
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    bytes++;
  }
  return bytes;
}

/** Encoded size of one leaf item. */
export function entryBytes(key: Uint8Array, raw: Uint8Array): number {
  return varintBytes(key.length) + key.length + varintBytes(raw.length) + raw.length;
}

/** Encoded size of one inner item. */
export function ptrBytes(p: Ptr<unknown>): number {
  let n = varintBytes(p.first.length) + p.first.length + varintBytes(p.last.length) + p.last.length;
  n += varintBytes(p.id) + varintBytes(p.count);
  if (p.redRaw !== undefined) n += varintBytes(p.redRaw.length) + p.redRaw.length;
  return n;
}

class Writer {
  readonly buf: Buffer;
  pos = 0;
  constructor(size: number, into?: Buffer) {
    this.buf = into !== undefined && into.length >= size ? into : Buffer.allocUnsafe(size);
  }
  varint(n: number): void {
    const buf = this.buf;
    if (n < 0x80) {
      buf[this.pos++] = n;
      return;
    }
    while (n >= 0x80) {
      buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[this.pos++] = n;
  }
  bytes(b: Uint8Array): void {
    const n = b.length;
    this.varint(n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }
  done(): Buffer {
    return this.pos === this.buf.length ? this.buf : this.buf.subarray(0, this.pos);
  }
}

/**
 * Encodes the leaf of keys and values [from, to); `size` is an upper bound of the encoded size.
 * With `into` (big enough), the result is a view of it.
 */
export function encodeLeafOf(
  keys: readonly Uint8Array[],
  raws: readonly Uint8Array[],
  from: number,
  to: number,
  size: number,
  into?: Buffer,
): Buffer {
  const w = new Writer(size, into);
  w.buf[w.pos++] = LEAF;
  w.varint(to - from);
  for (let i = from; i < to; i++) {
    w.bytes(keys[i]!);
    w.bytes(raws[i]!);
  }
  return w.done();
}

export function encodeInner(
  ptrs: readonly Ptr<unknown>[],
  from: number,
  to: number,
  size: number,
  withReductions: boolean,
): Buffer {
  const w = new Writer(size);
  w.buf[w.pos++] = withReductions ? INNER_WITH_REDUCTIONS : INNER;
  w.varint(to - from);
  for (let i = from; i < to; i++) {
    const p = ptrs[i]!;
    w.bytes(p.first);
    w.bytes(p.last);
    w.varint(p.id);
    w.varint(p.count);
    if (withReductions) w.bytes(p.redRaw!);
  }
  return w.done();
}

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b! < 0x80) return b!;
    let n = b! & 0x7f;
    let mul = 0x80;
    for (;;) {
      b = buf[this.pos++];
      if (b === undefined) throw new Error('B-tree node truncated');
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }
  bytes(): Buffer {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.buf.length) throw new Error('B-tree node truncated');
    return this.buf.subarray(start, this.pos);
  }
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decodes an inner node (./leaf.ts reads leaves). */
export function decodeInner<R>(bytes: Uint8Array, decodeReduction: ((b: Buffer) => R) | undefined): InnerNode<R> {
  const r = new Reader(asBuffer(bytes));
  const kind = r.buf[r.pos++];
  const n = r.varint();
  if (kind !== INNER && kind !== INNER_WITH_REDUCTIONS) throw new Error(`B-tree node has unknown kind ${kind}`);
  const hasReductions = kind === INNER_WITH_REDUCTIONS;
  if (decodeReduction !== undefined && !hasReductions) {
    throw new Error('B-tree node has no stored reductions: the tree was built without a reducer');
  }
  const ptrs: Ptr<R>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const first = r.bytes();
    const last = r.bytes();
    const id = r.varint();
    const count = r.varint();
    let red: R = undefined as R;
    let redRaw: Buffer | undefined;
    if (hasReductions) {
      redRaw = r.bytes();
      if (decodeReduction !== undefined) red = decodeReduction(redRaw);
      else redRaw = undefined;
    }
    ptrs[i] = { first, last, id, count, red, redRaw };
  }
  return { leaf: false, ptrs };
}

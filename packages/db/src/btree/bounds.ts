/**
 * Key ranges as the reads see them: a caller's range (in iteration order) turned into low and
 * high bounds in key order, and the binary searches that find a bound in a leaf or among an
 * inner node's pointers.
 */
import type { LeafNode } from './leaf.js';
import { compareKeys, type Ptr } from './node.js';

/**
 * A key range in iteration order: with `descending`, `start` is the high end (start ≥ end).
 * Both ends are inclusive unless `inclusiveStart: false` / `inclusiveEnd: false`. Bounds are
 * compared as raw bytes with the entry keys; either may be omitted.
 */
export interface KeyRange {
  start?: Buffer;
  end?: Buffer;
  inclusiveStart?: boolean;
  inclusiveEnd?: boolean;
}

export interface Bounds {
  lo: Buffer | undefined;
  loIncl: boolean;
  hi: Buffer | undefined;
  hiIncl: boolean;
  desc: boolean;
}

/** The range in key order; undefined when it is empty. */
export function toBounds(range: KeyRange, desc: boolean): Bounds | undefined {
  const startIncl = range.inclusiveStart !== false;
  const endIncl = range.inclusiveEnd !== false;
  const b: Bounds = desc
    ? { lo: range.end, loIncl: endIncl, hi: range.start, hiIncl: startIncl, desc }
    : { lo: range.start, loIncl: startIncl, hi: range.end, hiIncl: endIncl, desc };
  if (b.lo !== undefined && b.hi !== undefined) {
    const c = compareKeys(b.lo, b.hi);
    if (c > 0 || (c === 0 && !(b.loIncl && b.hiIncl))) return undefined;
  }
  return b;
}

/** Whether a key that compares `c` with the low bound is in range on that side. */
const inAboveLo = (c: number, b: Bounds): boolean => c > 0 || (c === 0 && b.loIncl);
/** Whether a key that compares `c` with the high bound is in range on that side. */
const inBelowHi = (c: number, b: Bounds): boolean => c < 0 || (c === 0 && b.hiIncl);

export function aboveLo(key: Buffer, b: Bounds): boolean {
  return b.lo === undefined || inAboveLo(compareKeys(key, b.lo), b);
}

export function belowHi(key: Buffer, b: Bounds): boolean {
  return b.hi === undefined || inBelowHi(compareKeys(key, b.hi), b);
}

/** The first index in [lo, hi) where `before` turns false (it holds for a prefix of the range, then never). */
export function partitionPoint(lo: number, hi: number, before: (i: number) => boolean): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (before(m)) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** aboveLo for entry i of a leaf, compared in place. */
export function leafAboveLo(leaf: LeafNode<unknown>, i: number, b: Bounds): boolean {
  return b.lo === undefined || inAboveLo(leaf.compareKeyAt(i, b.lo), b);
}

/** belowHi for entry i of a leaf, compared in place. */
export function leafBelowHi(leaf: LeafNode<unknown>, i: number, b: Bounds): boolean {
  return b.hi === undefined || inBelowHi(leaf.compareKeyAt(i, b.hi), b);
}

/** First entry index at or above the low bound. */
export function lowerIndex(leaf: LeafNode<unknown>, b: Bounds): number {
  if (b.lo === undefined) return 0;
  return partitionPoint(0, leaf.length, (m) => !leafAboveLo(leaf, m, b));
}

/** First entry index above the high bound. */
export function upperIndex(leaf: LeafNode<unknown>, b: Bounds): number {
  if (b.hi === undefined) return leaf.length;
  return partitionPoint(0, leaf.length, (m) => leafBelowHi(leaf, m, b));
}

/** First child whose last key is at or above the low bound (ptrs.length if none). */
export function firstPtrAbove(ps: readonly Ptr<unknown>[], b: Bounds): number {
  if (b.lo === undefined) return 0;
  return partitionPoint(0, ps.length, (m) => !aboveLo(ps[m]!.last, b));
}

/** Last child whose first key is at or below the high bound (-1 if none). */
export function lastPtrBelow(ps: readonly Ptr<unknown>[], b: Bounds): number {
  if (b.hi === undefined) return ps.length - 1;
  return partitionPoint(0, ps.length, (m) => belowHi(ps[m]!.first, b)) - 1;
}

/**
 * Key ranges as the reads see them: a caller's range (in iteration order) turned into low and
 * high bounds in key order, and the binary searches that find a bound in a leaf or among an
 * inner node's pointers.
 */
import type { LeafNode } from './leaf.js';
import { compareAt, compareKeys, mismatch, type Ptr } from './node.js';

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

/*
 * The descents to a low bound compare the bound with keys that share long prefixes with it (a
 * view's array tag and first elements): each comparison starts past the bytes the bound shares
 * with the keys at both ends of the range left, which every key between them shares too (they
 * are sorted), instead of reading that prefix again (issue #31: key comparisons were a quarter
 * of a `POST {"keys": [...]}` request's CPU). A descent carries those two counts down
 * (`Shared`): a child's keys lie above the last key of the pointer before it and up to the last
 * key of its own pointer, the two keys its parent's search ended between.
 */

/**
 * How many first bytes the low bound shares with the key just below the range searched and with
 * the key just above it (0: none known). Searches read it as their start and leave in it where
 * they ended, for the next level's search.
 */
export interface Shared {
  below: number;
  above: number;
}

/** First entry index at or above the low bound. */
export function lowerIndex(leaf: LeafNode<unknown>, b: Bounds, shared?: Shared): number {
  const bound = b.lo;
  if (bound === undefined) return 0;
  const incl = b.loIncl;
  let lo = 0;
  let hi = leaf.length;
  let loShared = shared?.below ?? 0;
  let hiShared = shared?.above ?? 0;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const at = leaf.mismatchAt(m, bound, Math.min(loShared, hiShared));
    const c = leaf.compareKeyAtMismatch(m, bound, at);
    if (c < 0 || (c === 0 && !incl)) {
      lo = m + 1;
      loShared = at;
    } else {
      hi = m;
      hiShared = at;
    }
  }
  return lo;
}

/** First entry index above the high bound. */
export function upperIndex(leaf: LeafNode<unknown>, b: Bounds): number {
  if (b.hi === undefined) return leaf.length;
  return partitionPoint(0, leaf.length, (m) => leafBelowHi(leaf, m, b));
}

/** First child whose last key is at or above the low bound (ptrs.length if none). */
export function firstPtrAbove(ps: readonly Ptr<unknown>[], b: Bounds, shared?: Shared): number {
  const bound = b.lo;
  if (bound === undefined) return 0;
  const incl = b.loIncl;
  let lo = 0;
  let hi = ps.length;
  let loShared = shared?.below ?? 0;
  let hiShared = shared?.above ?? 0;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const key = ps[m]!.last;
    const at = mismatch(key, bound, Math.min(loShared, hiShared));
    const c = compareAt(key, bound, at);
    if (c < 0 || (c === 0 && !incl)) {
      lo = m + 1;
      loShared = at;
    } else {
      hi = m;
      hiShared = at;
    }
  }
  if (shared !== undefined) {
    shared.below = loShared;
    shared.above = hiShared;
  }
  return lo;
}

/** Last child whose first key is at or below the high bound (-1 if none). */
export function lastPtrBelow(ps: readonly Ptr<unknown>[], b: Bounds): number {
  if (b.hi === undefined) return ps.length - 1;
  return partitionPoint(0, ps.length, (m) => belowHi(ps[m]!.first, b)) - 1;
}

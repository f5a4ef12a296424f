/**
 * Reads of entries: `fold` (a range scan, with `skip` in O(log n) from subtree counts) and
 * `rank` (how many entries lie below a key: counts and offsets in O(log n)).
 *
 * `fold` is a generator that fetches nodes by id as it goes (no statement stays open across a
 * yield). It must not be resumed after a write to the same tree: it throws if it is.
 */
import {
  firstPtrAbove,
  lastPtrBelow,
  leafAboveLo,
  leafBelowHi,
  lowerIndex,
  partitionPoint,
  toBounds,
  upperIndex,
  type KeyRange,
} from './bounds.js';
import type { LeafNode } from './leaf.js';
import { compareKeys, type Entry, type InnerNode } from './node.js';
import { modifiedDuring, type TreeNodes } from './tree-nodes.js';

export interface FoldOptions {
  descending?: boolean;
  /** Entries to skip from the start of the range, in O(log n) using subtree counts. */
  skip?: number;
}

/** Entries in the range, in key order (or reverse with `descending`). */
export function* fold<V, R>(
  t: TreeNodes<V, R>,
  range: KeyRange,
  options: FoldOptions,
): Generator<Entry<V>, void, undefined> {
  t.sync();
  const version = t.version;
  const desc = options.descending === true;
  const b = toBounds(range, desc);
  if (b === undefined || t.root === undefined) return;
  const skip = options.skip ?? 0;
  const stack: InnerNode<R>[] = [];
  const idxs: number[] = [];
  let node = t.load(t.root);
  let i: number;
  if (skip > 0) {
    let pos = desc
      ? (b.hi === undefined ? t.countNode(node) : rank(t, b.hi, b.hiIncl)) - 1 - skip
      : (b.lo === undefined ? 0 : rank(t, b.lo, !b.loIncl)) + skip;
    if (pos < 0) return;
    while (!node.leaf) {
      const ps = node.ptrs;
      let c = 0;
      while (c < ps.length && pos >= ps[c]!.count) pos -= ps[c++]!.count;
      if (c === ps.length) return;
      stack.push(node);
      idxs.push(c);
      node = t.load(ps[c]!.id);
    }
    i = pos;
  } else {
    const shared = { below: 0, above: 0 };
    while (!node.leaf) {
      const ps = node.ptrs;
      const c = desc ? lastPtrBelow(ps, b) : firstPtrAbove(ps, b, shared);
      if (c < 0 || c >= ps.length) return;
      stack.push(node);
      idxs.push(c);
      node = t.load(ps[c]!.id);
    }
    i = desc ? upperIndex(node, b) - 1 : lowerIndex(node, b, shared);
  }
  let leaf: LeafNode<V> = node;
  for (;;) {
    const size = leaf.length;
    if (!desc) {
      // Bound checks are only needed on the leaf that holds the high bound.
      const free = b.hi === undefined || (size > 0 && leafBelowHi(leaf, size - 1, b));
      for (; i < size; i++) {
        if (!free && !leafBelowHi(leaf, i, b)) return;
        yield leaf.entry(i);
        if (t.version !== version) modifiedDuring('fold');
      }
    } else {
      const free = b.lo === undefined || (size > 0 && leafAboveLo(leaf, 0, b));
      for (; i >= 0; i--) {
        if (!free && !leafAboveLo(leaf, i, b)) return;
        yield leaf.entry(i);
        if (t.version !== version) modifiedDuring('fold');
      }
    }
    let d = stack.length - 1;
    for (; d >= 0; d--) {
      const c = idxs[d]! + (desc ? -1 : 1);
      if (c >= 0 && c < stack[d]!.ptrs.length) {
        idxs[d] = c;
        break;
      }
      stack.pop();
      idxs.pop();
    }
    if (d < 0) return;
    let n = t.load(stack[d]!.ptrs[idxs[d]!]!.id);
    while (!n.leaf) {
      const c = desc ? n.ptrs.length - 1 : 0;
      stack.push(n);
      idxs.push(c);
      n = t.load(n.ptrs[c]!.id);
    }
    leaf = n;
    i = desc ? leaf.length - 1 : 0;
  }
}

/** Number of entries with a key below `key` (or at most `key` when inclusive); the caller has synced. */
export function rank<V, R>(t: TreeNodes<V, R>, key: Buffer, inclusive: boolean): number {
  let id = t.root;
  if (id === undefined) return 0;
  /** Whether a key comparing `c` with `key` counts. */
  const below = (c: number): boolean => c < 0 || (inclusive && c === 0);
  let n = 0;
  for (;;) {
    const node = t.load(id);
    if (node.leaf) return n + partitionPoint(0, node.length, (m) => below(node.compareKeyAt(m, key)));
    const ps = node.ptrs;
    const lo = partitionPoint(0, ps.length, (m) => below(compareKeys(ps[m]!.last, key)));
    for (let i = 0; i < lo; i++) n += ps[i]!.count;
    if (lo === ps.length) return n;
    id = ps[lo]!.id;
  }
}

/** Entries in the range, in O(log n). */
export function count<V, R>(t: TreeNodes<V, R>, range: KeyRange, descending: boolean): number {
  t.sync();
  const b = toBounds(range, descending);
  if (b === undefined || t.root === undefined) return 0;
  const hi = b.hi === undefined ? t.countNode(t.load(t.root)) : rank(t, b.hi, b.hiIncl);
  const lo = b.lo === undefined ? 0 : rank(t, b.lo, !b.loIncl);
  return Math.max(0, hi - lo);
}

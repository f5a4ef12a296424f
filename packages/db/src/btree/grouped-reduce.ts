/**
 * Grouped reduce (CouchDB's fold_reduce): one reduction per group of a key range, for
 * group=true / group_level=N, and the whole range's reduction as the one-group case.
 *
 * Why it is fast: every inner-node pointer stores its subtree's first and last key and its
 * reduction. A subtree whose first and last keys have the same group key lies wholly inside
 * that group (groups are contiguous in key order), so its stored reduction is used and it is not
 * descended: O(groups · log n) nodes, whatever the number of rows. Loose entries are reduced
 * only at group edges, a leaf's run of one group found by binary search.
 */
import {
  aboveLo,
  belowHi,
  firstPtrAbove,
  lastPtrBelow,
  lowerIndex,
  toBounds,
  upperIndex,
  type KeyRange,
} from './bounds.js';
import type { LeafNode } from './leaf.js';
import { keysEqual, type Entry, type Node, type Ptr } from './node.js';
import type { Reducer } from './reducer.js';
import { modifiedDuring, type TreeNodes } from './tree-nodes.js';

export interface FoldReduceOptions {
  descending?: boolean;
  /**
   * The group of an entry, from its key. Entries with byte-equal group keys (or both null)
   * that are adjacent in key order form one group. Groups must be contiguous in key order (a
   * group key that is a prefix of the sort key, or a constant, always is).
   */
  groupKey(key: Buffer): Buffer | null;
}

export interface ReduceGroup<V, R> {
  groupKey: Buffer | null;
  reduction: R;
  /** The group's first entry in iteration order (its key and value, e.g. for the row key). */
  first: Entry<V>;
}

function sameGroup(a: Buffer | null, b: Buffer | null): boolean {
  return a === b || (a !== null && b !== null && keysEqual(a, b));
}

/** The group being accumulated by foldReduce: loose entries plus stored reductions. */
class GroupAcc<V, R> {
  active = false;
  key: Buffer | null = null;
  first: Entry<V> | undefined;
  runs: Entry<V>[][] = [];
  reds: R[] = [];
  constructor(
    readonly reducer: Reducer<V, R>,
    readonly groupKey: (key: Buffer) => Buffer | null,
    readonly desc: boolean,
  ) {}

  start(key: Buffer | null, first: Entry<V>): void {
    this.active = true;
    this.key = key;
    this.first = first;
  }

  /** CouchDB's final_reduce: reduce the loose entries, then rereduce with the stored values. */
  finish(): ReduceGroup<V, R> {
    const runs = this.runs;
    const reds = this.reds;
    if (runs.length > 0) {
      if (this.desc) runs.reverse();
      const loose = runs.length === 1 ? runs[0]! : ([] as Entry<V>[]).concat(...runs);
      reds.unshift(this.reducer.reduce(loose));
    }
    const reduction = reds.length === 1 ? reds[0]! : this.reducer.rereduce(reds);
    const out: ReduceGroup<V, R> = { groupKey: this.key, reduction, first: this.first! };
    this.active = false;
    this.key = null;
    this.first = undefined;
    this.runs = [];
    this.reds = [];
    return out;
  }
}

/**
 * The far end (inclusive, in iteration order: `step` is 1 or -1) of the run of leaf entries from
 * `i` whose group is `g`, no farther than `stop`: `stop` itself, or a binary search between an
 * index known in the group and one known out of it.
 */
function runEnd(groupAt: (i: number) => Buffer | null, g: Buffer | null, i: number, stop: number): number {
  if (sameGroup(groupAt(stop), g)) return stop;
  let inside = i;
  let outside = stop;
  while (Math.abs(outside - inside) > 1) {
    const m = (inside + outside) >>> 1;
    if (sameGroup(groupAt(m), g)) inside = m;
    else outside = m;
  }
  return inside;
}

/**
 * After child c of a node wholly in range went into group `key`: the following siblings whose
 * far end is still in that group lie wholly in it too (groups are contiguous), and they form a
 * prefix of the rest, found by exponential then binary search. Pushes their stored reductions
 * and returns the index of the next child to visit. Costs O(log k) group keys for k siblings
 * instead of k, which matters when groups are smaller than an inner node's subtree.
 */
function gallop<R>(
  ps: readonly Ptr<R>[],
  c: number,
  desc: boolean,
  groupKey: (key: Buffer) => Buffer | null,
  key: Buffer | null,
  reds: R[],
): number {
  const step = desc ? -1 : 1;
  const n = ps.length;
  const inGroup = (x: number): boolean => sameGroup(groupKey(desc ? ps[x]!.first : ps[x]!.last), key);
  // Distances from c: `good` is known in the group, `bad` known out of it (or past the end).
  let good = 0;
  let bad = 1;
  for (;;) {
    const x = c + bad * step;
    if (x < 0 || x >= n || !inGroup(x)) break;
    good = bad;
    bad *= 2;
  }
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    const x = c + mid * step;
    if (x >= 0 && x < n && inGroup(x)) good = mid;
    else bad = mid;
  }
  for (let i = 1; i <= good; i++) reds.push(ps[c + i * step]!.red);
  return c + (good + 1) * step;
}

/**
 * One reduction per group in the range, in iteration order. A subtree whose first and last keys
 * have the current group's key contributes its stored reduction; nodes are descended only where
 * a group starts or ends. Each group is `rereduce([reduce(loose entries), ...stored])`, or the
 * single stored value / reduce(loose). A generator fetching nodes as it goes: it throws if
 * resumed after a write to the same tree.
 */
export function* foldReduce<V, R>(
  t: TreeNodes<V, R>,
  range: KeyRange,
  options: FoldReduceOptions,
): Generator<ReduceGroup<V, R>, void, undefined> {
  const reducer = t.requireReducer();
  t.sync();
  const version = t.version;
  const b = toBounds(range, options.descending === true);
  if (b === undefined || t.root === undefined) return;
  const acc = new GroupAcc<V, R>(reducer, options.groupKey, b.desc);
  const groupKey = options.groupKey;
  const desc = b.desc;
  const step = desc ? -1 : 1;
  // Iterative walk (no generator per node): a stack of inner nodes with the next child to
  // visit and whether the range's low / high bound is already satisfied below them.
  const nodes: (readonly Ptr<R>[])[] = [];
  const next: number[] = [];
  const coveredLo: boolean[] = [];
  const coveredHi: boolean[] = [];
  let node: Node<V, R> | undefined = t.load(t.root);
  let inLo = b.lo === undefined;
  let inHi = b.hi === undefined;
  for (;;) {
    if (node?.leaf) {
      const leaf: LeafNode<V> = node;
      const from = inLo ? 0 : lowerIndex(leaf, b);
      const to = inHi ? leaf.length : upperIndex(leaf, b);
      const groupAt = (i: number) => groupKey(leaf.keyAt(i));
      // The leaf's entries in range, run by run of one group, in iteration order.
      const stop = desc ? from : to - 1;
      for (let i = desc ? to - 1 : from; desc ? i >= from : i < to; ) {
        const g = groupAt(i);
        const end = runEnd(groupAt, g, i, stop);
        if (acc.active && !sameGroup(acc.key, g)) {
          yield acc.finish();
          if (t.version !== version) modifiedDuring('foldReduce');
        }
        if (!acc.active) acc.start(g, leaf.entry(i));
        acc.runs.push(desc ? leaf.entries(end, i + 1) : leaf.entries(i, end + 1));
        i = end + step;
      }
      node = undefined;
    } else if (node !== undefined) {
      const ps = node.ptrs;
      nodes.push(ps);
      next.push(desc ? (inHi ? ps.length - 1 : lastPtrBelow(ps, b)) : inLo ? 0 : firstPtrAbove(ps, b));
      coveredLo.push(inLo);
      coveredHi.push(inHi);
      node = undefined;
    }
    // The next child to visit.
    const d = nodes.length - 1;
    if (d < 0) break;
    const ps = nodes[d]!;
    const c = next[d]!;
    const cLo = coveredLo[d];
    const cHi = coveredHi[d];
    const p = ps[c];
    if (p === undefined || (desc ? !cLo && !aboveLo(p.last, b) : !cHi && !belowHi(p.first, b))) {
      nodes.pop();
      next.pop();
      coveredLo.pop();
      coveredHi.pop();
      continue;
    }
    next[d] = c + step;
    inLo = cLo || aboveLo(p.first, b);
    inHi = cHi || belowHi(p.last, b);
    if (inLo && inHi) {
      // Wholly in range: use the stored reduction if the subtree lies in one group. Groups are
      // contiguous, so a subtree whose far end is in the current group is wholly in it.
      const far = groupKey(desc ? p.first : p.last);
      if (acc.active && sameGroup(acc.key, far)) {
        acc.reds.push(p.red);
        if (cLo && cHi) next[d] = gallop(ps, c, desc, groupKey, far, acc.reds);
        continue;
      }
      if (sameGroup(groupKey(desc ? p.last : p.first), far)) {
        if (acc.active) {
          yield acc.finish();
          if (t.version !== version) modifiedDuring('foldReduce');
        }
        acc.start(far, t.edgeEntry(p, desc));
        acc.reds.push(p.red);
        if (cLo && cHi) next[d] = gallop(ps, c, desc, groupKey, far, acc.reds);
        continue;
      }
    }
    node = t.load(p.id);
  }
  if (acc.active) yield acc.finish();
}

/** The reduction of the entries in the range: reduce([]) when it is empty. O(log n) nodes. */
export function reduceRange<V, R>(t: TreeNodes<V, R>, range: KeyRange, descending: boolean | undefined): R {
  const reducer = t.requireReducer();
  const it = foldReduce(t, range, { descending, groupKey: () => null });
  const r = it.next();
  it.return(undefined);
  return r.done === true ? reducer.reduce([]) : r.value.reduction;
}

/** The tree's invariants, checked by walking all of it (for tests and for suspicion). */
import { NODE_HEADER_BYTES, compareKeys, entryBytes, keysEqual, ptrBytes } from './node.js';
import type { TreeNodes } from './tree-nodes.js';

export interface TreeStats {
  /** Levels (0 for an empty tree, 1 for a single leaf). */
  height: number;
  entries: number;
  leaves: number;
  innerNodes: number;
  /** Smallest and largest encoded size of a non-root node, in bytes (0 when there is none). */
  minNodeBytes: number;
  maxNodeBytes: number;
}

/** What a subtree's pointer should say about it. */
interface Subtree<R> {
  depth: number;
  first: Buffer;
  last: Buffer;
  count: number;
  red: R;
}

/**
 * Walks the whole tree and throws on any broken invariant: key order, pointer first/last keys
 * and counts, leaves at one depth, inner nodes with at least two children, and (with a
 * reducer) stored reductions equal to recomputed ones (compared encoded). Returns sizes.
 */
export function verify<V, R>(t: TreeNodes<V, R>): TreeStats {
  t.sync();
  const stats: TreeStats = { height: 0, entries: 0, leaves: 0, innerNodes: 0, minNodeBytes: 0, maxNodeBytes: 0 };
  if (t.root === undefined) return stats;
  let minBytes = Infinity;
  let maxBytes = 0;
  const walk = (id: number, isRoot: boolean): Subtree<R> => {
    const node = t.load(id);
    let bytes = NODE_HEADER_BYTES;
    let result: Subtree<R>;
    if (node.leaf) {
      const n = node.length;
      if (n === 0) throw new Error(`leaf ${id} is empty`);
      for (let i = 0; i < n; i++) {
        bytes += entryBytes(node.keyAt(i), node.rawAt(i));
        if (i > 0 && compareKeys(node.keyAt(i - 1), node.keyAt(i)) >= 0)
          throw new Error(`leaf ${id} keys out of order at ${i}`);
      }
      stats.leaves++;
      stats.entries += n;
      const red = t.reducer === undefined ? (undefined as R) : t.reducer.reduce(node.entries());
      result = { depth: 1, first: node.keyAt(0), last: node.keyAt(n - 1), count: n, red };
    } else {
      const ps = node.ptrs;
      if (ps.length < 2) throw new Error(`inner node ${id} has ${ps.length} children`);
      let depth = -1;
      let count = 0;
      const reds: R[] = [];
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        bytes += ptrBytes(p);
        const sub = walk(p.id, false);
        if (depth !== -1 && sub.depth !== depth) throw new Error(`inner node ${id}: leaves at different depths`);
        depth = sub.depth;
        if (!keysEqual(sub.first, p.first) || !keysEqual(sub.last, p.last))
          throw new Error(`inner node ${id}: wrong first/last key for child ${p.id}`);
        if (sub.count !== p.count) throw new Error(`inner node ${id}: wrong count for child ${p.id}`);
        if (i > 0 && compareKeys(ps[i - 1]!.last, p.first) >= 0)
          throw new Error(`inner node ${id}: children overlap at ${i}`);
        if (t.reducer !== undefined) {
          const stored = Buffer.from(t.encodeReduction(p.red));
          const computed = Buffer.from(t.encodeReduction(sub.red));
          if (!stored.equals(computed))
            throw new Error(`inner node ${id}: stored reduction of child ${p.id} is ${stored} not ${computed}`);
        }
        reds.push(p.red);
        count += p.count;
      }
      stats.innerNodes++;
      const red = t.reducer === undefined ? (undefined as R) : t.reducer.rereduce(reds);
      result = { depth: depth + 1, first: ps[0]!.first, last: ps[ps.length - 1]!.last, count, red };
    }
    if (!isRoot) {
      minBytes = Math.min(minBytes, bytes);
      maxBytes = Math.max(maxBytes, bytes);
    }
    return result;
  };
  stats.height = walk(t.root, true).depth;
  stats.minNodeBytes = minBytes === Infinity ? 0 : minBytes;
  stats.maxNodeBytes = maxBytes;
  return stats;
}

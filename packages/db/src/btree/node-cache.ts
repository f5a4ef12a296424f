import type { LeafNode } from './leaf.js';
import type { Node } from './node.js';

/**
 * A tree's cache budget unless its options say otherwise, per tree: 128 MiB holds every node of
 * a view of ~550k rows of ~150 bytes (the views bench's `by_author_date`, 75k rows, takes ~17 MiB
 * at 100k documents; its 750k rows at 1M documents ~150 MiB, of which this holds 80%, where
 * 20,000 nodes held 32%: docs/benchmarks.md, session 42).
 */
export const DEFAULT_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * LRU of decoded nodes: a Map in recency order (moves on read are lazy, see `get`), bounded by
 * the memory its nodes take (`nodeMemory`), not by their number.
 *
 * Why. A budget of `cacheBytes` (default DEFAULT_CACHE_BYTES per tree, docs/views.md) lets warm
 * queries do no store reads and no parsing. A leaf stays as its encoded bytes plus item offsets
 * (./leaf.ts), an inner node is decoded (pointers with decoded reductions): leaves decoded into
 * an object per entry took about three times the memory (docs/benchmarks.md, "Measurements
 * behind design choices"). A bound by count (20,000 nodes until session 42) held a fixed share
 * of a big tree whatever its nodes weigh, and as much memory for a tree of small nodes as of
 * big ones. Writes put the new node in the cache; when to drop it is ./tree-nodes.ts's business.
 */
export class NodeCache<V, R> {
  private readonly map = new Map<number, Slot<V, R>>();
  /** Counts the bytes of insertions and moves to the recent end: a slot's `at` says how recently it got there. */
  private clock = 0;
  /** Estimated memory of the nodes held. */
  private held = 0;
  constructor(readonly budget: number) {}
  /**
   * A node read is moved to the recent end only when it sits in the older half (more than half
   * the budget's bytes came in after it): moving one (a Map delete and set) cost ~2 µs on a full
   * cache, most of a warm `POST keys` read's node loads, while a hot node (the root, the inner
   * nodes) is now one lookup. A node read survives at least half the budget's bytes of
   * insertions after that read, as in an exact LRU's older half.
   */
  get(id: number): Node<V, R> | undefined {
    const slot = this.map.get(id);
    if (slot === undefined) return undefined;
    if (this.clock - slot.at > this.budget / 2) {
      this.map.delete(id);
      this.map.set(id, slot);
      slot.at = this.clock += slot.bytes;
    }
    return slot.node;
  }
  set(id: number, node: Node<V, R>): void {
    if (this.budget <= 0) return;
    const bytes = nodeMemory(node);
    const before = this.map.get(id);
    if (before !== undefined && this.clock - before.at <= this.budget / 2) {
      // A node rewritten under its id (an update rewrites a leaf in place) while in the recent
      // half stays where it is, as a read leaves it (`get`): no Map delete and insert per write.
      this.held += bytes - before.bytes;
      before.node = node;
      before.bytes = bytes;
    } else {
      if (before !== undefined) {
        this.held -= before.bytes;
        this.map.delete(id);
      }
      this.map.set(id, { node, at: (this.clock += bytes), bytes });
      this.held += bytes;
    }
    // Past the budget, the oldest go until an eighth of it is free, in one pass: a Map's deleted
    // entries stay at its front until it is rehashed, and a new iterator per eviction walked past
    // all of them (~5 µs a set on a full 20,000-node cache: a tenth of a search index's 1% update).
    // The node just set stays, even alone above the budget.
    if (this.held > this.budget) {
      const target = this.budget - this.budget / 8;
      for (const [old, slot] of this.map) {
        if (old === id) break;
        this.map.delete(old);
        this.held -= slot.bytes;
        if (this.held <= target) break;
      }
    }
  }
  delete(id: number): void {
    const slot = this.map.get(id);
    if (slot === undefined) return;
    this.map.delete(id);
    this.held -= slot.bytes;
  }
  clear(): void {
    this.map.clear();
    this.held = 0;
  }
  get size(): number {
    return this.map.size;
  }
  /** Estimated memory of the nodes held, in bytes. */
  get bytes(): number {
    return this.held;
  }
}

interface Slot<V, R> {
  node: Node<V, R>;
  at: number;
  bytes: number;
}

/**
 * Measured with `process.memoryUsage()` around decoding the views bench's nodes: a leaf holds
 * its bytes, two offsets a row (a number array) and ~130 bytes of objects; an inner node its
 * edge keys and reductions, and ~420 bytes of objects a pointer (the pointer, three Buffer views,
 * the decoded reduction).
 */
const LEAF_OVERHEAD = 128;
const LEAF_ROW_OVERHEAD = 16;
const INNER_OVERHEAD = 64;
const PTR_OVERHEAD = 420;

/** What a cached node takes in memory, estimated. */
export function nodeMemory(node: Node<unknown, unknown>): number {
  if (node.leaf) return leafMemory(node);
  let bytes = INNER_OVERHEAD;
  for (const p of node.ptrs) {
    bytes += PTR_OVERHEAD + p.first.length + p.last.length;
    if (p.redRaw !== undefined) bytes += p.redRaw.length;
  }
  return bytes;
}

function leafMemory(leaf: LeafNode<unknown>): number {
  return LEAF_OVERHEAD + leaf.bytes.length + LEAF_ROW_OVERHEAD * leaf.length;
}

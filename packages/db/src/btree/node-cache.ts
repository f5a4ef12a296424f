import type { Node } from './node.js';

/**
 * LRU of decoded nodes: a Map in recency order (moves on read are lazy, see `get`).
 *
 * Why. `cacheNodes` nodes (default 20,000: ≈ 500k rows of leaves) let warm queries do no store
 * reads and no parsing. A leaf stays as its encoded bytes plus item offsets (./leaf.ts), an
 * inner node is decoded (pointers with decoded reductions): leaves decoded into an object per
 * entry took about three times the memory (docs/benchmarks.md, "Measurements behind design
 * choices"). Writes put the new node in the cache; when to drop it
 * is ./tree-nodes.ts's business.
 */
export class NodeCache<V, R> {
  private readonly map = new Map<number, Slot<V, R>>();
  /** Counts insertions and moves to the recent end: a slot's `at` says how recently it got there. */
  private clock = 0;
  constructor(readonly capacity: number) {}
  /**
   * A node read is moved to the recent end only when it sits in the older half: moving one (a
   * Map delete and set) cost ~2 µs on a full cache, most of a warm `POST keys` read's node
   * loads, while a hot node (the root, the inner nodes) is now one lookup. A node read survives
   * at least capacity / 2 more insertions after that read, as in an exact LRU's older half.
   */
  get(id: number): Node<V, R> | undefined {
    const slot = this.map.get(id);
    if (slot === undefined) return undefined;
    if (this.clock - slot.at > this.capacity >> 1) {
      this.map.delete(id);
      this.map.set(id, slot);
      slot.at = ++this.clock;
    }
    return slot.node;
  }
  set(id: number, node: Node<V, R>): void {
    if (this.capacity <= 0) return;
    this.map.delete(id);
    this.map.set(id, { node, at: ++this.clock });
    // Past the capacity, the oldest go until an eighth of it is free, in one pass: a Map's deleted
    // entries stay at its front until it is rehashed, and a new iterator per eviction walked past
    // all of them (~5 µs a set on a full 20,000-node cache: a tenth of a search index's 1% update).
    if (this.map.size > this.capacity) {
      let excess = this.map.size - (this.capacity - (this.capacity >> 3));
      for (const old of this.map.keys()) {
        this.map.delete(old);
        if (--excess === 0) break;
      }
    }
  }
  delete(id: number): void {
    this.map.delete(id);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

interface Slot<V, R> {
  node: Node<V, R>;
  at: number;
}

import type { Node } from './node.js';

/**
 * LRU of decoded nodes: a Map in recency order.
 *
 * Why. `cacheNodes` nodes (default 20,000: ≈ 500k rows of leaves) let warm queries do no store
 * reads and no parsing. A leaf stays as its encoded bytes plus item offsets (./leaf.ts), an
 * inner node is decoded (pointers with decoded reductions): leaves decoded into an object per
 * entry took about three times the memory (docs/benchmarks.md, "Measurements behind design
 * choices"). Writes put the new node in the cache; when to drop it
 * is ./tree-nodes.ts's business.
 */
export class NodeCache<V, R> {
  private readonly map = new Map<number, Node<V, R>>();
  constructor(readonly capacity: number) {}
  get(id: number): Node<V, R> | undefined {
    const node = this.map.get(id);
    if (node !== undefined) {
      this.map.delete(id);
      this.map.set(id, node);
    }
    return node;
  }
  set(id: number, node: Node<V, R>): void {
    if (this.capacity <= 0) return;
    this.map.delete(id);
    this.map.set(id, node);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
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

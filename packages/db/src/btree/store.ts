import type { NodeStore } from '../storage/view-index-store.js';

export type { NodeStore } from '../storage/view-index-store.js';

/** Nodes in a Map, for tests and throwaway trees. `atomic` keeps an undo log. */
export class MemoryNodeStore implements NodeStore {
  private readonly nodes = new Map<number, Uint8Array>();
  private root: number | undefined;
  private gen = 0;
  private next = 1;
  private undo: Map<number, Uint8Array | undefined> | undefined;

  get size(): number {
    return this.nodes.size;
  }
  get(id: number): Uint8Array | undefined {
    return this.nodes.get(id);
  }
  put(id: number, bytes: Uint8Array): void {
    this.remember(id);
    this.nodes.set(id, Uint8Array.prototype.slice.call(bytes)); // a copy (Buffer#slice is a view)
  }
  delete(id: number): void {
    this.remember(id);
    this.nodes.delete(id);
  }
  allocate(): number {
    return this.next++;
  }
  getRoot(): number | undefined {
    return this.root;
  }
  setRoot(id: number | undefined): void {
    this.root = id;
    this.gen++;
  }
  generation(): number {
    return this.gen;
  }
  atomic<T>(fn: () => T): T {
    if (this.undo !== undefined) return fn();
    const undo = (this.undo = new Map());
    const root = this.root;
    const gen = this.gen;
    try {
      return fn();
    } catch (err) {
      for (const [id, bytes] of undo) {
        if (bytes === undefined) this.nodes.delete(id);
        else this.nodes.set(id, bytes);
      }
      this.root = root;
      this.gen = gen;
      throw err;
    } finally {
      this.undo = undefined;
    }
  }
  clear(): void {
    for (const id of this.nodes.keys()) this.remember(id);
    this.nodes.clear();
    this.setRoot(undefined);
  }
  private remember(id: number): void {
    if (this.undo !== undefined && !this.undo.has(id)) this.undo.set(id, this.nodes.get(id));
  }
}

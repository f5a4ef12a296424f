/**
 * The nodes of one B-tree as its operations see them: the store, the cache of decoded nodes
 * (./node-cache.ts), the value and reduction codecs, the root and the store generation the cache
 * reflects. Reads (./fold.ts, ./grouped-reduce.ts), writes (./update.ts, ./bulk-load.ts, `clear`
 * here) and ./verify.ts work through it; ./btree.ts is the public face.
 *
 * Before each operation the tree reads the root id and the store's generation; a generation it
 * did not write (a rolled-back transaction, another handle) drops the cache. A write bumps
 * `version`, which running iterators compare, and marks the cache dirty until it ends well.
 */
import { LeafNode } from './leaf.js';
import { DEFAULT_CACHE_BYTES, NodeCache } from './node-cache.js';
import { LEAF, asBuffer, decodeInner, encodeInner, type Entry, type Node, type Ptr } from './node.js';
import type { Reducer } from './reducer.js';
import type { NodeStore } from './store.js';

export interface BTreeOptions<V, R> {
  store: NodeStore;
  /** Omit for a map-only index: counts are still kept. */
  reducer?: Reducer<V, R>;
  /** Default: JSON text. */
  encodeValue?: (value: V) => Uint8Array;
  decodeValue?: (bytes: Buffer) => V;
  /** Default: JSON text. */
  encodeReduction?: (reduction: R) => Uint8Array;
  decodeReduction?: (bytes: Buffer) => R;
  /**
   * This tree is the only one using its store (no other handle, no caller transaction that may
   * roll back without calling `invalidate()`): reads then trust the cached root and nodes instead
   * of checking the store's generation first (two store reads per operation).
   */
  exclusive?: boolean;
  /** Target maximum encoded node size in bytes. Default 2048 (./chunks.ts says why). */
  nodeBytes?: number;
  /**
   * Memory the LRU cache of decoded nodes may take, in bytes (estimated: ./node-cache.ts).
   * Default DEFAULT_CACHE_BYTES; 0 disables the cache.
   */
  cacheBytes?: number;
}

const DEFAULT_NODE_BYTES = 2048;

const jsonEncode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value) ?? 'null');
const jsonDecode = (bytes: Buffer): never => JSON.parse(bytes.toString('utf8')) as never;

/** Thrown by an iterator resumed after a write to its tree. */
export function modifiedDuring(operation: string): never {
  throw new Error(`B-tree modified during ${operation}`);
}

export class TreeNodes<V, R> {
  readonly store: NodeStore;
  readonly reducer: Reducer<V, R> | undefined;
  readonly nodeBytes: number;
  /** Below this size a node is merged with a neighbour: every non-root node stays 1/4 to 1/1 full. */
  readonly minBytes: number;
  readonly encodeValue: (value: V) => Uint8Array;
  readonly decodeValue: (bytes: Buffer) => V;
  readonly encodeReduction: (reduction: R) => Uint8Array;
  readonly decodeReduction: (bytes: Buffer) => R;
  readonly cache: NodeCache<V, R>;
  root: number | undefined;
  /** Bumped by every write; running iterators compare it. */
  version = 0;
  /** Ids freed by this update (emptied, never replaced: V8 compiles a field it saw assigned once as a constant, and throws that code away at the next assignment). */
  readonly freeIds: number[] = [];
  /** The store generation the cache reflects (undefined: store without generations). */
  private gen: number | undefined;
  /** Set while a write runs, so a failed one drops the cache. */
  private dirty = false;
  private readonly exclusive: boolean;
  /** With `exclusive`: the cached root and nodes are known to match the store. */
  private synced = false;

  constructor(options: BTreeOptions<V, R>) {
    this.store = options.store;
    this.reducer = options.reducer;
    this.nodeBytes = Math.max(128, options.nodeBytes ?? DEFAULT_NODE_BYTES);
    this.minBytes = Math.floor(this.nodeBytes / 4);
    this.encodeValue = options.encodeValue ?? jsonEncode;
    this.decodeValue = options.decodeValue ?? jsonDecode;
    this.encodeReduction = options.encodeReduction ?? jsonEncode;
    this.decodeReduction = options.decodeReduction ?? jsonDecode;
    this.cache = new NodeCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.exclusive = options.exclusive ?? false;
    this.gen = undefined;
    this.dirty = true;
  }

  /** Forget what is cached (the caller rolled back a transaction holding an update). */
  invalidate(): void {
    this.synced = false;
    this.dirty = true;
  }

  /** Before an operation: the root from the store, and the cache dropped if the store moved on. */
  sync(): void {
    if (this.exclusive && this.synced && !this.dirty) return;
    this.synced = true;
    const gen = this.store.generation?.();
    if (this.dirty || gen !== this.gen) {
      this.cache.clear();
      this.gen = gen;
      this.dirty = false;
    }
    this.root = this.store.getRoot();
  }

  load(id: number): Node<V, R> {
    let node = this.cache.get(id);
    if (node === undefined) {
      const bytes = this.store.get(id);
      if (bytes === undefined) throw new Error(`B-tree node ${id} is missing`);
      node = this.decode(bytes);
      this.cache.set(id, node);
    }
    return node;
  }

  private decode(bytes: Uint8Array): Node<V, R> {
    return bytes[0] === LEAF
      ? LeafNode.decode(asBuffer(bytes), this.decodeValue)
      : decodeInner<R>(bytes, this.reducer === undefined ? undefined : this.decodeReduction);
  }

  countNode(node: Node<V, R>): number {
    if (node.leaf) return node.length;
    let n = 0;
    for (const p of node.ptrs) n += p.count;
    return n;
  }

  /** First (or last, descending) entry of a subtree. */
  edgeEntry(p: Ptr<R>, desc: boolean): Entry<V> {
    let node = this.load(p.id);
    while (!node.leaf) node = this.load(node.ptrs[desc ? node.ptrs.length - 1 : 0]!.id);
    return node.entry(desc ? node.length - 1 : 0);
  }

  requireReducer(): Reducer<V, R> {
    if (this.reducer === undefined) throw new Error('This B-tree has no reducer');
    return this.reducer;
  }

  // ---------------------------------------------------------------- writes

  /** Starts a write (after `sync`): running iterators go stale, the cache is suspect until `endWrite`. */
  beginWrite(): void {
    this.version++;
    this.dirty = true;
  }

  /** A write threw: the store rolled it back, so nothing cached or freed can be trusted. */
  abortWrite(): void {
    this.freeIds.length = 0;
    this.cache.clear();
    this.synced = false;
  }

  /** A write ended well: the cache reflects the store's new generation and root. */
  endWrite(): void {
    this.gen = this.store.generation?.();
    this.root = this.store.getRoot();
    this.dirty = false;
  }

  /** Runs `fn` in the store's transaction, if it has one. */
  atomic(fn: () => void): void {
    if (this.store.atomic !== undefined) this.store.atomic(fn);
    else fn();
  }

  /** A node id: one freed by this update, or a new one. */
  allocate(): number {
    return this.freeIds.pop() ?? this.store.allocate();
  }

  /** Writes pointers [from, to) as an inner node (cached if `cache`) and returns its pointer. */
  writeInner(ptrs: Ptr<R>[], from: number, to: number, bytes: number, cache = true): Ptr<R> {
    const id = this.allocate();
    const withReductions = this.reducer !== undefined;
    this.store.put(id, encodeInner(ptrs, from, to, bytes, withReductions), true);
    const ps = from === 0 && to === ptrs.length ? ptrs : ptrs.slice(from, to);
    if (cache) this.cache.set(id, { leaf: false, ptrs: ps });
    let count = 0;
    for (const p of ps) count += p.count;
    let red: R = undefined as R;
    let redRaw: Buffer | undefined;
    if (this.reducer !== undefined) {
      red = this.reducer.rereduce(ps.map((p) => p.red));
      redRaw = asBuffer(this.encodeReduction(red));
    }
    return { first: ps[0]!.first, last: ps[ps.length - 1]!.last, id, count, red, redRaw };
  }

  /** Removes every entry. */
  clear(): void {
    this.sync();
    this.beginWrite();
    if (this.store.clear !== undefined) {
      this.store.clear();
    } else {
      const root = this.root;
      this.atomic(() => {
        if (root !== undefined) this.deleteSubtree(root);
        this.store.setRoot(undefined);
      });
    }
    this.cache.clear();
    this.root = undefined;
    this.gen = this.store.generation?.();
    this.dirty = false;
    this.synced = false;
  }

  private deleteSubtree(id: number): void {
    const node = this.load(id);
    if (!node.leaf) for (const p of node.ptrs) this.deleteSubtree(p.id);
    this.store.delete(id);
  }
}

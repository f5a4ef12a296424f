/**
 * A B+tree with stored reductions: the core of a view index (CouchDB's couch_btree).
 *
 * Why. A view query is a range scan ("rows from startkey to endkey"), a count (total_rows,
 * offset), or a reduction of a range, possibly per group (group=true, group_level=N). A plain
 * ordered table answers the first cheaply and the others only by scanning every row. Here every
 * inner-node pointer carries, besides the child's id, its subtree's first and last key, its
 * entry count and its reduction (CouchDB's `{LastKey, {Ptr, Reduction, SubtreeSize}}`): leaves
 * are reduced with `reduce(entries)`, inner nodes with `rereduce(child reductions)`. Then
 *   - count / offset of a range sums the counts left of one root-to-leaf path: O(log n);
 *   - the reduction of a range uses the stored values of every subtree lying wholly inside it
 *     and reduces loose entries only at the two edges: O(log n) nodes;
 *   - foldReduce (group / group_level) uses a subtree's stored value when its first and last
 *     keys have the same group key as each other (groups are contiguous in key order, so the
 *     subtree lies wholly inside that group), and descends only at group edges:
 *     O(groups · log n) nodes, whatever the number of rows.
 *
 * Updates. `update` takes a batch of inserts and removes, sorts it once and walks the tree once
 * (CouchDB's query_modify), from action to action (untouched children are passed over by binary
 * search): each touched leaf is merged with its slice of the batch (old items go over as byte
 * runs, ./leaf.ts LeafItems), and each touched node is re-chunked into as many nodes as its new
 * content needs, so splits of any fan-out happen in one pass and a bulk load into an empty tree
 * is a bottom-up build. A node left
 * below a quarter of the size limit is merged with a neighbour (then re-chunked), so all leaves
 * stay at one depth and every non-root node is between 1/4 and 1/1 full. Only the changed paths
 * are rewritten and re-reduced, and a leaf rewritten in place whose pointer comes out the same
 * (same edge keys, count and reduction: new values under the same keys, counted by _count) leaves
 * its parent alone. Nodes are rewritten in place (same id), ids freed by merges are
 * reused within the batch and deleted at its end. The root id and a generation number are
 * stored with the nodes; the whole update runs in `store.atomic` (a SAVEPOINT for SQLite), so a
 * throwing reducer leaves the tree as it was.
 *
 * Node size: by encoded bytes, not entry count, because view values range from nothing to whole
 * documents. Chunks are cut near 85% of `nodeBytes` so a freshly built node absorbs a few inserts
 * before it splits. Default 2048 bytes: ≈ 25 rows of ~35-byte keys and short values per leaf,
 * ≈ 25 pointers per inner node, 4 levels for 175k rows, 5 for 1M. Small nodes make cheaper
 * updates, because random changes touch about as many leaves either way and bigger leaves mean
 * more bytes rewritten and re-reduced per touched leaf (and 4 KB+ blobs spill into SQLite
 * overflow pages, while two 2 KB nodes share a 4 KB page); grouped queries favour big nodes
 * (fewer pointers to visit). 2048 is about as cheap to update as CouchDB's 1279 (the sweep of
 * sizes: docs/benchmarks.md, "Measurements behind design choices"). Bulk builds are alike.
 *
 * Bulk load: `bulkLoad` fills an empty tree from entries already sorted and encoded (an index
 * build sorts its rows externally, ./run-sort.ts), cutting every level into nodes as the items
 * stream in: one pass, no reads, memory for about two nodes per level.
 *
 * Cache: an LRU of decoded nodes, `cacheNodes` nodes (default 20,000: ≈ 500k rows of leaves), so
 * warm queries do no store reads and no parsing. A leaf stays as its encoded bytes plus item
 * offsets (./leaf.ts), an inner node is decoded (pointers with decoded reductions): leaves
 * decoded into an object per entry took about three times the memory (docs/benchmarks.md).
 * Writes put the new node in the cache. Before each
 * operation the tree reads the root id and the store's generation; a generation it did not
 * write (a rolled-back transaction, another handle) drops the cache.
 *
 * Iteration. `fold` and `foldReduce` are generators that fetch nodes by id as they go (no
 * statement stays open across a yield). They must not be resumed after an `update` or `clear`
 * of the same tree: they throw if they are.
 */
import { LeafItems, LeafNode } from './leaf.js';
import {
  LEAF,
  NODE_HEADER_BYTES,
  asBuffer,
  compareKeys,
  decodeInner,
  encodeInner,
  encodeLeafOf,
  entryBytes,
  keysEqual,
  ptrBytes,
  type Entry,
  type InnerNode,
  type Node,
  type Ptr,
} from './node.js';
import { sortByKey } from './sort.js';
import type { NodeStore } from './store.js';

/** Caller-supplied, synchronous reduce functions. R is opaque (e.g. one reduction per view). */
export interface Reducer<V, R> {
  /** Reduction of leaf entries (called with [] for an empty range). */
  reduce(entries: readonly Entry<V>[]): R;
  /**
   * Set when the reduction of entries depends on nothing but how many there are (a `_count`):
   * rewritten leaves are then reduced without making an entry object per row.
   */
  reduceCount?(count: number): R;
  /** Reduction of reductions. */
  rereduce(reductions: readonly R[]): R;
}

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
  /** Target maximum encoded node size in bytes. Default 2048. */
  nodeBytes?: number;
  /** Decoded nodes kept in the LRU cache. Default 20,000; 0 disables the cache. */
  cacheNodes?: number;
}

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

export interface FoldOptions {
  descending?: boolean;
  /** Entries to skip from the start of the range, in O(log n) using subtree counts. */
  skip?: number;
}

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

const FILL = 0.85;
const DEFAULT_NODE_BYTES = 2048;
const DEFAULT_CACHE_NODES = 20_000;

interface Action {
  key: Buffer;
  /** The encoded value to insert; undefined: remove. */
  raw: Buffer | undefined;
}

/** Content of a node that is not written (yet), because it is below the minimum size. */
interface PendingLeaf<V> {
  pending: true;
  leaf: true;
  items: LeafItems<V>;
}
interface PendingInner<V, R> {
  pending: true;
  leaf: false;
  kids: Kid<V, R>[];
}
type Pending<V, R> = PendingLeaf<V> | PendingInner<V, R>;
type Kid<V, R> = Ptr<R> | Pending<V, R>;

function isPending<V, R>(k: Kid<V, R>): k is Pending<V, R> {
  return (k as Pending<V, R>).pending === true;
}

interface Bounds {
  lo: Buffer | undefined;
  loIncl: boolean;
  hi: Buffer | undefined;
  hiIncl: boolean;
  desc: boolean;
}

/** The range in key order; undefined when it is empty. */
function toBounds(range: KeyRange, desc: boolean): Bounds | undefined {
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

function aboveLo(key: Buffer, b: Bounds): boolean {
  return b.lo === undefined || inAboveLo(compareKeys(key, b.lo), b);
}

function belowHi(key: Buffer, b: Bounds): boolean {
  return b.hi === undefined || inBelowHi(compareKeys(key, b.hi), b);
}

/** The first index in [lo, hi) where `before` turns false (it holds for a prefix of the range, then never). */
function partitionPoint(lo: number, hi: number, before: (i: number) => boolean): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (before(m)) lo = m + 1;
    else hi = m;
  }
  return lo;
}

// The searches of an update, written out (no closure per call: they run a few times per action).

/** The first child in [lo, hi) whose last key is not below `key`, or `hi`. */
function childOf(ps: readonly Ptr<unknown>[], lo: number, hi: number, key: Buffer): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (compareKeys(ps[m]!.last, key) < 0) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/**
 * The end of the actions from `lo` whose keys are not above `last` (acts are sorted; `lo` is
 * past one that is). Galloping from `lo`: near the leaves a child gets one or two actions, so
 * the end is found in a few compares instead of a search over the whole batch.
 */
function actsUpTo(acts: readonly Action[], lo: number, hi: number, last: Buffer): number {
  let step = 1;
  let bound = lo;
  while (bound < hi && compareKeys(acts[bound]!.key, last) <= 0) {
    lo = bound + 1;
    bound = lo + step;
    step *= 2;
  }
  if (bound < hi) hi = bound;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (compareKeys(acts[m]!.key, last) <= 0) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** The first item in [lo, hi) of a leaf whose key is not below `key`, or `hi`. */
function leafPosition(leaf: LeafNode<unknown>, lo: number, hi: number, key: Buffer): number {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (leaf.compareKeyAt(m, key) < 0) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** aboveLo for entry i of a leaf, compared in place. */
function leafAboveLo(leaf: LeafNode<unknown>, i: number, b: Bounds): boolean {
  return b.lo === undefined || inAboveLo(leaf.compareKeyAt(i, b.lo), b);
}

/** belowHi for entry i of a leaf, compared in place. */
function leafBelowHi(leaf: LeafNode<unknown>, i: number, b: Bounds): boolean {
  return b.hi === undefined || inBelowHi(leaf.compareKeyAt(i, b.hi), b);
}

/** First entry index at or above the low bound. */
function lowerIndex(leaf: LeafNode<unknown>, b: Bounds): number {
  if (b.lo === undefined) return 0;
  return partitionPoint(0, leaf.length, (m) => !leafAboveLo(leaf, m, b));
}

/** First entry index above the high bound. */
function upperIndex(leaf: LeafNode<unknown>, b: Bounds): number {
  if (b.hi === undefined) return leaf.length;
  return partitionPoint(0, leaf.length, (m) => leafBelowHi(leaf, m, b));
}

/** First child whose last key is at or above the low bound (ptrs.length if none). */
function firstPtrAbove(ps: readonly Ptr<unknown>[], b: Bounds): number {
  if (b.lo === undefined) return 0;
  return partitionPoint(0, ps.length, (m) => !aboveLo(ps[m]!.last, b));
}

/** Last child whose first key is at or below the high bound (-1 if none). */
function lastPtrBelow(ps: readonly Ptr<unknown>[], b: Bounds): number {
  if (b.hi === undefined) return ps.length - 1;
  return partitionPoint(0, ps.length, (m) => belowHi(ps[m]!.first, b)) - 1;
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

/** LRU of decoded nodes: a Map in recency order. */
class NodeCache<V, R> {
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

const jsonEncode = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value) ?? 'null');
const jsonDecode = (bytes: Buffer): never => JSON.parse(bytes.toString('utf8')) as never;

/**
 * One level of a bulk load: items (leaf entries, or pointers to the level below) are cut into
 * nodes of about FILL × nodeBytes as they come; a cut chunk is written once the next one has
 * started, so that a small last chunk can be evened out with it. Written nodes go up as pointers
 * to the next level, made on demand.
 */
class LevelBuilder<T, R> {
  private items: T[] = [];
  private sizes: number[] = [];
  private bytes = NODE_HEADER_BYTES;
  private prev: { items: T[]; sizes: number[]; bytes: number } | undefined;
  private parent: LevelBuilder<Ptr<R>, R> | undefined;
  private readonly max: number;
  private readonly target: number;
  private readonly minItems: number;

  private readonly leaf: boolean;

  /** `level` 0 builds leaves, 1 their parents, and so on. */
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: a writer never reads values, so any value type fits (V is contravariant in encodeValue)
    private readonly tree: BTree<any, R>,
    private readonly level: number,
  ) {
    this.leaf = level === 0;
    const leaf = this.leaf;
    this.max = tree.nodeBytes;
    this.target = tree.nodeBytes * FILL;
    this.minItems = leaf ? 1 : 2;
  }

  add(item: T, size: number): void {
    if (this.items.length >= this.minItems && (this.bytes + size > this.max || this.bytes + size / 2 > this.target)) {
      if (this.prev !== undefined) this.emit(this.prev.items, 0, this.prev.items.length, this.prev.bytes);
      this.prev = { items: this.items, sizes: this.sizes, bytes: this.bytes };
      this.items = [];
      this.sizes = [];
      this.bytes = NODE_HEADER_BYTES;
    }
    this.items.push(item);
    this.sizes.push(size);
    this.bytes += size;
  }

  /** Writes what is left, then the levels above; returns the root id. */
  finish(): number | undefined {
    const prev = this.prev;
    if (prev === undefined && this.parent === undefined) {
      // The top level: one node (whatever its size), or nothing.
      if (this.items.length === 0) return undefined;
      if (!this.leaf && this.items.length === 1) return (this.items[0] as Ptr<R>).id;
      return this.write(this.items, 0, this.items.length, this.bytes).id;
    }
    if (prev !== undefined && (this.bytes < this.tree.nodeBytes / 4 || this.items.length < this.minItems)) {
      // Even out the last two chunks.
      const items = prev.items.concat(this.items);
      const sizes = prev.sizes.concat(this.sizes);
      let total = NODE_HEADER_BYTES;
      for (const size of sizes) total += size;
      let from = 0;
      for (const to of this.tree.chunkEnds(sizes, total, this.minItems)) {
        let bytes = NODE_HEADER_BYTES;
        for (let i = from; i < to; i++) bytes += sizes[i]!;
        this.emit(items, from, to, bytes);
        from = to;
      }
    } else {
      if (prev !== undefined) this.emit(prev.items, 0, prev.items.length, prev.bytes);
      if (this.items.length > 0) this.emit(this.items, 0, this.items.length, this.bytes);
    }
    return this.parent!.finish();
  }

  private emit(items: T[], from: number, to: number, bytes: number): void {
    const ptr = this.write(items, from, to, bytes);
    this.parent ??= new LevelBuilder<Ptr<R>, R>(this.tree, this.level + 1);
    this.parent.add(ptr, ptrBytes(ptr));
  }

  private write(items: T[], from: number, to: number, bytes: number): Ptr<R> {
    if (this.leaf) {
      const keys: Buffer[] = [];
      const raws: Buffer[] = [];
      for (let i = from; i < to; i++) {
        const [key, raw] = items[i] as [Buffer, Buffer];
        keys.push(key);
        raws.push(raw);
      }
      return this.tree.writeBuiltLeaf(keys, raws, 0, keys.length, bytes);
    }
    // The parents of leaves hold a pointer (with its edge keys) per leaf: most of a build's
    // memory if cached, and each is read by few queries. Levels above them are cached.
    return this.tree.writeBuiltInner(
      (items as Ptr<R>[]).slice(from, to),
      bytes,
      this.level >= 2 || this.tree.cacheBuilt,
    );
  }
}

/** An entry of a bulk load: the value is decoded only if a reducer asks for it. */
class RawEntry<V> implements Entry<V> {
  constructor(
    readonly key: Buffer,
    private readonly raw: Buffer,
    private readonly decode: (bytes: Buffer) => V,
  ) {}
  get value(): V {
    return this.decode(this.raw);
  }
}

export class BTree<V, R = undefined> {
  readonly store: NodeStore;
  readonly reducer: Reducer<V, R> | undefined;
  readonly nodeBytes: number;
  private readonly minBytes: number;
  private readonly encodeValue: (value: V) => Uint8Array;
  private readonly decodeValue: (bytes: Buffer) => V;
  private readonly encodeReduction: (reduction: R) => Uint8Array;
  private readonly decodeReduction: (bytes: Buffer) => R;
  private readonly cache: NodeCache<V, R>;
  private root: number | undefined;
  /** The store generation the cache reflects (undefined: store without generations). */
  private gen: number | undefined;
  /** Set while an update runs, so a failed one drops the cache. */
  private dirty = false;
  private readonly exclusive: boolean;
  /** With `exclusive`: the cached root and nodes are known to match the store. */
  private synced = false;
  /** Bumped by every update / clear; running iterators compare it. */
  private version = 0;
  /** Where bulkLoad encodes leaves (stores copy what they keep). */
  private scratch: Buffer = Buffer.alloc(0);
  /** For bulkLoad's levels: the running bulkLoad caches the leaves it writes (and their parents). */
  cacheBuilt = false;
  /** Ids of nodes dropped during the current update: reused first, deleted at its end. */
  /** Ids freed by this update (emptied, never replaced: V8 compiles a field it saw assigned once as a constant, and throws that code away at the next assignment). */
  private readonly freeIds: number[] = [];

  constructor(options: BTreeOptions<V, R>) {
    this.store = options.store;
    this.reducer = options.reducer;
    this.nodeBytes = Math.max(128, options.nodeBytes ?? DEFAULT_NODE_BYTES);
    this.minBytes = Math.floor(this.nodeBytes / 4);
    this.encodeValue = options.encodeValue ?? jsonEncode;
    this.decodeValue = options.decodeValue ?? jsonDecode;
    this.encodeReduction = options.encodeReduction ?? jsonEncode;
    this.decodeReduction = options.decodeReduction ?? jsonDecode;
    this.cache = new NodeCache(options.cacheNodes ?? DEFAULT_CACHE_NODES);
    this.exclusive = options.exclusive ?? false;
    this.gen = undefined;
    this.dirty = true;
  }

  /** Decoded nodes currently cached. */
  get cachedNodes(): number {
    return this.cache.size;
  }

  // ---------------------------------------------------------------- reads

  /** Entries in the range, in key order (or reverse with `descending`). */
  *fold(range: KeyRange = {}, options: FoldOptions = {}): Generator<Entry<V>, void, undefined> {
    this.sync();
    const version = this.version;
    const desc = options.descending === true;
    const b = toBounds(range, desc);
    if (b === undefined || this.root === undefined) return;
    const skip = options.skip ?? 0;
    const stack: InnerNode<R>[] = [];
    const idxs: number[] = [];
    let node = this.load(this.root);
    let i: number;
    if (skip > 0) {
      let pos = desc
        ? (b.hi === undefined ? this.countNode(node) : this.rank(b.hi, b.hiIncl)) - 1 - skip
        : (b.lo === undefined ? 0 : this.rank(b.lo, !b.loIncl)) + skip;
      if (pos < 0) return;
      while (!node.leaf) {
        const ps = node.ptrs;
        let c = 0;
        while (c < ps.length && pos >= ps[c]!.count) pos -= ps[c++]!.count;
        if (c === ps.length) return;
        stack.push(node);
        idxs.push(c);
        node = this.load(ps[c]!.id);
      }
      i = pos;
    } else {
      while (!node.leaf) {
        const ps = node.ptrs;
        const c = desc ? lastPtrBelow(ps, b) : firstPtrAbove(ps, b);
        if (c < 0 || c >= ps.length) return;
        stack.push(node);
        idxs.push(c);
        node = this.load(ps[c]!.id);
      }
      i = desc ? upperIndex(node, b) - 1 : lowerIndex(node, b);
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
          if (this.version !== version) throw new Error('B-tree modified during fold');
        }
      } else {
        const free = b.lo === undefined || (size > 0 && leafAboveLo(leaf, 0, b));
        for (; i >= 0; i--) {
          if (!free && !leafAboveLo(leaf, i, b)) return;
          yield leaf.entry(i);
          if (this.version !== version) throw new Error('B-tree modified during fold');
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
      let n = this.load(stack[d]!.ptrs[idxs[d]!]!.id);
      while (!n.leaf) {
        const c = desc ? n.ptrs.length - 1 : 0;
        stack.push(n);
        idxs.push(c);
        n = this.load(n.ptrs[c]!.id);
      }
      leaf = n;
      i = desc ? leaf.length - 1 : 0;
    }
  }

  /** The value stored under `key`. */
  get(key: Buffer): V | undefined {
    for (const e of this.fold({ start: key, end: key })) return e.value;
    return undefined;
  }

  /** Entries in the range, in O(log n). */
  count(range: KeyRange = {}, options: { descending?: boolean } = {}): number {
    this.sync();
    const b = toBounds(range, options.descending === true);
    if (b === undefined || this.root === undefined) return 0;
    const hi = b.hi === undefined ? this.countNode(this.load(this.root)) : this.rank(b.hi, b.hiIncl);
    const lo = b.lo === undefined ? 0 : this.rank(b.lo, !b.loIncl);
    return Math.max(0, hi - lo);
  }

  /** Entries with a key below `key` (CouchDB's offset), in O(log n). */
  countBefore(key: Buffer): number {
    this.sync();
    return this.rank(key, false);
  }

  /** All entries (CouchDB's total_rows): the root's count. */
  totalCount(): number {
    this.sync();
    return this.root === undefined ? 0 : this.countNode(this.load(this.root));
  }

  /** The reduction of the entries in the range: reduce([]) when it is empty. O(log n) nodes. */
  reduce(range: KeyRange = {}, options: { descending?: boolean } = {}): R {
    const reducer = this.requireReducer();
    const it = this.foldReduce(range, { descending: options.descending, groupKey: () => null });
    const r = it.next();
    it.return(undefined);
    return r.done === true ? reducer.reduce([]) : r.value.reduction;
  }

  /**
   * One reduction per group in the range, in iteration order (CouchDB's fold_reduce). A subtree
   * whose first and last keys have the current group's key contributes its stored reduction;
   * nodes are descended only where a group starts or ends. Each group is
   * `rereduce([reduce(loose entries), ...stored])`, or the single stored value / reduce(loose).
   */
  *foldReduce(range: KeyRange = {}, options: FoldReduceOptions): Generator<ReduceGroup<V, R>, void, undefined> {
    const reducer = this.requireReducer();
    this.sync();
    const version = this.version;
    const b = toBounds(range, options.descending === true);
    if (b === undefined || this.root === undefined) return;
    const acc = new GroupAcc<V, R>(reducer, options.groupKey, b.desc);
    const groupKey = options.groupKey;
    const desc = b.desc;
    const modified = (): never => {
      throw new Error('B-tree modified during foldReduce');
    };
    // Iterative walk (no generator per node): a stack of inner nodes with the next child to
    // visit and whether the range's low / high bound is already satisfied below them.
    const nodes: (readonly Ptr<R>[])[] = [];
    const next: number[] = [];
    const coveredLo: boolean[] = [];
    const coveredHi: boolean[] = [];
    let node: Node<V, R> | undefined = this.load(this.root);
    let inLo = b.lo === undefined;
    let inHi = b.hi === undefined;
    for (;;) {
      if (node?.leaf) {
        const leaf = node;
        const from = inLo ? 0 : lowerIndex(leaf, b);
        const to = inHi ? leaf.length : upperIndex(leaf, b);
        const groupAt = (i: number) => groupKey(leaf.keyAt(i));
        if (!desc) {
          let i = from;
          while (i < to) {
            const g = groupAt(i);
            // End of the run of entries in group g: the last entry, or a binary search.
            let j = to;
            if (!sameGroup(groupAt(to - 1), g)) {
              let lo = i;
              let hi = to - 1;
              while (hi - lo > 1) {
                const m = (lo + hi) >>> 1;
                if (sameGroup(groupAt(m), g)) lo = m;
                else hi = m;
              }
              j = hi;
            }
            if (acc.active && !sameGroup(acc.key, g)) {
              yield acc.finish();
              if (this.version !== version) modified();
            }
            if (!acc.active) acc.start(g, leaf.entry(i));
            acc.runs.push(leaf.entries(i, j));
            i = j;
          }
        } else {
          let i = to - 1;
          while (i >= from) {
            const g = groupAt(i);
            let j = from;
            if (!sameGroup(groupAt(from), g)) {
              let lo = from;
              let hi = i;
              while (hi - lo > 1) {
                const m = (lo + hi) >>> 1;
                if (sameGroup(groupAt(m), g)) hi = m;
                else lo = m;
              }
              j = hi;
            }
            if (acc.active && !sameGroup(acc.key, g)) {
              yield acc.finish();
              if (this.version !== version) modified();
            }
            if (!acc.active) acc.start(g, leaf.entry(i));
            acc.runs.push(leaf.entries(j, i + 1));
            i = j - 1;
          }
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
      next[d] = c + (desc ? -1 : 1);
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
            if (this.version !== version) modified();
          }
          acc.start(far, this.edgeEntry(p, desc));
          acc.reds.push(p.red);
          if (cLo && cHi) next[d] = gallop(ps, c, desc, groupKey, far, acc.reds);
          continue;
        }
      }
      node = this.load(p.id);
    }
    if (acc.active) yield acc.finish();
  }

  /** Number of entries with a key below `key` (or at most `key` when inclusive). */
  private rank(key: Buffer, inclusive: boolean): number {
    let id = this.root;
    if (id === undefined) return 0;
    /** Whether a key comparing `c` with `key` counts. */
    const below = (c: number): boolean => c < 0 || (inclusive && c === 0);
    let n = 0;
    for (;;) {
      const node = this.load(id);
      if (node.leaf) return n + partitionPoint(0, node.length, (m) => below(node.compareKeyAt(m, key)));
      const ps = node.ptrs;
      const lo = partitionPoint(0, ps.length, (m) => below(compareKeys(ps[m]!.last, key)));
      for (let i = 0; i < lo; i++) n += ps[i]!.count;
      if (lo === ps.length) return n;
      id = ps[lo]!.id;
    }
  }

  private countNode(node: Node<V, R>): number {
    if (node.leaf) return node.length;
    let n = 0;
    for (const p of node.ptrs) n += p.count;
    return n;
  }

  /** First (or last, descending) entry of a subtree. */
  private edgeEntry(p: Ptr<R>, desc: boolean): Entry<V> {
    let node = this.load(p.id);
    while (!node.leaf) node = this.load(node.ptrs[desc ? node.ptrs.length - 1 : 0]!.id);
    return node.entry(desc ? node.length - 1 : 0);
  }

  private requireReducer(): Reducer<V, R> {
    if (this.reducer === undefined) throw new Error('This B-tree has no reducer');
    return this.reducer;
  }

  /** Forget what is cached (the caller rolled back a transaction holding an update). */
  invalidate(): void {
    this.synced = false;
    this.dirty = true;
  }

  private sync(): void {
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

  private decode(bytes: Uint8Array): Node<V, R> {
    return bytes[0] === LEAF
      ? LeafNode.decode(asBuffer(bytes), this.decodeValue)
      : decodeInner<R>(bytes, this.reducer === undefined ? undefined : this.decodeReduction);
  }

  private load(id: number): Node<V, R> {
    let node = this.cache.get(id);
    if (node === undefined) {
      const bytes = this.store.get(id);
      if (bytes === undefined) throw new Error(`B-tree node ${id} is missing`);
      node = this.decode(bytes);
      this.cache.set(id, node);
    }
    return node;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Applies a batch: `inserts` (new keys, or new values for existing keys) and `removes` (keys;
   * absent ones are ignored). A key both removed and inserted ends up inserted; of several
   * inserts of one key the last wins. The tree takes ownership of the keys and values passed
   * (they must not be mutated afterwards). Re-inserting a key with byte-identical encoded
   * value leaves its leaf untouched.
   */
  update(inserts: readonly Entry<V>[], removes: readonly Buffer[] = []): void {
    if (inserts.length === 0 && removes.length === 0) return;
    const acts = this.prepare(inserts, removes);
    this.sync();
    this.version++;
    this.dirty = true;
    try {
      if (this.store.atomic !== undefined) this.store.atomic(() => this.apply(acts));
      else this.apply(acts);
    } catch (err) {
      this.freeIds.length = 0;
      this.cache.clear();
      this.synced = false;
      throw err;
    }
    this.gen = this.store.generation?.();
    this.root = this.store.getRoot();
    this.dirty = false;
  }

  /**
   * Builds the tree from entries given in ascending key order, already encoded (`encodeValue`
   * bytes), in one pass: every level is cut into nodes as its items stream in (leaves from the
   * entries, each inner level from the pointers written below it), so memory holds about two
   * nodes per level whatever the number of entries. Of equal keys the last wins. The tree must
   * be empty. The keys and values passed need to stay valid only until a few more leaves'
   * worth of entries were passed (they may be views into a recycled buffer). Built inner nodes
   * above the leaves' parents are cached; the leaves (and their parents) with `cacheLeaves`,
   * for a caller that knows the whole tree fits in the cache it means to spend: a cached leaf
   * is its bytes plus item offsets (./leaf.ts), so the first updates after a build start warm.
   */
  bulkLoad(entries: Iterable<readonly [key: Buffer, raw: Buffer]>, options: { cacheLeaves?: boolean } = {}): void {
    const run = (): void => {
      for (const _ of this.bulkLoadSteps(entries, options, Infinity));
    };
    if (this.store.atomic !== undefined) this.store.atomic(run);
    else run();
  }

  /**
   * `bulkLoad` a step at a time: it pauses (yields) after every `every` entries, so a caller
   * whose store's writes belong to its own open transaction can let other work run in between
   * (a big index build then does not hold up every other request). Readers see the tree empty
   * until the last step sets its root.
   */
  *bulkLoadSteps(
    entries: Iterable<readonly [key: Buffer, raw: Buffer]>,
    options: { cacheLeaves?: boolean } = {},
    every = 8192,
  ): Generator<void> {
    this.sync();
    if (this.root !== undefined) throw new Error('B-tree bulkLoad needs an empty tree');
    this.version++;
    this.dirty = true;
    try {
      this.cache.clear();
      this.cacheBuilt = options.cacheLeaves === true;
      const leaves = new LevelBuilder<[Buffer, Buffer], R>(this, 0);
      let pendingKey: Buffer | undefined;
      let pendingRaw: Buffer | undefined;
      let count = 0;
      for (const [key, raw] of entries) {
        if (pendingKey !== undefined) {
          const c = compareKeys(pendingKey, key);
          if (c > 0) throw new Error('B-tree bulkLoad: entries out of order');
          if (c < 0) leaves.add([pendingKey, pendingRaw!], entryBytes(pendingKey, pendingRaw!));
        }
        pendingKey = key;
        pendingRaw = raw;
        if (++count >= every) {
          count = 0;
          yield;
        }
      }
      if (pendingKey !== undefined) leaves.add([pendingKey, pendingRaw!], entryBytes(pendingKey, pendingRaw!));
      const root = leaves.finish();
      this.store.setRoot(root);
      this.root = root;
    } catch (err) {
      this.freeIds.length = 0;
      this.cache.clear();
      this.synced = false;
      throw err;
    } finally {
      this.cacheBuilt = false;
    }
    this.gen = this.store.generation?.();
    this.root = this.store.getRoot();
    this.dirty = false;
  }

  /** For bulkLoad's levels: the chunk ends of items of the given sizes (see `cuts`). */
  chunkEnds(sizes: number[], total: number, minItems: number): number[] {
    return this.cuts(sizes, total, minItems);
  }

  /** For bulkLoad's inner levels: writes pointers as an inner node (cached if `cache`). */
  writeBuiltInner(ptrs: Ptr<R>[], bytes: number, cache: boolean): Ptr<R> {
    return this.writeInner(ptrs, 0, ptrs.length, bytes, cache);
  }

  /** For bulkLoad: writes a leaf of encoded entries [from, to) (cached with `cacheLeaves`); its pointer owns copies of the edge keys. */
  writeBuiltLeaf(keys: Buffer[], raws: Buffer[], from: number, to: number, bytes: number): Ptr<R> {
    const id = this.allocate();
    if (this.scratch.length < bytes) this.scratch = Buffer.allocUnsafe(Math.max(bytes, 2 * this.nodeBytes));
    const encoded = encodeLeafOf(keys, raws, from, to, bytes, this.scratch);
    this.store.put(id, encoded);
    if (this.cacheBuilt) {
      // A copy: the scratch buffer and the entries' bytes are reused.
      this.cache.set(id, LeafNode.decode(Buffer.from(encoded), this.decodeValue));
    }
    let red: R = undefined as R;
    let redRaw: Buffer | undefined;
    if (this.reducer !== undefined) {
      const reducer = this.reducer;
      if (reducer.reduceCount !== undefined) red = reducer.reduceCount(to - from);
      else {
        const entries: Entry<V>[] = [];
        for (let i = from; i < to; i++) entries.push(new RawEntry(keys[i]!, raws[i]!, this.decodeValue));
        red = reducer.reduce(entries);
      }
      redRaw = asBuffer(this.encodeReduction(red));
    }
    return { first: Buffer.from(keys[from]!), last: Buffer.from(keys[to - 1]!), id, count: to - from, red, redRaw };
  }

  /** Removes every entry. */
  clear(): void {
    this.sync();
    this.version++;
    this.dirty = true;
    if (this.store.clear !== undefined) {
      this.store.clear();
    } else {
      const root = this.root;
      const run = (): void => {
        if (root !== undefined) this.deleteSubtree(root);
        this.store.setRoot(undefined);
      };
      if (this.store.atomic !== undefined) this.store.atomic(run);
      else run();
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

  /** Sorted, deduplicated actions with encoded values. */
  private prepare(inserts: readonly Entry<V>[], removes: readonly Buffer[]): Action[] {
    const n = removes.length + inserts.length;
    // push, not new Array(n): V8 makes arrays preallocated beyond 100k elements dictionary-mode.
    const acts: Action[] = [];
    for (let i = 0; i < removes.length; i++) acts.push({ key: removes[i]!, raw: undefined });
    for (let i = 0; i < inserts.length; i++) {
      const e = inserts[i]!;
      acts.push({ key: e.key, raw: asBuffer(this.encodeValue(e.value)) });
    }
    let sorted = true;
    for (let i = 1; i < n; i++) {
      if (compareKeys(acts[i - 1]!.key, acts[i]!.key) >= 0) {
        sorted = false;
        break;
      }
    }
    if (sorted) return acts;
    // Stable: for equal keys, removes (listed first) stay before inserts, inserts in order.
    const sortedActs = sortByKey(acts);
    let w = 0;
    for (let i = 0; i < n; i++) {
      const act = sortedActs[i]!;
      if (w > 0 && keysEqual(sortedActs[w - 1]!.key, act.key)) sortedActs[w - 1] = act;
      else sortedActs[w++] = act;
    }
    sortedActs.length = w;
    return sortedActs;
  }

  private apply(acts: Action[]): void {
    let kids: Kid<V, R>[] | null;
    if (this.root === undefined) {
      const items = new LeafItems<V>();
      for (const a of acts) if (a.raw !== undefined) items.pushNew(a);
      kids = this.materializeLeaf(items, false);
    } else {
      kids = this.modify(this.root, acts, 0, acts.length);
    }
    const root = kids === null ? this.root : this.buildRoot(kids);
    this.store.setRoot(root);
    this.root = root;
    for (const id of this.freeIds) {
      this.store.delete(id);
      this.cache.delete(id);
    }
    this.freeIds.length = 0;
  }

  private allocate(): number {
    return this.freeIds.pop() ?? this.store.allocate();
  }

  /**
   * Applies acts[a, b) to the subtree at `id`. Returns what replaces it (written pointers, or
   * one pending content below the minimum size, or nothing), or null when nothing changed.
   */
  private modify(id: number, acts: Action[], a: number, b: number, old?: Ptr<R>): Kid<V, R>[] | null {
    const node = this.load(id);
    if (node.leaf) {
      const merged = mergeLeaf(node, acts, a, b);
      if (merged === null) return null;
      this.freeIds.push(id);
      return this.materializeLeaf(merged, false, old);
    }
    const ps = node.ptrs;
    const kids: Kid<V, R>[] = [];
    let changed = false;
    const lastChild = ps.length - 1;
    // From action to action: the child it goes to (the first whose last key is not below it, or
    // the last child), and the actions up to that child's last key. Untouched children are
    // passed over by binary search, a few compares each, whether actions are few or many.
    let c = 0;
    for (let i = a; i < b; ) {
      const target = childOf(ps, c, lastChild, acts[i]!.key);
      for (; c < target; c++) kids.push(ps[c]!);
      const p = ps[c]!;
      const j = c === lastChild ? b : actsUpTo(acts, i + 1, b, p.last);
      const out = this.modify(p.id, acts, i, j, p);
      // A child rewritten in place with the same keys, count and reduction (say new values under
      // the same keys, counted by _count): its pointer, hence this node, needs no rewrite.
      if (out === null || (out.length === 1 && samePtr(out[0]!, p))) kids.push(p);
      else {
        changed = true;
        for (const k of out) kids.push(k);
      }
      c++;
      i = j;
    }
    if (!changed) return null;
    for (; c <= lastChild; c++) kids.push(ps[c]!);
    this.freeIds.push(id);
    this.normalize(kids);
    return this.materializeInner(kids, false);
  }

  /** Merges every pending (underfull) kid with a neighbour, while there is a neighbour. */
  private normalize(kids: Kid<V, R>[]): void {
    let i = 0;
    while (i < kids.length && kids.length > 1) {
      if (!isPending(kids[i]!)) {
        i++;
        continue;
      }
      const lo = i + 1 < kids.length ? i : i - 1;
      const merged = this.mergeKids(kids[lo]!, kids[lo + 1]!);
      kids.splice(lo, 2, ...merged);
      i = lo;
    }
  }

  private mergeKids(x: Kid<V, R>, y: Kid<V, R>): Kid<V, R>[] {
    const cx = this.contentOf(x);
    const cy = this.contentOf(y);
    if (cx.leaf !== cy.leaf) throw new Error('B-tree merge of nodes at different levels');
    if (cx.leaf) {
      return this.materializeLeaf(cx.items.concat((cy as PendingLeaf<V>).items), false);
    }
    const kids = cx.kids.concat((cy as PendingInner<V, R>).kids);
    this.normalize(kids);
    return this.materializeInner(kids, false);
  }

  /** A kid's items; a written node is read and its id freed. */
  private contentOf(k: Kid<V, R>): Pending<V, R> {
    if (isPending(k)) return k;
    const node = this.load(k.id);
    this.freeIds.push(k.id);
    return node.leaf
      ? { pending: true, leaf: true, items: LeafItems.of(node) }
      : { pending: true, leaf: false, kids: node.ptrs.slice() };
  }

  /** Stacks levels on the batch's top-level result until one root remains. */
  private buildRoot(kids: Kid<V, R>[]): number | undefined {
    for (;;) {
      if (kids.length === 0) return undefined;
      if (kids.length === 1) {
        const k = kids[0]!;
        if (!isPending(k)) return k.id;
        if (k.leaf) kids = this.materializeLeaf(k.items, true);
        else if (k.kids.length === 1)
          kids = k.kids; // a root with one child: drop a level
        else kids = this.materializeInner(k.kids, true);
        continue;
      }
      this.normalize(kids);
      if (kids.length > 1) kids = this.materializeInner(kids, true);
    }
  }

  /**
   * Writes entries as leaves; below the minimum size (unless `force`) returns them pending.
   * `old`: the pointer to the leaf being rewritten, whose edge keys a new leaf may share.
   */
  private materializeLeaf(items: LeafItems<V>, force: boolean, old?: Ptr<R>): Kid<V, R>[] {
    const n = items.length;
    if (n === 0) return [];
    const total = NODE_HEADER_BYTES + items.bytes;
    if (!force && total < this.minBytes) return [{ pending: true, leaf: true, items }];
    // One leaf (most rewrites) needs no item sizes.
    if (total <= this.nodeBytes) return [this.writeLeaf(items, 0, n, total, old)];
    const sizes = items.sizes();
    const ends = this.cuts(sizes, total, 1);
    const out: Ptr<R>[] = [];
    let from = 0;
    for (let c = 0; c < ends.length; c++) {
      const to = ends[c]!;
      let bytes = NODE_HEADER_BYTES;
      for (let i = from; i < to; i++) bytes += sizes[i]!;
      out[c] = this.writeLeaf(items, from, to, bytes);
      from = to;
    }
    return out;
  }

  /** Writes pointers as inner nodes; one kid, or below the minimum size (unless `force`), stays pending. */
  private materializeInner(kids: Kid<V, R>[], force: boolean): Kid<V, R>[] {
    const n = kids.length;
    if (n === 0) return [];
    if (n === 1) return [{ pending: true, leaf: false, kids }];
    const ptrs = kids as Ptr<R>[]; // normalize() left no pending kid in a list of two or more
    const sizes: number[] = [];
    let total = NODE_HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const size = ptrBytes(ptrs[i]!);
      sizes.push(size);
      total += size;
    }
    if (!force && total < this.minBytes) return [{ pending: true, leaf: false, kids }];
    const ends = this.cuts(sizes, total, 2);
    const out: Ptr<R>[] = [];
    let from = 0;
    for (let c = 0; c < ends.length; c++) {
      const to = ends[c]!;
      let bytes = NODE_HEADER_BYTES;
      for (let i = from; i < to; i++) bytes += sizes[i]!;
      out[c] = this.writeInner(ptrs, from, to, bytes);
      from = to;
    }
    return out;
  }

  /**
   * Chunk ends for items of the given sizes: k = ⌈total / (85% of nodeBytes)⌉ chunks of about
   * equal size, each at most nodeBytes (unless it has fewer than `minItems` items), a small
   * last chunk evened out with the one before.
   */
  private cuts(sizes: number[], total: number, minItems: number): number[] {
    const n = sizes.length;
    const max = this.nodeBytes;
    if (total <= max || n <= minItems) return [n];
    const k = Math.ceil(total / (max * FILL));
    const target = total / k;
    const ends: number[] = [];
    let start = 0;
    let cur = NODE_HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const s = sizes[i]!;
      if (i - start >= minItems && (cur + s > max || (ends.length < k - 1 && cur + s / 2 > target))) {
        ends.push(i);
        start = i;
        cur = NODE_HEADER_BYTES;
      }
      cur += s;
    }
    ends.push(n);
    const m = ends.length;
    if (m >= 2 && (cur < this.minBytes || n - start < minItems)) {
      // Even out the last two chunks.
      const from = m >= 3 ? ends[m - 3]! : 0;
      let both = 0;
      for (let i = from; i < n; i++) both += sizes[i]!;
      let acc = 0;
      let split = from;
      while (split < n - minItems && (split - from < minItems || acc + sizes[split]! / 2 < both / 2))
        acc += sizes[split++]!;
      if (split - from >= minItems && n - split >= minItems) ends[m - 2] = split;
      else ends.splice(m - 2, 1);
    }
    return ends;
  }

  private writeLeaf(items: LeafItems<V>, from: number, to: number, bytes: number, old?: Ptr<R>): Ptr<R> {
    const id = this.allocate();
    const leaf = items.write(from, to, bytes, this.decodeValue);
    this.store.put(id, leaf.bytes, true);
    this.cache.set(id, leaf);
    let red: R = undefined as R;
    let redRaw: Buffer | undefined;
    if (this.reducer !== undefined) {
      const reducer = this.reducer;
      red = reducer.reduceCount !== undefined ? reducer.reduceCount(leaf.length) : reducer.reduce(leaf.entries());
      redRaw = asBuffer(this.encodeReduction(red));
    }
    // Edge keys equal to the old pointer's are its Buffers: no new views, and samePtr compares
    // them by reference.
    const n = leaf.length;
    const first = old !== undefined && leaf.compareKeyAt(0, old.first) === 0 ? old.first : leaf.keyAt(0);
    const last = old !== undefined && leaf.compareKeyAt(n - 1, old.last) === 0 ? old.last : leaf.keyAt(n - 1);
    return { first, last, id, count: n, red, redRaw };
  }

  private writeInner(ptrs: Ptr<R>[], from: number, to: number, bytes: number, cache = true): Ptr<R> {
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

  // ---------------------------------------------------------------- checks

  /**
   * Walks the whole tree and throws on any broken invariant: key order, pointer first/last keys
   * and counts, leaves at one depth, inner nodes with at least two children, and (with a
   * reducer) stored reductions equal to recomputed ones (compared encoded). Returns sizes.
   */
  verify(): TreeStats {
    this.sync();
    const stats: TreeStats = { height: 0, entries: 0, leaves: 0, innerNodes: 0, minNodeBytes: 0, maxNodeBytes: 0 };
    if (this.root === undefined) return stats;
    let minBytes = Infinity;
    let maxBytes = 0;
    const walk = (
      id: number,
      isRoot: boolean,
    ): { depth: number; first: Buffer; last: Buffer; count: number; red: R } => {
      const node = this.load(id);
      let bytes = NODE_HEADER_BYTES;
      let result: { depth: number; first: Buffer; last: Buffer; count: number; red: R };
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
        const red = this.reducer === undefined ? (undefined as R) : this.reducer.reduce(node.entries());
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
          if (this.reducer !== undefined) {
            const stored = Buffer.from(this.encodeReduction(p.red));
            const computed = Buffer.from(this.encodeReduction(sub.red));
            if (!stored.equals(computed))
              throw new Error(`inner node ${id}: stored reduction of child ${p.id} is ${stored} not ${computed}`);
          }
          reds.push(p.red);
          count += p.count;
        }
        stats.innerNodes++;
        const red = this.reducer === undefined ? (undefined as R) : this.reducer.rereduce(reds);
        result = { depth: depth + 1, first: ps[0]!.first, last: ps[ps.length - 1]!.last, count, red };
      }
      if (!isRoot) {
        minBytes = Math.min(minBytes, bytes);
        maxBytes = Math.max(maxBytes, bytes);
      }
      return result;
    };
    stats.height = walk(this.root, true).depth;
    stats.minNodeBytes = minBytes === Infinity ? 0 : minBytes;
    stats.maxNodeBytes = maxBytes;
    return stats;
  }
}

/** A written pointer equal to `p` (same node id, edge keys, count and encoded reduction). */
function samePtr<V, R>(k: Kid<V, R>, p: Ptr<R>): boolean {
  if (isPending(k)) return false;
  if (k.id !== p.id || k.count !== p.count) return false;
  if ((k.first !== p.first && !keysEqual(k.first, p.first)) || (k.last !== p.last && !keysEqual(k.last, p.last)))
    return false;
  if (k.redRaw === undefined || p.redRaw === undefined) return k.redRaw === p.redRaw;
  return k.redRaw === p.redRaw || keysEqual(k.redRaw, p.redRaw);
}

/**
 * A leaf merged with its sorted actions; null when nothing changes. Each action's place is
 * found by binary search, and the old items between two actions go over as one run.
 */
function mergeLeaf<V>(node: LeafNode<V>, acts: Action[], a: number, b: number): LeafItems<V> | null {
  const items = new LeafItems<V>();
  const n = node.length;
  let changed = false;
  let i = 0;
  for (let j = a; j < b; j++) {
    const act = acts[j]!;
    const k = leafPosition(node, i, n, act.key);
    items.pushRun(node, i, k);
    i = k;
    if (i < n && node.compareKeyAt(i, act.key) === 0) {
      // The same key: removed, replaced, or (same value) left in the next run.
      if (act.raw === undefined) {
        changed = true;
        i++;
      } else if (!node.rawEqualsAt(i, act.raw)) {
        items.pushNew(act);
        changed = true;
        i++;
      }
    } else if (act.raw !== undefined) {
      items.pushNew(act);
      changed = true;
    }
  }
  if (!changed) return null;
  items.pushRun(node, i, n);
  return items;
}

/** Several reducers as one whose reduction is the array of theirs (one tree, several reduce functions). */
export function combineReducers<V>(reducers: readonly Reducer<V, unknown>[]): Reducer<V, unknown[]> {
  const combined: Reducer<V, unknown[]> = {
    reduce: (entries) => reducers.map((r) => r.reduce(entries)),
    rereduce: (reductions) => reducers.map((r, i) => r.rereduce(reductions.map((red) => red[i]))),
  };
  if (reducers.every((r) => r.reduceCount !== undefined))
    combined.reduceCount = (n) => reducers.map((r) => r.reduceCount!(n));
  return combined;
}

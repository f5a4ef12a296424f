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
 *     keys have the same group key as each other, and descends only at group edges:
 *     O(groups · log n) nodes, whatever the number of rows.
 *
 * This class is the public face; each concept has its file:
 *   - ./tree-nodes.ts   the nodes: store, cache (./node-cache.ts), codecs, root, generation;
 *   - ./bounds.ts       key ranges and the searches that find their bounds;
 *   - ./fold.ts         range scans, counts and offsets;
 *   - ./grouped-reduce.ts  reductions of a range, per group or whole;
 *   - ./update.ts       a batch of inserts and removes in one walk;
 *   - ./bulk-load.ts    an empty tree filled from sorted entries;
 *   - ./chunks.ts       where content is cut into nodes (and why nodes are 2 KB);
 *   - ./verify.ts       the invariants, checked;
 *   - ./node.ts, ./leaf.ts  the node encodings.
 *
 * Iteration. `fold` and `foldReduce` are generators that fetch nodes by id as they go (no
 * statement stays open across a yield). They must not be resumed after an `update` or `clear`
 * of the same tree: they throw if they are.
 */
import type { KeyRange } from './bounds.js';
import { bulkLoadSteps } from './bulk-load.js';
import { count, fold, rank, type FoldOptions } from './fold.js';
import { foldReduce, reduceRange, type FoldReduceOptions, type ReduceGroup } from './grouped-reduce.js';
import type { Entry } from './node.js';
import type { Reducer } from './reducer.js';
import type { NodeStore } from './store.js';
import { TreeNodes, type BTreeOptions } from './tree-nodes.js';
import { update } from './update.js';
import { verify, type TreeStats } from './verify.js';

export type { KeyRange } from './bounds.js';
export type { FoldOptions } from './fold.js';
export type { FoldReduceOptions, ReduceGroup } from './grouped-reduce.js';
export { combineReducers, type Reducer } from './reducer.js';
export type { BTreeOptions } from './tree-nodes.js';
export type { TreeStats } from './verify.js';

export class BTree<V, R = undefined> {
  private readonly nodes: TreeNodes<V, R>;

  constructor(options: BTreeOptions<V, R>) {
    this.nodes = new TreeNodes(options);
  }

  get store(): NodeStore {
    return this.nodes.store;
  }

  get reducer(): Reducer<V, R> | undefined {
    return this.nodes.reducer;
  }

  /** Target maximum encoded node size in bytes. */
  get nodeBytes(): number {
    return this.nodes.nodeBytes;
  }

  /** Decoded nodes currently cached. */
  get cachedNodes(): number {
    return this.nodes.cache.size;
  }

  /** Forget what is cached (the caller rolled back a transaction holding an update). */
  invalidate(): void {
    this.nodes.invalidate();
  }

  // ---------------------------------------------------------------- reads

  /** Entries in the range, in key order (or reverse with `descending`). */
  fold(range: KeyRange = {}, options: FoldOptions = {}): Generator<Entry<V>, void, undefined> {
    return fold(this.nodes, range, options);
  }

  /** The value stored under `key`. */
  get(key: Buffer): V | undefined {
    for (const e of this.fold({ start: key, end: key })) return e.value;
    return undefined;
  }

  /** Entries in the range, in O(log n). */
  count(range: KeyRange = {}, options: { descending?: boolean } = {}): number {
    return count(this.nodes, range, options.descending === true);
  }

  /** Entries with a key below `key` (CouchDB's offset), in O(log n). */
  countBefore(key: Buffer): number {
    this.nodes.sync();
    return rank(this.nodes, key, false);
  }

  /** All entries (CouchDB's total_rows): the root's count. */
  totalCount(): number {
    const t = this.nodes;
    t.sync();
    return t.root === undefined ? 0 : t.countNode(t.load(t.root));
  }

  /** The reduction of the entries in the range: reduce([]) when it is empty. O(log n) nodes. */
  reduce(range: KeyRange = {}, options: { descending?: boolean } = {}): R {
    return reduceRange(this.nodes, range, options.descending);
  }

  /** One reduction per group in the range, in iteration order (CouchDB's fold_reduce; ./grouped-reduce.ts). */
  foldReduce(range: KeyRange = {}, options: FoldReduceOptions): Generator<ReduceGroup<V, R>, void, undefined> {
    return foldReduce(this.nodes, range, options);
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
    update(this.nodes, inserts, removes);
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
    this.nodes.atomic(() => {
      for (const _ of bulkLoadSteps(this.nodes, entries, options, Infinity));
    });
  }

  /**
   * `bulkLoad` a step at a time: it pauses (yields) after every `every` entries, so a caller
   * whose store's writes belong to its own open transaction can let other work run in between
   * (a big index build then does not hold up every other request). Readers see the tree empty
   * until the last step sets its root.
   */
  bulkLoadSteps(
    entries: Iterable<readonly [key: Buffer, raw: Buffer]>,
    options: { cacheLeaves?: boolean } = {},
    every = 8192,
  ): Generator<void> {
    return bulkLoadSteps(this.nodes, entries, options, every);
  }

  /** Removes every entry. */
  clear(): void {
    this.nodes.clear();
  }

  /**
   * Walks the whole tree and throws on any broken invariant: key order, pointer first/last keys
   * and counts, leaves at one depth, inner nodes with at least two children, and (with a
   * reducer) stored reductions equal to recomputed ones (compared encoded). Returns sizes.
   */
  verify(): TreeStats {
    return verify(this.nodes);
  }
}

/**
 * Updates: a batch of inserts and removes applied in one walk of the tree (CouchDB's
 * query_modify).
 *
 * `update` sorts the batch once and walks the tree once, from action to action (untouched
 * children are passed over by binary search): each touched leaf is merged with its slice of the
 * batch (old items go over as byte runs, ./leaf.ts LeafItems), and each touched node is
 * re-chunked (./chunks.ts) into as many nodes as its new content needs, so splits of any fan-out
 * happen in one pass and a bulk load into an empty tree is a bottom-up build. A node left below
 * a quarter of the size limit is merged with a neighbour (then re-chunked), so all leaves stay
 * at one depth and every non-root node is between 1/4 and 1/1 full. Only the changed paths are
 * rewritten and re-reduced, and a leaf rewritten in place whose pointer comes out the same (same
 * edge keys, count and reduction: new values under the same keys, counted by _count) leaves its
 * parent alone. Nodes are rewritten in place (same id), ids freed by merges are reused within the
 * batch and deleted at its end. The root id and a generation number are stored with the nodes;
 * the whole update runs in `store.atomic` (a SAVEPOINT for SQLite), so a throwing reducer leaves
 * the tree as it was.
 */
import { chunkBytes, chunkEnds } from './chunks.js';
import { LeafItems, type LeafNode } from './leaf.js';
import {
  NODE_HEADER_BYTES,
  asBuffer,
  compareAt,
  compareFrom,
  compareKeys,
  keysEqual,
  mismatch,
  ptrBytes,
  type Entry,
  type Ptr,
} from './node.js';
import { sortByKey } from './sort.js';
import type { TreeNodes } from './tree-nodes.js';

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

/**
 * Applies a batch: `inserts` (new keys, or new values for existing keys) and `removes` (keys;
 * absent ones are ignored). A key both removed and inserted ends up inserted; of several
 * inserts of one key the last wins. The tree takes ownership of the keys and values passed
 * (they must not be mutated afterwards). Re-inserting a key with byte-identical encoded
 * value leaves its leaf untouched.
 */
export function update<V, R>(t: TreeNodes<V, R>, inserts: readonly Entry<V>[], removes: readonly Buffer[]): void {
  if (inserts.length === 0 && removes.length === 0) return;
  const acts = prepare(t, inserts, removes);
  t.sync();
  t.beginWrite();
  try {
    t.atomic(() => apply(t, acts));
  } catch (err) {
    t.abortWrite();
    throw err;
  }
  t.endWrite();
}

/** Sorted, deduplicated actions with encoded values. */
function prepare<V, R>(t: TreeNodes<V, R>, inserts: readonly Entry<V>[], removes: readonly Buffer[]): Action[] {
  const n = removes.length + inserts.length;
  // push, not new Array(n): V8 makes arrays preallocated beyond 100k elements dictionary-mode.
  const acts: Action[] = [];
  for (let i = 0; i < removes.length; i++) acts.push({ key: removes[i]!, raw: undefined });
  for (let i = 0; i < inserts.length; i++) {
    const e = inserts[i]!;
    acts.push({ key: e.key, raw: asBuffer(t.encodeValue(e.value)) });
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

function apply<V, R>(t: TreeNodes<V, R>, acts: Action[]): void {
  let kids: Kid<V, R>[] | null;
  if (t.root === undefined) {
    const items = new LeafItems<V>();
    for (const a of acts) if (a.raw !== undefined) items.pushNew(a);
    kids = materializeLeaf(t, items, false);
  } else {
    kids = modify(t, t.root, acts, 0, acts.length, undefined, undefined, undefined, 0);
  }
  const root = kids === null ? t.root : buildRoot(t, kids);
  t.store.setRoot(root);
  t.root = root;
  for (const id of t.freeIds) {
    t.store.delete(id);
    t.cache.delete(id);
  }
  t.freeIds.length = 0;
}

// The searches of an update, written out (no closure per call: they run a few times per action).
//
// Row keys share long prefixes (a view's array tag, its first elements): each search starts its
// comparisons past the bytes every key it compares shares. The keys of a subtree, and the
// actions sent to it, lie between two keys its ancestors know (the last key of the pointer
// before its own, and its own pointer's last key; see `modify`), and every key between two keys
// shares their common prefix (`skip`). Within a search, the bytes the key shares with the
// entries at both ends of the range left are known too (as ./bounds.ts does for reads).

/** The first child in [lo, hi) whose last key is not below `key`, or `hi` (all share `skip` bytes). */
function childOf(ps: readonly Ptr<unknown>[], lo: number, hi: number, key: Buffer, skip: number): number {
  let loShared = skip;
  let hiShared = skip;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const last = ps[m]!.last;
    const at = mismatch(last, key, Math.min(loShared, hiShared));
    if (compareAt(last, key, at) < 0) {
      lo = m + 1;
      loShared = at;
    } else {
      hi = m;
      hiShared = at;
    }
  }
  return lo;
}

/**
 * The end of the actions from `lo` whose keys are not above `last` (acts are sorted; `lo` is
 * past one that is; all share `skip` bytes). Galloping from `lo`: near the leaves a child gets
 * one or two actions, so the end is found in a few compares instead of a search over the whole
 * batch.
 */
function actsUpTo(acts: readonly Action[], lo: number, hi: number, last: Buffer, skip: number): number {
  let step = 1;
  let bound = lo;
  while (bound < hi && compareFrom(acts[bound]!.key, last, skip) <= 0) {
    lo = bound + 1;
    bound = lo + step;
    step *= 2;
  }
  if (bound < hi) hi = bound;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (compareFrom(acts[m]!.key, last, skip) <= 0) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/**
 * The first item in [lo, hi) of a leaf whose key is not below `key`, or `hi`, and whether that
 * item's key is `key` (all share `skip` bytes).
 */
function leafPosition(
  leaf: LeafNode<unknown>,
  lo: number,
  hi: number,
  key: Buffer,
  skip: number,
  found: Found,
): number {
  let loShared = skip;
  let hiShared = skip;
  let hiAt = -1;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const at = leaf.mismatchAt(m, key, Math.min(loShared, hiShared));
    if (leaf.compareKeyAtMismatch(m, key, at) < 0) {
      lo = m + 1;
      loShared = at;
    } else {
      hi = m;
      hiShared = at;
      hiAt = m;
    }
  }
  // The item found was compared last as the high end (or never: it is `hi` or beyond the range).
  found.equal = hiAt === lo && hiShared === key.length && leaf.keyEnd(lo) - leaf.keyStart(lo) === hiShared;
  return lo;
}

/** Where leafPosition says whether it found the key itself (one object, no allocation per search). */
interface Found {
  equal: boolean;
}
const found: Found = { equal: false };

/**
 * Applies acts[a, b) to the subtree at `id`. Returns what replaces it (written pointers, or
 * one pending content below the minimum size, or nothing), or null when nothing changed.
 * `below` and `upTo`: keys the subtree's keys and the actions lie above and up to (undefined:
 * none known), `skip`: how many first bytes those two share.
 */
function modify<V, R>(
  t: TreeNodes<V, R>,
  id: number,
  acts: Action[],
  a: number,
  b: number,
  old: Ptr<R> | undefined,
  below: Buffer | undefined,
  upTo: Buffer | undefined,
  skip: number,
): Kid<V, R>[] | null {
  const node = t.load(id);
  if (node.leaf) {
    const items = mergeLeaf(node, acts, a, b, skip);
    if (items === null) return null;
    t.freeIds.push(id);
    return materializeLeaf(t, items, false, old);
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
    const target = childOf(ps, c, lastChild, acts[i]!.key, skip);
    for (; c < target; c++) kids.push(ps[c]!);
    const p = ps[c]!;
    const j = c === lastChild ? b : actsUpTo(acts, i + 1, b, p.last, skip);
    // The child's keys and its actions lie above the last key of the pointer before it and up
    // to its own last key (the last child's actions may lie beyond it, up to this node's bound).
    const childBelow = c > 0 ? ps[c - 1]!.last : below;
    const childUpTo = c < lastChild ? p.last : upTo;
    const childSkip = childBelow !== undefined && childUpTo !== undefined ? mismatch(childBelow, childUpTo, skip) : 0;
    const out = modify(t, p.id, acts, i, j, p, childBelow, childUpTo, childSkip);
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
  t.freeIds.push(id);
  normalize(t, kids);
  return materializeInner(t, kids, false);
}

/** What `mergeLeaf` returns, used again by each call: `materializeLeaf` copies it only to keep it. */
const mergeScratch = new LeafItems<unknown>();

/**
 * A leaf merged with its sorted actions (in `mergeScratch`, valid until the next call); null when
 * nothing changes. Each action's place is found by binary search, and the old items between
 * two actions go over as one run.
 */
function mergeLeaf<V>(node: LeafNode<V>, acts: Action[], a: number, b: number, skip: number): LeafItems<V> | null {
  const items = mergeScratch as LeafItems<V>;
  items.clear();
  const n = node.length;
  let changed = false;
  let i = 0;
  for (let j = a; j < b; j++) {
    const act = acts[j]!;
    const k = leafPosition(node, i, n, act.key, skip, found);
    items.pushRun(node, i, k);
    i = k;
    if (found.equal) {
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

/** A written pointer equal to `p` (same node id, edge keys, count and encoded reduction). */
function samePtr<V, R>(k: Kid<V, R>, p: Ptr<R>): boolean {
  if (isPending(k)) return false;
  if (k.id !== p.id || k.count !== p.count) return false;
  if ((k.first !== p.first && !keysEqual(k.first, p.first)) || (k.last !== p.last && !keysEqual(k.last, p.last)))
    return false;
  if (k.redRaw === undefined || p.redRaw === undefined) return k.redRaw === p.redRaw;
  return k.redRaw === p.redRaw || keysEqual(k.redRaw, p.redRaw);
}

/** Merges every pending (underfull) kid with a neighbour, while there is a neighbour. */
function normalize<V, R>(t: TreeNodes<V, R>, kids: Kid<V, R>[]): void {
  let i = 0;
  while (i < kids.length && kids.length > 1) {
    if (!isPending(kids[i]!)) {
      i++;
      continue;
    }
    const lo = i + 1 < kids.length ? i : i - 1;
    const merged = mergeKids(t, kids[lo]!, kids[lo + 1]!);
    kids.splice(lo, 2, ...merged);
    i = lo;
  }
}

function mergeKids<V, R>(t: TreeNodes<V, R>, x: Kid<V, R>, y: Kid<V, R>): Kid<V, R>[] {
  const cx = contentOf(t, x);
  const cy = contentOf(t, y);
  if (cx.leaf !== cy.leaf) throw new Error('B-tree merge of nodes at different levels');
  if (cx.leaf) {
    return materializeLeaf(t, cx.items.concat((cy as PendingLeaf<V>).items), false);
  }
  const kids = cx.kids.concat((cy as PendingInner<V, R>).kids);
  normalize(t, kids);
  return materializeInner(t, kids, false);
}

/** A kid's items; a written node is read and its id freed. */
function contentOf<V, R>(t: TreeNodes<V, R>, k: Kid<V, R>): Pending<V, R> {
  if (isPending(k)) return k;
  const node = t.load(k.id);
  t.freeIds.push(k.id);
  return node.leaf
    ? { pending: true, leaf: true, items: LeafItems.of(node) }
    : { pending: true, leaf: false, kids: node.ptrs.slice() };
}

/** Stacks levels on the batch's top-level result until one root remains. */
function buildRoot<V, R>(t: TreeNodes<V, R>, kids: Kid<V, R>[]): number | undefined {
  for (;;) {
    if (kids.length === 0) return undefined;
    if (kids.length === 1) {
      const k = kids[0]!;
      if (!isPending(k)) return k.id;
      if (k.leaf) kids = materializeLeaf(t, k.items, true);
      else if (k.kids.length === 1)
        kids = k.kids; // a root with one child: drop a level
      else kids = materializeInner(t, k.kids, true);
      continue;
    }
    normalize(t, kids);
    if (kids.length > 1) kids = materializeInner(t, kids, true);
  }
}

/**
 * Writes entries as leaves; below the minimum size (unless `force`) returns them pending.
 * `old`: the pointer to the leaf being rewritten, whose edge keys a new leaf may share.
 */
function materializeLeaf<V, R>(t: TreeNodes<V, R>, items: LeafItems<V>, force: boolean, old?: Ptr<R>): Kid<V, R>[] {
  const n = items.length;
  if (n === 0) return [];
  const total = NODE_HEADER_BYTES + items.bytes;
  if (!force && total < t.minBytes) {
    // Kept until a neighbour is merged in: mergeLeaf's scratch is used again, so a copy of it.
    return [{ pending: true, leaf: true, items: items === mergeScratch ? items.copy() : items }];
  }
  // One leaf (most rewrites) needs no item sizes.
  if (total <= t.nodeBytes) return [writeLeaf(t, items, 0, n, total, old)];
  const sizes = items.sizes();
  const ends = chunkEnds(sizes, total, 1, t.nodeBytes, t.minBytes);
  const out: Ptr<R>[] = [];
  let from = 0;
  for (let c = 0; c < ends.length; c++) {
    const to = ends[c]!;
    out[c] = writeLeaf(t, items, from, to, chunkBytes(sizes, from, to));
    from = to;
  }
  return out;
}

/** Writes pointers as inner nodes; one kid, or below the minimum size (unless `force`), stays pending. */
function materializeInner<V, R>(t: TreeNodes<V, R>, kids: Kid<V, R>[], force: boolean): Kid<V, R>[] {
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
  if (!force && total < t.minBytes) return [{ pending: true, leaf: false, kids }];
  const ends = chunkEnds(sizes, total, 2, t.nodeBytes, t.minBytes);
  const out: Ptr<R>[] = [];
  let from = 0;
  for (let c = 0; c < ends.length; c++) {
    const to = ends[c]!;
    out[c] = t.writeInner(ptrs, from, to, chunkBytes(sizes, from, to));
    from = to;
  }
  return out;
}

/** Writes items [from, to) as a leaf (cached) and returns its pointer. */
function writeLeaf<V, R>(
  t: TreeNodes<V, R>,
  items: LeafItems<V>,
  from: number,
  to: number,
  bytes: number,
  old?: Ptr<R>,
): Ptr<R> {
  const id = t.allocate();
  const leaf = items.write(from, to, bytes, t.decodeValue);
  t.store.put(id, leaf.bytes, true);
  t.cache.set(id, leaf);
  let red: R = undefined as R;
  let redRaw: Buffer | undefined;
  if (t.reducer !== undefined) {
    const reducer = t.reducer;
    if (reducer.reduceCount !== undefined && old !== undefined && old.count === leaf.length) {
      // A count's reduction of as many rows as before is the one before (values replaced under
      // the same keys): not made and encoded again, and samePtr compares it by reference.
      red = old.red;
      redRaw = old.redRaw;
    } else {
      red = reducer.reduceCount !== undefined ? reducer.reduceCount(leaf.length) : reducer.reduce(leaf.entries());
      redRaw = asBuffer(t.encodeReduction(red));
    }
  }
  // Edge keys equal to the old pointer's are its Buffers: no new views, and samePtr compares
  // them by reference.
  const n = leaf.length;
  const first = old !== undefined && leaf.compareKeyAt(0, old.first) === 0 ? old.first : leaf.keyAt(0);
  const last = old !== undefined && leaf.compareKeyAt(n - 1, old.last) === 0 ? old.last : leaf.keyAt(n - 1);
  return { first, last, id, count: n, red, redRaw };
}

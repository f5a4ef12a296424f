/**
 * Bulk load: fills an empty tree from entries already sorted and encoded (an index build sorts
 * its rows externally, ./run-sort.ts), cutting every level into nodes as the items stream in:
 * one pass, no reads, memory for about two nodes per level.
 */
import { FILL, chunkBytes, chunkEnds } from './chunks.js';
import { LeafNode } from './leaf.js';
import {
  NODE_HEADER_BYTES,
  asBuffer,
  compareKeys,
  encodeLeafOf,
  entryBytes,
  ptrBytes,
  type Entry,
  type Ptr,
} from './node.js';
import type { TreeNodes } from './tree-nodes.js';

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

/** One bulk load's node writer, shared by its levels. */
class BulkWriter<V, R> {
  /** Where leaves are encoded (stores copy what they keep). */
  private scratch: Buffer = Buffer.alloc(0);

  constructor(
    readonly t: TreeNodes<V, R>,
    /** Cache the leaves written (and their parents). */
    readonly cacheLeaves: boolean,
  ) {}

  /** Writes a leaf of encoded entries [from, to) (cached with `cacheLeaves`); its pointer owns copies of the edge keys. */
  writeLeaf(keys: Buffer[], raws: Buffer[], from: number, to: number, bytes: number): Ptr<R> {
    const t = this.t;
    const id = t.allocate();
    if (this.scratch.length < bytes) this.scratch = Buffer.allocUnsafe(Math.max(bytes, 2 * t.nodeBytes));
    const encoded = encodeLeafOf(keys, raws, from, to, bytes, this.scratch);
    t.store.put(id, encoded);
    if (this.cacheLeaves) {
      // A copy: the scratch buffer and the entries' bytes are reused.
      t.cache.set(id, LeafNode.decode(Buffer.from(encoded), t.decodeValue));
    }
    let red: R = undefined as R;
    let redRaw: Buffer | undefined;
    if (t.reducer !== undefined) {
      const reducer = t.reducer;
      if (reducer.reduceCount !== undefined) red = reducer.reduceCount(to - from);
      else {
        const entries: Entry<V>[] = [];
        for (let i = from; i < to; i++) entries.push(new RawEntry(keys[i]!, raws[i]!, t.decodeValue));
        red = reducer.reduce(entries);
      }
      redRaw = asBuffer(t.encodeReduction(red));
    }
    return { first: Buffer.from(keys[from]!), last: Buffer.from(keys[to - 1]!), id, count: to - from, red, redRaw };
  }
}

/**
 * One level of a bulk load: items (leaf entries, or pointers to the level below) are cut into
 * nodes of about FILL × nodeBytes as they come; a cut chunk is written once the next one has
 * started, so that a small last chunk can be evened out with it. Written nodes go up as pointers
 * to the next level, made on demand.
 */
class LevelBuilder<T, V, R> {
  private items: T[] = [];
  private sizes: number[] = [];
  private bytes = NODE_HEADER_BYTES;
  private prev: { items: T[]; sizes: number[]; bytes: number } | undefined;
  private parent: LevelBuilder<Ptr<R>, V, R> | undefined;
  private readonly max: number;
  private readonly target: number;
  private readonly minItems: number;

  private readonly leaf: boolean;

  /** `level` 0 builds leaves, 1 their parents, and so on. */
  constructor(
    private readonly writer: BulkWriter<V, R>,
    private readonly level: number,
  ) {
    this.leaf = level === 0;
    const leaf = this.leaf;
    this.max = writer.t.nodeBytes;
    this.target = writer.t.nodeBytes * FILL;
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
    const t = this.writer.t;
    if (prev !== undefined && (this.bytes < t.nodeBytes / 4 || this.items.length < this.minItems)) {
      // Even out the last two chunks.
      const items = prev.items.concat(this.items);
      const sizes = prev.sizes.concat(this.sizes);
      const total = chunkBytes(sizes, 0, sizes.length);
      let from = 0;
      for (const to of chunkEnds(sizes, total, this.minItems, t.nodeBytes, t.minBytes)) {
        this.emit(items, from, to, chunkBytes(sizes, from, to));
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
    this.parent ??= new LevelBuilder<Ptr<R>, V, R>(this.writer, this.level + 1);
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
      return this.writer.writeLeaf(keys, raws, 0, keys.length, bytes);
    }
    // The parents of leaves hold a pointer (with its edge keys) per leaf: most of a build's
    // memory if cached, and each is read by few queries. Levels above them are cached.
    const ptrs = (items as Ptr<R>[]).slice(from, to);
    return this.writer.t.writeInner(ptrs, 0, ptrs.length, bytes, this.level >= 2 || this.writer.cacheLeaves);
  }
}

/**
 * `bulkLoad` a step at a time: it pauses (yields) after every `every` entries, so a caller
 * whose store's writes belong to its own open transaction can let other work run in between
 * (a big index build then does not hold up every other request). Readers see the tree empty
 * until the last step sets its root. Entries come in ascending key order, encoded; of equal keys
 * the last wins; the tree must be empty.
 */
export function* bulkLoadSteps<V, R>(
  t: TreeNodes<V, R>,
  entries: Iterable<readonly [key: Buffer, raw: Buffer]>,
  options: { cacheLeaves?: boolean },
  every: number,
): Generator<void> {
  t.sync();
  if (t.root !== undefined) throw new Error('B-tree bulkLoad needs an empty tree');
  t.beginWrite();
  try {
    t.cache.clear();
    const leaves = new LevelBuilder<[Buffer, Buffer], V, R>(new BulkWriter(t, options.cacheLeaves === true), 0);
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
    t.store.setRoot(root);
    t.root = root;
  } catch (err) {
    t.abortWrite();
    throw err;
  }
  t.endWrite();
}

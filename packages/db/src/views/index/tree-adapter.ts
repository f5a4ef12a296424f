/**
 * A view's rows as a ../../btree B+tree in a table of the index file: values packed as
 * `keyJson`, `docId`, `valueJson` with length prefixes (no JSON-in-JSON escaping), the view's
 * reduce function (builtins in-process, JavaScript through the sandbox's synchronous call)
 * kept in every inner node.
 */
import { BTree, type Entry, type KeyRange, type NodeStore, type Reducer as TreeReducer } from '../../btree/index.js';
import { builtinName, type Reducer } from '../reduce/index.js';
import type { RowEntry, RowGroup, RowRange, RowTree, RowValue } from './row-tree.js';
import { writeUtf8 } from './short-utf8.js';
import type { BuildableRowTree } from './view-index.js';

/** `store`: ./view-index.ts's, which makes a group of updates atomic itself. */
export function makeRowTree(store: NodeStore, reducer: Reducer | undefined): BuildableRowTree {
  const tree = new BTree<RowValue, unknown[]>({
    store,
    reducer: reducer === undefined ? undefined : treeReducer(reducer),
    exclusive: true,
    encodeValue: encodeRow,
    decodeValue: decodeRow,
  });
  return new BTreeRows(tree);
}

/**
 * Reads never block index updates: a read paused between two rows (a slow HTTP client) that
 * finds the tree updated when it resumes starts a new fold just after the last row (or group)
 * it gave out. Rows stay in order, none twice; rows further on reflect the newer index.
 */
class BTreeRows implements RowTree, BuildableRowTree {
  /** Bumped by every update, so paused readers notice. */
  private version = 0;

  constructor(private readonly tree: BTree<RowValue, unknown[]>) {}

  update(inserts: readonly RowEntry[], removes: readonly Buffer[]): void {
    this.version++;
    this.tree.update(inserts, removes);
  }

  encodeValue(value: RowValue): Uint8Array {
    return encodeRowScratch(value);
  }

  bulkLoad(rows: Iterable<readonly [key: Buffer, value: Buffer]>, options?: { cacheLeaves?: boolean }): void {
    for (const _ of this.bulkLoadSteps(rows, options));
  }

  bulkLoadSteps(
    rows: Iterable<readonly [key: Buffer, value: Buffer]>,
    options?: { cacheLeaves?: boolean },
  ): Generator<void> {
    this.version++;
    if (this.tree.totalCount() > 0) this.tree.clear();
    return this.tree.bulkLoadSteps(rows, options);
  }

  rows(range: RowRange, descending: boolean): Generator<RowEntry> {
    return this.rowsAfter(range, descending, 0);
  }

  *rowsAfter(range: RowRange, descending: boolean, skip: number): Generator<RowEntry> {
    let bounds = keyRange(range, descending);
    let last: Buffer | undefined;
    // Only the first fold skips: a restart begins at the last row given out.
    let toSkip = skip;
    for (;;) {
      const version = this.version;
      const fold = this.tree.fold(bounds, { descending, skip: toSkip });
      toSkip = 0;
      for (;;) {
        if (this.version !== version) break;
        const next = fold.next();
        if (next.done) return;
        // After a restart the fold begins at the last row given out (inclusive start): skip it.
        if (last !== undefined && next.value.key.equals(last)) continue;
        last = next.value.key;
        yield next.value;
      }
      bounds = { ...bounds, start: last };
    }
  }

  countBelow(key: Buffer): number {
    return this.tree.countBefore(key);
  }

  invalidate(): void {
    this.version++;
    this.tree.invalidate();
  }

  countFrom(key: Buffer): number {
    return this.tree.totalCount() - this.tree.countBefore(key);
  }

  total(): number {
    return this.tree.totalCount();
  }

  *groups(range: RowRange, descending: boolean, groupKey: (key: Buffer) => Buffer): Generator<RowGroup> {
    let bounds = keyRange(range, descending);
    for (;;) {
      const version = this.version;
      let lastGroup: Buffer | null = null;
      for (const group of this.tree.foldReduce(bounds, { descending, groupKey })) {
        yield { first: group.first, reduction: group.reduction };
        lastGroup = group.groupKey;
        if (this.version !== version) break;
      }
      if (this.version === version || lastGroup === null) return;
      // Resume past the last group: its rows all start with its group key, and the byte after a
      // group key in a row is never 0xFF; descending, every row of it sorts above the key itself.
      bounds = { ...bounds, start: descending ? lastGroup : Buffer.concat([lastGroup, HIGH]) };
    }
  }
}

const HIGH = Buffer.from([0xff]);

/**
 * `gte <= key < lt` in iteration order. Descending starts at `lt`, inclusively: an upper bound
 * is always a key prefix followed by 0xFF (../../collation rowKeyBound), which no row key equals.
 */
function keyRange(range: RowRange, descending: boolean): KeyRange {
  return descending
    ? { start: range.lt, end: range.gte, inclusiveEnd: true }
    : { start: range.gte, end: range.lt, inclusiveEnd: false };
}

/**
 * Leaves are reduced often (every rewritten leaf, every group edge), so rows are parsed only as
 * far as the function needs: `_count` needs nothing, `_sum` of numbers and `_stats` only the values.
 */
function treeReducer(reducer: Reducer): TreeReducer<RowValue, unknown[]> {
  const builtin = builtinName(reducer.sources[0]!);
  const needsKeys =
    builtin === undefined || builtin === '_approx_count_distinct' || builtin === '_first' || builtin === '_last';
  return {
    reduceCount: builtin === '_count' ? (count: number) => [count] : undefined,
    reduce(entries: readonly Entry<RowValue>[]) {
      if (builtin === '_count') return [entries.length];
      const values = entries.map((e) => JSON.parse(e.value[2]) as unknown);
      // _sum's reduce_limit check weighs the keys too, but only an object/array sum can overflow.
      const keys =
        needsKeys || (builtin === '_sum' && values.some((v) => typeof v === 'object' && v !== null))
          ? entries.map((e) => [JSON.parse(e.value[0]), e.value[1]] as [unknown, string])
          : entries.map(() => NO_KEY);
      return reducer.reduceSync(keys, values);
    },
    rereduce(reductions: readonly unknown[][]) {
      return reducer.rereduceSync(reductions);
    },
  };
}

const NO_KEY: [unknown, string] = [null, ''];

/** `[u32 key length][key][u32 id length][id][value]`, the strings as UTF-8. */
function encodeRow([keyJson, docId, valueJson]: RowValue): Uint8Array {
  const keyLength = Buffer.byteLength(keyJson);
  const idLength = Buffer.byteLength(docId);
  const out = Buffer.allocUnsafe(8 + keyLength + idLength + Buffer.byteLength(valueJson));
  out.writeUInt32BE(keyLength, 0);
  out.write(keyJson, 4);
  out.writeUInt32BE(idLength, 4 + keyLength);
  out.write(docId, 8 + keyLength);
  out.write(valueJson, 8 + keyLength + idLength);
  return out;
}

/**
 * `encodeRow` into one buffer reused by every call (a build copies each row into its sorter at
 * once: no buffer per row to collect), valid until the next call.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);
function encodeRowScratch([keyJson, docId, valueJson]: RowValue): Uint8Array {
  const most = 8 + 3 * (keyJson.length + docId.length + valueJson.length);
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2));
  const out = scratch;
  const keyLength = writeUtf8(out, keyJson, 4);
  out.writeUInt32BE(keyLength, 0);
  const idAt = 8 + keyLength;
  const idLength = writeUtf8(out, docId, idAt);
  out.writeUInt32BE(idLength, 4 + keyLength);
  const end = idAt + idLength + writeUtf8(out, valueJson, idAt + idLength);
  return out.subarray(0, end);
}

function decodeRow(bytes: Buffer): RowValue {
  const keyLength = bytes.readUInt32BE(0);
  const idLength = bytes.readUInt32BE(4 + keyLength);
  const idStart = 8 + keyLength;
  return [
    bytes.toString('utf8', 4, 4 + keyLength),
    bytes.toString('utf8', idStart, idStart + idLength),
    bytes.toString('utf8', idStart + idLength),
  ];
}

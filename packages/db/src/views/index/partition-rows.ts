/**
 * Rows of a partitioned view: every row key starts with its document's partition (encoded as a
 * self-terminating raw string body, ../../collation/encode.ts), so one partition's rows are one
 * contiguous byte range of the view's B-tree, ordered inside it as any view's rows. A query of a
 * partition reads that range alone, through a `RowTree` that sees only it (`partitionRows`):
 * ranges, counts (`total_rows`, `offset`) and reduce groups are the partition's, from the same
 * tree and its stored reductions.
 */
import { encodeDocId } from '../../collation/index.js';
import type { RowEntry, RowGroup, RowRange, RowTree } from './row-tree.js';

/** Above every byte that follows the partition inside a row key (tags of the encoded key). */
const HIGH = Buffer.from([0xff]);

/** The bytes every row key of the partition starts with. */
export function partitionPrefix(partition: string): Buffer {
  return encodeDocId(partition);
}

/** The rows of one partition of a partitioned view's tree, as a tree of their own (read-only). */
export function partitionRows(tree: RowTree, partition: string): RowTree {
  const prefix = partitionPrefix(partition);
  const end = Buffer.concat([prefix, HIGH]);
  const inside = (key: Buffer): Buffer => Buffer.concat([prefix, key]);
  const range = (r: RowRange): RowRange => ({
    gte: r.gte === undefined ? prefix : inside(r.gte),
    lt: r.lt === undefined ? end : inside(r.lt),
  });
  const below = (key: Buffer): number => tree.countBelow(key) - tree.countBelow(prefix);
  return {
    update(): void {
      throw new Error('a partition of a view is read-only');
    },
    rows: (r, descending) => withoutPrefix(tree.rows(range(r), descending), prefix.length),
    ...(tree.rowsAfter === undefined
      ? {}
      : {
          rowsAfter: (r: RowRange, descending: boolean, skip: number) =>
            withoutPrefix(tree.rowsAfter!(range(r), descending, skip), prefix.length),
        }),
    countBelow: (key) => below(inside(key)),
    countFrom: (key) => tree.countBelow(end) - tree.countBelow(inside(key)),
    total: () => below(end),
    invalidate: () => tree.invalidate(),
    groups: (r, descending, groupKey) =>
      groupsWithoutPrefix(
        // The group key of a row key with the prefix is the prefix and the group key of the rest:
        // still a prefix of the row key, as the tree's stored reductions need.
        tree.groups(range(r), descending, (key) =>
          key.subarray(0, prefix.length + groupKey(key.subarray(prefix.length)).length),
        ),
        prefix.length,
      ),
  };
}

function* withoutPrefix(rows: Iterable<RowEntry>, length: number): Generator<RowEntry> {
  for (const { key, value } of rows) yield { key: key.subarray(length), value };
}

function* groupsWithoutPrefix(groups: Iterable<RowGroup>, length: number): Generator<RowGroup> {
  for (const { first, reduction } of groups) {
    yield { first: { key: first.key.subarray(length), value: first.value }, reduction };
  }
}

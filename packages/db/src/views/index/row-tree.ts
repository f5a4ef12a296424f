/**
 * What the view index needs from its ordered row store: rows keyed by byte-comparable row keys
 * (../../collation/encode.ts), each carrying its JSON key, doc id and JSON value as text (rows go
 * out as text without a parse), with counts and stored reductions for offsets and reduce
 * queries. ../../btree implements it; the adapter is in ./tree-adapter.ts.
 */

/** `[keyJson, docId, valueJson]` */
export type RowValue = [keyJson: string, docId: string, valueJson: string];

export interface RowEntry {
  key: Buffer;
  value: RowValue;
}

/** An ascending byte interval: `gte <= key < lt` (either end open when absent). */
export interface RowRange {
  gte?: Buffer;
  lt?: Buffer;
}

export interface RowGroup {
  /** The first row of the group in iteration order (its key names the group). */
  first: RowEntry;
  /** One reduction per reduce function of the view. */
  reduction: unknown[];
}

export interface RowTree {
  /** Applies removals, then insertions (a key in both is a replacement). */
  update(inserts: readonly RowEntry[], removes: readonly Buffer[]): void;
  rows(range: RowRange, descending: boolean): Generator<RowEntry>;
  /**
   * The same rows after the first `skip` of them, passed over by subtree counts rather than read
   * (a tree that cannot leaves it out; Mango's exact-range skip reads rows one by one then).
   */
  rowsAfter?(range: RowRange, descending: boolean, skip: number): Generator<RowEntry>;
  /** Rows whose key is below `key` (`offset` of an ascending read). */
  countBelow(key: Buffer): number;
  /** Rows whose key is `key` or above. */
  countFrom(key: Buffer): number;
  total(): number;
  /** Drops cached state after the caller rolled back a transaction that held an update. */
  invalidate(): void;
  /** One reduction per group of rows in the range (groups are byte-prefix runs), in iteration order. */
  groups(range: RowRange, descending: boolean, groupKey: (key: Buffer) => Buffer): Generator<RowGroup>;
}

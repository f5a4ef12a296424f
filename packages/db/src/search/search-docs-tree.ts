/**
 * The documents' tree of a search index (one row per document, its postings in it:
 * ./search-rows.ts), with the inverted postings made of it in memory (./postings.ts) kept in
 * step: every update of the tree is applied to them too; anything else that changes the rows
 * behind their back (a build, a rollback, another node's updates taken in) drops them, and the
 * next query makes them again from the rows.
 */
import type { BuildableRowTree } from '../views/index/view-index.js';
import type { RowEntry, RowGroup, RowRange, RowValue } from '../views/index/row-tree.js';
import { Postings } from './postings.js';

export class SearchDocsTree implements BuildableRowTree {
  private memory: Postings | undefined;

  constructor(private readonly tree: BuildableRowTree) {}

  /** The postings of the rows as they are now. */
  postings(): Postings {
    this.memory ??= Postings.load(this.tree.rows({}, false));
    return this.memory;
  }

  update(inserts: readonly RowEntry[], removes: readonly Buffer[]): void {
    this.tree.update(inserts, removes);
    const memory = this.memory;
    if (memory === undefined) return;
    for (const key of removes) memory.remove(key.toString('latin1'));
    for (const { key, value } of inserts) memory.put(key, value[1], value[2]);
    if (memory.wasteful) this.memory = undefined;
  }

  invalidate(): void {
    this.memory = undefined;
    this.tree.invalidate();
  }

  encodeValue(value: RowValue): Uint8Array {
    return this.tree.encodeValue(value);
  }

  bulkLoad(rows: Iterable<readonly [key: Buffer, value: Buffer]>, options?: { cacheLeaves?: boolean }): void {
    for (const _ of this.bulkLoadSteps(rows, options));
  }

  *bulkLoadSteps(
    rows: Iterable<readonly [key: Buffer, value: Buffer]>,
    options?: { cacheLeaves?: boolean },
  ): Generator<void> {
    this.memory = undefined;
    try {
      yield* this.tree.bulkLoadSteps(rows, options);
    } finally {
      this.memory = undefined;
    }
  }

  rows(range: RowRange, descending: boolean): Generator<RowEntry> {
    return this.tree.rows(range, descending);
  }

  countBelow(key: Buffer): number {
    return this.tree.countBelow(key);
  }

  countFrom(key: Buffer): number {
    return this.tree.countFrom(key);
  }

  total(): number {
    return this.tree.total();
  }

  groups(range: RowRange, descending: boolean, groupKey: (key: Buffer) => Buffer): Generator<RowGroup> {
    return this.tree.groups(range, descending, groupKey);
  }
}

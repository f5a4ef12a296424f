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
  /** The load in progress (./postings.ts made of the rows in steps, the event loop served between). */
  private loading: Promise<Postings> | undefined;
  /** Bumped when the rows change behind the postings' back: a load in progress starts again. */
  private version = 0;
  /** While a load is in progress: the last row key read, and the updates to rows up to it, to apply after. */
  private loadedUpTo: Buffer | undefined;
  private pending: { inserts: readonly RowEntry[]; removes: readonly Buffer[] }[] = [];
  /** The postings whose delta is being merged in the background. */
  private merging: Postings | undefined;

  constructor(private readonly tree: BuildableRowTree) {}

  /**
   * The postings of the rows as they are now: made of the rows the first time (LOAD_SLICE_MS of rows at
   * a time, other requests served in between: at 100,000 documents it takes seconds of CPU),
   * then kept in step by update.
   */
  async postings(): Promise<Postings> {
    if (this.memory !== undefined) return this.memory;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<Postings> {
    for (;;) {
      const version = this.version;
      const postings = new Postings();
      this.loadedUpTo = undefined;
      this.pending = [];
      let from: Buffer | undefined;
      for (;;) {
        const until = performance.now() + LOAD_SLICE_MS;
        let read = 0;
        let more = false;
        for (const row of this.tree.rows(from === undefined ? {} : { gte: from }, false)) {
          postings.put(row.key, row.value[1], row.value[2]);
          this.loadedUpTo = row.key;
          if (++read % 64 === 0 && performance.now() > until) {
            more = true;
            break;
          }
        }
        if (!more) break;
        from = Buffer.concat([this.loadedUpTo!, ZERO]);
        await new Promise((resolve) => setImmediate(resolve));
        if (version !== this.version) break;
      }
      if (version !== this.version) continue;
      postings.loaded();
      for (const { inserts, removes } of this.pending) apply(postings, inserts, removes);
      this.loadedUpTo = undefined;
      this.pending = [];
      this.memory = postings;
      return postings;
    }
  }

  update(inserts: readonly RowEntry[], removes: readonly Buffer[]): void {
    this.tree.update(inserts, removes);
    const memory = this.memory;
    if (memory === undefined) {
      // A load in progress reads the rows after the last one it read as they are; the ones up to it change after.
      const upTo = this.loadedUpTo;
      if (this.loading === undefined || upTo === undefined) return;
      const read = (key: Buffer) => Buffer.compare(key, upTo) <= 0;
      this.pending.push({ inserts: inserts.filter((row) => read(row.key)), removes: removes.filter(read) });
      return;
    }
    apply(memory, inserts, removes);
    if (memory.wasteful) this.memory = undefined;
    else if (memory.mergeDue) this.merge(memory);
  }

  /**
   * The postings' delta (what updates put since the load, ./postings.ts `deferring`) merged into
   * the main postings between requests, LOAD_SLICE_MS at a time. Memory only: the rows are as
   * they were, so a process killed mid-merge loses nothing (the postings are made of the rows).
   */
  private merge(memory: Postings): void {
    if (this.merging === memory) return;
    this.merging = memory;
    const step = (): void => {
      if (this.memory === memory && memory.mergeSome(performance.now() + LOAD_SLICE_MS)) setImmediate(step);
      else if (this.merging === memory) this.merging = undefined;
    };
    setImmediate(step);
  }

  invalidate(): void {
    this.memory = undefined;
    this.version++;
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
    this.version++;
    try {
      yield* this.tree.bulkLoadSteps(rows, options);
    } finally {
      this.memory = undefined;
      this.version++;
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

/** How long a step of a load reads rows before other requests are served. */
const LOAD_SLICE_MS = 10;

const ZERO = Buffer.from([0]);

function apply(postings: Postings, inserts: readonly RowEntry[], removes: readonly Buffer[]): void {
  for (const key of removes) postings.remove(key.toString('latin1'));
  for (const { key, value } of inserts) postings.put(key, value[1], value[2]);
}

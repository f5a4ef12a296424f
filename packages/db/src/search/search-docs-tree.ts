/**
 * The documents' tree of a search index (one row per document, its postings in it:
 * ./search-rows.ts), with the inverted postings made of it in memory (./postings.ts) kept in
 * step: every update of the tree is applied to them too; anything else that changes the rows
 * behind their back (a build, a rollback, another node's updates taken in) drops them, and the
 * next query makes them again from the rows.
 *
 * While the postings are in memory, an update is applied to them at once and to the tree's rows
 * later (`settle`): the query that took the update in is answered from the postings, and the
 * rows' update (rewriting a leaf per changed document: a quarter of a 1% update's CPU) comes
 * after it (unless MAX_UNSETTLED_ROWS wait: then at once). The index settles its trees before
 * it stores anything (../views/index/view-index.ts `flush`, after an update's last commit) and
 * before a rolled-back commit drops their caches, and every read of the rows here settles first:
 * what is stored is always a state the rows and the index's sequence agree on, and a crash
 * before loses only what was not stored yet, as it did before (the index's commits are stored
 * later anyway).
 */
import type { BuildableRowTree } from '../views/index/view-index.js';
import type { RowEntry, RowGroup, RowRange, RowValue } from '../views/index/row-tree.js';
import { MappedValues } from './mapped-values.js';
import { Postings } from './postings.js';
import type { DocValue } from './search-rows.js';

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
  /** When `update` last ran (performance.now()): a merge waits for MERGE_QUIET_MS without one. */
  private updatedAt = 0;
  /** Updates the postings took and the rows not yet (`settle`), in order, and their rows. */
  private unsettled: { inserts: readonly RowEntry[]; removes: readonly Buffer[] }[] = [];
  private unsettledRows = 0;
  /** Why applying an unsettled update to the rows failed: the rows are not the index's any more. */
  private failed: { error: unknown } | undefined;

  constructor(
    private readonly tree: BuildableRowTree,
    /** The mapper's values of the rows being put (taken by every update, whether the postings are in memory or not). */
    private readonly mapped = new MappedValues(),
  ) {}

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
    // Rows short of a deferred update take no more (the index's rollback then starts it from what it stored).
    if (this.failed !== undefined) throw this.failed.error;
    const values = inserts.map(({ value }) => this.mapped.take(value[1]));
    const memory = this.memory;
    this.updatedAt = performance.now();
    if (memory !== undefined) {
      apply(memory, inserts, removes, values);
      this.unsettled.push({ inserts, removes });
      this.unsettledRows += inserts.length + removes.length;
      if (memory.wasteful) {
        this.memory = undefined;
        this.settle();
      } else if (this.unsettledRows > MAX_UNSETTLED_ROWS) this.settle();
      else if (memory.mergeDue) this.merge(memory);
      return;
    }
    this.settle();
    this.tree.update(inserts, removes);
    // A load in progress reads the rows after the last one it read as they are; the ones up to it change after.
    const upTo = this.loadedUpTo;
    if (this.loading === undefined || upTo === undefined) return;
    const read = (key: Buffer) => Buffer.compare(key, upTo) <= 0;
    this.pending.push({ inserts: inserts.filter((row) => read(row.key)), removes: removes.filter(read) });
  }

  /**
   * Applies the updates the postings took to the rows. A failure leaves the rows short of them:
   * every read, settle and update after throws it, so the index stores nothing past its last
   * stored state, and its next commit goes back to that state (../views/index/view-index.ts).
   */
  settle(): void {
    if (this.failed !== undefined) throw this.failed.error;
    if (this.unsettled.length === 0) return;
    const unsettled = this.unsettled;
    this.unsettled = [];
    this.unsettledRows = 0;
    try {
      for (const { inserts, removes } of unsettled) this.tree.update(inserts, removes);
    } catch (error) {
      this.failed = { error };
      throw error;
    }
  }

  /**
   * The postings' delta (what updates put since the load, ./postings.ts `deferring`) merged into
   * the main postings between requests, LOAD_SLICE_MS at a time, once no update came for
   * MERGE_QUIET_MS: an update's batches let other work run between them, and merge steps there
   * delayed the answer of the query waiting for the update. Memory only: the rows are as they
   * were, so a process killed mid-merge loses nothing (the postings are made of the rows).
   */
  private merge(memory: Postings): void {
    if (this.merging === memory) return;
    this.merging = memory;
    const step = (): void => {
      const quiet = this.updatedAt + MERGE_QUIET_MS - performance.now();
      if (this.memory === memory && quiet > 0) setTimeout(step, quiet).unref();
      else if (this.memory === memory && memory.mergeSome(performance.now() + LOAD_SLICE_MS)) setImmediate(step);
      else if (this.merging === memory) this.merging = undefined;
    };
    setTimeout(step, MERGE_QUIET_MS).unref();
  }

  invalidate(): void {
    // The index's state is the stored one again (a rolled-back commit settled the earlier ones' first).
    this.failed = undefined;
    this.unsettled = [];
    this.unsettledRows = 0;
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
    this.settle();
    this.memory = undefined;
    this.version++;
    try {
      yield* this.tree.bulkLoadSteps(rows, options);
    } finally {
      this.memory = undefined;
      this.version++;
      this.mapped.cleared();
    }
  }

  rows(range: RowRange, descending: boolean): Generator<RowEntry> {
    this.settle();
    return this.tree.rows(range, descending);
  }

  countBelow(key: Buffer): number {
    this.settle();
    return this.tree.countBelow(key);
  }

  countFrom(key: Buffer): number {
    this.settle();
    return this.tree.countFrom(key);
  }

  total(): number {
    // One row per document: the postings count them too.
    if (this.memory !== undefined) return this.memory.liveCount;
    this.settle();
    return this.tree.total();
  }

  groups(range: RowRange, descending: boolean, groupKey: (key: Buffer) => Buffer): Generator<RowGroup> {
    this.settle();
    return this.tree.groups(range, descending, groupKey);
  }
}

/** Rows of deferred updates kept before they are applied to the tree at once (their values are held meanwhile). */
const MAX_UNSETTLED_ROWS = 20_000;

/** A merge of the delta starts this long after the last update (ms). */
const MERGE_QUIET_MS = 50;

/** How long a step of a load reads rows before other requests are served. */
const LOAD_SLICE_MS = 10;

const ZERO = Buffer.from([0]);

function apply(
  postings: Postings,
  inserts: readonly RowEntry[],
  removes: readonly Buffer[],
  values?: readonly (DocValue | undefined)[],
): void {
  for (const key of removes) postings.remove(key.toString('latin1'));
  for (let n = 0; n < inserts.length; n++) {
    const { key, value } = inserts[n]!;
    postings.put(key, value[1], value[2], values?.[n]);
  }
}

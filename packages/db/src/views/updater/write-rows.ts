/**
 * The last stage of an update: mapped batches into the index.
 *
 * An empty index is built in one go (../index/view-index.ts startBuild: rows sorted once, trees
 * built bottom-up, no back-index reads). Otherwise each mapped batch is staged (diffed against
 * the back-index while the sandbox maps the next one) and the staged changes are committed
 * every APPLY_DOCS documents, since tree writes are cheapest in big batches (random keys touch
 * fewer leaves per row), or sooner when this thread would otherwise wait (see `write`).
 */
import type { GroupState } from '../group-state.js';
import type { IndexUpdate } from '../index/index-update.js';
import type { MappedDoc } from '../index/index-rows.js';
import type { IndexBuild } from '../index/view-index.js';
import type { Batch } from './read-changes.js';

/** Most documents staged before they are committed to the index. */
const APPLY_DOCS = 20_000;

/** A batch readied for writing before it is mapped: each doc once, and their back-index entries. */
export interface ReadiedBatch {
  docs: MappedDoc[];
  /** Undefined when one of the docs is staged already: read after that is committed. */
  olds: Map<string, Uint8Array> | undefined;
}

export class RowWriter {
  /** The build from empty this update is, if it is one. */
  readonly build: IndexBuild | undefined;
  private staged: IndexUpdate | undefined;
  /** The sequence the index is complete up to once what is staged is committed. */
  private stagedSeq: number;

  constructor(
    private readonly state: GroupState,
    /** The mapper runs on this thread: staged docs are written once, not while the next batch maps. */
    private readonly mapsHere = false,
  ) {
    this.build = state.noBuild === true ? undefined : state.index.startBuild();
    this.stagedSeq = state.index.updateSeq;
  }

  /** Nothing to map (say only local docs changed): the index is current at `seq`. */
  async currentAt(seq: number): Promise<void> {
    this.stagedSeq = seq;
    await this.commit();
  }

  /**
   * Before the batch is mapped: the back-index entries of its docs are read while the sandbox
   * maps them (unless one of them is staged already: then they are read after it is committed).
   */
  ready(batch: Batch): ReadiedBatch {
    if (this.build !== undefined) return { docs: [], olds: undefined };
    const docs = latestOnly(batch.docs);
    const staged = this.staged;
    if (staged !== undefined && docs.some((doc) => staged.has(doc.id))) return { docs, olds: undefined };
    this.staged ??= this.state.index.startUpdate();
    return { docs, olds: this.staged.readOld(docs) };
  }

  /** The mapped batch into the index; `next` is the batch after it (empty at the end). */
  async write(batch: Batch, readied: ReadiedBatch, next: Batch): Promise<void> {
    const build = this.build;
    if (build !== undefined) {
      build.add(batch.docs);
      this.stagedSeq = batch.lastSeq;
      if (next.records === 0) {
        await this.reducersReady();
        await build.finish(this.stagedSeq);
      }
      return;
    }
    // A document staged already (changed twice within this update): what is staged
    // goes first, so that its back-index entry is read back current.
    if (readied.olds === undefined) await this.commit();
    this.staged ??= this.state.index.startUpdate();
    this.staged.add(readied.docs, readied.olds);
    this.stagedSeq = batch.lastSeq;
    // Written when the staged docs are many, at the end, and whenever the sandbox is still
    // mapping the next batch: this thread would only wait, and the update's tail after the
    // last mapping is then one batch's tree writes, not the whole update's. A mapper on this
    // thread maps nothing meanwhile: one write of all the staged docs walks each tree once and
    // rewrites a leaf once (a 1% update of the views suite wrote its trees three times).
    const sandboxBusy = !this.mapsHere && next.mapped !== true;
    if (this.staged.size >= APPLY_DOCS || next.records === 0 || sandboxBusy) await this.commit();
  }

  /** A build fed by the caller itself (./build-one-by-one.ts) is complete up to `seq`: written. */
  async finishBuild(seq: number): Promise<void> {
    await this.reducersReady();
    await this.build?.finish(seq);
  }

  dispose(): void {
    this.build?.dispose();
  }

  private async commit(): Promise<void> {
    const { index } = this.state;
    await this.reducersReady();
    index.commit(this.staged ?? index.startUpdate(), this.stagedSeq);
    this.staged = undefined;
    if (index.shared) await index.flushIfBig();
  }

  /** JavaScript reducers compile in the sandbox meanwhile; trees are written only once they can reduce. */
  private reducersReady(): Promise<unknown> {
    return Promise.all(this.state.reducers.map((r) => r?.ready()));
  }
}

/** The docs of a batch, each id once (its last state: changes of one doc within a batch). */
function latestOnly(docs: MappedDoc[]): MappedDoc[] {
  const ids = new Set<string>();
  for (const doc of docs) ids.add(doc.id);
  if (ids.size === docs.length) return docs;
  const latest = new Map<string, MappedDoc>();
  for (const doc of docs) {
    latest.delete(doc.id);
    latest.set(doc.id, doc);
  }
  return [...latest.values()];
}

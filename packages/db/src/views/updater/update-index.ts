/**
 * An index update (CouchDB's couch_index_updater): the coordinator of three stages, run as a
 * pipeline over two cores — while the sandbox (its own thread) maps the next batch
 * (./map-batch.ts), this thread reads the one after (./read-changes.ts) and writes the current
 * one (./write-rows.ts: staged and committed, or sorted into a build from empty). Purges are
 * taken in first (./purges.ts); progress shows in `_active_tasks` and the log (./progress.ts).
 */
import type { Database } from '../../documents/database.js';
import type { SandboxLog } from '../../sandbox/index.js';
import type { GroupState } from '../group-state.js';
import { DuplicateInBuild } from '../index/view-index.js';
import { buildOneByOne, mapsOneByOne } from './build-one-by-one.js';
import { mapBatch, mapperOf, mapsOnThisThread } from './map-batch.js';
import { UpdateProgress } from './progress.js';
import { catchUpPurges } from './purges.js';
import { ChangeReader } from './read-changes.js';
import { RowWriter } from './write-rows.js';

/** An update lets other work run at least this often (ms). */
const SLICE_MS = 8;

/** What an update needs from the view manager that runs it. */
export interface UpdaterContext {
  db: Database;
  log: (line: string) => void;
  /** Where the sandbox's messages about this group go. */
  sandboxLog: SandboxLog;
}

/**
 * Brings the index up to the database's current sequence, holding the index's lock when it is
 * shared: the index is brought up to what other nodes stored first, and stored before the lock
 * goes.
 */
export async function updateIndex(ctx: UpdaterContext, state: GroupState): Promise<void> {
  const { index } = state;
  if (!index.shared) return updateLocked(ctx, state);
  const lock = await index.stored.lock();
  try {
    await state.syncing?.catch(() => {});
    await index.sync();
    if (index.updateSeq >= (await ctx.db.updateSeq())) return;
    await updateLocked(ctx, state);
    await index.flush();
  } catch (error) {
    // Nothing of this update is stored: the next one starts from the stored index.
    index.discard();
    throw error;
  } finally {
    await lock.release();
  }
}

async function updateLocked(ctx: UpdaterContext, state: GroupState): Promise<void> {
  const { db } = ctx;
  const { group, index } = state;
  const target = await db.updateSeq();
  const progress = new UpdateProgress(db.name, group, await db.countChanges(index.updateSeq), ctx.log);
  state.task = progress.task;
  // The index stores nothing between this update's batches, only after (../index/view-index.ts).
  index.updateStarted();
  try {
    const mapper = await mapperOf(state, ctx.sandboxLog);
    // Purges first (the changes read below then find the documents they re-sequenced).
    await Promise.all(state.reducers.map((r) => r?.ready()));
    await catchUpPurges(db, index);
    const writer = new RowWriter(state, mapsOnThisThread(mapper));
    const pages = db.foldChangedBodies(index.updateSeq);
    const changes = new ChangeReader(pages, group, target);
    try {
      const build = writer.build;
      if (build !== undefined && mapsOneByOne(mapper)) {
        // A build mapped on this thread: nothing to overlap, so no batches (./build-one-by-one.ts).
        const last = await buildOneByOne({ build, mapper, pages, group, target, progress, sliceMs: SLICE_MS });
        if (last === undefined) await writer.currentAt(target);
        else await writer.finishBuild(last);
        progress.finished();
        return;
      }
      let current = await changes.readBatch(index.updateSeq);
      if (current.records === 0) await writer.currentAt(target);
      let mapping = mapBatch(mapper, current);
      let slice = performance.now();
      while (current.records > 0) {
        // Reads, mapping and writing resolve as microtasks when nothing waits on I/O: give other
        // requests a turn of the event loop every SLICE_MS, or a big update holds them all up.
        if (performance.now() - slice > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
        const next = await changes.readBatch(current.lastSeq);
        const nextMapping = mapBatch(mapper, next);
        nextMapping.catch(() => {}); // awaited in its turn; a failure there must not go unhandled
        const readied = writer.ready(current);
        await mapping;
        await writer.write(current, readied, next);
        progress.advance(current.records);
        current = next;
        mapping = nextMapping;
      }
    } catch (error) {
      if (!(error instanceof DuplicateInBuild)) throw error;
      // The changes were not one entry per document: build incrementally instead (next round).
      progress.buildAbandoned(error.message);
      state.noBuild = true;
    } finally {
      writer.dispose();
      await changes.close();
    }
    progress.finished();
  } finally {
    index.updateEnded();
    state.task = undefined;
  }
}

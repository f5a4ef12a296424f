/**
 * The views of one database: design documents → view groups → index files, kept up to date.
 *
 * - One index per view group signature (a changed design doc gets a new index; the old file
 *   goes at the next cleanup), opened on first use.
 * - Updates are single-flight: every query that needs the index at the database's current
 *   sequence waits for the one running update (CouchDB's couch_index waiters), which reads the
 *   changes since the index's sequence in batches, maps them in the sandbox, and commits them to
 *   the index up to APPLY_DOCS documents at a time (sooner while the sandbox is the slower side;
 *   ./index/view-index.ts writes commits to the file a moment later); an empty index is built in one
 *   go at the end (./index/view-index.ts startBuild). Progress shows in `_active_tasks` and in the log.
 * - Readers never wait for the writer nor the writer for readers: applying a batch is one
 *   synchronous step, and a read paused mid-stream resumes after its last row (./index/tree-adapter.ts).
 */
import { CouchError } from '../errors.js';
import type { Database } from '../documents/database.js';
import type { ChangedDoc, Page, ViewIndexStore } from '../storage/contract.js';
import { DESIGN_PREFIX, isDesignId } from '../documents/doc-id.js';
import { renderDoc } from '../documents/render.js';
import { conflicts as conflictsOf, deletedConflicts as deletedConflictsOf, parseTree } from '../revisions/index.js';
import { toPlain } from '../json/index.js';
import { AnswerCache } from './query/answer-cache.js';
import { viewGroupOf, type ViewGroup } from './design.js';
import { createReducer, type Reducer } from './reduce/index.js';
import { createMapper, type Mapper } from '../sandbox/index.js';
import { makeRowTree } from './index/tree-adapter.js';
import type { MappedDoc } from './index/index-rows.js';
import type { IndexUpdate } from './index/index-update.js';
import { DuplicateInBuild, ViewIndex } from './index/view-index.js';
import type { TaskProgress } from '../support/active-task.js';

/** Documents per sandbox call. */
const BATCH = 1000;
/** An update lets other work run at least this often (ms). */
const SLICE_MS = 8;
/**
 * The first batches of an update are smaller (FIRST_BATCHES, then BATCH): the sandbox starts
 * mapping sooner, and a small update (a few hundred docs) is mostly mapped while it is read.
 */
const FIRST_BATCHES = [250, 500];
/** Most documents staged before they are committed to the index. */
const APPLY_DOCS = 20_000;

export interface ActiveTask extends TaskProgress {
  type: 'indexer';
  design_document: string;
}

/** One batch of the updater: changed docs, and the texts of those to map. */
interface Batch {
  records: number;
  lastSeq: number;
  docs: MappedDoc[];
  /** Index in `docs` of each text in `texts`. */
  toMap: number[];
  texts: string[];
  /** Set once the sandbox has mapped it. */
  mapped?: boolean;
}

export interface GroupState {
  group: ViewGroup;
  index: ViewIndex;
  /** One reducer per view (undefined for map-only views). */
  reducers: (Reducer | undefined)[];
  mapper?: Mapper;
  updating?: Promise<void>;
  /** A shared index taking in other nodes' updates. */
  syncing?: Promise<void>;
  task?: ActiveTask;
  /** A build from empty failed its checks once: update incrementally only. */
  noBuild?: boolean;
}

/**
 * Mappers for view groups that are not JavaScript (Mango's `"language": "query"` indexes):
 * undefined for a language it does not know.
 */
export type NativeMappers = (group: ViewGroup) => Mapper | undefined;

export class ViewManager {
  private readonly states = new Map<string, Promise<GroupState>>();
  private readonly groups = new Map<string, { rev: string; group: ViewGroup }>();
  /** Rendered answers by ETag (never stale: see ./query/answer-cache.ts). */
  readonly answers = new AnswerCache();

  constructor(
    private readonly db: Database,
    private readonly indexes: ViewIndexStore,
    private readonly log: (line: string) => void,
    private readonly nativeMappers: NativeMappers = () => undefined,
  ) {}

  /** The view group of a design document: 404 `missing`/`deleted` as CouchDB answers. */
  async groupOf(ddocId: string): Promise<ViewGroup> {
    const record = await this.db.record(ddocId);
    if (record === undefined) throw new CouchError('not_found', 'missing');
    if (record.deleted) throw new CouchError('not_found', 'deleted');
    // Parsing the design doc and hashing its signature on every query is wasted work while its
    // revision stays the same.
    const cached = this.groups.get(ddocId);
    if (cached !== undefined && cached.rev === record.rev) return cached.group;
    const current = await this.db.winningBody(ddocId);
    // Deleted between the two reads: as if read a moment later.
    if (current === undefined) throw new CouchError('not_found', 'deleted');
    const group = viewGroupOf(ddocId, toPlain(current.body) as Record<string, unknown>);
    this.groups.set(ddocId, { rev: record.rev, group });
    return group;
  }

  /** The open index of a view group (opened, with its reducers, on first use). */
  state(group: ViewGroup): Promise<GroupState> {
    let state = this.states.get(group.signature);
    if (state === undefined) {
      state = this.open(group);
      this.states.set(group.signature, state);
      state.catch(() => this.states.delete(group.signature));
      void this.retireOld(group).catch((error) =>
        this.log(`[error] removing an old index of ${group.ddocId}: ${String(error)}`),
      );
    }
    return state;
  }

  /**
   * A design document changed: its previous index goes (file included), unless another design
   * document has the same views (same signature) and still uses it.
   */
  private async retireOld(group: ViewGroup): Promise<void> {
    for (const [signature, pending] of this.states) {
      if (signature === group.signature) continue;
      const old = await pending.catch(() => undefined);
      if (old === undefined || old.group.ddocId !== group.ddocId) continue;
      if ((await this.signaturesInUse()).has(signature)) continue;
      await this.drop(signature, old);
    }
  }

  /** The signatures of every current design document. */
  private async signaturesInUse(): Promise<Set<string>> {
    const live = new Set<string>();
    for await (const page of this.db.store.foldDocs({ start: DESIGN_PREFIX, end: '_design0', inclusiveEnd: false })) {
      for (const record of page) {
        const current = await this.db.winningBody(record.id);
        if (current !== undefined)
          live.add(viewGroupOf(record.id, toPlain(current.body) as Record<string, unknown>).signature);
      }
    }
    return live;
  }

  private async drop(signature: string, state: GroupState): Promise<void> {
    this.states.delete(signature);
    await state.updating?.catch(() => {});
    state.mapper?.dispose();
    state.reducers.forEach((r) => {
      r?.dispose();
    });
    await state.index.close({ flush: false });
    await this.indexes.remove(signature);
  }

  private async open(group: ViewGroup): Promise<GroupState> {
    const native = group.language === 'javascript' ? undefined : this.nativeMappers(group);
    if (group.language !== 'javascript' && native === undefined) {
      throw new CouchError('unknown_query_language', group.language, 500);
    }
    const reducers = await Promise.all(
      group.views.map((view) =>
        view.reduce === undefined ? undefined : createReducer([view.reduce], { log: this.sandboxLog(group) }),
      ),
    );
    const index = new ViewIndex(
      group,
      await this.indexes.open(group.signature, group.views.length),
      (store, view) => makeRowTree(store, reducers[view]),
      {
        onFlushError: (error) =>
          this.log(`[error] writing the index of ${this.db.name}/${group.ddocId}: ${String(error)}`),
      },
    );
    return { group, index, reducers, ...(native === undefined ? {} : { mapper: native }) };
  }

  /**
   * Brings the index up to the database's current sequence (waiting for a running update
   * rather than starting a second one). An index at that sequence is current whoever else
   * stored it: a shared one is synced only when it is behind, by the update (under its lock).
   */
  async refresh(state: GroupState): Promise<void> {
    for (;;) {
      if (state.updating !== undefined) {
        await state.updating;
        continue;
      }
      if (state.index.updateSeq >= (await this.db.updateSeq())) return;
      state.updating ??= this.update(state).finally(() => {
        state.updating = undefined;
      });
      await state.updating;
    }
  }

  /**
   * A shared index takes in what other nodes stored (`update=false` answers from there too);
   * never while this node updates it.
   */
  async catchUp(state: GroupState): Promise<void> {
    if (!state.index.shared) return;
    while (state.updating !== undefined) await state.updating.catch(() => {});
    state.syncing ??= state.index.sync().finally(() => {
      state.syncing = undefined;
    });
    await state.syncing;
  }

  /**
   * An update, holding the index's lock when it is shared: the index is brought up to what
   * other nodes stored first, and stored before the lock goes.
   */
  private async update(state: GroupState): Promise<void> {
    const { index } = state;
    if (!index.shared) return this.updateLocked(state);
    const lock = await index.stored.lock();
    try {
      await state.syncing?.catch(() => {});
      await index.sync();
      if (index.updateSeq >= (await this.db.updateSeq())) return;
      await this.updateLocked(state);
      await index.flush();
    } catch (error) {
      // Nothing of this update is stored: the next one starts from the stored index.
      index.discard();
      throw error;
    } finally {
      await lock.release();
    }
  }

  private async updateLocked(state: GroupState): Promise<void> {
    const { group, index } = state;
    const target = await this.db.updateSeq();
    const total = await this.db.store.countChanges(index.updateSeq);
    const now = Math.floor(Date.now() / 1000);
    const task: ActiveTask = {
      type: 'indexer',
      database: this.db.name,
      design_document: group.ddocId,
      changes_done: 0,
      total_changes: total,
      progress: 0,
      started_on: now,
      updated_on: now,
      pid: `<divan.${group.signature.slice(0, 8)}>`,
    };
    state.task = task;
    const started = Date.now();
    let lastLog = started;
    try {
      state.mapper ??= await createMapper(
        { views: group.views.map((v) => ({ name: v.name, map: v.map })), lib: group.lib },
        { log: this.sandboxLog(group) },
      );
      // Purges first (the changes read below then find the documents they re-sequenced).
      await Promise.all(state.reducers.map((r) => r?.ready()));
      await this.catchUpPurges(index);
      // A pipeline over two cores: while the sandbox (its own thread) maps the next batch,
      // this thread reads the one after and stages (or, building, sorts) the current one.
      const mapper = state.mapper;
      const mapBatch = async (batch: Batch): Promise<void> => {
        if (batch.texts.length > 0) {
          const mapped = await mapper.mapBatch(batch.texts);
          batch.toMap.forEach((i, k) => {
            batch.docs[i]!.rows = mapped.rows[k];
          });
        }
        batch.mapped = true;
      };
      // An empty index is built in one go (./index/view-index.ts startBuild: rows sorted once, trees
      // built bottom-up, no back-index reads). Otherwise each mapped batch is staged (diffed
      // against the back-index while the sandbox maps the next one) and the staged changes are
      // committed every APPLY_DOCS documents, since tree writes are cheapest in big batches (random
      // keys touch fewer leaves per row), or sooner when this thread would otherwise wait (below).
      const build = state.noBuild === true ? undefined : index.startBuild();
      let staged: IndexUpdate | undefined;
      let stagedSeq = index.updateSeq;
      // JavaScript reducers compile in the sandbox meanwhile; trees are written only once they can reduce.
      const reducersReady = () => Promise.all(state.reducers.map((r) => r?.ready()));
      const commit = async () => {
        await reducersReady();
        index.commit(staged ?? index.startUpdate(), stagedSeq);
        staged = undefined;
        if (index.shared) await index.flushIfBig();
      };
      const changes = new ChangeReader(this.db.store.foldChangedBodies(index.updateSeq));
      try {
        let batches = 0;
        const size = () => FIRST_BATCHES[batches++] ?? BATCH;
        let current = await this.readBatch(group, changes, index.updateSeq, target, size());
        if (current.records === 0) {
          // Nothing to map (say only local docs changed): the index is current at the target.
          stagedSeq = target;
          await commit();
        }
        let mapping = mapBatch(current);
        let slice = performance.now();
        while (current.records > 0) {
          // Reads, mapping and staging resolve as microtasks when nothing waits on I/O: give other
          // requests a turn of the event loop every SLICE_MS, or a big update holds them all up.
          if (performance.now() - slice > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
          const next = await this.readBatch(group, changes, current.lastSeq, target, size());
          const nextMapping = mapBatch(next);
          nextMapping.catch(() => {}); // awaited in its turn; a failure there must not go unhandled
          // The back-index entries of this batch's docs are read while the sandbox maps them
          // (unless one of them is staged already: then they are read after it is committed).
          let olds: Map<string, Uint8Array> | undefined;
          let docs: MappedDoc[] = [];
          if (build === undefined) {
            docs = latestOnly(current.docs);
            if (staged === undefined || !docs.some((doc) => staged!.has(doc.id))) {
              staged ??= index.startUpdate();
              olds = staged.readOld(docs);
            }
          }
          await mapping;
          if (build !== undefined) {
            build.add(current.docs);
            stagedSeq = current.lastSeq;
            if (next.records === 0) {
              await reducersReady();
              await build.finish(stagedSeq);
            }
          } else {
            // A document staged already (changed twice within this update): what is staged
            // goes first, so that its back-index entry is read back current.
            if (olds === undefined) await commit();
            staged ??= index.startUpdate();
            staged.add(docs, olds);
            stagedSeq = current.lastSeq;
            // Written when the staged docs are many, at the end, and whenever the sandbox is still
            // mapping the next batch: this thread would only wait, and the update's tail after the
            // last mapping is then one batch's tree writes, not the whole update's.
            if (staged.size >= APPLY_DOCS || next.records === 0 || next.mapped !== true) await commit();
          }
          task.changes_done += current.records;
          task.progress = Math.min(100, Math.floor((task.changes_done * 100) / Math.max(1, task.total_changes)));
          task.updated_on = Math.floor(Date.now() / 1000);
          if (Date.now() - lastLog > 2000) {
            lastLog = Date.now();
            this.log(
              `[info] indexing ${this.db.name}/${group.ddocId}: ${task.changes_done}/${task.total_changes} changes (${task.progress}%)`,
            );
          }
          current = next;
          mapping = nextMapping;
        }
      } catch (error) {
        if (!(error instanceof DuplicateInBuild)) throw error;
        // The changes were not one entry per document: build incrementally instead (next round).
        this.log(`[info] indexing ${this.db.name}/${group.ddocId}: ${error.message}; updating incrementally`);
        state.noBuild = true;
      } finally {
        build?.dispose();
        await changes.close();
      }
      if (task.changes_done > 0) {
        this.log(
          `[info] indexed ${this.db.name}/${group.ddocId}: ${task.changes_done} changes in ${Date.now() - started} ms`,
        );
      }
    } finally {
      state.task = undefined;
    }
  }

  /**
   * Brings an index up to the database's purge sequence, in one synchronous step: the documents
   * purged since (from the purge log; when the log no longer reaches back that far, every
   * document of the index) that are gone lose their rows. A document a purge left revisions of
   * has a new sequence: the changes map it again. So a purge of a revision a document does not
   * have changes nothing here (CouchDB removes such a document from its views until its next
   * change).
   */
  private async catchUpPurges(index: ViewIndex): Promise<void> {
    const store = this.db.store;
    const purgeSeq = await store.purgeSeq();
    if (index.purgeSeq >= purgeSeq) return;
    if (index.updateSeq === 0) {
      // Nothing indexed yet: the build reads only documents that are there.
      index.purge([], purgeSeq);
      return;
    }
    const ids = new Set<string>();
    if ((await store.oldestPurge()) > index.purgeSeq + 1) {
      for await (const id of index.backIds()) ids.add(id);
    } else {
      for await (const page of store.foldPurges(index.purgeSeq)) {
        for (const info of page) if (info.purgeSeq <= purgeSeq) ids.add(info.id);
      }
    }
    // A document written again since is no loss: its new sequence is after the index's, so
    // the changes below map it again.
    const list = [...ids];
    const records = await store.getDocs(list);
    index.purge(
      list.filter((_, i) => records[i] === undefined),
      purgeSeq,
    );
  }

  /**
   * The next changes after `since` (up to `target`, at most `size`), with the JSON text of each
   * document to map; deleted docs (and design docs unless include_design) are only removed.
   */
  private async readBatch(
    group: ViewGroup,
    changes: ChangeReader,
    since: number,
    target: number,
    size: number,
  ): Promise<Batch> {
    const batch: Batch = { records: 0, lastSeq: since, docs: [], toMap: [], texts: [] };
    while (batch.records < size) {
      const record = await changes.next();
      if (record === undefined) break;
      if (record.seq > target) {
        // Past the target: the changes end here for this update.
        await changes.close();
        break;
      }
      batch.records++;
      batch.lastSeq = record.seq;
      batch.docs.push({ id: record.id, rows: undefined, seq: record.seq });
      if (!record.deleted && (group.includeDesign || !isDesignId(record.id))) {
        const body = record.body;
        if (body !== undefined) {
          const extras = mapExtras(record, group.localSeq);
          batch.toMap.push(batch.docs.length - 1);
          batch.texts.push(renderDoc(record.id, record.rev, body, false, extras));
        }
      }
    }
    return batch;
  }

  /**
   * View compaction of a design document's index (404 when the design doc is missing): once no
   * update runs, the index file is rewritten without its free pages.
   */
  async compact(ddocId: string): Promise<void> {
    const state = await this.state(await this.groupOf(ddocId));
    await state.updating?.catch(() => {});
    await state.index.compact();
  }

  /** Running index builds, for `_active_tasks`. */
  async tasks(): Promise<ActiveTask[]> {
    const out: ActiveTask[] = [];
    for (const state of this.states.values()) {
      const task = (await state.catch(() => undefined))?.task;
      if (task !== undefined) out.push(task);
    }
    return out;
  }

  /** Removes the index files no current design document uses (`_view_cleanup`). */
  async cleanup(): Promise<void> {
    const live = await this.signaturesInUse();
    for (const [signature, pending] of [...this.states]) {
      if (live.has(signature)) continue;
      const state = await pending.catch(() => undefined);
      if (state !== undefined) await this.drop(signature, state);
      else this.states.delete(signature);
    }
    for (const signature of await this.indexes.signatures()) {
      if (!live.has(signature) && !this.states.has(signature)) await this.indexes.remove(signature);
    }
  }

  async close(): Promise<void> {
    for (const state of this.states.values()) {
      const opened = await state.catch(() => undefined);
      opened?.mapper?.dispose();
      opened?.reducers.forEach((r) => {
        r?.dispose();
      });
      await opened?.index.close();
    }
    this.states.clear();
  }

  private sandboxLog(group: ViewGroup) {
    return (message: string, kind: 'user' | 'error') =>
      this.log(`[${kind === 'user' ? 'info' : 'error'}] ${this.db.name}/${group.ddocId}: ${message}`);
  }
}

/**
 * The meta members CouchDB gives a map function (couch_index_updater opens each document with
 * `[conflicts, deleted_conflicts]`, plus `local_seq` when the group asks): `_conflicts` and
 * `_deleted_conflicts` only when there are some, then `_local_seq`. A tree without a branch (no
 * `(`) and with one root (no `;`) has one leaf: no conflicts, and nothing to parse.
 */
function mapExtras(record: ChangedDoc, localSeq: boolean): [string, unknown][] | undefined {
  let extras: [string, unknown][] | undefined;
  const { tree } = record;
  if (tree.includes('(') || tree.includes(';')) {
    const parsed = parseTree(tree);
    const live = conflictsOf(parsed);
    const deleted = deletedConflictsOf(parsed);
    if (live.length > 0) (extras ??= []).push(['_conflicts', live]);
    if (deleted.length > 0) (extras ??= []).push(['_deleted_conflicts', deleted]);
  }
  if (localSeq) (extras ??= []).push(['_local_seq', record.seq]);
  return extras;
}

/** The changes an update reads, one at a time out of the pages storage hands out. */
class ChangeReader {
  private readonly pages: AsyncIterator<Page<ChangedDoc>>;
  private page: Page<ChangedDoc> = [];
  private at = 0;
  private done = false;

  constructor(pages: AsyncIterable<Page<ChangedDoc>>) {
    this.pages = pages[Symbol.asyncIterator]();
  }

  async next(): Promise<ChangedDoc | undefined> {
    while (this.at >= this.page.length) {
      if (this.done) return undefined;
      const next = await this.pages.next();
      if (next.done === true) {
        this.done = true;
        return undefined;
      }
      this.page = next.value;
      this.at = 0;
    }
    return this.page[this.at++];
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.pages.return?.();
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

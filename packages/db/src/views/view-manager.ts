/**
 * The views of one database: design documents → view groups → index files, kept up to date.
 *
 * - One index per view group signature (a changed design doc gets a new index; the old file
 *   goes at the next cleanup), opened on first use.
 * - Updates are single-flight: every query that needs the index at the database's current
 *   sequence waits for the one running update (CouchDB's couch_index waiters); the update itself,
 *   a pipeline of read changes → map → write rows, is ./updater/update-index.ts.
 * - Readers never wait for the writer nor the writer for readers: applying a batch is one
 *   synchronous step, and a read paused mid-stream resumes after its last row (./index/tree-adapter.ts).
 */
import { refuseUnsupportedLanguage } from '../sandbox/query-language.js';
import { collatorVersion } from '../collation/index.js';
import { CouchError } from '../errors.js';
import type { Database } from '../documents/database.js';
import type { ViewIndexStore } from '../storage/view-index-store.js';
import { toPlain } from '../json/index.js';
import type { Mapper, SandboxLog } from '../sandbox/index.js';
import { viewGroupOf, type ViewGroup } from './design.js';
import type { GroupState } from './group-state.js';
import type { BuildableRowTree } from './index/view-index.js';
import { AnswerCache } from './query/answer-cache.js';
import type { ActiveTask } from './updater/progress.js';

/**
 * The index, its trees and the updater (with the B-tree, the external sorter and the sandbox's
 * mapper behind them), loaded when the first view group opens: a server that answers no view
 * query never holds their code (issue #31, a fresh idle server's memory).
 */
let engine:
  | Promise<{
      makeRowTree: typeof import('./index/tree-adapter.js').makeRowTree;
      ViewIndex: typeof import('./index/view-index.js').ViewIndex;
      createReducer: typeof import('./reduce/index.js').createReducer;
      updateIndex: typeof import('./updater/update-index.js').updateIndex;
    }>
  | undefined;
const loadEngine = () =>
  (engine ??= Promise.all([
    import('./index/tree-adapter.js'),
    import('./index/view-index.js'),
    import('./reduce/index.js'),
    import('./updater/update-index.js'),
  ]).then(([trees, index, reduce, updater]) => ({
    makeRowTree: trees.makeRowTree,
    ViewIndex: index.ViewIndex,
    createReducer: reduce.createReducer,
    updateIndex: updater.updateIndex,
  })));

/**
 * Mappers for view groups that are not JavaScript (Mango's `"language": "query"` indexes):
 * undefined for a language it does not know (a promise: their code may load on first use).
 */
export type NativeMappers = (group: ViewGroup) => NativeMapper | undefined | Promise<NativeMapper | undefined>;

/**
 * A mapper of the server's own (not JavaScript), which may keep a structure of its own beside a
 * view's rows (search: its postings in memory), kept in step by wrapping the view's tree.
 */
export interface NativeMapper extends Mapper {
  wrapTree?(tree: BuildableRowTree, view: number): BuildableRowTree;
}

/**
 * The signatures of the other index groups a design document defines (full-text indexes, kept
 * by this manager too): in use while their design document is, so cleanup keeps them.
 */
export type MoreSignatures = (
  ddocId: string,
  body: Record<string, unknown>,
) => readonly string[] | Promise<readonly string[]>;

/** The `view_index` member of a design document's `_info`. */
export interface ViewIndexInfo {
  signature: string;
  language: string;
  sizes: { file: number; external: number; active: number };
  update_seq: number;
  purge_seq: number;
  updater_running: boolean;
  compact_running: boolean;
  waiting_clients: number;
  waiting_commit: boolean;
  updates_pending: { minimum: number; preferred: number; total: number };
  /** The ICU collator versions the index was built under (CouchDB 3.5's `ucol_vs`): always the running one, since a new one means a new signature. */
  collator_versions: string[];
}

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
    private readonly moreSignatures: MoreSignatures = () => [],
  ) {}

  /** The view group of a design document: 404 `missing`/`deleted` as CouchDB answers. */
  async groupOf(ddocId: string): Promise<ViewGroup> {
    // The database keeps its live design records between writes (a read of the record per query
    // was ~1% of an indexed `_find`); one not among them is read to say missing or deleted.
    const record = (await this.db.designRecords()).find((r) => r.id === ddocId) ?? (await this.db.record(ddocId));
    if (record === undefined) throw new CouchError('not_found', 'missing');
    if (record.deleted) throw new CouchError('not_found', 'deleted');
    // Parsing the design doc and hashing its signature on every query is wasted work while its
    // revision stays the same.
    const cached = this.groups.get(ddocId);
    if (cached !== undefined && cached.rev === record.rev) return cached.group;
    const current = await this.db.winningBody(ddocId);
    // Deleted between the two reads: as if read a moment later.
    if (current === undefined) throw new CouchError('not_found', 'deleted');
    const group = viewGroupOf(ddocId, toPlain(current.body) as Record<string, unknown>, this.db.partitioned);
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
    for (const record of await this.db.designRecords()) {
      const current = await this.db.winningBody(record.id);
      if (current === undefined) continue;
      const body = toPlain(current.body) as Record<string, unknown>;
      live.add(viewGroupOf(record.id, body, this.db.partitioned).signature);
      for (const signature of await this.moreSignatures(record.id, body)) live.add(signature);
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
    const { makeRowTree, ViewIndex, createReducer } = await loadEngine();
    const native = group.language === 'javascript' ? undefined : await this.nativeMappers(group);
    if (group.language !== 'javascript' && native === undefined) {
      refuseUnsupportedLanguage(group.language);
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
      (store, view) => {
        const tree = makeRowTree(store, reducers[view]);
        return native?.wrapTree?.(tree, view) ?? tree;
      },
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
      state.updating ??= loadEngine()
        .then(({ updateIndex }) =>
          updateIndex({ db: this.db, log: this.log, sandboxLog: this.sandboxLog(state.group) }, state),
        )
        .finally(() => {
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

  /** A design document's index as `GET /{db}/_design/{ddoc}/_info` reports it (couch_mrview:get_info). */
  async info(ddocId: string): Promise<ViewIndexInfo> {
    const group = await this.groupOf(ddocId);
    const state = await this.state(group);
    return {
      signature: group.signature,
      language: group.language,
      sizes: { file: state.index.fileSize(), external: 0, active: state.index.activeSize() },
      update_seq: state.index.updateSeq,
      purge_seq: state.index.purgeSeq,
      updater_running: state.updating !== undefined,
      compact_running: false,
      waiting_clients: 0,
      waiting_commit: false,
      updates_pending: {
        minimum: 0,
        preferred: 0,
        total: Math.max(0, (await this.db.updateSeq()) - state.index.updateSeq),
      },
      collator_versions: [collatorVersion().collator],
    };
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

  private sandboxLog(group: ViewGroup): SandboxLog {
    return (message, kind) =>
      this.log(`[${kind === 'user' ? 'info' : 'error'}] ${this.db.name}/${group.ddocId}: ${message}`);
  }
}

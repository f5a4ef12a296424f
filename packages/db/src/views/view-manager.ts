/**
 * The views of one database: design documents → view groups → index files, kept up to date.
 *
 * - One index per view group signature (a changed design doc gets a new index; the old file
 *   goes at the next cleanup), opened on first use.
 * - Updates are single-flight: every query that needs the index at the database's current
 *   sequence waits for the one running update (CouchDB's couch_index waiters), which reads the
 *   changes since the index's sequence in batches, maps them in the sandbox, and writes each
 *   batch in one transaction. Progress shows in `_active_tasks` and in the log.
 * - Readers never wait for the writer nor the writer for readers: applying a batch is one
 *   synchronous step, and a read paused mid-stream resumes after its last row (./tree-adapter.ts).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CouchError } from '../errors.js';
import type { Database } from '../documents/database.js';
import { isDesignId } from '../documents/doc-id.js';
import { renderDoc } from '../documents/render.js';
import { toPlain } from '../json/index.js';
import { viewGroupOf, type ViewGroup } from './design.js';
import { createReducer, type Reducer } from './reduce/index.js';
import { createMapper, type Mapper } from './sandbox/index.js';
import { makeRowTree } from './tree-adapter.js';
import { ViewIndex, type MappedDoc } from './view-index.js';

const BATCH = 1000;

export interface ActiveTask {
  type: 'indexer';
  database: string;
  design_document: string;
  changes_done: number;
  total_changes: number;
  progress: number;
  started_on: number;
  updated_on: number;
  pid: string;
}

export interface GroupState {
  group: ViewGroup;
  index: ViewIndex;
  /** One reducer per view (undefined for map-only views). */
  reducers: (Reducer | undefined)[];
  mapper?: Mapper;
  updating?: Promise<void>;
  task?: ActiveTask;
}

export class ViewManager {
  private readonly states = new Map<string, Promise<GroupState>>();

  constructor(
    private readonly db: Database,
    private readonly dir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** The view group of a design document: 404 `missing`/`deleted` as CouchDB answers. */
  groupOf(ddocId: string): ViewGroup {
    const record = this.db.record(ddocId);
    if (record === undefined) throw new CouchError('not_found', 'missing');
    if (record.deleted) throw new CouchError('not_found', 'deleted');
    const current = this.db.winningBody(ddocId)!;
    return viewGroupOf(ddocId, toPlain(current.body) as Record<string, unknown>);
  }

  /** The open index of a view group (opened, with its reducers, on first use). */
  state(group: ViewGroup): Promise<GroupState> {
    let state = this.states.get(group.signature);
    if (state === undefined) {
      state = this.open(group);
      this.states.set(group.signature, state);
      state.catch(() => this.states.delete(group.signature));
    }
    return state;
  }

  private async open(group: ViewGroup): Promise<GroupState> {
    if (group.language !== 'javascript') {
      throw new CouchError('unknown_query_language', group.language, 500);
    }
    const reducers = await Promise.all(
      group.views.map((view) =>
        view.reduce === undefined ? undefined : createReducer([view.reduce], { log: this.sandboxLog(group) }),
      ),
    );
    mkdirSync(this.dir, { recursive: true });
    const index = new ViewIndex(group, join(this.dir, `${group.signature}.sqlite`), (sql, view) =>
      makeRowTree(sql, view, reducers[view]),
    );
    return { group, index, reducers };
  }

  /**
   * Brings the index up to the database's current sequence (waiting for a running update
   * rather than starting a second one).
   */
  async refresh(state: GroupState): Promise<void> {
    while (state.index.updateSeq < this.db.meta().updateSeq) {
      state.updating ??= this.update(state).finally(() => {
        state.updating = undefined;
      });
      await state.updating;
    }
  }

  private async update(state: GroupState): Promise<void> {
    const { group, index } = state;
    const target = this.db.meta().updateSeq;
    const total = this.db.store.countChanges(index.updateSeq);
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
      await Promise.all(state.reducers.map((r) => r?.ready()));
      while (index.updateSeq < target) {
        const batch = [];
        for (const record of this.db.store.foldChanges(index.updateSeq)) {
          if (record.seq > target) break;
          batch.push(record);
          if (batch.length >= BATCH) break;
        }
        if (batch.length === 0) {
          index.apply([], target);
          break;
        }
        const docs: MappedDoc[] = batch.map((record) => ({ id: record.id, rows: undefined }));
        const toMap: number[] = [];
        const texts: string[] = [];
        batch.forEach((record, i) => {
          if (record.deleted || (isDesignId(record.id) && !group.includeDesign)) return;
          const body = this.db.store.getBody(record.id, record.rev);
          if (body === undefined) return;
          const extras = group.localSeq ? [['_local_seq', record.seq] as const] : undefined;
          toMap.push(i);
          texts.push(renderDoc(record.id, record.rev, body, false, extras));
        });
        if (texts.length > 0) {
          const mapped = await state.mapper.mapBatch(texts);
          toMap.forEach((i, k) => {
            docs[i].rows = mapped.rows[k];
          });
        }
        await Promise.all(state.reducers.map((r) => r?.ready()));
        index.apply(docs, batch[batch.length - 1].seq);
        task.changes_done += batch.length;
        task.progress = Math.min(100, Math.floor((task.changes_done * 100) / Math.max(1, task.total_changes)));
        task.updated_on = Math.floor(Date.now() / 1000);
        if (Date.now() - lastLog > 2000) {
          lastLog = Date.now();
          this.log(`[info] indexing ${this.db.name}/${group.ddocId}: ${task.changes_done}/${task.total_changes} changes (${task.progress}%)`);
        }
      }
      if (task.changes_done > 0) {
        this.log(`[info] indexed ${this.db.name}/${group.ddocId}: ${task.changes_done} changes in ${Date.now() - started} ms`);
      }
    } finally {
      state.task = undefined;
    }
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
  async cleanup(liveSignatures: ReadonlySet<string>): Promise<void> {
    for (const [signature, state] of this.states) {
      if (liveSignatures.has(signature)) continue;
      this.states.delete(signature);
      const opened = await state.catch(() => undefined);
      opened?.mapper?.dispose();
      opened?.reducers.forEach((r) => r?.dispose());
      opened?.index.close();
    }
    let files: string[] = [];
    try {
      files = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const file of files) {
      const signature = file.split('.')[0];
      if (!liveSignatures.has(signature)) rmSync(join(this.dir, file), { force: true });
    }
  }

  async close(): Promise<void> {
    for (const state of this.states.values()) {
      const opened = await state.catch(() => undefined);
      opened?.mapper?.dispose();
      opened?.reducers.forEach((r) => r?.dispose());
      opened?.index.close();
    }
    this.states.clear();
  }

  private sandboxLog(group: ViewGroup) {
    return (message: string, kind: 'user' | 'error') =>
      this.log(`[${kind === 'user' ? 'info' : 'error'}] ${this.db.name}/${group.ddocId}: ${message}`);
  }
}

/** An update's progress: its `_active_tasks` entry (CouchDB's indexer task) and its log lines. */
import type { TaskProgress } from '../../support/active-task.js';
import type { ViewGroup } from '../design.js';

export interface ActiveTask extends TaskProgress {
  type: 'indexer' | 'search_indexer';
  design_document: string;
  /** A search index's name (`search_indexer`). */
  index?: string;
}

/** Log lines of a running update at most this often (ms). */
const LOG_EVERY_MS = 2000;

export class UpdateProgress {
  readonly task: ActiveTask;
  private readonly started = Date.now();
  private lastLog = this.started;
  private readonly label: string;

  constructor(
    dbName: string,
    group: ViewGroup,
    totalChanges: number,
    private readonly log: (line: string) => void,
  ) {
    const now = Math.floor(Date.now() / 1000);
    this.task = {
      type: group.task?.type ?? 'indexer',
      database: dbName,
      design_document: group.ddocId,
      ...(group.task === undefined ? {} : { index: group.task.index }),
      changes_done: 0,
      total_changes: totalChanges,
      progress: 0,
      started_on: now,
      updated_on: now,
      pid: `<divan.${group.signature.slice(0, 8)}>`,
    };
    this.label = `${dbName}/${group.ddocId}`;
  }

  /** `records` more changes are in the index. */
  advance(records: number): void {
    const task = this.task;
    task.changes_done += records;
    task.progress = Math.min(100, Math.floor((task.changes_done * 100) / Math.max(1, task.total_changes)));
    task.updated_on = Math.floor(Date.now() / 1000);
    if (Date.now() - this.lastLog > LOG_EVERY_MS) {
      this.lastLog = Date.now();
      this.log(`[info] indexing ${this.label}: ${task.changes_done}/${task.total_changes} changes (${task.progress}%)`);
    }
  }

  /** The build from empty gave up (see ../index/view-index.ts DuplicateInBuild). */
  buildAbandoned(reason: string): void {
    this.log(`[info] indexing ${this.label}: ${reason}; updating incrementally`);
  }

  finished(): void {
    if (this.task.changes_done > 0) {
      this.log(`[info] indexed ${this.label}: ${this.task.changes_done} changes in ${Date.now() - this.started} ms`);
    }
  }
}

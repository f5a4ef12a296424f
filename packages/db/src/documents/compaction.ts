/**
 * Database compaction (`POST /db/_compact`), as CouchDB's does it in effect: the bodies of
 * revisions that are no longer leaves go (a later `GET ?rev=<old>` is 404 `missing`, and
 * `_revs_info` says `missing`), and the file shrinks.
 *
 * It runs in steps so the server keeps answering meanwhile: documents are read in pages and
 * rewritten 500 at a time (each step one storage transaction that reads them again with the
 * writers held off: the tree with those revisions marked as not stored, and their bodies
 * deleted), then the free pages go back to the file system a few MiB per step
 * (SQLite incremental vacuum; see storage `reclaimSpace`). Progress shows in `_active_tasks` as a
 * `database_compaction` task, and `compact_running` in `GET /db` is true until it ends.
 */
import type { CompactWrite } from '../storage/records.js';
import { formatRev, parseTree, serializeTree, type RevNode, type RevTree } from '../revisions/index.js';
import { sweepAttachments } from './attachment-sweep.js';
import type { Database } from './database.js';
import type { TaskProgress } from '../support/active-task.js';

/**
 * How compaction paces itself: documents rewritten per step, pages given back per step (8 KiB
 * pages: 16 MiB), and a pause between steps (none: the next step waits only for the I/O
 * callbacks already due). A test slows it down to watch it run.
 */
export const compactionPace = { docsPerStep: 500, pagesPerStep: 2048, pauseMs: 0 };

export interface CompactionTask extends TaskProgress {
  type: 'database_compaction';
  phase: 'document_copy' | 'file_shrink';
}

const running = new Map<Database, { task: CompactionTask; done: Promise<void> }>();

/** The compaction of a database running now, if any. */
export function compactionOf(db: Database): CompactionTask | undefined {
  return running.get(db)?.task;
}

/** Every database compaction running now (for `_active_tasks`). */
export function compactionTasks(): CompactionTask[] {
  return [...running.values()].map((entry) => entry.task);
}

/**
 * Starts compacting a database (or joins the compaction running): resolves when it is done.
 * `log` hears how it went.
 */
export function compact(db: Database, log: (line: string) => void = () => {}): Promise<void> {
  const current = running.get(db);
  if (current !== undefined) return current.done;
  const now = Math.floor(Date.now() / 1000);
  const task: CompactionTask = {
    type: 'database_compaction',
    database: db.name,
    phase: 'document_copy',
    changes_done: 0,
    total_changes: 0,
    progress: 0,
    started_on: now,
    updated_on: now,
    pid: `<divan.compact.${db.name}>`,
  };
  const started = Date.now();
  const done = run(db, task)
    .then(
      () => log(`[info] compacted ${db.name}: ${task.changes_done} documents in ${Date.now() - started} ms`),
      (error) => {
        log(`[error] compacting ${db.name}: ${String(error)}`);
        throw error;
      },
    )
    .finally(() => running.delete(db));
  running.set(db, { task, done });
  return done;
}

async function run(db: Database, task: CompactionTask): Promise<void> {
  const counters = await db.store.counters();
  task.total_changes = counters.docCount + counters.docDelCount;
  // The first step waits a turn: the request that started it is answered first.
  await nextTurn();
  let after: string | undefined;
  for (;;) {
    // Ids of the next page; the storage reads each document again under the writers' lock and
    // rewrites it in the same transaction (compactDocs plans over what it reads).
    const ids: string[] = [];
    pages: for await (const page of db.store.foldDocs({ start: after, includeDeleted: true })) {
      for (const record of page) {
        if (after !== undefined && record.id === after) continue;
        ids.push(record.id);
        if (ids.length >= compactionPace.docsPerStep) break pages;
      }
    }
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    await db.store.compact(ids, (records) => {
      const writes: CompactWrite[] = [];
      for (const record of records.values()) {
        const write = compactTree(record.id, record.tree);
        if (write !== undefined) writes.push(write);
      }
      return writes;
    });
    progress(task, ids.length);
    await nextTurn();
  }
  await sweepAttachments(db);
  task.phase = 'file_shrink';
  while (await db.store.reclaimSpace(compactionPace.pagesPerStep)) await nextTurn();
  task.progress = 100;
}

function progress(task: CompactionTask, docs: number): void {
  task.changes_done += docs;
  task.total_changes = Math.max(task.total_changes, task.changes_done);
  task.progress = Math.min(99, Math.floor((task.changes_done * 100) / Math.max(1, task.total_changes)));
  task.updated_on = Math.floor(Date.now() / 1000);
}

/**
 * The compaction of one tree: every stored revision that has children loses its body. A tree
 * with no `.` nor `(` has leaves only: nothing to do (and nothing parsed).
 */
export function compactTree(id: string, text: string): CompactWrite | undefined {
  if (!text.includes('.') && !text.includes('(')) return undefined;
  const tree: RevTree = parseTree(text);
  const dropBodies: string[] = [];
  for (const root of tree) {
    const stack: [RevNode, number][] = [[root.node, root.pos]];
    while (stack.length > 0) {
      const [node, pos] = stack.pop()!;
      if (node.children.length === 0) continue;
      if (node.stored) {
        node.stored = false;
        dropBodies.push(formatRev({ pos, id: node.id }));
      }
      for (const child of node.children) stack.push([child, pos + 1]);
    }
  }
  return dropBodies.length === 0 ? undefined : { id, tree: serializeTree(tree), dropBodies };
}

function nextTurn(): Promise<void> {
  const { pauseMs } = compactionPace;
  return new Promise((resolve) => (pauseMs > 0 ? setTimeout(resolve, pauseMs) : setImmediate(resolve)));
}

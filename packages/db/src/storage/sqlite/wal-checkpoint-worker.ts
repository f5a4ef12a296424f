/**
 * The thread behind ./wal-checkpointer.ts: a second connection to each watched database file,
 * which copies the WAL's committed frames into the file (a PASSIVE checkpoint: it never waits
 * for, nor blocks, the writer or its readers) once the file has been quiet for a moment after
 * it changed.
 *
 * Not right after a commit: the requests that follow a write (the next view query, which
 * updates its index from the documents just written) run then, and on a machine of two cores
 * the checkpoint's CPU and writes took a core from them and from V8's collectors, on which they
 * wait (docs/benchmarks.md, views, session 45). A file written without pause is still
 * checkpointed every MAX_DEFER_MS, about as often as when it was checkpointed on every tick.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';

/** How often each file is looked at while nothing is pending. */
const TICK_MS = 100;

/** A change is checkpointed once no further commit was seen for this long... */
const QUIET_MS = 50;

/** ...or once it is this old: the WAL of a file that never pauses holds at most about this long of commits. */
const MAX_DEFER_MS = 300;

export type CheckpointMessage =
  | { type: 'watch'; id: number; path: string; synchronous: 'NORMAL' | 'FULL' }
  | { type: 'unwatch'; id: number; closed: Int32Array };

interface Watched {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  db?: Database.Database;
  /** `PRAGMA data_version`, prepared once: a look is this statement's step (db.pragma prepares anew). */
  dataVersion?: Database.Statement;
  /** PRAGMA data_version when last checkpointed: it moves with every commit of another connection. */
  version?: number;
  /** PRAGMA data_version when last looked at, and when it was last seen to move. */
  seenVersion?: number;
  seenAt: number;
  /** When the oldest change not yet checkpointed was first seen (undefined: none is pending). */
  pendingSince?: number;
}

const watched = new Map<number, Watched>();

/** Looks at a file: checkpoints it if it changed and has been quiet since; true while a change is pending. */
function look(file: Watched, now: number): boolean {
  try {
    if (file.db === undefined) {
      const db = new Database(file.path, { fileMustExist: true, timeout: 0 });
      // The fsync that makes a checkpoint safe against power loss is this connection's to make.
      db.pragma(`synchronous = ${file.synchronous}`);
      db.pragma('cache_size = -256');
      file.db = db;
      file.dataVersion = db.prepare('PRAGMA data_version').pluck();
    }
    const version = file.dataVersion?.get() as number;
    if (version === file.version) return false;
    if (version !== file.seenVersion) {
      file.seenVersion = version;
      file.seenAt = now;
    }
    const pendingSince = (file.pendingSince ??= now);
    if (now - file.seenAt < QUIET_MS && now - pendingSince < MAX_DEFER_MS) return true;
    file.version = version;
    file.pendingSince = undefined;
    file.db.pragma('wal_checkpoint(PASSIVE)');
    return false;
  } catch {
    // A file being destroyed, or locked for a moment: looked at again on the next tick (the
    // writer's own autocheckpoint stays as a far safety net).
    file.db?.close();
    file.db = undefined;
    file.dataVersion = undefined;
    file.version = undefined;
    file.seenVersion = undefined;
    file.pendingSince = undefined;
    return false;
  }
}

/** The next look at the files with a change pending, when one is due before the next tick. */
let recheck: NodeJS.Timeout | undefined;

function lookAtAll(): void {
  const now = performance.now();
  let pending = false;
  for (const file of watched.values()) pending = look(file, now) || pending;
  if (pending && recheck === undefined) {
    // A millisecond past QUIET_MS: a timer may fire a fraction early by performance.now().
    recheck = setTimeout(() => {
      recheck = undefined;
      lookAtAll();
    }, QUIET_MS + 1);
  }
}

parentPort?.on('message', (message: CheckpointMessage) => {
  if (message.type === 'watch') {
    watched.set(message.id, { path: message.path, synchronous: message.synchronous, seenAt: 0 });
    return;
  }
  const file = watched.get(message.id);
  watched.delete(message.id);
  try {
    file?.db?.close();
  } finally {
    // The writer closes its own connection only after this one: the last connection to close
    // removes the WAL by its path, which must never be a newer file's.
    Atomics.store(message.closed, 0, 1);
    Atomics.notify(message.closed, 0);
  }
});

setInterval(lookAtAll, TICK_MS);

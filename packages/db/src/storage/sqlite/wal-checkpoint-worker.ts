/**
 * The thread behind ./wal-checkpointer.ts: a second connection to each watched database file,
 * which copies the WAL's committed frames into the file (a PASSIVE checkpoint: it never waits
 * for, nor blocks, the writer or its readers) whenever it sees that the file changed.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';

/** How often each file is looked at: the WAL holds at most about this long of commits. */
const TICK_MS = 100;

export type CheckpointMessage =
  | { type: 'watch'; id: number; path: string; synchronous: 'NORMAL' | 'FULL' }
  | { type: 'unwatch'; id: number; closed: Int32Array };

interface Watched {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  db?: Database.Database;
  /** PRAGMA data_version when last checkpointed: it moves with every commit of another connection. */
  version?: number;
}

const watched = new Map<number, Watched>();

function checkpoint(file: Watched): void {
  try {
    if (file.db === undefined) {
      const db = new Database(file.path, { fileMustExist: true, timeout: 0 });
      // The fsync that makes a checkpoint safe against power loss is this connection's to make.
      db.pragma(`synchronous = ${file.synchronous}`);
      db.pragma('cache_size = -256');
      file.db = db;
    }
    const version = file.db.pragma('data_version', { simple: true }) as number;
    if (version === file.version) return;
    file.version = version;
    file.db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A file being destroyed, or locked for a moment: looked at again on the next tick (the
    // writer's own autocheckpoint stays as a far safety net).
    file.db?.close();
    file.db = undefined;
    file.version = undefined;
  }
}

parentPort?.on('message', (message: CheckpointMessage) => {
  if (message.type === 'watch') {
    watched.set(message.id, { path: message.path, synchronous: message.synchronous });
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

setInterval(() => {
  for (const file of watched.values()) checkpoint(file);
}, TICK_MS);

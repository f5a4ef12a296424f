/**
 * One server per data folder. Each process keeps state of the files it writes in memory (the
 * next update sequence of a database, its props, its index copies), so a second server on the
 * same folder would hand out sequences the first one also hands out, and delete journals the
 * first one still needs. The lock is an exclusive SQLite lock on `<dir>/divan.lock`, which the
 * operating system drops when its process ends, however it ends (kill -9 included).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const LOCK_FILE_NAME = 'divan.lock';

export class FolderInUseError extends Error {
  constructor(readonly dir: string) {
    super(`the data folder ${dir} is in use by another Divan server (only one may use a folder at a time)`);
  }
}

export interface FolderLock {
  release(): void;
}

export function lockFolder(dir: string): FolderLock {
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, LOCK_FILE_NAME), { timeout: 0 });
  try {
    // In exclusive locking mode the lock the first write takes is held until the connection closes.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = OFF');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder;');
    db.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new FolderInUseError(dir);
    throw error;
  }
  return { release: () => db.close() };
}

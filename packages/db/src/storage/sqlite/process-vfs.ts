/**
 * How this process's connections name a database file: through SQLite's `unix-excl` VFS where
 * it can. One process owns a data folder (../folder-lock.ts), so nothing outside it needs the
 * file's locks: `unix-excl` takes one exclusive lock on the file for the whole process and keeps
 * the WAL index in the process's memory, and SQLite coordinates the process's own connections
 * (the writer and the checkpoint worker's, ./wal-checkpointer.ts) in memory, as it always does
 * between connections of one process. With the default VFS every transaction also took and
 * released WAL locks with `fcntl` (six calls per commit: the read mark, the read lock, the write
 * lock); with this one it makes none. A commit's durability is unchanged: the WAL frames are
 * written before it returns, and the WAL is read back on the next open (after kill -9 too).
 * While the server runs, another process (the `sqlite3` shell) cannot open the file.
 *
 * A VFS is chosen by a URI filename, which better-sqlite3 reads only if SQLITE_USE_URI=1 was in
 * the environment when its native addon loaded (it loads at the process's first connection,
 * after every module is imported). Where that came too late (an embedding application opened a
 * connection first) or was set to 0, the file is named by its path and the default VFS serves.
 */
import { resolve } from 'node:path';
import Database from 'better-sqlite3';

process.env.SQLITE_USE_URI ??= '1';

let urisRead: boolean | undefined;

/** Whether SQLite reads `file:` names as URIs in this process (a named in-memory database opens only then). */
function readsUris(): boolean {
  if (urisRead === undefined) {
    try {
      // Without URIs this is a relative path that does not exist: refused, nothing created.
      new Database('file:divan-uri-probe?mode=memory', { fileMustExist: true }).close();
      urisRead = true;
    } catch {
      urisRead = false;
    }
  }
  return urisRead;
}

/** The name to open the database file at `path` by (see above); every connection to one file must use the same. */
export function connectionNameOf(path: string): string {
  if (process.platform === 'win32' || !readsUris()) return path;
  // An absolute path after `file://` (an empty authority); in a URI `%` escapes, `?` starts the
  // query and `#` the fragment.
  const escaped = resolve(path).replaceAll('%', '%25').replaceAll('?', '%3F').replaceAll('#', '%23');
  return `file://${escaped}?vfs=unix-excl`;
}

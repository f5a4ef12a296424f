import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The pages a commit changed, by the table or index that owns each (for the access bench): read
 * from the last commit's frames in the database file's WAL, each page's owner from SQLite's
 * `dbstat`. Unlike time, the same however busy the machine is.
 */

/** The frames of the WAL's last commit: each a page number (SQLite's WAL format). */
function lastCommitPages(wal: Buffer): number[] {
  if (wal.length < 32) return [];
  const pageSize = wal.readUInt32BE(8);
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const commits: number[][] = [];
  let open: number[] = [];
  // Frames of an older generation (before the WAL restarted) carry other salts: the valid ones end there.
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break;
    open.push(wal.readUInt32BE(at));
    // A frame with the database's size after it is the last of its commit.
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits.push(open);
      open = [];
    }
  }
  return commits.at(-1) ?? [];
}

/** The file of database `name` under the embedded server's folder `dir`. */
function fileOf(dir: string, name: string): string {
  const found = (readdirSync(dir, { recursive: true }) as string[]).find(
    (path) => path === `${name}.sqlite` || path.endsWith(`/${name}.sqlite`),
  );
  if (found === undefined) throw new Error(`access bench: no file for database ${name} under ${dir}`);
  return join(dir, found);
}

/**
 * Runs `write` (one commit) until its frames are seen in the WAL (a checkpoint may restart the
 * WAL under it) and counts the pages of that commit per owner, over `commits` commits.
 */
export async function pagesPerCommit(
  dir: string,
  name: string,
  commits: number,
  write: () => Promise<unknown>,
): Promise<Map<string, number>> {
  const file = fileOf(dir, name);
  const counts = new Map<string, number>();
  const reader = new Database(file, { readonly: true });
  try {
    const owner = reader.prepare('SELECT name FROM dbstat WHERE pageno = ?').pluck();
    let seen = 0;
    for (let tries = 0; seen < commits && tries < commits * 10; tries++) {
      await write();
      const pages = lastCommitPages(readFileSync(`${file}-wal`));
      if (pages.length === 0) continue;
      seen++;
      for (const page of new Set(pages)) {
        const tree = (owner.get(page) as string | undefined) ?? '(new page)';
        counts.set(tree, (counts.get(tree) ?? 0) + 1);
      }
    }
    for (const [tree, n] of counts) counts.set(tree, n / seen);
  } finally {
    reader.close();
  }
  return counts;
}

/**
 * Opening a database file: the connection's settings (WAL, durability, cache, checkpoints) and
 * the schema (created in a new file, brought up to date in an older one).
 */
import type Database from 'better-sqlite3';
import type { StoredCounters } from './doc-rows.js';
import { SAFETY_NET_PAGES } from './wal-checkpointer.js';
import {
  ATTACHMENT_CHUNKS_COLUMN,
  ATTACHMENT_SCHEMA,
  COUNTERS,
  PURGE_SCHEMA,
  SCHEMA,
  SCHEMA_VERSION,
  STALE,
  WINNER_BODIES_MIGRATION,
  WINNER_BODY_COLUMN,
} from './schema.js';
import { TREE_CHUNKS_SCHEMA } from './tree-chunks.js';

/** The connection's settings; `checkpointedElsewhere`: the checkpoint worker (./wal-checkpointer.ts) watches the file. */
export function configureConnection(
  db: Database.Database,
  durability: 'normal' | 'full',
  checkpointedElsewhere: boolean,
): void {
  // 8 KiB pages for new files (an existing file keeps its own): a bulk load commits about half
  // as many WAL frames (one write each) and B-tree pages for the same rows, which measured
  // ~0.2-0.3 µs of system time less per document on loads of ~365-byte documents.
  db.pragma('page_size = 8192');
  // WAL: readers never block the writer. A commit has written its WAL frames with write(2)
  // before returning, so with synchronous=NORMAL it survives kill -9 of this process (the OS
  // holds the pages); only an OS crash or power loss can drop the last commits, which FULL
  // (an fsync of the WAL per commit) prevents.
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
  // Up to 8 MiB of page cache per open database (allocated as used); the OS caches the file
  // too. Measured against 32 MiB: random GETs of 100k docs ~5% slower (12.2k vs 12.9k req/s at
  // c16), bulk loads alike, and 25-40 MB less resident memory once a big database was loaded
  // (peak RSS of a 1M-doc index build: 242-266 MB in 5 runs, instead of 278-311 MB).
  db.pragma('cache_size = -8192');
  db.pragma('temp_store = MEMORY');
  // Checkpoints are the worker's (./wal-checkpointer.ts); this connection's own is a far safety
  // net then. Without a worker: every ~16 MiB of WAL (2048 pages of 8 KiB) rather than 4 MiB,
  // fewer checkpoints and faster bulk loads (32 and 64 MiB measured no better). mmap gave no
  // clear gain, so it stays off.
  db.pragma(`wal_autocheckpoint = ${checkpointedElsewhere ? SAFETY_NET_PAGES : 2048}`);
  // After a checkpoint, cut a WAL that grew past 64 MiB back down.
  db.pragma('journal_size_limit = 67108864');
}

/** Creates the tables of a new file (or brings an older file's up to date); returns createdAt. */
export function migrateFile(db: Database.Database, name: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === 0) {
    // New file (or one whose creation was interrupted before this transaction committed).
    const createdAt = Date.now();
    // Compaction gives free pages back with incremental_vacuum (see reclaimSpace); the mode
    // must be set before the first table exists.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.transaction(() => {
      db.exec(SCHEMA);
      db.exec(PURGE_SCHEMA);
      db.exec(ATTACHMENT_SCHEMA);
      db.exec(TREE_CHUNKS_SCHEMA);
      const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
      for (const key of COUNTERS) put.run(key, 0);
      put.run(STALE, 0);
      put.run('created_at', createdAt);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
    return createdAt;
  }
  if (version !== SCHEMA_VERSION && (version < 1 || version > 8)) {
    throw new Error(`database ${name}: unsupported storage schema version ${version}`);
  }
  db.exec(PURGE_SCHEMA);
  db.exec(ATTACHMENT_SCHEMA);
  db.exec(TREE_CHUNKS_SCHEMA);
  if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('attachments');
  if (!columns.includes('chunks')) db.exec(ATTACHMENT_CHUNKS_COLUMN);
  const createdAt = db.prepare("SELECT value FROM meta WHERE key = 'created_at'").pluck().get();
  return createdAt as number;
}

/**
 * Gives `docs` its `body` column (schema version 9), moving each winner's body there from
 * `bodies` in a file made before it, in one transaction. Run after `docs.access` exists
 * (./access-rows.ts), so that `body` is the row's last column. Judged by the column, not the
 * version: a crash between the version's update and this transaction leaves it to the next open.
 */
export function migrateWinnerBodies(db: Database.Database): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('docs') as string[];
  if (columns.includes('body')) return;
  db.transaction(() => {
    db.exec(WINNER_BODY_COLUMN);
    db.exec(WINNER_BODIES_MIGRATION);
  }).immediate();
}

/**
 * The counters, exact: as `meta` has them, or counted again from the rows when `meta` is behind
 * them. Write batches do not save the counters (./doc-writes.ts): `meta` is brought up to date
 * at a clean close, by purges, compaction and role changes. Every write leaves its sequence on
 * its document's row and a purge that removes rows saves `meta`, so the rows hold a sequence
 * above `meta`'s exactly when writes came after its last save (a kill -9, a crash): the document
 * counters, sizes and update sequence are then counted from `docs` and saved, and the stale
 * bodies' bytes, which the rows cannot give, are left to be counted again by
 * `SqliteDatabase.countStaleBodies` (as for a file from before schema version 4).
 */
export function loadCounters(db: Database.Database): StoredCounters {
  const rows = db.prepare('SELECT key, value FROM meta').raw().all() as [string, number][];
  const values = new Map(rows);
  const get = (key: string): number => values.get(key) ?? 0;
  const saved: StoredCounters = {
    updateSeq: get('update_seq'),
    docCount: get('doc_count'),
    docDelCount: get('doc_del_count'),
    external: get('external'),
    purgeSeq: get('purge_seq'),
    // Absent in a file from before schema version 4, until counted.
    stale: values.get(STALE),
  };
  const lastSeq = (db.prepare('SELECT max(seq) FROM docs').pluck().get() as number | null) ?? 0;
  if (lastSeq <= saved.updateSeq) return saved;
  return db
    .transaction(() => {
      const [live, deleted, external] = db
        .prepare(
          'SELECT count(*) - coalesce(sum(deleted), 0), coalesce(sum(deleted), 0), coalesce(sum(size), 0) FROM docs',
        )
        .raw()
        .get() as [number, number, number];
      const counted: StoredCounters = {
        ...saved,
        updateSeq: lastSeq,
        docCount: live,
        docDelCount: deleted,
        external,
        stale: undefined,
      };
      const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      put.run('update_seq', counted.updateSeq);
      put.run('doc_count', counted.docCount);
      put.run('doc_del_count', counted.docDelCount);
      put.run('external', counted.external);
      db.prepare('DELETE FROM meta WHERE key = ?').run(STALE);
      return counted;
    })
    .immediate();
}

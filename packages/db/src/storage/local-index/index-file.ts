/**
 * One view group's index in a SQLite file of its own: a node table per view (see
 * ./sqlite-node-store.ts), the back-index (doc id → its row keys) and the checkpoint in `meta`.
 * This process is the file's only user: the SQLite engine's index, and the local copy of a
 * shared one (../postgres/shared-index.ts).
 *
 * The index can always be rebuilt from its database, so commits are not synced to disk: a crash
 * loses at most the last writes, and the file is the index of an older sequence, brought up to
 * date on its next use.
 */
import Sqlite from 'better-sqlite3';
import { keysetPages } from '../keyset-pages.js';
import { scratchFile } from '../scratch-file.js';
import { connectionNameOf } from '../sqlite/process-vfs.js';
import type { IndexMeta, IndexWriter, ScratchFile, StoredIndex } from '../view-index-store.js';
import { SqliteNodeStore } from './sqlite-node-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS back_index (id TEXT PRIMARY KEY, rows BLOB NOT NULL) WITHOUT ROWID;
`;
/** Doc ids per back-index SELECT (a power of two: see `readBack`). */
const BACK_IDS_PER_SELECT = 512;
/** Back-index ids per page of `foldBackIds`. */
const BACK_PAGE = 1000;
/**
 * Back-index entries a write inserts with one statement: an index build puts one per document
 * (100,000 statement runs were ~8% of a 100k-doc build's CPU, issue #31); a statement of many
 * rows pays the call into SQLite once.
 */
const BACK_ROWS_PER_INSERT = 64;

export class SqliteIndexFile implements StoredIndex {
  readonly nodes: SqliteNodeStore[];
  readonly shared = false;
  private readonly sql: Sqlite.Database;
  private readonly getBack: Sqlite.Statement;
  private readonly putBackStmt: Sqlite.Statement;
  private readonly deleteBackStmt: Sqlite.Statement;
  private readonly putMeta: Sqlite.Statement;
  private readonly getMeta: Sqlite.Statement;
  private readonly getBacks = new Map<number, Sqlite.Statement>();
  private readonly putBacksStmt: Sqlite.Statement;
  private current: IndexMeta;
  /** Settles when the running asynchronous `write` has (undefined: none runs). */
  private writing: Promise<void> | undefined;

  constructor(
    readonly file: string,
    signature: string,
    views: number,
  ) {
    // Through the unix-excl VFS, as the database files: no fcntl per transaction (../sqlite/process-vfs.ts).
    const sql = new Sqlite(connectionNameOf(file));
    this.sql = sql;
    sql.pragma('journal_mode = WAL');
    sql.pragma('synchronous = OFF');
    // Checkpoint every ~16 MiB of WAL (4096 pages of 4 KiB, as the database files) rather than
    // SQLite's 4 MiB: an update of 1% of a 100k-doc index writes ~5 MB of WAL, so the default
    // checkpointed after every update; less often, pages rewritten by several updates (inner
    // nodes, SQLite's own interior pages) are copied once (~2 ms less CPU per update on average).
    sql.pragma('wal_autocheckpoint = 4096');
    sql.pragma('journal_size_limit = 67108864');
    // 2 MiB of page cache, not better-sqlite3's 16 MB default: the trees keep their nodes decoded
    // (btree/node-cache.ts), so their pages are read about once each; at 16 MB this cache was
    // ~16 MB of the views bench's peak RSS, for no CPU told (docs/benchmarks.md, session 44).
    sql.pragma('cache_size = -2048');
    sql.exec(SCHEMA);
    this.getBack = sql.prepare('SELECT rows FROM back_index WHERE id = ?').pluck();
    this.putBackStmt = sql.prepare('INSERT OR REPLACE INTO back_index (id, rows) VALUES (?, ?)');
    this.deleteBackStmt = sql.prepare('DELETE FROM back_index WHERE id = ?');
    this.putBacksStmt = sql.prepare(
      `INSERT OR REPLACE INTO back_index (id, rows) VALUES ${Array(BACK_ROWS_PER_INSERT).fill('(?, ?)').join(', ')}`,
    );
    this.putMeta = sql.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    this.getMeta = sql.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const stored = this.metaValue('signature');
    if (stored !== undefined && stored !== signature) {
      sql.close();
      throw new Error(`index file ${file} belongs to signature ${stored}, not ${signature}`);
    }
    this.putMeta.run('signature', signature);
    const seq = Number(this.metaValue('update_seq') ?? 0);
    // Back-index format 2 (views/back-index.ts) for indexes started since it exists.
    let format = this.metaValue('back_format');
    if (format === undefined && seq === 0) this.putMeta.run('back_format', (format = '2'));
    const changed = this.metaValue('changed_seqs');
    this.current = {
      updateSeq: seq,
      purgeSeq: Number(this.metaValue('purge_seq') ?? 0),
      changedSeqs: changed === undefined ? new Array<number>(views).fill(0) : (JSON.parse(changed) as number[]),
      backFormat: format === '2' ? 2 : 1,
    };
    // Atomic updates are the writer's business (`write`): no SAVEPOINTs.
    this.nodes = Array.from(
      { length: views },
      (_, view) => new SqliteNodeStore(sql, `view_${view}`, { savepoints: false }),
    );
  }

  meta(): IndexMeta {
    return this.current;
  }

  /** A value of the `meta` table (the checkpoint, and what a shared index's copy keeps there). */
  metaValue(key: string): string | undefined {
    return this.getMeta.get(key) as string | undefined;
  }

  readBack(ids: readonly string[]): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    if (ids.length === 1) {
      const old = this.getBack.get(ids[0]) as Uint8Array | undefined;
      if (old !== undefined) out.set(ids[0]!, old);
      return out;
    }
    for (let from = 0; from < ids.length; from += BACK_IDS_PER_SELECT) {
      const n = Math.min(BACK_IDS_PER_SELECT, ids.length - from);
      // The statement for the next power of two, its extra places given the last id again (an
      // IN list is a set): a few statements serve every size. An update's first batches are
      // smaller than the rest, and preparing a statement of hundreds of places for each (used
      // once) was ~2% of a 1% update's CPU.
      let places = 8;
      while (places < n) places *= 2;
      let stmt = this.getBacks.get(places);
      if (stmt === undefined) {
        stmt = this.sql
          .prepare(`SELECT id, rows FROM back_index WHERE id IN (${Array(places).fill('?').join(', ')})`)
          .raw();
        this.getBacks.set(places, stmt);
      }
      const params = ids.slice(from, from + n);
      while (params.length < places) params.push(params[n - 1]!);
      for (const [id, rows] of stmt.all(params) as [string, Uint8Array][]) out.set(id, rows);
    }
    return out;
  }

  async *foldBackIds(): AsyncGenerator<readonly string[]> {
    const page = this.sql.prepare('SELECT id FROM back_index WHERE id > ? ORDER BY id LIMIT ?').pluck();
    yield* keysetPages(
      '',
      (id: string) => id,
      BACK_PAGE,
      ({ from, limit }) => page.all(from, limit) as string[],
    );
  }

  async sync(): Promise<boolean> {
    return false;
  }

  async lock(): Promise<{ release(): Promise<void> }> {
    return { release: async () => {} };
  }

  /**
   * One transaction around `fn`. A synchronous `fn` is written at once (nothing else runs in
   * between); one that pauses lets this process read the file meanwhile, and it then sees the
   * writes made so far (one connection). Writes take turns.
   */
  write<T>(fn: (writer: IndexWriter) => T | Promise<T>, extraMeta?: () => Record<string, string>): Promise<T> {
    return this.writeWith(fn, extraMeta, false);
  }

  /**
   * `write` through a rollback journal rather than the WAL: a build's pages (new ones, past the
   * end of the file) are then written once, where the WAL writes them twice (to the WAL, then
   * into the file at the checkpoint) — about half the CPU of a build's commit. The WAL comes
   * back when the write ends. A crash meanwhile leaves a hot journal, rolled back at next open.
   */
  fillEmpty<T>(fn: (writer: IndexWriter) => T | Promise<T>): Promise<T> {
    return this.writeWith(fn, undefined, true);
  }

  private writeWith<T>(
    fn: (writer: IndexWriter) => T | Promise<T>,
    extraMeta: (() => Record<string, string>) | undefined,
    journal: boolean,
  ): Promise<T> {
    if (this.writing !== undefined) return this.writing.then(() => this.writeWith(fn, extraMeta, journal));
    try {
      return this.begin(fn, extraMeta, journal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private begin<T>(
    fn: (writer: IndexWriter) => T | Promise<T>,
    extraMeta: (() => Record<string, string>) | undefined,
    journal: boolean,
  ): Promise<T> {
    const sql = this.sql;
    let meta: IndexMeta | undefined;
    // Entries put and not inserted yet (id, rows, id, rows...): inserted a statement's worth at
    // a time, and before anything else the write does or lets others read.
    let backs: (string | Uint8Array)[] = [];
    const insertBacks = (): void => {
      for (let k = 0; k < backs.length; k += 2) this.putBackStmt.run(backs[k], backs[k + 1]);
      backs = [];
    };
    const writer: IndexWriter = {
      putBack: (id, rows) => {
        backs.push(id, rows);
        if (backs.length === 2 * BACK_ROWS_PER_INSERT) {
          this.putBacksStmt.run(backs);
          backs = [];
        }
      },
      deleteBack: (id) => {
        insertBacks();
        this.deleteBackStmt.run(id);
      },
      clearBack: () => {
        insertBacks();
        sql.exec('DELETE FROM back_index');
      },
      setMeta: (next) => {
        meta = next;
      },
      pause: () => {
        insertBacks();
        return new Promise((resolve) => setImmediate(resolve));
      },
    };
    const commit = (result: T): T => {
      if (meta !== undefined) {
        this.putMeta.run('update_seq', String(meta.updateSeq));
        this.putMeta.run('changed_seqs', JSON.stringify(meta.changedSeqs));
        this.putMeta.run('purge_seq', String(meta.purgeSeq));
      }
      for (const [key, value] of Object.entries(extraMeta?.() ?? {})) this.putMeta.run(key, value);
      sql.exec('COMMIT');
      if (journal) backToWal();
      if (meta !== undefined) {
        const { updateSeq, purgeSeq, changedSeqs } = meta;
        this.current = { updateSeq, purgeSeq, changedSeqs: [...changedSeqs], backFormat: this.current.backFormat };
      }
      return result;
    };
    const undo = (error: unknown): never => {
      if (sql.open && sql.inTransaction) sql.exec('ROLLBACK');
      if (journal && sql.open) backToWal();
      for (const store of this.nodes) store.forgetAllocation();
      throw error;
    };
    const backToWal = (): void => {
      try {
        sql.pragma('journal_mode = WAL');
      } catch {
        // Left with the rollback journal: still correct; the next fill or open tries again.
      }
    };
    if (journal) {
      try {
        sql.pragma('journal_mode = DELETE');
      } catch {
        // Another connection has the file: the write goes through the WAL as any other.
      }
    }
    sql.exec('BEGIN IMMEDIATE');
    let result: T | Promise<T>;
    try {
      result = fn(writer);
      if (!(result instanceof Promise)) {
        insertBacks();
        return Promise.resolve(commit(result));
      }
    } catch (error) {
      return undo(error);
    }
    const run = result
      .then((value) => {
        insertBacks();
        return value;
      })
      .then(commit, undo);
    const done = run.then(
      () => {},
      () => {},
    );
    this.writing = done;
    void done.then(() => {
      if (this.writing === done) this.writing = undefined;
    });
    return run;
  }

  scratch(name: string): ScratchFile {
    return scratchFile(`${this.file}.${name}.tmp`);
  }

  size(): number {
    const pages = this.sql.pragma('page_count', { simple: true }) as number;
    const size = this.sql.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  activeSize(): number {
    // Pages updates left free stay in the file until VACUUM (compact) gives them back.
    const free = this.sql.pragma('freelist_count', { simple: true }) as number;
    const size = this.sql.pragma('page_size', { simple: true }) as number;
    return this.size() - free * size;
  }

  async compact(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (!this.sql.open) return;
    this.sql.exec('VACUUM');
    this.sql.pragma('wal_checkpoint(TRUNCATE)');
  }

  get open(): boolean {
    return this.sql.open;
  }

  close(): void {
    if (this.sql.open) this.sql.close();
  }
}

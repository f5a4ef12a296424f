/**
 * The SQLite engine's database events (`Storage.foldDbEvents`): one small file in the data folder,
 * `_db_events.sqlite` (no database can be named `_db_events`, so no database file is ever it).
 * One row per database and event type, moved to the next sequence each time it happens again, so
 * the file stays as small as the number of databases the server ever had.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewDbEvent } from '../db-event-queue.js';
import type { DbEvent, DbEventType } from '../records.js';
import { connectionNameOf } from './process-vfs.js';

export const DB_EVENTS_FILE = '_db_events.sqlite';

interface EventRow {
  seq: number;
  db_name: string;
  type: DbEventType;
}

export class DbEventsFile {
  private readonly db: Database.Database;
  private readonly upsert: Database.Statement<[string, string, number]>;
  private seq: number;

  constructor(dir: string) {
    this.db = new Database(connectionNameOf(join(dir, DB_EVENTS_FILE)), { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS db_events (
      db_name TEXT NOT NULL,
      type TEXT NOT NULL,
      seq INTEGER NOT NULL UNIQUE,
      PRIMARY KEY (db_name, type)
    ) WITHOUT ROWID`);
    this.seq = (this.db.prepare('SELECT max(seq) AS seq FROM db_events').get() as { seq: number | null }).seq ?? 0;
    this.upsert = this.db.prepare(
      'INSERT INTO db_events (db_name, type, seq) VALUES (?, ?, ?) ON CONFLICT (db_name, type) DO UPDATE SET seq = excluded.seq',
    );
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Gives the events the next sequences, in order, in one transaction. */
  write(events: readonly NewDbEvent[]): void {
    let seq = this.seq;
    this.db.transaction(() => {
      for (const event of events) this.upsert.run(event.dbName, event.type, ++seq);
    })();
    this.seq = seq;
  }

  /** The events after `since`, by sequence (a page at a time, read eagerly: the file is small). */
  events(since: number, descending: boolean): DbEvent[] {
    const rows = this.db
      .prepare(`SELECT seq, db_name, type FROM db_events WHERE seq > ? ORDER BY seq ${descending ? 'DESC' : 'ASC'}`)
      .all(since) as EventRow[];
    return rows.map((row) => ({ seq: row.seq, dbName: row.db_name, type: row.type }));
  }

  close(): void {
    this.db.close();
  }
}

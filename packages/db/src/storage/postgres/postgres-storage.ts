/**
 * The PostgreSQL engine behind the asynchronous contract (../contract.ts): every database of a
 * server in one PostgreSQL schema, shared by any number of Divan nodes. The tables and why they
 * are so: ./schema.ts and docs/storage.md.
 */
import { ACCESS_TABLES } from './access-rows.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { DocumentStore, Storage } from '../contract.js';
import { StorageExistsError } from '../contract.js';
import { illegalDbName, isValidDbName } from '../db-names.js';
import { lockFolder } from '../folder-lock.js';
import { checkOut, inTransaction, queryRows, storageError } from './errors.js';
import { PostgresDocumentStore } from './postgres-database.js';
import { NAMES_CHANGED, PropCache, propChannel } from './prop-cache.js';
import { documentStatements, type DocumentStatements } from './statements.js';
import { migrate, quoteIdent } from './schema.js';
import { IndexFolder } from '../local-index/index-folder.js';
import { SharedIndexes } from './shared-index.js';
import { AttachmentWriteLocks } from './attachment-write-locks.js';
import { COUCH_EVENT_DELAY_MS, DbEventQueue, type NewDbEvent } from '../db-event-queue.js';
import { keysetPagesAsync } from '../keyset-pages.js';
import type { DbEvent, DbEventType, Page } from '../records.js';

export interface PostgresStorageOptions {
  /** A libpq-style connection URL, `postgres://user@host:port/database`. */
  url: string;
  /** The schema holding Divan's tables (created when missing). Default `divan`. */
  schema?: string;
  /** Connections in the pool. Default 10. */
  maxConnections?: number;
  /** How long to wait for a connection before failing with `StorageUnavailableError`. Default 5000 ms. */
  connectTimeoutMs?: number;
  /**
   * This node's folder for its copies of the shared view indexes (./shared-index.ts). Default: a
   * folder of this process under the system's temporary folder.
   */
  cacheDir?: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Connects, brings the schema to the current version (safe when several nodes start at once) and
 * returns the storage. Rejects with `StorageUnavailableError` when PostgreSQL cannot be reached.
 */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const schema = options.schema ?? 'divan';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  // Two nodes on one machine keep their index copies in folders of their own; without one given,
  // a temporary folder of this storage's, removed when it closes.
  const temporary = options.cacheDir === undefined;
  const cacheDir = options.cacheDir ?? mkdtempSync(join(tmpdir(), 'divan-index-cache-'));
  const lock = lockFolder(cacheDir);
  const release = (): void => {
    lock.release();
    if (temporary) rmSync(cacheDir, { recursive: true, force: true });
  };
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: 'divan',
  });
  // An idle connection that breaks (server restart) is dropped by the pool; without a listener
  // its error event would end the process.
  pool.on('error', () => {});
  try {
    const { client, done } = await checkOut(pool);
    let broken: Error | undefined;
    try {
      await migrate(client, schema);
    } catch (err) {
      broken = err instanceof Error ? err : undefined;
      throw err;
    } finally {
      done(broken);
    }
  } catch (err) {
    await pool.end().catch(() => {});
    release();
    throw storageError(err);
  }
  return new PostgresStorage(pool, schema, cacheDir, release, new PropCache(options.url, propChannel(schema)));
}

/** Advisory lock key (first half) of the database events' sequence; the second half hashes the schema name. */
const DB_EVENTS_LOCK_CLASS = 0x646965; // "die"
/** Database events per page of `foldDbEvents`. */
const DB_EVENT_PAGE_ROWS = 256;

interface DbRow {
  db_id: string;
  created_at: string;
}

class PostgresStorage implements Storage {
  readonly sharedByNodes = true;
  private readonly sql: DocumentStatements;
  private readonly s: string;
  /** This node's attachment writes under way, in every database (./attachment-write-locks.ts). */
  private readonly attachmentWrites: AttachmentWriteLocks;
  // Batched as SQLite's are: without the delay every single-document write paid a transaction of
  // its own for its `updated` event (five statements and a commit after the write's own).
  private readonly events = new DbEventQueue((events) => this.writeDbEvents(events), COUCH_EVENT_DELAY_MS);
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly cacheDir: string,
    /** Lets go of the index copies' folder (./folder-lock.ts). */
    private readonly releaseCache: () => void,
    /** This node's copy of the databases' properties (./prop-cache.ts). */
    private readonly props: PropCache,
  ) {
    this.sql = documentStatements(schema);
    this.s = quoteIdent(schema);
    this.attachmentWrites = new AttachmentWriteLocks(pool, this.s);
  }

  private query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    return queryRows<T>(this.pool, text, values);
  }

  private store(name: string, row: DbRow): DocumentStore {
    const createdAt = Number(row.created_at);
    // A copy's folder is named by the database's identity: one deleted and created again never meets it.
    const copies = new IndexFolder(join(this.cacheDir, `${encodeURIComponent(name)}-${createdAt}`));
    const indexes = new SharedIndexes(this.pool, this.schema, row.db_id, copies);
    return new PostgresDocumentStore(
      this.pool,
      this.sql,
      name,
      row.db_id,
      createdAt,
      indexes,
      this.attachmentWrites,
      this.events,
      this.props,
    );
  }

  /** From this node's list while no database was created or destroyed since (./prop-cache.ts). */
  async listDatabases(): Promise<string[]> {
    const kept = this.props.databaseNames();
    if (kept !== undefined) return [...kept];
    const epoch = this.props.begin();
    const rows = await this.query<{ name: string }>(`SELECT name FROM ${this.s}.dbs ORDER BY name`);
    const names = rows.map((r) => r.name);
    this.props.keepNames(epoch, names);
    return [...names];
  }

  async create(name: string): Promise<DocumentStore> {
    if (!isValidDbName(name)) throw illegalDbName(name);
    // Every node forgets its list of databases (./prop-cache.ts), at commit.
    const [row] = await this.query<DbRow>(
      `INSERT INTO ${this.s}.dbs (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING ` +
        'RETURNING db_id, created_at, pg_notify($3, $4)',
      [name, Date.now(), this.props.channel, NAMES_CHANGED],
    ).finally(() => this.props.forgetNames());
    if (row === undefined) throw new StorageExistsError(name);
    await this.events.record(name, 'created');
    return this.store(name, row);
  }

  async open(name: string): Promise<DocumentStore | undefined> {
    const [row] = await this.query<DbRow>(`SELECT db_id, created_at FROM ${this.s}.dbs WHERE name = $1`, [name]);
    return row === undefined ? undefined : this.store(name, row);
  }

  /**
   * One transaction: deleting the `dbs` row first waits for the database's writer (it holds the
   * row's lock) and makes every later writer find no database; then every row under its id goes.
   * Ids are never reused, so a database created again starts empty whatever an old handle does.
   */
  async destroy(name: string): Promise<boolean> {
    let destroyed: string | undefined;
    const existed = await this.transaction(async (client) => {
      const found = await client.query<{ db_id: string }>(`DELETE FROM ${this.s}.dbs WHERE name = $1 RETURNING db_id`, [
        name,
      ]);
      const dbId = found.rows[0]?.db_id;
      if (dbId === undefined) return false;
      for (const table of [
        'docs',
        'tree_chunks',
        'bodies',
        'local_docs',
        'props',
        'purges',
        'attachments',
        'attachment_chunks',
        'attachment_writes',
        'view_indexes',
        'view_index_nodes',
        'view_index_back',
        ...ACCESS_TABLES,
      ]) {
        await client.query(`DELETE FROM ${this.s}.${table} WHERE db_id = $1`, [dbId]);
      }
      // Every node forgets its copy of the properties (./prop-cache.ts), at commit.
      await client.query('SELECT pg_notify($1, $2)', [this.props.channel, dbId]);
      this.props.forget(dbId);
      destroyed = dbId;
      return true;
    }).finally(() => {
      // Again once it ended: a read begun before the commit kept the database as it was.
      if (destroyed !== undefined) this.props.forget(destroyed);
    });
    if (existed) await this.events.record(name, 'deleted');
    return existed;
  }

  async *foldDbEvents(since: number, descending = false): AsyncIterable<Page<DbEvent>> {
    await this.events.flush();
    // Ascending: after the last row read; descending: below it, and always after `since`.
    const rows = keysetPagesAsync(
      descending ? Number.MAX_SAFE_INTEGER : since,
      (row: { seq: string; db_name: string; type: DbEventType }) => Number(row.seq),
      DB_EVENT_PAGE_ROWS,
      (query) =>
        this.query<{ seq: string; db_name: string; type: DbEventType }>(
          descending
            ? `SELECT seq, db_name, type FROM ${this.s}.db_events WHERE seq > $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`
            : `SELECT seq, db_name, type FROM ${this.s}.db_events WHERE seq > $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [since, query.from, query.limit],
        ),
    );
    for await (const page of rows) {
      yield page.map((row) => ({ seq: Number(row.seq), dbName: row.db_name, type: row.type }));
    }
  }

  async dbEventSeq(): Promise<number> {
    await this.events.flush();
    const [row] = await this.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${this.s}.db_events`);
    return Number(row?.seq ?? 0);
  }

  /**
   * Gives the events the next sequences in one transaction, holding the events' lock: a node
   * takes its sequences only after the last node to take any has committed, so no reader ever
   * sees a sequence before an earlier one has committed.
   */
  private async writeDbEvents(events: readonly NewDbEvent[]): Promise<void> {
    // One simple query, one round trip: its statements run as one transaction (the lock is held
    // to its end), and each INSERT, in READ COMMITTED, reads `max(seq)` after the lock was
    // granted and after the INSERTs before it. Values are written in as literals (no parameters).
    const statements = [
      `SELECT pg_advisory_xact_lock(${DB_EVENTS_LOCK_CLASS}, hashtext(${pg.escapeLiteral(this.schema)}))`,
    ];
    for (const event of events) {
      statements.push(
        `INSERT INTO ${this.s}.db_events (db_name, type, seq) ` +
          `SELECT ${pg.escapeLiteral(event.dbName)}, ${pg.escapeLiteral(event.type)}, coalesce(max(seq), 0) + 1 FROM ${this.s}.db_events ` +
          'ON CONFLICT (db_name, type) DO UPDATE SET seq = excluded.seq',
      );
    }
    await this.query(statements.join('; '));
  }

  async getServerValue(key: string): Promise<string | undefined> {
    const [row] = await this.query<{ value: string }>(`SELECT value FROM ${this.s}.server_values WHERE key = $1`, [
      key,
    ]);
    return row?.value;
  }

  async setServerValue(key: string, value: string): Promise<void> {
    await this.query(
      `INSERT INTO ${this.s}.server_values (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [key, value],
    );
  }

  async addServerValue(key: string, value: string): Promise<string> {
    const [inserted] = await this.query<{ value: string }>(
      `INSERT INTO ${this.s}.server_values (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value`,
      [key, value],
    );
    if (inserted !== undefined) return inserted.value;
    return (await this.getServerValue(key)) ?? value;
  }

  async deleteServerValue(key: string): Promise<void> {
    await this.query(`DELETE FROM ${this.s}.server_values WHERE key = $1`, [key]);
  }

  async serverValueKeys(prefix: string): Promise<string[]> {
    // Compared as bytes (`COLLATE "C"`), so the prefix range holds exactly the keys that start with it.
    const rows = await this.query<{ key: string }>(
      `SELECT key FROM ${this.s}.server_values WHERE left(key, length($1)) = $1 ORDER BY key COLLATE "C"`,
      [prefix],
    );
    return rows.map((row) => row.key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.props.close();
    await this.events.flush().catch(() => {});
    try {
      await this.pool.end();
    } finally {
      this.releaseCache();
    }
  }

  private transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, body);
  }
}

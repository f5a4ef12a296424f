/**
 * View indexes in PostgreSQL, shared by every node (tables in ./schema.ts, migration 4).
 *
 * PostgreSQL holds each index whole: its B-tree nodes (with their stored reductions) and
 * back-index entries, each stamped with the version of the write that last changed it (NULL
 * bytes: deleted by it), and a row with the checkpoint and the version. One node updates an
 * index at a time, holding a session advisory lock (PostgreSQL lets go of it when the node's
 * connection dies), and commits the rows it changed and the new checkpoint in one transaction.
 *
 * Each node reads from a copy in a local SQLite file (../local-index/index-file.ts): a query walks
 * the trees synchronously, in one step of the event loop, as on the SQLite engine. `sync` brings
 * the copy up to the stored version by fetching the rows stamped after the copy's version, in
 * one snapshot, and writing them locally in one transaction; deletions are kept PRUNE_AFTER
 * versions, and a copy older than that fetches the whole index. A node's own write is made to
 * its copy and to PostgreSQL together: the copy commits after PostgreSQL did (a crash between
 * the two leaves the copy at the older version, which the next `sync` brings forward).
 */
import { Buffer } from 'node:buffer';
import type { Pool, PoolClient } from 'pg';
import type { IndexFolder } from '../local-index/index-folder.js';
import type { SqliteIndexFile } from '../local-index/index-file.js';
import type { SqliteNodeStore } from '../local-index/sqlite-node-store.js';
import type {
  IndexMeta,
  IndexWriter,
  NodeStore,
  ScratchFile,
  StoredIndex,
  ViewIndexStore,
} from '../view-index-store.js';
import { keysetPagesAsync } from '../keyset-pages.js';
import type { Page } from '../records.js';
import { checkOut, inTransaction, storageError } from './errors.js';
import { quoteIdent } from './schema.js';

/** Deletions are kept this many versions, for copies that are behind by fewer. */
const PRUNE_AFTER = 64;
/** Bytes of rows sent in one statement. */
const SHIP_BYTES = 4 * 1024 * 1024;
/** Parameters of one statement (PostgreSQL takes at most 65,535). */
const MAX_PARAMS = 30_000;
/** Rows fetched per page by `sync`. */
const FETCH_ROWS = 5000;
/** The copy's `meta` keys for what it mirrors. */
const VERSION_KEY = 'shared_version';
const SOURCE_KEY = 'shared_source';

/** The checkpoint as PostgreSQL stores it (`view_indexes.meta`). */
interface SharedMeta extends IndexMeta {
  /** Per view, the root node id (null: empty tree). */
  roots: (number | null)[];
}

/** The view indexes of one database: shared in PostgreSQL, copied into `copies`. */
export class SharedIndexes implements ViewIndexStore {
  private readonly s: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly dbId: string,
    private readonly copies: IndexFolder,
  ) {
    this.s = quoteIdent(schema);
  }

  async open(signature: string, views: number): Promise<StoredIndex> {
    const source = `${this.schema}/${this.dbId}`;
    let copy = this.copies.openFile(signature, views);
    if (copy.metaValue(SOURCE_KEY) !== source) {
      // A copy of something else (an older deployment's): start from nothing.
      copy.close();
      await this.copies.remove(signature);
      copy = this.copies.openFile(signature, views);
      await copy.write(
        () => {},
        () => ({ [SOURCE_KEY]: source, [VERSION_KEY]: '0' }),
      );
    }
    return new SharedIndex(this.pool, this.s, this.dbId, signature, copy);
  }

  async remove(signature: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      for (const table of ['view_indexes', 'view_index_nodes', 'view_index_back']) {
        await client.query(`DELETE FROM ${this.s}.${table} WHERE db_id = $1 AND signature = $2`, [
          this.dbId,
          signature,
        ]);
      }
    });
    await this.copies.remove(signature);
  }

  async signatures(): Promise<string[]> {
    let stored: { signature: string }[];
    try {
      stored = (
        await this.pool.query<{ signature: string }>(`SELECT signature FROM ${this.s}.view_indexes WHERE db_id = $1`, [
          this.dbId,
        ])
      ).rows;
    } catch (err) {
      throw storageError(err);
    }
    return [...new Set([...stored.map((row) => row.signature), ...(await this.copies.signatures())])];
  }
}

/** What a write changed, to be sent to PostgreSQL: rows by key (null: deleted), and cleared views. */
class ShipLog {
  nodes = new Map<string, { view: number; id: number; bytes: Uint8Array | null }>();
  back = new Map<string, Uint8Array | null>();
  clearedViews = new Set<number>();
  clearedBack = false;
  bytes = 0;

  node(view: number, id: number, bytes: Uint8Array | null): void {
    this.nodes.set(`${view}:${id}`, { view, id, bytes });
    this.bytes += 24 + (bytes?.length ?? 0);
  }

  backEntry(id: string, rows: Uint8Array | null): void {
    this.back.set(id, rows);
    this.bytes += id.length + (rows?.length ?? 0);
  }

  clearView(view: number): void {
    for (const [key, entry] of this.nodes) if (entry.view === view) this.nodes.delete(key);
    this.clearedViews.add(view);
  }

  clearBack(): void {
    this.back.clear();
    this.clearedBack = true;
  }

  reset(): void {
    this.nodes = new Map();
    this.back = new Map();
    this.clearedViews = new Set();
    this.clearedBack = false;
    this.bytes = 0;
  }
}

/** A copy's node store that also notes each change for PostgreSQL. */
class RecordingNodeStore implements NodeStore {
  constructor(
    readonly local: SqliteNodeStore,
    private readonly log: ShipLog,
    private readonly view: number,
  ) {}

  get(id: number): Uint8Array | undefined {
    return this.local.get(id);
  }
  put(id: number, bytes: Uint8Array, owned?: boolean): void {
    this.local.put(id, bytes);
    this.log.node(this.view, id, owned ? bytes : Buffer.from(bytes));
  }
  delete(id: number): void {
    this.local.delete(id);
    this.log.node(this.view, id, null);
  }
  allocate(): number {
    return this.local.allocate();
  }
  getRoot(): number | undefined {
    return this.local.getRoot();
  }
  setRoot(id: number | undefined): void {
    this.local.setRoot(id);
  }
  generation(): number {
    return this.local.generation();
  }
  clear(): void {
    this.local.clear();
    this.log.clearView(this.view);
  }
}

/** Sends a write's changes on the lock holder's connection, inside its transaction. */
async function ship(client: PoolClient, s: string, dbId: string, signature: string, version: number, log: ShipLog) {
  for (const view of log.clearedViews) {
    await client.query(
      `UPDATE ${s}.view_index_nodes SET node = NULL, version = $4 WHERE db_id = $1 AND signature = $2 AND view = $3 AND node IS NOT NULL`,
      [dbId, signature, view, version],
    );
  }
  if (log.clearedBack) {
    await client.query(
      `UPDATE ${s}.view_index_back SET rows = NULL, version = $3 WHERE db_id = $1 AND signature = $2 AND rows IS NOT NULL`,
      [dbId, signature, version],
    );
  }
  // Bytes go as parameters of their own, which node-postgres sends in binary (in an array they
  // would go as hex text, twice the bytes and much slower to write and parse).
  let params: unknown[] = [];
  let bytes = 0;
  const sendNodes = async () => {
    if (params.length === 0) return;
    const rows = [];
    for (let i = 0; i < params.length; i += 3) rows.push(`($${i + 4}::integer, $${i + 5}::bigint, $${i + 6}::bytea)`);
    await client.query(
      `INSERT INTO ${s}.view_index_nodes (db_id, signature, view, id, version, node)
       SELECT $1, $2, v, i, $3, n FROM (VALUES ${rows.join(', ')}) AS t(v, i, n)
       ON CONFLICT (db_id, signature, view, id) DO UPDATE SET version = excluded.version, node = excluded.node`,
      [dbId, signature, version, ...params],
    );
    params = [];
    bytes = 0;
  };
  for (const { view, id, bytes: node } of log.nodes.values()) {
    params.push(view, id, node === null ? null : Buffer.from(node.buffer, node.byteOffset, node.byteLength));
    bytes += 24 + (node?.length ?? 0);
    if (bytes >= SHIP_BYTES || params.length >= MAX_PARAMS) await sendNodes();
  }
  await sendNodes();
  const sendBack = async () => {
    if (params.length === 0) return;
    const rows = [];
    for (let i = 0; i < params.length; i += 2) rows.push(`($${i + 4}::text, $${i + 5}::bytea)`);
    await client.query(
      `INSERT INTO ${s}.view_index_back (db_id, signature, id, version, rows)
       SELECT $1, $2, i, $3, r FROM (VALUES ${rows.join(', ')}) AS t(i, r)
       ON CONFLICT (db_id, signature, id) DO UPDATE SET version = excluded.version, rows = excluded.rows`,
      [dbId, signature, version, ...params],
    );
    params = [];
    bytes = 0;
  };
  for (const [id, entry] of log.back) {
    params.push(id, entry === null ? null : Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength));
    bytes += id.length + (entry?.length ?? 0);
    if (bytes >= SHIP_BYTES || params.length >= MAX_PARAMS) await sendBack();
  }
  await sendBack();
  log.reset();
}

class SharedIndex implements StoredIndex {
  readonly shared = true;
  readonly nodes: RecordingNodeStore[];
  private readonly log = new ShipLog();
  /** The connection holding the lock (writes go on it), while held. */
  private holder: { client: PoolClient; done: (broken?: Error) => void } | undefined;
  private readonly lockKey: string;

  constructor(
    private readonly pool: Pool,
    private readonly s: string,
    private readonly dbId: string,
    private readonly signature: string,
    private readonly copy: SqliteIndexFile,
  ) {
    this.nodes = copy.nodes.map((store, view) => new RecordingNodeStore(store, this.log, view));
    this.lockKey = `${s}/${dbId}/${signature}`;
  }

  /** The stored version the copy is at. */
  private get version(): number {
    return Number(this.copy.metaValue(VERSION_KEY) ?? 0);
  }

  meta(): IndexMeta {
    return this.copy.meta();
  }

  readBack(ids: readonly string[]): Map<string, Uint8Array> {
    return this.copy.readBack(ids);
  }

  foldBackIds(): AsyncIterable<Page<string>> {
    return this.copy.foldBackIds();
  }

  async sync(): Promise<boolean> {
    const mine = this.version;
    let fetched: Fetched | undefined;
    const { client, done } = await checkOut(this.pool);
    let broken: Error | undefined;
    try {
      fetched = await fetchSince(client, this.s, this.dbId, this.signature, mine);
    } catch (err) {
      // Never back to the pool: a failure may have left it inside the read transaction, or dead.
      broken = err instanceof Error ? err : new Error(String(err));
      throw storageError(err);
    } finally {
      done(broken);
    }
    if (fetched === undefined) return false;
    const { version, meta, full, nodes, back } = fetched;
    await this.copy.write(
      (writer) => {
        if (full) {
          for (const store of this.copy.nodes) store.clear();
          writer.clearBack();
        }
        for (const row of nodes) {
          const store = this.copy.nodes[row.view];
          if (store === undefined) continue;
          if (row.node === null) store.delete(Number(row.id));
          else store.put(Number(row.id), row.node);
        }
        for (const row of back) {
          if (row.rows === null) writer.deleteBack(row.id);
          else writer.putBack(row.id, row.rows);
        }
        this.copy.nodes.forEach((store, view) => {
          store.setRoot(meta?.roots[view] ?? undefined);
        });
        writer.setMeta(
          meta ?? {
            updateSeq: 0,
            purgeSeq: 0,
            changedSeqs: this.copy.nodes.map(() => 0),
            backFormat: 2,
          },
        );
      },
      () => ({ [VERSION_KEY]: String(version) }),
    );
    // Ids were taken by the other node: count on from the largest there is now.
    for (const store of this.copy.nodes) store.forgetAllocation();
    return true;
  }

  async lock(): Promise<{ release(): Promise<void> }> {
    const holder = await checkOut(this.pool);
    try {
      await holder.client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [this.lockKey]);
    } catch (err) {
      holder.done(err instanceof Error ? err : undefined);
      throw storageError(err);
    }
    this.holder = holder;
    return {
      release: async () => {
        if (this.holder !== holder) return;
        this.holder = undefined;
        let broken: Error | undefined;
        await holder.client
          .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [this.lockKey])
          .catch((err: Error) => {
            broken = err;
          });
        holder.done(broken);
      },
    };
  }

  write<T>(fn: (writer: IndexWriter) => T | Promise<T>): Promise<T> {
    const holder = this.holder;
    if (holder === undefined) return Promise.reject(new Error('a shared index is written only under its lock'));
    const { client } = holder;
    const { s, dbId, signature, log } = this;
    let version = 0;
    return this.copy.write(
      async (local) => {
        log.reset();
        try {
          await client.query('BEGIN');
          await client.query(
            `INSERT INTO ${s}.view_indexes (db_id, signature) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
            [dbId, signature],
          );
          const found = await client.query<{ version: string }>(
            `SELECT version FROM ${s}.view_indexes WHERE db_id = $1 AND signature = $2 FOR UPDATE`,
            [dbId, signature],
          );
          const stored = Number(found.rows[0]?.version ?? 0);
          if (stored !== this.version) {
            throw new Error(`shared index ${signature} is at version ${stored}, its copy at ${this.version}`);
          }
          version = stored + 1;
          let meta: IndexMeta | undefined;
          const writer: IndexWriter = {
            putBack: (id, rows) => {
              local.putBack(id, rows);
              log.backEntry(id, rows);
            },
            deleteBack: (id) => {
              local.deleteBack(id);
              log.backEntry(id, null);
            },
            clearBack: () => {
              local.clearBack();
              log.clearBack();
            },
            setMeta: (next) => {
              meta = next;
              local.setMeta(next);
            },
            pause: async () => {
              if (log.bytes >= SHIP_BYTES) await ship(client, s, dbId, signature, version, log);
              await local.pause();
            },
          };
          const result = await fn(writer);
          await ship(client, s, dbId, signature, version, log);
          const checkpoint: SharedMeta = {
            ...(meta ?? this.copy.meta()),
            roots: this.copy.nodes.map((store) => store.getRoot() ?? null),
          };
          const pruned = Math.max(0, version - PRUNE_AFTER);
          await client.query(
            `UPDATE ${s}.view_indexes SET version = $3, pruned = $4, meta = $5 WHERE db_id = $1 AND signature = $2`,
            [dbId, signature, version, pruned, JSON.stringify(checkpoint)],
          );
          for (const [table, column] of [
            ['view_index_nodes', 'node'],
            ['view_index_back', 'rows'],
          ] as const) {
            await client.query(
              `DELETE FROM ${s}.${table} WHERE db_id = $1 AND signature = $2 AND version <= $3 AND ${column} IS NULL`,
              [dbId, signature, pruned],
            );
          }
          await client.query('COMMIT');
          return result;
        } catch (err) {
          log.reset();
          await client.query('ROLLBACK').catch(() => {});
          throw storageError(err);
        }
      },
      () => ({ [VERSION_KEY]: String(version) }),
    );
  }

  scratch(name: string): ScratchFile {
    return this.copy.scratch(name);
  }

  size(): number {
    return this.copy.size();
  }

  compact(): Promise<void> {
    return this.copy.compact();
  }

  close(): void {
    this.copy.close();
  }
}

interface Fetched {
  version: number;
  meta: SharedMeta | undefined;
  /** The copy must start from nothing (it is older than the kept deletions, or newer than the store). */
  full: boolean;
  nodes: { view: number; id: string; node: Buffer | null }[];
  back: { id: string; rows: Buffer | null }[];
}

/**
 * What changed after version `mine`, read in one snapshot (undefined: nothing). An index gone
 * from PostgreSQL (removed, or never written) is an empty one at version 0.
 */
async function fetchSince(
  client: PoolClient,
  s: string,
  dbId: string,
  signature: string,
  mine: number,
): Promise<Fetched | undefined> {
  const found = await client.query<{ version: string; pruned: string; meta: string | null }>(
    `SELECT version, pruned, meta FROM ${s}.view_indexes WHERE db_id = $1 AND signature = $2`,
    [dbId, signature],
  );
  const row = found.rows[0];
  if (Number(row?.version ?? 0) === mine) return undefined;
  if (row === undefined) return { version: 0, meta: undefined, full: true, nodes: [], back: [] };
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    // Read again inside the snapshot: the rows below are those of this version.
    const again = await client.query<{ version: string; pruned: string; meta: string | null }>(
      `SELECT version, pruned, meta FROM ${s}.view_indexes WHERE db_id = $1 AND signature = $2`,
      [dbId, signature],
    );
    const current = again.rows[0];
    if (current === undefined) {
      await client.query('COMMIT');
      return { version: 0, meta: undefined, full: true, nodes: [], back: [] };
    }
    const version = Number(current.version);
    const full = mine === 0 || mine < Number(current.pruned) || mine > version;
    const since = full ? 0 : mine;
    const live = full ? ' AND node IS NOT NULL' : '';
    const nodes: Fetched['nodes'] = [];
    type NodeRow = { view: number; id: string; node: Buffer | null };
    const nodePages = keysetPagesAsync(
      [-1, '-9223372036854775808'] as [number, string],
      (row: NodeRow): [number, string] => [row.view, row.id],
      FETCH_ROWS,
      async ({ from, limit }) =>
        (
          await client.query<NodeRow>(
            `SELECT view, id, node FROM ${s}.view_index_nodes
             WHERE db_id = $1 AND signature = $2 AND version > $3${live} AND (view, id) > ($4, $5)
             ORDER BY view, id LIMIT ${limit}`,
            [dbId, signature, since, from[0], from[1]],
          )
        ).rows,
    );
    for await (const page of nodePages) nodes.push(...page);
    const back: Fetched['back'] = [];
    const liveBack = full ? ' AND rows IS NOT NULL' : '';
    type BackRow = { id: string; rows: Buffer | null };
    const backPages = keysetPagesAsync(
      undefined as string | undefined,
      (row: BackRow) => row.id,
      FETCH_ROWS,
      async ({ from, limit }) =>
        (
          await client.query<BackRow>(
            `SELECT id, rows FROM ${s}.view_index_back
             WHERE db_id = $1 AND signature = $2 AND version > $3${liveBack}${from === undefined ? '' : ' AND id > $4'}
             ORDER BY id LIMIT ${limit}`,
            from === undefined ? [dbId, signature, since] : [dbId, signature, since, from],
          )
        ).rows,
    );
    for await (const page of backPages) back.push(...page);
    await client.query('COMMIT');
    return {
      version,
      meta: current.meta === null ? undefined : (JSON.parse(current.meta) as SharedMeta),
      full,
      nodes,
      back,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

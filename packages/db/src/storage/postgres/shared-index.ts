import type { Pool, PoolClient } from 'pg';
import type { IndexFolder } from '../local-index/index-folder.js';
import type { SqliteIndexFile } from '../local-index/index-file.js';
import type { IndexMeta, IndexWriter, ScratchFile, StoredIndex, ViewIndexStore } from '../view-index-store.js';
import type { Page } from '../records.js';
import { checkOut, inTransaction, storageError } from './errors.js';
import { type Fetched, fetchSince, type SharedMeta } from './shared-index-fetch.js';
import { RecordingNodeStore, SHIP_BYTES, ShipLog, ship } from './shared-index-ship.js';
import { quoteIdent } from './schema.js';

/** Deletions are kept this many versions, for copies that are behind by fewer. */
const PRUNE_AFTER = 64;
/** The copy's `meta` keys for what it mirrors. */
const VERSION_KEY = 'shared_version';
const SOURCE_KEY = 'shared_source';

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

  activeSize(): number {
    return this.copy.activeSize();
  }

  compact(): Promise<void> {
    return this.copy.compact();
  }

  close(): void {
    this.copy.close();
  }
}

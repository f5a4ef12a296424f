/**
 * The write side of a shared view index (./shared-index.ts): what a write changed in the local
 * copy, noted as it happens (`RecordingNodeStore`, `ShipLog`), and sent to PostgreSQL in a few
 * multi-row statements on the lock holder's connection (`ship`).
 */
import { Buffer } from 'node:buffer';
import type { PoolClient } from 'pg';
import type { SqliteNodeStore } from '../local-index/sqlite-node-store.js';
import type { NodeStore } from '../view-index-store.js';

/** Bytes of rows sent in one statement. */
export const SHIP_BYTES = 4 * 1024 * 1024;
/** Parameters of one statement (PostgreSQL takes at most 65,535). */
const MAX_PARAMS = 30_000;

/** What a write changed, to be sent to PostgreSQL: rows by key (null: deleted), and cleared views. */
export class ShipLog {
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
export class RecordingNodeStore implements NodeStore {
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
export async function ship(
  client: PoolClient,
  s: string,
  dbId: string,
  signature: string,
  version: number,
  log: ShipLog,
) {
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

/**
 * The read side of a shared view index (./shared-index.ts): the rows PostgreSQL holds past the
 * version of a node's local copy, fetched in one snapshot a page at a time.
 */
import type { Buffer } from 'node:buffer';
import type { PoolClient } from 'pg';
import { keysetPagesAsync } from '../keyset-pages.js';
import type { IndexMeta } from '../view-index-store.js';

/** Rows fetched per page by `sync`. */
const FETCH_ROWS = 5000;

/** The checkpoint as PostgreSQL stores it (`view_indexes.meta`). */
export interface SharedMeta extends IndexMeta {
  /** Per view, the root node id (null: empty tree). */
  roots: (number | null)[];
}

export interface Fetched {
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
export async function fetchSince(
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

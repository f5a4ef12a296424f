/**
 * The PostgreSQL the tests run against: `npm test` (scripts/test.mjs) starts a throw-away server
 * and passes its URL in DIVAN_TEST_POSTGRES. Each test file works in schemas of its own and drops
 * them at the end.
 */
import pg from 'pg';

const HOW =
  'PostgreSQL tests need a server: run them through `npm test` (scripts/test.mjs starts a throw-away one), or set DIVAN_TEST_POSTGRES=postgres://user@host:port/database';

/** The server's URL, or an error saying how to get one (the tests fail with it; they never skip). */
export function testPostgresUrl(): string | Error {
  const url = process.env.DIVAN_TEST_POSTGRES;
  return url === undefined || url === '' ? new Error(HOW) : url;
}

let count = 0;

/** A schema name no other test process uses. */
export function freshSchema(label: string): string {
  return `divan_test_${label}_${process.pid}_${Date.now().toString(36)}_${++count}`;
}

/** The `divan serve` arguments of a node keeping its data in `dataDir` and its databases in `schema`. */
export function nodeArgs(url: string, schema: string, dataDir: string): string[] {
  const storage = new URL(url);
  storage.searchParams.set('schema', schema);
  return ['--data', dataDir, '--admin', 'admin:secret', '--storage', storage.toString()];
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Makes a database's `dbs` row look as it was before migration 10 (no body bytes counted). */
export async function forgetStaleCount(url: string, schema: string, db: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`UPDATE "${schema}".dbs SET stored = NULL, stale = NULL WHERE name = $1`, [db]);
  } finally {
    await client.end();
  }
}

/**
 * Ends the connection holding the lock of a view index (storage/postgres/shared-index.ts), as its
 * node's death (or a network cut) would.
 */
export async function terminateLockHolder(url: string, schema: string, db: string, signature: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query<{ db_id: string }>(`SELECT db_id FROM "${schema}".dbs WHERE name = $1`, [db]);
    const key = `"${schema}"/${found.rows[0]?.db_id}/${signature}`;
    // A bigint advisory lock shows as classid (high half) and objid (low half), objsubid 1.
    await client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 1
         AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
      [key],
    );
  } finally {
    await client.end();
  }
}

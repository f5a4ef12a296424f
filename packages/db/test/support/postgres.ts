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

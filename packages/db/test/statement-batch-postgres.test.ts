/**
 * Statement batches (storage/postgres/statement-batch.ts): PostgreSQL describes a statement's
 * columns the first time it runs on a connection only; later runs answer the same rows, typed
 * the same, from the columns the connection kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type BatchStatement, runBatch } from '../src/storage/postgres/statement-batch.js';
import { testPostgresUrl } from './support/postgres.js';

const url = testPostgresUrl();

const batch: BatchStatement[] = [
  { name: 'test_batch_begin', text: 'BEGIN', values: [] },
  {
    name: 'test_batch_rows',
    text: 'SELECT n, n::bigint AS big, n % 2 = 0 AS even, $1::text AS label FROM generate_series(1, 3) AS n',
    values: ['a'],
  },
  { name: 'test_batch_none', text: 'SELECT 1 AS one WHERE $1::int > 1', values: [0] },
  { name: 'test_batch_other', text: "SELECT 'x' AS other, $1::int + 1 AS next", values: [41] },
  { name: 'test_batch_commit', text: 'COMMIT', values: [] },
];

const expected = [
  [],
  [
    { n: 1, big: '1', even: false, label: 'a' },
    { n: 2, big: '2', even: true, label: 'a' },
    { n: 3, big: '3', even: false, label: 'a' },
  ],
  [],
  [{ other: 'x', next: 42 }],
  [],
];

if (url instanceof Error) {
  it('statement batches on PostgreSQL', () => {
    throw url;
  });
} else {
  describe('statement batches on PostgreSQL', () => {
    let pool: pg.Pool;
    before(() => {
      pool = new pg.Pool({ connectionString: url, max: 1 });
    });
    after(async () => {
      await pool.end();
    });

    it('answers the same rows and types when the columns come from the connection', async () => {
      const client = await pool.connect();
      try {
        for (let run = 0; run < 3; run++) {
          const rows = await runBatch(client, batch);
          assert.deepEqual(
            rows.map((r) => r.map((row) => ({ ...row }))),
            expected,
            `run ${run}`,
          );
        }
        // The same statements in another order and mixed with a new one, on the same connection.
        const mixed = await runBatch(client, [batch[3]!, batch[2]!, batch[1]!]);
        assert.deepEqual(
          mixed.map((r) => r.map((row) => ({ ...row }))),
          [expected[3], expected[2], expected[1]],
        );
      } finally {
        client.release();
      }
    });

    it('a statement failing in a batch leaves the next batch answered right', async () => {
      const client = await pool.connect();
      try {
        await runBatch(client, batch);
        // Parsed and described by a batch that succeeds first (a batch that parses and fails drops its connection).
        const dividing = (by: number): BatchStatement => ({
          name: 'test_batch_div',
          text: 'SELECT 1 / $1::int AS q',
          values: [by],
        });
        assert.deepEqual((await runBatch(client, [dividing(1)]))[0], [{ q: 1 }]);
        await assert.rejects(runBatch(client, [batch[1]!, dividing(0), batch[3]!]), /division by zero/);
        const rows = await runBatch(client, [batch[3]!, batch[1]!]);
        assert.deepEqual(
          rows.map((r) => r.map((row) => ({ ...row }))),
          [expected[3], expected[1]],
        );
      } finally {
        client.release();
      }
    });
  });
}

/**
 * The PostgreSQL engine's access layout of migration 9 (each document's access in one row of
 * `access_docs`, no by-document index of the access rows): a schema written in the layout before
 * it is brought up to date, readers, losses and leaves' text included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { DocumentStore } from '../src/storage/contract.js';
import { type DocRecord, type DocWrite, uniformLeaves } from '../src/storage/records.js';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { all } from './storage-conformance.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';

const url = testPostgresUrl();

function write(id: string, rev: string, readers: string[], leaves = uniformLeaves(readers)): DocWrite {
  return {
    record: { id, rev, deleted: false, tree: `tree:${rev}` },
    bodies: [{ rev, body: '{}' }],
    access: { leaves, readers },
  };
}

async function update(db: DocumentStore, writes: DocWrite[]): Promise<Map<string, string | undefined>> {
  const ids = writes.length > 0 ? writes.map((w) => w.record.id) : ['a', 'b'];
  const { result } = await db.update(
    ids,
    (records: ReadonlyMap<string, DocRecord>) => ({
      writes,
      result: new Map([...records.values()].map((r) => [r.id, r.access])),
    }),
    { access: true },
  );
  return result;
}

const changes = async (db: DocumentStore, principals: string[]) =>
  (await all(db.foldAccessChanges(principals, 0, { withRemoved: true }))).map((c) => [c.record.id, c.removed]);

/**
 * Puts the schema back into the layout before migration 9: the leaves' text of every document
 * in `access_leaves` (as that layout kept it), the by-document index, no `access_docs`; and
 * before migration 10 (the size counts), which comes after it and so runs again.
 */
async function downgrade(client: pg.Client, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await client.query(`
    CREATE TABLE ${s}.access_leaves (
      db_id bigint NOT NULL, doc text COLLATE "C" NOT NULL, leaves text NOT NULL, PRIMARY KEY (db_id, doc));
    INSERT INTO ${s}.access_leaves
      SELECT db_id, doc, coalesce(access::json->>2, json_build_object('*', access::json->0)::text) FROM ${s}.access_docs;
    CREATE INDEX access_log_by_doc ON ${s}.access_log (db_id, doc, principal);
    DROP TABLE ${s}.access_docs;
    ALTER TABLE ${s}.dbs DROP COLUMN stored, DROP COLUMN stale;
    DELETE FROM ${s}.schema_version WHERE version >= 9;
  `);
}

if (url instanceof Error) {
  it('PostgreSQL engine: access layout', () => {
    throw url;
  });
} else {
  describe('PostgreSQL engine: access kept in one row per document (migration 9)', () => {
    it('brings a schema with access rows up to date, readers, losses and leaves included', async () => {
      const schema = freshSchema('access_layout');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const first = await openPostgresStorage({ url, schema });
        const db = await first.create('old');
        const custom = '{"2-x":["bob"],"2-y":["bob","eve"]}';
        await update(db, [write('a', '1-a', ['alice', 'team']), write('b', '1-b', ['bob'], custom)]);
        // The team loses `a`: a removed row a purge must find again.
        await update(db, [write('a', '2-a', ['alice'])]);
        await first.close();
        await downgrade(client, schema);

        const again = await openPostgresStorage({ url, schema });
        const reopened = (await again.open('old'))!;
        assert.deepEqual(await reopened.readersOf(['a', 'b', 'none']), [['alice'], ['bob'], []]);
        const leaves = await update(reopened, []);
        assert.deepEqual(JSON.parse(leaves.get('a')!), JSON.parse(uniformLeaves(['alice'])));
        assert.equal(leaves.get('b'), custom);
        assert.deepEqual(await changes(reopened, ['team']), [['a', true]]);
        // Writes after the upgrade keep losses: bob loses `b` to carol.
        await update(reopened, [write('b', '2-b', ['carol'])]);
        assert.deepEqual(await changes(reopened, ['bob']), [['b', true]]);
        assert.deepEqual(await reopened.readersOf(['b']), [['carol']]);
        // A purge of `a` takes every row of it, the team's removed one too.
        await reopened.purge(['a'], 1000, () => ({ purges: [{ id: 'a', revs: ['2-a'], record: null }], result: null }));
        assert.deepEqual(await changes(reopened, ['team', 'alice']), []);
        await again.close();

        const s = `"${schema}"`;
        const rows = await client.query(`SELECT principal, doc, removed FROM ${s}.access_log ORDER BY doc, principal`);
        assert.deepEqual(
          rows.rows.map((r) => [r.principal, r.doc, r.removed]),
          [
            ['bob', 'b', true],
            ['carol', 'b', false],
          ],
        );
        const gone = await client.query(`SELECT to_regclass($1) AS leaves, to_regclass($2) AS index`, [
          `${s}.access_leaves`,
          `${s}.access_log_by_doc`,
        ]);
        assert.deepEqual(gone.rows[0], { leaves: null, index: null }, 'the old layout is gone');
      } finally {
        await client.end();
        await dropSchema(url, schema);
      }
    });
  });
}

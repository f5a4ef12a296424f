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
 * Puts the schema back into the layout before migration 11: the access rows in `access_log`,
 * keyed by principal and document and indexed by principal and sequence, each `access_docs`
 * text without the rows' sequences (`[readers, gone]`, `[readers, gone, leaves]`).
 */
async function downgradeTo10(client: pg.Client, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await client.query(`
    CREATE TABLE ${s}.access_log (
      db_id bigint NOT NULL, principal text COLLATE "C" NOT NULL, doc text COLLATE "C" NOT NULL,
      seq bigint NOT NULL, removed boolean NOT NULL, PRIMARY KEY (db_id, principal, doc));
    CREATE INDEX access_log_by_seq ON ${s}.access_log (db_id, principal, seq);
    INSERT INTO ${s}.access_log SELECT db_id, principal, doc, seq, removed FROM ${s}.access_feed;
    DROP TABLE ${s}.access_feed;
    UPDATE ${s}.access_docs SET access = (CASE WHEN json_typeof(access::json->2) = 'null'
      THEN json_build_array(access::json->0, access::json->1)
      ELSE json_build_array(access::json->0, access::json->1, access::json->2) END)::text;
    DELETE FROM ${s}.schema_version WHERE version >= 11;
  `);
}

/** What the access reads of `db` answer for each principal set: the same before and after a migration. */
async function answers(db: DocumentStore, sets: string[][]): Promise<unknown> {
  const out = [];
  for (const principals of sets) {
    const rows = async (since: number, options: { descending?: boolean; withRemoved?: boolean }) =>
      (await all(db.foldAccessChanges(principals, since, options))).map((c) => [c.seq, c.record.id, c.removed]);
    const ids = async (range: Parameters<DocumentStore['foldReadable']>[1]) =>
      (await all(db.foldReadable(principals, range))).map((r) => r.id);
    out.push({
      principals,
      readers: await db.readersOf(['a', 'b', 'c', 'd', 'e']),
      changes: await rows(0, {}),
      withRemoved: await rows(0, { withRemoved: true }),
      descending: await rows(2, { descending: true, withRemoved: true }),
      readable: await ids({}),
      deleted: await ids({ includeDeleted: true, descending: true }),
      ranged: await ids({ start: 'b', end: 'd', inclusiveEnd: false }),
      count: await db.countReadable(principals, {}),
      countChanges: [
        await db.countAccessChanges(principals, 3, false),
        await db.countAccessChanges(principals, 0, true),
      ],
    });
  }
  return out;
}

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
  describe('PostgreSQL engine: access kept in one row per document (migration 9), its rows in one tree (11)', () => {
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
        await downgradeTo10(client, schema);
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
        const rows = await client.query(`SELECT principal, doc, removed FROM ${s}.access_feed ORDER BY doc, principal`);
        assert.deepEqual(
          rows.rows.map((r) => [r.principal, r.doc, r.removed]),
          [
            ['bob', 'b', true],
            ['carol', 'b', false],
          ],
        );
        const gone = await client.query(
          `SELECT to_regclass($1) AS leaves, to_regclass($2) AS index, to_regclass($3) AS log`,
          [`${s}.access_leaves`, `${s}.access_log_by_doc`, `${s}.access_log`],
        );
        assert.deepEqual(gone.rows[0], { leaves: null, index: null, log: null }, 'the old layout is gone');
      } finally {
        await client.end();
        await dropSchema(url, schema);
      }
    });

    it('brings a schema of rows by principal and document (migration 10) up to one tree, answering the same', async () => {
      const schema = freshSchema('access_feed');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const first = await openPostgresStorage({ url, schema });
        const db = await first.create('old');
        await update(db, [
          write('a', '1-a', ['alice', 'team']),
          write('b', '1-b', ['bob'], '{"2-x":["bob"],"2-y":["bob","eve"]}'),
          write('c', '1-c', ['team']),
          write('d', '1-d', ['alice']),
        ]);
        // The team loses `a` and `c` (then regains `c`), alice `d` to bob; `e` is deleted by alice.
        await update(db, [write('a', '2-a', ['alice'])]);
        await update(db, [write('c', '2-c', ['bob'])]);
        await update(db, [write('d', '2-d', ['bob'])]);
        await update(db, [write('c', '3-c', ['team', 'bob'])]);
        await update(db, [write('e', '1-e', ['alice'])]);
        const deletion = write('e', '2-e', ['alice']);
        await update(db, [{ ...deletion, record: { ...deletion.record, deleted: true } }]);
        const sets = [['alice'], ['bob'], ['team'], ['alice', 'team'], ['alice', 'bob', 'team'], ['eve']];
        const expected = await answers(db, sets);
        await first.close();
        await downgradeTo10(client, schema);

        const again = await openPostgresStorage({ url, schema });
        const reopened = (await again.open('old'))!;
        assert.deepEqual(await answers(reopened, sets), expected);
        // Writes after the upgrade move the migrated rows: alice gets `d` back, the team loses `c` again.
        await update(reopened, [write('d', '3-d', ['alice', 'bob']), write('c', '4-c', ['bob'])]);
        assert.deepEqual(await changes(reopened, ['alice']), [
          ['a', false],
          ['e', false],
          ['d', false],
        ]);
        assert.deepEqual(await changes(reopened, ['team']), [
          ['a', true],
          ['c', true],
        ]);
        // A purge takes every row of `d`, migrated and new.
        await reopened.purge(['d'], 1000, () => ({ purges: [{ id: 'd', revs: ['3-d'], record: null }], result: null }));
        assert.deepEqual(await changes(reopened, ['alice', 'bob']), [
          ['b', false],
          ['a', false],
          ['e', false],
          ['c', false],
        ]);
        await again.close();
        const s = `"${schema}"`;
        const left = await client.query(`SELECT count(*)::int AS n FROM ${s}.access_feed WHERE doc = 'd'`);
        assert.equal(left.rows[0].n, 0);
        const gone = await client.query('SELECT to_regclass($1) AS log', [`${s}.access_log`]);
        assert.deepEqual(gone.rows[0], { log: null }, 'the old layout is gone');
      } finally {
        await client.end();
        await dropSchema(url, schema);
      }
    });
  });
}

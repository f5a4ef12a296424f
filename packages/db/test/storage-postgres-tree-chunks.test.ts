/**
 * The PostgreSQL engine's revision trees in chunks (migration 12, src/storage/postgres/tree-chunks.ts):
 * a schema whose documents were written whole, long histories and short, is brought up to date
 * and reads back identically, its long one-line histories now heads and chunks that later
 * updates append to.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { DocumentStore } from '../src/storage/contract.js';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { all } from './storage-conformance.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';

const url = testPostgresUrl();

const hexId = (n: number): string => createHash('md5').update(`rev${n}`).digest('hex');
/** A one-line history of plain ids from generation `from` to `to` (revisions/serialize.ts's form). */
const line = (from: number, to: number, deletedLeaf = false): string => {
  const ids: string[] = [];
  for (let n = from; n <= to; n++) ids.push(hexId(n));
  return `${from}:${ids.join('.')}${deletedLeaf ? 'd' : ''}`;
};

/** The documents written in the old form: id, tree, deleted. */
const OLD: [string, string, boolean][] = [
  ['long', line(1, 1000), false],
  ['stemmed', line(5, 200), false],
  ['edge96', line(1, 96), false],
  ['edge97', line(1, 97), false],
  ['branched', `${line(1, 300)}(${hexId(301)},${hexId(302)})`, false],
  ['tomb', line(1, 150, true), true],
  ['short', line(1, 3), false],
];

/** Every read of the documents' records gives the trees of `expected`. */
async function readsBack(db: DocumentStore, expected: Map<string, string>): Promise<void> {
  const ids = [...expected.keys()];
  for (const id of ids) {
    assert.equal((await db.getDoc(id))?.tree, expected.get(id), `getDoc ${id}`);
    assert.equal((await db.getDocWithBody(id))?.record.tree, expected.get(id), `getDocWithBody ${id}`);
  }
  assert.deepEqual(
    (await db.getDocs(ids)).map((r) => r?.tree),
    ids.map((id) => expected.get(id)),
    'getDocs',
  );
  assert.deepEqual(
    (await db.getDocsWithBodies(ids)).map((r) => r?.tree),
    ids.map((id) => expected.get(id)),
    'getDocsWithBodies',
  );
  const byId = (rows: { id: string; tree: string }[]) => new Map(rows.map((r) => [r.id, r.tree]));
  assert.deepEqual(byId(await all(db.foldDocs({ includeDeleted: true }))), expected, 'foldDocs');
  assert.deepEqual(byId(await all(db.foldDocBodies({ includeDeleted: true }))), expected, 'foldDocBodies');
  assert.deepEqual(byId(await all(db.foldChanges(0))), expected, 'foldChanges');
  assert.deepEqual(byId(await all(db.foldChangedBodies(0))), expected, 'foldChangedBodies');
}

/** Which documents are stored as heads, and their chunks' count. */
async function storedForm(client: pg.Client, schema: string): Promise<Record<string, [boolean, number]>> {
  const s = `"${schema}"`;
  const rows = await client.query<{ id: string; head: boolean; chunks: string }>(
    `SELECT d.id, left(d.tree, 1) = '~' AS head,
       (SELECT count(*) FROM ${s}.tree_chunks c WHERE c.db_id = d.db_id AND c.id = d.id) AS chunks
     FROM ${s}.docs d ORDER BY d.id`,
  );
  return Object.fromEntries(rows.rows.map((r) => [r.id, [r.head, Number(r.chunks)]]));
}

if (url instanceof Error) {
  it('PostgreSQL engine: revision trees in chunks', () => {
    throw url;
  });
} else {
  describe('PostgreSQL engine: revision trees in chunks (migration 12)', () => {
    it('brings documents written whole up to heads and chunks, reading back identically, then appends', async () => {
      const schema = freshSchema('tree_chunks');
      const s = `"${schema}"`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const first = await openPostgresStorage({ url, schema });
        await first.create('old');
        await first.close();
        // The schema before migration 12, its documents written as every version before stored them.
        await client.query(`
          DROP FUNCTION ${s}.tree_text(bigint, text, text);
          DROP TABLE ${s}.tree_chunks;
          DELETE FROM ${s}.schema_version WHERE version >= 12;
        `);
        const dbId = (await client.query(`SELECT db_id FROM ${s}.dbs WHERE name = 'old'`)).rows[0].db_id;
        for (const [i, [id, tree, deleted]] of OLD.entries()) {
          const rev = `${tree.slice(0, tree.indexOf(':'))}-x`;
          await client.query(
            `INSERT INTO ${s}.docs (db_id, id, seq, rev, deleted, size, tree) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [dbId, id, i + 1, rev, deleted, deleted ? 0 : 2, tree],
          );
          await client.query(`INSERT INTO ${s}.bodies (db_id, id, rev, body) VALUES ($1, $2, $3, '{}')`, [
            dbId,
            id,
            rev,
          ]);
        }
        const live = OLD.filter(([, , deleted]) => !deleted).length;
        await client.query(
          `UPDATE ${s}.dbs SET update_seq = $2, doc_count = $3, doc_del_count = $4, external = $5, stored = NULL, stale = NULL WHERE db_id = $1`,
          [dbId, OLD.length, live, OLD.length - live, 2 * live],
        );

        const again = await openPostgresStorage({ url, schema });
        const db = (await again.open('old'))!;
        const expected = new Map(OLD.map(([id, tree]) => [id, tree]));
        await readsBack(db, expected);
        assert.deepEqual(await storedForm(client, schema), {
          branched: [false, 0],
          edge96: [false, 0],
          // 97 nodes: two chunks of 48 and a tail of 1.
          edge97: [true, 2],
          long: [true, 20],
          short: [false, 0],
          stemmed: [true, 4],
          tomb: [true, 3],
        });

        // Updates of a migrated history append: 49 revisions at a revs limit of 1000.
        for (let n = 1001; n <= 1049; n++) {
          await db.update(['long'], (records) => {
            const stored = records.get('long')!.tree;
            assert.equal(stored, line(Math.max(1, n - 1000), n - 1));
            return {
              writes: [
                {
                  record: { id: 'long', rev: `${n}-${hexId(n)}`, deleted: false, tree: line(n - 999, n) },
                  bodies: [{ rev: `${n}-${hexId(n)}`, body: '{}' }],
                  treeGrowth: { dropped: 1, added: 1 },
                },
              ],
              result: null,
            };
          });
        }
        expected.set('long', line(50, 1049));
        await readsBack(db, expected);
        // The first chunk was passed (48 revisions stemmed) and a new one written: still 20.
        assert.deepEqual((await storedForm(client, schema)).long, [true, 20]);
        // A purge that removes a document takes its chunks.
        await db.purge(['stemmed'], 1000, () => ({
          purges: [{ id: 'stemmed', revs: ['5-x'], record: null }],
          result: null,
        }));
        assert.equal((await storedForm(client, schema)).stemmed, undefined);
        const orphans = await client.query(
          `SELECT count(*) AS n FROM ${s}.tree_chunks c WHERE NOT EXISTS (SELECT 1 FROM ${s}.docs d WHERE d.db_id = c.db_id AND d.id = c.id)`,
        );
        assert.equal(Number(orphans.rows[0].n), 0);
        await again.close();
      } finally {
        await client.end();
        await dropSchema(url, schema);
      }
    });

    it('an update plans from the text its node wrote only while the row is unchanged (two nodes take turns)', async () => {
      const schema = freshSchema('tree_kept');
      const one = await openPostgresStorage({ url, schema });
      const two = await openPostgresStorage({ url, schema });
      try {
        const a = await one.create('kept');
        const b = (await two.open('kept'))!;
        let from = 1;
        const append = (db: DocumentStore, n: number) =>
          db.update(['long'], (records) => {
            assert.equal(
              records.get('long')?.tree,
              n === 1 ? undefined : line(from, n - 1),
              `the tree read before ${n}`,
            );
            return {
              writes: [
                {
                  record: { id: 'long', rev: `${n}-${hexId(n)}`, deleted: false, tree: line(from, n) },
                  bodies: [{ rev: `${n}-${hexId(n)}`, body: '{}' }],
                  treeGrowth: n === 1 ? undefined : { dropped: 0, added: 1 },
                },
              ],
              result: null,
            };
          });
        // One node alone far past the chunked length, then turns: twice here, once there, …
        for (let n = 1; n <= 150; n++) await append(a, n);
        for (let n = 151; n <= 260; n++) await append([a, a, b, a, b, b][n % 6]!, n);
        // A compaction on one node (the row keeps its sequence) stores the text afresh under a new
        // head: the node that wrote last reads it whole.
        await a.compact(['long'], () => [{ id: 'long', tree: line(100, 260), dropBodies: [] }]);
        from = 100;
        await append(b, 261);
        assert.equal((await a.getDoc('long'))?.tree, line(100, 261));
        await append(a, 262);
        await append(a, 263);
        assert.equal((await b.getDoc('long'))?.tree, line(100, 263));
      } finally {
        await one.close();
        await two.close();
        await dropSchema(url, schema);
      }
    });
  });
}

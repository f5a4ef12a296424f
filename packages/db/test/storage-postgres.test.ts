/**
 * What the shared conformance suite cannot show of the PostgreSQL engine: several nodes (Storage
 * instances, each with its own pool) on one schema at once, migrations racing, a database whose
 * default collation is not C, and PostgreSQL being unreachable.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { DocRecord, DocWrite } from '../src/storage/records.js';
import { type Storage, StorageUnavailableError } from '../src/storage/contract.js';
import { CouchError } from '../src/errors.js';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { migrations } from '../src/storage/postgres/schema.js';
import { all } from './storage-conformance.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';

const url = testPostgresUrl();

const generation = (rev: string): number => Number(rev.slice(0, rev.indexOf('-')));

function write(id: string, rev: string, body: string | undefined, deleted = false): DocWrite {
  return { record: { id, rev, deleted, tree: `tree:${rev}` }, bodies: body === undefined ? [] : [{ rev, body }] };
}

const writing = (writes: DocWrite[]) => (_records: ReadonlyMap<string, DocRecord>) => ({ writes, result: null });

if (url instanceof Error) {
  it('PostgreSQL engine: two nodes, migrations, collation, unavailability', () => {
    throw url;
  });
} else {
  describe('PostgreSQL engine: two nodes on one schema', () => {
    const schema = freshSchema('nodes');
    let one: Storage;
    let two: Storage;
    before(async () => {
      one = await openPostgresStorage({ url, schema });
      two = await openPostgresStorage({ url, schema });
    });
    after(async () => {
      await one.close();
      await two.close();
      await dropSchema(url, schema);
    });

    it('a write through one node is visible at once through the other', async () => {
      const a = await one.create('shared');
      const b = await two.open('shared');
      assert.ok(b !== undefined, 'a database created on one node opens on the other');
      assert.ok((await two.listDatabases()).includes('shared'));
      await a.update(['x'], writing([write('x', '1-x', '{"from":"one"}')]));
      assert.equal((await b.getDoc('x'))?.rev, '1-x');
      assert.equal(await b.getBody('x', '1-x'), '{"from":"one"}');
      assert.deepEqual(await b.counters(), { updateSeq: 1, docCount: 1, docDelCount: 0 });
      await b.update(['y'], writing([write('y', '1-y', '{"from":"two"}')]));
      assert.deepEqual(
        (await all(a.foldChanges(0))).map((r) => `${r.id}@${r.seq}`),
        ['x@1', 'y@2'],
      );
      await b.putLocal({ id: '_local/cp', rev: '0-1', body: '{}' });
      assert.equal((await a.getLocal('_local/cp'))?.rev, '0-1');
      await a.setProp('revs_limit', '9');
      assert.equal(await b.getProp('revs_limit'), '9');
      await one.setServerValue('secret', 's1');
      assert.equal(await two.getServerValue('secret'), 's1');
    });

    it('concurrent updates of one document from both nodes lose no revision; sequence order is commit order', async () => {
      const a = await one.create('contended');
      const b = (await two.open('contended'))!;
      await a.update(['n'], writing([write('n', '0-start', '{}')]));
      const bump = (store: typeof a, node: string) =>
        store.update(['n'], (records) => {
          const rev = `${generation(records.get('n')!.rev) + 1}-${node}`;
          return { writes: [write('n', rev, `{"rev":"${rev}"}`)], result: rev };
        });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? bump(a, 'one') : bump(b, 'two'))),
      );
      const generations = results.map((r) => generation(r.result)).sort((x, y) => x - y);
      assert.deepEqual(
        generations,
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.equal(generation((await b.getDoc('n'))!.rev), 40);
      const bySeq = [...results].sort((x, y) => x.seqs[0]! - y.seqs[0]!);
      assert.deepEqual(
        bySeq.map((r) => generation(r.result)),
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.deepEqual(await a.counters(), { updateSeq: 41, docCount: 1, docDelCount: 0 });
    });

    it('concurrent batches from both nodes on different documents all commit, sequences without gaps', async () => {
      const a = await one.create('batches');
      const b = (await two.open('batches'))!;
      const batch = (store: typeof a, n: number) =>
        store.update(
          Array.from({ length: 50 }, (_, i) => `b${n}-${i}`),
          writing(Array.from({ length: 50 }, (_, i) => write(`b${n}-${i}`, '1-a', `{"i":${i}}`))),
        );
      const done = await Promise.all(Array.from({ length: 10 }, (_, n) => batch(n % 2 === 0 ? a : b, n)));
      const seqs = done.flatMap((d) => d.seqs).sort((x, y) => x - y);
      assert.deepEqual(
        seqs,
        Array.from({ length: 500 }, (_, i) => i + 1),
      );
      assert.deepEqual(await b.counters(), { updateSeq: 500, docCount: 500, docDelCount: 0 });
      assert.equal((await a.meta()).sizes.external, (await b.meta()).sizes.external);
    });

    it('a write’s plan is told the last change to a design document on either node, written or purged', async () => {
      const a = await one.create('designs');
      const b = (await two.open('designs'))!;
      assert.equal(a.tellsDesignSeq, true);
      // The design sequence the next write's plan is told (the write itself: `x`, on `store`).
      const told = async (store: typeof a, x: string) => {
        let seen: number | undefined;
        await store.update([x], (_records, designSeq) => {
          seen = designSeq;
          return { writes: [write(x, '1-x', '{}')], result: null };
        });
        return seen;
      };
      assert.equal(await told(a, 'x1'), 0);
      await b.update(['_design/v'], writing([write('_design/v', '1-v', '{}')]));
      assert.equal(await told(a, 'x2'), 2);
      assert.equal(await told(b, 'x3'), 2, 'other documents written since leave it');
      // In a batch of several, the design document's own sequence; then a write of one without its
      // body in the batch (the statements of the slow path, which look its size up).
      await a.update(
        ['x4', '_design/w', 'x5'],
        writing([write('x4', '1-x', '{}'), write('_design/w', '1-w', '{}'), write('x5', '1-x', '{}')]),
      );
      assert.equal(await told(b, 'x6'), 6);
      await a.update(['_design/w'], writing([write('_design/w', '2-w', undefined)]));
      assert.equal(await told(b, 'x7'), 9);
      await b.purge(['_design/v'], 100, () => ({
        purges: [{ id: '_design/v', revs: ['1-v'], record: null }],
        result: null,
      }));
      assert.equal(await told(a, 'x8'), 11, 'a purge of one moves it to the purge’s sequence');
      await a.purge(['x1'], 100, () => ({ purges: [{ id: 'x1', revs: ['1-x'], record: null }], result: null }));
      assert.equal(await told(b, 'x9'), 11);
    });

    it('a write planned on what a node assumes is one round trip, and planned again on what the other node wrote since', async () => {
      const a = await one.create('assumed');
      const b = (await two.open('assumed'))!;
      // Each run's records and design sequence, as the plan saw them; the last run is the one committed.
      const runs: string[][] = [];
      const next = (store: typeof a, id: string, node: string) =>
        store.update([id], (records, designSeq) => {
          const record = records.get(id);
          runs.push([record === undefined ? 'absent' : `${record.rev}@${record.seq}`, `design ${designSeq}`]);
          const rev = `${record === undefined ? 1 : generation(record.rev) + 1}-${node}`;
          return { writes: [write(id, rev, `{"by":"${node}"}`)], result: rev };
        });
      // The round trips of a write: the statement batches it sends (statement-batch.ts; a new
      // connection's own set-up queries, when the pool opens one meanwhile, are not the write's).
      const roundTrips = async <T>(write: () => Promise<T>): Promise<[T, number]> => {
        const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
        const query = proto.query;
        let n = 0;
        proto.query = function (this: unknown, ...args: unknown[]) {
          if (Array.isArray((args[0] as { statements?: unknown } | undefined)?.statements)) n++;
          return query.apply(this, args);
        };
        try {
          return [await write(), n];
        } finally {
          proto.query = query;
        }
      };
      assert.equal((await roundTrips(() => next(a, 'd', 'one')))[1], 2, 'nothing known yet: the usual two');
      // A node's own last write, assumed right: one run, one round trip, sequences and counters as under the lock.
      runs.length = 0;
      const [own, ownTrips] = await roundTrips(() => next(a, 'd', 'one'));
      assert.deepEqual([own.result, own.seqs, ownTrips], ['2-one', [2], 1]);
      assert.deepEqual(runs, [['1-one@1', 'design 0']]);
      const [fresh, freshTrips] = await roundTrips(() => next(a, 'f', 'one'));
      assert.deepEqual([fresh.result, fresh.seqs, freshTrips], ['1-one', [3], 1], 'a new id assumed absent');
      // The other node updates `d`, creates `e` and a design document: `a` assumed none of it.
      await next(b, 'd', 'two');
      await b.update(['e'], writing([write('e', '1-e', '{}')]));
      await b.update(['_design/x'], writing([write('_design/x', '1-x', '{}')]));
      runs.length = 0;
      const [again, againTrips] = await roundTrips(() => next(a, 'd', 'one'));
      assert.deepEqual([again.result, again.seqs, againTrips], ['4-one', [7], 3], 'a miss, then the usual two');
      assert.deepEqual(runs, [
        ['2-one@2', 'design 0'],
        ['3-two@4', 'design 6'],
      ]);
      runs.length = 0;
      assert.equal((await next(a, 'e', 'one')).result, '2-one');
      assert.deepEqual(runs.at(-1), ['1-e@5', 'design 6']);
      assert.deepEqual(await b.counters(), { updateSeq: 8, docCount: 4, docDelCount: 0 });
      assert.equal((await b.meta()).sizes.external, 3 * '{"by":"one"}'.length + 2);
      assert.deepEqual(
        (await all(b.foldChanges(0))).map((r) => `${r.id}@${r.seq}:${r.rev}`),
        ['f@3:1-one', '_design/x@6:1-x', 'd@7:4-one', 'e@8:2-one'],
      );
    });

    it('a database destroyed on one node is gone for the other node’s handle; created again it is empty', async () => {
      const a = await one.create('doomed');
      await a.update(['d'], writing([write('d', '1-d', '{}')]));
      const b = (await two.open('doomed'))!;
      assert.equal(await one.destroy('doomed'), true);
      await assert.rejects(
        b.update(['e'], writing([write('e', '1-e', '{}')])),
        (err: unknown) => err instanceof CouchError && err.error === 'not_found',
      );
      await assert.rejects(b.counters(), (err: unknown) => err instanceof CouchError && err.status === 404);
      await two.create('doomed');
      assert.equal(await b.getDoc('d'), undefined, 'the old handle sees none of the new database');
      const again = (await one.open('doomed'))!;
      assert.deepEqual(await again.counters(), { updateSeq: 0, docCount: 0, docDelCount: 0 });
      assert.equal(await again.getDoc('d'), undefined);
    });

    it('a property read is kept on each node (no query), and a change on one node is told to the other', async () => {
      const a = await one.create('props');
      const b = (await two.open('props'))!;
      await a.setProp('security', 'v1');
      const direct = new pg.Client({ connectionString: url });
      await direct.connect();
      // Written behind the engine's back (no node is told): a node that answers it still read it.
      const behind = (value: string) =>
        direct.query(
          `UPDATE ${schema}.props SET value = $1 WHERE key = 'security' AND db_id = (SELECT db_id FROM ${schema}.dbs WHERE name = 'props')`,
          [value],
        );
      try {
        let kept = false;
        const until = Date.now() + 10_000; // the first read starts the node listening
        while (!kept && Date.now() < until) {
          assert.equal(await b.getProp('security'), 'v1');
          await behind('behind');
          kept = (await b.getProp('security')) === 'v1';
          await behind('v1');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(kept, 'the second node keeps the property it read');
        await a.setProp('security', 'v2');
        assert.equal(await a.getProp('security'), 'v2', 'the node that changed it reads its change at once');
        let seen = await b.getProp('security');
        for (const waitUntil = Date.now() + 5000; seen !== 'v2' && Date.now() < waitUntil; ) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen = await b.getProp('security');
        }
        assert.equal(seen, 'v2', 'the other node is told of the change');
        await one.destroy('props');
        await two.create('props');
        assert.equal(await (await one.open('props'))!.getProp('security'), undefined);
      } finally {
        await direct.end();
      }
    });

    it('counters and the list of databases are kept on each node (no query), and a change on one node is told to the other', async () => {
      const a = await one.create('kept');
      const b = (await two.open('kept'))!;
      await a.update(['k1'], writing([write('k1', '1-a', '{}')]));
      const direct = new pg.Client({ connectionString: url });
      await direct.connect();
      // Written behind the engine's back (no node is told): a node that answers it still read it.
      const behind = (seq: number) =>
        direct.query(`UPDATE ${schema}.dbs SET update_seq = $1 WHERE name = 'kept'`, [seq]);
      const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
        let value = await read();
        for (const until = Date.now() + 5000; !done(value) && Date.now() < until; ) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          value = await read();
        }
        return value;
      };
      try {
        let kept = false;
        const until = Date.now() + 10_000; // the first read starts the node listening
        while (!kept && Date.now() < until) {
          assert.equal((await b.counters()).updateSeq, 1);
          await behind(99);
          kept = (await b.counters()).updateSeq === 1;
          await behind(1);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(kept, 'the second node keeps the counters it read');
        // Nothing after the kept sequence: a changes walk from it answers without a query.
        assert.deepEqual(await all(b.foldChanges(1)), []);
        assert.equal(await b.countChanges(1), 0);

        await a.update(['k2'], writing([write('k2', '1-a', '{}')]));
        assert.deepEqual(
          await a.counters(),
          { updateSeq: 2, docCount: 2, docDelCount: 0 },
          'the writer reads its write at once',
        );
        const told = await eventually(
          () => b.counters(),
          (c) => c.updateSeq === 2,
        );
        assert.deepEqual(told, { updateSeq: 2, docCount: 2, docDelCount: 0 }, 'the other node is told of the write');
        assert.deepEqual(
          (await all(b.foldChanges(1))).map((r) => `${r.id}@${r.seq}`),
          ['k2@2'],
        );
        assert.equal(await b.countChanges(1), 1);

        // The list of databases: kept once listed, told of a database created or destroyed elsewhere.
        assert.ok((await two.listDatabases()).includes('kept'));
        await one.create('kept-too');
        assert.ok((await one.listDatabases()).includes('kept-too'), 'the creator lists it at once');
        const listed = await eventually(
          () => two.listDatabases(),
          (names) => names.includes('kept-too'),
        );
        assert.ok(listed.includes('kept-too'), 'the other node is told of the new database');
        await one.destroy('kept-too');
        assert.ok(!(await one.listDatabases()).includes('kept-too'), 'the destroyer lists it gone at once');
        const after = await eventually(
          () => two.listDatabases(),
          (names) => !names.includes('kept-too'),
        );
        assert.ok(!after.includes('kept-too'), 'the other node is told of the destroyed database');
      } finally {
        await direct.end();
      }
    });
  });

  describe('PostgreSQL engine: migrations', () => {
    it('several nodes starting at the same moment on a new schema all succeed, migrating it once', async () => {
      const schema = freshSchema('migrate');
      try {
        const nodes = await Promise.all(Array.from({ length: 4 }, () => openPostgresStorage({ url, schema })));
        await nodes[0]!.create('m');
        for (const node of nodes) assert.ok((await node.listDatabases()).includes('m'));
        await Promise.all(nodes.map((n) => n.close()));
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const versions = await client.query(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
          // Every migration once (2: purges).
          assert.deepEqual(
            versions.rows.map((r) => r.version),
            migrations(schema).map((_, i) => i + 1),
          );
        } finally {
          await client.end();
        }
        // A node started later finds the schema current and keeps its data.
        const later = await openPostgresStorage({ url, schema });
        assert.ok((await later.listDatabases()).includes('m'));
        await later.close();
      } finally {
        await dropSchema(url, schema);
      }
    });
  });

  describe('PostgreSQL engine: a database whose default collation is not C', () => {
    const dbName = `divan_icu_${process.pid}`;
    let storage: Storage;
    let icuUrl: string;
    before(async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
        // en-US sorts 'a' before 'B' and ignores '_': ids must still walk in code point order.
        await admin.query(
          `CREATE DATABASE ${dbName} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`,
        );
      } finally {
        await admin.end();
      }
      const target = new URL(url);
      target.pathname = `/${dbName}`;
      icuUrl = target.toString();
      storage = await openPostgresStorage({ url: icuUrl });
    });
    after(async () => {
      await storage.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
      } finally {
        await admin.end();
      }
    });

    it('ids, database names and ranges still go in code point order', async () => {
      await storage.create('b-db');
      await storage.create('a-db');
      await storage.create('_users');
      assert.deepEqual(await storage.listDatabases(), ['_users', 'a-db', 'b-db']);
      const db = (await storage.open('a-db'))!;
      const ids = ['a', 'B', '\u{1F600}', '_design/x', 'Z', '\uE000', 'b', 'ab'];
      await db.update(ids, writing(ids.map((id) => write(id, '1-r', '{}'))));
      const ordered = ['B', 'Z', '_design/x', 'a', 'ab', 'b', '\uE000', '\u{1F600}'];
      assert.deepEqual(
        (await all(db.foldDocs({}))).map((r) => r.id),
        ordered,
      );
      assert.deepEqual(
        (await all(db.foldDocs({ start: 'Z', end: 'ab' }))).map((r) => r.id),
        ['Z', '_design/x', 'a', 'ab'],
      );
      assert.equal(await db.countDocs({ start: 'Z', end: 'ab' }), 4);
      const [second] = await db.getDocs(['_design/x', 'B']);
      assert.equal(second?.id, '_design/x');
    });
  });

  describe('PostgreSQL engine: unreachable', () => {
    it('rejects with StorageUnavailableError when nothing listens', async () => {
      // A port that was free a moment ago: nothing listens there.
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const address = server.address();
          server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
        });
      });
      await assert.rejects(
        openPostgresStorage({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, connectTimeoutMs: 2000 }),
        StorageUnavailableError,
      );
    });

    it('a connection lost mid-write rejects with StorageUnavailableError; the storage then recovers', async () => {
      const schema = freshSchema('unavailable');
      const storage = await openPostgresStorage({ url, schema });
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const db = await storage.create('u');
        await db.update(['a'], writing([write('a', '1-a', '{}')]));
        // The write's `_db_updates` event is written after it, on its own connection: flush it,
        // so the only statement left to wait on the lock below is the update the test means.
        await storage.dbEventSeq();
        // Hold the database's writer lock, so the next update waits on it; then end that
        // update's connection (as a server restart or a network cut would).
        await admin.query('BEGIN');
        await admin.query(`SELECT 1 FROM "${schema}".dbs WHERE name = 'u' FOR UPDATE`);
        const waiting = db.update(['b'], writing([write('b', '1-b', '{}')]));
        const outcome = assert.rejects(waiting, StorageUnavailableError);
        let ended = 0;
        for (let i = 0; i < 100 && ended === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          const result = await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0",
            [schema],
          );
          ended = result.rows.length;
        }
        assert.equal(ended, 1);
        await outcome;
        await admin.query('ROLLBACK');
        assert.equal(await db.getDoc('b'), undefined);
        assert.equal((await db.getDoc('a'))?.rev, '1-a');
        await db.update(['b'], writing([write('b', '1-b', '{}')]));
        assert.deepEqual(await db.counters(), { updateSeq: 2, docCount: 2, docDelCount: 0 });
      } finally {
        await admin.end();
        await storage.close();
        await dropSchema(url, schema);
      }
    });
  });
}

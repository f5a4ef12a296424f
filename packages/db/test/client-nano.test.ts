import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Nano from 'nano';
import { adminUrl, startTestServer, type TestServer } from './support/server.js';

/** nano, the official CouchDB client for Node, used unchanged against the server. */
describe('nano as a client', () => {
  let t: TestServer;
  let nano: Nano.ServerScope;
  before(async () => {
    t = await startTestServer();
    nano = Nano(adminUrl(t));
  });
  after(() => t.close());

  it('server info, create, list and get a database', async () => {
    const info = await nano.info();
    assert.equal((info as unknown as { couchdb: string }).couchdb, 'Welcome');
    await nano.db.create('nano');
    assert.ok((await nano.db.list()).includes('nano'));
    const db = await nano.db.get('nano');
    assert.equal(db.db_name, 'nano');
    await assert.rejects(nano.db.create('nano'), (error: any) => error.statusCode === 412);
  });

  it('insert, get, update, destroy documents', async () => {
    const db = nano.use<{ title: string }>('nano');
    const created = await db.insert({ title: 'one' }, 'doc1');
    assert.equal(created.ok, true);
    const doc = await db.get('doc1');
    assert.equal(doc.title, 'one');
    const updated = await db.insert({ ...doc, title: 'two' });
    assert.match(updated.rev, /^2-/);
    await assert.rejects(
      db.insert({ title: 'stale', _rev: created.rev } as never, 'doc1'),
      (e: any) => e.statusCode === 409,
    );
    const head = await db.head('doc1');
    assert.equal(head.etag, `"${updated.rev}"`);
    await db.destroy('doc1', updated.rev);
    await assert.rejects(db.get('doc1'), (e: any) => e.statusCode === 404 && e.reason === 'deleted');
  });

  it('bulk, list with include_docs, fetch by keys', async () => {
    const db = nano.use<{ n: number }>('nano');
    const results = await db.bulk({
      docs: [
        { _id: 'b1', n: 1 },
        { _id: 'b2', n: 2 },
        { _id: 'b3', n: 3 },
      ],
    });
    assert.equal(results.length, 3);
    assert.ok(results.every((r) => r.rev !== undefined && r.error === undefined));
    const list = await db.list({ include_docs: true, startkey: 'b', endkey: 'b\ufff0' });
    assert.deepEqual(
      list.rows.map((r) => r.doc?.n),
      [1, 2, 3],
    );
    const fetched = await db.fetch({ keys: ['b2', 'nope'] });
    assert.equal(fetched.rows.length, 2);
    assert.equal((fetched.rows[1] as { error?: string }).error, 'not_found');
  });

  it('changes feed', async () => {
    const db = nano.use('nano');
    const changes = await db.changes({ since: 0, include_docs: true });
    assert.ok(changes.results.length >= 3);
    assert.equal(typeof changes.last_seq, 'number');
    assert.ok(changes.results.some((row) => row.id === 'doc1' && row.deleted === true));
  });

  it('design documents and uuids', async () => {
    const db = nano.use('nano');
    await db.insert({ views: { all: { map: 'function(doc){ emit(doc._id, 1); }' } } } as never, '_design/app');
    const ddoc = (await db.get('_design/app')) as unknown as { views: { all: { map: string } } };
    assert.match(ddoc.views.all.map, /emit/);
    const uuids = await nano.uuids(2);
    assert.equal(uuids.uuids.length, 2);
  });

  it('destroys the database', async () => {
    await nano.db.destroy('nano');
    assert.ok(!(await nano.db.list()).includes('nano'));
  });
});

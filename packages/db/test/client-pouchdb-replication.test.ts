/**
 * PouchDB 9 replication (pouchdb-replication over the http adapter, unchanged) from one Divan
 * database to another with each kind of filter a PouchDB application uses: a design-document
 * filter function with `query_params`, a Mango `selector`, `doc_ids` and a `view`. Each target
 * must end up with exactly the documents the filter passes, and a second run (from the
 * checkpoint) must bring over later changes that pass and nothing else.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';

const require = createRequire(import.meta.url);
// The PouchDB packages ship no type declarations: used untyped, as in a plain JS application.
const PouchDB = require('pouchdb-core').plugin(require('pouchdb-adapter-http')).plugin(require('pouchdb-replication'));

const DOCS = [
  { _id: 'p1', type: 'post', author: 'bob', words: 10 },
  { _id: 'p2', type: 'post', author: 'alice', words: 5 },
  { _id: 'p3', type: 'post', author: 'alice', words: 7 },
  { _id: 'c1', type: 'comment', post: 'p1' },
  { _id: 'c2', type: 'comment', post: 'p3' },
];

const DDOC = {
  _id: '_design/app',
  filters: {
    by_type: 'function (doc, req) { return doc.type === req.query.type; }',
  },
  views: {
    by_alice: { map: "function (doc) { if (doc.author === 'alice') emit(doc._id); }" },
  },
};

describe('PouchDB replication from Divan with filters', () => {
  let t: TestServer;
  let source: any;
  const opened: any[] = [];
  const open = (name: string) => {
    const db = new PouchDB(`${t.url}/${name}`, { auth: { username: ADMIN.name, password: ADMIN.password } });
    opened.push(db);
    return db;
  };
  const ids = async (db: any): Promise<string[]> =>
    (await db.allDocs()).rows.map((row: { id: string }) => row.id).filter((id: string) => !id.startsWith('_design/'));

  before(async () => {
    t = await startTestServer();
    source = open('source');
    await source.info();
    const results = await source.bulkDocs([...DOCS, DDOC]);
    assert.ok(
      results.every((r: { ok?: boolean }) => r.ok),
      JSON.stringify(results),
    );
  });
  after(async () => {
    for (const db of opened) await db.close();
    await t.close();
  });

  it('filter with query_params, then incrementally from the checkpoint', async () => {
    const target = open('by-type');
    const first = await PouchDB.replicate(source, target, { filter: 'app/by_type', query_params: { type: 'post' } });
    assert.equal(first.ok, true);
    assert.deepEqual(await ids(target), ['p1', 'p2', 'p3']);
    await source.bulkDocs([
      { _id: 'p4', type: 'post' },
      { _id: 'c3', type: 'comment' },
    ]);
    const second = await PouchDB.replicate(source, target, { filter: 'app/by_type', query_params: { type: 'post' } });
    assert.equal(second.ok, true);
    assert.equal(second.docs_written, 1);
    assert.deepEqual(await ids(target), ['p1', 'p2', 'p3', 'p4']);
  });

  it('a Mango selector', async () => {
    const target = open('by-selector');
    const result = await PouchDB.replicate(source, target, { selector: { type: 'comment', post: { $exists: true } } });
    assert.equal(result.ok, true);
    assert.deepEqual(await ids(target), ['c1', 'c2']);
  });

  it('doc_ids', async () => {
    const target = open('by-ids');
    const result = await PouchDB.replicate(source, target, { doc_ids: ['p2', 'c1', 'nope'] });
    assert.equal(result.ok, true);
    assert.deepEqual(await ids(target), ['c1', 'p2']);
  });

  it('a view', async () => {
    const target = open('by-view');
    const result = await PouchDB.replicate(source, target, { filter: '_view', view: 'app/by_alice' });
    assert.equal(result.ok, true);
    assert.deepEqual(await ids(target), ['p2', 'p3']);
  });

  it('a deletion that passes the filter is replicated', async () => {
    const target = open('deletions');
    await PouchDB.replicate(source, target, { filter: 'app/by_type', query_params: { type: 'post' } });
    const p1 = await source.get('p1');
    // The tombstone keeps the type, so the filter passes it.
    await source.put({ _id: 'p1', _rev: p1._rev, _deleted: true, type: 'post' });
    await PouchDB.replicate(source, target, { filter: 'app/by_type', query_params: { type: 'post' } });
    assert.deepEqual(await ids(target), ['p2', 'p3', 'p4']);
  });
});

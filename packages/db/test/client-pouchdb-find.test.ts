/**
 * pouchdb-find 9 (PouchDB's Mango plugin, unchanged, over the http adapter) as a real client of
 * `_index`, `_find` and `_explain`: createIndex, getIndexes, find with selectors, sort, fields,
 * limit/skip and bookmarks, explain and deleteIndex, as an application would call them.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';

const require = createRequire(import.meta.url);
// The PouchDB packages ship no type declarations: used untyped, as in a plain JS application.
const PouchDB = require('pouchdb-core').plugin(require('pouchdb-adapter-http')).plugin(require('pouchdb-find'));

describe('pouchdb-find against _index, _find and _explain', () => {
  let t: TestServer;
  let db: any;
  before(async () => {
    t = await startTestServer();
    db = new PouchDB(`${t.url}/finds`, { auth: { username: ADMIN.name, password: ADMIN.password } });
    await db.info();
    const docs = Array.from({ length: 30 }, (_, i) => ({
      _id: `doc${String(i).padStart(2, '0')}`,
      type: i % 3 === 0 ? 'comment' : 'post',
      author: `user${i % 4}`,
      date: `2024-01-${String(i + 1).padStart(2, '0')}`,
      tags: i % 2 === 0 ? ['even'] : ['odd', 'x'],
    }));
    const saved = await db.bulkDocs(docs);
    assert.ok(saved.every((r: any) => r.ok));
  });
  after(async () => {
    await db?.close();
    await t.close();
  });

  it('creates indexes (and finds them existing), and lists them', async () => {
    const created = await db.createIndex({ index: { fields: ['type', 'date'] }, ddoc: 'by-type-date', name: 'td' });
    assert.equal(created.result, 'created');
    assert.equal(
      (await db.createIndex({ index: { fields: ['type', 'date'] }, ddoc: 'by-type-date', name: 'td' })).result,
      'exists',
    );
    await db.createIndex({ index: { fields: ['author'] } });
    const { indexes } = await db.getIndexes();
    assert.equal(indexes[0].name, '_all_docs');
    assert.deepEqual(
      indexes.slice(1).map((i: any) => i.def.fields),
      [[{ author: 'asc' }], [{ type: 'asc' }, { date: 'asc' }]],
    );
  });

  it('finds with a selector, sort, fields and limit through an index', async () => {
    const r = await db.find({
      selector: { type: 'post', date: { $gte: '2024-01-10' } },
      sort: [{ type: 'desc' }, { date: 'desc' }],
      fields: ['_id', 'date'],
      limit: 3,
    });
    assert.deepEqual(r.docs, [
      { _id: 'doc29', date: '2024-01-30' },
      { _id: 'doc28', date: '2024-01-29' },
      { _id: 'doc26', date: '2024-01-27' },
    ]);
    assert.equal(r.warning, undefined);
    const byAuthor = await db.find({
      selector: { author: 'user1', tags: { $elemMatch: { $eq: 'odd' } } },
      fields: ['_id'],
    });
    assert.deepEqual(
      byAuthor.docs.map((d: any) => d._id),
      ['doc01', 'doc05', 'doc09', 'doc13', 'doc17', 'doc21', 'doc25', 'doc29'],
    );
  });

  it('pages with bookmarks', async () => {
    const seen: string[] = [];
    let bookmark: string | undefined;
    for (;;) {
      const page = await db.find({
        selector: { type: 'comment' },
        fields: ['_id'],
        limit: 4,
        ...(bookmark ? { bookmark } : {}),
      });
      if (page.docs.length === 0) break;
      seen.push(...page.docs.map((d: any) => d._id));
      bookmark = page.bookmark;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 10 }, (_, k) => `doc${String(k * 3).padStart(2, '0')}`),
    );
  });

  it('explains, and a query without an index warns; deleteIndex removes one', async () => {
    const plan = await db.explain({ selector: { author: 'user2' } });
    assert.equal(plan.index.def.fields[0].author, 'asc');
    const scan = await db.find({ selector: { tags: 'x' }, limit: 1 });
    assert.match(scan.warning, /No matching index found/);
    const { indexes } = await db.getIndexes();
    const author = indexes.find((i: any) => i.def.fields[0].author !== undefined);
    assert.deepEqual(await db.deleteIndex(author), { ok: true });
    assert.equal((await db.getIndexes()).indexes.length, 2);
  });
});

/**
 * include_docs over HTTP (spec a.2 include_docs/conflicts, b.3; CouchDB 1.x's view
 * row and `conflicts`): the current winning revision as `doc` after id/key/value, linked documents
 * (`{_id}`, `{_id,_rev}`, `{_rev}` alone), null for `{_id:null}`/missing/deleted targets,
 * conflicts=true adding `_conflicts`, and include_docs with keys, descending, paging, a reduce
 * view queried with reduce=false, and a stale index.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { deleteDoc, ids, putDoc, seed, viewClient, type ViewClient } from './support/views-http.js';

const DB = 'incdocs';
const DDOC = {
  views: {
    plain: { map: "function (doc) { if ('p' in doc) emit(doc.p, doc.p * 10); }", reduce: '_sum' },
    links: { map: "function (doc) { if ('link' in doc) emit(doc._id, doc.link); }" },
    self: { map: 'function (doc) { if (doc.oldrev) emit(doc._id, { _rev: doc.oldrev }); }' },
  },
};

describe('views over HTTP: include_docs', () => {
  let t: TestServer;
  let v: ViewClient;
  let targetRev1: string;
  let targetRev2: string;
  let selfRev1: string;
  const getDoc = async (id: string, qs = '') => {
    const r = await t.request('GET', `/${DB}/${id}${qs}`);
    assert.equal(r.status, 200, r.text);
    return r.json;
  };

  before(async () => {
    t = await startTestServer();
    await seed(t, DB, [
      { _id: 'p1', p: 1, body: 'one' },
      { _id: 'p2', p: 2, body: 'two' },
      { _id: 'p3', p: 3, body: 'three' },
      { _id: 'gone', title: 'will be deleted' },
    ]);
    targetRev1 = await putDoc(t, DB, { _id: 'target', title: 'v1' });
    targetRev2 = await putDoc(t, DB, { _id: 'target', title: 'v2' });
    selfRev1 = await putDoc(t, DB, { _id: 'self', n: 1 });
    await putDoc(t, DB, { _id: 'self', n: 2, oldrev: selfRev1 });
    await deleteDoc(t, DB, 'gone');
    const links = [
      { _id: 'l-id', link: { _id: 'target' } },
      { _id: 'l-rev', link: { _id: 'target', _rev: targetRev1 } },
      { _id: 'l-extra', link: { _id: 'p2', note: 'kept in the value' } },
      { _id: 'l-null', link: { _id: null } },
      { _id: 'l-missing', link: { _id: 'no-such-doc' } },
      { _id: 'l-deleted', link: { _id: 'gone' } },
      { _id: 'l-scalar', link: 'target' },
      { _id: 'l-noid', link: { other: 1 } },
    ];
    const bulk = await t.request('POST', `/${DB}/_bulk_docs`, { body: { docs: links } });
    assert.equal(bulk.status, 201);
    // A conflict on p3: a second revision 1 stored as in replication.
    const stored = await t.request('POST', `/${DB}/_bulk_docs`, {
      body: {
        new_edits: false,
        docs: [{ _id: 'p3', _rev: '1-ffffffffffffffffffffffffffffffff', p: 3, body: 'three (other branch)' }],
      },
    });
    assert.equal(stored.status, 201, stored.text);
    const ddoc = await t.request('PUT', `/${DB}/_design/i`, { body: DDOC });
    assert.equal(ddoc.status, 201);
    v = viewClient(t, DB, 'i');
  });
  after(() => t.close());

  it('doc is the current winning revision, after id, key, value', async () => {
    const r = await v.ok('plain', { reduce: false, include_docs: true, key: 1 });
    assert.equal(r.rows.length, 1);
    assert.deepEqual(Object.keys(r.rows[0]), ['id', 'key', 'value', 'doc']);
    assert.deepEqual(r.rows[0].doc, await getDoc('p1'));
    assert.deepEqual(Object.keys(r.rows[0].doc).slice(0, 2), ['_id', '_rev']);
  });

  it('include_docs=false (explicit) adds nothing; conflicts without include_docs is ignored', async () => {
    for (const row of (await v.ok('plain', { reduce: false, include_docs: false })).rows) assert.ok(!('doc' in row));
    for (const row of (await v.ok('links', { conflicts: true })).rows) assert.ok(!('doc' in row));
  });

  it('linked documents: {_id} includes that doc, {_id,_rev} that revision; the row keeps its id and value', async () => {
    const r = await v.ok('links', { include_docs: true, keys: ['l-id', 'l-rev', 'l-extra'] });
    assert.deepEqual(ids(r), ['l-id', 'l-rev', 'l-extra']);
    const [byId, byRev, extra] = r.rows;
    assert.deepEqual(byId.value, { _id: 'target' });
    assert.deepEqual(byId.doc, { _id: 'target', _rev: targetRev2, title: 'v2' });
    assert.deepEqual(byRev.value, { _id: 'target', _rev: targetRev1 });
    assert.deepEqual(byRev.doc, { _id: 'target', _rev: targetRev1, title: 'v1' });
    assert.deepEqual(extra.value, { _id: 'p2', note: 'kept in the value' });
    assert.deepEqual(extra.doc, await getDoc('p2'));
  });

  it("a value with _rev but no _id fetches that revision of the row's own doc", async () => {
    const r = await v.ok('self', { include_docs: true });
    assert.equal(r.rows.length, 1);
    assert.equal(r.rows[0].id, 'self');
    assert.deepEqual(r.rows[0].doc, { _id: 'self', _rev: selfRev1, n: 1 });
  });

  it('{_id:null}, a missing id and a deleted doc give "doc": null', async () => {
    const r = await v.ok('links', { include_docs: true, keys: ['l-null', 'l-missing', 'l-deleted'] });
    assert.deepEqual(
      r.rows.map((row: any) => [row.id, row.doc]),
      [
        ['l-null', null],
        ['l-missing', null],
        ['l-deleted', null],
      ],
    );
    for (const row of r.rows) assert.ok('doc' in row, 'the doc member is present, null');
  });

  it("values that are not {_id…} objects include the row's own doc", async () => {
    const r = await v.ok('links', { include_docs: true, keys: ['l-scalar', 'l-noid'] });
    assert.deepEqual(r.rows[0].doc, await getDoc('l-scalar'));
    assert.deepEqual(r.rows[1].doc, await getDoc('l-noid'));
  });

  it('conflicts=true adds _conflicts to included docs that have conflicts (as GET ?conflicts=true)', async () => {
    const withConflicts = await getDoc('p3', '?conflicts=true');
    assert.equal(withConflicts._conflicts.length, 1, 'fixture: p3 has a conflict');
    const r = await v.ok('plain', { reduce: false, include_docs: true, conflicts: true });
    assert.deepEqual(ids(r), ['p1', 'p2', 'p3']);
    assert.deepEqual(r.rows[2].doc, withConflicts);
    assert.ok(!('_conflicts' in r.rows[0].doc), 'no _conflicts member when there are none');
    const without = await v.ok('plain', { reduce: false, include_docs: true });
    assert.deepEqual(without.rows[2].doc, await getDoc('p3'));
    assert.ok(!('_conflicts' in without.rows[2].doc));
    const explicitFalse = await v.ok('plain', { reduce: false, include_docs: true, conflicts: false });
    assert.ok(!('_conflicts' in explicitFalse.rows[2].doc));
  });

  it('include_docs with keys, descending, skip and limit', async () => {
    const r = await v.postOk('plain', { keys: [3, 1], include_docs: true, reduce: false });
    assert.deepEqual(
      r.rows.map((row: any) => row.doc._id),
      ['p3', 'p1'],
    );
    const page = await v.ok('plain', { reduce: false, include_docs: true, descending: true, skip: 1, limit: 1 });
    assert.deepEqual(
      page.rows.map((row: any) => [row.id, row.doc._id]),
      [['p2', 'p2']],
    );
  });

  it('rows over many pages, in an order unlike the ids: each row carries its own document', async () => {
    // The documents of a page of rows are read in id order (views/query/read-view.ts): the rows
    // still come in key order, each with its own document, over pages of 8 to 128 rows.
    const docs = Array.from({ length: 700 }, (_, i) => ({ _id: `m${String(i).padStart(4, '0')}`, m: (i * 37) % 700 }));
    await seed(t, 'incdocs_many', docs, { m: { views: { m: { map: 'function (doc) { emit(doc.m, null); }' } } } });
    const many = viewClient(t, 'incdocs_many', 'm');
    const r = await many.ok('m', { include_docs: true });
    assert.equal(r.rows.length, 700);
    r.rows.forEach((row: any, at: number) => {
      assert.equal(row.key, at);
      assert.equal(row.doc._id, row.id);
      assert.equal(row.doc.m, row.key);
    });
    const desc = await many.ok('m', { include_docs: true, descending: true, skip: 5, limit: 300 });
    assert.deepEqual(
      desc.rows.map((row: any) => [row.key, row.doc.m]),
      Array.from({ length: 300 }, (_, i) => [694 - i, 694 - i]),
    );
  });

  it('include_docs=false on a reduce view is accepted and reduces', async () => {
    assert.deepEqual(await v.ok('plain', { include_docs: false }), { rows: [{ key: null, value: 60 }] });
  });

  it('a stale read still includes the current revision of each doc', async () => {
    await v.ok('plain', { reduce: false });
    const rev = await putDoc(t, DB, { _id: 'p1', p: 1, body: 'one, edited' });
    const r = await v.ok('plain', { reduce: false, include_docs: true, stale: 'ok', key: 1 });
    assert.equal(r.rows[0].doc._rev, rev);
    assert.equal(r.rows[0].doc.body, 'one, edited');
  });
});

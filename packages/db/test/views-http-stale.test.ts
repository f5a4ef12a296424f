/**
 * Index freshness over HTTP (spec a.2 stale/update/stable/update_seq, a.4 "stale/update/stable"
 * and "update_seq format", e; CouchDB 1.x's index states and transitions, update_seq): stale=ok and
 * update=false answer from the index as it is (empty when never built), stale=update_after and
 * update=lazy answer stale then update in the background, update=true / stable change nothing
 * on one node, a later stale/update param overwrites an earlier one, and update_seq is an
 * integer: the sequence of the last change to the view's rows (a fresh answer sees them all).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { dbSeq, deleteDoc, ids, putDdoc, putDoc, seed, viewClient, type ViewClient } from './support/views-http.js';
import { until } from './support/until.js';

const DDOC = {
  views: {
    by_n: { map: "function (doc) { if ('n' in doc) emit(doc.n, null); }" },
    total: { map: "function (doc) { if ('n' in doc) emit(doc.n, doc.n); }", reduce: '_sum' },
  },
};

describe('views over HTTP: stale, update, stable, update_seq', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** A fresh database (one per test keeps the sequences easy to reason about). */
  async function fresh(db: string): Promise<ViewClient> {
    await seed(
      t,
      db,
      [
        { _id: 'a', n: 1 },
        { _id: 'b', n: 2 },
      ],
      { s: DDOC },
    );
    return viewClient(t, db, 's');
  }

  it('update_seq=true: an integer, the db update_seq the view reflects', async () => {
    const v = await fresh('seq');
    const r = await v.ok('by_n', { update_seq: true });
    assert.deepEqual(Object.keys(r), ['total_rows', 'offset', 'update_seq', 'rows']);
    assert.ok(Number.isInteger(r.update_seq), `update_seq ${JSON.stringify(r.update_seq)}`);
    // The view's update_seq is its last change: doc b (the design doc after it is not mapped).
    assert.equal(r.update_seq, (await dbSeq(t, 'seq')) - 1);
    assert.ok(!('update_seq' in (await v.ok('by_n'))), 'absent unless asked');
    assert.ok(!('update_seq' in (await v.ok('by_n', { update_seq: false }))));
    const post = await v.postOk('by_n', { update_seq: true });
    assert.equal(post.update_seq, (await dbSeq(t, 'seq')) - 1);
    await putDoc(t, 'seq', { _id: 'c', n: 3 });
    assert.equal((await v.ok('by_n', { update_seq: true })).update_seq, await dbSeq(t, 'seq'));
  });

  it('stale=ok / update=false before the index was ever built: empty answers', async () => {
    const v = await fresh('never');
    assert.deepEqual(await v.ok('by_n', { stale: 'ok' }), { total_rows: 0, offset: 0, rows: [] });
    assert.deepEqual(await v.ok('by_n', { update: false }), { total_rows: 0, offset: 0, rows: [] });
    assert.deepEqual(await v.ok('total', { stale: 'ok' }), { rows: [] });
    assert.deepEqual(await v.ok('by_n', { stale: 'ok', update_seq: true }), {
      total_rows: 0,
      offset: 0,
      update_seq: 0,
      rows: [],
    });
    // The first fresh query builds it.
    assert.deepEqual(ids(await v.ok('by_n')), ['a', 'b']);
    assert.deepEqual(ids(await v.ok('by_n', { stale: 'ok' })), ['a', 'b']);
  });

  it("stale=ok and update=false ignore writes since the last update; update_seq is the index's seq", async () => {
    const v = await fresh('stale');
    const indexed = await v.ok('by_n', { update_seq: true });
    await putDoc(t, 'stale', { _id: 'c', n: 3 });
    await deleteDoc(t, 'stale', 'a');
    for (const params of [{ stale: 'ok' }, { update: 'false' }, { stale: 'ok', stable: true }]) {
      const r = await v.ok('by_n', { ...params, update_seq: true });
      assert.deepEqual(ids(r), ['a', 'b'], JSON.stringify(params));
      assert.equal(r.update_seq, indexed.update_seq, "the seq the index was built to, not the db's");
      assert.ok(r.update_seq < (await dbSeq(t, 'stale')));
    }
    assert.deepEqual((await v.ok('total', { stale: 'ok' })).rows, [{ key: null, value: 3 }]);
    // A normal query updates the index: c is in, a (deleted) is out.
    const now = await v.ok('by_n', { update_seq: true });
    assert.deepEqual(ids(now), ['b', 'c']);
    assert.equal(now.update_seq, await dbSeq(t, 'stale'));
    assert.deepEqual(
      (await v.ok('total', { stale: 'ok' })).rows,
      [{ key: null, value: 5 }],
      'the whole view group was updated together',
    );
  });

  it('stale=update_after / update=lazy answer from the index as it is, then update it', async () => {
    const v = await fresh('lazy');
    await v.ok('by_n');
    for (const [params, id] of [
      [{ stale: 'update_after' }, 'c'],
      [{ update: 'lazy' }, 'd'],
    ] as const) {
      const before = await v.ok('by_n', { update_seq: true, stale: 'ok' });
      await putDoc(t, 'lazy', { _id: id, n: id.charCodeAt(0) });
      const r = await v.ok('by_n', { ...params, update_seq: true });
      assert.ok(!ids(r).includes(id), `${JSON.stringify(params)}: the answer is stale`);
      assert.equal(r.update_seq, before.update_seq);
      await until(
        async () => ids(await v.ok('by_n', { stale: 'ok' })).includes(id),
        `${JSON.stringify(params)} updates the index`,
      );
      assert.equal((await v.ok('by_n', { stale: 'ok', update_seq: true })).update_seq, await dbSeq(t, 'lazy'));
    }
  });

  it('update=true, stable=true/false: a fresh answer (stable has no effect on one node)', async () => {
    const v = await fresh('fresh');
    await v.ok('by_n');
    await putDoc(t, 'fresh', { _id: 'c', n: 3 });
    assert.deepEqual(ids(await v.ok('by_n', { update: true })), ['a', 'b', 'c']);
    await putDoc(t, 'fresh', { _id: 'd', n: 4 });
    assert.deepEqual(ids(await v.ok('by_n', { stable: true })), ['a', 'b', 'c', 'd']);
    await putDoc(t, 'fresh', { _id: 'e', n: 5 });
    assert.deepEqual(ids(await v.ok('by_n', { stable: false, update: 'true' })), ['a', 'b', 'c', 'd', 'e']);
  });

  it('a later stale/update overwrites the earlier one', async () => {
    const v = await fresh('order');
    await v.ok('by_n');
    await putDoc(t, 'order', { _id: 'c', n: 3 });
    assert.deepEqual(
      ids(
        await v.ok('by_n', [
          ['update', 'true'],
          ['stale', 'ok'],
        ]),
      ),
      ['a', 'b'],
      'stale=ok last: stale',
    );
    assert.deepEqual(
      ids(
        await v.ok('by_n', [
          ['update', 'true'],
          ['update', 'false'],
        ]),
      ),
      ['a', 'b'],
    );
    assert.deepEqual(
      ids(
        await v.ok('by_n', [
          ['stale', 'ok'],
          ['update', 'true'],
        ]),
      ),
      ['a', 'b', 'c'],
      'update=true last: fresh',
    );
  });

  it('POST body stale/update, query string winning', async () => {
    const v = await fresh('poststale');
    await v.ok('by_n');
    await putDoc(t, 'poststale', { _id: 'c', n: 3 });
    assert.deepEqual(ids(await v.postOk('by_n', { stale: 'ok' })), ['a', 'b']);
    assert.deepEqual(ids(await v.postOk('by_n', { update: false, keys: [1, 3] })), ['a']);
    assert.deepEqual(ids(await v.postOk('by_n', { stale: 'ok' }, { update: 'true' })), ['a', 'b', 'c']);
  });

  it('a changed design document (new signature) starts from an empty index: stale=ok is empty until queried', async () => {
    const v = await fresh('rebuild');
    assert.deepEqual(ids(await v.ok('by_n')), ['a', 'b']);
    const ddoc = (await t.request('GET', '/rebuild/_design/s')).json;
    ddoc.views.by_n.map = "function (doc) { if ('n' in doc) emit(-doc.n, null); }";
    await putDdoc(t, 'rebuild', 's', ddoc);
    assert.deepEqual(await v.ok('by_n', { stale: 'ok' }), { total_rows: 0, offset: 0, rows: [] });
    assert.deepEqual(ids(await v.ok('by_n')), ['b', 'a']);
  });

  it('writes to other design documents and _local docs do not disturb freshness', async () => {
    const v = await fresh('local');
    await v.ok('by_n');
    const local = await t.request('PUT', '/local/_local/x', { body: { n: 99 } });
    assert.equal(local.status, 201);
    const r = await v.ok('by_n', { update_seq: true });
    assert.deepEqual(ids(r), ['a', 'b'], '_local docs are never mapped');
    assert.equal(r.update_seq, (await dbSeq(t, 'local')) - 1, 'doc b, the last change the view saw');
  });
});

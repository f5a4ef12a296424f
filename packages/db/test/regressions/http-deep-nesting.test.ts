import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_DEPTH } from '../../src/json/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const objects = (levels: number) => `${'{"b":'.repeat(levels)}1${'}'.repeat(levels)}`;
const TOO_DEEP = { error: 'bad_request', reason: `JSON nested deeper than ${MAX_DEPTH} levels is not accepted.` };

/**
 * Nesting past the limit is a 400 wherever JSON comes in (a document of a `_bulk_docs` list: that
 * document's own error row); up to the limit everything works. Never a stack overflow.
 */
describe('deeply nested JSON', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    await t.request('PUT', '/db/_design/v', {
      body: { views: { a: { map: 'function (d) { if (d.a) emit(d.a, 1) }', reduce: '_count' } } },
    });
  });
  after(() => t.close());

  const seq = async () => (await t.request('GET', '/db')).json.update_seq;

  for (const levels of [10_000, 100_000]) {
    it(`${levels} levels in a document, a _bulk_docs body, a _revs_diff body, view keys: 400, nothing stored`, async () => {
      const before = await seq();
      for (const doc of [`{"a":${arrays(levels)}}`, `{"a":${objects(levels)}}`]) {
        const put = await t.request('PUT', '/db/deep', { body: doc });
        assert.deepEqual([put.status, put.json], [400, TOO_DEEP]);
        // In `_bulk_docs` a too-deep document is refused alone, with its own row (a replication
        // batch is not failed by one document); nothing is stored.
        const bulk = await t.request('POST', '/db/_bulk_docs', { body: `{"docs":[${doc}]}` });
        assert.equal(bulk.status, 201);
        assert.equal(bulk.json.length, 1);
        assert.deepEqual({ error: bulk.json[0].error, reason: bulk.json[0].reason }, TOO_DEEP);
        const wrapped = await t.request('POST', '/db/_bulk_docs', { body: `{"docs":[],"x":${doc}}` });
        assert.deepEqual([wrapped.status, wrapped.json], [400, TOO_DEEP]);
      }
      const diff = await t.request('POST', '/db/_revs_diff', { body: `{"x":${arrays(levels)}}` });
      assert.deepEqual([diff.status, diff.json], [400, TOO_DEEP]);
      const keys = await t.request('POST', '/db/_design/v/_view/a', { body: `{"keys":[${arrays(levels)}]}` });
      assert.deepEqual([keys.status, keys.json], [400, TOO_DEEP]);
      const allDocs = await t.request('POST', '/db/_all_docs', { body: `{"keys":[${objects(levels)}]}` });
      assert.deepEqual([allDocs.status, allDocs.json], [400, TOO_DEEP]);
      assert.equal(await seq(), before);
    });
  }

  it('a view key in the query string past the limit is a 400', async () => {
    // Unescaped brackets keep the URL under Node's header size limit.
    const key = arrays(MAX_DEPTH + 1);
    for (const path of [`/db/_design/v/_view/a?key=${key}`, `/db/_all_docs?startkey=${key}`]) {
      const r = await t.request('GET', path);
      assert.deepEqual([r.status, r.json], [400, TOO_DEEP], path.slice(0, 30));
    }
  });

  it(`documents nested ${MAX_DEPTH} levels are stored, read, indexed and queried`, async () => {
    // The document itself is one level.
    const docs = { arr: `{"a":${arrays(MAX_DEPTH - 1)}}`, obj: `{"a":${objects(MAX_DEPTH - 1)}}` };
    for (const [id, body] of Object.entries(docs)) {
      assert.equal((await t.request('PUT', `/db/${id}`, { body })).status, 201, id);
      const read = await t.request('GET', `/db/${id}`);
      assert.equal(read.status, 200);
      assert.ok(read.text.length > MAX_DEPTH * 2);
    }
    const view = await t.request('GET', '/db/_design/v/_view/a?reduce=false');
    assert.equal(view.status, 200);
    assert.deepEqual(
      view.json.rows.map((row: { id: string }) => row.id),
      ['arr', 'obj'],
    );
    const grouped = await t.request('GET', '/db/_design/v/_view/a?group=true');
    assert.equal(grouped.json.rows.length, 2);
    const changes = await t.request('GET', '/db/_changes?include_docs=true');
    assert.equal(changes.status, 200);
    assert.equal((await t.request('GET', '/_up')).status, 200);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Mango `nouveau` indexes over HTTP (run on SQLite, then on PostgreSQL), as CouchDB 3.5's
 * mango_idx_nouveau and mango_cursor_nouveau have them: `_index` with `"type": "nouveau"`
 * stored in the design document's `nouveau` member, listed and deleted as their own kind,
 * `_find` through them (after text indexes), `_explain`.
 */
describe('Mango nouveau indexes over HTTP', () => {
  let t: TestServer;
  const find = (body: Record<string, unknown>) => t.request('POST', '/n/_find', { body });
  const ids = (r: { json: { docs: { _id: string }[] } }) => r.json.docs.map((d) => d._id).sort();

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/n');
    const docs = [
      { _id: 'alice', name: 'Alice', age: 30, bio: 'Likes cats and dogs' },
      { _id: 'bob', name: 'Bob', age: 25, bio: 'A dog person' },
      { _id: 'carol', name: 'Carol', age: 35, bio: 'Cats only' },
    ];
    assert.equal((await t.request('POST', '/n/_bulk_docs', { body: { docs } })).status, 201);
  });
  after(() => t.close());

  it("_index creates one in the design document's `nouveau` member and lists it as nouveau", async () => {
    const created = await t.request('POST', '/n/_index', {
      body: { index: {}, type: 'nouveau', ddoc: 'nv', name: 'all' },
    });
    assert.deepEqual(created.json, { result: 'created', id: '_design/nv', name: 'all' });
    const again = await t.request('POST', '/n/_index', {
      body: { index: {}, type: 'nouveau', ddoc: 'nv', name: 'all' },
    });
    assert.equal(again.json.result, 'exists');
    const ddoc = await t.request('GET', '/n/_design/nv');
    assert.deepEqual(Object.keys(ddoc.json.nouveau), ['all']);
    assert.equal(ddoc.json.indexes, undefined);
    assert.deepEqual(ddoc.json.nouveau.all.analyzer, {
      name: 'perfield',
      default: 'keyword',
      fields: { $default: 'standard' },
    });
    const listed = await t.request('GET', '/n/_index');
    const nv = listed.json.indexes.find((i: { ddoc: string }) => i.ddoc === '_design/nv');
    assert.deepEqual([nv.type, nv.name, nv.partitioned, nv.def.fields], ['nouveau', 'all', false, []]);
  });

  it('_find answers $text and other operators through it; _explain names it with no sort as null', async () => {
    const r = await find({ selector: { $text: 'cats' } });
    assert.equal(r.status, 200);
    assert.deepEqual(ids(r), ['alice', 'carol']);
    const ranged = await find({ selector: { age: { $gt: 26 } }, sort: [{ age: 'desc' }], fields: ['_id'] });
    assert.deepEqual(
      ranged.json.docs.map((d: { _id: string }) => d._id),
      ['carol', 'alice'],
    );
    const explained = await t.request('POST', '/n/_explain', { body: { selector: { $text: 'cats' } } });
    assert.deepEqual([explained.json.index.type, explained.json.index.name], ['nouveau', 'all']);
    assert.equal(explained.json.sort, null);
    assert.equal(explained.json.query, '($default:"cats")');
  });

  it('a text index is preferred; the nouveau one is then an unfavored candidate, usable by use_index', async () => {
    const created = await t.request('POST', '/n/_index', {
      body: { index: {}, type: 'text', ddoc: 'tx', name: 'all' },
    });
    assert.equal(created.json.result, 'created');
    const explained = await t.request('POST', '/n/_explain', { body: { selector: { $text: 'dog' } } });
    assert.deepEqual([explained.json.index.type, explained.json.sort], ['text', 'relevance']);
    const nouveau = explained.json.index_candidates.find(
      (c: { index: { type: string } }) => c.index.type === 'nouveau',
    );
    assert.deepEqual([nouveau.analysis.usable, nouveau.analysis.reasons], [true, [{ name: 'unfavored_type' }]]);
    const named = await t.request('POST', '/n/_explain', { body: { selector: { $text: 'dog' }, use_index: 'nv' } });
    assert.equal(named.json.index.type, 'nouveau');
    const found = await find({ selector: { $text: 'dog' }, use_index: 'nv' });
    assert.deepEqual(ids(found), ['bob']);
  });

  it('DELETE /_index/{ddoc}/nouveau/{name} removes it, and its design document with its last index', async () => {
    assert.equal((await t.request('DELETE', '/n/_index/nv/text/all')).status, 404);
    const deleted = await t.request('DELETE', '/n/_index/nv/nouveau/all');
    assert.deepEqual([deleted.status, deleted.json], [200, { ok: true }]);
    assert.equal((await t.request('GET', '/n/_design/nv')).status, 404);
    assert.equal((await t.request('DELETE', '/n/_index/nv/nouveau/all')).status, 404);
  });

  it('refuses what it does not have, naming it, and bad definitions with a 400', async () => {
    const textField = await t.request('POST', '/n/_index', {
      body: { index: { fields: [{ name: 'bio', type: 'text' }] }, type: 'nouveau' },
    });
    assert.deepEqual([textField.status, textField.json.error], [501, 'not_implemented']);
    assert.match(textField.json.reason, /`text` fields of Mango nouveau indexes/);
    const bad = await t.request('POST', '/n/_index', {
      body: { index: { fields: [{ name: 'bio', type: 'date' }] }, type: 'nouveau' },
    });
    assert.deepEqual([bad.status, bad.json.error], [400, 'invalid_index_fields_definition']);
    const notObject = await t.request('POST', '/n/_index', { body: { index: 1, type: 'nouveau' } });
    assert.equal(notObject.status, 400);
  });
});

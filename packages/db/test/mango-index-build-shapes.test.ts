import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * JSON indexes built from empty (the view engine's one-at-a-time build, mango/json-index.ts
 * `mapInto`) over documents of every shape: missing fields, nested paths, array elements, a
 * partial filter, `_id`, design documents, deleted documents (with and without a body) and a
 * conflicted one. Each index holds exactly the rows worked out by hand below (its keys examined
 * by a query every row matches), in collation order.
 */
describe('Mango index builds over documents of every shape', () => {
  let t: TestServer;
  const find = async (body: Record<string, unknown>) => {
    const r = await t.request('POST', '/shapes/_find', { body: { ...body, execution_stats: true } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.warning, undefined);
    return {
      ids: (r.json.docs as { _id: string }[]).map((d) => d._id),
      keys: r.json.execution_stats.total_keys_examined as number,
    };
  };
  const index = async (name: string, def: unknown) => {
    const r = await t.request('POST', '/shapes/_index', { body: { index: def, ddoc: name, name } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  };

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/shapes');
    const docs = [
      { _id: 'd1', n: 1, k: 'x', sub: { n: 'a' }, tags: ['t1', 't2'] },
      { _id: 'd2', n: 'two', k: 'y', sub: { n: null }, tags: [] },
      { _id: 'd3', k: 'x' },
      { _id: 'd4', n: null, k: 'x', sub: { m: 1 }, tags: ['t0'] },
      { _id: 'd5', n: [3], k: 'z', sub: { n: { deep: 1 } }, tags: 'str' },
      { _id: 'd6', n: { a: 1 }, sub: [1], tags: [null] },
      // Never in a JSON index: a design document, deleted documents (one keeps a body).
      { _id: '_design/dd', n: 0, k: 'x', sub: { n: 'a' }, tags: ['t'] },
      { _id: 'del1', n: 5, k: 'x', sub: { n: 'b' }, tags: ['t5'] },
      { _id: 'del2', _deleted: true, n: 6, k: 'x', sub: { n: 'b' }, tags: ['t6'] },
      { _id: 'c1', n: 7, k: 'x' },
    ];
    assert.equal((await t.request('POST', '/shapes/_bulk_docs', { body: { docs } })).status, 201);
    const del1 = (await t.request('GET', '/shapes/del1')).json._rev as string;
    assert.equal((await t.request('DELETE', `/shapes/del1?rev=${del1}`)).status, 200);
    // A losing conflict: only the winner (n 7, k "x") is indexed.
    const rev = (await t.request('GET', '/shapes/c1')).json._rev as string;
    const loser = { _id: 'c1', _rev: `${rev.split('-')[0]}-00000000000000000000000000000000`, n: 8, k: 'w' };
    const put = await t.request('POST', '/shapes/_bulk_docs', { body: { docs: [loser], new_edits: false } });
    assert.equal(put.status, 201);
    assert.equal((await t.request('GET', '/shapes/c1?conflicts=true')).json._conflicts.length, 1);
  });
  after(() => t.close());

  it('a top-level field: every document that has it, whatever its value', async () => {
    await index('by-n', { fields: ['n'] });
    const found = await find({ selector: { n: { $gte: null } }, use_index: 'by-n' });
    // null, numbers, strings, arrays, objects.
    assert.deepEqual(found.ids, ['d4', 'd1', 'c1', 'd2', 'd5', 'd6']);
    assert.equal(found.keys, 6);
  });

  it('a nested path and a second field: documents where both resolve', async () => {
    await index('by-sub', { fields: ['sub.n', 'k'] });
    const found = await find({ selector: { 'sub.n': { $gte: null }, k: { $gte: null } }, use_index: 'by-sub' });
    assert.deepEqual(found.ids, ['d2', 'd1', 'd5']);
    assert.equal(found.keys, 3);
  });

  it('an array element under a partial filter', async () => {
    await index('by-tag', { fields: ['tags.0'], partial_filter_selector: { k: { $in: ['x', 'z'] } } });
    const found = await find({ selector: { 'tags.0': { $gte: null } }, use_index: 'by-tag' });
    // d6's first tag is null but it has no `k`; d2's tags are empty; d5's are a string.
    assert.deepEqual(found.ids, ['d4', 'd1']);
    assert.equal(found.keys, 2);
  });

  it('a body member and `_id`: the winning revision of a conflicted document', async () => {
    await index('by-k-id', { fields: ['k', '_id'] });
    const found = await find({ selector: { k: { $gte: null }, _id: { $gte: null } }, use_index: 'by-k-id' });
    assert.deepEqual(found.ids, ['c1', 'd1', 'd3', 'd4', 'd2', 'd5']);
    assert.equal(found.keys, 6);
  });
});

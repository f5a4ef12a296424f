import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * A JSON index built from the documents' stored bodies (mango/json-index.ts `mapStored`) where
 * its fields and filter read body members only, from their rendered texts where one reads `_id`
 * or a meta member: the index finds what a scan of the same selector finds, in its order.
 */
describe('Mango index builds from stored bodies', () => {
  let t: TestServer;
  const find = (body: unknown) => t.request('POST', '/built/_find', { body });
  const ids = (r: { status: number; json: { docs: { _id: string }[] } }) => {
    assert.equal(r.status, 200);
    return r.json.docs.map((d) => d._id);
  };
  const index = async (ddoc: string, def: unknown) =>
    assert.equal((await t.request('POST', '/built/_index', { body: { index: def, ddoc, name: ddoc } })).status, 200);

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/built');
    const text = (s: string) => Buffer.from(s).toString('base64');
    const docs = [
      // Attachment stubs lead a stored body, one of them named like the indexed member.
      { _id: 'a', n: 3, k: 'x', _attachments: { n: { content_type: 'text/plain', data: text('n') } } },
      { _id: 'b', n: 1, k: 'y', note: '"n": 9' },
      { _id: 'c', k: 'x', sub: { n: 7 } },
      { _id: 'd', n: null, k: 'x' },
      { _id: 'e', n: 2, k: 'x', _attachments: { 'f.txt': { content_type: 'text/plain', data: text('hi') } } },
      { _id: 'f', n: 'two', k: 'y', tags: ['n', 'k'] },
    ];
    assert.equal((await t.request('POST', '/built/_bulk_docs', { body: { docs } })).status, 201);
    // A losing conflict: the rendered text a map reads has `_conflicts`, the stored body none.
    const rev = (await t.request('GET', '/built/b')).json._rev as string;
    const conflict = { _id: 'b', _rev: `${rev.split('-')[0]}-00000000000000000000000000000000`, n: 0, k: 'z' };
    const put = await t.request('POST', '/built/_bulk_docs', { body: { docs: [conflict], new_edits: false } });
    assert.equal(put.status, 201);
  });
  after(() => t.close());

  it('an index on body members finds what a scan finds', async () => {
    const scanned = ids(await find({ selector: { n: { $gte: null }, k: { $gt: null } } }));
    await index('by-n', { fields: ['n', 'k'], partial_filter_selector: { k: { $ne: 'q' } } });
    const indexed = await find({
      selector: { n: { $gte: null }, k: { $gt: null } },
      use_index: 'by-n',
      execution_stats: true,
    });
    assert.equal(indexed.json.warning, undefined);
    // The index's order: null, numbers, strings; the scan's: ids.
    assert.deepEqual(ids(indexed), ['d', 'b', 'e', 'a', 'f']);
    assert.deepEqual([...ids(indexed)].sort(), scanned);
    const ranged = await find({ selector: { n: { $gt: 1, $lt: 'z' }, k: 'x' }, use_index: 'by-n' });
    assert.deepEqual(ids(ranged), ['e', 'a']);
  });

  it('an index on `_id` and a body member reads the rendered documents, keys from their values', async () => {
    await index('by-k-id', { fields: ['k', '_id'] });
    const found = await find({ selector: { k: 'x', _id: { $gt: 'a' } }, use_index: 'by-k-id' });
    assert.deepEqual(ids(found), ['c', 'd', 'e']);
  });

  it('an index on a meta member reads the rendered documents', async () => {
    await index('by-conflicts', { fields: ['_conflicts'] });
    const found = await find({
      selector: { _conflicts: { $exists: true } },
      conflicts: true,
      use_index: 'by-conflicts',
    });
    assert.deepEqual(ids(found), ['b']);
  });
});

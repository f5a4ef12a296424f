import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';

/**
 * A search index on two nodes of one PostgreSQL: shared as view indexes are, so what one node
 * built the other answers from, and either brings it up to date with the other's writes.
 */
describe('_search across two nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  twoNodesOnPostgres('searchnodes', (nodes) => ({ a, b } = nodes));

  it("one node answers from the index the other built, and takes in the other's writes", async () => {
    await a.request('PUT', '/shared');
    await a.request('POST', '/shared/_bulk_docs', {
      body: {
        docs: [
          { _id: 'x', text: 'red apple' },
          { _id: 'y', text: 'green apple' },
        ],
      },
    });
    await a.request('PUT', '/shared/_design/d', {
      body: { indexes: { i: { index: 'function (doc) { index("default", doc.text); }' } } },
    });
    const built = await a.request('GET', '/shared/_design/d/_search/i?q=apple');
    assert.equal(built.json.total_rows, 2);
    const committed = (await a.request('GET', '/shared/_design/d/_search_info/i')).json.search_index.committed_seq;
    const info = (await b.request('GET', '/shared/_design/d/_search_info/i')).json.search_index;
    assert.equal(info.committed_seq, committed);
    assert.equal(info.doc_count, 2);
    const stale = await b.request('GET', '/shared/_design/d/_search/i?q=red&stale=ok');
    assert.deepEqual(
      stale.json.rows.map((r: { id: string }) => r.id),
      ['x'],
    );
    await b.request('PUT', '/shared/z', { body: { text: 'red cherry' } });
    const fresh = await a.request('GET', '/shared/_design/d/_search/i?q=red');
    assert.deepEqual(fresh.json.rows.map((r: { id: string }) => r.id).sort(), ['x', 'z']);
    const again = await b.request('GET', '/shared/_design/d/_search/i?q=red&stale=ok');
    assert.deepEqual(again.json.rows.map((r: { id: string }) => r.id).sort(), ['x', 'z']);
  });
});

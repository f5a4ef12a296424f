import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * A partition's `_nouveau` (`/{db}/_partition/{p}/_design/{ddoc}/_nouveau/{index}`, or `partition`
 * in the query string): Nouveau adds a required `_partition:{p}` term to the query, so a hit is a
 * partition's document and its score the query's BM25 score plus that term's (a field without
 * norms in every document of a partitioned database: idf over the partition's share, length 1).
 */
describe('Nouveau in a partitioned database', () => {
  let t: TestServer;
  const DOCS = [
    { _id: 'a:1', body: 'fox' },
    { _id: 'a:2', body: 'fox fox dog' },
    { _id: 'b:1', body: 'fox' },
    { _id: 'b:2', body: 'cat' },
  ];
  // body: 4 documents, lengths 1 + 3 + 1 + 1 (avgdl 1.5); "fox" in 3 of them.
  const idf = (n: number, all: number) => Math.log(1 + (all - n + 0.5) / (n + 0.5));
  const bm25 = (idfValue: number, freq: number, dl: number, avgdl: number) =>
    (idfValue * freq) / (freq + 1.2 * (0.25 + (0.75 * dl) / avgdl));
  const fox = (freq: number, dl: number) => bm25(idf(3, 4), freq, dl, 1.5);
  // `_partition:a`: 2 of 4 documents, each one term long (avgdl 1).
  const partitionA = bm25(idf(2, 4), 1, 1, 1);
  const near = (actual: number, expected: number) =>
    assert.ok(Math.abs(actual - expected) < 1e-6 * expected, `${actual} is not ${expected}`);
  const hitsOf = (r: { json: { hits: { id: string; order: { value: number }[] }[] } }) =>
    r.json.hits.map((h) => [h.id, h.order[0]!.value] as const);

  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('PUT', '/pn?partitioned=true')).status, 201);
    assert.equal((await t.request('POST', '/pn/_bulk_docs', { body: { docs: DOCS } })).status, 201);
    await t.request('PUT', '/pn/_design/d', {
      body: { nouveau: { i: { index: 'function (doc) { index("text", "body", doc.body); }' } } },
    });
    await t.request('PUT', '/plain');
  });
  after(() => t.close());

  it("answers a partition's hits, each scored with the partition's term", async () => {
    const r = await t.request('GET', '/pn/_partition/a/_design/d/_nouveau/i?q=body:fox');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.total_hits, 2);
    const hits = hitsOf(r);
    assert.deepEqual(
      hits.map(([id]) => id),
      ['a:1', 'a:2'],
    );
    near(hits[0]![1], fox(1, 1) + partitionA);
    near(hits[1]![1], fox(2, 3) + partitionA);
    // The same with `partition` in the query string, and by POST.
    const query = await t.request('GET', '/pn/_design/d/_nouveau/i?q=body:fox&partition=a');
    assert.deepEqual(hitsOf(query), hits);
    const post = await t.request('POST', '/pn/_partition/a/_design/d/_nouveau/i', { body: { q: 'body:fox' } });
    assert.deepEqual(hitsOf(post), hits);
  });

  it('without a partition the query is the whole database, without the partition term', async () => {
    const r = await t.request('GET', '/pn/_design/d/_nouveau/i?q=body:fox');
    const hits = new Map(hitsOf(r));
    assert.deepEqual([...hits.keys()].sort(), ['a:1', 'a:2', 'b:1']);
    near(hits.get('b:1')!, fox(1, 1));
  });

  it('refuses what a partition request refuses', async () => {
    const conflicting = await t.request('GET', '/pn/_partition/a/_design/d/_nouveau/i?q=x&partition=b');
    assert.deepEqual(
      [conflicting.status, conflicting.json.reason],
      [400, 'Conflicting value for `partition` in query string'],
    );
    const plain = await t.request('GET', '/plain/_partition/a/_design/d/_nouveau/i?q=x');
    assert.equal(plain.status, 400);
    const missing = await t.request('GET', '/pn/_partition/a/_design/nope/_nouveau/i?q=x');
    assert.equal(missing.status, 404);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * A term query's page by relevance skips the blocks of postings that cannot reach it
 * (search/query-top.ts): its pages, scores and total_rows must be the ones of every hit scored.
 * The oracle is the same query sorted by `<score>` (which scores every hit, then sorts), over
 * terms with hundreds of postings, many tied scores, and after updates, deletions and documents
 * added between others (numbered after the index was read). The same for `_nouveau`'s BM25
 * scores.
 */
describe('search: the page by relevance without scoring every posting', () => {
  let t: TestServer;
  /** A pseudo-random sequence, the same every run. */
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const body = () => {
    const words = [];
    const tf = 1 + random(4);
    for (let i = 0; i < tf; i++) words.push('apple');
    if (random(3) === 0) words.push('pear');
    for (let i = random(12); i > 0; i--) words.push(`filler${random(5)}`);
    return words.join(' ');
  };

  /** Every row of a query, page after page by bookmark: ids and orders. */
  const walk = async (q: string, extra: Record<string, string>) => {
    const rows: { id: string; order: unknown[] }[] = [];
    let bookmark: string | undefined;
    let total: number | undefined;
    for (;;) {
      const params = new URLSearchParams({ q, limit: '40', ...extra, ...(bookmark ? { bookmark } : {}) });
      const r = await t.request('GET', `/k/_design/d/_search/i?${params}`);
      assert.equal(r.status, 200, r.text);
      total ??= r.json.total_rows;
      assert.equal(r.json.total_rows, total);
      if (r.json.rows.length === 0) break;
      for (const row of r.json.rows) rows.push({ id: row.id, order: row.order });
      bookmark = r.json.bookmark;
    }
    return { total, rows };
  };

  /** The same through `_nouveau` (BM25 scores): ids and scores. */
  const walkNouveau = async (q: string, extra: Record<string, string>) => {
    const hits: { id: string; score: unknown }[] = [];
    let bookmark: string | undefined;
    let total: number | undefined;
    for (;;) {
      const params = new URLSearchParams({ q, limit: '40', ...extra, ...(bookmark ? { bookmark } : {}) });
      const r = await t.request('GET', `/k/_design/d/_nouveau/n?${params}`);
      assert.equal(r.status, 200, r.text);
      total ??= r.json.total_hits;
      assert.equal(r.json.total_hits, total);
      if (r.json.hits.length === 0) break;
      for (const hit of r.json.hits) hits.push({ id: hit.id, score: hit.order[0].value });
      bookmark = r.json.bookmark;
    }
    return { total, hits };
  };

  const same = async (q: string) => {
    const top = await walk(q, {});
    const all = await walk(q, { sort: JSON.stringify('<score>') });
    assert.equal(top.total, all.total, q);
    assert.deepEqual(top.rows, all.rows, q);
    assert.equal(top.rows.length, top.total, q);
    // The first page alone, too (the common case: no bookmark).
    const page = await t.request('GET', `/k/_design/d/_search/i?${new URLSearchParams({ q, limit: '25' })}`);
    assert.deepEqual(
      page.json.rows.map((row: { id: string; order: unknown[] }) => ({ id: row.id, order: row.order })),
      all.rows.slice(0, 25),
      q,
    );
    // BM25 (`_nouveau`): the page by relevance against the sort by relevance, which scores every hit.
    const bm25 = await walkNouveau(q, {});
    const bm25All = await walkNouveau(q, { sort: JSON.stringify(['relevance']) });
    assert.equal(bm25.total, top.total, q);
    assert.deepEqual(bm25.hits, bm25All.hits, q);
    assert.equal(bm25.hits.length, bm25.total, q);
    return top.total;
  };

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/k');
    const docs = Array.from({ length: 700 }, (_, i) => ({ _id: `d${String(i * 2).padStart(5, '0')}`, body: body() }));
    assert.equal((await t.request('POST', '/k/_bulk_docs', { body: { docs } })).status, 201);
    await t.request('PUT', '/k/_design/d', {
      body: {
        indexes: { i: { index: 'function (doc) { index("default", doc.body); }' } },
        nouveau: { n: { index: 'function (doc) { index("text", "default", doc.body); }' } },
      },
    });
  });
  after(() => t.close());

  it('pages, scores and total_rows are those of every hit scored', async () => {
    assert.equal(await same('apple'), 700);
    await same('pear');
    await same('apple^3');
    await same('filler3');
    await same('nothing');
    // Phrases: their matches go to the page as they are found.
    await same('"apple pear"');
    await same('"apple apple"');
    await same('"pear apple"~3');
  });

  it('the same after updates, deletions and documents numbered out of id order', async () => {
    const all = await t.request('GET', '/k/_all_docs?startkey=%22d%22&limit=200');
    const changes = all.json.rows.map((row: { id: string; value: { rev: string } }, i: number) =>
      i % 4 === 0
        ? { _id: row.id, _rev: row.value.rev, _deleted: true }
        : { _id: row.id, _rev: row.value.rev, body: body() },
    );
    // Odd numbers: ids between the ones the index was read with.
    for (let i = 0; i < 60; i++) changes.push({ _id: `d${String(i * 20 + 1).padStart(5, '0')}`, body: body() });
    assert.equal((await t.request('POST', '/k/_bulk_docs', { body: { docs: changes } })).status, 201);
    assert.equal(await same('apple'), 700 - 50 + 60);
    await same('pear');
    await same('filler0 ');
    await same('"apple pear"');
  });
});

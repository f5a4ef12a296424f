import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * `_nouveau` scores as Lucene 9's BM25Similarity (k1 = 1.2, b = 0.75), on a small corpus whose
 * scores are worked out here by hand from Lucene's formula:
 *
 *   idf = ln(1 + (N - n + 0.5) / (n + 0.5))      N: documents with the field, n: with the term
 *   score = idf · freq / (freq + k1 · (1 - b + b · dl / avgdl))
 *
 * with dl the field's length as its norm byte keeps it (exact below 24, then 4 significant bits:
 * 45 terms read as 44) and avgdl the exact lengths' mean. `_search` on the same documents keeps
 * Lucene 4's TF-IDF, which orders them the other way.
 */
describe('Nouveau scores by BM25', () => {
  let t: TestServer;
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 7}`).join(' ');
  // Lengths 3, 7, 2, 45 (sum 57, avgdl 14.25); "fox" in a (once), b (twice), d (once).
  const DOCS = [
    { _id: 'a', body: 'the quick fox', kind: 'x' },
    { _id: 'b', body: 'fox fox jumps over the lazy dog', kind: 'y' },
    { _id: 'c', body: 'lazy cat', kind: 'x' },
    { _id: 'd', body: `fox ${words(44)}`, kind: 'x' },
  ];
  const N = 4;
  const AVGDL = 57 / 4;
  const idf = (n: number) => Math.log(1 + (N - n + 0.5) / (n + 0.5));
  const bm25 = (n: number, freq: number, dl: number) => (idf(n) * freq) / (freq + 1.2 * (0.25 + (0.75 * dl) / AVGDL));

  const hits = async (q: string) => {
    const r = await t.request('GET', `/b/_design/d/_nouveau/i?${new URLSearchParams({ q })}`);
    assert.equal(r.status, 200, r.text);
    return (r.json.hits as { id: string; order: { value: number }[] }[]).map((h) => [h.id, h.order[0]!.value] as const);
  };
  const near = (actual: number, expected: number) =>
    assert.ok(Math.abs(actual - expected) < 1e-6 * expected, `${actual} is not ${expected}`);

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/b');
    assert.equal((await t.request('POST', '/b/_bulk_docs', { body: { docs: DOCS } })).status, 201);
    await t.request('PUT', '/b/_design/d', {
      body: {
        nouveau: {
          i: { index: 'function (doc) { index("text", "body", doc.body); index("string", "kind", doc.kind); }' },
        },
        indexes: { s: { index: 'function (doc) { index("body", doc.body); }' } },
      },
    });
  });
  after(() => t.close());

  it("a term: Lucene 9's idf, saturation and length norm, the order TF-IDF does not give", async () => {
    const found = await hits('body:fox');
    assert.deepEqual(
      found.map(([id]) => id),
      ['b', 'a', 'd'],
    );
    near(found[0]![1], bm25(3, 2, 7));
    near(found[1]![1], bm25(3, 1, 3));
    // 45 terms: the norm byte keeps 44.
    near(found[2]![1], bm25(3, 1, 44));
    assert.ok(Math.abs(found[2]![1] - bm25(3, 1, 45)) > 1e-5);
    // Scores are floats, printed as Java prints one (at most 9 significant digits).
    for (const [, score] of found) assert.ok(score.toPrecision(9).length >= String(score).replace('-', '').length);
    // Lucene 4's TF-IDF (`_search`) puts a first: sqrt(1)/sqrt(3) beats sqrt(2)/sqrt(7).
    const classic = await t.request('GET', '/b/_design/d/_search/s?q=body:fox');
    assert.deepEqual(
      classic.json.rows.map((row: { id: string }) => row.id),
      ['a', 'b', 'd'],
    );
  });

  it('optional clauses sum (no coord), a boost multiplies the weight', async () => {
    const found = new Map(await hits('body:fox OR body:lazy'));
    near(found.get('b')!, bm25(3, 2, 7) + bm25(2, 1, 7));
    near(found.get('c')!, bm25(2, 1, 2));
    near(found.get('a')!, bm25(3, 1, 3));
    const boosted = new Map(await hits('body:fox^2'));
    near(boosted.get('a')!, 2 * bm25(3, 1, 3));
  });

  it('a phrase sums its terms idfs; string fields score as one term long; prefixes score their boost', async () => {
    const phrase = await hits('body:"lazy dog"');
    assert.equal(phrase.length, 1);
    const [id, score] = phrase[0]!;
    assert.equal(id, 'b');
    const phraseIdf = idf(2) + idf(1);
    near(score, (phraseIdf * 1) / (1 + 1.2 * (0.25 + (0.75 * 7) / AVGDL)));
    // kind: no norms, documents only: dl 1, avgdl 1, freq 1.
    const kinds = await hits('kind:x');
    assert.equal(kinds.length, 3);
    for (const [, s] of kinds) near(s, (Math.log(1 + (4 - 3 + 0.5) / (3 + 0.5)) * 1) / (1 + 1.2));
    for (const [, s] of await hits('body:fo*')) assert.equal(s, 1);
  });
});

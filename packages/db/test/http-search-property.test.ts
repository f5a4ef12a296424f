import assert from 'node:assert/strict';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import { formatQuery, type SyntaxQuery } from '../src/search/query-syntax.js';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * `_search` against a brute-force reading of the same queries: generated boolean queries of
 * terms, phrases, prefixes and numeric ranges over a seeded corpus, each asked over HTTP (on
 * SQLite, then on PostgreSQL) and checked hit for hit against a plain evaluation of Lucene's
 * rules over the documents' words.
 */
describe("full-text search, property: the hits are what Lucene's rules say", () => {
  let t: TestServer;
  const VOCABULARY = ['apple', 'apricot', 'banana', 'cherry', 'date', 'fig', 'grape', 'kiwi', 'lemon', 'mango'];
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const docs = Array.from({ length: 60 }, (_, i) => ({
    _id: `doc${String(i).padStart(2, '0')}`,
    text: Array.from(
      { length: 1 + Math.floor(random() * 8) },
      () => VOCABULARY[Math.floor(random() * VOCABULARY.length)],
    ).join(' '),
    n: Math.floor(random() * 100),
  }));

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/p');
    await t.request('POST', '/p/_bulk_docs', { body: { docs } });
    await t.request('PUT', '/p/_design/d', {
      body: { indexes: { i: { index: 'function (doc) { index("default", doc.text); index("n", doc.n); }' } } },
    });
  });
  after(() => t.close());

  type Doc = (typeof docs)[number];
  const words = (doc: Doc) => doc.text.split(' ');
  function matches(q: SyntaxQuery, doc: Doc): boolean {
    switch (q.type) {
      case 'term':
        return q.field === 'n' ? doc.n === Number(q.text) : words(doc).includes(q.text);
      case 'phrase': {
        const [a, b] = q.text.split(' ');
        const w = words(doc);
        return w.some((x, i) => x === a && w[i + 1] === b);
      }
      case 'prefix':
        return words(doc).some((w) => w.startsWith(q.prefix));
      case 'range':
        return (
          (q.lower === null || (q.includeLower ? doc.n >= Number(q.lower) : doc.n > Number(q.lower))) &&
          (q.upper === null || (q.includeUpper ? doc.n <= Number(q.upper) : doc.n < Number(q.upper)))
        );
      case 'bool': {
        const must = q.clauses.filter((c) => c.occur === 'must');
        const should = q.clauses.filter((c) => c.occur === 'should');
        if (must.length === 0 && should.length === 0) return false;
        if (q.clauses.some((c) => c.occur === 'must_not' && matches(c.query, doc))) return false;
        if (!must.every((c) => matches(c.query, doc))) return false;
        return must.length > 0 || should.some((c) => matches(c.query, doc));
      }
      default:
        throw new Error(`not generated: ${q.type}`);
    }
  }

  const word = fc.constantFrom(...VOCABULARY);
  const leaf: fc.Arbitrary<SyntaxQuery> = fc.oneof(
    word.map((text): SyntaxQuery => ({ type: 'term', field: 'default', text })),
    fc
      .tuple(word, word)
      .map(([a, b]): SyntaxQuery => ({ type: 'phrase', field: 'default', text: `${a} ${b}`, slop: 0 })),
    fc
      .constantFrom('a', 'ap', 'b', 'k', 'ma', 'z')
      .map((prefix): SyntaxQuery => ({ type: 'prefix', field: 'default', prefix })),
    fc.nat(100).map((n): SyntaxQuery => ({ type: 'term', field: 'n', text: String(n) })),
    fc
      .tuple(fc.option(fc.nat(100), { nil: null }), fc.option(fc.nat(100), { nil: null }), fc.boolean(), fc.boolean())
      .filter(([lower, upper]) => lower !== null || upper !== null)
      .map(
        ([lower, upper, includeLower, includeUpper]): SyntaxQuery => ({
          type: 'range',
          field: 'n',
          lower: lower === null ? null : String(lower),
          upper: upper === null ? null : String(upper),
          includeLower,
          includeUpper,
        }),
      ),
  );
  const query = fc.letrec<{ q: SyntaxQuery }>((tie) => ({
    q: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc
        .array(
          fc.tuple(fc.constantFrom('must', 'should', 'must_not'), tie('q')).map(([occur, q]) => ({ occur, query: q })),
          { minLength: 1, maxLength: 4 },
        )
        .filter((clauses) => clauses.length > 1 || clauses[0]!.occur !== 'should')
        .map((clauses) => ({ type: 'bool', clauses }) as SyntaxQuery),
    ),
  })).q;

  /** The documents as the database has them now (the second test changes them). */
  let corpus: Doc[] = docs;
  const checkQueries = (numRuns: number) =>
    fc.assert(
      fc.asyncProperty(query, async (q) => {
        const text = formatQuery(q);
        const r = await t.request('POST', '/p/_design/d/_search/i', { body: { q: text, limit: 200 } });
        assert.equal(r.status, 200, `${text}: ${JSON.stringify(r.json)}`);
        const found = (r.json.rows as { id: string }[]).map((row) => row.id).sort();
        const expected = corpus.filter((doc) => matches(q, doc)).map((doc) => doc._id);
        assert.deepEqual(found, expected, text);
        assert.equal(r.json.total_rows, expected.length, text);
        // Relevance order: scores never rise down the page.
        const scores = (r.json.rows as { order: number[] }[]).map((row) => row.order[0]!);
        for (let i = 1; i < scores.length; i++) assert.ok(scores[i]! <= scores[i - 1]!, text);
      }),
      { numRuns },
    );

  it('every generated query finds exactly the documents a brute-force reading finds', async () => {
    await checkQueries(150);
  });

  it('and again after documents changed, were deleted and were added (the index updated incrementally)', async () => {
    const current = (await t.request('POST', '/p/_all_docs', { body: { keys: docs.map((d) => d._id) } })).json.rows as {
      id: string;
      value: { rev: string };
    }[];
    const rev = new Map(current.map((row) => [row.id, row.value.rev]));
    const text = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 8) },
        () => VOCABULARY[Math.floor(random() * VOCABULARY.length)],
      ).join(' ');
    // Three rounds, each queried after: the postings in memory follow each update.
    for (let round = 0; round < 3; round++) {
      const changed = corpus.filter((_, i) => i % 5 === round).map((d) => ({ ...d, text: text(), n: d.n + 1 }));
      const deleted = corpus.filter((_, i) => i % 7 === round + 1 && i % 5 !== round);
      const added = Array.from({ length: 5 }, (_, i) => ({
        _id: `doc${round}-${String(i).padStart(2, '0')}`,
        text: text(),
        n: Math.floor(random() * 100),
      }));
      const body = [
        ...changed.map((d) => ({ ...d, _rev: rev.get(d._id) })),
        ...deleted.map((d) => ({ _id: d._id, _rev: rev.get(d._id), _deleted: true })),
        ...added,
      ];
      const results = (await t.request('POST', '/p/_bulk_docs', { body: { docs: body } })).json as {
        id: string;
        rev: string;
      }[];
      for (const r of results) {
        assert.ok(r.rev !== undefined, JSON.stringify(r));
        rev.set(r.id, r.rev);
      }
      const gone = new Set(deleted.map((d) => d._id));
      const byId = new Map(changed.map((d) => [d._id, d]));
      corpus = [...corpus.filter((d) => !gone.has(d._id)).map((d) => byId.get(d._id) ?? d), ...added].sort((a, b) =>
        a._id < b._id ? -1 : 1,
      );
      await checkQueries(40);
    }
  });
});

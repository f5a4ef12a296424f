// A search index kept up to date through many small updates (its postings' delta: documents
// put after the load wait beside the main postings, src/search/postings.ts) answers exactly as
// an index of the same function built afresh over the final documents: hits, scores, order,
// bookmarks, sort, facets, groups, drilldown and highlights (run on SQLite, then on PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startTestServer, testStorage, type TestServer } from './support/server.js';

const WORDS = ['fox', 'dog', 'quick', 'lazy', 'brown', 'jumps', 'sleeps', 'river', 'stone', 'the'];
const TAGS = ['red', 'green', 'blue'];

const INDEX = `function (doc) {
  if (doc.text) { index("default", doc.text, {store: true}); index("text", doc.text); }
  if (doc.tag) index("tag", doc.tag, {store: true, facet: true});
  if (typeof doc.n === "number") index("n", doc.n, {store: true, facet: true});
}`;

const QUERIES: Record<string, string>[] = [
  { q: 'fox', limit: '50' },
  { q: 'fox OR dog OR river', limit: '5' },
  { q: '"quick brown"', limit: '50' },
  { q: 'text:jump* AND NOT lazy', limit: '50' },
  { q: 'stone~1', limit: '50' },
  { q: 'n:[2 TO 7]', sort: '"-n<number>"', limit: '50' },
  { q: 'fox', counts: '["tag"]', ranges: '{"n":{"low":"[0 TO 4]","high":"{4 TO Infinity]"}}' },
  { q: 'the', group_field: 'tag', limit: '3' },
  { q: 'the', drilldown: '["tag","red"]', limit: '50' },
  { q: 'quick', highlight_fields: '["default"]', limit: '50' },
];

describe('a search index after many small updates', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ storage: testStorage() });
  });
  after(() => t.close());

  /** Every query's answer, and the second page of each (its bookmark). */
  async function answers(db: string, index: string): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const query of QUERIES) {
      const path = `/${db}/_design/s/_search/${index}`;
      const first = await t.request('GET', `${path}?${new URLSearchParams(query)}`);
      assert.equal(first.status, 200, first.text);
      out.push(first.json);
      if (query.group_field === undefined && first.json.bookmark !== undefined) {
        const params = new URLSearchParams({ ...query, bookmark: first.json.bookmark });
        out.push((await t.request('GET', `${path}?${params}`)).json);
      }
    }
    return out;
  }

  test('answers as an index built afresh over the same documents', async () => {
    const doc = fc.record({
      text: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((words) => words.join(' ')),
      tag: fc.constantFrom(...TAGS),
      n: fc.integer({ min: 0, max: 9 }),
    });
    /** A round of changes: which of 30 documents to write (a new text) or delete. */
    const round = fc.array(fc.record({ i: fc.integer({ min: 0, max: 29 }), doc, del: fc.boolean() }), {
      minLength: 1,
      maxLength: 6,
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(doc, { minLength: 30, maxLength: 30 }),
        fc.array(round, { maxLength: 6 }),
        async (initial, rounds) => {
          const db = `updates${run++}`;
          assert.equal((await t.request('PUT', `/${db}`)).status, 201);
          const ddoc = { indexes: { kept: { index: INDEX } } };
          assert.equal((await t.request('PUT', `/${db}/_design/s`, { body: ddoc })).status, 201);
          const revs = new Map<string, string>();
          const write = async (docs: Record<string, unknown>[]) => {
            const r = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
            for (const row of r.json as { id: string; rev: string }[]) revs.set(row.id, row.rev);
          };
          await write(initial.map((d, i) => ({ _id: `d${String(i).padStart(2, '0')}`, ...d })));
          // The kept index is built and loaded, then takes each round in with a query.
          await answers(db, 'kept');
          for (const [k, changes] of rounds.entries()) {
            const docs = new Map<string, Record<string, unknown>>();
            for (const { i, doc: d, del } of changes) {
              const id = `d${String(i).padStart(2, '0')}`;
              const rev = revs.get(id);
              docs.set(
                id,
                del && rev !== undefined
                  ? { _id: id, _rev: rev, _deleted: true }
                  : { _id: id, ...(rev === undefined ? {} : { _rev: rev }), ...d },
              );
            }
            await write([...docs.values()]);
            for (const [id, d] of docs) if (d._deleted) revs.delete(id);
            // The last round is taken in by the first of the answers below: answered from the
            // postings while the rows' update waits (src/search/search-docs-tree.ts `settle`).
            if (k < rounds.length - 1) await t.request('GET', `/${db}/_design/s/_search/kept?q=fox`);
          }
          const kept = await answers(db, 'kept');
          // The same function under another name: built afresh over the final documents.
          const current = (await t.request('GET', `/${db}/_design/s`)).json;
          current.indexes.fresh = { index: INDEX };
          assert.equal((await t.request('PUT', `/${db}/_design/s`, { body: current })).status, 201);
          assert.deepEqual(kept, await answers(db, 'fresh'));
          await t.request('DELETE', `/${db}`);
        },
      ),
      { numRuns: 8 },
    );
  });
});

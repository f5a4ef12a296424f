// A search index whose function is of the views' common shape (run without the sandbox:
// src/search/search-mapper.ts) answers, built and updated, as the same function run in the
// sandbox (run on SQLite, then on PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compileShape } from '../src/views/native-map/map-shape.js';
import { startTestServer, testStorage, type TestServer } from './support/server.js';

describe('a search index of the shape, built and updated', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ storage: testStorage() });
  });
  after(() => t.close());

  test('answers as the same function run in the sandbox, documents it throws on included', async () => {
    assert.equal((await t.request('PUT', '/shapes')).status, 201);
    const index = `function (doc) {
      if (doc.title) { index("default", doc.title); index("title", doc.title, {store: true}); }
      if (doc.meta.tag) index("tag", doc.meta.tag, {store: true, facet: true});
      if (typeof doc.n === "number") index("n", doc.n, {store: true, facet: true});
    }`;
    // The same function, and with a statement outside the shape (`var`): run in the sandbox.
    const boxed = index.replace('{', '{ var unused = 1;');
    assert.notEqual(compileShape(index, 'index'), undefined);
    assert.equal(compileShape(boxed, 'index'), undefined);
    const ddoc = await t.request('PUT', '/shapes/_design/s', {
      body: { indexes: { here: { index }, sandbox: { index: boxed } } },
    });
    assert.equal(ddoc.status, 201);
    const docs = (round: number) =>
      Array.from({ length: 40 }, (_, i) => ({
        _id: `d${String(i).padStart(2, '0')}`,
        n: (i * 7) % 13,
        title: `${['red', 'green', 'blue'][i % 3]} fox ${i % 4 === 0 ? 'jumps' : 'sleeps'} round${round}`,
        // No meta: a member of undefined, the sandbox's error (the document is not indexed).
        ...(i % 5 === 0 ? {} : { meta: i % 7 === 0 ? { tag: 7 } : { tag: `g${i % 3}` } }),
      }));
    const written = (await t.request('POST', '/shapes/_bulk_docs', { body: { docs: docs(0) } })).json as {
      rev: string;
    }[];
    const queries: Record<string, string>[] = [
      { q: 'fox', limit: '100' },
      { q: 'title:red OR n:[3 TO 9]', limit: '100', sort: '"-n<number>"' },
      { q: 'jumps', counts: '["tag"]', ranges: '{"n":{"low":"[0 TO 5]","high":"{5 TO Infinity]"}}' },
      { q: 'fox', group_field: 'tag', limit: '3' },
      { q: 'round1', limit: '100' },
    ];
    const compare = async () => {
      for (const query of queries) {
        const params = new URLSearchParams(query);
        const here = await t.request('GET', `/shapes/_design/s/_search/here?${params}`);
        const there = await t.request('GET', `/shapes/_design/s/_search/sandbox?${params}`);
        assert.equal(here.status, 200, here.text);
        assert.deepEqual(here.json, there.json, JSON.stringify(query));
      }
    };
    await compare();
    const first = await t.request('GET', '/shapes/_design/s/_search/here?q=fox&limit=100');
    assert.ok(first.json.total_rows > 0 && first.json.total_rows < 40);
    const next = docs(1).map((doc, i) => ({
      ...doc,
      _rev: written[i]!.rev,
      ...(i % 4 === 0 ? { meta: { tag: 'late' } } : {}),
    }));
    await t.request('POST', '/shapes/_bulk_docs', { body: { docs: next } });
    await compare();
  });
});

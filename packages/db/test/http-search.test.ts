import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dropSchema } from './support/postgres.js';
import { startTestServer, testStorage, type TestServer } from './support/server.js';

/**
 * `_search` and `_search_info` over HTTP (run on SQLite, then on PostgreSQL): one test per
 * parameter and query construct, against a small library of documents.
 */
describe('full-text search over HTTP', () => {
  let t: TestServer;
  const search = (q: string, extra: Record<string, string> = {}) =>
    t.request('GET', `/s/_design/lib/_search/books?${new URLSearchParams({ q, ...extra })}`);
  const ids = (r: { json: { rows: { id: string }[] } }) => r.json.rows.map((row) => row.id).sort();

  const INDEX = `function (doc) {
    if (doc.title) { index("default", doc.title); index("title", doc.title, {store: true}); }
    if (doc.body) index("body", doc.body);
    if (typeof doc.year === "number") index("year", doc.year, {store: true, facet: true});
    if (doc.tag) index("tag", doc.tag, {store: true, facet: true});
    if (doc.flag !== undefined) index("flag", doc.flag);
    if (doc.secret) index("secret", doc.secret, {index: false, store: true});
  }`;

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/s');
    const docs = [
      { _id: 'a', title: 'The Quick Brown Fox', body: 'the fox jumps over the lazy dog', year: 2001, tag: 'Animals' },
      { _id: 'b', title: 'Lazy Dogs Sleeping', body: 'dogs sleep all day', year: 1999, tag: 'Animals' },
      { _id: 'c', title: 'Quick Search Engines', body: 'full text search without a JVM', year: 2020, tag: 'Tech' },
      { _id: 'd', title: 'Brown Bread Recipes', body: 'bake bread at home', year: 2015, tag: 'Food' },
      {
        _id: 'e',
        title: 'Foxes and Hounds',
        body: 'a fox runs from the hounds',
        year: 2010,
        tag: 'Animals',
        flag: true,
        secret: 'xyz',
      },
    ];
    await t.request('POST', '/s/_bulk_docs', { body: { docs } });
    const ddoc = await t.request('PUT', '/s/_design/lib', {
      body: {
        indexes: {
          books: { index: INDEX, analyzer: { name: 'perfield', default: 'standard', fields: { tag: 'keyword' } } },
          english: { index: 'function (doc) { if (doc.body) index("default", doc.body); }', analyzer: 'english' },
        },
      },
    });
    assert.equal(ddoc.status, 201);
  });
  after(() => t.close());

  it('answers total_rows, bookmark and rows with id, order and stored fields', async () => {
    const r = await search('fox');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json), ['total_rows', 'bookmark', 'rows']);
    assert.equal(r.json.total_rows, 1);
    assert.equal(typeof r.json.bookmark, 'string');
    const [row] = r.json.rows;
    assert.deepEqual(Object.keys(row), ['id', 'order', 'fields']);
    assert.equal(row.id, 'a');
    assert.equal(row.order.length, 2);
    assert.equal(typeof row.order[0], 'number');
    assert.deepEqual(row.fields, { title: 'The Quick Brown Fox', year: 2001, tag: 'Animals' });
  });

  it('POST takes the same parameters in a JSON body, `query` for `q`', async () => {
    const r = await t.request('POST', '/s/_design/lib/_search/books', { body: { query: 'body:fox', limit: 1 } });
    assert.equal(r.status, 200);
    assert.equal(r.json.total_rows, 2);
    assert.equal(r.json.rows.length, 1);
  });

  it('terms, fields, phrases with slop', async () => {
    assert.deepEqual(ids(await search('body:fox')), ['a', 'e']);
    assert.deepEqual(ids(await search('body:"lazy dog"')), ['a']);
    assert.deepEqual(ids(await search('body:"dog lazy"')), []);
    assert.deepEqual(ids(await search('body:"fox lazy"~3')), ['a']);
    assert.deepEqual(ids(await search('body:"fox lazy"~2')), []);
  });

  it('boolean operators and grouping', async () => {
    assert.deepEqual(ids(await search('+body:fox -tag:Animals')), []);
    assert.deepEqual(ids(await search('body:fox AND year:2010')), ['e']);
    assert.deepEqual(ids(await search('title:quick OR title:bread')), ['a', 'c', 'd']);
    assert.deepEqual(ids(await search('body:fox NOT title:foxes')), ['a']);
    assert.deepEqual(ids(await search('tag:Animals AND (title:lazy OR title:hounds)')), ['b', 'e']);
    assert.deepEqual(ids(await search('-body:fox')), []);
  });

  it('prefix, wildcard, fuzzy and match-all queries', async () => {
    assert.deepEqual(ids(await search('title:qui*')), ['a', 'c']);
    assert.deepEqual(ids(await search('title:br?wn')), ['a', 'd']);
    assert.deepEqual(ids(await search('title:B*D')), ['d']);
    assert.deepEqual(ids(await search('title:quack~1')), ['a', 'c']);
    assert.deepEqual(ids(await search('title:quack~0')), []);
    assert.equal((await search('*:*')).json.total_rows, 5);
  });

  it('numeric and string ranges, inclusive and exclusive, open ends; numeric terms', async () => {
    assert.deepEqual(ids(await search('year:[2000 TO 2015]')), ['a', 'd', 'e']);
    assert.deepEqual(ids(await search('year:{2001 TO 2015}')), ['e']);
    assert.deepEqual(ids(await search('year:[2010 TO *]')), ['c', 'd', 'e']);
    assert.deepEqual(ids(await search('year:1999')), ['b']);
    assert.deepEqual(ids(await search('title:[a TO c]')), ['a', 'd']);
    assert.deepEqual(ids(await search('title:{brown TO fox}')), ['b', 'c']);
  });

  it('booleans, not-analyzed fields (keyword analyzer per field), unindexed stored fields', async () => {
    assert.deepEqual(ids(await search('flag:true')), ['e']);
    assert.deepEqual(ids(await search('tag:Animals')), ['a', 'b', 'e']);
    assert.deepEqual(ids(await search('tag:animals')), []);
    assert.deepEqual(ids(await search('secret:xyz')), []);
    assert.deepEqual((await search('title:hounds')).json.rows[0].fields.secret, 'xyz');
  });

  it('the english analyzer stems documents and queries alike', async () => {
    const r = await t.request('GET', '/s/_design/lib/_search/english?q=sleeping');
    assert.deepEqual(ids(r), ['b']);
    assert.deepEqual(ids(await t.request('GET', '/s/_design/lib/_search/english?q=running')), ['e']);
  });

  it('scores: relevance first, boosts change the order', async () => {
    const r = await search('body:fox body:lazy');
    assert.deepEqual(
      r.json.rows.map((row: { id: string }) => row.id),
      ['a', 'e'],
    );
    assert.ok(r.json.rows[0].order[0] > r.json.rows[1].order[0]);
    // Same idf and field length: the boost alone decides.
    assert.equal((await search('title:lazy title:bread^10')).json.rows[0].id, 'd');
    assert.equal((await search('title:lazy^10 title:bread')).json.rows[0].id, 'b');
  });

  it('sort by number or string fields, both directions, and by relevance', async () => {
    const order = async (sort: string) =>
      (await search('*:*', { sort })).json.rows.map((row: { id: string }) => row.id);
    assert.deepEqual(await order('"year"'), ['b', 'a', 'e', 'd', 'c']);
    assert.deepEqual(await order('"-year<number>"'), ['c', 'd', 'e', 'a', 'b']);
    assert.deepEqual(await order('year'), ['b', 'a', 'e', 'd', 'c']);
    assert.deepEqual(await order('["tag<string>","-year"]'), ['e', 'a', 'b', 'd', 'c']);
    const sorted = await search('*:*', { sort: '"year"' });
    assert.deepEqual(sorted.json.rows[0].order[0], 1999);
    const byScore = await search('body:fox', { sort: '["-<score>"]' });
    assert.equal(byScore.status, 200);
    assert.equal(byScore.json.rows.length, 2);
  });

  it('limit and bookmark page through every hit once', async () => {
    for (const sort of [undefined, '"-year"']) {
      const seen: string[] = [];
      let bookmark: string | undefined;
      for (let page = 0; page < 4; page++) {
        const r = await search('*:*', { limit: '2', ...(sort ? { sort } : {}), ...(bookmark ? { bookmark } : {}) });
        assert.equal(r.json.total_rows, 5);
        seen.push(...r.json.rows.map((row: { id: string }) => row.id));
        bookmark = r.json.bookmark;
      }
      assert.deepEqual([...seen].sort(), ['a', 'b', 'c', 'd', 'e']);
    }
    assert.equal((await search('*:*', { limit: '0' })).json.rows.length, 0);
  });

  it('counts and ranges facets over the hits, after the rows', async () => {
    const r = await search('*:*', {
      counts: '["tag"]',
      ranges: '{"year":{"old":"[* TO 2005]","new":"{2005 TO Infinity]"}}',
      limit: '0',
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(Object.keys(r.json), ['total_rows', 'bookmark', 'rows', 'counts', 'ranges']);
    assert.deepEqual(r.json.counts, { tag: { Animals: 3, Food: 1, Tech: 1 } });
    assert.deepEqual(Object.keys(r.json.counts.tag), ['Animals', 'Food', 'Tech']);
    assert.deepEqual(r.json.ranges, { year: { old: 2, new: 3 } });
    const narrowed = await search('body:fox', { counts: '["tag"]' });
    assert.deepEqual(narrowed.json.counts, { tag: { Animals: 2 } });
    assert.equal((await search('*:*', { ranges: '{"year":{"bad":"year:foo"}}' })).status, 400);
    assert.equal((await search('*:*', { counts: '"tag"' })).status, 400);
  });

  it('drilldown narrows to facet values: one field any value, several fields all', async () => {
    assert.deepEqual(ids(await search('*:*', { drilldown: '["tag","Food"]' })), ['d']);
    const either = await t.request(
      'GET',
      `/s/_design/lib/_search/books?q=*:*&drilldown=${encodeURIComponent('["tag","Food"]')}&drilldown=${encodeURIComponent('["tag","Tech"]')}`,
    );
    assert.deepEqual(ids(either), ['c', 'd']);
    assert.deepEqual(ids(await search('*:*', { drilldown: '["tag","Food","Tech"]' })), ['c', 'd']);
    const posted = await t.request('POST', '/s/_design/lib/_search/books', {
      body: {
        q: 'year:[2000 TO 2020]',
        drilldown: [
          ['tag', 'Animals'],
          ['tag', 'Tech'],
        ],
        counts: ['tag'],
      },
    });
    assert.deepEqual(ids(posted), ['a', 'c', 'e']);
    assert.deepEqual(posted.json.counts, { tag: { Animals: 2, Tech: 1 } });
    assert.equal((await search('*:*', { drilldown: '["tag"]' })).status, 400);
  });

  it('group_field groups the hits by a field: group_limit groups, group_sort their order, limit and sort within', async () => {
    const by = (r: { json: { groups: { by: string; total_rows: number; rows: { id: string }[] }[] } }) =>
      r.json.groups.map((g) => [g.by, g.total_rows, g.rows.map((row) => row.id)]);
    const plain = await search('*:*', { group_field: 'tag' });
    assert.equal(plain.status, 200, JSON.stringify(plain.json));
    assert.deepEqual(Object.keys(plain.json), ['total_rows', 'groups']);
    assert.equal(plain.json.total_rows, 5);
    assert.deepEqual(Object.keys(plain.json.groups[0]), ['by', 'total_rows', 'rows']);
    assert.deepEqual(by(plain), [
      ['Animals', 3, ['a', 'b', 'e']],
      ['Tech', 1, ['c']],
      ['Food', 1, ['d']],
    ]);
    assert.deepEqual(
      by(await search('*:*', { group_field: 'tag', group_sort: '"year"' })).map((g) => g[0]),
      ['Animals', 'Food', 'Tech'],
    );
    assert.deepEqual(by(await search('*:*', { group_field: 'tag', group_limit: '2', sort: '"-year"', limit: '2' })), [
      ['Animals', 3, ['e', 'a']],
      ['Tech', 1, ['c']],
    ]);
    assert.equal((await search('*:*', { group_limit: '2' })).status, 400);
    assert.equal((await search('*:*', { group_field: 'tag', group_limit: '0' })).status, 400);
  });

  it('highlight_fields marks what the query matched in stored text', async () => {
    const r = await search('title:fox', { highlight_fields: '["title"]' });
    assert.deepEqual(Object.keys(r.json.rows[0]), ['id', 'order', 'fields', 'highlights']);
    assert.deepEqual(r.json.rows[0].highlights, { title: ['The Quick Brown <em>Fox</em>'] });
    const prefix = await search('title:qui* AND title:brown', {
      highlight_fields: '["title","body"]',
      highlight_pre_tag: '[',
      highlight_post_tag: ']',
    });
    assert.deepEqual(prefix.json.rows[0].highlights, { title: ['The [Quick] [Brown] Fox'], body: [] });
    const narrow = await search('title:lazy', {
      highlight_fields: '["title"]',
      highlight_size: '10',
      highlight_number: '1',
    });
    assert.deepEqual(narrow.json.rows[0].highlights.title.length, 1);
    assert.match(narrow.json.rows[0].highlights.title[0], /<em>Lazy<\/em>/);
    assert.equal((await search('x', { highlight_pre_tag: '<b>' })).status, 400);
    assert.equal((await search('x', { highlight_fields: '"title"' })).status, 400);
  });

  it('include_docs and include_fields', async () => {
    const docs = await search('year:1999', { include_docs: 'true' });
    assert.equal(docs.json.rows[0].doc._id, 'b');
    assert.equal(docs.json.rows[0].doc.title, 'Lazy Dogs Sleeping');
    const fields = await search('year:1999', { include_fields: '["year"]' });
    assert.deepEqual(fields.json.rows[0].fields, { year: 1999 });
  });

  it('follows the database incrementally; stale=ok and update=false answer from the index as it is', async () => {
    await t.request('PUT', '/s/f', { body: { title: 'Fox Tales', body: 'another fox story', year: 2021 } });
    assert.deepEqual(ids(await search('body:fox')), ['a', 'e', 'f']);
    const e = await t.request('GET', '/s/e');
    await t.request('DELETE', `/s/e?rev=${e.json._rev}`);
    await t.request('PUT', '/s/g', { body: { body: 'a fox again' } });
    assert.deepEqual(ids(await search('body:fox', { stale: 'ok' })), ['a', 'e', 'f']);
    assert.deepEqual(ids(await search('body:fox', { update: 'false' })), ['a', 'e', 'f']);
    // update_after: this answer as the index is, the update after it.
    assert.deepEqual(ids(await search('body:fox', { stale: 'update_after' })), ['a', 'e', 'f']);
    let later: string[] = [];
    for (let i = 0; i < 100; i++) {
      later = ids(await search('body:fox', { stale: 'ok' }));
      if (later.includes('g')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(later, ['a', 'f', 'g']);
    assert.equal((await search('body:fox', { stale: 'later' })).status, 400);
    assert.deepEqual(ids(await search('body:fox')), ['a', 'f', 'g']);
    const f = await t.request('GET', '/s/f');
    await t.request('PUT', '/s/f', { body: { ...f.json, body: 'no animals here' } });
    assert.deepEqual(ids(await search('body:fox')), ['a', 'g']);
  });

  it('_active_tasks shows a build as a search_indexer of its index', async () => {
    await t.request('PUT', '/big');
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      _id: `d${i}`,
      text: `word${i % 50} common text number ${i}`,
    }));
    await t.request('POST', '/big/_bulk_docs', { body: { docs } });
    // A function the sandbox runs (a `var`; one of the common shape is mapped on the server's
    // thread), made to take its time on each document (a loop whose sum it uses): however fast
    // the analyzer gets, the build lasts several polls.
    const slow =
      'function (doc) { var s = 0; for (var j = 0; j < 100000; j++) s += j; var text = s < 0 ? "" : doc.text; index("default", text); }';
    await t.request('PUT', '/big/_design/t', { body: { indexes: { words: { index: slow } } } });
    const running = t.request('GET', '/big/_design/t/_search/words?q=common');
    let seen: { type: string; index?: string; design_document: string } | undefined;
    for (let i = 0; i < 200 && seen === undefined; i++) {
      const tasks = (await t.request('GET', '/_active_tasks')).json as {
        type: string;
        index?: string;
        design_document: string;
      }[];
      seen = tasks.find((task) => task.type === 'search_indexer');
      if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal((await running).json.total_rows, 3000);
    assert.ok(seen !== undefined, 'the build showed in _active_tasks');
    assert.equal(seen.index, 'words');
    assert.equal(seen.design_document, '_design/t');
  });

  it('_view_cleanup and _search_cleanup keep the indexes in use', async () => {
    const before = (await t.request('GET', '/s/_design/lib/_search_info/books')).json.search_index;
    assert.equal((await t.request('POST', '/s/_view_cleanup', { body: {} })).status, 202);
    assert.deepEqual((await t.request('POST', '/s/_search_cleanup', { body: {} })).json, { ok: true });
    const after = (await t.request('GET', '/s/_design/lib/_search_info/books')).json.search_index;
    assert.equal(after.committed_seq, before.committed_seq);
    assert.ok(after.committed_seq > 0);
    assert.deepEqual(ids(await search('body:fox', { stale: 'ok' })), ['a', 'g']);
  });

  it("/_search_analyze gives an analyzer's terms", async () => {
    const r = await t.request('POST', '/_search_analyze', { body: { analyzer: 'english', text: "The Dog's running" } });
    assert.deepEqual([r.status, r.json], [200, { tokens: ['dog', 'run'] }]);
    const keyword = await t.request('POST', '/_search_analyze', { body: { analyzer: 'keyword', text: 'A B' } });
    assert.deepEqual(keyword.json, { tokens: ['A B'] });
    const missing = await t.request('POST', '/_search_analyze', { body: { text: 'x' } });
    assert.deepEqual([missing.status, missing.json.reason], [400, 'analyzer parameter is mandatory']);
    assert.equal((await t.request('POST', '/_search_analyze', { body: { analyzer: 'nope', text: 'x' } })).status, 400);
    assert.equal((await t.request('GET', '/_search_analyze')).status, 405);
  });

  it('_search_info', async () => {
    const r = await t.request('GET', '/s/_design/lib/_search_info/books');
    assert.equal(r.status, 200);
    assert.equal(r.json.name, '_design/lib/books');
    assert.deepEqual(Object.keys(r.json.search_index).sort(), [
      'committed_seq',
      'disk_size',
      'doc_count',
      'doc_del_count',
      'pending_seq',
    ]);
    assert.equal(typeof r.json.search_index.doc_count, 'number');
  });

  it('errors in CouchDB shapes: 400 for a bad query or parameter, 404 for a missing index', async () => {
    const bad = await search('title:(');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'bad_request');
    assert.match(bad.json.reason, /^Cannot parse 'title:\('/);
    const noQuery = await t.request('GET', '/s/_design/lib/_search/books');
    assert.equal(noQuery.status, 400);
    assert.equal(noQuery.json.error, 'query_parse_error');
    assert.equal((await search('x', { limit: '500' })).status, 400);
    assert.equal((await search('x', { limit: 'ten' })).status, 400);
    assert.equal((await search('x', { sort: '"year<date>"' })).status, 400);
    assert.equal((await search('x', { bookmark: '!!' })).status, 400);
    assert.equal((await search('x', { include_docs: 'maybe' })).status, 400);
    assert.equal((await search('x', { frobnicate: '1' })).status, 400);
    const missing = await t.request('GET', '/s/_design/lib/_search/nope?q=x');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'not_found');
    assert.equal((await t.request('GET', '/s/_design/nope/_search/books?q=x')).status, 404);
    assert.equal((await t.request('PUT', '/s/_design/lib/_search/books')).status, 405);
  });

  it('refuses a partition in a database that is not partitioned, and a Nouveau index it does not have', async () => {
    // Partitioned databases' searches: http-search-partitioned.
    const partition = await search('x', { partition: 'p' });
    assert.deepEqual(
      [partition.status, partition.json.error, partition.json.reason],
      [400, 'bad_request', '`partition` not supported on this index'],
    );
    // A Nouveau index is another member of the design document (http-nouveau): this one has none.
    const nouveau = await t.request('GET', '/s/_design/lib/_nouveau/books?q=x');
    assert.deepEqual([nouveau.status, nouveau.json.error], [404, 'not_found']);
  });

  it('an unknown analyzer or an index function that does not compile is a 400', async () => {
    await t.request('PUT', '/s/_design/broken', {
      body: {
        indexes: {
          klingon: { index: 'function (doc) { index("default", doc.title); }', analyzer: 'klingon' },
          syntax: { index: 'function (doc) { index(' },
        },
      },
    });
    const analyzer = await t.request('GET', '/s/_design/broken/_search/klingon?q=x');
    assert.equal(analyzer.status, 400);
    assert.match(analyzer.json.reason, /klingon/);
    const syntax = await t.request('GET', '/s/_design/broken/_search/syntax?q=x');
    assert.equal(syntax.status, 400);
    assert.equal(syntax.json.error, 'compilation_error');
  });

  it('the index is kept in storage: after a restart it answers at once, as it was', async () => {
    const storage = testStorage();
    const first = await startTestServer(storage === undefined ? {} : { storage });
    const second: TestServer[] = [];
    try {
      await first.request('PUT', '/keep');
      await first.request('POST', '/keep/_bulk_docs', {
        body: {
          docs: [
            { _id: 'x', text: 'kept words' },
            { _id: 'y', text: 'other words' },
          ],
        },
      });
      await first.request('PUT', '/keep/_design/d', {
        body: { indexes: { i: { index: 'function (doc) { index("default", doc.text, {store: true}); }' } } },
      });
      const before = await first.request('GET', '/keep/_design/d/_search/i?q=words');
      assert.equal(before.json.total_rows, 2);
      const info = (await first.request('GET', '/keep/_design/d/_search_info/i')).json.search_index;
      await first.stop();
      second.push(await startTestServer({ dataDir: first.dataDir, ...(storage === undefined ? {} : { storage }) }));
      const again = second[0]!;
      const after = (await again.request('GET', '/keep/_design/d/_search_info/i')).json.search_index;
      assert.equal(after.committed_seq, info.committed_seq);
      assert.equal(after.doc_count, 2);
      const stale = await again.request('GET', '/keep/_design/d/_search/i?q=kept&stale=ok');
      assert.deepEqual(
        stale.json.rows.map((r: { id: string }) => r.id),
        ['x'],
      );
      assert.deepEqual(stale.json.rows[0].fields, { default: 'kept words' });
    } finally {
      for (const s of second) await s.close();
      await first.close();
      if (storage !== undefined) await dropSchema(storage.url, storage.schema);
    }
  });

  it("scores a lone term as Lucene's DefaultSimilarity does", async () => {
    await t.request('PUT', '/one');
    await t.request('PUT', '/one/x', { body: { text: 'word' } });
    await t.request('PUT', '/one/_design/d', {
      body: { indexes: { i: { index: 'function (doc) { index("default", doc.text); }' } } },
    });
    const r = await t.request('GET', '/one/_design/d/_search/i?q=word');
    // idf(docFreq=1, maxDocs=1) = 1 + ln(1/2); tf 1, fieldNorm 1.
    assert.ok(Math.abs(r.json.rows[0].order[0] - 0.30685282) < 1e-6, String(r.json.rows[0].order[0]));
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * `_nouveau`, `_nouveau_info`, `_nouveau_cleanup` and `/_nouveau_analyze` over HTTP (run on
 * SQLite, then on PostgreSQL): Nouveau's typed index function, its parameters and its answer's
 * shape, per CouchDB 3.5's docs and nouveau_httpd.
 */
describe('Nouveau over HTTP', () => {
  let t: TestServer;
  const nouveau = (params: Record<string, string>) =>
    t.request('GET', `/n/_design/zoo/_nouveau/animals?${new URLSearchParams(params)}`);
  const ids = (r: { json: { hits: { id: string }[] } }) => r.json.hits.map((hit) => hit.id);

  const INDEX = `function (doc) {
    if (typeof doc.min_length == 'number') index("double", "min_length", doc.min_length, {"store": true});
    if (typeof doc.diet == 'string') index("string", "diet", doc.diet, {"store": true});
    if (typeof doc.class == 'string') index("string", "class", doc.class);
    if (typeof doc.latin_name == 'string') index("text", "latin_name", doc.latin_name, {"store": true});
    if (typeof doc.notes == 'string') index("text", "default", doc.notes);
    if (typeof doc.notes == 'string') index("text", "stemmed", doc.notes);
    if (doc.keeper) index("stored", "keeper", doc.keeper);
    if (doc.bad) index("double", "bad", doc.bad);
  }`;

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/n');
    const docs = [
      {
        _id: 'badger',
        min_length: 0.6,
        diet: 'omnivore',
        class: 'mammal',
        latin_name: 'Meles meles',
        notes: 'the badger digs setts',
        keeper: 'Ann',
      },
      {
        _id: 'kookaburra',
        min_length: 0.28,
        diet: 'carnivore',
        class: 'bird',
        latin_name: 'Dacelo novaeguineae',
        notes: 'laughing birds',
      },
      {
        _id: 'llama',
        min_length: 1.7,
        diet: 'herbivore',
        class: 'mammal',
        latin_name: 'Lama glama',
        notes: 'llamas are running',
      },
      {
        _id: 'panda',
        min_length: 1.2,
        diet: 'herbivore',
        class: 'mammal',
        latin_name: 'Ailuropoda melanoleuca',
        notes: 'eats bamboo',
      },
      {
        _id: 'snipe',
        min_length: 0.25,
        diet: 'omnivore',
        class: 'bird',
        latin_name: 'Gallinago gallinago',
        notes: 'the snipe hides',
        keeper: 7,
      },
      { _id: 'typo', diet: 'omnivore', bad: 'not a number' },
    ];
    assert.equal((await t.request('POST', '/n/_bulk_docs', { body: { docs } })).status, 201);
    const ddoc = await t.request('PUT', '/n/_design/zoo', {
      body: {
        nouveau: {
          animals: { index: INDEX, field_analyzers: { stemmed: 'english' } },
          noindex: { default_analyzer: 'standard' },
          klingon: { index: 'function (doc) { index("text", "default", "x"); }', default_analyzer: 'klingon' },
        },
      },
    });
    assert.equal(ddoc.status, 201);
  });
  after(() => t.close());

  it("answers Nouveau's shape: bookmark, counts, hits (fields, id, order), ranges, total_hits", async () => {
    const r = await nouveau({ q: 'diet:carnivore' });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json), [
      'bookmark',
      'counts',
      'hits',
      'ranges',
      'total_hits',
      'total_hits_relation',
    ]);
    assert.equal(r.json.total_hits, 1);
    assert.equal(r.json.total_hits_relation, 'EQUAL_TO');
    assert.equal(r.json.counts, null);
    assert.equal(r.json.ranges, null);
    assert.equal(typeof r.json.bookmark, 'string');
    const [hit] = r.json.hits;
    assert.deepEqual(Object.keys(hit), ['fields', 'id', 'order']);
    assert.equal(hit.id, 'kookaburra');
    assert.deepEqual(hit.fields, { min_length: 0.28, diet: 'carnivore', latin_name: 'Dacelo novaeguineae' });
    // By relevance: the score as a float, then the id.
    assert.equal(hit.order.length, 2);
    assert.equal(hit.order[0]['@type'], 'float');
    assert.equal(typeof hit.order[0].value, 'number');
    assert.deepEqual(hit.order[1], { '@type': 'string', value: 'kookaburra' });
  });

  it('typed fields: text analyzed, string one term as written, double numeric, stored only returned', async () => {
    assert.deepEqual(ids(await nouveau({ q: 'latin_name:meles' })), ['badger']);
    assert.deepEqual(ids(await nouveau({ q: 'latin_name:"Meles meles"' })), ['badger']);
    // A string field is one term: its words are not terms of their own.
    assert.deepEqual(ids(await nouveau({ q: 'class:mammal', sort: '"_id<string>"' })), ['badger', 'llama', 'panda']);
    assert.deepEqual(ids(await nouveau({ q: 'min_length:[1 TO 3]', sort: '"_id<string>"' })), ['llama', 'panda']);
    assert.deepEqual(ids(await nouveau({ q: 'class:mammal AND min_length:[1.5 TO Infinity]' })), ['llama']);
    assert.deepEqual(ids(await nouveau({ q: 'diet:herbivore AND min_length:[-Infinity TO 1.5]' })), ['panda']);
    assert.deepEqual(ids(await nouveau({ q: 'keeper:ann' })), []);
    const stored = await nouveau({ q: 'class:bird', sort: '"_id<string>"' });
    assert.equal(stored.json.hits[1].fields.keeper, 7);
    assert.equal((await nouveau({ q: 'latin_name:meles' })).json.hits[0].fields.keeper, 'Ann');
    // A value of the wrong type throws in the index function: that document has no fields.
    assert.deepEqual(ids(await nouveau({ q: 'diet:omnivore', sort: '"_id<string>"' })), ['badger', 'snipe']);
  });

  it('default field, Lucene 9 analyzers: standard keeps stop words, field_analyzers per field', async () => {
    assert.deepEqual(ids(await nouveau({ q: 'the', sort: '"_id<string>"' })), ['badger', 'snipe']);
    assert.deepEqual(ids(await nouveau({ q: 'running' })), ['llama']);
    assert.deepEqual(ids(await nouveau({ q: 'run' })), []);
    assert.deepEqual(ids(await nouveau({ q: 'stemmed:run' })), ['llama']);
    assert.deepEqual(ids(await nouveau({ q: 'stemmed:the' })), []);
  });

  it('sort by string and double fields, both directions, with typed order values', async () => {
    const bySize = await nouveau({ q: '*:*', sort: '"-min_length<double>"', limit: '3' });
    assert.deepEqual(ids(bySize), ['llama', 'panda', 'badger']);
    assert.deepEqual(bySize.json.hits[0].order, [
      { '@type': 'double', value: 1.7 },
      { '@type': 'string', value: 'llama' },
    ]);
    const byDiet = await nouveau({ q: 'class:mammal', sort: '["diet<string>", "min_length<double>"]' });
    assert.deepEqual(ids(byDiet), ['panda', 'llama', 'badger']);
    assert.deepEqual(byDiet.json.hits[0].order, [
      { '@type': 'string', value: 'herbivore' },
      { '@type': 'double', value: 1.2 },
      { '@type': 'string', value: 'panda' },
    ]);
    const relevance = await nouveau({ q: 'class:bird', sort: '["relevance"]' });
    assert.equal(relevance.json.hits[0].order[0]['@type'], 'float');
  });

  it('bookmark pages on: the next page starts after the last hit, an exhausted one keeps its bookmark', async () => {
    const sort = '"min_length<double>"';
    const first = await nouveau({ q: 'min_length:[0 TO Infinity]', sort, limit: '2' });
    assert.deepEqual(ids(first), ['snipe', 'kookaburra']);
    assert.equal(first.json.total_hits, 5);
    const second = await nouveau({ q: 'min_length:[0 TO Infinity]', sort, limit: '2', bookmark: first.json.bookmark });
    assert.deepEqual(ids(second), ['badger', 'panda']);
    const third = await nouveau({ q: 'min_length:[0 TO Infinity]', sort, limit: '2', bookmark: second.json.bookmark });
    assert.deepEqual(ids(third), ['llama']);
    const end = await nouveau({ q: 'min_length:[0 TO Infinity]', sort, limit: '2', bookmark: third.json.bookmark });
    assert.deepEqual([ids(end), end.json.bookmark], [[], third.json.bookmark]);
  });

  it('include_docs puts each document in its hit', async () => {
    const r = await nouveau({ q: 'diet:carnivore', include_docs: 'true' });
    const [hit] = r.json.hits;
    assert.deepEqual(Object.keys(hit), ['doc', 'fields', 'id', 'order']);
    assert.equal(hit.doc._id, 'kookaburra');
    assert.equal(hit.doc.latin_name, 'Dacelo novaeguineae');
    assert.match(hit.doc._rev, /^1-/);
  });

  it('counts (string fields, top_n most frequent) and ranges (double fields, labelled min/max)', async () => {
    const r = await nouveau({
      q: '*:*',
      counts: '["diet", "class"]',
      ranges: JSON.stringify({
        min_length: [
          { label: 'small', min: 0, max: 0.5 },
          { label: 'medium', min: 0.5, max: 1.2, max_inclusive: false },
          { label: 'large', min: 1.2 },
        ],
      }),
    });
    assert.deepEqual(r.json.counts, {
      diet: { omnivore: 2, herbivore: 2, carnivore: 1 },
      class: { mammal: 3, bird: 2 },
    });
    assert.deepEqual(r.json.ranges, { min_length: { small: 2, medium: 1, large: 2 } });
    const top = await nouveau({ q: '*:*', counts: '["class"]', top_n: '1' });
    assert.deepEqual(top.json.counts, { class: { mammal: 3 } });
  });

  it('POST takes the parameters in a JSON body', async () => {
    const r = await t.request('POST', '/n/_design/zoo/_nouveau/animals', {
      body: { q: 'class:mammal', sort: '-min_length<double>', limit: 1, counts: ['diet'] },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(ids(r), ['llama']);
    assert.equal(r.json.total_hits, 3);
    assert.deepEqual(r.json.counts, { diet: { herbivore: 2, omnivore: 1 } });
  });

  it('update=false answers from the index as it is', async () => {
    await t.request('PUT', '/n/emu', { body: { diet: 'omnivore', class: 'bird', min_length: 1.5 } });
    assert.deepEqual(ids(await nouveau({ q: 'class:bird', update: 'false', sort: '"_id<string>"' })), [
      'kookaburra',
      'snipe',
    ]);
    assert.deepEqual(ids(await nouveau({ q: 'class:bird', sort: '"_id<string>"' })), ['emu', 'kookaburra', 'snipe']);
  });

  it('_nouveau_info: update_seq, purge_seq, num_docs, disk_size', async () => {
    await nouveau({ q: '*:*' });
    const r = await t.request('GET', '/n/_design/zoo/_nouveau_info/animals');
    assert.equal(r.status, 200);
    assert.equal(r.json.name, '_design/zoo/animals');
    assert.deepEqual(Object.keys(r.json.search_index), ['update_seq', 'purge_seq', 'num_docs', 'disk_size']);
    assert.ok(r.json.search_index.update_seq > 0);
    assert.equal(r.json.search_index.purge_seq, 0);
    assert.ok(r.json.search_index.num_docs >= 6);
    assert.ok(r.json.search_index.disk_size > 0);
  });

  it("/_nouveau_analyze: an analyzer's tokens (Lucene 9: standard keeps stop words)", async () => {
    const analyze = (analyzer: string, text: string) =>
      t.request('POST', '/_nouveau_analyze', { body: { analyzer, text } });
    assert.deepEqual((await analyze('keyword', 'ablanks@renovations.com')).json, {
      tokens: ['ablanks@renovations.com'],
    });
    assert.deepEqual((await analyze('standard', 'ablanks@renovations.com')).json, {
      tokens: ['ablanks', 'renovations.com'],
    });
    assert.deepEqual((await analyze('standard', 'The Quick fox')).json, { tokens: ['the', 'quick', 'fox'] });
    assert.deepEqual((await analyze('english', 'The running foxes')).json, { tokens: ['run', 'fox'] });
    assert.equal((await analyze('klingon', 'x')).status, 400);
    assert.equal((await t.request('GET', '/_nouveau_analyze')).status, 405);
  });

  it('refuses bad parameters with a 400, what is not built with a 501 naming it', async () => {
    const missing = await nouveau({});
    assert.deepEqual(
      [missing.status, missing.json],
      [400, { error: 'query_parse_error', reason: 'q parameter is mandatory' }],
    );
    assert.deepEqual((await nouveau({ q: 'x', limit: '0' })).json.reason, 'limit parameter must be greater than zero');
    assert.equal((await nouveau({ q: 'x', limit: 'many' })).status, 400);
    assert.equal((await nouveau({ q: 'x', sort: '"diet"' })).status, 400);
    assert.equal((await nouveau({ q: 'x', sort: '"diet<date>"' })).status, 400);
    assert.equal((await nouveau({ q: 'x', top_n: '101' })).status, 400);
    assert.equal((await nouveau({ q: 'x', update: 'lazy' })).status, 400);
    assert.equal((await nouveau({ q: 'x', ranges: '{"min_length": 3}' })).status, 400);
    assert.equal((await nouveau({ q: 'x', counts: '[1]' })).status, 400);
    assert.equal((await nouveau({ q: 'a:(' })).status, 400);
    // Nouveau's `_partition:{p}` clause: a database that is not partitioned has no such term.
    const partition = await nouveau({ q: '*:*', partition: 'p' });
    assert.deepEqual([partition.status, partition.json.total_hits, partition.json.hits], [200, 0, []]);
    const klingon = await t.request('GET', '/n/_design/zoo/_nouveau/klingon?q=x');
    assert.equal(klingon.status, 400);
    assert.match(klingon.json.reason, /klingon/);
    const noIndex = await t.request('GET', '/n/_design/zoo/_nouveau/noindex?q=x');
    assert.deepEqual(noIndex.json, {
      error: 'invalid_design_doc',
      reason: 'index `noindex` must have parameter `index`',
    });
    const unknown = await t.request('GET', '/n/_design/zoo/_nouveau/nope?q=x');
    assert.deepEqual([unknown.status, unknown.json], [404, { error: 'not_found', reason: 'nope not found.' }]);
    assert.equal((await t.request('PUT', '/n/_design/zoo/_nouveau/animals')).status, 405);
  });

  it('_nouveau_cleanup keeps the indexes design documents use and drops the others', async () => {
    await t.request('PUT', '/c');
    await t.request('PUT', '/c/a', { body: { text: 'kept words' } });
    const put = await t.request('PUT', '/c/_design/d', {
      body: { nouveau: { i: { index: 'function (doc) { index("text", "default", doc.text); }' } } },
    });
    assert.equal((await t.request('GET', '/c/_design/d/_nouveau/i?q=kept')).json.total_hits, 1);
    const cleanup = await t.request('POST', '/c/_nouveau_cleanup', { body: {} });
    assert.deepEqual([cleanup.status, cleanup.json], [202, { ok: true }]);
    const after = await t.request('GET', '/c/_design/d/_nouveau/i?q=kept&update=false');
    assert.equal(after.json.total_hits, 1);
    // Changed, the design document's old index goes and the new one is built.
    await t.request('PUT', '/c/_design/d', {
      body: {
        _rev: put.json.rev,
        nouveau: { i: { index: 'function (doc) { index("text", "other", doc.text); }' } },
      },
    });
    assert.equal((await t.request('GET', '/c/_design/d/_nouveau/i?q=other:kept')).json.total_hits, 1);
    assert.equal((await t.request('GET', '/c/_design/d/_nouveau/i?q=kept')).json.total_hits, 0);
  });
});

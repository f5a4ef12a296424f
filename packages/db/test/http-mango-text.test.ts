import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Mango `text` indexes over HTTP (run on SQLite, then on PostgreSQL): `_index` with
 * `"type": "text"`, `_find` with `$text` and every other operator through the index, sort,
 * bookmarks, `use_index`, `_explain`, deletion — as CouchDB's mango_idx_text and
 * mango_cursor_text have them.
 */
describe('Mango text indexes over HTTP', () => {
  let t: TestServer;
  const find = (body: Record<string, unknown>, db = 't') => t.request('POST', `/${db}/_find`, { body });
  const ids = (r: { json: { docs: { _id: string }[] } }) => r.json.docs.map((d) => d._id);
  const sorted = (r: { json: { docs: { _id: string }[] } }) => ids(r).sort();

  const DOCS = [
    {
      _id: 'alice',
      name: 'Alice',
      age: 30,
      tags: ['cook', 'pilot'],
      bio: 'Likes cats and dogs',
      address: { city: 'Paris' },
    },
    { _id: 'bob', name: 'Bob', age: 25, tags: ['pilot'], bio: 'A dog person', address: { city: 'Berlin' } },
    { _id: 'carol', name: 'Carol', age: 35, tags: [], bio: 'Cats only', manager: true, boss: null },
    { _id: 'dave', name: 'Dave', age: 41.5, bio: 'No pets', address: { city: 'Paris' } },
  ];

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/t');
    assert.equal((await t.request('POST', '/t/_bulk_docs', { body: { docs: DOCS } })).status, 201);
    const created = await t.request('POST', '/t/_index', {
      body: { index: {}, type: 'text', name: 'all', ddoc: 'txt' },
    });
    assert.deepEqual(created.json, { result: 'created', id: '_design/txt', name: 'all' });
  });
  after(() => t.close());

  it('_index creates it once (then `exists`), stores it as CouchDB does, and lists it', async () => {
    const again = await t.request('POST', '/t/_index', { body: { index: {}, type: 'text', name: 'all', ddoc: 'txt' } });
    assert.deepEqual(again.json, { result: 'exists', id: '_design/txt', name: 'all' });
    const ddoc = await t.request('GET', '/t/_design/txt');
    assert.equal(ddoc.json.language, 'query');
    assert.deepEqual(ddoc.json.indexes.all, {
      index: {
        default_analyzer: 'keyword',
        default_field: {},
        selector: {},
        partial_filter_selector: {},
        fields: 'all_fields',
        index_array_lengths: true,
      },
      analyzer: { name: 'perfield', default: 'keyword', fields: { $default: 'standard' } },
    });
    const listed = await t.request('GET', '/t/_index');
    assert.deepEqual(listed.json.indexes[1], {
      ddoc: '_design/txt',
      name: 'all',
      type: 'text',
      partitioned: false,
      def: {
        default_analyzer: 'keyword',
        default_field: {},
        selector: {},
        partial_filter_selector: {},
        fields: [],
        index_array_lengths: true,
      },
    });
  });

  it("refuses bad definitions with CouchDB's 400s", async () => {
    const bad = async (index: unknown) =>
      (await t.request('POST', '/t/_index', { body: { index, type: 'text' } })).json.error;
    assert.equal(await bad({ fields: [{ name: 'a' }] }), 'invalid_index_fields_definition');
    assert.equal(await bad({ fields: [{ name: '', type: 'string' }] }), 'invalid_index_fields_definition');
    assert.equal(await bad({ fields: [{ name: 'a', type: 'date' }] }), 'invalid_index_fields_definition');
    assert.equal(await bad({ index_array_lengths: 'yes' }), 'invalid_bool_value');
    assert.equal(await bad({ colour: 'red' }), 'invalid_key');
    assert.equal(await bad({ selector: [] }), 'invalid_selector_json');
    assert.equal(await bad('all'), 'invalid_index_text');
  });

  it('$text searches the default field (every string, standard analyzer)', async () => {
    assert.deepEqual(sorted(await find({ selector: { $text: 'cats' } })), ['alice', 'carol']);
    assert.deepEqual(sorted(await find({ selector: { $text: 'paris' } })), ['alice', 'dave']);
    assert.deepEqual(ids(await find({ selector: { $text: 'elephants' } })), []);
    assert.deepEqual(sorted(await find({ selector: { $text: 'dogs', age: { $lt: 28 } } })), []);
    assert.deepEqual(ids(await find({ selector: { $text: 'dog', age: { $lt: 28 } } })), ['bob']);
  });

  it('every other operator answered through the index, the selector deciding', async () => {
    const q = async (selector: Record<string, unknown>) => sorted(await find({ selector, fields: ['_id'] }));
    assert.deepEqual(await q({ name: 'Bob' }), ['bob']);
    // The keyword analyzer: a string field is its whole value, case kept.
    assert.deepEqual(await q({ name: 'bob' }), []);
    assert.deepEqual(await q({ age: { $gt: 30 } }), ['carol', 'dave']);
    assert.deepEqual(await q({ age: { $gte: 30, $lt: 40 } }), ['alice', 'carol']);
    assert.deepEqual(await q({ age: 41.5 }), ['dave']);
    assert.deepEqual(await q({ age: { $ne: 30 } }), ['bob', 'carol', 'dave']);
    assert.deepEqual(await q({ 'address.city': 'Paris' }), ['alice', 'dave']);
    assert.deepEqual(await q({ address: { city: 'Berlin' } }), ['bob']);
    assert.deepEqual(await q({ 'address.city': { $exists: false } }), ['carol']);
    assert.deepEqual(await q({ manager: { $exists: true } }), ['carol']);
    assert.deepEqual(await q({ manager: true }), ['carol']);
    assert.deepEqual(await q({ boss: null }), ['carol']);
    assert.deepEqual(await q({ tags: { $size: 0 } }), ['carol']);
    assert.deepEqual(await q({ tags: { $size: 2 } }), ['alice']);
    assert.deepEqual(await q({ tags: { $in: ['cook'] } }), ['alice']);
    assert.deepEqual(await q({ tags: { $all: ['pilot'] } }), ['alice', 'bob']);
    assert.deepEqual(await q({ tags: { $elemMatch: { $eq: 'pilot' } } }), ['alice', 'bob']);
    assert.deepEqual(await q({ tags: { $nin: ['pilot'] } }), ['carol']);
    assert.deepEqual(await q({ name: { $regex: '^[AB]' } }), ['alice', 'bob']);
    assert.deepEqual(await q({ name: { $beginsWith: 'Ca' } }), ['carol']);
    assert.deepEqual(await q({ age: { $mod: [5, 0] } }), ['alice', 'bob', 'carol']);
    assert.deepEqual(await q({ age: { $type: 'number' } }), ['alice', 'bob', 'carol', 'dave']);
    assert.deepEqual(await q({ $or: [{ name: 'Bob' }, { age: 35 }] }), ['bob', 'carol']);
    assert.deepEqual(await q({ 'tags.0': 'cook' }), ['alice']);
    // Fields whose names start with `_` are fields like the others.
    assert.deepEqual(await q({ _id: { $gt: 'c' } }), ['carol', 'dave']);
  });

  it('sorts by typed fields (`name:type`, or the type of the conditions on them), both directions', async () => {
    const byAge = await find({ selector: { age: { $gt: 0 } }, sort: [{ 'age:number': 'desc' }], fields: ['_id'] });
    assert.deepEqual(ids(byAge), ['dave', 'carol', 'alice', 'bob']);
    const inferred = await find({ selector: { age: { $gt: 0 } }, sort: ['age'], fields: ['_id'] });
    assert.deepEqual(ids(inferred), ['bob', 'alice', 'carol', 'dave']);
    const byName = await find({ selector: { $text: 'cats' }, sort: ['name:string'], fields: ['_id'] });
    assert.deepEqual(ids(byName), ['alice', 'carol']);
    const ambiguous = await find({ selector: { $text: 'cats' }, sort: ['name'] });
    assert.deepEqual([ambiguous.status, ambiguous.json.error], [400, 'text_sort_error']);
  });

  it('bookmarks page through the hits; skip and limit apply to the documents kept', async () => {
    const query = { selector: { age: { $gt: 0 } }, sort: ['age'], fields: ['_id'], limit: 2 };
    const first = await find(query);
    assert.deepEqual(ids(first), ['bob', 'alice']);
    const second = await find({ ...query, bookmark: first.json.bookmark });
    assert.deepEqual(ids(second), ['carol', 'dave']);
    const end = await find({ ...query, bookmark: second.json.bookmark });
    assert.deepEqual(ids(end), []);
    assert.deepEqual(ids(await find({ ...query, skip: 1 })), ['alice', 'carol']);
    const bad = await find({ ...query, bookmark: 'not a bookmark' });
    assert.deepEqual([bad.status, bad.json.error], [400, 'invalid_bookmark']);
  });

  it('_explain shows the text index, its Lucene query and sort', async () => {
    const r = await t.request('POST', '/t/_explain', {
      body: { selector: { age: { $gt: 26 }, name: { $in: ['Alice', 'Bob'] } }, sort: [{ age: 'desc' }] },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.index.type, 'text');
    assert.equal(r.json.index.name, 'all');
    assert.equal(
      r.json.query,
      '((age_3anumber:{26 TO Infinity]) AND (((name_3astring:"Alice") OR (name._5b_5d_3astring:"Alice")) OR ((name_3astring:"Bob") OR (name._5b_5d_3astring:"Bob"))))',
    );
    assert.deepEqual(r.json.sort, ['-age_3anumber<number>']);
    const relevance = await t.request('POST', '/t/_explain', { body: { selector: { $text: 'x' }, limit: 500 } });
    assert.deepEqual([relevance.json.sort, relevance.json.limit], ['relevance', 200]);
  });

  it("_explain of a text query lists every other index and why, and the selector's hints, as CouchDB 3.5", async () => {
    await t.request('PUT', '/ex');
    await t.request('POST', '/ex/_bulk_docs', { body: { docs: DOCS } });
    const index = async (body: Record<string, unknown>) =>
      assert.equal((await t.request('POST', '/ex/_index', { body })).status, 200);
    await index({ index: { fields: ['age'] }, ddoc: 'j', name: 'age' });
    await index({ index: {}, type: 'text', ddoc: 'txt', name: 'all' });
    await index({
      index: { default_field: false, fields: [{ name: 'name', type: 'string' }] },
      type: 'text',
      ddoc: 'txt2',
      name: 'names',
    });
    await index({ index: { partial_filter_selector: { age: { $gt: 1 } } }, type: 'text', ddoc: 'tp', name: 'partial' });
    const r = await t.request('POST', '/ex/_explain', { body: { selector: { $text: 'cats' } } });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json), [
      'dbname',
      'index',
      'partitioned',
      'selector',
      'opts',
      'limit',
      'skip',
      'fields',
      'index_candidates',
      'selector_hints',
      'query',
      'partition',
      'sort',
    ]);
    assert.equal(r.json.index.name, 'all');
    const seen = r.json.index_candidates.map(
      (c: { index: { ddoc: string | null; name: string }; analysis: Record<string, unknown> }) => [
        c.index.ddoc,
        c.index.name,
        c.analysis,
      ],
    );
    const analysis = (usable: boolean, reason: string, ranking: number, covering: boolean | null) => ({
      usable,
      reasons: [{ name: reason }],
      ranking,
      covering,
    });
    // Design documents descending, `_all_docs` last; stages ranked from the last (`unfavored_type`: 1).
    assert.deepEqual(seen, [
      ['_design/txt2', 'names', analysis(false, 'field_mismatch', 2, null)],
      ['_design/tp', 'partial', analysis(false, 'is_partial', 3, null)],
      ['_design/j', 'age', analysis(false, 'needs_text_search', 2, false)],
      [null, '_all_docs', analysis(true, 'unfavored_type', 1, null)],
    ]);
    assert.deepEqual(r.json.selector_hints, [
      { type: 'json', indexable_fields: [], unindexable_fields: ['$default'] },
      { type: 'text', indexable_fields: ['$default'], unindexable_fields: [] },
      { type: 'nouveau', indexable_fields: ['$default'], unindexable_fields: [] },
    ]);
    // use_index naming the text index: the usable `_all_docs` is excluded by the user.
    const named = await t.request('POST', '/ex/_explain', {
      body: { selector: { $text: 'cats' }, use_index: ['txt', 'all'] },
    });
    const allDocs = named.json.index_candidates.at(-1);
    assert.deepEqual([allDocs.index.name, allDocs.analysis.reasons], ['_all_docs', [{ name: 'excluded_by_user' }]]);
    // A JSON query's hints name what a text index could serve too (in an Erlang set's order, as
    // CouchDB lists them: name before age).
    const json = await t.request('POST', '/ex/_explain', { body: { selector: { age: { $gt: 3 }, name: 'Bob' } } });
    assert.equal(json.json.index.name, 'age');
    assert.deepEqual(json.json.selector_hints, [
      { type: 'json', indexable_fields: ['name', 'age'], unindexable_fields: [] },
      { type: 'text', indexable_fields: ['name', 'age'], unindexable_fields: [] },
      { type: 'nouveau', indexable_fields: ['name', 'age'], unindexable_fields: [] },
    ]);
  });

  it('allow_fallback: false is content with a text index; a use_index naming nothing usable is still refused', async () => {
    const served = await find({ selector: { $text: 'cats' }, allow_fallback: false, fields: ['_id'] });
    assert.deepEqual([served.status, served.json.docs.length], [200, 2]);
    const refused = await find({ selector: { $text: 'cats' }, allow_fallback: false, use_index: 'nothing' });
    assert.deepEqual([refused.status, refused.json.error], [400, 'invalid_index']);
    const warned = await find({ selector: { $text: 'cats' }, use_index: 'nothing', fields: ['_id'] });
    assert.equal(warned.json.docs.length, 2);
    assert.match(warned.json.warning, /_design\/nothing was not used/);
  });

  it('execution_stats count the documents the hits brought', async () => {
    const r = await find({ selector: { $text: 'cats' }, execution_stats: true });
    assert.equal(r.json.execution_stats.results_returned, 2);
    assert.equal(r.json.execution_stats.total_docs_examined, 2);
  });

  it('a usable JSON index wins; a $text selector or a sort no JSON index gives goes to the text index', async () => {
    await t.request('PUT', '/j');
    await t.request('POST', '/j/_bulk_docs', { body: { docs: DOCS } });
    await t.request('POST', '/j/_index', { body: { index: { fields: ['age'] }, name: 'by-age', ddoc: 'json' } });
    await t.request('POST', '/j/_index', { body: { index: {}, type: 'text', name: 'words', ddoc: 'txt' } });
    const json = await t.request('POST', '/j/_explain', { body: { selector: { age: { $gt: 30 } } } });
    assert.equal(json.json.index.type, 'json');
    const text = await t.request('POST', '/j/_explain', { body: { selector: { age: { $gt: 30 }, $text: 'cats' } } });
    assert.equal(text.json.index.type, 'text');
    assert.deepEqual(ids(await find({ selector: { age: { $gt: 30 }, $text: 'cats' } }, 'j')), ['carol']);
    const sortedByName = await find({ selector: { name: { $gt: 'A' } }, sort: ['name'], fields: ['_id'] }, 'j');
    assert.deepEqual(ids(sortedByName), ['alice', 'bob', 'carol', 'dave']);
    // An empty selector is not for a text index.
    const all = await t.request('POST', '/j/_explain', { body: { selector: {} } });
    assert.equal(all.json.index.type, 'special');
  });

  it('two usable text indexes need use_index; use_index picks one', async () => {
    await t.request('POST', '/j/_index', { body: { index: {}, type: 'text', name: 'more', ddoc: 'txt2' } });
    const two = await find({ selector: { $text: 'cats' } }, 'j');
    assert.deepEqual([two.status, two.json.error], [400, 'multiple_text_indexes']);
    const named = await find({ selector: { $text: 'cats' }, use_index: 'txt2', fields: ['_id'] }, 'j');
    assert.deepEqual(named.json.docs.map((d: { _id: string }) => d._id).sort(), ['alice', 'carol']);
    const explained = await t.request('POST', '/j/_explain', {
      body: { selector: { $text: 'x' }, use_index: ['txt', 'words'] },
    });
    assert.equal(explained.json.index.name, 'words');
  });

  it('a fields list: only its fields (and $default) are indexed, and it serves only selectors on them', async () => {
    await t.request('PUT', '/f');
    await t.request('POST', '/f/_bulk_docs', { body: { docs: DOCS } });
    await t.request('POST', '/f/_index', {
      body: {
        index: { fields: [{ name: 'name', type: 'string' }], default_field: false },
        type: 'text',
        name: 'names',
        ddoc: 'f',
      },
    });
    assert.deepEqual(ids(await find({ selector: { name: 'Carol' }, fields: ['_id'] }, 'f')), ['carol']);
    const onAge = await t.request('POST', '/f/_explain', { body: { selector: { age: 30 } } });
    assert.equal(onAge.json.index.type, 'special');
    const onText = await t.request('POST', '/f/_explain', { body: { selector: { $text: 'cats' } } });
    assert.equal(onText.json.index.type, 'special');
  });

  it('a partial filter: the index holds the documents it selects, and serves only when named', async () => {
    await t.request('PUT', '/p');
    await t.request('POST', '/p/_bulk_docs', { body: { docs: DOCS } });
    await t.request('POST', '/p/_index', {
      body: { index: { partial_filter_selector: { age: { $lt: 32 } } }, type: 'text', name: 'young', ddoc: 'p' },
    });
    const unnamed = await t.request('POST', '/p/_explain', { body: { selector: { $text: 'cats' } } });
    assert.equal(unnamed.json.index.type, 'special');
    assert.deepEqual(ids(await find({ selector: { $text: 'cats' }, use_index: 'p', fields: ['_id'] }, 'p')), ['alice']);
  });

  it('index_array_lengths: false leaves $size nothing to find', async () => {
    await t.request('PUT', '/l');
    await t.request('POST', '/l/_bulk_docs', { body: { docs: DOCS } });
    await t.request('POST', '/l/_index', {
      body: { index: { index_array_lengths: false }, type: 'text', name: 'x', ddoc: 'l' },
    });
    assert.deepEqual(ids(await find({ selector: { tags: { $size: 0 } } }, 'l')), []);
  });

  it('DELETE removes it (its design document with its last index); then $text is every document again', async () => {
    const gone = await t.request('DELETE', '/l/_index/_design/l/text/x');
    assert.deepEqual([gone.status, gone.json], [200, { ok: true }]);
    assert.equal((await t.request('GET', '/l/_design/l')).status, 404);
    assert.equal((await t.request('DELETE', '/l/_index/_design/l/text/x')).status, 404);
    assert.equal(ids(await find({ selector: { $text: 'cats' } }, 'l')).length, 4);
    // A design document with a JSON index and a text index keeps the other.
    await t.request('POST', '/l/_index', { body: { index: { fields: ['age'] }, name: 'age', ddoc: 'both' } });
    await t.request('POST', '/l/_index', { body: { index: {}, type: 'text', name: 'words', ddoc: 'both' } });
    assert.equal((await t.request('DELETE', '/l/_index/both/json/age')).status, 200);
    assert.equal((await t.request('GET', '/l/_design/both')).json.indexes.words.index.fields, 'all_fields');
    const bulk = await t.request('POST', '/l/_index/_bulk_delete', { body: { docids: ['_design/both'] } });
    assert.deepEqual(bulk.json, { success: [{ id: '_design/both', ok: true }], fail: [] });
  });

  it('a partitioned database takes a text index, partitioned unless it says otherwise (http-search-partitioned)', async () => {
    await t.request('PUT', '/pp?partitioned=true');
    const r = await t.request('POST', '/pp/_index', { body: { index: {}, type: 'text', ddoc: 'p', name: 'p' } });
    assert.deepEqual([r.status, r.json.result], [200, 'created']);
    const listed = await t.request('GET', '/pp/_index');
    assert.equal(listed.json.indexes[1].partitioned, true);
    // A partitioned index in a database that is not: CouchDB's error_saving_ddoc, a 400 here.
    const refused = await t.request('POST', '/t/_index', { body: { index: {}, type: 'text', partitioned: true } });
    assert.deepEqual([refused.status, refused.json.error], [400, 'invalid_partitioned']);
  });
});

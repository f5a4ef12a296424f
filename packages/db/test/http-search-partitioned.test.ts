import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Search in partitioned databases over HTTP (run on SQLite, then on PostgreSQL):
 * `/{db}/_partition/{p}/_design/{d}/_search/{i}` on a partitioned design document, CouchDB's
 * refusals (dreyfus_httpd's partition rules), and Mango `text` indexes answered per partition
 * through `/{db}/_partition/{p}/_find` and `_explain`.
 */
describe('search in partitioned databases over HTTP', () => {
  let t: TestServer;
  const ids = (r: { json: { rows: { id: string }[] } }) => r.json.rows.map((row) => row.id).sort();
  const docIds = (r: { json: { docs: { _id: string }[] } }) => r.json.docs.map((d) => d._id).sort();
  const INDEX =
    'function (doc) { if (doc.text) index("default", doc.text); if (doc.n) index("n", doc.n, {facet: true}); }';

  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('PUT', '/ps?partitioned=true')).status, 201);
    const docs = [
      { _id: 'red:1', text: 'apple cherry', n: 1 },
      { _id: 'red:2', text: 'apple strawberry', n: 2 },
      { _id: 'red:3', text: 'cherry', n: 3 },
      { _id: 'green:1', text: 'apple lime', n: 4 },
      { _id: 'green:2', text: 'kiwi', n: 5 },
    ];
    assert.equal((await t.request('POST', '/ps/_bulk_docs', { body: { docs } })).status, 201);
    // A design document of a partitioned database is partitioned unless it says otherwise.
    const part = await t.request('PUT', '/ps/_design/part', { body: { indexes: { fruit: { index: INDEX } } } });
    assert.equal(part.status, 201);
    const glob = await t.request('PUT', '/ps/_design/glob', {
      body: { options: { partitioned: false }, indexes: { fruit: { index: INDEX } } },
    });
    assert.equal(glob.status, 201);
    await t.request('PUT', '/plain');
    await t.request('PUT', '/plain/a', { body: { text: 'apple' } });
    await t.request('PUT', '/plain/_design/d', { body: { indexes: { fruit: { index: INDEX } } } });
  });
  after(() => t.close());

  it("a partition's search reads only that partition's hits (GET and POST)", async () => {
    const red = await t.request('GET', '/ps/_partition/red/_design/part/_search/fruit?q=apple');
    assert.equal(red.status, 200);
    assert.deepEqual(ids(red), ['red:1', 'red:2']);
    assert.equal(red.json.total_rows, 2);
    const green = await t.request('POST', '/ps/_partition/green/_design/part/_search/fruit', {
      body: { q: 'apple OR kiwi', include_docs: true },
    });
    assert.equal(green.status, 200);
    assert.deepEqual(ids(green), ['green:1', 'green:2']);
    assert.equal(green.json.rows[0].doc._id.startsWith('green:'), true);
    const none = await t.request('GET', '/ps/_partition/blue/_design/part/_search/fruit?q=apple');
    assert.deepEqual([none.status, none.json.total_rows, none.json.rows], [200, 0, []]);
    // CouchDB reads `partition` from the query string of the global path too.
    const qs = await t.request('GET', '/ps/_design/part/_search/fruit?q=apple&partition=red');
    assert.deepEqual(ids(qs), ['red:1', 'red:2']);
  });

  it('pages through a partition with bookmarks and sorts within it', async () => {
    const path = '/ps/_partition/red/_design/part/_search/fruit';
    const first = await t.request('GET', `${path}?q=apple%20OR%20cherry&sort=%22n%22&limit=2`);
    assert.deepEqual(
      first.json.rows.map((r: { id: string }) => r.id),
      ['red:1', 'red:2'],
    );
    assert.equal(first.json.total_rows, 3);
    const next = await t.request(
      'GET',
      `${path}?${new URLSearchParams({ q: 'apple OR cherry', sort: '"n"', limit: '2', bookmark: first.json.bookmark })}`,
    );
    assert.deepEqual(
      next.json.rows.map((r: { id: string }) => r.id),
      ['red:3'],
    );
  });

  it("refuses what CouchDB refuses, with CouchDB's errors", async () => {
    const mandatory = await t.request('GET', '/ps/_design/part/_search/fruit?q=apple');
    assert.deepEqual(
      [mandatory.status, mandatory.json.error, mandatory.json.reason],
      [400, 'bad_request', '`partition` parameter is mandatory for queries to this index.'],
    );
    const onGlobal = await t.request('GET', '/ps/_partition/red/_design/glob/_search/fruit?q=apple');
    assert.deepEqual(
      [onGlobal.status, onGlobal.json.error, onGlobal.json.reason],
      [400, 'bad_request', '`partition` not supported on this index'],
    );
    const conflicting = await t.request('GET', '/ps/_partition/red/_design/part/_search/fruit?q=apple&partition=green');
    assert.deepEqual(
      [conflicting.status, conflicting.json.reason],
      [400, 'Conflicting value for `partition` in query string'],
    );
    const twoValues = await t.request('POST', '/ps/_partition/red/_design/part/_search/fruit', {
      body: { q: 'apple', partition: 'green' },
    });
    assert.deepEqual(
      [twoValues.status, twoValues.json.reason],
      [400, 'Multiple conflicting values for `partition` provided'],
    );
    const notString = await t.request('POST', '/ps/_design/part/_search/fruit', { body: { q: 'apple', partition: 1 } });
    assert.equal(notString.status, 400);
    const incompatible =
      '`partition` and any of `drilldown`, `ranges`, `group_field`, `group_sort`, `group_limit` or `group_by` are incompatible';
    const extras: Record<string, string>[] = [
      { counts: '["n"]' },
      { ranges: '{"n":{"low":"[0 TO 2]"}}' },
      { drilldown: '["n","1"]' },
      { group_field: 'n' },
    ];
    for (const extra of extras) {
      const r = await t.request(
        'GET',
        `/ps/_partition/red/_design/part/_search/fruit?${new URLSearchParams({ q: 'apple', ...extra })}`,
      );
      assert.deepEqual([r.status, r.json.reason], [400, incompatible], JSON.stringify(extra));
    }
    const underscore = await t.request('GET', '/ps/_partition/_red/_design/part/_search/fruit?q=apple');
    assert.deepEqual([underscore.status, underscore.json.error], [400, 'illegal_partition']);
    const badQuery = await t.request('GET', '/ps/_partition/red/_design/part/_search/fruit?q=%22open');
    assert.equal(badQuery.status, 400);
  });

  it("a global index of a partitioned database reads every partition; limits are the partitioned database's", async () => {
    const all = await t.request('GET', '/ps/_design/glob/_search/fruit?q=apple');
    assert.deepEqual(ids(all), ['green:1', 'red:1', 'red:2']);
    // dreyfus' limit_partitions / max_limit_partitions: 2000 in a partitioned database, 200 elsewhere.
    assert.equal((await t.request('GET', '/ps/_design/glob/_search/fruit?q=apple&limit=2000')).status, 200);
    assert.equal((await t.request('GET', '/ps/_design/glob/_search/fruit?q=apple&limit=2001')).status, 400);
    assert.equal((await t.request('GET', '/plain/_design/d/_search/fruit?q=apple&limit=201')).status, 400);
  });

  it('a database that is not partitioned refuses a partition', async () => {
    const qs = await t.request('GET', '/plain/_design/d/_search/fruit?q=apple&partition=a');
    assert.deepEqual([qs.status, qs.json.reason], [400, '`partition` not supported on this index']);
    const path = await t.request('GET', '/plain/_partition/a/_design/d/_search/fruit?q=apple');
    assert.deepEqual([path.status, path.json.reason], [400, 'database is not partitioned']);
    const ok = await t.request('GET', '/plain/_design/d/_search/fruit?q=apple');
    assert.deepEqual(ids(ok), ['a']);
  });

  it('Mango text indexes: partitioned by default, queried per partition through _partition/{p}/_find', async () => {
    const created = await t.request('POST', '/ps/_index', {
      body: { index: { fields: [{ name: 'text', type: 'string' }] }, type: 'text', name: 'words', ddoc: 'mtext' },
    });
    assert.deepEqual([created.status, created.json.result], [200, 'created']);
    const listed = await t.request('GET', '/ps/_index');
    const words = listed.json.indexes.find((i: { name: string }) => i.name === 'words');
    assert.deepEqual([words.type, words.partitioned], ['text', true]);
    const red = await t.request('POST', '/ps/_partition/red/_find', { body: { selector: { $text: 'apple' } } });
    assert.equal(red.status, 200);
    assert.deepEqual(docIds(red), ['red:1', 'red:2']);
    const green = await t.request('POST', '/ps/_partition/green/_find', {
      body: { selector: { text: { $regex: 'i' } }, use_index: ['mtext', 'words'], fields: ['_id'] },
    });
    assert.deepEqual(docIds(green), ['green:1', 'green:2']);
    const explained = await t.request('POST', '/ps/_partition/red/_explain', {
      body: { selector: { $text: 'apple' } },
    });
    assert.equal(explained.status, 200);
    assert.deepEqual(
      [explained.json.index.type, explained.json.index.partitioned, explained.json.partition],
      ['text', true, 'red'],
    );
    assert.equal(explained.json.opts.partition, 'red');
  });

  it('Mango text indexes: a global one serves global queries over every partition, not partition ones', async () => {
    const created = await t.request('POST', '/ps/_index', {
      body: { index: {}, type: 'text', name: 'everything', ddoc: 'gtext', partitioned: false },
    });
    assert.deepEqual([created.status, created.json.result], [200, 'created']);
    const all = await t.request('POST', '/ps/_find', { body: { selector: { $text: 'apple' } } });
    assert.equal(all.status, 200);
    assert.deepEqual(docIds(all), ['green:1', 'red:1', 'red:2']);
    const explained = await t.request('POST', '/ps/_explain', { body: { selector: { $text: 'apple' } } });
    assert.deepEqual(
      [explained.json.index.name, explained.json.index.partitioned, explained.json.partition],
      ['everything', false, null],
    );
    // A partition's query never reads the global index: the partitioned one answers it.
    const red = await t.request('POST', '/ps/_partition/red/_explain', { body: { selector: { $text: 'apple' } } });
    assert.equal(red.json.index.name, 'words');
  });
});

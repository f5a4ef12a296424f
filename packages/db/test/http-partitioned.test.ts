/**
 * Partitioned databases over HTTP (issue #29; an HTTP suite, so it runs on SQLite and on
 * PostgreSQL), as CouchDB 3.5 has them: `PUT /db?partitioned=true` (kept across a restart), the
 * `partition:docid` id rule on every write, `/db/_partition/{p}` info, `_all_docs`, views,
 * `_find` and `_explain` scoped to one partition (counts, offsets and reductions the partition's,
 * documents examined the partition's only), partitioned design documents and Mango indexes,
 * global queries restricted as CouchDB restricts them, `create_target_params.partitioned`, and
 * CouchDB's 400s (never a 5xx) for every bad request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dropSchema } from './support/postgres.js';
import { startTestServer, testStorage, type Reply, type TestServer } from './support/server.js';
import { makeTempDir } from './support/tmp-dir.js';

const error = (r: Reply, status: number, err: string, reason?: string) => {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json.error, err, r.text);
  if (reason !== undefined) assert.equal(r.json.reason, reason, r.text);
};
const ids = (r: Reply): string[] => r.json.rows.map((row: { id: string }) => row.id);
const docIds = (r: Reply): string[] => r.json.docs.map((doc: { _id: string }) => doc._id);

/** `foo:1`..`foo:100` and `bar:1`..`bar:100` as CouchDB's partition tests make them (`value` = n). */
function partitionDocs(): Record<string, unknown>[] {
  const docs: Record<string, unknown>[] = [];
  for (let n = 1; n <= 100; n++) {
    const partition = n % 2 === 0 ? 'foo' : 'bar';
    docs.push({ _id: `${partition}:${n}`, value: n, some: 'field', group: n % 3 === 0 ? 'one' : 'two' });
    docs.push({ _id: `${partition === 'foo' ? 'bar' : 'foo'}:${n}`, value: n, some: 'field', group: 'three' });
  }
  return docs;
}

describe('partitioned databases', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const create = async (name: string, query = '?partitioned=true') => {
    const r = await t.request('PUT', `/${name}${query}`);
    assert.equal(r.status, 201, r.text);
  };
  const bulk = async (db: string, docs: unknown[]) => {
    const r = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
    assert.equal(r.status, 201, r.text);
    for (const row of r.json) assert.equal(row.ok, true, JSON.stringify(row));
  };

  describe('creating one', () => {
    it('PUT ?partitioned=true shows in props; a plain database has none; a bad value or a system database is a 400', async () => {
      await create('pc1');
      assert.deepEqual((await t.request('GET', '/pc1')).json.props, { partitioned: true });
      await create('pc2', '?partitioned=false');
      assert.deepEqual((await t.request('GET', '/pc2')).json.props, {});
      error(await t.request('PUT', '/pc3?partitioned=tru'), 400, 'bad_request', 'Invalid `partitioned` parameter');
      assert.equal((await t.request('GET', '/pc3')).status, 404);
      for (const name of ['_replicator', 'a%2F_users', '_global_changes']) {
        error(
          await t.request('PUT', `/${name}?partitioned=true`),
          400,
          'bad_request',
          'Cannot partition a system database',
        );
      }
    });

    it('the setting is kept in storage: a restarted server still has it', async () => {
      const storage = testStorage();
      const { dir: dataDir } = makeTempDir('divan-partitioned-');
      const first = await startTestServer({ dataDir, ...(storage === undefined ? {} : { storage }) });
      try {
        assert.equal((await first.request('PUT', '/kept?partitioned=true')).status, 201);
        await first.request('PUT', '/kept/a:1', { body: {} });
      } finally {
        await first.stop();
      }
      const again = await startTestServer({ dataDir, ...(storage === undefined ? {} : { storage }) });
      try {
        assert.deepEqual((await again.request('GET', '/kept')).json.props, { partitioned: true });
        error(await again.request('PUT', '/kept/nopartition', { body: {} }), 400, 'illegal_docid');
        assert.equal((await again.request('GET', '/kept/_partition/a')).json.doc_count, 1);
      } finally {
        await again.close();
        if (storage !== undefined) await dropSchema(storage.url, storage.schema);
      }
    });
  });

  describe('document ids', () => {
    before(() => create('ids'));

    it('every write needs partition:docid, with CouchDB texts; design and local documents are exempt', async () => {
      assert.equal((await t.request('PUT', '/ids/my-partition:doc', { body: { a: 1 } })).status, 201);
      assert.equal((await t.request('GET', '/ids/my-partition:doc')).json._id, 'my-partition:doc');
      assert.equal((await t.request('POST', '/ids', { body: { _id: 'p:posted' } })).status, 201);
      const missing = 'Doc id must be of form partition:id';
      error(await t.request('PUT', '/ids/not-partitioned', { body: {} }), 400, 'illegal_docid', missing);
      error(await t.request('POST', '/ids', { body: { _id: 'nope' } }), 400, 'illegal_docid', missing);
      error(await t.request('POST', '/ids', { body: {} }), 400, 'illegal_docid', missing);
      const underscore = 'Only reserved document ids may start with underscore.';
      error(await t.request('PUT', '/ids/_bad:partitioned', { body: {} }), 400, 'illegal_docid', underscore);
      error(await t.request('PUT', '/ids/bad:', { body: {} }), 400, 'illegal_docid', 'Document id must not be empty');
      error(await t.request('PUT', '/ids/ok:_x', { body: {} }), 400, 'illegal_docid', underscore);
      error(await t.request('PUT', '/ids/:x', { body: {} }), 400, 'illegal_partition', 'Partition must not be empty');
      assert.equal((await t.request('PUT', '/ids/_design/d', { body: { stuff: 'here' } })).status, 201);
      assert.equal((await t.request('PUT', '/ids/_local/l', { body: {} })).status, 201);
    });

    it('_bulk_docs fails whole on one bad id (also with new_edits=false); attachments and purge keep the rule', async () => {
      const before = (await t.request('GET', '/ids')).json.update_seq;
      error(
        await t.request('POST', '/ids/_bulk_docs', { body: { docs: [{ _id: 'foo:1' }, { _id: 'foo1' }] } }),
        400,
        'illegal_docid',
        'Doc id must be of form partition:id',
      );
      error(
        await t.request('POST', '/ids/_bulk_docs', { body: { docs: [{ _id: '_foo:1' }] } }),
        400,
        'illegal_docid',
        'Only reserved document ids may start with underscore.',
      );
      const replicated = { docs: [{ _id: 'x', _rev: '1-abc' }], new_edits: false };
      error(await t.request('POST', '/ids/_bulk_docs', { body: replicated }), 400, 'illegal_docid');
      assert.equal((await t.request('GET', '/ids')).json.update_seq, before, 'nothing of a refused batch written');
      const att = await t.request('PUT', '/ids/noatt/a.txt', { body: 'x', headers: { 'content-type': 'text/plain' } });
      error(att, 400, 'illegal_docid', 'Doc id must be of form partition:id');
      assert.equal(
        (await t.request('PUT', '/ids/foo:att/a.txt', { body: 'x', headers: { 'content-type': 'text/plain' } })).status,
        201,
      );
      const purge = await t.request('POST', '/ids/_purge', {
        body: { no_partition: ['1-967a00dff5e02add41819138abb3284d'] },
      });
      error(purge, 400, 'illegal_docid');
    });

    it('_bulk_get answers an id without a partition with its error, the others as usual', async () => {
      const r = await t.request('POST', '/ids/_bulk_get', {
        body: { docs: [{ id: 'my-partition-post' }, { id: 'p:posted' }] },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.results[0], {
        id: 'my-partition-post',
        docs: [
          {
            error: {
              id: 'my-partition-post',
              rev: null,
              error: 'illegal_docid',
              reason: 'Doc id must be of form partition:id',
            },
          },
        ],
      });
      assert.equal(r.json.results[1].docs[0].ok._id, 'p:posted');
    });

    it('a plain database takes any id', async () => {
      await create('plainids', '');
      assert.equal((await t.request('PUT', '/plainids/nopartition', { body: {} })).status, 201);
    });
  });

  describe('partition info', () => {
    before(async () => {
      await create('info');
      await bulk('info', [
        { _id: 'foo:a', val: 42 },
        { _id: 'foo:b', val: 'a longer value than the other one' },
        { _id: 'bar:a', val: 1 },
        { _id: '_design/d', views: {} },
      ]);
    });

    it('counts and sizes of one partition; an unknown one is all zeros', async () => {
      const foo = (await t.request('GET', '/info/_partition/foo')).json;
      assert.equal(foo.db_name, 'info');
      assert.equal(foo.partition, 'foo');
      assert.equal(foo.doc_count, 2);
      assert.equal(foo.doc_del_count, 0);
      assert.ok(foo.sizes.external > 0 && foo.sizes.active > 0);
      const bar = (await t.request('GET', '/info/_partition/bar')).json;
      assert.ok(bar.sizes.external < foo.sizes.external);
      assert.deepEqual((await t.request('GET', '/info/_partition/none')).json, {
        db_name: 'info',
        sizes: { active: 0, external: 0 },
        partition: 'none',
        doc_count: 0,
        doc_del_count: 0,
      });
      const db = (await t.request('GET', '/info')).json;
      assert.equal(db.sizes.external >= foo.sizes.external + bar.sizes.external, true);
    });

    it('a deletion moves a document to doc_del_count and out of the sizes', async () => {
      const before = (await t.request('GET', '/info/_partition/foo')).json;
      const rev = (await t.request('GET', '/info/foo:b')).json._rev;
      assert.equal((await t.request('DELETE', `/info/foo:b?rev=${rev}`)).status, 200);
      const after = (await t.request('GET', '/info/_partition/foo')).json;
      assert.equal(after.doc_count, 1);
      assert.equal(after.doc_del_count, 1);
      assert.ok(after.sizes.external < before.sizes.external);
    });

    it('sizes.active is what the partition occupies in storage (old revisions until compaction), external its live JSON', async () => {
      await bulk('info', [{ _id: 'grow:a', text: 'x'.repeat(200) }]);
      const first = (await t.request('GET', '/info/_partition/grow')).json;
      assert.equal(first.sizes.active, first.sizes.external);
      const rev = (await t.request('GET', '/info/grow:a')).json._rev;
      await t.request('PUT', `/info/grow:a?rev=${rev}`, { body: { text: 'y'.repeat(100) } });
      const updated = (await t.request('GET', '/info/_partition/grow')).json;
      // The old 200-character body is still stored; external counts the new winner alone.
      assert.ok(updated.sizes.external < first.sizes.external);
      assert.ok(updated.sizes.active > first.sizes.active);
      assert.equal(updated.sizes.active, first.sizes.active + updated.sizes.external);
      assert.equal((await t.request('POST', '/info/_compact', { body: {} })).status, 202);
      let compacted = updated;
      for (let i = 0; i < 100 && compacted.sizes.active !== updated.sizes.external; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        compacted = (await t.request('GET', '/info/_partition/grow')).json;
      }
      assert.equal(compacted.sizes.active, updated.sizes.external);
    });

    it('_design_docs?partition=p: an empty list (the partition range and the design range never meet); a plain database refuses it', async () => {
      const r = await t.request('GET', '/info/_design_docs?partition=foo');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { total_rows: 1, offset: 1, rows: [] });
      assert.deepEqual((await t.request('GET', '/info/_design_docs?partition=A&descending=true')).json.rows, []);
      // Keys are opened one by one; as in a partition's _all_docs, an id outside the partition is not found.
      const keyed = await t.request('POST', '/info/_design_docs?partition=foo', { body: { keys: ['_design/d'] } });
      assert.deepEqual(keyed.json.rows, [{ key: '_design/d', error: 'not_found' }]);
      error(await t.request('GET', '/info/_design_docs?partition=foo&limit=2001'), 400, 'query_parse_error');
      error(await t.request('GET', '/info/_design_docs?partition=_foo'), 400, 'illegal_partition');
      await create('designplain', '');
      const plain = await t.request('GET', '/designplain/_design_docs?partition=foo');
      assert.equal(plain.status, 400);
      assert.deepEqual(plain.json, {
        error: 'query_parse_error',
        reason: '`partition` parameter is not supported on this db',
      });
    });

    it('errors: /_partition alone, a bad partition, a plain database, another verb', async () => {
      error(await t.request('GET', '/info/_partition'), 400, 'bad_request', 'invalid_partition_req');
      error(
        await t.request('GET', '/info/_partition/_bar'),
        400,
        'illegal_partition',
        'Partition must not start with an underscore',
      );
      await create('infoplain', '');
      error(await t.request('GET', '/infoplain/_partition/foo'), 400, 'bad_request', 'database is not partitioned');
      error(
        await t.request('GET', '/infoplain/_partition/foo/_all_docs'),
        400,
        'bad_request',
        'database is not partitioned',
      );
      const post = await t.request('POST', '/info/_partition/foo', { body: {} });
      error(post, 405, 'method_not_allowed', 'Only GET allowed');
      assert.equal(post.headers.get('allow'), 'GET');
      error(await t.request('POST', '/info/_partition/_foo', { body: {} }), 400, 'illegal_partition');
      assert.equal((await t.request('GET', '/nodb/_partition/foo')).status, 404);
      error(await t.request('GET', '/info/_partition/foo/_changes'), 404, 'not_found');
    });
  });

  describe('queries of a partition', () => {
    before(async () => {
      await create('q');
      await bulk('q', partitionDocs());
      const some = 'function (doc) { if (doc.some) emit(doc.value, doc.some); }';
      const grouped = 'function (doc) { if (doc.group) emit([doc.some, doc.group], 1); }';
      await bulk('q', [
        { _id: '_design/map', views: { some: { map: some } } },
        { _id: '_design/global', views: { some: { map: some } }, options: { partitioned: false } },
        { _id: '_design/reduce', views: { some: { map: grouped, reduce: '_count' } } },
        {
          _id: '_design/custom',
          views: {
            some: { map: grouped, reduce: 'function (k, v, re) { return re ? sum(v) : v.length; }' },
          },
        },
        { _id: '_design/design', views: { some: { map: some } }, options: { include_design: true } },
      ]);
    });

    it('_all_docs: the partition only, its own total_rows and offset; ranges, keys, descending, skip', async () => {
      const all = await t.request('GET', '/q/_partition/foo/_all_docs');
      assert.equal(all.status, 200);
      assert.equal(all.json.total_rows, 100);
      assert.equal(all.json.offset, 0);
      assert.equal(all.json.rows.length, 100);
      assert.ok(ids(all).every((id) => id.startsWith('foo:')));
      const range = await t.request('GET', '/q/_partition/foo/_all_docs?start_key="foo:12"&end_key="foo:2"');
      assert.deepEqual(ids(range).slice(0, 3), ['foo:12', 'foo:13', 'foo:14']);
      assert.equal(ids(range).at(-1), 'foo:2');
      assert.equal(range.json.offset, 4, 'foo:1, foo:10, foo:100, foo:11 come before');
      const outside = await t.request('GET', '/q/_partition/foo/_all_docs?start_key="bar:1"&end_key="bar:2"');
      assert.deepEqual(outside.json.rows, []);
      const keys = await t.request('POST', '/q/_partition/foo/_all_docs', {
        body: { keys: ['foo:2', 'bar:2', 'foo:6'] },
      });
      assert.deepEqual(keys.json.rows, [
        { id: 'foo:2', key: 'foo:2', value: { rev: keys.json.rows[0].value.rev } },
        { key: 'bar:2', error: 'not_found' },
        { id: 'foo:6', key: 'foo:6', value: { rev: keys.json.rows[2].value.rev } },
      ]);
      const down = await t.request('GET', '/q/_partition/foo/_all_docs?descending=true&limit=3');
      assert.deepEqual(ids(down), ['foo:99', 'foo:98', 'foo:97']);
      assert.equal(down.json.offset, 0);
      const downFrom = await t.request('GET', '/q/_partition/foo/_all_docs?descending=true&start_key="foo:97"&limit=1');
      assert.deepEqual(ids(downFrom), ['foo:97']);
      assert.equal(downFrom.json.offset, 2, 'foo:99 and foo:98 come before, going down');
      const skipped = await t.request('GET', '/q/_partition/foo/_all_docs?skip=3&limit=2');
      assert.deepEqual(ids(skipped), ['foo:11', 'foo:12']);
      assert.equal(skipped.json.offset, 3);
      const queries = await t.request('POST', '/q/_partition/bar/_all_docs/queries', {
        body: { queries: [{ limit: 1 }, { keys: ['bar:5', 'foo:5'] }] },
      });
      assert.deepEqual(
        queries.json.results.map((r: { rows: { id?: string; key: string }[] }) =>
          r.rows.map((row) => row.id ?? row.key),
        ),
        [['bar:1'], ['bar:5', 'foo:5']],
      );
      const global = await t.request('GET', '/q/_all_docs?partition=bar&limit=2');
      assert.deepEqual(ids(global), ['bar:1', 'bar:10']);
      assert.equal((await t.request('GET', '/q/_all_docs?limit=0')).json.total_rows, 205);
    });

    it('a partition query reads at most partition_query_limit (2000) rows', async () => {
      error(
        await t.request('GET', '/q/_partition/foo/_all_docs?limit=2001'),
        400,
        'query_parse_error',
        'Limit is too large, must not exceed 2000',
      );
      assert.equal((await t.request('GET', '/q/_partition/foo/_all_docs?limit=2000')).json.rows.length, 100);
      error(await t.request('GET', '/q/_partition/foo/_design/map/_view/some?limit=2001'), 400, 'query_parse_error');
      assert.equal((await t.request('GET', '/q/_all_docs?limit=2001')).status, 200, 'a global query has no such limit');
    });

    it('path and query string name the same partition, or 400; bad partitions are 400s', async () => {
      error(
        await t.request('GET', '/q/_partition/foo/_all_docs?partition=bar'),
        400,
        'bad_request',
        'Conflicting value for `partition` in query string',
      );
      assert.equal((await t.request('GET', '/q/_partition/foo/_all_docs?partition=foo&limit=1')).status, 200);
      error(await t.request('GET', '/q/_partition/_bar/_all_docs'), 400, 'illegal_partition');
      error(await t.request('GET', '/q/_all_docs?partition=_x'), 400, 'illegal_partition');
      error(await t.request('GET', '/q/_all_docs?partition='), 400, 'illegal_partition', 'Partition must not be empty');
      error(
        await t.request('GET', '/q/_partition/a%3Ab/_all_docs'),
        400,
        'illegal_partition',
        'Partition must not contain a colon',
      );
    });

    it('a partitioned view (the default in a partitioned database): the partition rows, counts and offset', async () => {
      const r = await t.request('GET', '/q/_partition/foo/_design/map/_view/some');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.total_rows, 100);
      assert.equal(r.json.rows.length, 100);
      assert.ok(ids(r).every((id) => id.startsWith('foo:')));
      const range = await t.request('GET', '/q/_partition/foo/_design/map/_view/some?start_key=12&end_key=20');
      assert.deepEqual(ids(range), [
        'foo:12',
        'foo:13',
        'foo:14',
        'foo:15',
        'foo:16',
        'foo:17',
        'foo:18',
        'foo:19',
        'foo:20',
      ]);
      assert.equal(range.json.offset, 11);
      const down = await t.request('GET', '/q/_partition/bar/_design/map/_view/some?descending=true&limit=2&skip=1');
      assert.deepEqual(ids(down), ['bar:99', 'bar:98']);
      assert.equal(down.json.offset, 1);
      const from98 = await t.request(
        'GET',
        '/q/_partition/foo/_design/map/_view/some?descending=true&startkey=98&limit=2',
      );
      assert.deepEqual(ids(from98), ['foo:98', 'foo:97']);
      assert.equal(from98.json.offset, 2, 'foo:100 and foo:99 come before, going down');
      const keys = await t.request('POST', '/q/_partition/foo/_design/map/_view/some', { body: { keys: [2, 4, 6] } });
      assert.deepEqual(ids(keys), ['foo:2', 'foo:4', 'foo:6']);
      const nothing = await t.request('GET', '/q/_partition/foo/_design/map/_view/some?start_key="foo:12"');
      assert.deepEqual(nothing.json.rows, []);
      const viaQuery = await t.request('GET', '/q/_design/map/_view/some?partition=bar&key=7');
      assert.deepEqual(ids(viaQuery), ['bar:7']);
      const multi = await t.request('POST', '/q/_partition/foo/_design/map/_view/some/queries', {
        body: { queries: [{ key: 3 }, { keys: [5, 7] }] },
      });
      assert.deepEqual(
        multi.json.results.map((r: { rows: { id: string }[] }) => r.rows.map((row) => row.id)),
        [['foo:3'], ['foo:5', 'foo:7']],
      );
      const docs = await t.request('GET', '/q/_partition/foo/_design/map/_view/some?key=22&include_docs=true');
      assert.equal(docs.json.rows[0].doc._id, 'foo:22');
    });

    it('reduce over a partition: groups and totals of its rows only (builtin and JavaScript reduce)', async () => {
      for (const ddoc of ['reduce', 'custom']) {
        const url = `/q/_partition/foo/_design/${ddoc}/_view/some`;
        assert.deepEqual((await t.request('GET', url)).json.rows, [{ key: null, value: 100 }]);
        assert.deepEqual((await t.request('GET', `${url}?group_level=1`)).json.rows, [{ key: ['field'], value: 100 }]);
        assert.deepEqual((await t.request('GET', `${url}?group=true`)).json.rows, [
          { key: ['field', 'one'], value: 16 },
          { key: ['field', 'three'], value: 50 },
          { key: ['field', 'two'], value: 34 },
        ]);
      }
      const bar = await t.request('GET', '/q/_partition/bar/_design/reduce/_view/some?group=true');
      assert.deepEqual(bar.json.rows, [
        { key: ['field', 'one'], value: 17 },
        { key: ['field', 'three'], value: 50 },
        { key: ['field', 'two'], value: 33 },
      ]);
    });

    it('global and partitioned design documents are queried only their own way', async () => {
      error(
        await t.request('GET', '/q/_design/map/_view/some'),
        400,
        'query_parse_error',
        '`partition` parameter is mandatory for queries to this view.',
      );
      const global = await t.request('GET', '/q/_design/global/_view/some');
      assert.equal(global.json.total_rows, 200);
      error(
        await t.request('GET', '/q/_partition/foo/_design/global/_view/some'),
        400,
        'query_parse_error',
        '`partition` parameter is not supported in this design doc',
      );
      const designs = await t.request('GET', '/q/_partition/foo/_design/design/_view/some');
      assert.equal(designs.json.rows.length, 100, 'design documents have no partition and no rows');
      assert.equal((await t.request('GET', '/q/_partition/foo/_design/missing/_view/some')).status, 404);
    });

    it('a design document may not be partitioned in a plain database', async () => {
      await create('plainddoc', '');
      error(
        await t.request('PUT', '/plainddoc/_design/p', { body: { options: { partitioned: true } } }),
        400,
        'invalid_design_doc',
        'partitioned option cannot be true in a non-partitioned database.',
      );
      error(
        await t.request('PUT', '/q/_design/bad', { body: { options: { partitioned: 'yes' } } }),
        400,
        'invalid_design_doc',
      );
      assert.equal(
        (await t.request('PUT', '/plainddoc/_design/g', { body: { options: { partitioned: false } } })).status,
        201,
      );
      // In a batch it is that document's own error row, as any design document check.
      const batch = await t.request('POST', '/plainddoc/_bulk_docs', {
        body: { docs: [{ _id: 'plain' }, { _id: '_design/p2', options: { partitioned: true } }] },
      });
      assert.equal(batch.status, 201, batch.text);
      assert.equal(batch.json[0].ok, true);
      assert.deepEqual(batch.json[1], {
        id: '_design/p2',
        error: 'invalid_design_doc',
        reason: 'partitioned option cannot be true in a non-partitioned database.',
      });
    });
  });

  describe('partitioned views kept up to date', () => {
    it('an update moves a row, a purge removes it, in the partition and nowhere else', async () => {
      await create('upd');
      await bulk('upd', [
        { _id: 'foo:2', value: 2 },
        { _id: 'bar:2', value: 2 },
        { _id: '_design/v', views: { some: { map: 'function (doc) { emit(doc.value, null); }' } } },
      ]);
      const keyRows = async (partition: string, key: number) =>
        ids(await t.request('GET', `/upd/_partition/${partition}/_design/v/_view/some?key=${key}`));
      assert.deepEqual(await keyRows('foo', 2), ['foo:2']);
      const doc = (await t.request('GET', '/upd/foo:2')).json;
      const put = await t.request('PUT', '/upd/foo:2', { body: { ...doc, value: 4 } });
      assert.equal(put.status, 201);
      assert.deepEqual(await keyRows('foo', 2), []);
      assert.deepEqual(await keyRows('foo', 4), ['foo:2']);
      assert.deepEqual(await keyRows('bar', 2), ['bar:2']);
      assert.equal((await t.request('POST', '/upd/_purge', { body: { 'foo:2': [put.json.rev] } })).status, 201);
      assert.deepEqual(await keyRows('foo', 4), []);
      assert.equal((await t.request('GET', '/upd/_partition/foo/_design/v/_view/some')).json.total_rows, 0);
      assert.equal((await t.request('GET', '/upd/_partition/bar/_design/v/_view/some')).json.total_rows, 1);
    });
  });

  describe('Mango in a partitioned database', () => {
    before(async () => {
      await create('m');
      await bulk('m', partitionDocs());
    });

    const find = (path: string, body: unknown) => t.request('POST', path, { body });

    it('_find of a partition scans the partition alone (documents examined) and answers its documents', async () => {
      const r = await find('/m/_partition/foo/_find', { selector: { value: { $gt: 90 } }, execution_stats: true });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(docIds(r).sort(), [
        'foo:100',
        'foo:91',
        'foo:92',
        'foo:93',
        'foo:94',
        'foo:95',
        'foo:96',
        'foo:97',
        'foo:98',
        'foo:99',
      ]);
      assert.equal(r.json.execution_stats.total_docs_examined, 100);
      const global = await find('/m/_find', { selector: { value: { $gt: 90 } }, execution_stats: true, limit: 100 });
      assert.equal(global.json.docs.length, 20);
      assert.equal(global.json.execution_stats.total_docs_examined, 200);
      const inBody = await find('/m/_find', { selector: { value: 3 }, partition: 'bar' });
      assert.deepEqual(docIds(inBody), ['bar:3']);
      // The same body, asked globally and of a partition: two answers (never one cached for both).
      assert.deepEqual(docIds(await find('/m/_find', { selector: { value: 4 } })).sort(), ['bar:4', 'foo:4']);
      assert.deepEqual(docIds(await find('/m/_partition/foo/_find', { selector: { value: 4 } })), ['foo:4']);
      assert.deepEqual(docIds(await find('/m/_partition/bar/_find', { selector: { value: 4 } })), ['bar:4']);
    });

    it('indexes are partitioned by default: a partition query uses them, a global one cannot', async () => {
      const created = await find('/m/_index', { index: { fields: ['value'] }, name: 'by-value', ddoc: 'pidx' });
      assert.equal(created.status, 200, created.text);
      const ddoc = (await t.request('GET', '/m/_design/pidx')).json;
      assert.equal(ddoc.options, undefined, 'the database default is not written down');
      const listed = (await t.request('GET', '/m/_index')).json.indexes;
      assert.equal(listed.find((ix: { name: string }) => ix.name === 'by-value').partitioned, true);
      const plan = await find('/m/_partition/foo/_explain', { selector: { value: { $gt: 90 } } });
      assert.equal(plan.json.index.name, 'by-value');
      assert.equal(plan.json.partitioned, true);
      assert.equal(plan.json.mrargs.partition, 'foo');
      const r = await find('/m/_partition/foo/_find', {
        selector: { value: { $gt: 90 } },
        sort: ['value'],
        execution_stats: true,
      });
      assert.deepEqual(docIds(r), [
        'foo:91',
        'foo:92',
        'foo:93',
        'foo:94',
        'foo:95',
        'foo:96',
        'foo:97',
        'foo:98',
        'foo:99',
        'foo:100',
      ]);
      // 90 to 100: the range's low bound is inclusive (the selector then drops 90).
      assert.equal(r.json.execution_stats.total_keys_examined, 11, 'the index rows of the partition only');
      const global = await find('/m/_explain', { selector: { value: { $gt: 90 } } });
      assert.equal(global.json.index.name, '_all_docs');
      assert.equal(global.json.mrargs.partition, null);
      // A bookmark goes on within the partition.
      const page = { selector: { value: { $gte: 6, $lt: 16 } }, limit: 3 };
      const first = await find('/m/_partition/foo/_find', page);
      assert.deepEqual(docIds(first), ['foo:6', 'foo:7', 'foo:8']);
      const next = await find('/m/_partition/foo/_find', { ...page, bookmark: first.json.bookmark });
      assert.deepEqual(docIds(next), ['foo:9', 'foo:10', 'foo:11']);
      error(
        await t.request('GET', '/m/_partition/_find'),
        400,
        'illegal_partition',
        'Partition must not start with an underscore',
      );
      error(
        await find('/m/_find', { selector: { value: { $gt: 90 } }, sort: ['value'] }),
        400,
        'no_usable_index',
        'No global index exists for this sort, try indexing by the sort fields.',
      );
      error(
        await find('/m/_partition/foo/_find', { selector: { group: 'one' }, sort: ['group'] }),
        400,
        'no_usable_index',
        'No partitioned index exists for this sort, try indexing by the sort fields.',
      );
    });

    it('a global index (partitioned: false) serves global queries; an existing ddoc keeps its setting', async () => {
      const created = await find('/m/_index', {
        index: { fields: ['group'] },
        name: 'by-group',
        ddoc: 'gidx',
        partitioned: false,
      });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual((await t.request('GET', '/m/_design/gidx')).json.options, { partitioned: false });
      const r = await find('/m/_find', { selector: { group: 'one' }, sort: ['group'], fields: ['_id'], limit: 200 });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.docs.length, 33);
      const mismatch = await find('/m/_index', { index: { fields: ['some'] }, ddoc: 'gidx', partitioned: true });
      error(
        mismatch,
        400,
        'invalid_partitioned_option',
        'Requested partitioned option does not match existing value on design document _design/gidx',
      );
    });

    it('a plain database refuses partitioned indexes and partition queries', async () => {
      await create('mplain', '');
      error(await find('/mplain/_index', { index: { fields: ['a'] }, partitioned: true }), 400, 'invalid_partitioned');
      error(
        await find('/mplain/_find', { selector: {}, partition: 'p' }),
        400,
        'query_parse_error',
        '`partition` parameter is not supported on this db',
      );
      error(
        await find('/mplain/_partition/p/_find', { selector: {} }),
        400,
        'bad_request',
        'database is not partitioned',
      );
    });
  });

  describe('replication', () => {
    it('create_target_params.partitioned creates a partitioned target', async () => {
      await create('rsrc');
      await bulk('rsrc', [{ _id: 'a:1' }, { _id: 'a:2' }, { _id: 'b:1' }]);
      const r = await t.request('POST', '/_replicate', {
        body: { source: 'rsrc', target: 'rtgt', create_target: true, create_target_params: { partitioned: true } },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((await t.request('GET', '/rtgt')).json.props, { partitioned: true });
      assert.equal((await t.request('GET', '/rtgt/_partition/a')).json.doc_count, 2);
    });
  });
});

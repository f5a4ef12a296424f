import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/** open_revs answers multipart/mixed to any Accept that takes it (fetch sends any-type), as CouchDB. */
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

/** Behaviours where Divan followed CouchDB 3.5 less than exactly, checked against a real server. */
describe('exactly CouchDB', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  const replicate = (docs: unknown[]) => t.request('POST', '/db/_bulk_docs', { body: { new_edits: false, docs } });

  describe('ids and URLs', () => {
    it('a percent-escape that is not UTF-8 is a 400, and nothing is stored under the escape as written', async () => {
      const put = await t.request('PUT', '/db/caf%E9', { body: {} });
      // CouchDB 3.5 recorded: `%C3%28` → illegal_docid "Document id must be valid UTF-8".
      assert.deepEqual(
        [put.status, put.json],
        [400, { error: 'illegal_docid', reason: 'Document id must be valid UTF-8' }],
      );
      assert.equal((await t.request('GET', '/db/caf%25E9')).status, 404);
      assert.equal((await t.request('GET', '/db/caf%E9')).status, 400);
      const ok = await t.request('PUT', '/db/caf%C3%A9', { body: {} });
      assert.equal(ok.status, 201);
      assert.equal(ok.json.id, 'café');
    });

    it('a malformed percent-escape is a 400 invalid_url_encoding', async () => {
      const r = await t.request('GET', '/db/x%zz');
      assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason: 'invalid_url_encoding' }]);
    });

    it('the Location of PUT /db escapes ( and )', async () => {
      const r = await t.request('PUT', '/with(parens)');
      assert.equal(r.status, 201);
      assert.equal(r.headers.get('location'), `${t.url}/with%28parens%29`);
    });

    it('GET / names the build, its features and its vendor', async () => {
      const r = await t.request('GET', '/', { auth: false });
      assert.equal(typeof r.json.git_sha, 'string');
      assert.ok(Array.isArray(r.json.features));
      assert.equal(r.json.vendor.name, 'Divan');
      assert.equal(r.json.version, '3.5.0');
    });
  });

  describe('_bulk_docs', () => {
    it('gives a batch its sequences in id order (UTF-8 bytes), whatever the request order', async () => {
      const { update_seq: before } = (await t.request('GET', '/db')).json;
      const ids = ['seq-c', 'seq-\u{1F600}', 'seq-B', 'seq-\uE000', 'seq-a'];
      const r = await t.request('POST', '/db/_bulk_docs', { body: { docs: ids.map((_id) => ({ _id })) } });
      assert.deepEqual(
        r.json.map((row: { id: string }) => row.id),
        ids,
        'rows stay in request order',
      );
      const changes = (await t.request('GET', `/db/_changes?since=${before}`)).json.results;
      assert.deepEqual(
        changes.map((row: { id: string }) => row.id),
        ['seq-B', 'seq-a', 'seq-c', 'seq-\uE000', 'seq-\u{1F600}'],
      );
      const seqOf = async (id: string) =>
        (await t.request('GET', `/db/${encodeURIComponent(id)}?local_seq=true`)).json._local_seq;
      assert.equal(await seqOf('seq-B'), before + 1);
      assert.equal(await seqOf('seq-\u{1F600}'), before + 5);
    });

    it('new_edits:false accepts the bare rev `1-`, and says what is missing without a rev', async () => {
      assert.deepEqual((await replicate([{ _id: 'bare', _rev: '1-', v: 1 }])).json, []);
      const doc = await t.request('GET', '/db/bare?revs=true');
      assert.deepEqual(doc.json, { _id: 'bare', _rev: '1-', v: 1, _revisions: { start: 1, ids: [''] } });
      const none = await replicate([{ _id: 'norev', v: 1 }]);
      assert.deepEqual(
        [none.status, none.json],
        [
          400,
          {
            error: 'bad_request',
            reason: 'When `new_edits: false`, the document needs `_rev` or `_revisions` specified',
          },
        ],
      );
    });

    it('`"_rev": "0-"` on a new document is accepted (and hashed with its empty parent id)', async () => {
      const withZero = await t.request('PUT', '/db/zero', { body: { _rev: '0-', a: 1 } });
      const without = await t.request('PUT', '/db/nozero', { body: { a: 1 } });
      assert.equal(withZero.status, 201);
      assert.match(withZero.json.rev, /^1-[0-9a-f]{32}$/);
      assert.notEqual(withZero.json.rev, without.json.rev);
    });

    it('accepts the replicator members `_replication_*` and keeps them', async () => {
      const body = {
        _replication_id: 'abc',
        _replication_state: 'triggered',
        _replication_state_time: '2026-01-01T00:00:00Z',
        _replication_state_reason: 'none',
        _replication_stats: { docs_read: 1 },
      };
      const r = await t.request('PUT', '/db/repdoc', { body });
      assert.equal(r.status, 201);
      const doc = (await t.request('GET', '/db/repdoc')).json;
      assert.deepEqual({ ...doc, _id: undefined, _rev: undefined }, { ...body, _id: undefined, _rev: undefined });
    });
  });

  describe('_local documents', () => {
    it('answer an opaque quoted ETag on PUT, GET, HEAD and DELETE, and 304 on If-None-Match', async () => {
      const opaque = /^"[0-9A-Z]+"$/;
      const put = await t.request('PUT', '/db/_local/cp', { body: { n: 1 } });
      assert.equal(put.status, 201);
      const putTag = put.headers.get('etag')!;
      assert.match(putTag, opaque);
      assert.notEqual(putTag, '"0-1"');
      const get = await t.request('GET', '/db/_local/cp');
      assert.equal(get.headers.get('etag'), putTag);
      const head = await t.request('HEAD', '/db/_local/cp');
      assert.equal(head.headers.get('etag'), putTag);
      const cached = await t.request('GET', '/db/_local/cp', { headers: { 'if-none-match': putTag } });
      assert.equal(cached.status, 304);
      // The same rev with another body (a PUT without rev overwrites 0-1) is another ETag.
      await t.request('PUT', '/db/_local/cp', { body: { n: 2 } });
      assert.notEqual((await t.request('GET', '/db/_local/cp')).headers.get('etag'), putTag);
      const del = await t.request('DELETE', '/db/_local/cp');
      assert.equal(del.status, 200);
      assert.match(del.headers.get('etag')!, opaque);
    });

    it('a rev that is not 0-N is a 400, not a crash', async () => {
      const r = await t.request('PUT', '/db/_local/badrev', { body: { _rev: '1-abc' } });
      assert.deepEqual([r.status, r.json.error], [400, 'bad_request']);
    });
  });

  describe('_changes', () => {
    let since: number;
    before(async () => {
      await t.request('PUT', '/changes');
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) await t.request('PUT', `/changes/${id}`, { body: {} });
      since = 0;
    });

    it('pending counts what a descending feed cut by its limit did not reach', async () => {
      const r = (await t.request('GET', '/changes/_changes?descending=true&limit=2')).json;
      assert.deepEqual(
        r.results.map((row: { id: string }) => row.id),
        ['c5', 'c4'],
      );
      assert.equal(r.pending, 3);
      assert.equal((await t.request('GET', '/changes/_changes?descending=true&limit=0')).json.pending, 5);
      assert.equal((await t.request('GET', '/changes/_changes?descending=true')).json.pending, 0);
      const ascending = (await t.request('GET', `/changes/_changes?since=${since}&limit=2`)).json;
      assert.equal(ascending.pending, 3);
    });

    it('pending counts what a filtered feed cut by its limit did not reach, and the continuous feed agrees', async () => {
      const ids = encodeURIComponent(JSON.stringify(['c1', 'c2', 'c4']));
      const r = (await t.request('GET', `/changes/_changes?filter=_doc_ids&doc_ids=${ids}&limit=1`)).json;
      assert.deepEqual([r.results.length, r.pending], [1, 4]);
      const feed = await t.request('GET', '/changes/_changes?feed=continuous&descending=true&limit=2');
      const last = JSON.parse(feed.text.trim().split('\n').at(-1)!);
      assert.equal(last.pending, 3);
    });

    it('filter=_doc_ids with an id named twice returns its row twice', async () => {
      const r = await t.request('POST', '/changes/_changes?filter=_doc_ids', {
        body: { doc_ids: ['c2', 'c3', 'c2'] },
      });
      assert.deepEqual(
        r.json.results.map((row: { id: string }) => row.id),
        ['c2', 'c2', 'c3'],
      );
    });
  });

  describe('revision lists', () => {
    before(async () => {
      // x: 1-aaa → 2-bbb, 1-aaa → 2-ddd → 3-ccc, and a second root 1-zzz.
      await replicate([
        { _id: 'x', _rev: '2-bbb', _revisions: { start: 2, ids: ['bbb', 'aaa'] }, v: 'b' },
        { _id: 'x', _rev: '3-ccc', _revisions: { start: 3, ids: ['ccc', 'ddd', 'aaa'] }, v: 'c' },
        { _id: 'x', _rev: '1-zzz', v: 'z' },
      ]);
    });
    const revsOf = (rows: { ok?: { _rev: string }; missing?: string }[]) =>
      rows.map((row) => row.ok?._rev ?? { missing: row.missing });

    it('open_revs=[...] answers in CouchDB\'s order (found by rev, then missing by rev), a missing rev as {"missing": rev}, with revs_info', async () => {
      // fabric_doc_open_revs sorts its replies: {ok, Doc} before {{not_found, missing}, Rev}, each by (generation, id).
      const list = encodeURIComponent(JSON.stringify(['3-ccc', '9-nope', '2-bbb', '1-aaa', '3-ccc']));
      const r = await t.request('GET', `/db/x?open_revs=${list}&revs_info=true`, JSON_ACCEPT);
      assert.deepEqual(revsOf(r.json), ['2-bbb', '3-ccc', { missing: '1-aaa' }, { missing: '9-nope' }]);
      assert.deepEqual(r.json[1].ok._revs_info, [
        { rev: '3-ccc', status: 'available' },
        { rev: '2-ddd', status: 'missing' },
        { rev: '1-aaa', status: 'missing' },
      ]);
    });

    it('open_revs=[...]&latest=true lists each leaf once', async () => {
      const list = encodeURIComponent(JSON.stringify(['1-aaa', '2-bbb', '2-ddd']));
      const r = await t.request('GET', `/db/x?open_revs=${list}&latest=true`, JSON_ACCEPT);
      assert.deepEqual(revsOf(r.json), ['2-bbb', '3-ccc']);
      const reversed = encodeURIComponent(JSON.stringify(['2-ddd', '1-zzz', '2-bbb', '5-gone']));
      const again = await t.request('GET', `/db/x?open_revs=${reversed}&latest=true`, JSON_ACCEPT);
      assert.deepEqual(revsOf(again.json), ['1-zzz', '2-bbb', '3-ccc', { missing: '5-gone' }]);
    });

    it('GET ?rev=R&latest=true is the best leaf below R', async () => {
      assert.equal((await t.request('GET', '/db/x?rev=1-aaa&latest=true')).json._rev, '3-ccc');
      assert.equal((await t.request('GET', '/db/x?rev=2-ddd&latest=true')).json._rev, '3-ccc');
      assert.equal((await t.request('GET', '/db/x?rev=2-bbb&latest=true')).json._rev, '2-bbb');
    });

    it('_bulk_get honours latest=true and refuses rev-like query parameters', async () => {
      const r = await t.request('POST', '/db/_bulk_get?latest=true', { body: { docs: [{ id: 'x', rev: '2-ddd' }] } });
      assert.deepEqual(
        r.json.results[0].docs.map((d: { ok: { _rev: string } }) => d.ok._rev),
        ['3-ccc'],
      );
      const bad = await t.request('POST', '/db/_bulk_get?rev=1-aaa', { body: { docs: [] } });
      assert.deepEqual(
        [bad.status, bad.json],
        [400, { error: 'bad_request', reason: '"rev" query parameter is not acceptable' }],
      );
    });

    it("open_revs=all lists leaves by (generation, id); _bulk_get without rev in couch_key_tree's leaf order", async () => {
      // y: 1-aaa → 2-bbb, 1-aaa → 2-ddd → 3-eee, and a second root 1-mmm → 2-ccc.
      await replicate([
        { _id: 'y', _rev: '2-bbb', _revisions: { start: 2, ids: ['bbb', 'aaa'] } },
        { _id: 'y', _rev: '3-eee', _revisions: { start: 3, ids: ['eee', 'ddd', 'aaa'] } },
        { _id: 'y', _rev: '2-ccc', _revisions: { start: 2, ids: ['ccc', 'mmm'] } },
      ]);
      const all = await t.request('GET', '/db/y?open_revs=all', JSON_ACCEPT);
      assert.deepEqual(revsOf(all.json), ['2-bbb', '2-ccc', '3-eee']);
      // fabric_open_revs merges the leaves into a tree; get_all_leafs lists the last root's
      // leaves first, each root depth first with children by id.
      const bulk = await t.request('POST', '/db/_bulk_get', { body: { docs: [{ id: 'y' }, { id: 'x' }] } });
      const listed = bulk.json.results.map((entry: { docs: { ok: { _rev: string } }[] }) =>
        entry.docs.map((d) => d.ok._rev),
      );
      assert.deepEqual(listed, [
        ['2-ccc', '2-bbb', '3-eee'],
        ['1-zzz', '2-bbb', '3-ccc'],
      ]);
      const latest = await t.request('POST', '/db/_bulk_get?latest=true', {
        body: { docs: [{ id: 'y', rev: '1-aaa' }] },
      });
      assert.deepEqual(
        latest.json.results[0].docs.map((d: { ok: { _rev: string } }) => d.ok._rev),
        ['2-bbb', '3-eee'],
      );
    });

    it("_revs_diff lists missing revs in couch_key_tree's order and possible ancestors in CouchDB's", async () => {
      const r = await t.request('POST', '/db/_revs_diff', { body: { x: ['4-new', '1-aaa', '1-new', '2-bbb'] } });
      assert.deepEqual(r.json, {
        x: { missing: ['1-new', '4-new'], possible_ancestors: ['3-ccc', '2-bbb', '1-zzz'] },
      });
    });
  });

  describe('databases', () => {
    before(async () => {
      for (const name of ['adb', 'bdb', 'cdb']) await t.request('PUT', `/${name}`);
    });

    it('_all_dbs takes startkey/endkey (and start_key/end_key), descending, limit and skip', async () => {
      const all = (await t.request('GET', '/_all_dbs')).json as string[];
      assert.ok(['adb', 'bdb', 'cdb', 'db'].every((name) => all.includes(name)));
      const q = (query: string) => t.request('GET', `/_all_dbs?${query}`).then((r) => r.json);
      assert.deepEqual(await q('startkey="bdb"&endkey="cdb"'), ['bdb', 'cdb']);
      assert.deepEqual(await q('start_key="bdb"&end_key="cdb"&inclusive_end=false'), ['bdb']);
      assert.deepEqual(await q('startkey="cdb"&endkey="adb"&descending=true'), ['cdb', 'bdb', 'adb']);
      assert.deepEqual(await q('startkey="adb"&limit=2&skip=1'), ['bdb', 'cdb']);
      const bad = await t.request('GET', '/_all_dbs?limit=x');
      assert.deepEqual([bad.status, bad.json.error], [400, 'query_parse_error']);
    });

    it('POST /_dbs_info answers a missing database as a not_found row; GET lists them all', async () => {
      const r = await t.request('POST', '/_dbs_info', { body: { keys: ['adb', 'nope'] } });
      assert.equal(r.status, 200);
      assert.equal(r.json[0].key, 'adb');
      assert.equal(r.json[0].info.db_name, 'adb');
      assert.deepEqual(r.json[1], { key: 'nope', error: 'not_found' });
      const missing = await t.request('POST', '/_dbs_info', { body: {} });
      assert.deepEqual([missing.status, missing.json.reason], [400, '`keys` member must exist.']);
      const listed = (await t.request('GET', '/_dbs_info?startkey="bdb"&limit=1')).json;
      assert.deepEqual(
        listed.map((row: { key: string }) => row.key),
        ['bdb'],
      );
    });

    it('a bad q or n on creation has CouchDB reason', async () => {
      for (const [query, name] of [
        ['q=0', 'q'],
        ['q=abc', 'q'],
        ['n=-1', 'n'],
      ]) {
        const r = await t.request('PUT', `/newdb?${query}`);
        assert.deepEqual(
          [r.status, r.json],
          [400, { error: 'bad_request', reason: `The \`${name}\` value should be a positive integer.` }],
        );
      }
    });

    it('_all_docs refuses keys in both query and body, and reduce or grouping', async () => {
      const both = await t.request('POST', `/db/_all_docs?keys=${encodeURIComponent('["a"]')}`, {
        body: { keys: ['b'] },
      });
      assert.deepEqual([both.status, both.json.error], [400, 'query_parse_error']);
      for (const [query, reason] of [
        ['reduce=true', 'Reduce is invalid for map-only views.'],
        ['group=true', 'Invalid use of grouping on a map view.'],
        ['group_level=1', 'Invalid use of grouping on a map view.'],
      ]) {
        const r = await t.request('GET', `/db/_all_docs?${query}`);
        assert.deepEqual([r.status, r.json], [400, { error: 'query_parse_error', reason }], query);
      }
      assert.equal((await t.request('GET', '/db/_all_docs?reduce=false')).status, 200);
    });

    it('the node-local API answers under /_node/_local/ and validates database names there', async () => {
      const info = await t.request('GET', '/_node/_local/adb');
      assert.deepEqual([info.status, info.json.db_name], [200, 'adb']);
      const named = await t.request('GET', '/_node/nonode@nohost/adb/_all_docs');
      assert.equal(named.status, 200);
      const bad = await t.request('GET', '/_node/_local/Bad-Name');
      assert.deepEqual([bad.status, bad.json.error], [400, 'illegal_database_name']);
      const clustered = await t.request('GET', '/Bad-Name');
      assert.equal(clustered.status, 404, 'the clustered API does not validate names on reads');
      const unknown = await t.request('GET', '/_node/elsewhere@host/adb');
      assert.equal(unknown.status, 404);
      assert.ok((await t.request('GET', '/_node/_local/_all_dbs')).json.includes('adb'));
    });
  });

  describe('reserved names', () => {
    it('an endpoint not built yet answers a clear error naming it', async () => {
      // Design functions are built: a show of a missing design document is CouchDB's 404.
      const show = await t.request('GET', '/db/_design/d/_show/s');
      assert.deepEqual([show.status, show.json], [404, { error: 'not_found', reason: 'missing' }]);
      const shards = await t.request('GET', '/db/_shards');
      assert.deepEqual([shards.status, shards.json.error], [501, 'not_implemented']);
      assert.match(shards.json.reason, /_shards/);
      const reshard = await t.request('GET', '/_reshard');
      assert.equal(reshard.status, 501);
      assert.ok(reshard.json.reason.includes('_reshard'), reshard.json.reason);
      const config = await t.request('GET', '/_config');
      assert.deepEqual([config.status, config.json.error], [404, 'not_found']);
      assert.match(config.json.reason, /_node\/_local\/_config/);
    });

    it('an unknown _name is a missing database to read and an illegal name to create', async () => {
      assert.equal((await t.request('GET', '/_nosuch')).status, 404);
      const put = await t.request('PUT', '/_nosuch');
      assert.deepEqual([put.status, put.json.error], [400, 'illegal_database_name']);
    });
  });
});

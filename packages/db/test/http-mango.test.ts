import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * `_index`, `_find` and `_explain` over HTTP, as CouchDB 3.5.0 answered the same requests (the
 * recorded behaviour is quoted where a test pins a quirk).
 */
describe('Mango over HTTP', () => {
  let t: TestServer;
  const find = (body: unknown) => t.request('POST', '/m/_find', { body });
  const explain = (body: unknown) => t.request('POST', '/m/_explain', { body });
  const ids = (r: { json: { docs: { _id: string }[] } }) => r.json.docs.map((d) => d._id);

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/m');
    const docs = Array.from({ length: 40 }, (_, i) => ({
      _id: `d${String(i).padStart(2, '0')}`,
      type: i % 2 === 0 ? 'user' : 'post',
      n: i,
      rank: 40 - i,
      grp: i % 4,
      ...(i % 5 === 0 ? { tag: 'five' } : {}),
    }));
    await t.request('POST', '/m/_bulk_docs', { body: { docs } });
    await t.request('PUT', '/m/_design/app', {
      body: { language: 'javascript', views: { v: { map: 'function (d) { emit(d.n) }' } } },
    });
  });
  after(() => t.close());

  describe('_index', () => {
    it('creates an index with an auto name CouchDB would give, then says it exists', async () => {
      const created = await t.request('POST', '/m/_index', { body: { index: { fields: ['date'] } } });
      assert.equal(created.status, 200);
      assert.deepEqual(created.json, {
        result: 'created',
        id: '_design/c5b788e21b4d693554a69d139396f6744bd59246',
        name: 'c5b788e21b4d693554a69d139396f6744bd59246',
      });
      const again = await t.request('POST', '/m/_index', { body: { index: { fields: ['date'] } } });
      assert.equal(again.json.result, 'exists');
      const ddoc = await t.request('GET', '/m/_design/c5b788e21b4d693554a69d139396f6744bd59246');
      assert.equal(ddoc.json.language, 'query');
      assert.deepEqual(ddoc.json.views.c5b788e21b4d693554a69d139396f6744bd59246, {
        map: { fields: { date: 'asc' }, partial_filter_selector: {} },
        reduce: '_count',
        options: { def: { fields: ['date'] } },
      });
      const deleted = await t.request(
        'DELETE',
        '/m/_index/c5b788e21b4d693554a69d139396f6744bd59246/json/c5b788e21b4d693554a69d139396f6744bd59246',
      );
      assert.deepEqual(deleted.json, { ok: true });
      assert.equal(
        (await t.request('GET', '/m/_design/c5b788e21b4d693554a69d139396f6744bd59246')).json.reason,
        'deleted',
      );
    });

    it('names and lists indexes: _all_docs first, then by design doc and name', async () => {
      for (const [name, fields] of [
        ['ix-n', ['n']],
        ['ix-type-n', ['type', 'n']],
        ['ix-grp-rank', ['grp', 'rank']],
        ['ix-rank', ['rank']],
      ] as const) {
        const r = await t.request('POST', '/m/_index', { body: { index: { fields }, name, ddoc: name } });
        assert.equal(r.status, 200, JSON.stringify(r.json));
      }
      const partial = await t.request('POST', '/m/_index', {
        body: { index: { fields: ['n'], partial_filter_selector: { tag: 'five' } }, name: 'fives', ddoc: 'partial' },
      });
      assert.equal(partial.status, 200);
      const list = await t.request('GET', '/m/_index');
      assert.equal(list.json.total_rows, 6);
      assert.deepEqual(list.json.indexes[0], {
        ddoc: null,
        name: '_all_docs',
        type: 'special',
        def: { fields: [{ _id: 'asc' }] },
      });
      assert.deepEqual(
        list.json.indexes.map((i: { ddoc: string; name: string }) => `${i.ddoc}/${i.name}`),
        [
          'null/_all_docs',
          '_design/ix-grp-rank/ix-grp-rank',
          '_design/ix-n/ix-n',
          '_design/ix-rank/ix-rank',
          '_design/ix-type-n/ix-type-n',
          '_design/partial/fives',
        ],
      );
      assert.deepEqual(list.json.indexes[5].def, {
        fields: [{ n: 'asc' }],
        partial_filter_selector: { tag: { $eq: 'five' } },
      });
      const page = await t.request('GET', '/m/_index?skip=1&limit=2');
      assert.deepEqual(
        page.json.indexes.map((i: { name: string }) => i.name),
        ['ix-grp-rank', 'ix-n'],
      );
      assert.equal((await t.request('GET', '/m/_index?limit=0')).status, 400);
    });

    it('refuses bad definitions with CouchDB errors', async () => {
      const post = (body: unknown) => t.request('POST', '/m/_index', { body });
      assert.deepEqual((await post({})).json, { error: 'missing_required_key', reason: 'Missing required key: index' });
      assert.deepEqual((await post({ index: {} })).json, {
        error: 'missing_required_key',
        reason: 'Missing required key: fields',
      });
      assert.equal((await post({ index: { fields: ['n'] }, type: 'geo' })).json.reason, 'Invalid type for index: geo');
      assert.equal((await post({ index: { fields: ['n'] }, name: '' })).json.error, 'invalid_empty_string');
      assert.equal((await post({ index: { fields: ['n'] }, extra: 1 })).json.error, 'invalid_key');
      const lang = await post({ index: { fields: ['n'] }, ddoc: 'app' });
      assert.equal(lang.status, 400);
      assert.deepEqual(lang.json, {
        error: 'invalid_ddoc_lang',
        reason: 'Existing design doc has an invalid language: <<"javascript">>',
      });
      const typed = await t.request('POST', '/m/_index', {
        body: { index: { fields: ['n'] } },
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(typed.status, 415);
      assert.equal((await t.request('PUT', '/m/_index', { body: {} })).status, 405);
      assert.equal((await t.request('DELETE', '/m/_index/nope/json/nope')).status, 404);
      assert.equal((await t.request('DELETE', '/m/_index/ix-n/text/ix-n')).status, 404);
      assert.equal((await t.request('GET', '/m/_index/x')).status, 404);
    });
  });

  describe('_find', () => {
    it('without an index: _all_docs in id order, limit 25 by default, with its warning', async () => {
      const r = await find({ selector: { type: 'user' } });
      assert.equal(r.status, 200);
      assert.equal(r.json.docs.length, 20);
      assert.deepEqual(ids(r).slice(0, 3), ['d00', 'd02', 'd04']);
      assert.equal(typeof r.json.bookmark, 'string');
      assert.match(r.json.warning, /No matching index found/);
      const all = await find({ selector: {} });
      assert.equal(all.json.docs.length, 25, 'design documents are never matched; limit 25');
    });

    it('an index serves a range, in its order, sorted both ways', async () => {
      const r = await find({ selector: { n: { $gte: 10, $lt: 15 } }, fields: ['_id', 'n'] });
      assert.deepEqual(
        r.json.docs,
        [10, 11, 12, 13, 14].map((n) => ({ _id: `d${n}`, n })),
      );
      assert.equal(r.json.warning, undefined);
      const desc = await find({ selector: { n: { $gt: 30 } }, sort: [{ n: 'desc' }], fields: ['n'], limit: 3 });
      assert.deepEqual(desc.json.docs, [{ n: 39 }, { n: 38 }, { n: 37 }]);
      const byRank = await find({ selector: { grp: 3 }, sort: ['rank'], fields: ['_id', 'rank'] });
      assert.deepEqual(
        byRank.json.docs.map((d: { rank: number }) => d.rank),
        [1, 5, 9, 13, 17, 21, 25, 29, 33, 37],
      );
      const noIndex = await find({ selector: { type: 'user' }, sort: ['type'] });
      assert.equal(noIndex.status, 400);
      assert.deepEqual(noIndex.json, {
        error: 'no_usable_index',
        reason: 'No index exists for this sort, try indexing by the sort fields.',
      });
    });

    it('pages with bookmarks (skip applies on every page), ending with an empty page', async () => {
      const seen: string[] = [];
      let bookmark: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await find({
          selector: { n: { $gte: 0 } },
          fields: ['_id'],
          limit: 15,
          ...(bookmark ? { bookmark } : {}),
        });
        if (r.json.docs.length === 0) {
          assert.equal(r.json.bookmark, bookmark, 'an empty page gives the bookmark back');
          break;
        }
        seen.push(...ids(r));
        bookmark = r.json.bookmark;
      }
      assert.equal(seen.length, 40);
      assert.deepEqual(seen, [...seen].sort());
      const skipped = await find({ selector: { n: { $gte: 0 } }, fields: ['n'], limit: 2, skip: 2 });
      assert.deepEqual(skipped.json.docs, [{ n: 2 }, { n: 3 }]);
      const next = await find({
        selector: { n: { $gte: 0 } },
        fields: ['n'],
        limit: 2,
        skip: 2,
        bookmark: skipped.json.bookmark,
      });
      assert.deepEqual(next.json.docs, [{ n: 6 }, { n: 7 }], 'skip again on the next page');
      const zero = await find({ selector: { n: 1 }, limit: 0 });
      assert.deepEqual(zero.json, { docs: [], bookmark: 'nil' });
      const bad = await find({ selector: { n: 1 }, bookmark: 'abc' });
      assert.deepEqual(bad.json, { error: 'invalid_bookmark', reason: 'Invalid bookmark value: "abc"' });
    });

    it('skip in an index range that is the whole selector: the same documents, stats and bookmark as a range the matcher checks', async () => {
      // A database of its own: the index must not change which index the other tests' queries choose.
      await t.request('PUT', '/mskip');
      const docs = Array.from({ length: 40 }, (_, i) => ({
        _id: `s${String(i).padStart(2, '0')}`,
        type: i % 2 === 0 ? 'user' : 'post',
        n: i,
        grp: `g${i % 4}`,
      }));
      await t.request('POST', '/mskip/_bulk_docs', { body: { docs } });
      await t.request('POST', '/mskip/_index', { body: { index: { fields: ['type', 'grp'] }, name: 'ix-type-grp' } });
      const query = (body: object) =>
        t.request('POST', '/mskip/_find', { body: { execution_stats: true, limit: 3, ...body } });
      const selector = { type: 'post', grp: { $gte: 'g1' } };
      // An exact range (skipped rows are counted from the index): `$eq`, then an inclusive bound on
      // strings (a number in a document may be more precise than its index key: left to the matcher).
      const exact = await query({ selector, skip: 4 });
      const whole = await query({ selector, limit: 100 });
      assert.equal(whole.json.docs.length, 20);
      assert.deepEqual(exact.json.docs, whole.json.docs.slice(4, 7), 'the rows after the skipped ones');
      assert.equal(exact.json.execution_stats.total_docs_examined, 8, 'skipped rows count as examined, as CouchDB');
      assert.equal(exact.json.execution_stats.total_keys_examined, 8);
      const next = await query({ selector, skip: 4, bookmark: exact.json.bookmark });
      assert.deepEqual(next.json.docs, whole.json.docs.slice(11, 14), 'the bookmark is the last row taken');
      // A strict bound is left to the matcher: the same answer and counts through the other path.
      const strict = await query({ selector: { type: 'post', grp: { $gt: 'g0' } }, skip: 4 });
      assert.deepEqual(strict.json.docs, exact.json.docs);
      assert.equal(strict.json.bookmark, exact.json.bookmark);
      assert.equal(strict.json.execution_stats.total_docs_examined, 8);
      // A condition outside the range (`n`) still filters the skipped rows.
      const filtered = await query({ selector: { ...selector, n: { $gt: 20 } }, skip: 2 });
      assert.deepEqual(filtered.json.docs, whole.json.docs.filter((d: { n: number }) => d.n > 20).slice(2, 5));
      // A document changed since the last query has left the range: the index is read fresh.
      const moved = whole.json.docs[0] as { _id: string };
      const put = await t.request('PUT', `/mskip/${moved._id}`, { body: { ...moved, type: 'moved' } });
      assert.equal(put.status, 201);
      const after = await query({ selector, skip: 3 });
      assert.deepEqual(after.json.docs, whole.json.docs.slice(4, 7));
    });

    it('a skip the index passes over by its counts: every skip, both directions, past the range end, alike to the matcher path', async () => {
      await t.request('PUT', '/mskip2');
      const docs = Array.from({ length: 30 }, (_, i) => ({ _id: `k${String(i).padStart(2, '0')}`, g: `g${i % 3}` }));
      await t.request('POST', '/mskip2/_bulk_docs', { body: { docs } });
      await t.request('POST', '/mskip2/_index', { body: { index: { fields: ['g'] }, name: 'ix-g' } });
      const query = (body: object) =>
        t.request('POST', '/mskip2/_find', { body: { execution_stats: true, limit: 2, ...body } });
      for (const sort of [undefined, [{ g: 'desc' }]]) {
        // 10 documents in g1: skips up to and past the end of the range.
        for (const skip of [0, 1, 2, 7, 8, 9, 10, 11, 15]) {
          const exact = await query({ selector: { g: 'g1' }, skip, ...(sort === undefined ? {} : { sort }) });
          // `$gt`/`$lt` around g1 alone: the same documents and bookmark, each row read and matched.
          const matched = await query({
            selector: { g: { $gt: 'g0', $lt: 'g2' } },
            skip,
            ...(sort === undefined ? {} : { sort }),
          });
          const what = `skip ${skip}${sort === undefined ? '' : ' descending'}`;
          assert.equal(exact.status, 200, what);
          assert.deepEqual(exact.json.docs, matched.json.docs, what);
          assert.equal(exact.json.bookmark, matched.json.bookmark, what);
          // The skipped rows, the rows returned and the one after them, within g1's 10 rows (the
          // matcher's path examines g0's rows too: its range starts at the excluded bound).
          assert.equal(exact.json.execution_stats.total_keys_examined, Math.min(10, skip + 3), what);
          assert.equal(exact.json.execution_stats.total_docs_examined, Math.min(10, skip + 3), what);
          const ids = exact.json.docs.map((d: { _id: string }) => d._id);
          const all = docs.filter((d) => d.g === 'g1').map((d) => d._id);
          if (sort !== undefined) all.reverse();
          assert.deepEqual(ids, all.slice(skip, skip + 2), what);
        }
      }
    });

    it('a range that is the selector up to a strict end: its rows judged by their keys, alike to the matcher path', async () => {
      await t.request('PUT', '/mstrict');
      const docs = Array.from({ length: 30 }, (_, i) => ({
        _id: `s${String(i).padStart(2, '0')}`,
        g: `g${i % 3}`,
        n: i,
      }));
      await t.request('POST', '/mstrict/_bulk_docs', { body: { docs } });
      await t.request('POST', '/mstrict/_index', { body: { index: { fields: ['g'] }, name: 'ix-g' } });
      const query = (body: object) => t.request('POST', '/mstrict/_find', { body: { execution_stats: true, ...body } });
      for (const sort of [undefined, [{ g: 'desc' }]]) {
        for (const [limit, skip] of [
          [3, 0],
          [5, 4],
          [25, 0],
          [10, 9],
        ] as const) {
          const paging = { limit, skip, ...(sort === undefined ? {} : { sort }) };
          const judged = await query({ selector: { g: { $gte: 'g0', $lt: 'g1' } }, ...paging });
          // An `_id` condition every document meets: the same range, each document parsed and matched.
          const matched = await query({ selector: { g: { $gte: 'g0', $lt: 'g1' }, _id: { $gt: '' } }, ...paging });
          const what = `limit ${limit} skip ${skip}${sort === undefined ? '' : ' descending'}`;
          assert.equal(judged.status, 200, what);
          assert.deepEqual(judged.json.docs, matched.json.docs, what);
          assert.equal(judged.json.bookmark, matched.json.bookmark, what);
          const { execution_time_ms: _a, ...stats } = judged.json.execution_stats;
          const { execution_time_ms: _b, ...expected } = matched.json.execution_stats;
          assert.deepEqual(stats, expected, what);
          const all = docs.filter((d) => d.g === 'g0').map((d) => d._id);
          if (sort !== undefined) all.reverse();
          assert.deepEqual(
            judged.json.docs.map((d: { _id: string }) => d._id),
            all.slice(skip, skip + limit),
            what,
          );
        }
      }
      // The rows holding the strict end's value are read and examined (as CouchDB reads the
      // range inclusively): all 20 rows of g0 and g1 when the range is read to its end.
      const whole = await query({ selector: { g: { $gte: 'g0', $lt: 'g1' } }, limit: 25 });
      assert.equal(whole.json.execution_stats.total_keys_examined, 20);
      assert.equal(whole.json.execution_stats.total_docs_examined, 20);
      // A document changed since the last query: the index is brought up to date first.
      const changed = await t.request('GET', '/mstrict/s03');
      await t.request('PUT', '/mstrict/s03', { body: { ...changed.json, g: 'g1' } });
      const after = await query({ selector: { g: { $gte: 'g0', $lt: 'g1' } }, limit: 25 });
      assert.deepEqual(
        after.json.docs.map((d: { _id: string }) => d._id),
        docs.filter((d) => d.g === 'g0' && d._id !== 's03').map((d) => d._id),
      );
    });

    it('execution_stats count rows and documents; a covering index reads no document', async () => {
      const r = await find({ selector: { type: 'user', n: { $lt: 20 } }, limit: 4, execution_stats: true });
      const stats = r.json.execution_stats;
      assert.equal(stats.results_returned, 4);
      assert.equal(stats.total_docs_examined, 5, 'the row after the last one returned is examined too');
      assert.equal(stats.total_quorum_docs_examined, 0);
      assert.equal(typeof stats.execution_time_ms, 'number');
      const covered = await find({ selector: { n: { $gt: 35 } }, fields: ['_id', 'n'], execution_stats: true });
      assert.deepEqual(
        covered.json.docs,
        [36, 37, 38, 39].map((n) => ({ _id: `d${n}`, n })),
      );
      assert.equal(covered.json.execution_stats.total_docs_examined, 0);
      const quorum = await find({ selector: { n: 3 }, r: 2, execution_stats: true });
      assert.equal(quorum.json.execution_stats.total_quorum_docs_examined, 1);
      assert.equal(quorum.json.execution_stats.total_docs_examined, 0);
    });

    it('a partial index is used only when named; use_index warns or, without fallback, refuses', async () => {
      const auto = await explain({ selector: { n: { $gt: 0 } } });
      assert.equal(auto.json.index.name, 'ix-n');
      const named = await find({ selector: { n: { $gte: 0 } }, use_index: 'partial/fives', fields: ['n'] });
      assert.deepEqual(
        named.json.docs,
        [0, 5, 10, 15, 20, 25, 30, 35].map((n) => ({ n })),
      );
      const unsuitable = await find({ selector: { type: 'user' }, use_index: 'ix-rank', limit: 1 });
      assert.equal(unsuitable.status, 200);
      assert.match(
        unsuitable.json.warning,
        /^_design\/ix-rank was not used because it does not contain a valid index for this query\./,
      );
      const strict = await find({
        selector: { type: 'user' },
        use_index: ['ix-rank', 'ix-rank'],
        allow_fallback: false,
      });
      assert.deepEqual(strict.json, {
        error: 'invalid_index',
        reason: '_design/ix-rank, ix-rank specified by `use_index` could not be found or it is not suitable.',
      });
    });

    it('an index build reads the members its fields and partial filter name, at the top level only', async () => {
      await t.request('PUT', '/nest');
      const docs = [
        { _id: 'a', addr: { city: 'Oslo', zip: 1 }, kind: { sub: 'x' }, n: 1 },
        { _id: 'b', addr: { city: 'Bergen' }, kind: { sub: 'y' }, n: 2 },
        { _id: 'c', addr: { city: 'Oslo' }, kind: { sub: 'x' } },
        { _id: 'd', addr: 'nowhere', kind: { sub: 'x' }, n: 4 },
        { _id: 'e', addr: { city: null }, kind: { sub: 'x' }, n: 5, 'a"b': { addr: { city: 'Fake' } } },
        { _id: 'f', other: { addr: { city: 'Oslo' } }, kind: { sub: 'x' }, n: 6 },
      ];
      assert.equal((await t.request('POST', '/nest/_bulk_docs', { body: { docs } })).status, 201);
      const index = async (name: string, def: unknown) =>
        assert.equal(
          (await t.request('POST', '/nest/_index', { body: { index: def, ddoc: 'nest', name } })).status,
          200,
        );
      await index('by-city', {
        fields: ['addr.city', '_id'],
        partial_filter_selector: { 'kind.sub': 'x', n: { $exists: true } },
      });
      await index('by-n', { fields: ['n'] });
      const nest = (body: unknown) => t.request('POST', '/nest/_find', { body });
      const byCity = await nest({ selector: { 'addr.city': { $gte: null } }, use_index: ['nest', 'by-city'] });
      assert.equal(byCity.json.warning, undefined);
      assert.deepEqual(ids(byCity), ['e', 'a']);
      const byN = await nest({ selector: { n: { $gt: 0 } }, use_index: ['nest', 'by-n'], fields: ['_id', 'n'] });
      assert.deepEqual(byN.json.docs, [
        { _id: 'a', n: 1 },
        { _id: 'b', n: 2 },
        { _id: 'd', n: 4 },
        { _id: 'e', n: 5 },
        { _id: 'f', n: 6 },
      ]);
    });

    it('contradictory ranges on the chosen index are not run: {"docs":[]}', async () => {
      const r = await find({ selector: { n: { $gt: 5, $lt: 3 } } });
      assert.deepEqual(r.json, { docs: [] });
      assert.deepEqual((await find({ selector: { $or: [] } })).json, { docs: [] });
    });

    it('answers a bad request with CouchDB errors', async () => {
      assert.deepEqual((await find({})).json, {
        error: 'missing_required_key',
        reason: 'Missing required key: selector',
      });
      assert.equal((await find({ selector: { n: 1 }, limit: -1 })).json.error, 'invalid_non_neg_integer');
      const get = await t.request('GET', '/m/_find');
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      const typed = await t.request('POST', '/m/_find', { body: '{}', headers: { 'content-type': 'text/plain' } });
      assert.equal(typed.status, 415);
      assert.equal((await t.request('POST', '/nope/_find', { body: { selector: {} } })).status, 404);
    });

    it('conflicts: true shows _conflicts to the selector and in the documents', async () => {
      await t.request('POST', '/m/_bulk_docs', {
        body: {
          new_edits: false,
          docs: [
            { _id: 'c1', _rev: '1-aaa', kind: 'conflicted' },
            { _id: 'c1', _rev: '1-bbb', kind: 'conflicted' },
          ],
        },
      });
      const selector = { kind: 'conflicted', _conflicts: { $exists: true } };
      assert.deepEqual((await find({ selector })).json.docs, []);
      const r = await find({ selector, conflicts: true, fields: ['_id', '_rev', '_conflicts'] });
      assert.deepEqual(r.json.docs, [{ _id: 'c1', _rev: '1-bbb', _conflicts: ['1-aaa'] }]);
      const whole = await find({ selector: { kind: 'conflicted' }, conflicts: true });
      assert.deepEqual(whole.json.docs[0]._conflicts, ['1-aaa']);
    });

    it('a scan judges and returns each document as a read shows it: _id, _rev, _attachments, projections', async () => {
      await t.request('PUT', '/scan');
      const put = await t.request('PUT', '/scan/a', {
        body: { n: 1, sub: { x: 2 }, _attachments: { 'f.txt': { content_type: 'text/plain', data: 'aGk=' } } },
      });
      await t.request('PUT', '/scan/b', { body: { n: 2 } });
      const scan = (body: object) => t.request('POST', '/scan/_find', { body });
      const rev = put.json.rev as string;
      assert.deepEqual(ids(await scan({ selector: { _rev: rev } })), ['a']);
      assert.deepEqual(ids(await scan({ selector: { _id: { $regex: '^b' } } })), ['b']);
      assert.deepEqual(ids(await scan({ selector: { 'sub.x': 2 } })), ['a']);
      assert.deepEqual(ids(await scan({ selector: { '_attachments.f\\.txt.length': 2 } })), ['a']);
      assert.deepEqual(ids(await scan({ selector: { _attachments: { $exists: false } } })), ['b']);
      const whole = await scan({ selector: { n: 1 } });
      assert.deepEqual(whole.json.docs, [
        {
          _id: 'a',
          _rev: rev,
          n: 1,
          sub: { x: 2 },
          _attachments: {
            'f.txt': {
              content_type: 'text/plain',
              revpos: 1,
              digest: whole.json.docs[0]._attachments['f.txt'].digest,
              length: 2,
              stub: true,
            },
          },
        },
      ]);
      const projected = await scan({ selector: { n: { $gt: 0 } }, fields: ['_rev', 'sub.x', 'n'] });
      assert.deepEqual(projected.json.docs, [
        { _rev: rev, sub: { x: 2 }, n: 1 },
        { _rev: projected.json.docs[1]._rev, n: 2 },
      ]);
    });

    it('a partition is refused by _find and planned on _all_docs by _explain (no database is partitioned)', async () => {
      assert.deepEqual((await find({ selector: { n: 1 }, partition: 'p' })).json, {
        error: 'query_parse_error',
        reason: '`partition` parameter is not supported on this db',
      });
      const planned = await explain({ selector: { n: 1 }, partition: 'p' });
      assert.equal(planned.status, 200);
      assert.equal(planned.json.index.name, '_all_docs');
      assert.equal(planned.json.opts.partition, 'p');
    });

    it('_id ranges: collation bounds the scan, so bounds out of order there find nothing', async () => {
      assert.deepEqual(ids(await find({ selector: { _id: { $gt: 'd37' } }, fields: ['_id'] })), ['d38', 'd39']);
      assert.deepEqual((await find({ selector: { _id: { $gt: 'Z', $lt: 'a' } } })).json, { docs: [] });
      const numbers = await find({ selector: { _id: { $gt: 5 } }, fields: ['_id'], limit: 2 });
      assert.deepEqual(ids(numbers), ['c1', 'd00'], 'every id string is above a number in term order');
    });

    it('sees the next write: an updated, deleted or new document, through the index', async () => {
      const before = await find({ selector: { n: 3 }, fields: ['_id'] });
      assert.deepEqual(ids(before), ['d03']);
      const rev = (await t.request('GET', '/m/d03')).json._rev;
      await t.request('PUT', '/m/d03', { body: { _rev: rev, n: 300, type: 'post' } });
      assert.deepEqual(ids(await find({ selector: { n: 3 }, fields: ['_id'] })), []);
      assert.deepEqual(ids(await find({ selector: { n: 300 }, fields: ['_id'] })), ['d03']);
    });
  });

  describe('_explain', () => {
    it('shows the chosen index, the normalized selector, the options and the range', async () => {
      const r = await explain({ selector: { type: 'user', n: { $gte: 0, $lt: 50 } } });
      assert.equal(r.status, 200);
      assert.equal(r.json.dbname, 'm');
      assert.equal(r.json.index.name, 'ix-type-n');
      assert.deepEqual(r.json.selector, {
        $and: [{ type: { $eq: 'user' } }, { $and: [{ n: { $gte: 0 } }, { n: { $lt: 50 } }] }],
      });
      assert.equal(r.json.opts.limit, 25);
      assert.deepEqual(r.json.mrargs.start_key, ['user', 0]);
      assert.deepEqual(r.json.mrargs.end_key, ['user', 50, '<MAX>']);
      assert.equal(r.json.mrargs.direction, 'fwd');
      assert.equal(r.json.covering, false);
      const all = await explain({ selector: { _id: { $gt: 'd1' } } });
      assert.equal(all.json.index.name, '_all_docs');
      assert.equal(all.json.mrargs.start_key, 'd1');
      assert.equal(all.json.mrargs.end_key, '<MAX>');
      const noSort = await explain({ selector: { type: 'x' }, sort: ['type'] });
      assert.equal(noSort.status, 200);
      assert.equal(noSort.json.index, null);
    });
  });
});

/**
 * Design-document `options` over HTTP (spec e and g: query-param defaults are a Divan
 * extension, explicit request params override; `collation:"raw"` at the ddoc root (a Divan
 * extension) and per view (3.x);
 * include_design and local_seq). The collation order itself is covered by
 * views-collation.test.ts; here only that both placements switch a view to raw order, ranges
 * and the reversed-range check use it, and the signature changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { ids, keys, putDdoc, putDoc, seed, viewClient, type ViewClient } from './support/views-http.js';

const DOCS = [
  { _id: 'd1', n: 1 },
  { _id: 'd2', n: 2 },
  { _id: 'd3', n: 3 },
  { _id: 'd4', n: 4 },
];
const VIEWS = {
  by_n: { map: "function (doc) { if ('n' in doc) emit(doc.n, doc.n); }" },
  sum_n: { map: "function (doc) { if ('n' in doc) emit([doc.n % 2, doc.n], doc.n); }", reduce: '_sum' },
};

describe('views over HTTP: design-document options', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'opts', DOCS);
  });
  after(() => t.close());

  /** A design doc `name` in db `opts` with VIEWS and these options. */
  async function ddocWith(name: string, options: object, views: object = VIEWS): Promise<ViewClient> {
    await putDdoc(t, 'opts', name, { views, options });
    return viewClient(t, 'opts', name);
  }

  it('include_docs: true is the default; include_docs=false overrides; reduce views of the ddoc still reduce', async () => {
    const v = await ddocWith('o_docs', { include_docs: true });
    const r = await v.ok('by_n');
    assert.deepEqual(
      r.rows.map((row: any) => row.doc?._id),
      ['d1', 'd2', 'd3', 'd4'],
    );
    for (const row of (await v.ok('by_n', { include_docs: false })).rows) assert.ok(!('doc' in row));
    assert.deepEqual(await v.ok('sum_n'), { rows: [{ key: null, value: 10 }] }, 'the default does not break reduce');
    const mapRows = await v.ok('sum_n', { reduce: false });
    assert.deepEqual(
      mapRows.rows.map((row: any) => row.doc?._id),
      ['d2', 'd4', 'd1', 'd3'],
      'reduce=false: the default applies',
    );
  });

  it('limit and descending defaults; each request param overrides only itself', async () => {
    const v = await ddocWith('o_page', { limit: 2, descending: true });
    assert.deepEqual(ids(await v.ok('by_n')), ['d4', 'd3']);
    assert.deepEqual(ids(await v.ok('by_n', { limit: 3 })), ['d4', 'd3', 'd2']);
    assert.deepEqual(ids(await v.ok('by_n', { descending: false })), ['d1', 'd2']);
    assert.deepEqual(ids(await v.ok('by_n', { skip: 1 })), ['d3', 'd2']);
    assert.deepEqual(ids(await v.ok('by_n', { limit: 0 })), []);
  });

  it('skip and inclusive_end defaults', async () => {
    const v = await ddocWith('o_skip', { skip: 1, inclusive_end: false });
    const r = await v.ok('by_n', { endkey: 4 });
    assert.deepEqual(ids(r), ['d2', 'd3']);
    assert.equal(r.offset, 1);
    assert.deepEqual(ids(await v.ok('by_n', { endkey: 4, skip: 0, inclusive_end: true })), ['d1', 'd2', 'd3', 'd4']);
  });

  it('reduce: false default; reduce=true overrides; map-only views are unaffected', async () => {
    const v = await ddocWith('o_noreduce', { reduce: false });
    const r = await v.ok('sum_n');
    assert.equal(r.total_rows, 4);
    assert.deepEqual(ids(r), ['d2', 'd4', 'd1', 'd3']);
    assert.deepEqual(await v.ok('sum_n', { reduce: true }), { rows: [{ key: null, value: 10 }] });
    assert.deepEqual(ids(await v.ok('by_n')), ['d1', 'd2', 'd3', 'd4']);
  });

  it('group: true default; group_level or group=false in the request override it; map views unaffected', async () => {
    const v = await ddocWith('o_group', { group: true });
    assert.deepEqual((await v.ok('sum_n')).rows, [
      { key: [0, 2], value: 2 },
      { key: [0, 4], value: 4 },
      { key: [1, 1], value: 1 },
      { key: [1, 3], value: 3 },
    ]);
    assert.deepEqual((await v.ok('sum_n', { group_level: 1 })).rows, [
      { key: [0], value: 6 },
      { key: [1], value: 4 },
    ]);
    assert.deepEqual((await v.ok('sum_n', { group: false })).rows, [{ key: null, value: 10 }]);
    assert.deepEqual(ids(await v.ok('by_n')), ['d1', 'd2', 'd3', 'd4'], 'a group default does not make map views fail');
    // Multi-key fetch on the reduce view works thanks to the group default.
    assert.deepEqual(
      keys(
        await v.postOk('sum_n', {
          keys: [
            [1, 3],
            [0, 2],
          ],
        }),
      ),
      [
        [1, 3],
        [0, 2],
      ],
    );
  });

  it('group_level default', async () => {
    const v = await ddocWith('o_level', { group_level: 1 });
    assert.deepEqual(keys(await v.ok('sum_n')), [[0], [1]]);
    assert.equal(
      keys(await v.ok('sum_n', { group: true })).length,
      4,
      'group=true replaces the whole grouping default',
    );
    assert.deepEqual(await v.ok('sum_n', { group: false }), { rows: [{ key: null, value: 10 }] });
  });

  it('range defaults; any key param in the request replaces the whole default range', async () => {
    const v = await ddocWith('o_range', { startkey: 2, endkey: 3 });
    assert.deepEqual(ids(await v.ok('by_n')), ['d2', 'd3']);
    assert.deepEqual(ids(await v.ok('by_n', { key: 1 })), ['d1']);
    assert.deepEqual(ids(await v.ok('by_n', { startkey: 3 })), ['d3', 'd4'], 'not combined with the default endkey');
    assert.deepEqual(
      ids(await v.postOk('by_n', { keys: [4, 1] })),
      ['d4', 'd1'],
      'keys is not incompatible with a default range',
    );
    assert.deepEqual(ids(await v.ok('by_n', { limit: 1 })), ['d2'], 'other params keep the default range');
    const keyDefault = await ddocWith('o_key', { key: 4 });
    assert.deepEqual(ids(await keyDefault.ok('by_n')), ['d4']);
    assert.deepEqual(ids(await keyDefault.ok('by_n', { endkey: 1 })), ['d1']);
  });

  it('update_seq default; update_seq=false overrides', async () => {
    const v = await ddocWith('o_seq', { update_seq: true });
    const r = await v.ok('by_n');
    // The view's update_seq: the last change to its rows (design docs are not mapped).
    const changes = (await t.request('GET', '/opts/_changes')).json.results as { seq: number; id: string }[];
    const lastDoc = Math.max(...changes.filter((c) => !c.id.startsWith('_design/')).map((c) => c.seq));
    assert.equal(r.update_seq, lastDoc);
    assert.ok(!('update_seq' in (await v.ok('by_n', { update_seq: false }))));
  });

  it('stale: "ok" default; update=true (or stale in the request) overrides', async () => {
    await seed(t, 'optstale', [{ _id: 'a', n: 1 }]);
    await putDdoc(t, 'optstale', 'st', { views: VIEWS, options: { stale: 'ok' } });
    const v = viewClient(t, 'optstale', 'st');
    assert.deepEqual(ids(await v.ok('by_n')), [], 'never built, and the default is stale');
    assert.deepEqual(ids(await v.ok('by_n', { update: true })), ['a']);
    await putDoc(t, 'optstale', { _id: 'b', n: 2 });
    assert.deepEqual(ids(await v.ok('by_n')), ['a']);
    assert.deepEqual(ids(await v.ok('by_n', { stale: 'update_after' })), ['a']);
  });

  it('precedence: ddoc default < POST body < query string', async () => {
    const v = await ddocWith('o_prec', { limit: 1 });
    assert.deepEqual(ids(await v.postOk('by_n', {})), ['d1']);
    assert.deepEqual(ids(await v.postOk('by_n', { limit: 2 })), ['d1', 'd2']);
    assert.deepEqual(ids(await v.postOk('by_n', { limit: 2 }, { limit: 3 })), ['d1', 'd2', 'd3']);
  });

  it('include_design: design docs are mapped only with the option', async () => {
    const idView = { ids: { map: 'function (doc) { emit(doc._id, null); }' } };
    const without = await ddocWith('o_nodesign', {}, idView);
    assert.ok(!ids(await without.ok('ids')).some((id) => id!.startsWith('_design/')));
    const withDesign = await ddocWith('o_design', { include_design: true }, idView);
    const all = ids(await withDesign.ok('ids'));
    assert.ok(all.includes('_design/o_design'), JSON.stringify(all));
    assert.ok(all.includes('_design/o_nodesign'));
    assert.ok(all.includes('d1'));
  });

  it("local_seq: map functions see doc._local_seq, the doc's update seq (integer)", async () => {
    await seed(t, 'optseq', [{ _id: 'x' }, { _id: 'y' }]);
    await putDoc(t, 'optseq', { _id: 'x', edited: true });
    const seqView = {
      seqs: { map: 'function (doc) { emit(doc._id, doc._local_seq === undefined ? "none" : doc._local_seq); }' },
    };
    await putDdoc(t, 'optseq', 'with', { views: seqView, options: { local_seq: true } });
    await putDdoc(t, 'optseq', 'without', { views: seqView });
    const changes = (await t.request('GET', '/optseq/_changes')).json.results as { id: string; seq: number }[];
    const seqOf = (id: string) => changes.find((c) => c.id === id)!.seq;
    const r = await viewClient(t, 'optseq', 'with').ok('seqs');
    assert.deepEqual(
      r.rows.map((row: any) => [row.id, row.value]),
      [
        ['x', seqOf('x')],
        ['y', seqOf('y')],
      ],
    );
    for (const row of r.rows) assert.ok(Number.isInteger(row.value));
    const plain = await viewClient(t, 'optseq', 'without').ok('seqs');
    assert.deepEqual(
      plain.rows.map((row: any) => row.value),
      ['none', 'none'],
    );
  });

  describe('collation: "raw"', () => {
    const RAW_DOCS = ['a', 'B', 'A', 'b', 'aa', 1, false, null, true, { a: 1 }, ['a']].map((k, i) => ({
      _id: `r${i}`,
      rk: k,
    }));
    const ICU_ORDER = [null, false, true, 1, 'a', 'A', 'aa', 'b', 'B', ['a'], { a: 1 }];
    const RAW_ORDER = [1, false, null, true, { a: 1 }, ['a'], 'A', 'B', 'a', 'aa', 'b'];
    const rawMap = "function (doc) { if ('rk' in doc) emit(doc.rk, null); }";
    let icu: ViewClient;
    let rootRaw: ViewClient;
    let viewRaw: ViewClient;
    before(async () => {
      await seed(t, 'raw', RAW_DOCS);
      await putDdoc(t, 'raw', 'icu', { views: { k: { map: rawMap, reduce: '_count' } } });
      await putDdoc(t, 'raw', 'root', {
        options: { collation: 'raw' },
        views: { k: { map: rawMap, reduce: '_count' } },
      });
      await putDdoc(t, 'raw', 'perview', {
        views: { k: { map: rawMap, reduce: '_count', options: { collation: 'raw' } } },
      });
      icu = viewClient(t, 'raw', 'icu');
      rootRaw = viewClient(t, 'raw', 'root');
      viewRaw = viewClient(t, 'raw', 'perview');
    });

    it('default: ICU order; ddoc-level and per-view collation:"raw": Erlang term order, strings by code point', async () => {
      assert.deepEqual(keys(await icu.ok('k', { reduce: false })), ICU_ORDER);
      assert.deepEqual(keys(await rootRaw.ok('k', { reduce: false })), RAW_ORDER);
      assert.deepEqual(keys(await viewRaw.ok('k', { reduce: false })), RAW_ORDER);
      assert.deepEqual(keys(await rootRaw.ok('k', { group: true, descending: true })), [...RAW_ORDER].reverse());
    });

    it('ranges use the raw order; the reversed-range check uses it too', async () => {
      for (const v of [rootRaw, viewRaw]) {
        assert.deepEqual(keys(await v.ok('k', { reduce: false, startkey: 'Z', endkey: 'a' })), ['a']);
        const reversed = await v.get('k', { reduce: false, startkey: 'a', endkey: 'B' });
        assert.equal(reversed.status, 400, reversed.text);
        assert.equal(reversed.json.error, 'query_parse_error');
      }
      assert.deepEqual(keys(await icu.ok('k', { reduce: false, startkey: 'a', endkey: 'B' })), [
        'a',
        'A',
        'aa',
        'b',
        'B',
      ]);
      const icuReversed = await icu.get('k', { reduce: false, startkey: 'Z', endkey: 'a' });
      assert.equal(icuReversed.status, 400, icuReversed.text);
    });

    it('the options are part of the view signature', async () => {
      const sig = async (d: string) => (await t.request('GET', `/raw/_design/${d}/_info`)).json.view_index.signature;
      const [a, b, c] = [await sig('icu'), await sig('root'), await sig('perview')];
      assert.notEqual(a, b);
      assert.notEqual(a, c);
      assert.notEqual(b, c, 'the placements differ in the definition, so in the signature');
      // Toggling a ddoc-level option rebuilds too.
      const ddoc = (await t.request('GET', '/raw/_design/icu')).json;
      await putDdoc(t, 'raw', 'icu', { ...ddoc, options: { include_design: true } });
      assert.notEqual(await sig('icu'), a);
    });
  });
});

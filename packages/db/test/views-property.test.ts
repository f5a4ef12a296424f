/**
 * Property test of the view engine against a real server: random documents, random histories of
 * creates, updates, deletes, `new_edits: false` conflict writes and purges (of one leaf, of every
 * leaf, of a revision the document does not have) with view queries in between
 * (so every index is updated incrementally several times), random view definitions (emit
 * shapes, duplicate keys, conditional emits; no reduce, _count, _sum, _stats, a JS reduce).
 *
 * After each history, every view's answers (map rows, reduce without and with grouping, random
 * ranges with descending/inclusive_end/skip/limit, keys=[...]) must be the same
 *  1. in the incrementally updated database and in a database built from scratch with the same
 *     final (winning) documents and design document, and
 *  2. as an in-test model (./support/view-model.ts): map functions run in plain JS, rows sorted
 *     by the collation comparator, reduce values folded by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './support/server.js';
import { answer, mapRows, queryString, type ModelQuery, type ReduceKind } from './support/view-model.js';

const NUM_RUNS = Number(process.env.VIEWS_PROPERTY_RUNS ?? 60);

// --- Generators ----------------------------------------------------------------------------------

const STRINGS = [
  '',
  'a',
  'A',
  'b',
  'B',
  'ab',
  'a\u200bb',
  'aB',
  'é',
  'e\u0301',
  'E',
  'Å',
  '\u212b',
  'z',
  '1',
  '10',
  '2',
  'ä',
  'ß',
  'ss',
  '日本',
  '\u{1F600}',
  'a b',
  '~',
  '\uFFFD',
  'ω',
  'a\u0000',
  'a\u0001b',
  '\u0000',
  '\uFFFF',
  '\uE000',
];

const scalar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 3, arbitrary: fc.integer({ min: -3, max: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, -1.5, 1000, 2.25, 1e21, -1e-7, 9007199254740992, -9007199254740992) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const keyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 3, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(scalar, fc.array(scalar, { maxLength: 2 })), { maxLength: 3 }) },
  // No integer-like member names: JSON.parse would reorder them in the model.
  { weight: 1, arbitrary: fc.record({ a: scalar, b: scalar }, { requiredKeys: ['a'] }) },
);

const docBody = fc.record({
  k: keyValue,
  k2: keyValue,
  n: fc.integer({ min: -4, max: 20 }),
  arr: fc.array(keyValue, { maxLength: 4 }),
  flag: fc.boolean(),
  // Loop count of the "many rows" views: enough rows for multi-level B-trees (2 KiB nodes).
  m: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 20, max: 90 })),
});

const IDS = [
  'a',
  'b',
  'c',
  'B',
  'd1',
  'd10',
  'd2',
  'é',
  'e\u0301',
  'z',
  'a\u0001',
  'a\u0001b',
  '\uE000',
  '\u{1F600}',
  ...Array.from({ length: 30 }, (_, i) => `doc${i}`),
];
const docId = fc.constantFrom(...IDS);

type Op =
  | { op: 'put'; id: string; body: Record<string, unknown> }
  | { op: 'bulk'; docs: { id: string; body: Record<string, unknown> }[] }
  | { op: 'delete'; id: string }
  | { op: 'conflict'; id: string; gen: number; hash: string; body: Record<string, unknown>; deleted: boolean }
  | { op: 'query'; view: number }
  | { op: 'purge'; id: string; which: 'one' | 'all' | 'missing' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('put' as const), id: docId, body: docBody }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('bulk' as const),
      docs: fc.uniqueArray(fc.record({ id: docId, body: docBody }), {
        minLength: 1,
        maxLength: 15,
        selector: (d) => d.id,
      }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), id: docId }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('conflict' as const),
      id: docId,
      gen: fc.integer({ min: 1, max: 4 }),
      hash: fc.stringMatching(/^[0-9a-f]{32}$/),
      body: docBody,
      deleted: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('query' as const), view: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('purge' as const),
      id: docId,
      which: fc.constantFrom<'one' | 'all' | 'missing'>('one', 'all', 'missing'),
    }),
  },
);

const KEY_EXPRS = [
  'doc.k',
  '[doc.k, doc.k2]',
  '[doc.k2, doc.n, doc.k]',
  'doc.arr',
  'null',
  'doc._id',
  '[doc.n]',
  'doc.k2',
];
const VALUE_EXPRS_MAP = ['doc.k2', 'null', '[doc._id, doc.n]', 'doc.n'];
const BODIES: ((k: string, v: string) => string)[] = [
  (k, v) => `emit(${k}, ${v});`,
  (k, v) => `emit(${k}, ${v}); emit(${k}, ${v});`,
  (k, v) => `emit(${k}, 7); emit(${k}, ${v}); emit(${k}, -1); emit(${k}, ${v});`,
  (k, v) => `if (doc.flag) emit(${k}, ${v});`,
  (_k, v) => `(doc.arr || []).forEach(function (x) { emit(x, ${v}); });`,
  (k, v) => `for (var i = 0; i < doc.n % 3; i++) emit([${k}, i], ${v});`,
  (k, v) => `emit(${k}, ${v}); if (typeof doc.k2 === 'string') emit(doc.k2, ${v});`,
  (_k, v) => `emit(doc.n > 5 ? [doc.k, doc.k2] : doc.k, ${v});`,
  // Many rows per doc (duplicate keys among them), for deeper trees and stored reductions.
  (k, v) => `for (var i = 0; i < doc.m; i++) emit([${k}, i % 7], ${v});`,
  (k, v) => `for (var i = 0; i < doc.m; i++) emit(${k}, ${v});`,
  (_k, v) => `for (var i = 0; i < doc.m; i++) emit('padding padding padding ' + (i % 10) + doc._id, ${v});`,
  (k, v) => `for (var i = 0; i < doc.m; i++) emit([i % 3, ${k}, doc._id], ${v});`,
];
const REDUCES: Record<ReduceKind, string | undefined> = {
  none: undefined,
  _count: '_count',
  _sum: '_sum',
  _stats: '_stats',
  js_sum: 'function (keys, values, rereduce) { return sum(values); }',
  // Uses keys ([key, docid] pairs) and the rereduce flag.
  js_count:
    "function (keys, values, rereduce) { if (rereduce) return sum(values); var n = 0; keys.forEach(function (kv) { if (typeof kv[1] === 'string') n++; }); return n; }",
};

interface ViewSpec {
  name: string;
  map: string;
  reduce: ReduceKind;
  /** `options: {collation: "raw"}` on the view. */
  raw: boolean;
}

const viewSpec = (i: number): fc.Arbitrary<ViewSpec> =>
  fc
    .record({
      key: fc.constantFrom(...KEY_EXPRS),
      body: fc.nat(BODIES.length - 1),
      reduce: fc.constantFrom<ReduceKind>('none', '_count', '_sum', '_stats', 'js_sum', 'js_count'),
      value: fc.constantFrom(...VALUE_EXPRS_MAP),
      raw: fc.boolean(),
    })
    .map(({ key, body, reduce, value, raw }) => ({
      raw,
      name: `v${i}`,
      // Reduce views other than _count get integer values, so sums are exact in any order.
      map: `function (doc) { ${BODIES[body]!(key, reduce === 'none' || reduce === '_count' || reduce === 'js_count' ? value : 'doc.n')} }`,
      reduce,
    }));

const query: fc.Arbitrary<ModelQuery> = fc.oneof(
  fc.record(
    {
      startkey: keyValue,
      endkey: keyValue,
      startkeyDocid: docId,
      endkeyDocid: docId,
      descending: fc.boolean(),
      inclusiveEnd: fc.boolean(),
      skip: fc.nat(3),
      limit: fc.nat(6),
      reduce: fc.boolean(),
      group: fc.constantFrom<ModelQuery['group']>('none', 'exact', 1, 2),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      keys: fc.array(keyValue, { minLength: 1, maxLength: 4 }),
      descending: fc.boolean(),
      skip: fc.nat(2),
      limit: fc.nat(5),
      reduce: fc.boolean(),
      group: fc.constantFrom<ModelQuery['group']>('none', 'exact'),
    },
    { requiredKeys: ['keys'] },
  ),
);

// --- Running a history ---------------------------------------------------------------------------

const enc = encodeURIComponent;

async function apply(t: TestServer, db: string, o: Op, views: ViewSpec[]): Promise<void> {
  const ok = (status: number, what: string, reply: { status: number; text: string }) =>
    assert.ok(reply.status < 300 || status === reply.status, `${what}: ${reply.status} ${reply.text}`);
  switch (o.op) {
    case 'put': {
      const cur = await t.request('GET', `/${db}/${enc(o.id)}`);
      const body = cur.status === 200 ? { ...o.body, _rev: cur.json._rev } : o.body;
      ok(201, `PUT ${o.id}`, await t.request('PUT', `/${db}/${enc(o.id)}`, { body }));
      return;
    }
    case 'bulk': {
      const docs = [];
      for (const d of o.docs) {
        const cur = await t.request('GET', `/${db}/${enc(d.id)}`);
        docs.push(cur.status === 200 ? { ...d.body, _id: d.id, _rev: cur.json._rev } : { ...d.body, _id: d.id });
      }
      const r = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
      assert.equal(r.status, 201, r.text);
      for (const item of r.json) assert.ok(item.ok, JSON.stringify(item));
      return;
    }
    case 'delete': {
      const cur = await t.request('GET', `/${db}/${enc(o.id)}`);
      if (cur.status !== 200) return;
      ok(200, `DELETE ${o.id}`, await t.request('DELETE', `/${db}/${enc(o.id)}?rev=${cur.json._rev}`));
      return;
    }
    case 'conflict': {
      const doc = { ...o.body, _id: o.id, _rev: `${o.gen}-${o.hash}`, ...(o.deleted ? { _deleted: true } : {}) };
      const r = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs: [doc], new_edits: false } });
      assert.equal(r.status, 201, r.text);
      return;
    }
    case 'purge': {
      // One leaf (the first of open_revs=all), every leaf, or a revision the doc does not have.
      const cur = await t.request('GET', `/${db}/${enc(o.id)}?open_revs=all`, {
        headers: { accept: 'application/json' },
      });
      const leaves =
        cur.status === 200 ? (cur.json as { ok?: { _rev: string } }[]).flatMap((r) => (r.ok ? [r.ok._rev] : [])) : [];
      const revs =
        o.which === 'missing'
          ? ['9-00000000000000000000000000000000']
          : o.which === 'one'
            ? leaves.slice(0, 1)
            : leaves;
      const r = await t.request('POST', `/${db}/_purge`, { body: { [o.id]: revs } });
      assert.equal(r.status, 201, r.text);
      return;
    }
    case 'query': {
      const v = views[o.view % views.length]!;
      const r = await t.request('GET', `/${db}/_design/p/_view/${v.name}?limit=2`);
      assert.equal(r.status, 200, r.text);
      return;
    }
  }
}

/** The winning, live documents (what views see). */
async function finalDocs(t: TestServer, db: string): Promise<Record<string, unknown>[]> {
  const r = await t.request('GET', `/${db}/_all_docs?include_docs=true`);
  assert.equal(r.status, 200, r.text);
  return r.json.rows.map((row: any) => row.doc).filter((doc: any) => !doc._id.startsWith('_design/'));
}

function ddocOf(views: ViewSpec[]) {
  return {
    views: Object.fromEntries(
      views.map((v) => [
        v.name,
        {
          map: v.map,
          ...(REDUCES[v.reduce] === undefined ? {} : { reduce: REDUCES[v.reduce] }),
          ...(v.raw ? { options: { collation: 'raw' } } : {}),
        },
      ]),
    ),
  };
}

async function ask(
  t: TestServer,
  db: string,
  view: string,
  q: ModelQuery,
): Promise<{ status: number; json: any; text: string }> {
  const path = `/${db}/_design/p/_view/${view}`;
  if (q.keys === undefined) return t.request('GET', path + queryString(q));
  const { keys, ...rest } = q;
  return t.request('POST', path + queryString(rest), { body: { keys } });
}

/** The fixed queries asked of every view, then the random ones. */
function queriesFor(view: ViewSpec, random: ModelQuery[]): ModelQuery[] {
  const fixed: ModelQuery[] = [{ reduce: false }, { reduce: false, descending: true }];
  if (view.reduce !== 'none') {
    fixed.push(
      {},
      { group: 'exact' },
      { group: 1 },
      { group: 2 },
      { group: 'exact', descending: true },
      { group: 1, descending: true },
    );
  }
  // Map-only views: drop reduce/group params, which would only be errors.
  const cleaned = random.map((q) => {
    if (view.reduce !== 'none') return q;
    const { reduce: _r, group: _g, ...rest } = q;
    return rest;
  });
  return [...fixed, ...cleaned].map((q) => (view.reduce === 'none' ? { ...q, reduce: undefined } : q));
}

let runNo = 0;
const stats = { runs: 0, queries: 0, errors: 0, mapRows: 0, reduceRows: 0, conflicts: 0 };

describe('views: incremental index = index from scratch = model', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('random histories, views and queries', { timeout: 240_000 }, async (tc) => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => viewSpec(i)))),
        fc.array(op, { minLength: 4, maxLength: 30 }),
        fc.array(query, { minLength: 4, maxLength: 8 }),
        async (views, ops, randomQueries) => {
          const run = ++runNo;
          stats.runs++;
          stats.conflicts += ops.filter((o) => o.op === 'conflict').length;
          const inc = `inc${run}`;
          const scratch = `scratch${run}`;
          try {
            assert.equal((await t.request('PUT', `/${inc}`)).status, 201);
            assert.equal((await t.request('PUT', `/${inc}/_design/p`, { body: ddocOf(views) })).status, 201);
            for (const o of ops) await apply(t, inc, o, views);
            // Every view read at least once before the last writes, so updates are incremental.
            const docs = await finalDocs(t, inc);
            assert.equal((await t.request('PUT', `/${scratch}`)).status, 201);
            const copies = docs.map(({ _rev, ...rest }) => rest);
            const bulk = await t.request('POST', `/${scratch}/_bulk_docs`, { body: { docs: copies } });
            assert.equal(bulk.status, 201, bulk.text);
            assert.equal((await t.request('PUT', `/${scratch}/_design/p`, { body: ddocOf(views) })).status, 201);

            for (const view of views) {
              const rows = mapRows(docs, view.map, view.raw);
              for (const q of queriesFor(view, randomQueries)) {
                const label = `view ${view.name} ${JSON.stringify(view)} query ${JSON.stringify(q)}`;
                const a = await ask(t, inc, view.name, q);
                const b = await ask(t, scratch, view.name, q);
                assert.equal(a.status, b.status, `${label}: incremental ${a.text} vs scratch ${b.text}`);
                assert.deepEqual(a.json, b.json, `${label}: incremental vs scratch`);
                const expected = answer(rows, view.reduce, q, view.raw);
                stats.queries++;
                if (expected.kind === 'error') {
                  assert.equal(a.status, expected.status, `${label}: expected an error, got ${a.text}`);
                  stats.errors++;
                  continue;
                }
                assert.equal(a.status, 200, `${label}: ${a.text}`);
                if (expected.kind === 'map') {
                  assert.deepEqual(a.json.rows, expected.rows, `${label}: map rows`);
                  stats.mapRows += expected.rows.length;
                  assert.equal(a.json.total_rows, expected.totalRows, `${label}: total_rows`);
                  if (expected.rows.length > 0) assert.equal(a.json.offset, expected.offset, `${label}: offset`);
                } else {
                  assert.deepEqual(a.json.rows, expected.rows, `${label}: reduce rows`);
                  stats.reduceRows += expected.rows.length;
                }
              }
            }
          } finally {
            await t.request('DELETE', `/${inc}`);
            await t.request('DELETE', `/${scratch}`);
          }
        },
      ),
      { numRuns: NUM_RUNS, interruptAfterTimeLimit: 150_000, markInterruptAsFailure: false },
    );
    tc.diagnostic(JSON.stringify(stats));
  });
});

// --- Edges the generators do not reach -----------------------------------------------------------

describe('views: edges beyond the random histories', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('concurrent writes and queries: every answer is a consistent index; the end state matches a rebuild', async () => {
    await t.request('PUT', '/conc');
    const ddoc = {
      views: {
        n: { map: 'function (doc) { for (var i = 0; i < doc.m; i++) emit([doc.g, i], doc.m); }', reduce: '_sum' },
        c: { map: 'function (doc) { emit(doc.g, null); }', reduce: '_count' },
      },
    };
    await t.request('PUT', '/conc/_design/p', { body: ddoc });
    const work: Promise<void>[] = [];
    for (let w = 0; w < 8; w++) {
      work.push(
        (async () => {
          for (let i = 0; i < 15; i++) {
            const docs = Array.from({ length: 20 }, (_, j) => ({ _id: `w${w}-${i}-${j}`, g: (i + j) % 5, m: j % 4 }));
            assert.equal((await t.request('POST', '/conc/_bulk_docs', { body: { docs } })).status, 201);
          }
        })(),
      );
      work.push(
        (async () => {
          for (let i = 0; i < 15; i++) {
            const [count, map] = await Promise.all([
              t.request('GET', '/conc/_design/p/_view/c'),
              t.request('GET', '/conc/_design/p/_view/c?reduce=false&update=false'),
            ]);
            assert.equal(count.status, 200, count.text);
            assert.equal(map.status, 200, map.text);
            // A consistent index: total_rows is the number of rows returned.
            assert.equal(map.json.total_rows, map.json.rows.length);
          }
        })(),
      );
    }
    await Promise.all(work);
    const docs = await finalDocs(t, 'conc');
    assert.equal(docs.length, 8 * 15 * 20);
    await t.request('PUT', '/conc2');
    await t.request('POST', '/conc2/_bulk_docs', { body: { docs: docs.map(({ _rev, ...d }) => d) } });
    await t.request('PUT', '/conc2/_design/p', { body: ddoc });
    for (const qs of ['n?group_level=1', 'n?reduce=false&skip=100&limit=50', 'c?group=true', 'n']) {
      const a = await t.request('GET', `/conc/_design/p/_view/${qs}`);
      const b = await t.request('GET', `/conc2/_design/p/_view/${qs}`);
      assert.deepEqual(a.json, b.json, qs);
    }
  });

  it('a key whose encoding exceeds 64 KiB is indexed (CouchDB has no key length limit)', async () => {
    await t.request('PUT', '/longkey');
    await t.request('PUT', '/longkey/_design/p', {
      body: {
        views: {
          v: { map: "function (doc) { emit(Array(doc.len + 1).join('a'), doc.len); }" },
          other: { map: 'function (doc) { emit(doc._id, null); }' },
        },
      },
    });
    await t.request('PUT', '/longkey/short', { body: { len: 3 } });
    await t.request('PUT', '/longkey/long', { body: { len: 70_000 } });
    const r = await t.request('GET', '/longkey/_design/p/_view/v');
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.deepEqual(
      r.json.rows.map((row: any) => row.value),
      [3, 70_000],
    );
    // The other views of the design document must not be held hostage by that row either.
    const other = await t.request('GET', '/longkey/_design/p/_view/other');
    assert.equal(other.status, 200, other.text.slice(0, 300));
    assert.equal(other.json.total_rows, 2);
  });

  it("more than 256 views in one design document: updates replace each view's own rows", async () => {
    await t.request('PUT', '/manyviews');
    const views: Record<string, { map: string }> = {};
    for (let i = 0; i < 260; i++) views[`v${i}`] = { map: `function (doc) { emit(doc.k, ${i}); }` };
    await t.request('PUT', '/manyviews/_design/p', { body: { views } });
    const first = await t.request('PUT', '/manyviews/doc', { body: { k: 1 } });
    assert.equal((await t.request('GET', '/manyviews/_design/p/_view/v256')).json.total_rows, 1);
    await t.request('PUT', '/manyviews/doc', { body: { k: 2, _rev: first.json.rev } });
    for (const name of ['v0', 'v255', 'v256', 'v259']) {
      const r = await t.request('GET', `/manyviews/_design/p/_view/${name}`);
      assert.deepEqual(
        r.json.rows.map((row: any) => [row.key, row.value]),
        [[2, Number(name.slice(1))]],
        `${name} after the update`,
      );
    }
  });

  it('one document emitting the same key more than 65,536 times keeps every row', async () => {
    await t.request('PUT', '/dups');
    await t.request('PUT', '/dups/_design/p', {
      body: {
        views: { v: { map: "function (doc) { for (var i = 0; i < doc.n; i++) emit('k', i); }", reduce: '_count' } },
      },
    });
    const n = 65_540;
    await t.request('PUT', '/dups/d', { body: { n } });
    const count = await t.request('GET', '/dups/_design/p/_view/v');
    assert.deepEqual(count.json.rows, [{ key: null, value: n }]);
    const tail = await t.request('GET', `/dups/_design/p/_view/v?reduce=false&skip=${n - 5}`);
    assert.equal(tail.json.total_rows, n);
    assert.deepEqual(
      tail.json.rows.map((row: any) => row.value).sort((a: number, b: number) => a - b),
      [n - 5, n - 4, n - 3, n - 2, n - 1],
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * A scan without an index hands storage the selector's number bounds (mango/number-bounds.ts),
 * and SQLite passes documents over in its statement: what a scan returns, and what it counts
 * examined, is what the same scan without the bounds gives (`conflicts: true` turns them off and
 * changes nothing else here: no document has a conflict), for members of every kind of value.
 */
describe('Mango scans with number bounds', () => {
  let t: TestServer;
  const find = (body: Record<string, unknown>) => t.request('POST', '/scan/_find', { body });

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/scan');
    const text = (s: string) => Buffer.from(s).toString('base64');
    const values: unknown[] = [
      -3,
      -1,
      0,
      1,
      2,
      3,
      7,
      1000,
      2.5,
      -0.5,
      1e300,
      '5',
      '',
      null,
      true,
      false,
      [1],
      { n: 1 },
      [],
      {},
    ];
    const docs: Record<string, unknown>[] = values.map((n, i) => ({ _id: `v${String(i).padStart(2, '0')}`, n, m: i }));
    docs.push(
      { _id: 'w-missing', m: 3 },
      { _id: 'w-nested', sub: { n: 1 }, m: 4 },
      { _id: 'w-text', note: '"n": 1', m: 5, n: 9 },
      { _id: 'w-attachment', n: 2, m: 6, _attachments: { n: { content_type: 'text/plain', data: text('n') } } },
      { _id: 'w-escape', n: 1, m: 7, s: 'a\\"n\\": 99 \u00e9 \ud83d\ude00' },
      { _id: 'w-deleted', n: 1, m: 8 },
      { _id: '_design/d', n: 1, m: 9 },
    );
    assert.equal((await t.request('POST', '/scan/_bulk_docs', { body: { docs } })).status, 201);
    // Integers past 2^53 (not one double each), spelled so in the stored text.
    for (const [id, n] of [
      ['x-big', '9007199254740993'],
      ['x-bigneg', '-9007199254740993'],
      ['x-huge', '123456789012345678901234567890'],
      ['x-hugeneg', '-123456789012345678901234567890'],
      ['x-edge', '9007199254740991'],
      ['x-edge2', '9007199254740992'],
      ['x-int64', '9223372036854775807'],
      ['x-exp', '1e2'],
      ['x-float', '3.0'],
    ]) {
      const body = `{"n":${n},"m":1}`;
      const r = await t.request('PUT', `/scan/${id}`, { body, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 201, JSON.stringify(r.json));
    }
    const rev = (await t.request('GET', '/scan/w-deleted')).json._rev as string;
    assert.equal((await t.request('DELETE', `/scan/w-deleted?rev=${rev}`)).status, 200);
  });
  after(() => t.close());

  /** The query with and without bounds: the same ids, in order, and the same counts. */
  const same = async (query: Record<string, unknown>) => {
    const bounded = await find({ ...query, execution_stats: true });
    const plain = await find({ ...query, execution_stats: true, conflicts: true });
    assert.equal(bounded.status, 200, JSON.stringify(bounded.json));
    assert.equal(plain.status, 200);
    const ids = (r: typeof bounded) => (r.json.docs as { _id: string }[]).map((d) => d._id);
    const what = JSON.stringify(query);
    assert.deepEqual(ids(bounded), ids(plain), what);
    assert.deepEqual(bounded.json.docs, plain.json.docs, what);
    const stats = (r: typeof bounded) => {
      const { execution_time_ms: _, ...rest } = r.json.execution_stats as Record<string, number>;
      return rest;
    };
    assert.deepEqual(stats(bounded), stats(plain), what);
    assert.equal(bounded.json.warning, plain.json.warning, what);
    assert.equal(bounded.json.bookmark, plain.json.bookmark, what);
    return ids(bounded);
  };

  it('finds what a scan without bounds finds, for every comparison and many values', async () => {
    const args = [
      ...[-9007199254740992, -9007199254740991, -9007199254740990, -3, -1, -0.5, 0, 1, 2, 2.5, 3, 100, 1000],
      ...[9007199254740990, 9007199254740991, 9007199254740992, 2 ** 63, 1e300, -1e300],
    ];
    for (const op of ['$eq', '$lt', '$lte', '$gt', '$gte']) {
      for (const arg of args) await same({ selector: { n: { [op]: arg } } });
    }
    // The bench's kind of query: no number matches, every document examined (null and the
    // booleans collate below the numbers, a big negative integer is below).
    assert.deepEqual(await same({ selector: { n: { $lt: -1e6 } } }), ['v13', 'v14', 'v15', 'x-bigneg', 'x-hugeneg']);
    assert.deepEqual(await same({ selector: { n: { $lt: 1.5 } } }), [
      'v00',
      'v01',
      'v02',
      'v03',
      'v09',
      'v13',
      'v14',
      'v15',
      'w-escape',
      'x-bigneg',
      'x-hugeneg',
    ]);
  });

  it('keeps the counts where a page stops early, and with other conditions and orders', async () => {
    await same({ selector: { n: { $gt: 0 } }, limit: 2 });
    await same({ selector: { n: { $gt: 0 } }, limit: 3, skip: 2 });
    await same({ selector: { n: { $gte: 1, $lt: 8 }, m: { $gt: 2 } }, limit: 2 });
    await same({ selector: { n: { $gte: 1 }, _id: { $gt: 'v05', $lt: 'w-z' } }, limit: 4 });
    // Descending (a sort on `_id` with a range on it): the walk counted from the high end, the
    // design document inside the range or outside it.
    await same({ selector: { _id: { $gt: null }, n: { $gte: 1 } }, sort: [{ _id: 'desc' }], limit: 3 });
    await same({ selector: { _id: { $gt: null }, n: { $gte: 1 } }, sort: [{ _id: 'desc' }] });
    await same({ selector: { _id: { $lt: 'w' }, n: { $lt: 2 } }, sort: [{ _id: 'desc' }], limit: 2 });
    await same({ selector: { _id: { $gt: '_' }, n: { $lt: 2 } }, limit: 1 });
    await same({ selector: { $and: [{ n: { $lt: 3 } }, { $or: [{ m: 1 }, { m: 2 }] }] } });
    await same({ selector: { n: { $not: { $lt: 3 } } } });
    await same({ selector: { n: { $lt: 3 } }, fields: ['_id', 'm'] });
    await same({ selector: { n: { $lt: 3 } }, limit: 0 });
    await same({ selector: { m: { $gte: 0 } }, limit: 1 });
    // A bookmark (no bounds then) continues where the bounded page stopped.
    const first = await find({ selector: { n: { $gt: 0 } }, limit: 2 });
    const next = await same({ selector: { n: { $gt: 0 } }, limit: 2, bookmark: first.json.bookmark });
    assert.equal(next.length, 2);
  });

  it('reads every document once a page keeps most of what it walked, from where it stopped', async () => {
    await t.request('PUT', '/pages');
    // 1,500 documents: the first 400 fail `n >= 400`, the rest pass it (and `n < 1100` the
    // reverse); one in 50 has the other condition's member.
    const docs = Array.from({ length: 1500 }, (_, i) => ({
      _id: `p${String(i).padStart(4, '0')}`,
      n: i,
      ...(i % 50 === 7 ? { tag: 'x' } : {}),
    }));
    assert.equal((await t.request('POST', '/pages/_bulk_docs', { body: { docs } })).status, 201);
    const on = (query: Record<string, unknown>) => t.request('POST', '/pages/_find', { body: query });
    for (const selector of [
      { n: { $gte: 400 }, tag: 'x' },
      { n: { $lt: 1100 }, tag: 'x' },
      { n: { $gte: 0 }, tag: 'x' },
      { n: { $gte: 1490 } },
      { n: { $lt: 3 } },
    ]) {
      for (const limit of [5, 25, 1000]) {
        const query = { selector, limit, execution_stats: true };
        const bounded = await on(query);
        const plain = await on({ ...query, conflicts: true });
        assert.equal(bounded.status, 200);
        const what = JSON.stringify(query);
        assert.deepEqual(bounded.json.docs, plain.json.docs, what);
        const { execution_time_ms: _a, ...stats } = bounded.json.execution_stats as Record<string, number>;
        const { execution_time_ms: _b, ...plainStats } = plain.json.execution_stats as Record<string, number>;
        assert.deepEqual(stats, plainStats, what);
        assert.equal(bounded.json.warning, plain.json.warning, what);
      }
    }
  });
});

/**
 * Bodies spelled as the document layer accepts them but an engine's JSON functions may read
 * differently or not at all (duplicate members, which they and the document layer may resolve
 * differently; `\u0000`, on which PostgreSQL's fail; escapes, spaces, deep nesting): a scan with
 * bounds finds and counts what the same scan without them does, and never fails — on SQLite,
 * which judges the bounds in its statement, and on PostgreSQL, for any statement that would
 * (commit 32031f5 tried one).
 */
describe('Mango scans with number bounds on bodies an engine reads its own way', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/odd');
    const deep = `${'['.repeat(990)}1${']'.repeat(990)}`;
    for (const [id, body] of [
      ['a-nul', '{"s":"\\u0000","n":5}'],
      ['a-nul-key', '{"\\u0000":1,"n":-5}'],
      ['a-escaped-name', '{"\\u006e":5}'],
      ['a-escaped-text', '{"s":"\\u00e9\\ud83d\\ude00","n":-5}'],
      ['a-backslash', '{"s":"\\\\u0000","n":5}'],
      ['a-spaces', '{ "n" : 5 , "m" : 1 }'],
      ['a-duplicate', '{"n":-5,"n":5}'],
      ['a-duplicate2', '{"n":5,"n":-5}'],
      ['a-minus-zero', '{"n":-0}'],
      ['a-float-int', '{"n":5.0}'],
      ['a-exp', '{"n":5E0}'],
      ['a-tiny', '{"n":1e-400}'],
      ['a-digits18', '{"n":999999999999999999}'],
      ['a-digits19', '{"n":-9999999999999999999}'],
      ['a-string', '{"n":"5"}'],
      ['a-deep', `{"d":${deep},"n":5}`],
      ['a-nested', '{"o":{"n":-5},"n":5}'],
    ]) {
      const r = await t.request('PUT', `/odd/${id}`, { body, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 201, `${id}: ${JSON.stringify(r.json)}`);
    }
  });
  after(() => t.close());

  it('finds and counts what a scan without bounds does', async () => {
    for (const op of ['$eq', '$lt', '$lte', '$gt', '$gte']) {
      for (const arg of [-6, -5, -0.5, 0, 0.5, 5, 6, 1e18, -1e18]) {
        const query = { selector: { n: { [op]: arg } }, execution_stats: true };
        const bounded = await t.request('POST', '/odd/_find', { body: query });
        const plain = await t.request('POST', '/odd/_find', { body: { ...query, conflicts: true } });
        const what = JSON.stringify(query);
        assert.equal(bounded.status, 200, `${what}: ${JSON.stringify(bounded.json)}`);
        assert.deepEqual(bounded.json.docs, plain.json.docs, what);
        const { execution_time_ms: _a, ...stats } = bounded.json.execution_stats as Record<string, number>;
        const { execution_time_ms: _b, ...plainStats } = plain.json.execution_stats as Record<string, number>;
        assert.deepEqual(stats, plainStats, what);
      }
    }
  });
});

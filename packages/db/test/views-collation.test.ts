/**
 * The CouchDB 3.5.0 collation fixture end to end through real views over HTTP: one document per
 * fixture string, `emit(doc.k, null)`, rows read back from the server must be in the fixture's
 * order (ICU: exactly, apart from the three documented ICU 72 → node ICU classes; raw: exactly),
 * `group=true` must merge exactly the fixture's groups, `key=`/`keys=`/ranges must find
 * ignorable and canonically equivalent strings as equal keys, mixed JSON types in CouchDB order.
 * Both `collation: "raw"` placements are covered: the view's own options (CouchDB's) and the
 * ddoc-level `options` (a Divan extension; CouchDB 3.5 ignores it there).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collateRows, encodeRowKey } from '../src/collation/index.js';
import {
  excused,
  excuses,
  hex,
  loadFixture,
  unmoved,
  type FixtureRow,
  type FixtureSection,
} from './support/collation-allowances.js';
import { startTestServer, type TestServer } from './support/server.js';

const fixture = loadFixture();

const MAP = (set: string) => `function (doc) { if (doc.set === '${set}') emit(doc.k, null); }`;
const VIEWS = (options?: object) =>
  Object.fromEntries(
    (['s', 't', 'm'] as const).map((set) => [
      set,
      { map: MAP(set), reduce: '_count', ...(options ? { options } : {}) },
    ]),
  );

interface Row {
  id: string;
  key: unknown;
  value: unknown;
}

function mixedRows(section: FixtureSection): { id: string; key: unknown }[] {
  return (JSON.parse(section.mixedText) as { rows: Row[] }).rows.map(({ id, key }) => ({ id, key }));
}

/** Fixture groups of `group=true`: the rows (in order) of each run given by groupCounts. */
function fixtureGroups(section: FixtureSection): FixtureRow[][] {
  const out: FixtureRow[][] = [];
  let at = 0;
  for (const count of section.groupCounts) {
    out.push(section.strings.slice(at, at + count));
    at += count;
  }
  assert.equal(at, section.strings.length);
  return out;
}

/**
 * ICU order check with the documented allowances: rows outside them in the fixture's relative
 * order, the rows that moved (outside a longest unmoved subsequence) all excused.
 */
function checkIcuOrder(actual: readonly FixtureRow[], expected: readonly FixtureRow[]): FixtureRow[] {
  assert.deepEqual(
    actual.filter((r) => !excused(r.key)).map((r) => r.id),
    expected.filter((r) => !excused(r.key)).map((r) => r.id),
    'rows outside the documented ICU 72 differences are in CouchDB order',
  );
  const position = new Map(expected.map((r, i) => [r.id, i]));
  const keep = unmoved(actual.map((r) => position.get(r.id)!));
  const moved = expected.filter((_, i) => !keep.has(i));
  for (const r of moved) assert.ok(excused(r.key), `${r.id} ${hex(r.key)} moved without a documented reason`);
  return moved;
}

/** The rows the library's own row-key encoding orders (the server must agree byte for byte). */
function librarySorted<T extends { id: string; key: unknown }>(rows: readonly T[], raw: boolean): T[] {
  return rows
    .map((row) => ({ row, bytes: encodeRowKey(row.key, row.id, raw) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ row }) => row);
}

describe('collation fixture end to end through views', () => {
  let t: TestServer;
  const get = async (path: string) => {
    const r = await t.request('GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.json;
  };
  const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('PUT', '/coll')).status, 201);
    const f = fixture;
    const docs = [
      ...f.icu.strings.map((r) => ({ _id: r.id, set: 's', k: r.key })),
      ...f.icu.ties.map((r) => ({ _id: r.id, set: 't', k: r.key })),
      ...mixedRows(f.icu).map((r) => ({ _id: r.id, set: 'm', k: r.key })),
    ];
    const bulk = await t.request('POST', '/coll/_bulk_docs', { body: { docs } });
    assert.equal(bulk.status, 201, bulk.text.slice(0, 500));
    assert.ok(
      bulk.json.every((r: any) => r.ok),
      'every fixture doc stored',
    );
    for (const [ddoc, body] of [
      ['icu', { views: VIEWS() }],
      ['rawview', { views: VIEWS({ collation: 'raw' }) }],
      ['rawddoc', { options: { collation: 'raw' }, views: VIEWS() }],
    ] as const) {
      const r = await t.request('PUT', `/coll/_design/${ddoc}`, { body });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(() => t?.close());

  it('the fixture sections agree with each other (same docs in both orders)', () => {
    const f = fixture;
    assert.equal(f.server.library_version, '72.1');
    const keyOf = new Map(f.icu.strings.map((r) => [r.id, r.key]));
    assert.ok(f.raw.strings.every((r) => keyOf.get(r.id) === r.key));
    const mixedKey = new Map(mixedRows(f.icu).map((r) => [r.id, JSON.stringify(r.key)]));
    assert.ok(mixedRows(f.raw).every((r) => mixedKey.get(r.id) === JSON.stringify(r.key)));
  });

  for (const [mode, ddoc] of [
    ['icu', 'icu'],
    ['raw', 'rawview'],
    ['raw', 'rawddoc'],
  ] as const) {
    const raw = mode === 'raw';
    const label =
      ddoc === 'rawddoc'
        ? 'raw (ddoc-level options.collation)'
        : ddoc === 'rawview'
          ? 'raw (view options.collation)'
          : 'icu';
    const view = (name: string, qs = '') => get(`/coll/_design/${ddoc}/_view/${name}${qs}`);

    describe(label, () => {
      const section = () => fixture[mode];

      it('3,097 strings: row order (key, then doc id), as CouchDB', async (tc) => {
        const r = await view('s', '?reduce=false');
        assert.equal(r.total_rows, 3097);
        const rows: FixtureRow[] = r.rows.map((row: Row) => ({ id: row.id, key: row.key as string }));
        // Keys come back as stored.
        const keyOf = new Map(section().strings.map((s) => [s.id, s.key]));
        for (const row of rows) assert.equal(row.key, keyOf.get(row.id), `key of ${row.id} round-trips`);
        // The server's order is the library's row-key order...
        assert.deepEqual(
          rows.map((x) => x.id),
          librarySorted(section().strings, raw).map((x) => x.id),
        );
        // ... and CouchDB's.
        if (raw) {
          assert.deepEqual(
            rows.map((x) => x.id),
            section().strings.map((x) => x.id),
          );
        } else {
          const moved = checkIcuOrder(rows, section().strings);
          tc.diagnostic(`${moved.length} rows moved, all in documented classes`);
          if (process.versions.icu?.startsWith('78.')) assert.equal(moved.length, 87);
        }
        // Descending is the exact reverse.
        const desc = await view('s', '?reduce=false&descending=true');
        assert.deepEqual(
          desc.rows.map((x: Row) => x.id),
          rows.map((x) => x.id).reverse(),
        );
      });

      it('group=true merges exactly the fixture groups, named by their first row', async () => {
        const [mapped, grouped] = await Promise.all([view('s', '?reduce=false'), view('s', '?group=true')]);
        const rows: FixtureRow[] = mapped.rows.map((row: Row) => ({ id: row.id, key: row.key as string }));
        const ours: FixtureRow[][] = [];
        let at = 0;
        for (const g of grouped.rows as { key: string; value: number }[]) {
          const members = rows.slice(at, at + g.value);
          assert.equal(g.key, members[0]!.key, `group key is its first row's key (${hex(g.key)})`);
          ours.push(members);
          at += g.value;
        }
        assert.equal(at, rows.length, 'group counts add up to the rows');
        const theirs = fixtureGroups(section());
        const show = (g: FixtureRow[]) => g.map((r) => `${r.id}:${hex(r.key)}`).join(' | ');
        if (raw) {
          assert.deepEqual(ours.map(show), theirs.map(show));
        } else {
          // Excused strings may join or leave groups (a Unicode 16 digit zero is equal to "0" in
          // node's ICU, unassigned in CouchDB's): compare the groups of the other strings.
          const clean = (gs: FixtureRow[][]) =>
            gs
              .map((g) => g.filter((r) => !excused(r.key)))
              .filter((g) => g.length > 0)
              .map(show);
          assert.deepEqual(clean(ours), clean(theirs));
        }
      });

      it('ties: equal keys (ignorables, canonical equivalents) ordered by doc id; their groups', async () => {
        const r = await view('t', '?reduce=false');
        const rows: FixtureRow[] = r.rows.map((row: Row) => ({ id: row.id, key: row.key as string }));
        assert.deepEqual(
          rows.map((x) => x.id),
          librarySorted(section().ties, raw).map((x) => x.id),
        );
        if (raw)
          assert.deepEqual(
            rows,
            section().ties.map(({ id, key }) => ({ id, key })),
          );
        else {
          const moved = checkIcuOrder(rows, section().ties);
          if (process.versions.icu?.startsWith('78.')) assert.equal(moved.length, 8);
        }
        const keep = (key: string) => raw || excuses(key).length === 0;
        const groups = await view('t', '?group=true');
        assert.deepEqual(
          groups.rows.filter((g: { key: string }) => keep(g.key)),
          section().tieGroups.filter((g) => keep(g.key)),
        );
      });

      it('key=, keys=, startkey=endkey and the empty exclusive self-range find equal keys', async () => {
        let lookups = 0;
        const allKeys: string[] = [];
        const allRows: FixtureRow[] = [];
        for (const lookup of section().keyLookups) {
          if (lookup.rows) {
            const byKey = await view('t', `?reduce=false&key=${q(lookup.key)}`);
            const found = byKey.rows.map((row: Row) => ({ id: row.id, key: row.key }));
            assert.deepEqual(found, lookup.rows, `key=${JSON.stringify(lookup.key)} (${hex(lookup.key)})`);
            const range = await view('t', `?reduce=false&startkey=${q(lookup.key)}&endkey=${q(lookup.key)}`);
            assert.deepEqual(
              range.rows.map((row: Row) => ({ id: row.id, key: row.key })),
              lookup.rows,
              'startkey=endkey=key',
            );
            const desc = await view('t', `?reduce=false&descending=true&key=${q(lookup.key)}`);
            assert.deepEqual(
              desc.rows.map((row: Row) => row.id),
              lookup.rows.map((x) => x.id).reverse(),
              'descending key=',
            );
            const reduced = await view('t', `?key=${q(lookup.key)}`);
            assert.deepEqual(reduced.rows, [{ key: null, value: lookup.rows.length }], 'reduce over key=');
            allKeys.push(lookup.key);
            allRows.push(...lookup.rows);
            lookups++;
          } else {
            const r = await view(
              't',
              `?reduce=false&startkey=${q(lookup.key)}&endkey=${q(lookup.key)}&inclusive_end=false`,
            );
            assert.equal(
              r.rows.length,
              lookup.exclusiveSelfRange,
              `startkey=endkey=${hex(lookup.key)}, inclusive_end=false`,
            );
          }
        }
        assert.ok(lookups >= 10);
        const multi = await t.request('POST', `/coll/_design/${ddoc}/_view/t?reduce=false`, {
          body: { keys: allKeys },
        });
        assert.equal(multi.status, 200, multi.text);
        assert.deepEqual(
          multi.json.rows.map((row: Row) => ({ id: row.id, key: row.key })),
          allRows,
          'keys=[...] in the order given',
        );
      });

      it('mixed JSON keys (null, booleans, numbers, strings, arrays, objects) in CouchDB order', async () => {
        const r = await view('m', '?reduce=false');
        const expected = mixedRows(section());
        assert.equal(r.total_rows, 61);
        assert.deepEqual(
          r.rows.map((row: Row) => ({ id: row.id, key: row.key })),
          expected,
        );
      });
    });
  }

  it('the fixture records that CouchDB 3.5 ignores a ddoc-level collation (Divan honours it)', () => {
    assert.equal(fixture.rawddoc.sameOrderAsIcu, true);
  });
});

describe('equal keys in ranges, groups and lookups (hand-made)', () => {
  let t: TestServer;
  const ids = (r: any): string[] => r.json.rows.map((row: Row) => row.id);
  const view = (qs: string) => t.request('GET', `/eq/_design/d/_view/v${qs}`);
  const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const DOCS = [
    { _id: 'r01', k: 'ab' },
    { _id: 'r02', k: 'a\u200bb' }, // ZERO WIDTH SPACE: ignorable
    { _id: 'r03', k: 'a\u00adb' }, // SOFT HYPHEN: ignorable
    { _id: 'r04', k: '\u00e9' }, // é precomposed
    { _id: 'r05', k: 'e\u0301' }, // e + COMBINING ACUTE
    { _id: 'r06', k: '\u00c5' }, // Å
    { _id: 'r07', k: '\u212b' }, // ANGSTROM SIGN
    { _id: 'r08', k: 'A\u030a' }, // A + COMBINING RING
    { _id: 'r09', k: 'aa' },
    { _id: 'r10', k: 'ac' },
    { _id: 'r11', k: 'e' },
    { _id: 'r12', k: 'f' },
  ];

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/eq');
    const docs = [...DOCS, ...DOCS.map((d) => ({ _id: `arr-${d._id}`, arr: [d.k, Number(d._id.slice(1))] }))];
    assert.equal((await t.request('POST', '/eq/_bulk_docs', { body: { docs } })).status, 201);
    await t.request('PUT', '/eq/_design/d', {
      body: {
        views: {
          v: { map: 'function (doc) { if (doc.k !== undefined) emit(doc.k, 1); }', reduce: '_sum' },
          a: { map: 'function (doc) { if (doc.arr) emit(doc.arr, 1); }', reduce: '_count' },
        },
      },
    });
  });
  after(() => t?.close());

  it('key= with any spelling of an equal string finds all of them', async () => {
    for (const spelling of ['ab', 'a\u200bb', 'a\u00adb', 'a\u2060b', 'a\ufeffb']) {
      assert.deepEqual(ids(await view(`?reduce=false&key=${q(spelling)}`)), ['r01', 'r02', 'r03'], hex(spelling));
    }
    for (const spelling of ['\u00e9', 'e\u0301']) {
      assert.deepEqual(ids(await view(`?reduce=false&key=${q(spelling)}`)), ['r04', 'r05'], hex(spelling));
    }
    for (const spelling of ['\u00c5', '\u212b', 'A\u030a']) {
      assert.deepEqual(ids(await view(`?reduce=false&key=${q(spelling)}`)), ['r06', 'r07', 'r08'], hex(spelling));
    }
  });

  it('startkey/endkey: inclusive and exclusive ends treat equal spellings as the bound', async () => {
    // [aa, ab-equivalents]: endkey spelled with an ignorable includes every equal key.
    assert.deepEqual(ids(await view(`?reduce=false&startkey=${q('aa')}&endkey=${q('a\u200bb')}`)), [
      'r09',
      'r01',
      'r02',
      'r03',
    ]);
    // inclusive_end=false excludes every spelling of the end key.
    assert.deepEqual(ids(await view(`?reduce=false&startkey=${q('aa')}&endkey=${q('a\u00adb')}&inclusive_end=false`)), [
      'r09',
    ]);
    // startkey spelled decomposed starts at the precomposed rows too.
    assert.deepEqual(ids(await view(`?reduce=false&startkey=${q('e\u0301')}&endkey=${q('f')}`)), ['r04', 'r05', 'r12']);
    // Descending from ac down to an equal spelling of Å (Å < aa: one primary weight, fewer).
    assert.deepEqual(ids(await view(`?reduce=false&descending=true&startkey=${q('ac')}&endkey=${q('A\u030a')}`)), [
      'r10',
      'r03',
      'r02',
      'r01',
      'r09',
      'r08',
      'r07',
      'r06',
    ]);
    // ... and the same, excluding every spelling of the end key.
    assert.deepEqual(
      ids(await view(`?reduce=false&descending=true&startkey=${q('ac')}&endkey=${q('\u212b')}&inclusive_end=false`)),
      ['r10', 'r03', 'r02', 'r01', 'r09'],
    );
    // A reversed range is an error, whatever the spelling.
    assert.equal((await view(`?reduce=false&descending=true&startkey=${q('A\u030a')}&endkey=${q('ac')}`)).status, 400);
  });

  it('group=true: one group per equal key, named by its first row', async () => {
    const r = await view('?group=true');
    assert.deepEqual(r.json.rows, [
      { key: '\u00c5', value: 3 },
      { key: 'aa', value: 1 },
      { key: 'ab', value: 3 },
      { key: 'ac', value: 1 },
      { key: 'e', value: 1 },
      { key: '\u00e9', value: 2 },
      { key: 'f', value: 1 },
    ]);
    const desc = await view('?group=true&descending=true');
    assert.deepEqual(
      desc.json.rows.map((row: { key: string; value: number }) => [row.key, row.value]),
      [
        ['f', 1],
        ['e\u0301', 2],
        ['e', 1],
        ['ac', 1],
        ['a\u00adb', 3],
        ['aa', 1],
        ['A\u030a', 3],
      ],
    );
    const keyed = await t.request('POST', '/eq/_design/d/_view/v?group=true', {
      body: { keys: ['e\u0301', 'a\u2060b'] },
    });
    assert.deepEqual(keyed.json.rows, [
      { key: '\u00e9', value: 2 },
      { key: 'ab', value: 3 },
    ]);
  });

  it('group_level merges arrays whose first elements are equal spellings', async () => {
    const r = await t.request('GET', '/eq/_design/d/_view/a?group_level=1');
    assert.deepEqual(r.json.rows, [
      { key: ['\u00c5'], value: 3 },
      { key: ['aa'], value: 1 },
      { key: ['ab'], value: 3 },
      { key: ['ac'], value: 1 },
      { key: ['e'], value: 1 },
      { key: ['\u00e9'], value: 2 },
      { key: ['f'], value: 1 },
    ]);
    const range = await t.request(
      'GET',
      `/eq/_design/d/_view/a?reduce=false&startkey=${q(['a\u200bb'])}&endkey=${q(['a\u00adb', {}])}`,
    );
    assert.deepEqual(ids(range), ['arr-r01', 'arr-r02', 'arr-r03']);
  });

  it('collateRows agrees with the rows the server returns', async () => {
    const r = await view('?reduce=false');
    const rows = r.json.rows as Row[];
    for (let i = 1; i < rows.length; i++) {
      assert.ok(
        collateRows(rows[i - 1]!.key, rows[i - 1]!.id, rows[i]!.key, rows[i]!.id) < 0,
        `${rows[i - 1]!.id} < ${rows[i]!.id}`,
      );
    }
  });
});

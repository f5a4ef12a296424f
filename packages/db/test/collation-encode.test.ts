import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonNumber, JsonObject } from '../src/json/index.js';
import {
  collate,
  collateRaw,
  collateRows,
  compareNumbers,
  compareUtf8,
  encodeDocId,
  encodeKey,
  encodeRawKey,
  encodeRowKey,
  exactKeyRange,
  rowKeyRange,
  type RowKeyRange,
  type RowRangeQuery,
} from '../src/collation/index.js';

// The byte encodings must order exactly as the comparators (CouchDB's two collations), and the
// query bounds must select exactly the rows CouchDB's (key, docid) range semantics select.

const sign = Math.sign;
const bytesCmp = (a: Buffer, b: Buffer): number => sign(Buffer.compare(a, b));

// Strings that exercise the collations: case, ignorables, NUL and 0x01 (escaped in raw), combining
// marks, astral vs U+E000..U+FFFF (UTF-16 vs UTF-8 order), Cyrillic, punctuation, digits.
const char = fc.constantFrom(
  'a',
  'A',
  'b',
  'B',
  'z',
  '0',
  '9',
  ' ',
  '_',
  '-',
  '~',
  '$',
  'é',
  'e\u0301',
  '\u00c5',
  '\u212b',
  '\u200b',
  '\u00ad',
  '\u0000',
  '\u0001',
  '\u0002',
  '\u0301',
  '\u0323',
  'п',
  '\ue000',
  '\uffff',
  '\ufff0',
  '😀',
  '𝔸',
  '中',
  'ß',
  'ǆ',
);
const str = fc.array(char, { maxLength: 5 }).map((parts) => parts.join(''));
const num = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0, -0, 1e-320, -1e-320, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53, 1e21, 0.1),
);

type Key = unknown;
const { key: jsonKey } = fc.letrec<{ key: Key }>((tie) => ({
  key: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false),
    num,
    str,
    fc.array(tie('key'), { maxLength: 4 }),
    fc.array(fc.tuple(str, tie('key')), { maxLength: 3 }).map((members) => Object.fromEntries(members)),
    // JsonObject keeps member order even for integer-like keys.
    fc
      .uniqueArray(fc.tuple(fc.oneof(str, fc.constantFrom('1', '0', '10')), tie('key')), {
        selector: ([k]) => k,
        maxLength: 3,
      })
      .map(
        (members) =>
          new JsonObject(
            members.map(([k]) => k),
            members.map(([, v]) => v as never),
          ),
      ),
  ),
}));

describe('encodeKey / encodeRawKey order = collate / collateRaw', () => {
  for (const [name, encode, cmp] of [
    ['icu', encodeKey, collate],
    ['raw', encodeRawKey, collateRaw],
  ] as const) {
    test(`${name}: pairs of random keys`, () => {
      fc.assert(
        fc.property(jsonKey, jsonKey, (a, b) => {
          assert.equal(bytesCmp(encode(a), encode(b)), sign(cmp(a, b)));
        }),
        { numRuns: 3000 },
      );
    });

    test(`${name}: sorting random keys by bytes = sorting with the comparator`, () => {
      fc.assert(
        fc.property(fc.array(jsonKey, { maxLength: 30 }), (keys) => {
          const byBytes = keys.map((k) => encode(k)).sort(Buffer.compare);
          const byCmp = [...keys].sort(cmp).map((k) => encode(k));
          assert.deepEqual(byBytes, byCmp);
        }),
        { numRuns: 300 },
      );
    });

    test(`${name}: no encoding is a proper prefix of another (so row keys can follow)`, () => {
      fc.assert(
        fc.property(jsonKey, jsonKey, (a, b) => {
          const [x, y] = [encode(a), encode(b)];
          if (x.length < y.length) assert.equal(y.subarray(0, x.length).equals(x), false);
        }),
        { numRuns: 2000 },
      );
    });
  }
});

describe('documented orders', () => {
  test('CouchDB docs example, ICU', () => {
    const keys = [
      null,
      false,
      true,
      1,
      2,
      3.0,
      4,
      'a',
      'A',
      'aa',
      'b',
      'B',
      'ba',
      'bb',
      ['a'],
      ['b'],
      ['b', 'c'],
      ['b', 'c', 'a'],
      ['b', 'd'],
      ['b', 'd', 'e'],
      { a: 1 },
      { a: 2 },
      { b: 1 },
      { b: 2 },
      { b: 2, a: 1 },
      { b: 2, c: 2 },
    ];
    for (let i = 1; i < keys.length; i++) {
      assert.equal(bytesCmp(encodeKey(keys[i - 1]), encodeKey(keys[i])), -1, JSON.stringify(keys[i - 1]));
      assert.ok(collate(keys[i - 1], keys[i]) < 0);
    }
  });

  test('CouchDB raw test example', () => {
    const keys = [
      1,
      2,
      3,
      4,
      false,
      null,
      true,
      { a: 1 },
      { a: 2 },
      { b: 1 },
      { b: 2 },
      { b: 2, a: 1 },
      { b: 2, c: 2 },
      ['a'],
      ['b'],
      ['b', 'c'],
      ['b', 'c', 'a'],
      ['b', 'd'],
      ['b', 'd', 'e'],
      'A',
      'B',
      'a',
      'aa',
      'b',
      'ba',
      'bb',
    ];
    for (let i = 1; i < keys.length; i++) {
      assert.equal(bytesCmp(encodeRawKey(keys[i - 1]), encodeRawKey(keys[i])), -1, JSON.stringify(keys[i - 1]));
      assert.ok(collateRaw(keys[i - 1], keys[i]) < 0);
    }
  });

  test('equal keys encode identically: 3 and 3.0, -0 and 0, ICU-equal strings, in containers', () => {
    const pairs: [unknown, unknown][] = [
      [3, JsonNumber.float(3)],
      [-0, 0],
      ['a', 'a\u200b'],
      [
        ['\u00e9', 1],
        ['e\u0301', 1.0],
      ],
      [{ '\u00c5': 'x' }, new JsonObject(['\u212b'], ['x'])],
    ];
    for (const [a, b] of pairs) {
      assert.deepEqual(encodeKey(a), encodeKey(b));
      assert.equal(collate(a, b), 0);
    }
    assert.deepEqual(encodeRawKey(3), encodeRawKey(JsonNumber.float(3)));
    assert.notDeepEqual(encodeRawKey('a'), encodeRawKey('a\u200b'));
  });

  test('object member order matters; JsonObject keeps it, plain objects follow JS order', () => {
    const ba = new JsonObject(['b', 'a'], [2, 1]);
    const ab = new JsonObject(['a', 'b'], [1, 2]);
    assert.ok(collate(ab, ba) < 0);
    assert.ok(bytesCmp(encodeKey(ab), encodeKey(ba)) < 0);
    assert.deepEqual(encodeKey({ b: 2, a: 1 }), encodeKey(ba));
    assert.deepEqual(encodeKey(JSON.parse('{"1":1,"0":1}')), encodeKey(new JsonObject(['0', '1'], [1, 1])));
  });

  test('non-finite numbers collate as null (JSON.stringify writes null); non-JSON is a TypeError', () => {
    assert.deepEqual(encodeKey(NaN), encodeKey(null));
    assert.deepEqual(encodeRawKey([Infinity]), encodeRawKey([null]));
    assert.equal(collate(NaN, null), 0);
    assert.throws(() => encodeKey(undefined), TypeError);
    assert.throws(() => encodeKey([() => 1]), TypeError);
    assert.throws(() => collate(Symbol('x'), 1), TypeError);
  });

  test('raw strings and doc ids: UTF-8 byte order, NUL and 0x01 included', () => {
    fc.assert(
      fc.property(str, str, (a, b) => {
        const expected = sign(compareUtf8(a, b));
        assert.equal(expected, bytesCmp(Buffer.from(a), Buffer.from(b)));
        assert.equal(bytesCmp(encodeDocId(a), encodeDocId(b)), expected);
        assert.equal(bytesCmp(encodeRawKey(a), encodeRawKey(b)), expected);
      }),
      { numRuns: 3000 },
    );
    assert.ok(compareUtf8('\uffff', '😀') < 0); // JS '<' says the opposite
    assert.equal(compareUtf8('x\ud800', 'x\ufffd'), 0); // lone surrogate = U+FFFD, as in UTF-8
  });

  test('doc ids as raw string bodies: short ASCII (written by a loop) as any other', () => {
    const reference = (id: string): Buffer => {
      const bytes = [...Buffer.from(id)].flatMap((b) => (b <= 1 ? [1, b + 1] : [b]));
      return Buffer.from([...bytes, 0]);
    };
    const ids = [
      '',
      'a',
      'doc0001',
      'x'.repeat(64),
      'x'.repeat(65),
      `${'x'.repeat(63)}\u0001`,
      'a\u0000b',
      '\u007f',
      'é',
      'x😀',
    ];
    for (const id of ids) {
      assert.deepEqual(encodeDocId(id), reference(id), JSON.stringify(id));
      assert.deepEqual(encodeRowKey(1, id).subarray(9), reference(id), JSON.stringify(id));
    }
  });

  test('short strings met again encode as the first time (sort keys remembered), before and after the memory fills', () => {
    const strings = ['user001', 'a\u0301', 'A', '', 'x\ud800', '😀', 'a'.repeat(16), 'a'.repeat(17), 'a'.repeat(33)];
    const first = strings.map((s) => encodeKey([s, s]));
    for (const [i, s] of strings.entries()) assert.deepEqual(encodeKey([s, s]), first[i]);
    // Far more distinct strings than are remembered, then the first ones again.
    for (let i = 0; i < 80_000; i++) encodeKey(`s${i}`);
    for (const [i, s] of strings.entries()) assert.deepEqual(encodeKey([s, s]), first[i]);
    for (let i = 0; i < 1000; i++)
      assert.equal(bytesCmp(encodeKey(`s${i}`), encodeKey(`s${i + 1}`)), sign(collate(`s${i}`, `s${i + 1}`)));
  });
});

describe('numbers', () => {
  test('doubles: byte order is numeric order (subnormals, extremes, -0)', () => {
    fc.assert(
      fc.property(num, num, (a, b) => {
        assert.equal(bytesCmp(encodeKey(a), encodeKey(b)), sign(a - b || 0));
      }),
      { numRuns: 5000 },
    );
  });

  test('integers beyond double precision fall strictly between their neighbouring doubles', () => {
    const big = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.bigInt({ min: 2n ** 53n - 10n, max: 2n ** 53n + 10n }),
      fc.constantFrom(2n ** 1024n, -(2n ** 1024n), 10n ** 400n),
    );
    const near = (x: bigint): fc.Arbitrary<number> =>
      fc
        .oneof(
          fc.constant(Number(x)),
          fc.constant(Number(x) * (1 + 2 ** -52)),
          fc.constant(Number(x) * (1 - 2 ** -52)),
          num,
        )
        .map((d) => (Number.isFinite(d) ? d : Math.sign(d) * Number.MAX_VALUE)); // keys are finite
    fc.assert(
      fc.property(
        big.chain((x) => fc.tuple(fc.constant(x), near(x))),
        ([x, d]) => {
          const expected = sign(compareNumbers(x, d));
          assert.equal(bytesCmp(encodeKey(x), encodeKey(d)), expected);
          assert.equal(bytesCmp(encodeKey(JsonNumber.integer(x.toString())), encodeKey(d)), expected);
          assert.equal(bytesCmp(encodeKey([x, 'z']), encodeKey([d, 'a'])), expected || 1);
        },
      ),
      { numRuns: 3000 },
    );
    assert.ok(compareNumbers(2n ** 53n + 1n, 2 ** 53) > 0);
    assert.ok(compareNumbers(2n ** 53n + 1n, 2 ** 53 + 2) < 0);
  });
});

// --- Rows and query bounds ------------------------------------------------------------------------

/** The highest doc id sentinel of CouchDB's defaults (<<255>>): above every real id. */
const MAX_ID = Symbol('max id');
type Id = string | typeof MAX_ID;
const cmpId = (a: Id, b: Id): number => (a === b ? 0 : a === MAX_ID ? 1 : b === MAX_ID ? -1 : compareUtf8(a, b));

/** CouchDB's couch_mrview range semantics, straight from the (key, docid) pair comparison. */
function reference(
  rows: { key: unknown; id: string }[],
  q: RowRangeQuery,
  raw: boolean,
): { key: unknown; id: string }[] {
  const cmp = (k1: unknown, i1: Id, k2: unknown, i2: Id): number =>
    (raw ? collateRaw(k1, k2) : collate(k1, k2)) || cmpId(i1, i2);
  const inclusiveEnd = q.inclusiveEnd ?? true;
  return rows.filter(({ key, id }) => {
    if (!q.descending) {
      if (q.startkey !== undefined && cmp(key, id, q.startkey, q.startkeyDocid ?? '') < 0) return false;
      if (q.endkey !== undefined) {
        const c = cmp(key, id, q.endkey, q.endkeyDocid ?? (inclusiveEnd ? MAX_ID : ''));
        if (inclusiveEnd ? c > 0 : c >= 0) return false;
      }
    } else {
      if (q.startkey !== undefined && cmp(key, id, q.startkey, q.startkeyDocid ?? MAX_ID) > 0) return false;
      if (q.endkey !== undefined) {
        const c = cmp(key, id, q.endkey, q.endkeyDocid ?? (inclusiveEnd ? '' : MAX_ID));
        if (inclusiveEnd ? c < 0 : c <= 0) return false;
      }
    }
    return true;
  });
}

const inRange = (bytes: Buffer, r: RowKeyRange): boolean =>
  (!r.gte || Buffer.compare(bytes, r.gte) >= 0) && (!r.lt || Buffer.compare(bytes, r.lt) < 0);

describe('row keys and query bounds', () => {
  // Small key and id spaces so ranges often land on existing keys and ids.
  const smallKey = fc.oneof(
    fc.constantFrom(null, false, true, 0, 1, 1.5, 'a', 'A', 'a\u200b', 'b', 'é', 'e\u0301', '', [], {}),
    fc.array(fc.constantFrom('a', 'b', 1, null), { maxLength: 2 }),
  );
  const smallId = fc.constantFrom('', 'a', 'b', 'a\u0000', 'doc1', 'doc2', 'é', '😀', '\uffff');
  const query = fc.record(
    {
      startkey: smallKey,
      startkeyDocid: smallId,
      endkey: smallKey,
      endkeyDocid: smallId,
      inclusiveEnd: fc.boolean(),
      descending: fc.boolean(),
    },
    { requiredKeys: [] },
  );

  for (const raw of [false, true]) {
    const name = raw ? 'raw' : 'icu';

    test(`${name}: row key byte order = (key, doc id) order`, () => {
      fc.assert(
        fc.property(jsonKey, smallId, jsonKey, smallId, (k1, i1, k2, i2) => {
          assert.equal(
            bytesCmp(encodeRowKey(k1, i1, raw), encodeRowKey(k2, i2, raw)),
            sign(collateRows(k1, i1, k2, i2, raw)),
          );
        }),
        { numRuns: 2000 },
      );
    });

    test(`${name}: rowKeyRange selects exactly CouchDB's rows`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(fc.tuple(smallKey, smallId), { maxLength: 25 }), query, (pairs, q) => {
          const rows = pairs.map(([key, id]) => ({ key, id }));
          const range = rowKeyRange(q, raw);
          const got = rows.filter((r) => inRange(encodeRowKey(r.key, r.id, raw), range));
          assert.deepEqual(got, reference(rows, q, raw), JSON.stringify(q));
        }),
        { numRuns: 1500 },
      );
    });

    test(`${name}: exactKeyRange selects the rows whose key collates equal`, () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(smallKey, smallId), { maxLength: 20 }), smallKey, (pairs, key) => {
          const range = exactKeyRange(key, raw);
          const cmp = raw ? collateRaw : collate;
          for (const [k, id] of pairs) assert.equal(inRange(encodeRowKey(k, id, raw), range), cmp(k, key) === 0);
        }),
        { numRuns: 500 },
      );
    });
  }

  test('a big-integer bound is exact against double row keys', () => {
    const rows = [2 ** 53, 2 ** 53 + 2].map((key, i) => ({ key, id: `d${i}`, bytes: encodeRowKey(key, `d${i}`) }));
    const q = { startkey: JsonNumber.integer('9007199254740993') }; // 2^53 + 1, no double
    assert.deepEqual(
      rows.filter((r) => inRange(r.bytes, rowKeyRange(q))).map((r) => r.id),
      ['d1'],
    );
    assert.equal(rows.filter((r) => inRange(r.bytes, exactKeyRange(q.startkey))).length, 0);
  });
});

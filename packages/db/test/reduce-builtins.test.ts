import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SUM_ERROR,
  builtinFinalize,
  builtinName,
  builtinReduce,
  builtinRereduce,
  createReducer,
  formatErlangTerm,
  validateReduceSource,
} from '../src/views/reduce/index.js';
import { CouchError } from '../src/errors.js';

/** Rows from values, keys [i, "id<i>"]. */
const kvs = (...values: unknown[]): Array<[[number, string], unknown]> => values.map((v, i) => [[i, `id${i}`], v]);
const sumOf = (...values: unknown[]) => builtinReduce('_sum', kvs(...values));
const statsOf = (...values: unknown[]) => builtinReduce('_stats', kvs(...values));
const invalid = (reason: string | RegExp) => (err: unknown) =>
  err instanceof CouchError &&
  err.error === 'invalid_value' &&
  (typeof reason === 'string' ? err.reason === reason : reason.test(err.reason));

describe('builtin names', () => {
  test('matched by prefix, unknown _xxx rejected with CouchDB’s message', () => {
    assert.equal(builtinName('_sum'), '_sum');
    assert.equal(builtinName('_sum\n'), '_sum');
    assert.equal(builtinName('_statsorama'), '_stats');
    assert.equal(builtinName('_count'), '_count');
    assert.equal(builtinName('_approx_count_distinct'), '_approx_count_distinct');
    assert.equal(builtinName('function(k, v) { return 1 }'), undefined);
    assert.equal(builtinName('_foo'), undefined);
    assert.throws(
      () => validateReduceSource('_foo'),
      (err: unknown) =>
        err instanceof CouchError &&
        err.status === 400 &&
        err.error === 'invalid_design_doc' &&
        err.reason === '`_foo` is not a supported reduce function.',
    );
    validateReduceSource('_sum');
    validateReduceSource('function(){}');
  });
});

describe('_count', () => {
  test('counts rows, rereduce sums counts', () => {
    assert.equal(builtinReduce('_count', kvs('a', null, { x: 1 })), 3);
    assert.equal(builtinReduce('_count', []), 0);
    assert.equal(builtinRereduce('_count', [3, 4, 0]), 7);
  });
});

describe('_sum', () => {
  test('numbers, arrays element-wise (shorter padded), number + array', () => {
    assert.equal(sumOf(1, 2, 3.5), 6.5);
    assert.equal(sumOf(), 0);
    assert.deepEqual(sumOf([1], [2, 3]), [3, 3]);
    assert.deepEqual(sumOf([1, 2], 5), [6, 2]);
    assert.deepEqual(sumOf(5, [1, 2]), [6, 2]);
    assert.deepEqual(sumOf([3, 2, 4], [0, 3, 3]), [3, 5, 7]);
  });

  test('objects member-wise, recursively, members on one side copied (couch_query_servers sum_values_test)', () => {
    const x = { a: 1, b: [1, 2], c: { d: 3 }, g: 1 };
    const y = { a: 2, b: 3, c: { e: 5 }, f: 1, g: 1 };
    const z = { a: 3, b: [4, 2], c: { d: 3, e: 5 }, f: 1, g: 2 };
    assert.deepEqual(sumOf(x, y), z);
    assert.deepEqual(sumOf(y, x), z);
    assert.deepEqual(JSON.stringify(sumOf({ b: 1, a: 1 }, { c: 1 })), '{"a":1,"b":1,"c":1}');
  });

  test('invalid values give the builtin_reduce_error value (HTTP 200), with caused_by', () => {
    assert.deepEqual(sumOf(1, 'str'), { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: 'str' });
    assert.deepEqual(sumOf(null), { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: null });
    assert.deepEqual(sumOf(true, 1), { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: true });
    // sum_arrays(Else, _): the cause is what is left of the accumulator list.
    assert.deepEqual(sumOf([1, 2], ['a', 'b']), {
      error: 'builtin_reduce_error',
      reason: SUM_ERROR,
      caused_by: [1, 2],
    });
    assert.deepEqual(sumOf({ a: 1 }, 5), { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: 5 });
    assert.deepEqual(sumOf([{ a: 1 }, { a: 2 }]), { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: [0] });
    assert.equal(
      SUM_ERROR,
      'The _sum function requires that map values be numbers, arrays of numbers, or objects. Objects cannot be mixed with other data structures. Objects can be arbitrarily nested, provided that the values for all fields are themselves numbers, arrays of numbers, or objects.',
    );
  });

  test('an earlier builtin_reduce_error passes through rereduce unchanged', () => {
    const err = sumOf('x');
    assert.deepEqual(builtinRereduce('_sum', [1, err, 2]), err);
  });

  test('reduce_limit: an output term > 4906 bytes and more than half the input is an error value', () => {
    // couch_query_servers_tests gen_sum_kvs: 10 rows of objects with 20 random keys each.
    const rows = Array.from(
      { length: 10 },
      (_, i) =>
        [i, Object.fromEntries(Array.from({ length: 20 }, (_, j) => [`k${i}_${j}_${'r'.repeat(16)}`, 1]))] as [
          number,
          unknown,
        ],
    );
    const result = builtinReduce('_sum', rows) as Record<string, unknown>;
    assert.equal(result.error, 'builtin_reduce_error');
    assert.match(String(result.reason), /^Reduce output must shrink more rapidly: input size: \d+ output size: \d+$/);
    assert.equal(Object.keys(result).length, 2);
    const logged: string[] = [];
    const kept = builtinReduce('_sum', rows, { reduceLimit: 'log', log: (m) => logged.push(m) }) as Record<
      string,
      unknown
    >;
    assert.equal(kept.error, undefined);
    assert.equal(Object.keys(kept).length, 200);
    assert.equal(logged.length, 1);
    assert.equal((builtinReduce('_sum', rows, { reduceLimit: false }) as Record<string, unknown>).error, undefined);
    assert.equal((builtinReduce('_sum', rows, { threshold: 1_000_000 }) as Record<string, unknown>).error, undefined);
    assert.equal((builtinReduce('_sum', rows, { ratio: 0.1 }) as Record<string, unknown>).error, undefined);
  });
});

describe('_stats', () => {
  test('numbers: {sum, count, min, max, sumsqr} in that order', () => {
    assert.equal(JSON.stringify(statsOf(2)), '{"sum":2,"count":1,"min":2,"max":2,"sumsqr":4}');
    assert.deepEqual(statsOf(1, 10), { sum: 11, count: 2, min: 1, max: 10, sumsqr: 101 });
    assert.deepEqual(statsOf(), { sum: 0, count: 0, min: 0, max: 0, sumsqr: 0 });
  });

  test('arrays of numbers give arrays of stats; stats objects are merged (rereduce)', () => {
    assert.deepEqual(statsOf([2, 3, 5], [7, 11, 13]), [
      { sum: 9, count: 2, min: 2, max: 7, sumsqr: 53 },
      { sum: 14, count: 2, min: 3, max: 11, sumsqr: 130 },
      { sum: 18, count: 2, min: 5, max: 13, sumsqr: 194 },
    ]);
    const a = statsOf(1, 2);
    const b = statsOf(10);
    assert.deepEqual(builtinRereduce('_stats', [a, b]), { sum: 13, count: 3, min: 1, max: 10, sumsqr: 105 });
    assert.deepEqual(statsOf({ sum: 1, count: 1, min: 1, max: 1, sumsqr: 1 }, 2), {
      sum: 3,
      count: 2,
      min: 1,
      max: 2,
      sumsqr: 5,
    });
  });

  test('bad values fail the reduce with invalid_value and CouchDB’s reasons (Erlang term text)', () => {
    assert.throws(
      () => statsOf(1, 'str'),
      invalid(`The _stats function requires that map values be numbers or arrays of numbers, not '<<"str">>'`),
    );
    assert.throws(
      () => statsOf(1, null),
      invalid(`The _stats function requires that map values be numbers or arrays of numbers, not 'null'`),
    );
    assert.throws(
      () => statsOf(1, [1, 2]),
      invalid(`The _stats function requires that map values be numbers or arrays of numbers, not '[1,2]'`),
    );
    assert.throws(() => statsOf('str'), invalid('non-numeric _stats input: <<"str">>'));
    assert.throws(
      () => statsOf({ sum: 1 }),
      invalid(
        'user _stats input missing required field count ({<<"sum">>,1})'.replace('({', '([{').replace('})', '}])'),
      ),
    );
    assert.throws(
      () => statsOf({ sum: 1, count: 'x', min: 1, max: 1, sumsqr: 1 }),
      invalid('non-numeric _stats input received for count: <<"x">>'),
    );
    assert.throws(
      () => statsOf(1, 2, true),
      (err: unknown) => err instanceof CouchError && err.status === 500,
    );
  });
});

describe('_approx_count_distinct', () => {
  test('counts distinct keys (values ignored), exact for small sets, union on rereduce', () => {
    const rows = (keys: unknown[]) => keys.map((k, i) => [[k, `id${i}`], 'ignored'] as [[unknown, string], unknown]);
    const keys = ['a', 'b', 'a', 1, 1.5, null, [1, 'x'], { o: 1 }, 'b', true];
    const r1 = builtinReduce('_approx_count_distinct', rows(keys));
    assert.equal(builtinFinalize('_approx_count_distinct', r1), 8);
    const r2 = builtinReduce('_approx_count_distinct', rows(['a', 'z', 'y']));
    const merged = builtinRereduce('_approx_count_distinct', [r1, r2]);
    assert.equal(builtinFinalize('_approx_count_distinct', merged), 10);
    assert.equal(builtinFinalize('_approx_count_distinct', builtinReduce('_approx_count_distinct', [])), 0);
    // The stored reduction is plain JSON and survives a round trip.
    assert.equal(builtinFinalize('_approx_count_distinct', JSON.parse(JSON.stringify(merged))), 10);
  });

  test('large sets are estimated within a few percent', () => {
    for (const n of [1000, 20000]) {
      const rows = Array.from({ length: n }, (_, i) => [[`key${i}`, `id${i}`], null] as [[string, string], null]);
      const estimate = builtinFinalize(
        '_approx_count_distinct',
        builtinReduce('_approx_count_distinct', rows),
      ) as number;
      assert.ok(Math.abs(estimate - n) / n < 0.06, `estimate ${estimate} for ${n}`);
    }
  });
});

describe('reducer with builtins only', () => {
  test('runs in-process, one reduction per source, finalize', async () => {
    const r = await createReducer(['_count', '_sum', '_stats', '_approx_count_distinct']);
    assert.equal(r.hasJavaScript, false);
    const red = await r.reduce(
      [
        [['a', 1], 'x'],
        [['a', 2], 'y'],
      ],
      [3, 4],
    );
    assert.deepEqual(r.finalize(red).slice(0, 3), [2, 7, { sum: 7, count: 2, min: 3, max: 4, sumsqr: 25 }]);
    const rr = await r.rereduce([red, red]);
    assert.deepEqual(r.finalize(rr), [4, 14, { sum: 14, count: 4, min: 3, max: 4, sumsqr: 50 }, 2]);
    await assert.rejects(
      createReducer(['_bogus']),
      (err: unknown) => err instanceof CouchError && err.error === 'invalid_design_doc',
    );
    r.dispose();
  });
});

describe('Erlang term text', () => {
  test('binaries, atoms, numbers, lists, objects', () => {
    assert.equal(formatErlangTerm('a"b'), '<<"a\\"b">>');
    assert.equal(formatErlangTerm('é'), '<<"é"/utf8>>');
    assert.equal(formatErlangTerm(null), 'null');
    assert.equal(formatErlangTerm(1.5), '1.5');
    assert.equal(formatErlangTerm([1, 'x']), '[1,<<"x">>]');
    assert.equal(formatErlangTerm({ a: [true] }), '{[{<<"a">>,[true]}]}');
  });
});

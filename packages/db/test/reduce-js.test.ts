import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReducer, isReduceOverflowError, type Reducer, type ReducerOptions } from '../src/views/reduce/index.js';
import { CouchError } from '../src/errors.js';

const reducers: Reducer[] = [];
after(() =>
  reducers.forEach((r) => {
    r.dispose();
  }),
);
async function reducer(sources: string[], options: ReducerOptions = {}): Promise<Reducer> {
  const r = await createReducer(sources, options);
  reducers.push(r);
  return r;
}

describe('JavaScript reduce', () => {
  test('reduce gets keys [[key, id]…] and values, rereduce gets null keys and earlier reductions', async () => {
    const r = await reducer([
      'function(keys, values, rereduce) { return rereduce ? {re: true, keys: keys, values: values} : {re: false, keys: keys, values: values} }',
      'function(keys, values, rereduce) { return sum(values) }',
    ]);
    assert.equal(r.hasJavaScript, true);
    const red = await r.reduce(
      [
        [['k', 1], 'doc1'],
        [null, 'doc2'],
      ],
      [1, 2],
    );
    assert.deepEqual(red, [
      {
        re: false,
        keys: [
          [['k', 1], 'doc1'],
          [null, 'doc2'],
        ],
        values: [1, 2],
      },
      3,
    ]);
    const rr = await r.rereduce([
      [0, 3],
      [0, 4],
    ]);
    assert.deepEqual(rr, [{ re: true, keys: null, values: [0, 0] }, 7]);
  });

  test('mixed with builtins, results stay in source order; groups in one call', async () => {
    const r = await reducer(['_count', 'function(k, v, re) { return re ? sum(v) : v.length * 10 }', '_sum']);
    const groups = await r.reduceGroups([
      { keys: [['a', 'x']], values: [5] },
      {
        keys: [
          ['b', 'y'],
          ['b', 'z'],
        ],
        values: [1, 2],
      },
    ]);
    assert.deepEqual(groups, [
      [1, 10, 5],
      [2, 20, 3],
    ]);
    assert.deepEqual(await r.rereduceGroups([groups, [groups[0]!]]), [
      [3, 30, 8],
      [1, 10, 5],
    ]);
  });

  test('count / sum / stats written in JavaScript match the builtins through rereduce', async () => {
    const r = await reducer(['function(k, v, re) { if (re) return sum(v); return v.length }', '_count']);
    const values = Array.from({ length: 100 }, (_, i) => i);
    const keys = values.map((i) => [i, `id${i}`] as [number, string]);
    const parts = [];
    for (let i = 0; i < 100; i += 10) parts.push(await r.reduce(keys.slice(i, i + 10), values.slice(i, i + 10)));
    assert.deepEqual(await r.rereduce(parts), [100, 100]);
  });

  test('a throwing reduce gives null for that function (logged), others unaffected', async () => {
    const lines: string[] = [];
    const r = await reducer(['function(k, v) { throw new Error("nope") }', 'function(k, v) { return v.length }'], {
      log: (line, kind) => lines.push(`${kind}:${line}`),
    });
    assert.deepEqual(await r.reduce([['a', 'x']], [1]), [null, 1]);
    assert.match(lines.join('\n'), /^error:function raised exception Error: nope/);
  });

  test("throw 'fatal_error' rejects with map_runtime_error", async () => {
    const r = await reducer(['function(k, v) { throw "fatal_error" }']);
    await assert.rejects(
      r.reduce([['a', 'x']], [1]),
      (err: unknown) => err instanceof CouchError && err.error === 'map_runtime_error',
    );
  });

  test('a reduce that does not compile is a compilation_error', async () => {
    await assert.rejects(
      createReducer(['function(k, v) { return ']),
      (err: unknown) =>
        err instanceof CouchError && err.error === 'compilation_error' && /SyntaxError/.test(err.reason),
    );
  });

  test('runaway reduce: timeout, and the reducer keeps working', async () => {
    const r = await reducer(['function(k, v) { if (v[0] === "loop") while (true) {} return v.length }'], {
      timeoutMs: 300,
    });
    await assert.rejects(
      r.reduce([['a', 'x']], ['loop']),
      (err: unknown) => err instanceof CouchError && err.error === 'os_process_timeout',
    );
    assert.deepEqual(await r.reduce([['a', 'x']], [1]), [1]);
  });
});

describe('reduce_limit (reduce_overflow_error)', () => {
  // couch_query_servers_tests sum_js: output grows with the input.
  const growing = 'function(keys, vals, rereduce) { return ["result", vals.concat(vals)] }';
  const rows = (n: number) => {
    const keys = Array.from({ length: n }, (_, i) => [i, `id${i}`] as [number, string]);
    const values = Array.from({ length: n }, (_, i) => ({ [`key_${i}_${'x'.repeat(20)}`]: 1 }));
    return { keys, values };
  };

  test('output > 4096 chars and more than half the input → reduce_overflow_error reduction', async () => {
    const r = await reducer([growing, '_count']);
    const { keys, values } = rows(200);
    const [red, count] = await r.reduce(keys, values);
    assert.equal(count, 200);
    assert.ok(isReduceOverflowError(red), JSON.stringify(red).slice(0, 100));
    const input = JSON.stringify([keys, values]).length;
    const output = JSON.stringify([['result', values.concat(values)]]).length;
    assert.equal(red.reason, `Reduce output must shrink more rapidly: input size: ${input} output size: ${output}`);
    // Rereducing anything that contains it gives it back.
    assert.deepEqual(
      (
        await r.rereduce([
          [red, 1],
          [['result', []], 2],
        ])
      )[0],
      red,
    );
  });

  test('small outputs never overflow, even when they grow', async () => {
    const r = await reducer([growing]);
    const { keys, values } = rows(5);
    const [red] = await r.reduce(keys, values);
    assert.equal(isReduceOverflowError(red), false);
    assert.equal((red as unknown[])[0], 'result');
  });

  test("reduce_limit = 'log' keeps the result and logs; false disables", async () => {
    const lines: string[] = [];
    const logged = await reducer([growing], { reduceLimit: 'log', log: (line) => lines.push(line) });
    const { keys, values } = rows(200);
    const [red] = await logged.reduce(keys, values);
    assert.equal(isReduceOverflowError(red), false);
    assert.match(lines.join('\n'), /reduce_overflow_error: Reduce output must shrink more rapidly/);
    const off = await reducer([growing], { reduceLimit: false });
    assert.equal(isReduceOverflowError((await off.reduce(keys, values))[0]), false);
  });

  test('rereduce checks each function on its own', async () => {
    const r = await reducer([growing, 'function(k, v, re) { return re ? sum(v) : v.length }']);
    const big = Array.from({ length: 100 }, (_, i) => ({ [`k${i}${'y'.repeat(30)}`]: i }));
    const out = await r.rereduce([
      [big, 1],
      [big, 2],
    ]);
    assert.ok(isReduceOverflowError(out[0]));
    assert.equal(out[1], 3);
  });
});

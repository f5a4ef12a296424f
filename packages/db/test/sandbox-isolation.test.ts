import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createMapper, hasNoNodeSnapshotFlag, type Mapper, type MapperOptions } from '../src/sandbox/index.js';
import { CouchError } from '../src/errors.js';

const mappers: Mapper[] = [];
after(() =>
  mappers.forEach((m) => {
    m.dispose();
  }),
);
async function mapper(map: string, options: MapperOptions = {}): Promise<Mapper> {
  const m = await createMapper({ views: [{ name: 'probe', map }] }, options);
  mappers.push(m);
  return m;
}
const one = ['{"_id":"a","n":1}'];

describe('what user code can reach', () => {
  test('no Node globals, no host objects, no way out through constructors', async () => {
    const m = await mapper(`function(doc){
      var probe = function (f) { try { var v = f(); return v === undefined ? 'undefined' : typeof v; } catch (e) { return 'threw ' + e.name; } };
      emit('process', probe(function(){ return process }));
      emit('globalThis.process', typeof globalThis.process);
      emit('Buffer', typeof Buffer);
      emit('setTimeout', typeof setTimeout);
      emit('fetch', typeof fetch);
      emit('module', typeof module);
      emit('ctor', probe(function(){ return this.constructor.constructor('return process')() }));
      emit('fnctor', probe(function(){ return emit.constructor('return process')() }));
      emit('fnctor2', probe(function(){ return Function('return typeof globalThis.require === "function" && require("fs")')() }));
      emit('keys', Object.getOwnPropertyNames(globalThis).filter(function (k) { return /^(emit|log|sum|isArray|toJSON|require)$/.test(k) }).sort());
    }`);
    const rows = Object.fromEntries((await m.mapBatch(one)).rows[0]![0] as Array<[string, unknown]>);
    assert.equal(rows.process, 'threw ReferenceError');
    assert.equal(rows['globalThis.process'], 'undefined');
    assert.equal(rows.Buffer, 'undefined');
    assert.equal(rows.setTimeout, 'undefined');
    assert.equal(rows.fetch, 'undefined');
    assert.equal(rows.module, 'undefined');
    assert.equal(rows.ctor, 'threw ReferenceError');
    assert.equal(rows.fnctor, 'threw ReferenceError');
    // require is CouchDB's lib loader only: "fs" is not a module of the design doc.
    assert.match(String(rows.fnctor2), /^threw/);
    assert.deepEqual(rows.keys, ['emit', 'isArray', 'log', 'require', 'sum', 'toJSON']);
  });

  test("require('fs') / require('child_process') fail like any unknown module", async () => {
    const m = await mapper(`function(doc){
      ['fs', 'child_process', 'node:fs', 'net', 'views/lib/../../../fs'].forEach(function (name) {
        try { require(name); emit(name, 'loaded'); } catch (e) { emit(name, e[1] || String(e)); }
      });
    }`);
    for (const [, outcome] of (await m.mapBatch(one)).rows[0]![0]!) assert.equal(outcome, 'invalid_require_path');
  });

  test('one mapper cannot see another mapper’s globals', async () => {
    const a = await mapper('function(doc){ secretOfA = 42; emit(1) }');
    const b = await mapper('function(doc){ emit(typeof secretOfA) }');
    await a.mapBatch(one);
    assert.deepEqual((await b.mapBatch(one)).rows[0]![0], [['undefined', null]]);
  });
});

describe('runaway code is contained', () => {
  test('an infinite loop times out the batch; the host stays responsive; the next batch works', async () => {
    const lines: string[] = [];
    const m = await mapper('function(doc){ if (doc.loop) while (true) {} emit(doc._id) }', {
      timeoutMs: 300,
      log: (line) => lines.push(line),
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    await assert.rejects(
      m.mapBatch(['{"_id":"a"}', '{"_id":"b","loop":true}']),
      (err: unknown) =>
        err instanceof CouchError && err.error === 'os_process_timeout' && /300 ms time limit/.test(err.reason),
    );
    clearInterval(timer);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3000, `timed out after ${elapsed} ms`);
    assert.ok(ticks >= 3, `event loop ran ${ticks} timer ticks during the loop`); // async apply: host not blocked
    assert.match(lines.join('\n'), /time limit/);
    assert.deepEqual((await m.mapBatch(['{"_id":"c"}'])).rows, [[[['c', null]]]]);
  });

  test("the time limit is per document, as CouchDB's per map_doc: a batch slower in total maps whole", async () => {
    // 15 documents of ~100 ms each (on the wall clock, so a busy machine makes none slower):
    // ~1.5 s for the batch, past its 1 s limit, while no document comes near it.
    const lines: string[] = [];
    const m = await mapper('function(doc){ var t = Date.now(); while (Date.now() - t < 100) {} emit(doc.n) }', {
      timeoutMs: 1000,
      log: (line) => lines.push(line),
    });
    const docs = Array.from({ length: 15 }, (_, n) => JSON.stringify({ _id: `d${n}`, n }));
    const out = await m.mapBatch(docs);
    assert.deepEqual(
      out.rows,
      docs.map((_, n) => [[[n, null]]]),
    );
    assert.deepEqual(out.errors, []);
    assert.match(lines.join('\n'), /one at a time/);
    // The next batch goes in smaller calls from the start: no call of it runs past the limit.
    const before = lines.length;
    assert.deepEqual((await m.mapBatch(docs)).rows, out.rows);
    assert.deepEqual(lines.slice(before), []);
  });

  test('a promise-based infinite loop is contained too', async () => {
    const m = await mapper(
      'function(doc){ if (doc.loop) Promise.resolve().then(function () { while (true) {} }); emit(doc._id) }',
      {
        timeoutMs: 300,
      },
    );
    // isolated-vm runs the isolate's microtasks inside the timed call, so the loop times out there.
    await assert.rejects(
      m.mapBatch(['{"_id":"p","loop":true}']),
      (err: unknown) => err instanceof CouchError && err.error === 'os_process_timeout',
    );
    assert.deepEqual((await m.mapBatch(['{"_id":"q"}'])).rows, [[[['q', null]]]]);
  });

  test('a memory bomb hits the memory cap; the host survives; the next batch works', async () => {
    const m = await mapper(
      'function(doc){ if (doc.bomb) { var a = []; while (true) a.push(new Array(100000).fill(doc._id)); } emit(doc._id) }',
      { memoryLimitMb: 32, timeoutMs: 20000 },
    );
    const rssBefore = process.memoryUsage().rss;
    await assert.rejects(
      m.mapBatch(['{"_id":"b","bomb":true}']),
      (err: unknown) =>
        err instanceof CouchError && err.error === 'os_process_error' && /32 MB memory limit/.test(err.reason),
    );
    assert.ok(process.memoryUsage().rss - rssBefore < 512 * 1024 * 1024);
    assert.deepEqual((await m.mapBatch(['{"_id":"c"}'])).rows, [[[['c', null]]]]);
  });

  test('a string bomb and deep recursion are contained', async () => {
    const m = await mapper(
      `function(doc){
        if (doc.str) { var parts = []; while (true) { var s = 'x'.repeat(1 << 20) + parts.length; s.charCodeAt(5); parts.push(s); } }
        if (doc.rec) { var f = function (n) { return f(n + 1) + 1 }; f(0); }
        emit(doc._id)
      }`,
      { memoryLimitMb: 32, timeoutMs: 20000 },
    );
    await assert.rejects(
      m.mapBatch(['{"_id":"s","str":true}']),
      (err: unknown) =>
        err instanceof CouchError && err.error === 'os_process_error' && /memory limit/.test(err.reason),
    );
    // Stack overflow is an ordinary RangeError: that doc's rows are dropped.
    const { rows, errors } = await m.mapBatch(['{"_id":"r","rec":true}', '{"_id":"ok"}']);
    assert.deepEqual(rows, [[[]], [[['ok', null]]]]);
    assert.match(errors[0]!.message, /RangeError/);
  });
});

describe('--no-node-snapshot', () => {
  test('this test process runs with the flag', () => {
    assert.ok(hasNoNodeSnapshotFlag(), 'run the sandbox tests with node --no-node-snapshot (or NODE_OPTIONS)');
  });

  test('without the flag createMapper rejects with a clear sandbox_unavailable error', () => {
    const moduleUrl = new URL('../src/sandbox/index.js', import.meta.url).href;
    const script = `
      import(${JSON.stringify(moduleUrl)}).then(async ({ createMapper }) => {
        try { await createMapper({ views: [{ name: 'v', map: 'function(doc){}' }] }); console.log('created'); }
        catch (e) { console.log(e.error + ': ' + e.reason); }
      });`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
    delete env.DIVAN_ALLOW_NODE_SNAPSHOT;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env,
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    });
    assert.equal(child.status, 0, child.stderr);
    assert.match(
      child.stdout,
      /^sandbox_unavailable: The JavaScript view sandbox \(isolated-vm\) needs node to run with --no-node-snapshot/,
    );
  });
});

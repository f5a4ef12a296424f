/**
 * The design-function sandbox (src/sandbox/render-runner.ts) on its own: render.js's environment,
 * a list fed row by row by the host (its waits not counted against the time limit), the time
 * and memory limits, and what user code can reach.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CouchError } from '../src/errors.js';
import { createRenderRunner, type ListFlush } from '../src/sandbox/index.js';

const DDOC = {
  _id: '_design/r',
  _rev: '1-a',
  marker: 'm',
  shows: {
    me: 'function(doc, req) { return { json: { marker: this.marker, doc: doc, lib: require("lib/x").x } }; }',
    reach: `function() {
      return { json: [typeof process, typeof Buffer, typeof setTimeout, typeof fetch, typeof __host, typeof host] };
    }`,
    negotiate: `function(doc, req) {
      provides('json', function() { return 'json'; });
      provides('html', function() { return 'html'; });
      provides('xml', function() { return 'xml'; });
    }`,
    loops: 'function() { for (;;) {} }',
    hog: 'function() { var a = []; for (;;) a.push(new Array(1e6).fill(1)); }',
  },
  lists: {
    busy: `function(head, req) {
      var row, n = 0;
      while ((row = getRow())) { var until = Date.now() + 60; while (Date.now() < until) {} n++; }
      return 'rows ' + n;
    }`,
    spins: 'function(head, req) { getRow(); for (;;) {} }',
    all: `function(head, req) {
      send('h' + head.total_rows + ';');
      var row;
      while ((row = getRow())) send(row.key + ';');
      return 'end';
    }`,
  },
  lib: { x: 'exports.x = 42;' },
};

const req = (accept?: string, query: Record<string, string> = {}) => ({
  method: 'GET',
  path: ['db', '_design', 'r', '_show', 'x'],
  query,
  headers: accept === undefined ? {} : { Accept: accept },
});

describe('render runner', () => {
  test('functions get the design document as this, the document, and require from the design document', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC));
    try {
      const resp = await runner.show('me', '{"_id":"d","n":1.5}', req());
      assert.deepEqual(resp, { json: { marker: 'm', doc: { _id: 'd', n: 1.5 }, lib: 42 } });
    } finally {
      runner.dispose();
    }
  });

  test('user code reaches no host object (the host function included)', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC));
    try {
      const resp = await runner.show('reach', null, req());
      assert.deepEqual(resp.json, ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
    } finally {
      runner.dispose();
    }
  });

  test('mimeparse: quality first, then how exactly a type matches; ties to the first provided', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC));
    try {
      const body = async (accept: string | undefined, query?: Record<string, string>) =>
        (await runner.show('negotiate', null, req(accept, query))).body;
      assert.equal(await body('text/html'), 'html');
      assert.equal(await body('application/xml;q=0.9, text/html;q=0.8'), 'xml');
      assert.equal(await body('*/*'), 'json');
      // text/xml, text/html and text/x-json match alike: the first provided (json) wins.
      assert.equal(await body('text/*'), 'json');
      assert.equal(await body('text/*, text/html'), 'html');
      assert.equal(await body(undefined), 'json');
      assert.equal(await body('text/html', { format: 'xml' }), 'xml');
    } finally {
      runner.dispose();
    }
  });

  test('a list waits for each row without the wait counting against the time limit', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC), { timeoutMs: 200 });
    const flushes: ListFlush[] = [];
    let next = 0;
    try {
      const last = await runner.list('all', { total_rows: 5 }, req(), async (flush) => {
        flushes.push(flush);
        await new Promise((resolve) => setTimeout(resolve, 60));
        return next < 5 ? JSON.stringify({ key: next++ }) : null;
      });
      assert.deepEqual(last, ['end']);
      // The head goes out with the first getRow, then each row's chunk with the next one.
      assert.deepEqual(flushes[0], { chunks: ['h5;'], start: { headers: {} } });
      assert.deepEqual(
        flushes.slice(1).map((f) => f.chunks),
        [['0;'], ['1;'], ['2;'], ['3;'], ['4;']],
      );
    } finally {
      runner.dispose();
    }
  });

  test("a list's time limit is per row: a long list of quick steps runs, a step that never ends does not", async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC), { timeoutMs: 150 });
    try {
      let next = 0;
      const feed = async () => (next < 6 ? JSON.stringify({ key: next++ }) : null);
      assert.deepEqual(await runner.list('busy', {}, req(), feed), ['rows 6']);
      await assert.rejects(runner.list('spins', {}, req(), feed), (e: unknown) => {
        assert.ok(e instanceof CouchError);
        assert.equal(e.error, 'os_process_timeout');
        return true;
      });
    } finally {
      runner.dispose();
    }
  });

  test('a function running too long is stopped (os_process_timeout), and the runner is spent', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC), { timeoutMs: 100 });
    try {
      await assert.rejects(runner.show('loops', null, req()), (e: unknown) => {
        assert.ok(e instanceof CouchError);
        assert.equal(e.error, 'os_process_timeout');
        return true;
      });
      await assert.rejects(
        runner.show('me', null, req()),
        (e: unknown) => (e as CouchError).error === 'os_process_error',
      );
    } finally {
      runner.dispose();
    }
  });

  test('a function past the memory limit is stopped (os_process_error)', async () => {
    const runner = await createRenderRunner(JSON.stringify(DDOC), { memoryLimitMb: 16, timeoutMs: 10_000 });
    try {
      await assert.rejects(runner.show('hog', null, req()), (e: unknown) => {
        assert.ok(e instanceof CouchError);
        assert.equal(e.error, 'os_process_error');
        assert.match(e.reason, /memory/);
        return true;
      });
    } finally {
      runner.dispose();
    }
  });
});

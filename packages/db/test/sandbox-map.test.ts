import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createMapper, type MapDesign, type Mapper, type MapperOptions } from '../src/sandbox/index.js';
import { CouchError } from '../src/errors.js';

const mappers: Mapper[] = [];
after(() =>
  mappers.forEach((m) => {
    m.dispose();
  }),
);

async function mapper(design: MapDesign, options: MapperOptions = {}): Promise<Mapper> {
  const m = await createMapper(design, options);
  mappers.push(m);
  return m;
}
const view = (map: string, name = 'v') => ({ name, map });
const docs = (...values: object[]) => values.map((d) => JSON.stringify(d));

describe('map environment', () => {
  test('emit rows per doc per view, in emit order; emit(k) has value null', async () => {
    const m = await mapper({
      views: [
        view('function(doc){ emit(doc._id, doc.n); emit([doc.n, 1]) }', 'a'),
        view('function(doc){ if (doc.n > 1) emit(doc.n) }', 'b'),
      ],
    });
    assert.deepEqual(m.viewNames, ['a', 'b']);
    const { rows, errors } = await m.mapBatch(docs({ _id: 'x', n: 1 }, { _id: 'y', n: 2 }));
    assert.deepEqual(errors, []);
    assert.deepEqual(rows, [
      [
        [
          ['x', 1],
          [[1, 1], null],
        ],
        [],
      ],
      [
        [
          ['y', 2],
          [[2, 1], null],
        ],
        [[2, null]],
      ],
    ]);
  });

  test('non-JSON values go through JSON as CouchDB does', async () => {
    const m = await mapper({
      views: [
        view(`function(doc){
          emit(undefined, [undefined, NaN, Infinity, -Infinity, function(){}]);
          emit(NaN, { a: undefined, b: NaN, c: function(){}, d: new Date(0) });
          emit(new Date(0), { toJSON: function(){ return 'custom' } });
          emit(-0, 1.5);
        }`),
      ],
    });
    const { rows } = await m.mapBatch(docs({ _id: 'x' }));
    assert.deepEqual(rows[0]![0], [
      [null, [null, null, null, null, null]],
      [null, { b: null, d: '1970-01-01T00:00:00.000Z' }],
      ['1970-01-01T00:00:00.000Z', 'custom'],
      [0, 1.5],
    ]);
  });

  test('log(), sum(), isArray(), toJSON()', async () => {
    const lines: string[] = [];
    const m = await mapper(
      {
        views: [
          view(`function(doc){
            log('plain'); log({a: [1]}); log(3);
            emit('sum', sum([1, 2, 3.5]));
            emit('isArray', [isArray([]), isArray({length: 0}), isArray('x'), isArray(arguments)]);
            emit('toJSON', toJSON({a: [1, null]}));
          }`),
        ],
      },
      { log: (line, kind) => lines.push(`${kind}:${line}`) },
    );
    const { rows } = await m.mapBatch(docs({ _id: 'x' }));
    assert.deepEqual(rows[0]![0], [
      ['sum', 6.5],
      ['isArray', [true, false, false, false]],
      ['toJSON', '{"a":[1,null]}'],
    ]);
    assert.deepEqual(lines, ['user:plain', 'user:{"a":[1]}', 'user:3']);
  });

  test('no getRow / send / start / provides; the doc is deep-frozen', async () => {
    const m = await mapper({
      views: [
        view(`function(doc){
          emit('globals', [typeof getRow, typeof send, typeof start, typeof provides, typeof registerType]);
          doc.added = 1; doc.nested.x = 2;
          emit('frozen', [doc.added === undefined, doc.nested.x, Object.isFrozen(doc.nested)]);
        }`),
        view(`function(doc){ 'use strict'; doc.x = 1; emit('not reached') }`, 'strict'),
      ],
    });
    const { rows, errors } = await m.mapBatch(docs({ _id: 'x', nested: { x: 1 } }));
    assert.deepEqual(rows[0]![0], [
      ['globals', ['undefined', 'undefined', 'undefined', 'undefined', 'undefined']],
      ['frozen', [true, 1, true]],
    ]);
    assert.deepEqual(rows[0]![1], []);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message, /TypeError/);
  });

  test('function sources with comments, whitespace and a trailing semicolon compile', async () => {
    const m = await mapper({
      views: [
        view('  // by id\n function (doc) { emit(doc._id, null) } ;\n'),
        view('(function(doc){ emit(1, 2) })', 'paren'),
      ],
    });
    const { rows } = await m.mapBatch(docs({ _id: 'x' }));
    assert.deepEqual(rows[0], [[['x', null]], [[1, 2]]]);
  });

  test('a source that is not a function is a compilation_error naming the view', async () => {
    await assert.rejects(
      createMapper({ views: [view('function(doc){ emit(1) }', 'ok'), view('function(doc) { emit(', 'broken')] }),
      (err: unknown) =>
        err instanceof CouchError &&
        err.error === 'compilation_error' &&
        err.status === 400 &&
        err.reason.startsWith("Compilation of the map function in the 'broken' view failed: SyntaxError"),
    );
    await assert.rejects(
      createMapper({ views: [view('42', 'num')] }),
      (err: unknown) => err instanceof CouchError && /Expression does not eval to a function\. \(42\)/.test(err.reason),
    );
  });
});

describe('a throwing map function', () => {
  test('drops all rows of that doc for that view (also rows emitted before), keeps other views and docs, logs', async () => {
    const lines: string[] = [];
    const m = await mapper(
      {
        views: [
          view('function(doc){ emit("before", 1); if (doc.bad) throw new Error("boom"); emit("after", 2) }', 'thrower'),
          view('function(doc){ emit(doc._id, null) }', 'other'),
        ],
      },
      { log: (line, kind) => lines.push(`${kind}:${line}`) },
    );
    const { rows, errors } = await m.mapBatch(docs({ _id: 'a' }, { _id: 'b', bad: true }, { _id: 'c' }));
    assert.deepEqual(rows, [
      [
        [
          ['before', 1],
          ['after', 2],
        ],
        [['a', null]],
      ],
      [[], [['b', null]]],
      [
        [
          ['before', 1],
          ['after', 2],
        ],
        [['c', null]],
      ],
    ]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.doc, 1);
    assert.equal(errors[0]!.view, 0);
    assert.equal(errors[0]!.viewName, 'thrower');
    assert.match(errors[0]!.message, /^function raised exception Error: boom[\s\S]* with doc\._id b$/);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^error:function raised exception Error: boom/);
  });

  test('non-Error throws and unserialisable emits are errors of that doc only', async () => {
    const m = await mapper({
      views: [
        view(`function(doc){
          if (doc.n === 1) throw 'just a string';
          if (doc.n === 2) throw {error: 'x', reason: 'y'};
          if (doc.n === 3) { var a = {}; a.self = a; emit('cycle', a); }
          if (doc.n === 4) emit('big', 10n);
          emit('ok', doc.n);
        }`),
      ],
    });
    const { rows, errors } = await m.mapBatch(
      docs({ _id: 'a', n: 1 }, { _id: 'b', n: 2 }, { _id: 'c', n: 3 }, { _id: 'd', n: 4 }, { _id: 'e', n: 5 }),
    );
    assert.deepEqual(
      rows.map((r) => r[0]),
      [[], [], [], [], [['ok', 5]]],
    );
    assert.deepEqual(
      errors.map((e) => e.doc),
      [0, 1, 2, 3],
    );
    assert.match(errors[0]!.message, /^function raised exception "just a string" with doc\._id a$/);
    assert.match(errors[1]!.message, /^function raised exception \{"error":"x","reason":"y"\} with doc\._id b$/);
  });

  test("throw 'fatal_error' fails the batch with map_runtime_error; the mapper stays usable", async () => {
    const m = await mapper({ views: [view('function(doc){ if (doc.fatal) throw "fatal_error"; emit(doc._id) }')] });
    await assert.rejects(
      m.mapBatch(docs({ _id: 'a' }, { _id: 'b', fatal: true })),
      (err: unknown) =>
        err instanceof CouchError &&
        err.error === 'map_runtime_error' &&
        err.reason === "function raised 'fatal_error'",
    );
    await assert.rejects(
      (await mapper({ views: [view('function(doc){ throw ["fatal", "my_error", "my reason"] }')] })).mapBatch(
        docs({ _id: 'a' }),
      ),
      (err: unknown) => err instanceof CouchError && err.error === 'my_error' && err.reason === 'my reason',
    );
    assert.deepEqual((await m.mapBatch(docs({ _id: 'a' }))).rows, [[[['a', null]]]]);
  });
});

describe('require() of CommonJS modules in views.lib', () => {
  const lib = {
    math: 'exports.twice = function (x) { return 2 * x }; exports.loads = (this.loads || 0);',
    util: {
      helper:
        'var m = require("../math"); var c = require("./consts"); exports.f = function (x) { return m.twice(x) + c.k }',
      consts: 'module.exports = { k: 100 }',
    },
    counter: 'exports.n = (typeof counterLoads === "undefined" ? (counterLoads = 1) : ++counterLoads)',
    cyclic_a: 'exports.a = 1; exports.b = require("views/lib/cyclic_b").b',
    cyclic_b: 'exports.b = 2; exports.seenA = require("views/lib/cyclic_a").a',
    notcode: { deep: 1 },
    throws: 'throw new Error("module failed")',
  };

  test('paths from the design doc root, ./ and ../ from the requiring module, module.exports', async () => {
    const m = await mapper({
      views: [
        view(
          'function(doc){ emit(require("views/lib/math").twice(doc.n), require("views/lib/util/helper").f(doc.n)) }',
        ),
      ],
      lib,
    });
    assert.deepEqual((await m.mapBatch(docs({ _id: 'a', n: 3 }))).rows, [[[[6, 106]]]]);
  });

  test('modules are evaluated once per mapper (cached), circular requires terminate', async () => {
    const m = await mapper({
      views: [
        view('function(doc){ emit(require("views/lib/counter").n, require("views/lib/counter").n) }'),
        view('function(doc){ emit(require("views/lib/cyclic_a").b, null) }', 'cyclic'),
      ],
      lib,
    });
    const { rows } = await m.mapBatch(docs({ _id: 'a' }, { _id: 'b' }));
    assert.deepEqual(rows, [
      [[[1, 1]], [[2, null]]],
      [[[1, 1]], [[2, null]]],
    ]);
  });

  test('bad paths and failing modules throw CouchDB errors inside the map function (rows dropped)', async () => {
    const m = await mapper({
      views: [
        view('function(doc){ require(doc.path) }'),
        view('function(doc){ try { require(doc.path) } catch (e) { emit(e[0], e[1]) } }', 'caught'),
      ],
      lib,
    });
    const paths = ['views/lib/missing', 'views/lib/notcode', 'views/lib/throws', 'fs', '../x', 'lib/math'];
    const { rows, errors } = await m.mapBatch(paths.map((path, i) => JSON.stringify({ _id: `d${i}`, path })));
    assert.deepEqual(
      rows.map((r) => r[0]),
      paths.map(() => []),
    );
    assert.deepEqual(
      rows.map((r) => r[1]),
      [
        [['error', 'invalid_require_path']],
        [['error', 'invalid_require_path']],
        // CouchDB caches {} for a module before running it and keeps it when the module throws,
        // so the second require (by the next view) gets {} instead of the error.
        [],
        [['error', 'invalid_require_path']],
        [['error', 'invalid_require_path']],
        [['error', 'invalid_require_path']],
      ],
    );
    assert.equal(errors.length, paths.length);
    assert.match(errors[0]!.message, /Object has no property \\?"missing\\?"/);
    assert.match(errors[1]!.message, /Must require a JavaScript string, not: object/);
    assert.match(errors[2]!.message, /Module require\('views\/lib\/throws'\) raised error Error: module failed/);
  });

  test('without a lib, require throws invalid_require_path', async () => {
    const m = await mapper({
      views: [view('function(doc){ try { require("views/lib/x") } catch (e) { emit(e[1]) } }')],
    });
    assert.deepEqual((await m.mapBatch(docs({ _id: 'a' }))).rows, [[[['invalid_require_path', null]]]]);
  });
});

describe('batches', () => {
  test('a batch is split by bytes internally; doc indexes stay global', async () => {
    const m = await mapper(
      { views: [view('function(doc){ if (doc.n % 7 === 3) throw 1; emit(doc.n) }')] },
      { maxCallBytes: 200 },
    );
    const input = Array.from({ length: 50 }, (_, n) => JSON.stringify({ _id: `d${n}`, n }));
    const { rows, errors } = await m.mapBatch(input);
    assert.equal(rows.length, 50);
    rows.forEach((r, n) => {
      assert.deepEqual(r[0], n % 7 === 3 ? [] : [[n, null]]);
    });
    assert.deepEqual(
      errors.map((e) => e.doc),
      [3, 10, 17, 24, 31, 38, 45],
    );
  });

  test('an empty batch', async () => {
    const m = await mapper({ views: [view('function(doc){ emit(1) }')] });
    assert.deepEqual(await m.mapBatch([]), { rows: [], errors: [] });
  });
});

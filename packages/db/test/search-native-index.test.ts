// Search index functions of the views' common shape run without the sandbox (src/views/native-map
// with `index` calls, src/search/search-mapper.ts): which sources take that path, and that their
// rows and errors are the sandbox wrapper's for every document (an index built so over HTTP:
// http-search-native-index.test.ts).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createMapper, type Mapper } from '../src/sandbox/index.js';
import { indexFunctionAsMap } from '../src/search/search-mapper.js';
import { compileShape } from '../src/views/native-map/map-shape.js';
import { nativeJsMapper } from '../src/views/native-map/native-js-mapper.js';
import { generatedDocs } from './support/generated-docs.js';

const open: Mapper[] = [];
after(() => {
  for (const m of open) m.dispose();
});

const SHAPES = [
  'function (doc) { if (doc.body) index("default", doc.body); }',
  'function(doc){ index("default", doc.title, {store: true}); index("n", doc.n, {facet: true}) }',
  'function (doc) { if (typeof doc.n === "number") index("n", doc.n, {store: true, facet: true}); }',
  'function (d) { if (d.a && d.b.c) { index("c", d.b.c, {index: "not_analyzed", boost: 2}); } else index("a", d.a) }',
  'function (doc) { index(doc.type, doc.title, doc.options); index("t", doc.title, null) }',
  'function (doc) { if (doc.flag !== undefined) index("flag", doc.flag); index("x", doc.title, false) }',
  'function (doc) { index("_bad", doc.title); }',
  'function (doc) { index("tags", doc.tags, {store: doc.n}) }',
];

const NOT_SHAPES = [
  'function (doc) { index("a") }',
  'function (doc) { index("a", doc.a, {}, 1) }',
  'function (doc) { emit(doc.a, 1) }',
  'function (doc) { index("a", doc.a); emit(doc.a) }',
  'function index(doc) { index("a", doc.a) }',
  'function (index) { index("a", index.a) }',
  'function (doc) { var v = doc.a; index("a", v) }',
  'function (doc) { index("a", doc.a.toString()) }',
  'function (doc) { index("a", doc.a)\n(doc.b) }',
];

describe('index functions of the shape run without the sandbox', () => {
  test('common shapes compile', () => {
    for (const source of SHAPES) assert.notEqual(compileShape(source, 'index'), undefined, source);
  });
  test('anything else is left to the sandbox', () => {
    for (const source of NOT_SHAPES) assert.equal(compileShape(source, 'index'), undefined, source);
  });
});

/** The same index functions here and through the sandbox's wrapper. */
async function pair(sources: readonly string[]) {
  const natives: Mapper[] = [];
  const sandboxes: Mapper[] = [];
  for (const [i, source] of sources.entries()) {
    const design = { views: [{ name: `i${i}`, map: indexFunctionAsMap(source) }] };
    const native = nativeJsMapper(design, {}, () => compileShape(source, 'index'));
    assert.ok(native !== undefined, source);
    const sandbox = await createMapper(design);
    open.push(native, sandbox);
    natives.push(native);
    sandboxes.push(sandbox);
  }
  return { natives, sandboxes };
}

const FIXED_DOCS: unknown[] = [
  { _id: 'p', body: 'the fox', title: 'T', n: 2, tags: ['x'], type: 'kind', options: { store: true } },
  { _id: 'c', body: '', title: '', n: 1.5, tags: 'tag', type: '_under', options: 'yes' },
  { _id: 'e' },
  { _id: 'z', n: -0, a: { b: 1 }, b: null, title: 'abc', options: [1], flag: false },
  { _id: 'b', a: 1, b: { c: 'deep' }, n: 1e21, title: true, options: null, flag: 'yes' },
  { _id: 'n', a: 0, b: { c: 0 }, n: null, type: null, title: null, options: 0 },
  { _id: 'x', a: true, b: 'string', n: '2', tags: null, type: 3, options: { boost: 2, x: [null, -0] } },
];

describe('rows and errors are the sandbox wrapper own', () => {
  test('fixed documents through every shape', async () => {
    const { natives, sandboxes } = await pair(SHAPES);
    const texts = [...FIXED_DOCS.map((d) => JSON.stringify(d)), '{"_id":"m","n":-0,"title":"t","options":{"q":-0}}'];
    let errors = 0;
    for (const [i, native] of natives.entries()) {
      const expected = await sandboxes[i]!.mapBatch(texts);
      assert.deepEqual(await native.mapBatch(texts), expected, SHAPES[i]);
      errors += expected.errors.length;
    }
    // Documents the wrapper refuses or a function throws on were there.
    assert.ok(errors > 0);
  });

  test('generated documents', async () => {
    const { natives, sandboxes } = await pair(SHAPES);
    const scalar = fc.oneof(
      fc.constantFrom('fox', '', '_x', 'default', 'a b'),
      fc.constantFrom(0, -0, 1, 1.5, -3, 1e21),
      fc.boolean(),
      fc.constant(null),
    );
    const doc = generatedDocs({
      scalar,
      nested: ['c', 'store', 'facet'],
      members: ['body', 'title', 'n', 'a', 'b', 'tags', 'type', 'options', 'flag'],
      base: { _id: 'd' },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 12 }), async (texts) => {
        for (const [i, native] of natives.entries()) {
          assert.deepEqual(await native.mapBatch(texts), await sandboxes[i]!.mapBatch(texts), SHAPES[i]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

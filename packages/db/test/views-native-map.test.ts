// Map functions of a common shape run without the sandbox (src/views/native-map): which sources
// take that path, and that their rows, errors and log lines are the sandbox's for every document.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createMapper, type Mapper } from '../src/sandbox/index.js';
import { compileMapShape } from '../src/views/native-map/map-shape.js';
import { nativeJsMapper } from '../src/views/native-map/native-js-mapper.js';
import { readDocMembers } from '../src/views/native-map/doc-members.js';
import { generatedDocs } from './support/generated-docs.js';
import { renderStored } from '../src/views/updater/read-changes.js';
import type { StoredDoc } from '../src/views/native-map/native-js-mapper.js';

const open: Mapper[] = [];
after(() => {
  for (const m of open) m.dispose();
});

const SHAPES = [
  "function (doc) { if (doc.type === 'post') emit([doc.author, doc.date], doc.title); }",
  'function (doc) { emit(doc.author, 1); }',
  'function(doc){ emit(doc._id, doc) }',
  'function(doc) {\n  emit(doc.n)\n  emit([doc.n, 1], null)\n}',
  'function (d) { if (d.a && d.b.c) { emit(d.b.c, [d.a, d.missing]); } else emit(null, {x: d.a, y: d.missing, "z": -1}) }',
  "function (doc) { if (typeof doc.n === 'number' && doc.n >= 1.5 || !doc.type) emit(doc['n'], doc.tags.length); }",
  'function named(doc) { if (doc.n != null) emit([doc.n < 2, doc.n <= 2, doc.n > 2, doc.n >= 2], doc.n == 2); };',
  "function (doc) { // a comment\n /* another */ if (doc.type !== 'post') { emit(doc.tags, {a: doc.tags, b: true, c: false, d: undefined}); } }",
  'function (doc) { if (doc.title) emit(doc.title.length, doc._conflicts); }',
  'function (doc) { emit([], {}); emit([1e3, .5, 0.25, -7], "s"); ; }',
  'function (doc) { if (doc.a) emit(1)\n else if (doc.b) emit(2)\n else emit(3) }',
];

const NOT_SHAPES = [
  'function (doc) { emit(doc.a) emit(doc.b) }', // a syntax error in JavaScript too
  'function (doc) { if (doc.a) emit(1) else emit(2) }', // likewise
  'function (doc) { emit(doc.a.toString(), 1) }',
  'function (doc) { emit(doc.constructor, 1) }',
  "function (doc) { emit(doc['__proto__'], 1) }",
  'function (doc) { emit(doc.hasOwnProperty, 1) }',
  'function (doc) { doc.a = 1; emit(doc.a) }',
  'function (doc) { var k = doc.a; emit(k) }',
  'function (doc) { for (var i = 0; i < 2; i++) emit(i) }',
  'function (doc) { log(doc.a); emit(doc.a) }',
  'function (doc) { emit(doc.a + 1) }',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a map function's source with a template literal
  'function (doc) { emit(`${doc.a}`) }',
  "function (doc) { emit('a\\nb') }",
  'function (doc) { emit(0x10) }',
  'function (doc) { emit(010) }',
  'function (doc) { emit(1_000) }',
  'function (doc) { emit(other) }',
  'function (doc) { emit({__proto__: doc.a}) }',
  'function (doc) { emit([doc.a,]) }',
  'function (doc) { emit(doc.a, 1, 2) }',
  'function emit(doc) { emit(doc.a) }',
  '(doc) => { emit(doc.a) }',
  'function (doc) { emit(doc.a)\n(doc.b) }',
  "function (doc) { 'use strict'; emit(doc.a) }",
  'function (doc) { emit(doc.a) } function (doc) {}',
  'function (doc) { emit(-doc.a) }',
  'function (doc) { emit(doc.a ? 1 : 2) }',
];

describe('the shapes run without the sandbox', () => {
  test('common shapes compile', () => {
    for (const source of SHAPES) assert.notEqual(compileMapShape(source), undefined, source);
  });
  test('anything else is left to the sandbox', () => {
    for (const source of NOT_SHAPES) assert.equal(compileMapShape(source), undefined, source);
  });
  test('a group with one function of another shape is mapped in the sandbox', () => {
    const views = [
      { name: 'a', map: SHAPES[0]! },
      { name: 'b', map: NOT_SHAPES[2]! },
    ];
    assert.equal(nativeJsMapper({ views }, {}), undefined);
    assert.notEqual(nativeJsMapper({ views: views.slice(0, 1) }, {}), undefined);
  });
});

/** The same map functions here and in the sandbox, with what each logged. */
async function pair(sources: readonly string[]) {
  const design = { views: sources.map((map, i) => ({ name: `v${i}`, map })) };
  const logs = { native: [] as string[], sandbox: [] as string[] };
  const native = nativeJsMapper(design, { log: (m, kind) => logs.native.push(`${kind}: ${m}`) });
  assert.ok(native !== undefined);
  const sandbox = await createMapper(design, { log: (m, kind) => logs.sandbox.push(`${kind}: ${m}`) });
  open.push(native, sandbox);
  return { native, sandbox, logs };
}

const FIXED_DOCS: unknown[] = [
  { _id: 'p', _rev: '1-a', type: 'post', author: 'user1', date: '2026-01-01', title: 'T', n: 2, tags: ['x'] },
  { _id: 'c', _rev: '1-a', type: 'comment', author: 'user2', n: 1.5, tags: [], title: '' },
  { _id: 'e', _rev: '1-a' },
  { _id: 'z', _rev: '1-a', n: -0, a: { b: 1 }, b: null, title: 'abc', tags: [-0, { q: -0 }] },
  { _id: 'b', _rev: '1-a', a: 1, b: { c: 'deep' }, n: 1e21, tags: 'str' },
  { _id: 'n', _rev: '1-a', a: 0, b: { c: 0 }, n: null, type: null, title: null, _conflicts: ['2-b'] },
  { _id: 'x', _rev: '1-a', a: true, b: 'string', n: '2', tags: null },
];

describe('rows, errors and log lines are the sandbox own', () => {
  test('fixed documents through every shape', async () => {
    const { native, sandbox, logs } = await pair(SHAPES);
    // JSON.stringify writes -0 as 0: a document's own `-0` is written here as text.
    const texts = [
      ...FIXED_DOCS.map((d) => JSON.stringify(d)),
      '{"_id":"m","_rev":"1-a","n":-0,"a":-0.0,"b":{"c":-0},"tags":[-0,{"q":-0E0}],"title":"t"}',
    ];
    const expected = await sandbox.mapBatch(texts);
    const actual = await native.mapBatch(texts);
    assert.deepEqual(actual, expected);
    // Documents a function throws on were there: the sandbox's answer, logged once by each.
    assert.ok(expected.errors.length > 0);
    assert.deepEqual(logs.native, logs.sandbox);
  });

  test('generated documents', async () => {
    const { native, sandbox, logs } = await pair(SHAPES);
    const scalar = fc.oneof(
      fc.constantFrom('post', 'comment', '', '2', 'user1', 'a'),
      fc.constantFrom(0, -0, 1, 1.5, 2, -3, 1e21, 2.5e-8),
      fc.boolean(),
      fc.constant(null),
    );
    const doc = generatedDocs({
      scalar,
      nested: ['c', 'q', 'length'],
      members: ['type', 'author', 'date', 'title', 'n', 'a', 'b', 'tags', 'length'],
      base: { _id: 'd', _rev: '1-a' },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 20 }), async (texts) => {
        logs.native.length = 0;
        logs.sandbox.length = 0;
        assert.deepEqual(await native.mapBatch(texts), await sandbox.mapBatch(texts));
        assert.deepEqual(logs.native, logs.sandbox);
      }),
      { numRuns: 150 },
    );
  });
});

describe('documents mapped as stored (no text rendered for functions reading body members only)', () => {
  const BODY_ONLY = [SHAPES[0]!, SHAPES[1]!, SHAPES[3]!, SHAPES[4]!, SHAPES[5]!];
  const storedOf = (text: string, n: number): StoredDoc => {
    const { _id, _rev, ...body } = JSON.parse(text) as Record<string, unknown>;
    // Every third with attachment stubs first (as storage keeps them), every fourth with conflicts.
    const json = JSON.stringify(body);
    const stored =
      n % 3 === 0
        ? `{"_attachments":{"a.txt":{"content_type":"text/plain","revpos":1,"digest":"md5-x","length":1,"stub":true}}${json === '{}' ? '}' : `,${json.slice(1)}`}`
        : json;
    const extras: [string, unknown][] | undefined = n % 4 === 0 ? [['_conflicts', ['2-b']]] : undefined;
    return { id: String(_id ?? `d${n}`), rev: String(_rev ?? '1-a'), body: stored, extras };
  };

  for (const [name, sources] of [
    ['body members only', BODY_ONLY],
    ['meta members read too (rendered)', SHAPES],
  ] as const) {
    test(name, async () => {
      const { native, sandbox, logs } = await pair(sources);
      const docs = [
        ...FIXED_DOCS.map((d) => JSON.stringify(d)),
        ...TRICKY_TEXTS.slice(2).map((text) => text.replace('{', '{"_rev":"1-a",')),
      ].map(storedOf);
      // A body written with an escaped name (the reader gives up on it: the rendered text is parsed).
      docs.push({
        id: 'esc',
        rev: '1-a',
        body: String.raw`{"\u0074ype":"post","author":"e","date":"d"}`,
        extras: undefined,
      });
      const expected = await sandbox.mapBatch(docs.map(renderStored));
      assert.deepEqual(await native.mapStored(docs, renderStored), expected);
      assert.ok(expected.errors.length > 0);
      assert.deepEqual(logs.native, logs.sandbox);
    });
  }
});

/** What `readDocMembers` must give: the named members `JSON.parse` finds. */
function projection(text: string, names: readonly string[]): Record<string, unknown> {
  const whole = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(whole, name)) out[name] = whole[name];
  return out;
}

/** Texts a member-by-member reader could get wrong: escapes, brackets and quotes in strings, space, repeats. */
const TRICKY_TEXTS = [
  '{}',
  ' { } ',
  String.raw`{"_id":"a","type":"post","author":"u\\","date":"d\\\"x","title":"}]{[\",","n":-0}`,
  String.raw`{"_id":"b","tags":["]","[\"",{"a":"}"}],"type":"post","author":{"x":[1,{"y":"\\"}]},"n":1e21}`,
  '{ "_id" : "c" ,\n\t"type" : "post" , "author" : [ 1 , 2 ] , "n" : 2.50 , "title" : null }',
  '{"_id":"d","type":"comment","type":"post","author":"first","author":"second","n":true}',
  String.raw`{"_id":"e","typ\u0065":"x","type":"post","n":false,"title":"\ud83d\ude00 é"}`,
  String.raw`{"_id":"f","\u0074ype":"post","author":"esc"}`,
  '{"_id":"g","type":"post","author":"x","date":"2026","title":"t","n":[[],{},[{}]],"a":{"b":{"c":"deep"}},"b":{"c":0}}',
];

describe('documents read member by member', () => {
  const NAMES = ['type', 'author', 'date', 'title', 'n', 'a', 'b', 'tags', 'length', '_id'];

  test('the named members, as JSON.parse gives them', () => {
    for (const text of TRICKY_TEXTS) {
      const read = readDocMembers(text, NAMES);
      // Only a name written with an escape makes the reader give up.
      if (read === undefined) assert.match(text, /"[^"]*\\u00[67]/, text);
      else assert.deepEqual(read, projection(text, NAMES), text);
    }
  });

  test('generated documents, compact and indented', () => {
    const doc = fc.dictionary(fc.oneof(fc.constantFrom(...NAMES), fc.string()), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 8,
    });
    fc.assert(
      fc.property(doc, fc.constantFrom(undefined, 1, '\t'), fc.subarray(NAMES), (body, space, names) => {
        const text = JSON.stringify(body, null, space);
        const read = readDocMembers(text, names);
        if (read !== undefined) assert.deepEqual(read, projection(text, names));
        else
          assert.ok(
            Object.keys(body).some((name) => JSON.stringify(name).includes('\\')),
            text,
          );
      }),
      { numRuns: 500 },
    );
  });

  test('mapped as in the sandbox', async () => {
    const { native, sandbox, logs } = await pair(SHAPES);
    const texts = TRICKY_TEXTS.map((text) => text.replace('{', '{"_rev":"1-a",'))
      .slice(2)
      .concat(['{"_rev":"1-a","_id":"h"}']);
    assert.deepEqual(await native.mapBatch(texts), await sandbox.mapBatch(texts));
    assert.deepEqual(logs.native, logs.sandbox);
  });
});

describe('an index of the shape, built and updated', () => {
  test('answers as the same functions run in the sandbox, documents they throw on included', async () => {
    const { openDivan } = await import('../src/index.js');
    const { makeTempDir } = await import('./support/tmp-dir.js');
    const tmp = makeTempDir('divan-native-map-');
    const divan = openDivan(tmp.dir);
    try {
      const db = await divan.createDb('shapes');
      // The same functions twice: as given (run here), and with a statement outside the shape
      // (`var`), which sends them to the sandbox.
      const maps = {
        nested: "function (doc) { if (doc.kind !== 'skip') emit([doc.meta.group, doc.n], doc.title); }",
        flat: 'function (doc) { emit(doc.n, {t: doc.title, m: doc.meta}); }',
      };
      const views: Record<string, { map: string; reduce?: string }> = {};
      for (const [name, map] of Object.entries(maps)) {
        assert.notEqual(compileMapShape(map), undefined);
        const boxed = map.replace('{', '{ var unused = 1;');
        assert.equal(compileMapShape(boxed), undefined);
        views[name] = { map, reduce: '_count' };
        views[`${name}_sandbox`] = { map: boxed, reduce: '_count' };
      }
      await db.put({ _id: '_design/app', views });
      const docs = (round: number) =>
        Array.from({ length: 60 }, (_, i) => ({
          _id: `d${i}`,
          n: (i * 7) % 13,
          title: `t${i}-${round}`,
          ...(i % 5 === 0 ? {} : { meta: i % 7 === 0 ? null : { group: `g${i % 3}` } }),
          ...(i % 11 === 0 ? { kind: 'skip' } : {}),
        }));
      const written = await db.bulkDocs(docs(0));
      const compare = async () => {
        for (const name of Object.keys(maps)) {
          const here = await db.view('app', name, { reduce: false });
          const there = await db.view('app', `${name}_sandbox`, { reduce: false });
          assert.deepEqual(here.rows, there.rows, name);
          assert.equal(here.total_rows, there.total_rows);
          assert.deepEqual(await db.view('app', name, {}), await db.view('app', `${name}_sandbox`, {}));
        }
      };
      await compare();
      // Documents throwing before were there (no meta: a member of undefined), and skipped.
      const nested = await db.view('app', 'nested', { reduce: false });
      assert.ok(nested.total_rows !== undefined && nested.total_rows > 0 && nested.total_rows < 60);
      // An incremental update: every document changed, some now throwing, some not.
      const next = docs(1).map((doc, i) => ({
        ...doc,
        _rev: written[i]!.rev,
        ...(i % 4 === 0 ? { meta: { group: 'late' } } : {}),
      }));
      await db.bulkDocs(next);
      await compare();
    } finally {
      await divan.close();
      tmp.cleanup();
    }
  });
});

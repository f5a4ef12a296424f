import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJson } from '../src/json/index.js';
import { parseFieldPath } from '../src/mango/field-path.js';
import { jsonIndexMapper } from '../src/mango/json-index.js';
import { matches } from '../src/mango/match.js';
import { parseSelector } from '../src/mango/selector.js';
import type { ViewGroup } from '../src/views/design.js';
import type { EmittedRows } from '../src/views/native-map/map-shape.js';
import type { StoredDoc } from '../src/views/native-map/native-js-mapper.js';
import { renderStored } from '../src/views/updater/read-changes.js';
import { generatedDocs } from './support/generated-docs.js';

/**
 * A JSON index's one-at-a-time mapping (`mapInto`, the view engine's build from empty) gives each
 * document the rows the batch mapping (`mapStored`) gives it and the rows a plain reading of the
 * rendered document gives (every field resolves, the partial filter holds), though its per-view
 * arrays, rows and keys are reused from one document to the next.
 */

const compileFilter = (json: Parameters<typeof parseSelector>[0]) => {
  const selector = parseSelector(json);
  return (doc: Parameters<typeof matches>[1]) => matches(selector, doc);
};

interface Def {
  fields: string[];
  partial?: Record<string, unknown>;
}

function groupOf(defs: readonly Def[]): ViewGroup {
  return {
    ddocId: '_design/idx',
    language: 'query',
    views: defs.map((def, i) => ({
      name: `v${i}`,
      map: JSON.stringify({
        fields: Object.fromEntries(def.fields.map((f) => [f, 'asc'])),
        partial_filter_selector: def.partial ?? {},
      }),
      reduce: '_count',
    })) as unknown as ViewGroup['views'],
    options: {},
    includeDesign: false,
    localSeq: false,
    lib: {},
    partitioned: false,
    signature: 'test',
  };
}

/** A field's value in a plain document: an object's own member, or an array's element by its index. */
function resolvePlain(doc: unknown, path: readonly string[]): { value: unknown } | undefined {
  let at = doc;
  for (const segment of path) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= at.length) return undefined;
      at = at[Number(segment)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, segment)) {
      at = (at as Record<string, unknown>)[segment];
    } else return undefined;
  }
  return { value: at };
}

/** The rows a plain reading of the rendered document gives (the reference). */
function referenceRows(defs: readonly Def[], doc: StoredDoc): string {
  const text = renderStored(doc);
  const plain = JSON.parse(text) as unknown;
  const perView = defs.map((def) => {
    const key: unknown[] = [];
    for (const field of def.fields) {
      const found = resolvePlain(plain, parseFieldPath(field));
      if (found === undefined) return [];
      key.push(found.value);
    }
    if (def.partial !== undefined && !compileFilter(parseJson(JSON.stringify(def.partial)) as never)(parseJson(text))) {
      return [];
    }
    return [[key, null]];
  });
  return JSON.stringify(perView);
}

function assertSameRows(defs: readonly Def[], docs: readonly StoredDoc[]): Promise<void> {
  const mapper = jsonIndexMapper(groupOf(defs), compileFilter);
  const perView: EmittedRows[] = defs.map(() => []);
  const oneByOne = docs.map((doc) => {
    assert.equal(mapper.mapInto?.(doc, renderStored, perView), true);
    // Read before the next call refills them, as the build does.
    return JSON.stringify(perView);
  });
  return mapper.mapStored(docs, renderStored).then((batch) => {
    docs.forEach((doc, d) => {
      assert.equal(oneByOne[d], JSON.stringify(batch.rows[d]), `one at a time vs batch: ${doc.body}`);
    });
  });
}

const stored = (id: string, body: unknown, extras?: [string, unknown][]): StoredDoc => ({
  id,
  rev: '1-0123456789abcdef0123456789abcdef',
  body: typeof body === 'string' ? body : JSON.stringify(body),
  extras,
});

/** Documents of every shape the indexes below read: missing, null, nested, arrays, escapes, numbers. */
const SHAPES: StoredDoc[] = [
  stored('a', { n: 3, k: 'x', sub: { n: 7, deep: { m: [1, 2] } }, tags: ['p', 'q'] }),
  stored('b', { k: 'y', n: 1 }),
  stored('c', { k: 'x' }),
  stored('d', { n: null, k: null, sub: null, tags: [] }),
  stored('e', { n: [1, { k: 2 }], k: { nested: true }, sub: { n: null }, tags: ['only'] }),
  stored('f', {}),
  stored('g', '{"n":1.50,"k":"\\u0078","big":12345678901234567890,"exp":1e3}'),
  stored('h', '{"n":-0,"k":"quote\\"d","sub":{"n":"s"},"tags":[["x"],{"a":1}]}'),
  stored('i', '{"n":2,"n":5,"k":"x"}'),
  stored('j', { _attachments: { n: { stub: true, length: 1 } }, n: 4, k: 'x' }),
  stored('k', { 'n.x': 1, n: { x: 2 }, k: 'x' }),
  stored('l', { n: 9, k: 'x' }, [['_conflicts', ['2-aaaa']]]),
  stored('m', { k: 'z', sub: { n: 1, deep: { m: 'str' } }, tags: { 1: 'not an array' } }),
  stored('n', { n: true, k: false, tags: ['a', 'b', 'c'] }),
];

const GROUPS: Def[][] = [
  // Top-level members only, no filter (the members' values read straight from the text).
  [{ fields: ['n'] }, { fields: ['k', 'n'] }],
  // Nested paths, an array element, a partial filter: documents parsed for their members.
  [
    { fields: ['sub.n'] },
    { fields: ['tags.1', 'k'] },
    { fields: ['n'], partial: { k: { $ne: 'y' } } },
    { fields: ['sub.deep.m', 'n'] },
    { fields: ['n\\.x'] },
  ],
  // A field the rendered document has, the stored body not: `_id`, meta members.
  [{ fields: ['k', '_id'] }, { fields: ['_conflicts'] }, { fields: ['n'], partial: { _id: { $gt: 'c' } } }],
];

describe('Mango JSON index mapping one document at a time', () => {
  it('gives the rows the batch mapping and a plain reading give, on documents of every shape', async () => {
    for (const defs of GROUPS) {
      await assertSameRows(defs, SHAPES);
      const mapper = jsonIndexMapper(groupOf(defs), compileFilter);
      const perView: EmittedRows[] = defs.map(() => []);
      for (const doc of SHAPES) {
        mapper.mapInto?.(doc, renderStored, perView);
        assert.equal(
          JSON.stringify(perView),
          referenceRows(defs, doc),
          `reference: ${doc.body} ${JSON.stringify(defs)}`,
        );
      }
    }
  });

  it('gives the rows the batch mapping gives, on generated documents', async () => {
    const bodies = generatedDocs({
      scalar: fc.oneof(
        fc.constantFrom('n', 'k', '"n":', '{', 'x\\"k\\":1', 1.5, -0, null, true),
        fc.string(),
        fc.integer(),
      ),
      nested: ['n', 'k', 'deep', 'm'],
      members: ['n', 'k', 'sub', 'tags', '_conflicts_not'],
      base: {},
    });
    await fc.assert(
      fc.asyncProperty(fc.array(bodies, { minLength: 1, maxLength: 12 }), async (texts) => {
        const docs = texts.map((body, i) => stored(`doc${i}`, body));
        for (const defs of GROUPS) await assertSameRows(defs, docs);
      }),
      { numRuns: 150 },
    );
  });
});

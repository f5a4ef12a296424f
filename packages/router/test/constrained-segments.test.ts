// Constrained params as dynamic segments of the tree (build.ts, walk.ts, codegen.ts): a route set
// shaped like a CouchDB API, whose every param is constrained, answers in declaration order on
// every matcher tier, and its trees hold every route (none is left to be scanned by its regexp).
// Which constraints the tree can check in place is segment-constraint.ts's answer, tested below.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';
import { segmentFit } from '../src/matcher/segment-constraint.js';
import { inlineFlags } from '../src/pattern/case-fold.js';

const TIERS: MatcherTier[] = ['auto', 'static-map', 'walk', 'compiled-walk', 'recognizer'];

const CONSTRAINTS = { db: /(?!_node(?![^/]))[^/]+/, docid: /[^/]+/, fn: /_[^/]*/, node: /[^/]+/ };

function couchLike() {
  return draw((r) =>
    r.scope({ format: false, constraints: CONSTRAINTS }, (r) => {
      r.get('_node/:node/_stats', { to: 'node#stats' });
      r.put(':db', { to: 'databases#create' });
      r.get(':db/_all_docs', { to: 'all_docs#index' });
      r.match(':db/_all_docs', { to: 'errors#methodNotAllowed', via: 'all' });
      r.post(':db/_find/*rest', { to: 'mango#find' });
      r.put(':db/_design/:docid', { to: 'documents#update', defaults: { prefix: '_design/' } });
      r.match(':db/_design/:docid/:fn', { to: 'errors#designEndpoint', via: 'all' });
      r.put(':db/_design/:docid/*attachment', { to: 'attachments#update' });
      r.put(':db/:docid', { to: 'documents#update' });
      r.put(':db/:docid/*attachment', { to: 'attachments#update' });
      // Declared after `:db/:docid`, which takes its paths first (Rails' order, not the most specific).
      r.put(':db/_later', { to: 'later#update' });
      r.get(':db/:docid', { to: 'documents#show' });
    }),
  );
}

/** [method, path, expected `handler#action params`, or null]. */
const CASES: Array<[string, string, string | null]> = [
  ['PUT', '/db/doc', 'documents#update {"db":"db","docid":"doc"}'],
  ['PUT', '/db', 'databases#create {"db":"db"}'],
  ['GET', '/db/_all_docs', 'all_docs#index {"db":"db"}'],
  ['PUT', '/db/_all_docs', 'errors#methodNotAllowed {"db":"db"}'],
  ['PUT', '/db/a.b', 'documents#update {"db":"db","docid":"a.b"}'],
  ['PUT', '/my.db/a.b.c', 'documents#update {"db":"my.db","docid":"a.b.c"}'],
  ['PUT', '/db/doc%2Fx', 'documents#update {"db":"db","docid":"doc/x"}'],
  ['PUT', '/db/doc?rev=1-a', 'documents#update {"db":"db","docid":"doc"}'],
  ['PUT', '/db/_design/x', 'documents#update {"prefix":"_design/","db":"db","docid":"x"}'],
  ['PUT', '/db/_design/x/_view', 'errors#designEndpoint {"db":"db","docid":"x","fn":"_view"}'],
  ['PUT', '/db/_design/x/file.txt', 'attachments#update {"db":"db","docid":"x","attachment":"file.txt"}'],
  ['PUT', '/db/doc/a/b.png', 'attachments#update {"db":"db","docid":"doc","attachment":"a/b.png"}'],
  ['PUT', '/db/_later', 'documents#update {"db":"db","docid":"_later"}'],
  ['POST', '/db/_find/x/y', 'mango#find {"db":"db","rest":"x/y"}'],
  ['GET', '/_node/n1/_stats', 'node#stats {"node":"n1"}'],
  // `_node` is no database name: nothing else takes these paths.
  ['PUT', '/_node/doc', null],
  ['PUT', '/_node', null],
  ['GET', '/_node/n1', null],
  ['PUT', '/_nodes/doc', 'documents#update {"db":"_nodes","docid":"doc"}'],
  ['PUT', '/db/doc/', 'documents#update {"db":"db","docid":"doc"}'],
  ['PUT', '//db//doc', 'documents#update {"db":"db","docid":"doc"}'],
  ['GET', '/db/doc', 'documents#show {"db":"db","docid":"doc"}'],
  ['DELETE', '/db/doc', null],
];

function answer(routes: ReturnType<typeof draw>, method: string, path: string): string | null {
  const m = routes.recognize(method, path);
  if (m === null) return null;
  return `${m.handler}#${m.action} ${JSON.stringify(m.params)}`;
}

describe('constrained params in the tree, a CouchDB-shaped route set', () => {
  for (const tier of TIERS) {
    test(`${tier}: declaration order, constraints, globs and odd paths`, () => {
      const routes = couchLike().useMatcherTier(tier);
      // Three rounds: `auto` compiles its trees after a few lookups.
      for (let round = 0; round < 3; round++)
        for (let k = 0; k < 20; k++)
          for (const [method, path, want] of CASES)
            assert.equal(answer(routes, method, path), want, `[${tier}, round ${round}] ${method} ${path}`);
    });
  }

  test('every route is in the tree, none scanned by its regexp, and the PUT tree compiles to a recognizer', () => {
    const routes = couchLike();
    for (let k = 0; k < 100; k++) routes.recognize('PUT', '/db/doc');
    const matcher = (
      routes as unknown as { matcher: { trees: Map<string, { custom: unknown[]; recognizer: unknown }> } }
    ).matcher;
    const put = matcher.trees.get('PUT')!;
    assert.equal(put.custom.length, 0);
    assert.notEqual(put.recognizer, null);
  });
});

describe('segmentFit: which constraints the walk checks in place', () => {
  const cases: Array<[RegExp, { fits: boolean; dot: boolean }]> = [
    [/[^/]+/, { fits: true, dot: true }],
    [/(?!_node(?![^/]))[^/]+/, { fits: true, dot: true }],
    [/_[^/]*/, { fits: true, dot: true }],
    [/\d+/, { fits: true, dot: false }],
    [/[a-z]+/i, { fits: true, dot: false }],
    [/[^/.]+/, { fits: true, dot: false }],
    [/x|new|db/, { fits: true, dot: false }],
    [/\w+\.\w+/, { fits: true, dot: true }],
    [/[\x2e]+/, { fits: true, dot: true }],
    [/[-.0-9]+/, { fits: true, dot: true }],
    [/(?<=\/)[^/.]+/, { fits: true, dot: false }],
    [/[^/]+(?=\/.+)/, { fits: true, dot: true }],
    [/a{2,}/, { fits: true, dot: false }],
    // Not in place: may take a `/`, may match nothing, or not read (backreference, literal `{`).
    [/.+/, { fits: false, dot: true }],
    [/[^a]+/, { fits: false, dot: true }],
    [/[+-0]+/, { fits: false, dot: true }],
    [/\W+/, { fits: false, dot: true }],
    [/a\/b/, { fits: false, dot: true }],
    [/[a-z]*/, { fits: false, dot: true }],
    [/a|/, { fits: false, dot: true }],
    [/(a)\1/, { fits: false, dot: true }],
    [/a{/, { fits: false, dot: true }],
  ];
  for (const [constraint, want] of cases)
    test(String(constraint), () => assert.deepEqual(segmentFit(inlineFlags(constraint)), want));
});

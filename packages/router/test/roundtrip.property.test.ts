// Property: for random resource trees, every named route (with a verb) round-trips:
// routes.path(name, ...values) recognized with the route's first verb gives back the same handler,
// action and (decoded) params.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { draw } from '../src/index.js';
import type { Mapper, RouteInfo } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';

const PLURALS = [
  'posts',
  'comments',
  'photos',
  'tags',
  'users',
  'articles',
  'books',
  'authors',
  'orders',
  'items',
  'notes',
  'pages',
  'events',
  'tasks',
  'teams',
  'projects',
  'songs',
  'albums',
  'reviews',
  'invoices',
];
const SINGULARS = ['profile', 'account', 'session', 'dashboard', 'setting', 'avatar', 'cart', 'wallet'];
const MEMBERS = ['preview', 'publish', 'archive', 'approve', 'flag'];
const COLLECTIONS = ['search', 'recent', 'export', 'popular'];
const PLURAL_ACTIONS = ['index', 'create', 'new', 'edit', 'show', 'update', 'destroy'];
const SINGULAR_ACTIONS = ['create', 'new', 'edit', 'show', 'update', 'destroy'];
const WRAPPERS = ['admin', 'api', 'internal'];
const SCOPES: Record<string, string>[] = [
  { path: 'blog' },
  { path: 'v1', as: 'v1' },
  { module: 'shop' },
  { as: 'mine' },
  { path: 'p', module: 'm', as: 'pm' },
];

/** Literal path words that a generated value must not equal (it would hit another route first). */
const RESERVED = new Set([
  ...PLURALS,
  ...SINGULARS,
  ...MEMBERS,
  ...COLLECTIONS,
  ...PLURAL_ACTIONS,
  ...WRAPPERS,
  'blog',
  'v1',
  'p',
  'sekret',
]);

interface ResNode {
  plural: boolean;
  filter: { only: string[] } | { except: string[] } | null;
  shallow: boolean | null;
  shallowPath: boolean;
  members: number;
  collections: number;
  viaBlocks: boolean;
  children: ResNode[];
}

interface TopNode {
  wrap:
    | { kind: 'none' }
    | { kind: 'namespace'; name: string }
    | { kind: 'scope'; opts: Record<string, string> }
    | { kind: 'shallow' };
  nodes: ResNode[];
}

function resArb(depth: number): fc.Arbitrary<ResNode> {
  const children = depth < 3 ? fc.array(resArb(depth + 1), { maxLength: 2 }) : fc.constant([] as ResNode[]);
  return fc.boolean().chain((plural) => {
    const actions = plural ? PLURAL_ACTIONS : SINGULAR_ACTIONS;
    return fc.record({
      plural: fc.constant(plural),
      filter: fc.oneof(
        fc.constant(null),
        fc.subarray(actions).map((only) => ({ only })),
        fc.subarray(actions).map((except) => ({ except })),
      ),
      shallow: fc.constantFrom(null, null, true, false),
      shallowPath: fc.boolean(),
      members: fc.integer({ min: 0, max: 2 }),
      collections: fc.integer({ min: 0, max: 2 }),
      viaBlocks: fc.boolean(),
      children,
    });
  });
}

const topArb: fc.Arbitrary<TopNode> = fc.record({
  wrap: fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.constantFrom(...WRAPPERS).map((name) => ({ kind: 'namespace' as const, name })),
    fc.constantFrom(...SCOPES).map((opts) => ({ kind: 'scope' as const, opts })),
    fc.constant({ kind: 'shallow' as const }),
  ),
  nodes: fc.array(resArb(1), { minLength: 1, maxLength: 2 }),
});

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('');
const SPECIAL = [
  ' ',
  'ü',
  '%',
  '&',
  '+',
  '=',
  '@',
  '~',
  ':',
  ',',
  '!',
  '/',
  '?',
  '#',
  'é',
  '日',
  "'",
  '*',
  '$',
  ';',
  '-',
  '_',
];
const valueArb = fc
  .oneof(
    fc.array(fc.constantFrom(...ALNUM), { minLength: 1, maxLength: 8 }).map((a) => a.join('')),
    fc
      .array(fc.oneof(fc.constantFrom(...ALNUM), fc.constantFrom(...SPECIAL)), { minLength: 1, maxLength: 6 })
      .map((a) => a.join('')),
    fc.constantFrom('a b', 'ü', '100%', 'x/y', 'a+b', 'q?x=1'),
  )
  .filter((v) => !RESERVED.has(v));

/** Declares the random tree; names come from the pools in order so that no name or path is used twice. */
function declare(
  r: Mapper,
  tops: TopNode[],
  plurals: string[],
  singulars: string[],
  nestedPlurals?: Set<string>,
): void {
  const nextPlural = () => plurals.shift();
  const nextSingular = () => singulars.shift();

  const declareRes = (r: Mapper, node: ResNode, depth: number): void => {
    const name = node.plural ? nextPlural() : nextSingular();
    if (name === undefined) return;
    if (node.plural && depth > 1) nestedPlurals?.add(name);
    const opts: Record<string, unknown> = {};
    if (node.filter) Object.assign(opts, node.filter);
    if (node.shallow !== null) opts.shallow = node.shallow;
    if (node.shallow && node.shallowPath) opts.shallowPath = 'sekret';
    const block = (r: Mapper) => {
      const members = MEMBERS.slice(0, node.members);
      const collections = COLLECTIONS.slice(0, node.collections);
      if (node.viaBlocks) {
        if (members.length)
          r.member((r) => {
            for (const m of members) r.get(m);
          });
        if (collections.length)
          r.collection((r) => {
            for (const c of collections) r.post(c);
          });
      } else {
        for (const m of members) r.patch(m, { on: 'member' });
        for (const c of collections) r.get(c, { on: 'collection' });
      }
      for (const child of node.children) declareRes(r, child, depth + 1);
    };
    if (node.plural) r.resources(name, opts, block);
    else r.resource(name, opts, block);
  };

  for (const top of tops) {
    const body = (r: Mapper) => {
      for (const n of top.nodes) declareRes(r, n, 1);
    };
    switch (top.wrap.kind) {
      case 'none':
        body(r);
        break;
      case 'namespace':
        r.namespace(top.wrap.name, body);
        break;
      case 'scope':
        r.scope(top.wrap.opts, body);
        break;
      case 'shallow':
        r.shallow(body);
        break;
    }
  }
}

/** Required segments of a route path: dynamic segments outside optional groups, in order. */
function requiredKeys(path: string): string[] {
  let stripped = path;
  for (let prev = ''; prev !== stripped; ) {
    prev = stripped;
    stripped = stripped.replace(/\([^()]*\)/g, '');
  }
  return [...stripped.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

test('requiredKeys helper', () => {
  assert.deepEqual(requiredKeys('/posts/:post_id/comments/:id(.:format)'), ['post_id', 'id']);
  assert.deepEqual(requiredKeys('/files/*path(.:format)'), ['path']);
  assert.deepEqual(requiredKeys('/profile(.:format)'), []);
});

test('random resource trees: every named route round-trips through path() and recognize(), in every matcher tier', () => {
  fc.assert(
    fc.property(
      fc.array(topArb, { minLength: 1, maxLength: 3 }),
      fc.shuffledSubarray(PLURALS, { minLength: PLURALS.length }),
      fc.shuffledSubarray(SINGULARS, { minLength: SINGULARS.length }),
      fc.array(valueArb, { minLength: 8, maxLength: 8 }),
      fc.constantFrom<MatcherTier>('auto', 'static-map', 'walk', 'compiled-walk', 'recognizer'),
      (tops, plurals, singulars, values, tier) => {
        const routes = draw((r) => declare(r, tops, [...plurals], [...singulars])).useMatcherTier(tier);
        const named = routes.list().filter((x): x is RouteInfo & { name: string } => x.name !== null && x.verb !== '');
        for (const route of named) {
          const keys = requiredKeys(route.path);
          const vals = keys.map((_, i) => values[i % values.length]);
          const path = routes.path(route.name, ...vals);
          const verb = route.verb.split('|')[0]!;
          const m = routes.recognize(verb, path);
          const where = `${route.name} ${verb} ${route.path} -> ${path}`;
          assert.ok(m, `not recognized: ${where}`);
          assert.equal(m.handler, route.handler, `handler: ${where}`);
          assert.equal(m.action, route.action, `action: ${where}`);
          const expected: Record<string, unknown> = { ...route.defaults };
          keys.forEach((k, i) => {
            expected[k] = vals[i];
          });
          assert.deepEqual(m.params, expected, `params: ${where}`);
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('the generator produces non-trivial trees (nesting, shallow routes, member and collection routes)', () => {
  // Guards the property against a generator that silently stops exercising the interesting shapes.
  const samples = fc.sample(
    fc.tuple(
      fc.array(topArb, { minLength: 1, maxLength: 3 }),
      fc.shuffledSubarray(PLURALS, { minLength: PLURALS.length }),
      fc.shuffledSubarray(SINGULARS, { minLength: SINGULARS.length }),
    ),
    { numRuns: 200, seed: 42 },
  );
  let nested = 0;
  let shallow = 0;
  let sekret = 0;
  let member = 0;
  let deep = 0;
  let total = 0;
  for (const [tops, plurals, singulars] of samples) {
    const nestedPlurals = new Set<string>();
    const routes = draw((r) => declare(r, tops, [...plurals], [...singulars], nestedPlurals));
    for (const route of routes.list()) {
      total++;
      const keys = requiredKeys(route.path);
      if (/_id\b/.test(route.path)) nested++;
      if (keys.filter((k) => k.endsWith('_id')).length >= 2) deep++;
      if (MEMBERS.includes(route.action)) member++;
      const resource = route.handler.split('/').pop() ?? '';
      if (route.action === 'show' && nestedPlurals.has(resource) && !/_id\b/.test(route.path)) shallow++;
      if (route.path.includes('/sekret/')) sekret++;
    }
  }
  assert.ok(total > 1000, `total ${total}`);
  assert.ok(nested > 100, `nested ${nested}`);
  assert.ok(deep > 10, `deep ${deep}`);
  assert.ok(member > 50, `member ${member}`);
  assert.ok(shallow > 20, `shallow ${shallow}`);
  assert.ok(sekret > 5, `sekret ${sekret}`);
});

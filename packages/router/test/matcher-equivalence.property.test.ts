// Property: on random route sets large enough for the compiled code to be cut into functions
// calling functions (codegen.ts, `partition`), every tier recognizes exactly what the reference,
// the interpreted walk alone, recognizes: the same route and params, or nothing, for paths made
// from the routes (values filled in, some odd) and for near misses of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { draw, type Mapper } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';

/** Words that share prefixes char by char (`res1`, `res12`), so trees branch deep inside words. */
const WORDS = ['res1', 'res12', 'res2', 'res', 'a', 'ab', 'new', 'edit', 'sub0', 'sub1', 'x'];
const VERBS = ['get', 'post', 'patch', 'delete'] as const;
/** Values a param may take: plain, one a static route also spells, escaped, dotted, odd. */
const VALUES = ['1', '42', 'new', 'edit', 'a%20b', 'x.json', 'res12', 'caf%C3%A9', '-', '~'];

type Segment = { word: string } | { param: number } | { glob: true };

interface RouteDecl {
  verb: (typeof VERBS)[number];
  segments: Segment[];
}

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WORDS).map((word) => ({ word })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 }).map((param) => ({ param })) },
);

const routeArb: fc.Arbitrary<RouteDecl> = fc.record({
  verb: fc.constantFrom(...VERBS),
  segments: fc
    .tuple(fc.array(segmentArb, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean())
    .map(([segments, glob, rare]) => (glob && rare ? [...segments, { glob: true as const }] : segments)),
});

/** The declared path: param names by position (`:p0_1`), so routes disagree on names at one position. */
function pathOf(decl: RouteDecl): string {
  return decl.segments
    .map((s, i) => ('word' in s ? s.word : 'param' in s ? `:p${s.param}_${i}` : `*rest${i}`))
    .join('/');
}

function declare(r: Mapper, decls: RouteDecl[], resources: string[], unformatted: Set<number>): void {
  resources.forEach((name, i) => {
    r.resources(name, (r) => {
      r.resources('sub0', { only: ['index', 'show', 'edit'] });
      r.resources('sub1');
    });
    if (i < decls.length) r.get(`${name}/:id/extra`, { to: `extra#e${i}` });
  });
  decls.forEach((decl, i) => {
    const options = { to: `routes#a${i}`, ...(unformatted.has(i) ? { format: false } : {}) };
    r[decl.verb](pathOf(decl), options);
  });
}

/** Request paths: each route's path with values filled in, and near misses of it. */
function requestsOf(decls: RouteDecl[], resources: string[], pick: number[]): Array<[string, string]> {
  const requests: Array<[string, string]> = [];
  let k = 0;
  const value = () => VALUES[pick[k++ % pick.length]! % VALUES.length]!;
  for (const decl of decls) {
    const path = `/${decl.segments.map((s) => ('word' in s ? s.word : 'param' in s ? value() : `${value()}/${value()}`)).join('/')}`;
    const verb = decl.verb.toUpperCase();
    requests.push([verb, path], [verb, `${path}.json`], ['GET', path]);
    const miss = pick[k++ % pick.length]! % 4;
    if (miss === 0) requests.push([verb, `${path}/`]);
    else if (miss === 1) requests.push([verb, path.slice(0, -1)]);
    else if (miss === 2) requests.push([verb, `${path}x`]);
    else requests.push([verb, `/${path}?q=1`]);
  }
  for (const name of resources) {
    const id = value();
    requests.push(
      ['GET', `/${name}`],
      ['GET', `/${name}/new`],
      ['GET', `/${name}/${id}`],
      ['PATCH', `/${name}/${id}`],
      ['DELETE', `/${name}/${id}.xml`],
      ['GET', `/${name}/${id}/sub0/${value()}/edit`],
      ['GET', `/${name}/${id}/sub1/new`],
      ['POST', `/${name}/${id}/sub1`],
      ['GET', `/${name}/${id}/extra`],
      ['GET', `/${name}/${id}/sub2`],
    );
  }
  return requests;
}

function answer(routes: ReturnType<typeof draw>, method: string, path: string): string {
  const m = routes.recognize(method, path);
  if (m === null) return 'none';
  const params = Object.entries(m.params).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${m.route.verb} ${m.route.path} ${m.handler}#${m.action} ${JSON.stringify(params)}`;
}

const TIERS: MatcherTier[] = ['recognizer', 'compiled-walk', 'static-map', 'auto'];

test('random large route sets: every tier recognizes what the interpreted walk recognizes', () => {
  fc.assert(
    fc.property(
      fc.array(routeArb, { minLength: 20, maxLength: 160 }),
      fc.integer({ min: 4, max: 40 }),
      fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
      fc.array(fc.boolean(), { minLength: 160, maxLength: 160 }),
      (decls, resourceCount, pick, formatOff) => {
        // `res3`, `res30`, ...: resources whose names extend each other, as the benchmark's do;
        // four or more make trees of several hundred nodes, cut into many functions.
        const resources = Array.from({ length: resourceCount }, (_, i) => `res${i + 3}`);
        const unformatted = new Set(formatOff.flatMap((off, i) => (off && i % 5 === 0 ? [i] : [])));
        const make = (tier: MatcherTier) => draw((r) => declare(r, decls, resources, unformatted)).useMatcherTier(tier);
        const reference = make('walk');
        const requests = requestsOf(decls, resources, pick);
        const want = requests.map(([method, path]) => answer(reference, method, path));
        for (const tier of TIERS) {
          const routes = make(tier);
          // Twice: `auto` compiles its trees during the first round.
          for (let round = 0; round < 2; round++) {
            requests.forEach(([method, path], i) => {
              assert.equal(answer(routes, method, path), want[i], `[${tier}, round ${round}] ${method} ${path}`);
            });
            for (let i = 0; i < 40; i++)
              for (const verb of ['GET', 'POST', 'PATCH', 'DELETE']) routes.recognize(verb, '/res');
          }
        }
      },
    ),
    { numRuns: 25 },
  );
});

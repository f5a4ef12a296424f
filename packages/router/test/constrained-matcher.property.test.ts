// Property: with constrained params in the tree (build.ts, segment-constraint.ts), every matcher
// tier answers what a plain scan answers: each route's own whole-path regexp (the one Journey
// builds) tried in declaration order over the normalized path, the first that matches winning.
// Random route sets mix words, default and constrained params (constraints the tree takes and
// ones it must leave to the regexp: crossing `/`, matching nothing, with groups, lookarounds),
// globs and formats; paths are the routes' own with values filled in, and near misses of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { draw, type Mapper } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';
import { matchOf } from '../src/matcher/matcher.js';
import { paramsFromValues } from '../src/matcher/params.js';
import { normalizeRequestPath } from '../src/pattern/normalize.js';
import type { Route } from '../src/route.js';
import type { Match } from '../src/types.js';

const WORDS = ['db', 'doc', '_all_docs', '_design', '_node', 'x', 'xy', 'a'];
const VERBS = ['get', 'put', 'post'] as const;
/** Values a param may take: ones a constraint below takes or refuses, ones a word spells, escaped, dotted. */
const VALUES = ['1', '42', 'db', '_design', '_node', '_nodex', 'a.b', 'AB', 'x', 'a%20b', '_x.y', 'new', '-'];
/** Constraints the tree can check in place, then ones it cannot (their routes keep their regexp). */
const CONSTRAINTS: RegExp[] = [
  /\d+/,
  /[a-z]+/,
  /[^/]+/,
  /(?!_node(?![^/]))[^/]+/,
  /_[^/]*/,
  /[a-z]+/i,
  /x|new|db/,
  /\w+\.\w+/,
  /(?<=\/)[^/.]+/,
  /[^/]+(?=\/)/,
  /[^/.]+/,
  /.+/,
  /[a-z]*/,
  /(\d)\d*/,
  /[\w%]+/,
];

type Segment = { word: string } | { param: number; constraint: number | null } | { glob: true };

interface RouteDecl {
  verb: (typeof VERBS)[number];
  segments: Segment[];
  format: boolean;
}

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WORDS).map((word) => ({ word })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 2 }), fc.option(fc.nat({ max: CONSTRAINTS.length - 1 }), { freq: 3 }))
      .map(([param, constraint]) => ({ param, constraint })),
  },
);

const routeArb: fc.Arbitrary<RouteDecl> = fc.record({
  verb: fc.constantFrom(...VERBS),
  segments: fc
    .tuple(fc.array(segmentArb, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean())
    .map(([segments, glob, rare]) => (glob && rare ? [...segments, { glob: true as const }] : segments)),
  format: fc.boolean(),
});

function nameOf(segment: Segment, i: number): string {
  return 'param' in segment ? `p${segment.param}_${i}` : `rest${i}`;
}

function declare(r: Mapper, decls: RouteDecl[]): void {
  decls.forEach((decl, i) => {
    const constraints: Record<string, RegExp> = {};
    const path = decl.segments
      .map((s, k) => {
        if ('word' in s) return s.word;
        if ('glob' in s) return `*${nameOf(s, k)}`;
        if (s.constraint !== null) constraints[nameOf(s, k)] = CONSTRAINTS[s.constraint]!;
        return `:${nameOf(s, k)}`;
      })
      .join('/');
    r[decl.verb](path, { to: `routes#a${i}`, constraints, ...(decl.format ? {} : { format: false }) });
  });
}

function requestsOf(decls: RouteDecl[], pick: number[]): Array<[string, string]> {
  const requests: Array<[string, string]> = [];
  let k = 0;
  const value = () => VALUES[pick[k++ % pick.length]! % VALUES.length]!;
  for (const decl of decls) {
    const path = `/${decl.segments.map((s) => ('word' in s ? s.word : 'param' in s ? value() : `${value()}/${value()}`)).join('/')}`;
    const verb = decl.verb.toUpperCase();
    requests.push([verb, path], [verb, `${path}.json`], ['PUT', path]);
    const miss = pick[k++ % pick.length]! % 4;
    if (miss === 0) requests.push([verb, `${path}/`]);
    else if (miss === 1) requests.push([verb, path.slice(0, -1)]);
    else if (miss === 2) requests.push([verb, `${path}x`]);
    else requests.push([verb, `${path}?q=1/2`]);
  }
  return requests;
}

/** The plain scan: every route of the set in declaration order, each by its own regexp. */
function scan(routes: ReturnType<typeof draw>, method: string, raw: string): Match | null {
  const path = normalizeRequestPath(raw);
  const count = routes.list().length;
  const routeAt = (i: number) => (routes as unknown as { routeAt(i: number): Route }).routeAt(i);
  for (let i = 0; i < count; i++) {
    const route = routeAt(i);
    if (!route.allowsVerb(method)) continue;
    const { regexp, captures } = route.regexp;
    const m = regexp.exec(path);
    if (m !== null) return matchOf(route, paramsFromValues(route, captures, m.slice(1)));
  }
  return null;
}

function describeMatch(m: Match | null): string {
  if (m === null) return 'none';
  const params = Object.entries(m.params).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${m.route.verb} ${m.route.path} ${m.handler}#${m.action} ${JSON.stringify(params)}`;
}

const TIERS: MatcherTier[] = ['walk', 'static-map', 'compiled-walk', 'recognizer', 'auto'];

test('random constrained route sets: every tier matches what a plain in-order scan of the routes matches', () => {
  fc.assert(
    fc.property(
      fc.array(routeArb, { minLength: 1, maxLength: 60 }),
      fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
      (decls, pick) => {
        const make = (tier: MatcherTier) => draw((r) => declare(r, decls)).useMatcherTier(tier);
        const reference = make('walk');
        const requests = requestsOf(decls, pick);
        const want = requests.map(([method, path]) => describeMatch(scan(reference, method, path)));
        for (const tier of TIERS) {
          const routes = make(tier);
          // Twice: `auto` compiles its trees during the first round.
          for (let round = 0; round < 2; round++) {
            requests.forEach(([method, path], i) => {
              const got = describeMatch(routes.recognize(method, path));
              assert.equal(got, want[i], `[${tier}, round ${round}] ${method} ${path}`);
            });
            for (let i = 0; i < 40; i++) for (const verb of ['GET', 'PUT', 'POST']) routes.recognize(verb, '/x');
          }
        }
      },
    ),
    { numRuns: 100 },
  );
});

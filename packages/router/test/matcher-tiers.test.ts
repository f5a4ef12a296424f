// Every matcher tier (matcher.ts) answers the same: a shared case table run once per tier, and
// the Rails conformance scenarios run again in a process where code generation is disallowed
// (the compiled tiers then fall back to the interpreter). rails-conformance.test.ts and the
// round-trip property run each tier too.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { draw, type Mapper } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';

const TIERS: MatcherTier[] = ['auto', 'static-map', 'walk', 'compiled-walk', 'recognizer'];

function declare(r: Mapper): void {
  r.root('pages#home');
  r.get('posts/:id', { to: 'early#show', constraints: { id: /\d+/ } }); // a regexp route, before the resource
  r.resources('posts', (r) => {
    r.resources('comments', { only: ['index', 'show'] });
    r.get('preview', { on: 'member' });
    r.get('search', { on: 'collection' });
  });
  r.resources('files', { only: 'show', constraints: { id: /[^/]+/ } }); // ids with dots
  r.get('docs/*path', { to: 'docs#show' });
  r.get('raw/*path', { to: 'raw#show', format: false });
  r.get('range/:from-:to', { to: 'ranges#show' });
  r.get('archive(/:year(/:month))', { to: 'archive#index' });
  r.match('mounted', { to: 'mounted#app', via: 'all', anchor: false });
  r.get('very/long/static/path/for/whole/comparison', { to: 'long#show' });
  r.namespace('admin', (r) => r.resources('users', { only: ['index', 'show'] }));
  for (let i = 0; i < 40; i++) r.get(`bulk${i}/:id/x${i}`, { to: `bulk#b${i}` }); // enough nodes for several compiled chunks
}

/** [method, path, expected `handler#action params`, or null]. */
const CASES: Array<[string, string, string | null]> = [
  ['GET', '/', 'pages#home {}'],
  ['GET', '/posts', 'posts#index {}'],
  ['GET', '/posts/', 'posts#index {}'],
  ['GET', '/posts.json', 'posts#index {"format":"json"}'],
  ['GET', '/posts/12', 'early#show {"id":"12"}'],
  ['GET', '/posts/new', 'posts#new {}'],
  ['GET', '/posts/abc', 'posts#show {"id":"abc"}'],
  ['GET', '/posts/abc.json', 'posts#show {"format":"json","id":"abc"}'],
  ['PATCH', '/posts/abc', 'posts#update {"id":"abc"}'],
  ['HEAD', '/posts/abc', 'posts#show {"id":"abc"}'],
  ['DELETE', '/posts', null],
  ['GET', '/posts/1/comments', 'comments#index {"post_id":"1"}'],
  ['GET', '/posts/a%20b/comments/c%2Fd', 'comments#show {"id":"c/d","post_id":"a b"}'],
  ['GET', '/posts/x/preview', 'posts#preview {"id":"x"}'],
  ['GET', '/posts/search?q=1', 'posts#search {}'],
  ['GET', '//posts//x/', 'posts#show {"id":"x"}'],
  ['GET', '/files/a.b.c', 'files#show {"id":"a.b.c"}'],
  ['GET', '/docs/a/b.txt', 'docs#show {"format":"txt","path":"a/b"}'],
  ['GET', '/raw/a/b.txt', 'raw#show {"path":"a/b.txt"}'],
  ['GET', '/range/3-9', 'ranges#show {"from":"3","to":"9"}'],
  ['GET', '/archive', 'archive#index {}'],
  ['GET', '/archive/2024', 'archive#index {"year":"2024"}'],
  ['GET', '/archive/2024/05', 'archive#index {"month":"05","year":"2024"}'],
  ['POST', '/mounted/anything/below', 'mounted#app {}'],
  ['GET', '/very/long/static/path/for/whole/comparison', 'long#show {}'],
  ['GET', '/very/long/static/path/for/whole/comparisons', null],
  ['GET', '/admin/users/7', 'admin/users#show {"id":"7"}'],
  ['GET', '/bulk17/5/x17', 'bulk#b17 {"id":"5"}'],
  ['GET', '/bulk17/5/x18', null],
  ['GET', '/nowhere', null],
];

function answer(routes: Pick<ReturnType<typeof draw>, 'recognize'>, method: string, path: string): string | null {
  const m = routes.recognize(method, path);
  if (m === null) return null;
  const params = Object.fromEntries(Object.entries(m.params).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${m.handler}#${m.action} ${JSON.stringify(params)}`;
}

for (const tier of TIERS) {
  describe(`matcher tier: ${tier}`, () => {
    test('the shared case table, twice over (cold and after the tier has warmed up)', () => {
      const routes = draw(declare).useMatcherTier(tier);
      for (let round = 0; round < 2; round++) {
        for (const [method, path, want] of CASES) {
          assert.equal(answer(routes, method, path), want, `[${tier}, round ${round}] ${method} ${path}`);
        }
        // Enough lookups for `auto` to compile its trees before the second round.
        for (let i = 0; i < 40; i++) routes.recognize('GET', `/bulk${i % 40}/1/x${i % 40}`);
      }
    });
  });
}

/** A set where one route answers every verb and one a verb only it names. */
function declareVerbs(r: Mapper): void {
  r.resources('posts');
  r.match('mounted', { to: 'mounted#app', via: 'all', anchor: false });
  r.match('dav', { to: 'dav#find', via: 'propfind' });
}

const EVERY_VERB = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

for (const tier of TIERS) {
  describe(`matcher tier: ${tier}, whatever the first request`, () => {
    // The first tree a matcher builds gathers the verbs the routes name, in the same pass: it
    // may be the tree of a verb only one route names, of a verb none names (the any-verb routes'
    // tree), of a lower-case spelling, or none at all (allowedMethods asks for the verbs first).
    const FIRSTS: Array<[string, string, string | null] | null> = [
      ['PROPFIND', '/dav', 'dav#find {}'],
      ['MKCOL', '/mounted/x', 'mounted#app {}'],
      ['MKCOL', '/posts/abc', null],
      ['get', '/posts/abc', 'posts#show {"id":"abc"}'],
      ['DELETE', '/posts/abc', 'posts#destroy {"id":"abc"}'],
      null,
    ];
    for (const first of FIRSTS) {
      test(first === null ? 'allowedMethods before any request' : `first ${first[0]} ${first[1]}`, () => {
        const routes = draw(declareVerbs).useMatcherTier(tier);
        if (first !== null) assert.equal(answer(routes, first[0], first[1]), first[2]);
        assert.deepEqual(routes.allowedMethods('/posts/abc'), ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
        assert.deepEqual(routes.allowedMethods('/mounted/x'), EVERY_VERB);
        assert.deepEqual(routes.allowedMethods('/dav'), ['PROPFIND']);
        assert.equal(answer(routes, 'MKCOL', '/mounted/x'), 'mounted#app {}');
        assert.equal(answer(routes, 'MKCOL', '/posts/abc'), null);
        assert.equal(answer(routes, 'propfind', '/dav'), 'dav#find {}');
        assert.equal(answer(routes, 'GET', '/dav'), null);
        assert.equal(answer(routes, 'PATCH', '/posts/abc'), 'posts#update {"id":"abc"}');
      });
    }
  });
}

for (const tier of TIERS) {
  describe(`matcher tier: ${tier}, verbs interleaved once their trees are compiled`, () => {
    // A standard verb's recognizer is kept by slot once found (Matcher.recognizers): a lower-case
    // spelling, HEAD's fallback to GET, a verb only one route names and one no route names must
    // still reach their own trees, and two route sets must never answer with each other's recognizers.
    const MIXED: Array<[string, string, string | null]> = [
      ['GET', '/posts/abc', 'posts#show {"id":"abc"}'],
      ['PATCH', '/posts/abc', 'posts#update {"id":"abc"}'],
      ['HEAD', '/posts/abc', 'posts#show {"id":"abc"}'],
      ['get', '/posts/abc', 'posts#show {"id":"abc"}'],
      ['DELETE', '/posts/abc', 'posts#destroy {"id":"abc"}'],
      ['DELETE', '/posts', null],
      ['PROPFIND', '/dav', 'dav#find {}'],
      ['MKCOL', '/mounted/x', 'mounted#app {}'],
      ['OPTIONS', '/posts/abc', null],
      ['OPTIONS', '/mounted/x', 'mounted#app {}'],
      ['POST', '/posts', 'posts#create {}'],
      ['PUT', '/posts/a%20b', 'posts#update {"id":"a b"}'],
      ['GET', '/posts//abc/', 'posts#show {"id":"abc"}'],
    ];
    test('each verb answers from its own tree, before and after 64 rounds of the mix', () => {
      const routes = draw(declareVerbs).useMatcherTier(tier);
      const other = draw((r: Mapper) => r.resources('posts', { only: ['show'], param: 'slug' })).useMatcherTier(tier);
      for (let round = 0; round < 64; round++) {
        for (const [method, path, want] of MIXED) {
          assert.equal(answer(routes, method, path), want, `[${tier}, round ${round}] ${method} ${path}`);
          const theirs = method.toUpperCase() === 'GET' || method === 'HEAD' ? 'posts#show {"slug":"abc"}' : null;
          assert.equal(answer(other, method, path), path === '/posts/abc' || path === '/posts//abc/' ? theirs : null);
        }
      }
    });
  });
}

describe('without code generation (node --disallow-code-generation-from-strings)', () => {
  test('the compiled tiers fall back to the interpreter and still pass every Rails scenario', () => {
    const conformance = fileURLToPath(new URL('./rails-conformance.test.js', import.meta.url));
    // Not as a subtest of this runner (NODE_TEST_CONTEXT would make it report to it): on its own, in TAP.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--test-reporter=tap', conformance],
      { encoding: 'utf8', env: { ...env, DIVAN_MATCHER_TIERS: 'compiled-walk,recognizer,auto', NODE_OPTIONS: '' } },
    );
    assert.equal(run.status, 0, run.stdout.slice(-3000) + run.stderr);
    assert.match(run.stdout, /# fail 0/);
    assert.match(run.stdout, /# pass [1-9]\d{2,}/);
    // The child really could not generate code.
    const probe = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', 'new Function("")'], {
      encoding: 'utf8',
    });
    assert.notEqual(probe.status, 0);
  });
});

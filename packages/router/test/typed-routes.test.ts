// Types without a build step: `draw` types helpers, params and handler tables from the
// declaration itself. This file is compiled with the package (`tsc -b`): each `@ts-expect-error`
// below is a line that must not compile (the build fails if it does), every other line must.
// The runtime checks then prove that the names the types give are the names the route set has.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw, type RouteParams, type Helpers, type Mapper } from '../src/index.js';
import { expressRouter } from '../src/adapters/express.js';
import { fastifyRouter } from '../src/adapters/fastify.js';
import { honoRouter } from '../src/adapters/hono.js';
import { createNodeListener } from '../src/adapters/node.js';
import { typeCheck } from './support/type-check.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<_T extends true>(): void {}

const routes = draw((r) =>
  r
    .root('pages#home')
    .resources('posts', (r) =>
      r
        .resources('comments', { only: ['index', 'show'] })
        .member((r) => r.get('preview'))
        .collection((r) => r.get('search')),
    )
    .resource('profile', { except: ['destroy'] })
    .namespace('admin', (r) => r.resources('users', { only: ['index', 'show'] }))
    .scope({ module: 'api', path: 'v1', as: 'v1' }, (r) => r.resources('keys', { only: 'show' }))
    .resources('categories', { only: ['show'], param: 'slug' })
    .get('about', { to: 'pages#about' })
    .get('files/*path', { to: 'files#show', as: 'file' })
    .namespace('account', (r) => r.get('description', { action: 'description', as: 'description' })),
);
const h = routes.helpers;

describe('typed route sets', () => {
  test('helpers exist under the names the types give, with their required segments', () => {
    assert.equal(h.rootPath(), '/');
    assert.equal(h.postsPath(), '/posts');
    assert.equal(h.postPath(1), '/posts/1');
    assert.equal(h.postPath(1, 'json'), '/posts/1.json');
    assert.equal(h.postPath({ id: 2, title: 'hash' }), '/posts/2?title=hash');
    assert.equal(h.postPath({ toParam: () => '2-record' }), '/posts/2-record');
    assert.equal(h.postPath(3, { page: 2 }), '/posts/3?page=2');
    assert.equal(h.newPostPath(), '/posts/new');
    assert.equal(h.editPostPath(1), '/posts/1/edit');
    assert.equal(h.postCommentsPath(1), '/posts/1/comments');
    assert.equal(h.postCommentPath(1, 2), '/posts/1/comments/2');
    assert.equal(h.postCommentPath({ post_id: 1, id: 2 }), '/posts/1/comments/2');
    assert.equal(h.previewPostPath(4), '/posts/4/preview');
    assert.equal(h.searchPostsPath({ q: 'x' }), '/posts/search?q=x');
    assert.equal(h.profilePath(), '/profile');
    assert.equal(h.editProfilePath(), '/profile/edit');
    assert.equal(h.newProfilePath(), '/profile/new');
    assert.equal(h.adminUsersPath(), '/admin/users');
    assert.equal(h.adminUserPath(9), '/admin/users/9');
    assert.equal(h.v1KeyPath('k'), '/v1/keys/k');
    assert.equal(h.categoryPath('books'), '/categories/books');
    assert.equal(h.aboutPath(), '/about');
    assert.equal(h.filePath('a/b'), '/files/a/b');
    assert.equal(h.accountDescriptionPath(), '/account/description');
    assert.equal(h.postUrl(1, { host: 'example.com' }), 'http://example.com/posts/1');
    assert.equal(routes.path('edit_post', 1), '/posts/1/edit');
  });

  test('the typed helpers are exactly the route set’s helpers', () => {
    const typed: Array<keyof typeof h> = [
      'rootPath',
      'postsPath',
      'newPostPath',
      'editPostPath',
      'postPath',
      'postCommentsPath',
      'postCommentPath',
      'previewPostPath',
      'searchPostsPath',
      'profilePath',
      'newProfilePath',
      'editProfilePath',
      'adminUsersPath',
      'adminUserPath',
      'v1KeyPath',
      'categoryPath',
      'aboutPath',
      'filePath',
      'accountDescriptionPath',
    ];
    const runtime = Object.keys(h).filter((k) => k.endsWith('Path'));
    assert.deepEqual([...runtime].sort(), [...typed].sort());
  });

  test('compile errors: a typo in a helper name, a missing segment, a segment too many', () => {
    // @ts-expect-error: no such helper (typo)
    assert.equal(h.postPaht, undefined);
    // @ts-expect-error: post_id and id are required
    assert.throws(() => h.postCommentPath(1));
    // @ts-expect-error: an unknown route name
    assert.throws(() => routes.path('edit_psot', 1));
    // @ts-expect-error: comments only has index and show
    assert.equal(h.editPostCommentPath, undefined);
    // @ts-expect-error: the profile resource has no destroy route, and no collection
    assert.equal(h.profilesPath, undefined);
  });

  test('route params are typed from the path', () => {
    expectType<Equal<keyof RouteParams<'/posts/:post_id/comments/:id(.:format)'>, 'post_id' | 'id' | 'format'>>();
    const params: RouteParams<'/posts/:post_id/comments/:id(.:format)'> = { post_id: '1', id: '2' };
    // @ts-expect-error: id is required
    const missing: RouteParams<'/posts/:id(.:format)'> = { format: 'json' };
    assert.deepEqual([params, missing], [{ post_id: '1', id: '2' }, { format: 'json' }]);
  });

  test('a handler table is checked against the declared handler#action pairs, with typed params', () => {
    // Partial tables type-check; the adapters refuse them when created (missing actions).
    const partial = /lacks \d+ action/;
    assert.throws(
      () =>
        createNodeListener(routes, {
          posts: {
            show: (ctx) => {
              expectType<Equal<typeof ctx.params.id, string>>();
              return ctx.params.id;
            },
            preview: ({ params }) => params.id,
          },
          comments: { show: ({ params }) => `${params.post_id}/${params.id}` },
          'admin/users': { index: () => [] },
        }),
      partial,
    );
    assert.throws(
      () =>
        createNodeListener(routes, {
          // @ts-expect-error: no action "shwo" on posts
          posts: { shwo: () => 'typo' },
        }),
      partial,
    );
    assert.throws(
      () =>
        createNodeListener(routes, {
          // @ts-expect-error: no handler "post"
          post: { show: () => 'typo' },
        }),
      partial,
    );
  });

  test('the framework adapters take typed tables too: declared names only, each action typed with its params', () => {
    const partial = /lacks \d+ action/;
    assert.throws(
      () =>
        expressRouter(routes, {
          posts: {
            show: (req, res) => {
              expectType<Equal<typeof req.params.id, string>>();
              res.send(req.params.id);
            },
          },
          // @ts-expect-error: no handler "post"
          post: {},
        }),
      partial,
    );
    assert.throws(
      () =>
        fastifyRouter(routes, {
          comments: {
            show: async (request) => {
              expectType<Equal<typeof request.params.post_id, string>>();
              return request.params.id;
            },
            // @ts-expect-error: comments has no destroy route
            destroy: async () => null,
          },
        }),
      partial,
    );
    assert.throws(
      () =>
        honoRouter(routes, {
          categories: {
            show: (c) => {
              const params = c.get('params');
              expectType<Equal<typeof params.slug, string>>();
              return c.text(params.slug);
            },
          },
        }),
      partial,
    );
  });

  test('what the types cannot follow degrades to string keys, never to any', () => {
    const loose = draw((r) => {
      r.resources('posts');
    });
    const helpers: Helpers<{ name: string; path: string; handler: string; action: string }> = loose.helpers;
    const helper = helpers.postPath;
    // A string-keyed helper may be missing: it must be checked (noUncheckedIndexedAccess).
    assert.equal(helper?.(1), '/posts/1');
    const word: string = ['peo', 'ple'].join('');
    const computed = draw((r) => r.resources(word));
    assert.equal(computed.helpers.peoplePath?.(), '/people');
    assert.equal(computed.helpers.personPath?.(1), '/people/1');
    // A block written as a function of its own (the exported Mapper type) still declares.
    const block = (r: Mapper) => {
      r.resources('people');
    };
    assert.equal(draw(block).path('person', 1), '/people/1');
  });
});

describe('tsc on a file that must not compile', () => {
  test('each mistake is reported where it is, naming it', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const packageDir = fileURLToPath(new URL('../../', import.meta.url));
    const dir = mkdtempSync(join(packageDir, '.typecheck-'));
    try {
      const index = join(packageDir, 'src', 'index.js').replaceAll('\\', '/');
      writeFileSync(
        join(dir, 'bad.ts'),
        [
          `import { draw } from '${index}';`,
          "const routes = draw((r) => r.resources('posts', (r) => r.resources('comments')));",
          'routes.helpers.postPaht(1);',
          'routes.helpers.postCommentPath(1);',
          "routes.helpers.postCommentPath(1, 2, 'json', { q: 1 });",
          '',
        ].join('\n'),
      );
      const run = typeCheck(dir, ['bad.ts'], { types: ['node'], skipLibCheck: true });
      const errors = run.stdout.split('\n').filter((l) => l.includes('error TS'));
      assert.equal(errors.length, 2, run.stdout);
      assert.match(errors[0] ?? '', /bad\.ts\(3,16\).*'postPaht' does not exist/);
      assert.match(errors[1] ?? '', /bad\.ts\(4,/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { demoRoutes } from './support/demo-routes.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { draw } from '../src/index.js';
import { formatRoutes, formatRequirements } from '../src/format/table.js';
import { POSTS_TABLE } from './support/posts-table.js';
import { StubRouteSet, postsRoutes, route } from './support/stub-route-set.js';

describe('formatRoutes', () => {
  test('prints the rails routes table of resources :posts', () => {
    assert.equal(formatRoutes(new StubRouteSet(postsRoutes())), POSTS_TABLE);
  });

  test('columns are at least as wide as their headers', () => {
    const routes = new StubRouteSet([route({ verb: 'GET', path: '/a', handler: 'a', action: 'b' })]);
    assert.equal(
      formatRoutes(routes),
      ['Prefix Verb URI Pattern Handler#Action', '       GET  /a          a#b'].join('\n'),
    );
  });

  test('any-verb and multi-verb routes', () => {
    const routes = new StubRouteSet([
      route({ name: 'any', verb: '', path: '/any(.:format)', handler: 'a', action: 'b' }),
      route({ name: 'two', verb: 'GET|POST', path: '/two(.:format)', handler: 'a', action: 'c' }),
    ]);
    assert.equal(
      formatRoutes(routes),
      [
        'Prefix Verb     URI Pattern    Handler#Action',
        '   any          /any(.:format) a#b',
        '   two GET|POST /two(.:format) a#c',
      ].join('\n'),
    );
  });

  test('constraints and defaults follow handler#action, JavaScript style', () => {
    const routes = new StubRouteSet([
      route({
        name: 'raw_photo',
        verb: 'GET',
        path: '/photos/:id/raw(.:format)',
        handler: 'photos',
        action: 'raw',
        constraints: { id: '[^\\/]+' },
      }),
      route({ name: 'x', verb: 'GET', path: '/x(.:format)', handler: 'x', action: 'y', defaults: { format: 'jpg' } }),
      route({
        name: 'file',
        verb: 'GET',
        path: '/files/:id(.:format)',
        handler: 'files',
        action: 'show',
        constraints: { format: 'json', id: '[^/]+' },
      }),
    ]);
    assert.equal(
      formatRoutes(routes),
      [
        '   Prefix Verb URI Pattern               Handler#Action',
        'raw_photo GET  /photos/:id/raw(.:format) photos#raw {id: /[^\\/]+/}',
        '        x GET  /x(.:format)              x#y {format: "jpg"}',
        '     file GET  /files/:id(.:format)      files#show {format: /json/, id: /[^/]+/}',
      ].join('\n'),
    );
  });

  test('formatRequirements lists defaults then constraints', () => {
    assert.equal(formatRequirements({ defaults: {}, constraints: {} }), '');
    assert.equal(
      formatRequirements({ defaults: { page: 1, format: 'json' }, constraints: { id: '\\d+' } }),
      '{page: 1, format: "json", id: /\\d+/}',
    );
  });

  test('grep matches name, verb, path or handler#action, case-insensitively', () => {
    const routes = new StubRouteSet(postsRoutes());
    const rows = (grep: string) =>
      formatRoutes(routes, { grep })
        .split('\n')
        .slice(1)
        .map((l) => l.trim().replace(/ +/g, ' '));
    assert.deepEqual(rows('EDIT_post'), ['edit_post GET /posts/:id/edit(.:format) posts#edit']);
    assert.deepEqual(rows('delete'), ['DELETE /posts/:id(.:format) posts#destroy']);
    assert.deepEqual(rows('posts#upd'), [
      'PATCH /posts/:id(.:format) posts#update',
      'PUT /posts/:id(.:format) posts#update',
    ]);
    assert.equal(rows('/new').length, 1);
    assert.equal(rows('p(at|u)').length, 2); // a regular expression, like rails routes -g
    assert.equal(rows('id/edit(').length, 1); // not a valid RegExp: plain text
    assert.equal(formatRoutes(routes, { grep: '' }), POSTS_TABLE);
  });

  test('grep narrows the column widths to the routes shown', () => {
    const routes = new StubRouteSet(postsRoutes());
    assert.equal(
      formatRoutes(routes, { grep: 'new' }),
      ['  Prefix Verb URI Pattern          Handler#Action', 'new_post GET  /posts/new(.:format) posts#new'].join('\n'),
    );
  });

  test('grep without matches says so', () => {
    assert.equal(
      formatRoutes(new StubRouteSet(postsRoutes()), { grep: 'zzz' }),
      'No routes were found for this grep pattern.\n' +
        'For more information about routes, see the Rails guide: https://guides.rubyonrails.org/routing.html.',
    );
  });

  test('an empty route set prints a helpful message', () => {
    const text = formatRoutes(new StubRouteSet([]));
    assert.match(text, /^You don't have any routes defined!\n\n/);
    assert.match(text, /draw\(/);
    assert.equal(formatRoutes(new StubRouteSet([]), { grep: 'x' }), text);
  });
});

describe('formatRoutes of drawn route sets', () => {
  test('resources posts', () => {
    assert.equal(
      formatRoutes(
        draw((r) => {
          r.resources('posts');
        }),
      ),
      POSTS_TABLE,
    );
  });

  test('the example of the API contract prints exactly what rails routes prints for it', () => {
    // rails-routes-demo.txt: `rails routes` (Rails 6.1) of the same declarations in Ruby, with
    // Controller#Action renamed and `{:id=>/[^\/]+/}` written the JavaScript way.
    const expected = readFileSync(
      fileURLToPath(new URL('../../test/fixtures/rails-routes-demo.txt', import.meta.url)),
      'utf8',
    );
    const routes = demoRoutes();
    assert.equal(`${formatRoutes(routes)}\n`, expected);
  });

  test('grep on a drawn route set', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.resources('users');
      });
      r.resources('posts');
    });
    const lines = formatRoutes(routes, { grep: 'ADMIN/users#(show|edit)' }).split('\n');
    assert.deepEqual(lines, [
      '         Prefix Verb URI Pattern                     Handler#Action',
      'edit_admin_user GET  /admin/users/:id/edit(.:format) admin/users#edit',
      '     admin_user GET  /admin/users/:id(.:format)      admin/users#show',
    ]);
  });

  test('an empty drawn route set', () => {
    assert.match(formatRoutes(draw(() => {})), /^You don't have any routes defined!/);
  });
});

describe('formatRoutes: -c and --expanded', () => {
  const routes = draw((r) => {
    r.resources('posts', { only: ['index', 'show'] });
    r.namespace('admin', (r) => r.resources('users', { only: ['index'] }));
  });

  test('handler filter: a RegExp on the handler, or a Rails controller name underscored', () => {
    const handlers = (handler: string) =>
      formatRoutes(routes, { handler })
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(' ').at(-1));
    assert.deepEqual(handlers('admin/users'), ['admin/users#index']);
    assert.deepEqual(handlers('Admin::UsersController'), ['admin/users#index']);
    assert.deepEqual(handlers('^posts$'), ['posts#index', 'posts#show']);
    assert.match(formatRoutes(routes, { handler: 'comments' }), /^No routes were found for this handler\./);
  });

  test('expanded: one block per route, with requirements after handler#action', () => {
    const withDefaults = draw((r) => {
      r.get('photos/:id', { to: 'photos#show', as: 'photo', id: /\d+/ });
    });
    assert.equal(
      formatRoutes(withDefaults, { expanded: true }),
      [
        `--[ Route 1 ]${'-'.repeat(67)}`,
        'Prefix         | photo',
        'Verb           | GET',
        'URI            | /photos/:id(.:format)',
        'Handler#Action | photos#show {id: /\\d+/}',
      ].join('\n'),
    );
  });
});

// A plain resource's route names are decided when something first reads one (a match's route,
// `list()`, a helper, a later declaration). Whichever reads first, the names are the ones Rails
// gives: a name a route before has already taken is none.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { Mapper } from '../src/index.js';

/** `user_posts` and the posts nested in users join to the same names from other parts. */
function overlapping(r: Mapper): void {
  r.resources('user_posts');
  r.resources('users', (r) => {
    r.resources('posts');
  });
}

const names = (routes: { list(): { name: string | null; verb: string; path: string }[] }) =>
  routes.list().map((r) => `${r.name ?? '-'} ${r.verb} ${r.path}`);

describe('resource route names decided when first read', () => {
  test('names taken by a route before, joined from other parts, are none (Rails)', () => {
    const routes = draw(overlapping);
    assert.deepEqual(names(routes).slice(8, 16), [
      '- GET /users/:user_id/posts(.:format)',
      '- POST /users/:user_id/posts(.:format)',
      '- GET /users/:user_id/posts/new(.:format)',
      '- GET /users/:user_id/posts/:id/edit(.:format)',
      '- GET /users/:user_id/posts/:id(.:format)',
      '- PATCH /users/:user_id/posts/:id(.:format)',
      '- PUT /users/:user_id/posts/:id(.:format)',
      '- DELETE /users/:user_id/posts/:id(.:format)',
    ]);
    assert.equal(routes.path('user_posts'), '/user_posts');
    assert.equal(routes.path('edit_user_post', 3), '/user_posts/3/edit');
  });

  test('a match read first names its route as the whole set would', () => {
    const routes = draw(overlapping);
    assert.equal(routes.recognize('GET', '/users/1/posts')?.route.name, null);
    assert.equal(routes.recognize('GET', '/users/1/posts/2/edit')?.route.name, null);
    assert.equal(routes.recognize('GET', '/users/1')?.route.name, 'user');
    assert.equal(routes.recognize('GET', '/user_posts/new')?.route.name, 'new_user_post');
    assert.deepEqual(names(routes), names(draw(overlapping)));
  });

  test('matches read first across many resources, then the helpers, agree with list()', () => {
    const block = (r: Mapper) => {
      for (let i = 0; i < 40; i++) {
        r.resources(`items${i}`, (r) => {
          r.resources('parts');
          r.resources(`items${i}_parts`);
        });
      }
      r.resources('items3_parts');
    };
    const routes = draw(block);
    const nameOf = (path: string) => {
      const match = routes.recognize('GET', path);
      return match === null ? 'no match' : match.route.name;
    };
    const read: (string | null)[] = [];
    for (let i = 39; i >= 0; i--) {
      read.push(nameOf(`/items${i}/1/parts/new`));
      read.push(nameOf(`/items${i}/1/items${i}_parts`));
    }
    read.push(nameOf('/items3_parts'));
    const twin = draw(block).list();
    const expected: (string | null)[] = [];
    for (let i = 39; i >= 0; i--) {
      expected.push(twin.find((r) => r.path === `/items${i}/:items${i}_id/parts/new(.:format)`)!.name);
      expected.push(
        twin.find((r) => r.verb === 'GET' && r.path === `/items${i}/:items${i}_id/items${i}_parts(.:format)`)!.name,
      );
    }
    expected.push(twin.find((r) => r.verb === 'GET' && r.path === '/items3_parts(.:format)')!.name);
    assert.deepEqual(read, expected);
    // `items3_parts` at the top is taken by the index of the parts nested in items3.
    assert.equal(read.at(-1), null);
    assert.equal(expected[0], 'new_items39_part');
    assert.equal(routes.helpers.items3PartsPath?.(1), '/items3/1/parts');
    assert.deepEqual(names(routes), names(draw(block)));
  });

  test('a later route named like a resource route is refused at draw', () => {
    assert.throws(
      () =>
        draw((r) => {
          r.resources('photos');
          r.get('gallery', { to: 'photos#index', as: 'photos' });
        }),
      /Invalid route name, already in use: 'photos'/,
    );
  });

  test('a resource whose names are not words is refused at draw', () => {
    assert.throws(
      () =>
        draw((r) => {
          r.resources('photos', { as: 'photo-albums' });
        }),
      /Invalid route name: 'photo-albums'/,
    );
  });
});

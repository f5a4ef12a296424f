// resources / resource: generated routes, Rails 6.1 order, names, handlers, several names, blocks.
// Expected values recorded from Rails 6.1 (ActionDispatch::Routing::RouteSet#draw).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { Mapper, RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('resources (plural)', () => {
  test('generates the seven actions in Rails order: index, create, new, edit, show, update PATCH, update PUT, destroy', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    assert.deepEqual(rows(routes.list()), [
      ['photos', 'GET', '/photos(.:format)', 'photos#index'],
      [null, 'POST', '/photos(.:format)', 'photos#create'],
      ['new_photo', 'GET', '/photos/new(.:format)', 'photos#new'],
      ['edit_photo', 'GET', '/photos/:id/edit(.:format)', 'photos#edit'],
      ['photo', 'GET', '/photos/:id(.:format)', 'photos#show'],
      [null, 'PATCH', '/photos/:id(.:format)', 'photos#update'],
      [null, 'PUT', '/photos/:id(.:format)', 'photos#update'],
      [null, 'DELETE', '/photos/:id(.:format)', 'photos#destroy'],
    ]);
  });

  test('each generated route has no declared constraints or defaults', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    for (const route of routes.list()) {
      assert.deepEqual(route.defaults, {});
      assert.equal(route.constraints.id, undefined);
    }
  });

  test('index: GET /photos', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('GET', '/photos');
    assert.ok(m);
    assert.equal(m.handler, 'photos');
    assert.equal(m.action, 'index');
    assert.deepEqual(m.params, {});
  });

  test('create: POST /photos', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('POST', '/photos');
    assert.ok(m);
    assert.equal(m.action, 'create');
    assert.equal(m.handler, 'photos');
  });

  test('new: GET /photos/new', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('GET', '/photos/new');
    assert.ok(m);
    assert.equal(m.action, 'new');
    assert.equal(m.route.name, 'new_photo');
  });

  test('edit: GET /photos/:id/edit', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('GET', '/photos/7/edit');
    assert.ok(m);
    assert.equal(m.action, 'edit');
    assert.deepEqual(m.params, { id: '7' });
  });

  test('show: GET /photos/:id', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('GET', '/photos/7');
    assert.ok(m);
    assert.equal(m.action, 'show');
    assert.deepEqual(m.params, { id: '7' });
  });

  test('update: PATCH /photos/:id', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('PATCH', '/photos/7');
    assert.ok(m);
    assert.equal(m.action, 'update');
    assert.equal(m.route.verb, 'PATCH');
    assert.deepEqual(m.params, { id: '7' });
  });

  test('update: PUT /photos/:id', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('PUT', '/photos/7');
    assert.ok(m);
    assert.equal(m.action, 'update');
    assert.equal(m.route.verb, 'PUT');
  });

  test('destroy: DELETE /photos/:id', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    const m = routes.recognize('DELETE', '/photos/7');
    assert.ok(m);
    assert.equal(m.action, 'destroy');
    assert.deepEqual(m.params, { id: '7' });
  });

  test('a verb no route answers on a resource path is not recognized', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    assert.equal(routes.recognize('DELETE', '/photos'), null);
    assert.equal(routes.recognize('POST', '/photos/7'), null);
    assert.equal(routes.recognize('PATCH', '/photos'), null);
  });

  test('the singular name follows Rails inflection (categories -> category)', () => {
    const routes = draw((r) => {
      r.resources('categories', { only: ['show', 'new'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_category', 'GET', '/categories/new(.:format)', 'categories#new'],
      ['category', 'GET', '/categories/:id(.:format)', 'categories#show'],
    ]);
  });

  test('an uncountable-looking name gets the _index suffix on the collection (sheep)', () => {
    const routes = draw((r) => {
      r.resources('sheep', { only: ['index', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['sheep_index', 'GET', '/sheep(.:format)', 'sheep#index'],
      ['sheep', 'GET', '/sheep/:id(.:format)', 'sheep#show'],
    ]);
  });

  test('returns the mapper, so calls chain', () => {
    let same = false;
    const routes = draw((r) => {
      const ret = r.resources('photos', { only: 'index' });
      same = ret === r;
      ret.resources('tags', { only: 'index' });
    });
    assert.equal(same, true);
    assert.deepEqual(
      routes.list().map((x) => x.name),
      ['photos', 'tags'],
    );
  });
});

describe('resource (singular)', () => {
  test('generates six actions (seven routes) in order new, edit, show, update PATCH, update PUT, destroy, create', () => {
    const routes = draw((r) => {
      r.resource('profile');
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_profile', 'GET', '/profile/new(.:format)', 'profiles#new'],
      ['edit_profile', 'GET', '/profile/edit(.:format)', 'profiles#edit'],
      ['profile', 'GET', '/profile(.:format)', 'profiles#show'],
      [null, 'PATCH', '/profile(.:format)', 'profiles#update'],
      [null, 'PUT', '/profile(.:format)', 'profiles#update'],
      [null, 'DELETE', '/profile(.:format)', 'profiles#destroy'],
      [null, 'POST', '/profile(.:format)', 'profiles#create'],
    ]);
  });

  test('has no index action and no id segment', () => {
    const routes = draw((r) => {
      r.resource('profile');
    });
    assert.ok(routes.list().every((x) => x.action !== 'index'));
    assert.ok(routes.list().every((x) => !x.path.includes(':id')));
    assert.equal(routes.recognize('GET', '/profile/1'), null);
  });

  test('GET /profile is the show action of the plural-named handler', () => {
    const routes = draw((r) => {
      r.resource('profile');
    });
    const m = routes.recognize('GET', '/profile');
    assert.ok(m);
    assert.equal(m.handler, 'profiles');
    assert.equal(m.action, 'show');
    assert.equal(m.route.name, 'profile');
    assert.deepEqual(m.params, {});
  });

  test('recognizes each of its verbs', () => {
    const routes = draw((r) => {
      r.resource('profile');
    });
    const got = (
      [
        ['GET', '/profile/new'],
        ['GET', '/profile/edit'],
        ['POST', '/profile'],
        ['PATCH', '/profile'],
        ['PUT', '/profile'],
        ['DELETE', '/profile'],
      ] as const
    ).map(([v, p]) => routes.recognize(v, p)?.action);
    assert.deepEqual(got, ['new', 'edit', 'create', 'update', 'update', 'destroy']);
  });

  test('returns the mapper', () => {
    let same = false;
    draw((r) => {
      same = r.resource('profile', { only: 'show' }) === r;
    });
    assert.equal(same, true);
  });

  test('the handler of a singular resource is the plural, following inflection (category -> categories)', () => {
    const routes = draw((r) => {
      r.resource('category', { only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [['category', 'GET', '/category(.:format)', 'categories#show']]);
  });
});

describe('several names in one call', () => {
  test('resources with a list declares each in order with the same options', () => {
    const routes = draw((r) => {
      r.resources(['books', 'videos'], { only: ['index', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['books', 'GET', '/books(.:format)', 'books#index'],
      ['book', 'GET', '/books/:id(.:format)', 'books#show'],
      ['videos', 'GET', '/videos(.:format)', 'videos#index'],
      ['video', 'GET', '/videos/:id(.:format)', 'videos#show'],
    ]);
  });

  test('resource with a list declares each singular resource', () => {
    const routes = draw((r) => {
      r.resource(['profile', 'account'], { only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile', 'GET', '/profile(.:format)', 'profiles#show'],
      ['account', 'GET', '/account(.:format)', 'accounts#show'],
    ]);
  });

  test('the block runs for each of the names', () => {
    const routes = draw((r) => {
      r.resources(['authors', 'books'], { only: 'index' }, (r) => {
        r.resources('reviews', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['author_reviews', 'GET', '/authors/:author_id/reviews(.:format)', 'reviews#index'],
      ['authors', 'GET', '/authors(.:format)', 'authors#index'],
      ['book_reviews', 'GET', '/books/:book_id/reviews(.:format)', 'reviews#index'],
      ['books', 'GET', '/books(.:format)', 'books#index'],
    ]);
  });
});

describe('blocks', () => {
  test("resources(name, block) without options: the block routes come before the resource's own routes", () => {
    const routes = draw((r) => {
      r.resources('posts', (r) => {
        r.resources('comments', { only: 'index' });
      });
    });
    const list = rows(routes.list());
    assert.deepEqual(list[0], ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'comments#index']);
    assert.equal(list.length, 9);
    assert.deepEqual(list[1], ['posts', 'GET', '/posts(.:format)', 'posts#index']);
  });

  test('the block receives the mapper', () => {
    let inner: Mapper | undefined;
    let outer: Mapper | undefined;
    draw((r) => {
      outer = r;
      r.resources('posts', (m) => {
        inner = m;
      });
    });
    assert.ok(inner);
    assert.equal(inner, outer);
  });

  test('a plain get inside a plural resource block is nested under /posts/:post_id', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.get('plain');
      });
    });
    assert.deepEqual(rows(routes.list()), [['post_plain', 'GET', '/posts/:post_id/plain(.:format)', 'posts#plain']]);
  });

  test('a plain get inside a singular resource block is a member route of it', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: [] }, (r) => {
        r.get('avatar');
      });
    });
    assert.deepEqual(rows(routes.list()), [['avatar_profile', 'GET', '/profile/avatar(.:format)', 'profiles#avatar']]);
  });

  test('resource(name, block) nests resources under the singular path without an id', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: 'show' }, (r) => {
        r.resources('photos', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile_photos', 'GET', '/profile/photos(.:format)', 'photos#index'],
      ['profile_photo', 'GET', '/profile/photos/:id(.:format)', 'photos#show'],
      ['profile', 'GET', '/profile(.:format)', 'profiles#show'],
    ]);
  });
});

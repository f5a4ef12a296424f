// Options of resources/resource: only, except, pathNames, path, param, as, handler, module, format,
// constraints, defaults, concerns. Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('only / except', () => {
  test('only with a single action', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [['post', 'GET', '/posts/:id(.:format)', 'posts#show']]);
  });

  test('only with a list keeps Rails order regardless of the list order', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: ['show', 'index'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['posts', 'GET', '/posts(.:format)', 'posts#index'],
      ['post', 'GET', '/posts/:id(.:format)', 'posts#show'],
    ]);
  });

  test('only: [] generates no routes', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] });
    });
    assert.deepEqual(routes.list(), []);
  });

  test('except with a single action', () => {
    const routes = draw((r) => {
      r.resources('tags', { except: 'destroy' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['tags', 'GET', '/tags(.:format)', 'tags#index'],
      [null, 'POST', '/tags(.:format)', 'tags#create'],
      ['new_tag', 'GET', '/tags/new(.:format)', 'tags#new'],
      ['edit_tag', 'GET', '/tags/:id/edit(.:format)', 'tags#edit'],
      ['tag', 'GET', '/tags/:id(.:format)', 'tags#show'],
      [null, 'PATCH', '/tags/:id(.:format)', 'tags#update'],
      [null, 'PUT', '/tags/:id(.:format)', 'tags#update'],
    ]);
    assert.equal(routes.recognize('DELETE', '/tags/1'), null);
  });

  test('except with a list; a name moves to the first remaining route of its kind (create gets the collection name)', () => {
    const routes = draw((r) => {
      r.resources('cats', { except: ['index', 'new', 'edit', 'update'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['cats', 'POST', '/cats(.:format)', 'cats#create'],
      ['cat', 'GET', '/cats/:id(.:format)', 'cats#show'],
      [null, 'DELETE', '/cats/:id(.:format)', 'cats#destroy'],
    ]);
  });

  test('without show the PATCH update route carries the member name', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: ['create', 'update', 'destroy'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['posts', 'POST', '/posts(.:format)', 'posts#create'],
      ['post', 'PATCH', '/posts/:id(.:format)', 'posts#update'],
      [null, 'PUT', '/posts/:id(.:format)', 'posts#update'],
      [null, 'DELETE', '/posts/:id(.:format)', 'posts#destroy'],
    ]);
  });

  test('only: destroy alone is named after the member', () => {
    const routes = draw((r) => {
      r.resources('cats', { only: 'destroy' });
    });
    assert.deepEqual(rows(routes.list()), [['cat', 'DELETE', '/cats/:id(.:format)', 'cats#destroy']]);
  });

  test('singular resource: except list', () => {
    const routes = draw((r) => {
      r.resource('profile', { except: ['new', 'edit', 'create'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile', 'GET', '/profile(.:format)', 'profiles#show'],
      [null, 'PATCH', '/profile(.:format)', 'profiles#update'],
      [null, 'PUT', '/profile(.:format)', 'profiles#update'],
      [null, 'DELETE', '/profile(.:format)', 'profiles#destroy'],
    ]);
  });

  test('singular resource: only list', () => {
    const routes = draw((r) => {
      r.resource('account', { only: ['show', 'edit'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['edit_account', 'GET', '/account/edit(.:format)', 'accounts#edit'],
      ['account', 'GET', '/account(.:format)', 'accounts#show'],
    ]);
  });

  test('singular resource: only create and update, the name sits on PATCH update', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: ['create', 'update'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile', 'PATCH', '/profile(.:format)', 'profiles#update'],
      [null, 'PUT', '/profile(.:format)', 'profiles#update'],
      [null, 'POST', '/profile(.:format)', 'profiles#create'],
    ]);
  });
});

describe('pathNames', () => {
  test('renames the new and edit segments only; other actions keep their paths', () => {
    const routes = draw((r) => {
      r.resources('photos', {
        pathNames: { new: 'nuevo', edit: 'cambiar', show: 'ver', index: 'todos' },
        only: ['index', 'show', 'new', 'edit'],
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['photos', 'GET', '/photos(.:format)', 'photos#index'],
      ['new_photo', 'GET', '/photos/nuevo(.:format)', 'photos#new'],
      ['edit_photo', 'GET', '/photos/:id/cambiar(.:format)', 'photos#edit'],
      ['photo', 'GET', '/photos/:id(.:format)', 'photos#show'],
    ]);
    assert.equal(routes.recognize('GET', '/photos/nuevo')?.action, 'new');
    assert.equal(routes.recognize('GET', '/photos/3/cambiar')?.action, 'edit');
    assert.equal(routes.recognize('GET', '/photos/3/edit'), null);
  });

  test('an action not listed keeps its segment', () => {
    const routes = draw((r) => {
      r.resource('profile', { pathNames: { edit: 'change' }, only: ['new', 'edit'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_profile', 'GET', '/profile/new(.:format)', 'profiles#new'],
      ['edit_profile', 'GET', '/profile/change(.:format)', 'profiles#edit'],
    ]);
  });

  test('path names apply to resources nested inside', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [], pathNames: { new: 'neu' } }, (r) => {
        r.resources('comments', { only: 'new' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_post_comment', 'GET', '/posts/:post_id/comments/neu(.:format)', 'comments#new'],
    ]);
  });
});

describe('path', () => {
  test('replaces the path prefix of the resource and all its segments; names and handler stay', () => {
    const routes = draw((r) => {
      r.resources('pics', { path: 'images', only: ['index', 'new', 'edit'] }, (r) => {
        r.resources('notes', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['pic_notes', 'GET', '/images/:pic_id/notes(.:format)', 'notes#index'],
      ['pics', 'GET', '/images(.:format)', 'pics#index'],
      ['new_pic', 'GET', '/images/new(.:format)', 'pics#new'],
      ['edit_pic', 'GET', '/images/:id/edit(.:format)', 'pics#edit'],
    ]);
    assert.equal(routes.recognize('GET', '/pics/new'), null);
    assert.equal(routes.recognize('GET', '/images/new')?.handler, 'pics');
  });

  test('path on a singular resource', () => {
    const routes = draw((r) => {
      r.resource('session', { path: 'login', only: ['show', 'new'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_session', 'GET', '/login/new(.:format)', 'sessions#new'],
      ['session', 'GET', '/login(.:format)', 'sessions#show'],
    ]);
  });
});

describe('param', () => {
  test('renames the id segment, and the parent id of nested resources to <singular>_<param>', () => {
    const routes = draw((r) => {
      r.resources('articles', { param: 'slug', only: ['show', 'edit'] }, (r) => {
        r.resources('comments', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_slug/comments(.:format)', 'comments#index'],
      ['edit_article', 'GET', '/articles/:slug/edit(.:format)', 'articles#edit'],
      ['article', 'GET', '/articles/:slug(.:format)', 'articles#show'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/articles/hello')?.params, { slug: 'hello' });
    assert.deepEqual(routes.recognize('GET', '/articles/hello/comments')?.params, { article_slug: 'hello' });
  });
});

describe('as', () => {
  test('renames the route names, not the path or handler', () => {
    const routes = draw((r) => {
      r.resources('things', { as: 'items', only: ['index', 'new', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['items', 'GET', '/things(.:format)', 'things#index'],
      ['new_item', 'GET', '/things/new(.:format)', 'things#new'],
      ['item', 'GET', '/things/:id(.:format)', 'things#show'],
    ]);
  });

  test('as also renames the parent id of nested resources (<singular of as>_id)', () => {
    const routes = draw((r) => {
      r.resources('items', { as: 'goods', only: [] }, (r) => {
        r.resources('parts', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['good_parts', 'GET', '/items/:good_id/parts(.:format)', 'parts#index']]);
  });

  test('as, path and module together', () => {
    const routes = draw((r) => {
      r.resources('users', { module: 'adm', path: 'people', as: 'members', only: ['index', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['members', 'GET', '/people(.:format)', 'adm/users#index'],
      ['member', 'GET', '/people/:id(.:format)', 'adm/users#show'],
    ]);
  });

  test('on a singular resource', () => {
    const routes = draw((r) => {
      r.resource('session', { as: 'login', only: ['show', 'new'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_login', 'GET', '/session/new(.:format)', 'sessions#new'],
      ['login', 'GET', '/session(.:format)', 'sessions#show'],
    ]);
  });
});

describe('handler', () => {
  test('replaces the handler; paths and names stay', () => {
    const routes = draw((r) => {
      r.resources('photos', { handler: 'images', only: ['index', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['photos', 'GET', '/photos(.:format)', 'images#index'],
      ['photo', 'GET', '/photos/:id(.:format)', 'images#show'],
    ]);
    assert.equal(routes.recognize('GET', '/photos/1')?.handler, 'images');
  });

  test('on a singular resource replaces the pluralized handler', () => {
    const routes = draw((r) => {
      r.resource('session', { handler: 'auth', only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [['session', 'GET', '/session(.:format)', 'auth#show']]);
  });
});

describe('module', () => {
  test('prefixes the handler namespace only', () => {
    const routes = draw((r) => {
      r.resources('items', { module: 'admin', only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [['item', 'GET', '/items/:id(.:format)', 'admin/items#show']]);
  });

  test('applies to nested resources too', () => {
    const routes = draw((r) => {
      r.resources('posts', { module: 'blog', only: 'index' }, (r) => {
        r.resources('comments', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'blog/comments#index'],
      ['posts', 'GET', '/posts(.:format)', 'blog/posts#index'],
    ]);
  });
});

describe('format', () => {
  test('text: the default value of the format segment', () => {
    const routes = draw((r) => {
      r.resources('docs', { format: 'json', only: 'show' });
    });
    const [route] = routes.list();
    assert.equal(route!.path, '/docs/:id(.:format)');
    assert.equal(route!.defaults.format, 'json');
    assert.equal(route!.constraints.format, 'json');
    assert.deepEqual(routes.recognize('GET', '/docs/1')?.params, { id: '1', format: 'json' });
    assert.deepEqual(routes.recognize('GET', '/docs/1.json')?.params, { id: '1', format: 'json' });
    // Rails: the text also becomes the format requirement
    assert.equal(routes.recognize('GET', '/docs/1.xml'), null);
  });

  test('false: no format segment', () => {
    const routes = draw((r) => {
      r.resources('docs', { format: false, only: ['index', 'show'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['docs', 'GET', '/docs', 'docs#index'],
      ['doc', 'GET', '/docs/:id', 'docs#show'],
    ]);
    assert.equal(routes.recognize('GET', '/docs.json'), null);
    assert.equal(routes.recognize('GET', '/docs/1.json'), null);
    assert.deepEqual(routes.recognize('GET', '/docs/1')?.params, { id: '1' });
  });

  test('default: an optional (.:format) segment', () => {
    const routes = draw((r) => {
      r.resources('docs', { only: 'show' });
    });
    assert.deepEqual(routes.recognize('GET', '/docs/1.xml')?.params, { id: '1', format: 'xml' });
    assert.deepEqual(routes.recognize('GET', '/docs/1')?.params, { id: '1' });
  });
});

describe('options on a singular resource', () => {
  test('format: false, module and defaults', () => {
    const routes = draw((r) => {
      r.resource('account', { format: false, only: 'show' });
      r.resource('dashboard', { module: 'adm', defaults: { x: '1' }, only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['account', 'GET', '/account', 'accounts#show'],
      ['dashboard', 'GET', '/dashboard(.:format)', 'adm/dashboards#show'],
    ]);
    assert.deepEqual(routes.list()[1]!.defaults, { x: '1' });
    assert.deepEqual(routes.recognize('GET', '/dashboard')?.params, { x: '1' });
    assert.equal(routes.recognize('GET', '/account.json'), null);
  });
});

describe('constraints', () => {
  test('a constraint on id restricts recognition and is reported as a RegExp source', () => {
    const routes = draw((r) => {
      r.resources('nums', { constraints: { id: /\d+/ }, only: 'show' });
    });
    const [route] = routes.list();
    assert.equal(route!.constraints.id, /\d+/.source);
    assert.deepEqual(routes.recognize('GET', '/nums/12')?.params, { id: '12' });
    assert.equal(routes.recognize('GET', '/nums/ab'), null);
  });

  test('a constraint on id also applies to the renamed parent id of nested resources', () => {
    const routes = draw((r) => {
      r.resources('files', { constraints: { id: /[^\/]+/ }, only: 'show' }, (r) => {
        r.resources('parts', { only: 'index' });
      });
    });
    const [nested, own] = routes.list();
    assert.equal(nested!.path, '/files/:file_id/parts(.:format)');
    assert.equal(nested!.constraints.file_id, /[^\/]+/.source);
    assert.equal(own!.constraints.id, /[^\/]+/.source);
    assert.deepEqual(routes.recognize('GET', '/files/a.b/parts')?.params, { file_id: 'a.b' });
    assert.deepEqual(routes.recognize('GET', '/files/a.b')?.params, { id: 'a.b' });
  });
});

describe('defaults', () => {
  test('declared defaults are listed on the route and added to the params', () => {
    const routes = draw((r) => {
      r.resources('items', { defaults: { locale: 'en' }, only: 'index' });
    });
    const [route] = routes.list();
    assert.deepEqual(route!.defaults, { locale: 'en' });
    const m = routes.recognize('GET', '/items');
    assert.ok(m);
    assert.deepEqual(m.params, { locale: 'en' });
  });
});

describe('concerns option', () => {
  test('a single concern name applies the concern inside the resource', () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.resources('messages', { only: [], concerns: 'commentable' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['message_comments', 'GET', '/messages/:message_id/comments(.:format)', 'comments#index'],
    ]);
  });

  test("a list of concerns, applied after the block and before the resource's own routes", () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.concern('taggable', (r) => {
        r.resources('tags', { only: 'index' });
      });
      r.resources('notes', { only: 'index', concerns: ['commentable', 'taggable'] }, (r) => {
        r.get('recent', { on: 'collection' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['recent_notes', 'GET', '/notes/recent(.:format)', 'notes#recent'],
      ['note_comments', 'GET', '/notes/:note_id/comments(.:format)', 'comments#index'],
      ['note_tags', 'GET', '/notes/:note_id/tags(.:format)', 'tags#index'],
      ['notes', 'GET', '/notes(.:format)', 'notes#index'],
    ]);
  });

  test('on a singular resource the concern routes sit under its path', () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.resource('profile', { only: [], concerns: 'commentable' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile_comments', 'GET', '/profile/comments(.:format)', 'comments#index'],
    ]);
  });
});

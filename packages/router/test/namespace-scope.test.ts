// namespace, scope, concern/concerns, resourcesPathNames, constraints and defaults blocks.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('namespace', () => {
  test('adds the path, the handler module and the name prefix', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.resources('users', { only: ['index', 'show'] });
        r.get('dash', { to: 'dash#index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['admin_users', 'GET', '/admin/users(.:format)', 'admin/users#index'],
      ['admin_user', 'GET', '/admin/users/:id(.:format)', 'admin/users#show'],
      ['admin_dash', 'GET', '/admin/dash(.:format)', 'admin/dash#index'],
    ]);
    const m = routes.recognize('GET', '/admin/users/4');
    assert.ok(m);
    assert.equal(m.handler, 'admin/users');
    assert.deepEqual(m.params, { id: '4' });
    assert.equal(routes.helpers.adminUserPath!(4), '/admin/users/4');
  });

  test('namespaces nest', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.namespace('deep', (r) => {
          r.resources('keys', { only: 'index' });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['admin_deep_keys', 'GET', '/admin/deep/keys(.:format)', 'admin/deep/keys#index'],
    ]);
  });

  test('path, as and module options override the namespace name', () => {
    const routes = draw((r) => {
      r.namespace('api', { path: 'v2', as: 'apiv', module: 'x' }, (r) => {
        r.resources('things', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['apiv_things', 'GET', '/v2/things(.:format)', 'x/things#index']]);
  });

  test('the namespace does not leak into later declarations', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.resources('users', { only: 'index' });
      });
      r.resources('users', { only: 'show' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['admin_users', 'GET', '/admin/users(.:format)', 'admin/users#index'],
      ['user', 'GET', '/users/:id(.:format)', 'users#show'],
    ]);
  });

  test('inside a resource scope a namespace behaves as nested (under /<resources>/:<resource>_id)', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.namespace('extra', (r) => {
          r.get('info');
          r.resources('notes', { only: 'index' });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_extra_info', 'GET', '/posts/:post_id/extra/info(.:format)', 'extra/posts#info'],
      ['post_extra_notes', 'GET', '/posts/:post_id/extra/notes(.:format)', 'extra/notes#index'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/posts/5/extra/notes')?.params, { post_id: '5' });
  });
});

describe('scope', () => {
  test('a path only: prefixes paths, not names or handlers', () => {
    const routes = draw((r) => {
      r.scope('blog', (r) => {
        r.resources('entries', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['entries', 'GET', '/blog/entries(.:format)', 'entries#index']]);
  });

  test('a path with a leading slash', () => {
    const routes = draw((r) => {
      r.scope('/blog', (r) => {
        r.resources('entries', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['entries', 'GET', '/blog/entries(.:format)', 'entries#index']]);
  });

  test('module only: prefixes handlers, not paths or names', () => {
    const routes = draw((r) => {
      r.scope({ module: 'shop' }, (r) => {
        r.resources('carts', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['carts', 'GET', '/carts(.:format)', 'shop/carts#index']]);
  });

  test('as only: prefixes names, not paths or handlers', () => {
    const routes = draw((r) => {
      r.scope({ as: 'mine' }, (r) => {
        r.resources('cats', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['mine_cats', 'GET', '/cats(.:format)', 'cats#index']]);
  });

  test('path, module and as together', () => {
    const routes = draw((r) => {
      r.scope({ path: 'p', module: 'm', as: 'a' }, (r) => {
        r.resources('dogs', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['a_dogs', 'GET', '/p/dogs(.:format)', 'm/dogs#index']]);
  });

  test('scope(path, options, block)', () => {
    const routes = draw((r) => {
      r.scope('adm', { module: 'admin' }, (r) => {
        r.get('x', { to: 'y#z' });
      });
      r.scope('blog3', { as: 'b3' }, (r) => {
        r.get('feed', { to: 'f#f' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['x', 'GET', '/adm/x(.:format)', 'admin/y#z'],
      ['b3_feed', 'GET', '/blog3/feed(.:format)', 'f#f'],
    ]);
  });

  test('a dynamic segment in the scope path with a constraint', () => {
    const routes = draw((r) => {
      r.scope(':locale', { constraints: { locale: /en|fr/ } }, (r) => {
        r.resources('langs', { only: 'index' });
      });
    });
    const [route] = routes.list();
    assert.equal(route!.path, '/:locale/langs(.:format)');
    assert.equal(route!.constraints.locale, /en|fr/.source);
    assert.deepEqual(routes.recognize('GET', '/en/langs')?.params, { locale: 'en' });
    assert.equal(routes.recognize('GET', '/de/langs'), null);
  });

  test('a handler scope gives match its handler, the action from the option', () => {
    const routes = draw((r) => {
      r.scope({ handler: 'pages' }, (r) => {
        r.get('about', { action: 'about' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['about', 'GET', '/about(.:format)', 'pages#about']]);
  });

  test('a scope is restored after its block', () => {
    const routes = draw((r) => {
      r.scope({ path: 'p', module: 'm', as: 'a' }, (r) => {
        r.resources('dogs', { only: 'index' });
      });
      r.resources('cats', { only: 'index' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['a_dogs', 'GET', '/p/dogs(.:format)', 'm/dogs#index'],
      ['cats', 'GET', '/cats(.:format)', 'cats#index'],
    ]);
  });
});

describe('concern / concerns', () => {
  test('concerns(name) inside a resource applies the concern there', () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.resources('messages', { only: [] }, (r) => {
        r.concerns('commentable');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['message_comments', 'GET', '/messages/:message_id/comments(.:format)', 'comments#index'],
    ]);
  });

  test('concerns with a list of names', () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.concern('taggable', (r) => {
        r.resources('tags', { only: 'index' });
      });
      r.resources('notes', { only: [] }, (r) => {
        r.concerns(['commentable', 'taggable']);
      });
    });
    assert.deepEqual(
      routes.list().map((x) => x.name),
      ['note_comments', 'note_tags'],
    );
  });

  test('a concern declared once is reusable in several resources', () => {
    const routes = draw((r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.resources('articles', { only: [], concerns: 'commentable' });
      r.resources('photos', { only: [], concerns: 'commentable' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['photo_comments', 'GET', '/photos/:photo_id/comments(.:format)', 'comments#index'],
    ]);
  });

  test('the options given to concerns are passed to the concern block', () => {
    const received: unknown[] = [];
    const routes = draw((r) => {
      r.concern('pageable', (r, opts) => {
        received.push(opts);
        r.get('page', opts as never);
      });
      r.resources('calendars', { only: [] }, (r) => {
        r.concerns('pageable', { on: 'collection' });
      });
    });
    assert.deepEqual(received, [{ on: 'collection' }]);
    assert.deepEqual(rows(routes.list()), [['page_calendars', 'GET', '/calendars/page(.:format)', 'calendars#page']]);
  });

  test('without options the concern routes nest like any route in the resource block', () => {
    const routes = draw((r) => {
      r.concern('pageable', (r, opts) => {
        r.get('page', opts as never);
      });
      r.resources('calendars', { only: [] }, (r) => {
        r.concerns('pageable');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['calendar_page', 'GET', '/calendars/:calendar_id/page(.:format)', 'calendars#page'],
    ]);
  });

  test('a concern at the top level declares its routes there', () => {
    const routes = draw((r) => {
      r.concern('searchable', (r) => {
        r.get('search', { to: 'search#index' });
      });
      r.concerns('searchable');
    });
    assert.deepEqual(rows(routes.list()), [['search', 'GET', '/search(.:format)', 'search#index']]);
  });
});

describe('resourcesPathNames', () => {
  test('merges into the path names of the current scope for later resources', () => {
    const routes = draw((r) => {
      r.resourcesPathNames({ new: 'nuevo', edit: 'editar' });
      r.resources('pages', { only: ['new', 'edit'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_page', 'GET', '/pages/nuevo(.:format)', 'pages#new'],
      ['edit_page', 'GET', '/pages/:id/editar(.:format)', 'pages#edit'],
    ]);
  });

  test('merges: a name not given keeps its earlier value', () => {
    const routes = draw((r) => {
      r.resourcesPathNames({ new: 'nuevo' });
      r.resource('profile', { only: ['new', 'edit'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['new_profile', 'GET', '/profile/nuevo(.:format)', 'profiles#new'],
      ['edit_profile', 'GET', '/profile/edit(.:format)', 'profiles#edit'],
    ]);
  });

  test('returns the mapper', () => {
    let same = false;
    draw((r) => {
      same = r.resourcesPathNames({ new: 'n' }) === r;
    });
    assert.equal(same, true);
  });
});

describe('constraints and defaults blocks', () => {
  test('constraints block applies segment constraints to the routes inside', () => {
    const routes = draw((r) => {
      r.constraints({ id: /\d+/ }, (r) => {
        r.resources('nums', { only: 'show' });
      });
      r.resources('words', { only: 'show' });
    });
    const [nums, words] = routes.list();
    assert.equal(nums!.constraints.id, /\d+/.source);
    assert.equal(words!.constraints.id, undefined);
    assert.deepEqual(routes.recognize('GET', '/nums/12')?.params, { id: '12' });
    assert.equal(routes.recognize('GET', '/nums/ab'), null);
    assert.deepEqual(routes.recognize('GET', '/words/ab')?.params, { id: 'ab' });
  });

  test('defaults block adds defaults to the routes inside', () => {
    const routes = draw((r) => {
      r.defaults({ format: 'json' }, (r) => {
        r.resources('jsons', { only: 'show' });
      });
      r.defaults({ locale: 'en' }, (r) => {
        r.get('hello', { to: 'h#h' });
      });
      r.get('bye', { to: 'h#b' });
    });
    const [jsons, hello, bye] = routes.list();
    assert.deepEqual(jsons!.defaults, { format: 'json' });
    assert.deepEqual(hello!.defaults, { locale: 'en' });
    assert.deepEqual(bye!.defaults, {});
    assert.deepEqual(routes.recognize('GET', '/jsons/1')?.params, { id: '1', format: 'json' });
    assert.deepEqual(routes.recognize('GET', '/hello')?.params, { locale: 'en' });
    assert.deepEqual(routes.recognize('GET', '/bye')?.params, {});
  });
});

// root: text -> to, lone map -> options, anything else throws; inside resources under the parent's path.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw, ArgumentError } from '../src/index.js';
import type { Mapper, RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);
const MESSAGE = 'must be called with a path and/or options';
const rootAny = (r: Mapper, ...args: unknown[]): unknown => (r.root as (...a: unknown[]) => unknown).apply(r, args);

describe('root', () => {
  test('a text argument is used as to: GET / named root, without a format segment', () => {
    const routes = draw((r) => {
      r.root('pages#home');
    });
    assert.deepEqual(rows(routes.list()), [['root', 'GET', '/', 'pages#home']]);
    const m = routes.recognize('GET', '/');
    assert.ok(m);
    assert.equal(m.handler, 'pages');
    assert.equal(m.action, 'home');
    assert.deepEqual(m.params, {});
    assert.equal(routes.recognize('POST', '/'), null);
    assert.equal(routes.path('root'), '/');
    assert.equal(routes.helpers.rootPath!(), '/');
    assert.equal(routes.helpers.rootUrl!({ host: 'h.io' }), 'http://h.io/');
  });

  test('a lone map argument is used as the options', () => {
    const routes = draw((r) => {
      r.root({ to: 'pages#home' });
    });
    assert.deepEqual(rows(routes.list()), [['root', 'GET', '/', 'pages#home']]);
  });

  test('a lone map may carry as', () => {
    const routes = draw((r) => {
      r.scope('blog', (r) => {
        r.root({ to: 'blog#home', as: 'blog_root' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['blog_root', 'GET', '/blog(.:format)', 'blog#home']]);
  });

  test('text plus options is allowed', () => {
    const routes = draw((r) => {
      r.root('pages#home', { as: 'home' });
    });
    assert.deepEqual(rows(routes.list()), [['home', 'GET', '/', 'pages#home']]);
  });

  test('a map followed by options throws ArgumentError', () => {
    assert.throws(
      () =>
        draw((r) => {
          rootAny(r, { to: 'x#y' }, { as: 'z' });
        }),
      (e: unknown) => e instanceof ArgumentError && (e as Error).message === MESSAGE,
    );
  });

  test('a number throws ArgumentError', () => {
    assert.throws(
      () =>
        draw((r) => {
          rootAny(r, 5);
        }),
      (e: unknown) =>
        e instanceof ArgumentError && (e as Error).message === MESSAGE && (e as Error).name === 'ArgumentError',
    );
  });

  test('no argument throws ArgumentError', () => {
    assert.throws(
      () =>
        draw((r) => {
          rootAny(r);
        }),
      (e: unknown) => e instanceof ArgumentError && (e as Error).message === MESSAGE,
    );
  });

  test('null throws ArgumentError', () => {
    assert.throws(
      () =>
        draw((r) => {
          rootAny(r, null);
        }),
      (e: unknown) => e instanceof ArgumentError && (e as Error).message === MESSAGE,
    );
  });

  test('inside resources the root is placed under the parent resource path and named <resources>_root', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.root('posts#idx');
      });
      r.resources('users', { only: [] }, (r) => {
        r.root({ to: 'users#r' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['posts_root', 'GET', '/posts(.:format)', 'posts#idx'],
      ['users_root', 'GET', '/users(.:format)', 'users#r'],
    ]);
    assert.equal(routes.recognize('GET', '/posts')?.action, 'idx');
  });

  test('inside a nested resources the root sits under the parent path with its parent id', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: [] }, (r) => {
          r.root('comments#home');
        });
      });
    });
    const [route] = routes.list();
    assert.equal(route!.path, '/posts/:post_id/comments(.:format)');
    assert.equal(route!.handler, 'comments');
    assert.equal(route!.action, 'home');
    assert.deepEqual(routes.recognize('GET', '/posts/3/comments')?.params, { post_id: '3' });
  });

  test('inside a singular resource the root is a member route of it (Rails: root_account)', () => {
    const routes = draw((r) => {
      r.resource('account', { only: [] }, (r) => {
        r.root('acc#r');
      });
    });
    assert.deepEqual(rows(routes.list()), [['root_account', 'GET', '/account(.:format)', 'acc#r']]);
  });

  test('inside a member block the root sits on the member path', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.root('posts#r');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [['root_post', 'GET', '/posts/:id(.:format)', 'posts#r']]);
  });

  test('inside a namespace the root is the namespace path', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.root({ to: 'dash#index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['admin_root', 'GET', '/admin(.:format)', 'admin/dash#index']]);
    assert.equal(routes.recognize('GET', '/admin')?.handler, 'admin/dash');
  });

  test('returns the mapper', () => {
    let same = false;
    draw((r) => {
      same = r.root('pages#home') === r;
    });
    assert.equal(same, true);
  });
});

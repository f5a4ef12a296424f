// The mapper's scope level (and the scope it applies) is restored after a block, also when the block throws.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw, ArgumentError } from '../src/index.js';
import * as router from '../src/index.js';
import type { Mapper, RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);
const isOutside = (what: string) => (e: unknown) =>
  e instanceof ArgumentError && (e as Error).message === `can't use ${what} outside resource(s) scope`;

class Boom extends Error {}

describe('scope levels restored after a block', () => {
  test('after a resources block the top level is back: collection throws again', () => {
    draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.collection((r) => {
          r.get('search');
        });
      });
      assert.throws(() => r.collection(() => {}), isOutside('collection'));
    });
  });

  test('after a collection block the level is resources again: member and collection work', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.collection((r) => {
          r.get('inner');
        });
        r.member((r) => {
          r.get('ok');
        });
        r.collection((r) => {
          r.get('again');
        });
        r.get('after');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['inner_users', 'GET', '/users/inner(.:format)', 'users#inner'],
      ['ok_user', 'GET', '/users/:id/ok(.:format)', 'users#ok'],
      ['again_users', 'GET', '/users/again(.:format)', 'users#again'],
      ['user_after', 'GET', '/users/:user_id/after(.:format)', 'users#after'],
    ]);
  });

  test('inside a collection block the level is collection, so member is refused there', () => {
    draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.collection((r) => {
          assert.throws(() => r.member(() => {}), isOutside('member'));
          assert.throws(() => r.collection(() => {}), isOutside('collection'));
        });
      });
    });
  });

  test('inside a member block: new and nested are refused', () => {
    draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.member((r) => {
          assert.throws(() => r.new(() => {}), isOutside('new'));
          assert.throws(() => r.nested(() => {}), isOutside('nested'));
        });
        r.new(() => {}); // allowed again after the member block
      });
    });
  });

  test('a nested resources block restores the parent resource', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: [] }, (r) => {
          r.get('x', { on: 'member' });
        });
        r.get('y', { on: 'member' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['x_post_comment', 'GET', '/posts/:post_id/comments/:id/x(.:format)', 'comments#x'],
      ['y_post', 'GET', '/posts/:id/y(.:format)', 'posts#y'],
    ]);
  });

  test('a singular resource block restores the plural parent level', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.resource('avatar', { only: [] }, (r) => {
          r.get('crop');
        });
        r.get('z');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['crop_user_avatar', 'GET', '/users/:user_id/avatar/crop(.:format)', 'avatars#crop'],
      ['user_z', 'GET', '/users/:user_id/z(.:format)', 'users#z'],
    ]);
  });
});

describe('scope levels restored when the block throws', () => {
  test('a throw inside resources: a later declaration is at the top level again', () => {
    const routes = draw((r) => {
      assert.throws(
        () =>
          r.resources('posts', { only: [] }, () => {
            throw new Boom('x');
          }),
        Boom,
      );
      r.resources('tags', { only: 'index' });
      assert.throws(() => r.collection(() => {}), isOutside('collection'));
    });
    assert.deepEqual(rows(routes.list()), [['tags', 'GET', '/tags(.:format)', 'tags#index']]);
  });

  test('a throw inside collection: the level is resources again', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        assert.throws(
          () =>
            r.collection(() => {
              throw new Boom('y');
            }),
          Boom,
        );
        r.member((r) => {
          r.get('ok');
        });
        r.get('after');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['ok_user', 'GET', '/users/:id/ok(.:format)', 'users#ok'],
      ['user_after', 'GET', '/users/:user_id/after(.:format)', 'users#after'],
    ]);
  });

  test('an ArgumentError from a nested block leaves the outer block usable', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        assert.throws(
          () =>
            r.collection((r) => {
              r.get('inner');
              r.member(() => {});
            }),
          isOutside('member'),
        );
        r.get('after');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['inner_users', 'GET', '/users/inner(.:format)', 'users#inner'],
      ['user_after', 'GET', '/users/:user_id/after(.:format)', 'users#after'],
    ]);
  });

  test('a throw inside member, new and nested blocks', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        assert.throws(
          () =>
            r.member(() => {
              throw new Boom();
            }),
          Boom,
        );
        assert.throws(
          () =>
            r.new(() => {
              throw new Boom();
            }),
          Boom,
        );
        assert.throws(
          () =>
            r.nested(() => {
              throw new Boom();
            }),
          Boom,
        );
        r.get('ok', { on: 'member' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['ok_user', 'GET', '/users/:id/ok(.:format)', 'users#ok']]);
  });

  test('a throw inside a namespace: path, module and name prefix are restored', () => {
    const routes = draw((r) => {
      assert.throws(
        () =>
          r.namespace('admin', () => {
            throw new Boom('z');
          }),
        Boom,
      );
      r.get('plain', { to: 'p#p' });
    });
    assert.deepEqual(rows(routes.list()), [['plain', 'GET', '/plain(.:format)', 'p#p']]);
  });

  test('a throw inside a scope with path, module and as', () => {
    const routes = draw((r) => {
      assert.throws(
        () =>
          r.scope({ module: 'm', path: 'pp', as: 'aa' }, () => {
            throw new Boom();
          }),
        Boom,
      );
      r.resources('cats', { only: 'index' });
    });
    assert.deepEqual(rows(routes.list()), [['cats', 'GET', '/cats(.:format)', 'cats#index']]);
  });

  test('a throw inside shallow: shallow is not left on', () => {
    const routes = draw((r) => {
      assert.throws(
        () =>
          r.shallow(() => {
            throw new Boom();
          }),
        Boom,
      );
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: 'show' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_comment', 'GET', '/posts/:post_id/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('a throw inside a nested resource inside a resource: the outer resource continues normally', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: 'index' }, (r) => {
        assert.throws(
          () =>
            r.resources('comments', { only: [] }, () => {
              throw new Boom();
            }),
          Boom,
        );
        r.resources('likes', { only: 'index' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_likes', 'GET', '/posts/:post_id/likes(.:format)', 'likes#index'],
      ['posts', 'GET', '/posts(.:format)', 'posts#index'],
    ]);
  });

  test('a throw inside constraints and defaults blocks does not leave them applied', () => {
    const routes = draw((r) => {
      assert.throws(
        () =>
          r.constraints({ id: /\d+/ }, () => {
            throw new Boom();
          }),
        Boom,
      );
      assert.throws(
        () =>
          r.defaults({ locale: 'en' }, () => {
            throw new Boom();
          }),
        Boom,
      );
      r.resources('words', { only: 'show' });
    });
    const [route] = routes.list();
    assert.equal(route!.constraints.id, undefined);
    assert.deepEqual(route!.defaults, {});
    assert.deepEqual(routes.recognize('GET', '/words/ab')?.params, { id: 'ab' });
  });

  test('a throw escaping draw propagates unchanged', () => {
    const err = new Boom('out');
    assert.throws(
      () =>
        draw((r) => {
          r.resources('posts', () => {
            throw err;
          });
        }),
      (e: unknown) => e === err,
    );
  });
});

describe('constants', () => {
  const exported = router as unknown as Record<string, unknown>;

  test('CANONICAL_ACTIONS, RESOURCE_METHOD_SCOPES, RESOURCE_OPTIONS, RESOURCE_SCOPES and VALID_ON_OPTIONS exist', () => {
    for (const name of [
      'CANONICAL_ACTIONS',
      'RESOURCE_METHOD_SCOPES',
      'RESOURCE_OPTIONS',
      'RESOURCE_SCOPES',
      'VALID_ON_OPTIONS',
    ]) {
      assert.ok(name in exported, name);
      assert.ok(Array.isArray(exported[name]) || exported[name] instanceof Set, `${name} is a list`);
    }
  });

  test('CANONICAL_ACTIONS holds index, create, new, show, update and destroy (not edit)', () => {
    const list = [...(exported.CANONICAL_ACTIONS as Iterable<string>)].map(String).sort();
    assert.deepEqual(list, ['create', 'destroy', 'index', 'new', 'show', 'update']);
  });

  test('VALID_ON_OPTIONS are the scope levels new, collection and member', () => {
    const list = [...(exported.VALID_ON_OPTIONS as Iterable<string>)].map(String).sort();
    assert.deepEqual(list, ['collection', 'member', 'new']);
  });

  test('RESOURCE_SCOPES are resource and resources; RESOURCE_METHOD_SCOPES are collection, member and new', () => {
    assert.deepEqual([...(exported.RESOURCE_SCOPES as Iterable<string>)].map(String).sort(), ['resource', 'resources']);
    assert.deepEqual([...(exported.RESOURCE_METHOD_SCOPES as Iterable<string>)].map(String).sort(), [
      'collection',
      'member',
      'new',
    ]);
  });
});

describe("exclusive scope (withExclusiveScope, Rails' with_exclusive_scope)", () => {
  type Exclusive = (block: (r: Mapper) => void) => unknown;
  const exclusiveOf = (r: Mapper): Exclusive => {
    const fn = (r as unknown as { withExclusiveScope?: Exclusive }).withExclusiveScope;
    assert.equal(typeof fn, 'function', 'the mapper has withExclusiveScope');
    return (fn as Exclusive).bind(r);
  };

  test('clears the name prefix and path for the block and restores them afterwards', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        exclusiveOf(r)((r) => {
          r.get('y', { to: 'c#d' });
          r.resources('keys', { only: 'index' });
        });
        r.get('z', { to: 'e#f' });
      });
    });
    const list = routes.list().map((x) => [x.name, x.path]);
    assert.deepEqual(list, [
      ['y', '/y(.:format)'],
      ['keys', '/keys(.:format)'],
      ['admin_z', '/admin/z(.:format)'],
    ]);
  });

  test('restores the name prefix and path when the block throws', () => {
    const routes = draw((r) => {
      r.scope({ path: 'p', as: 'a' }, (r) => {
        assert.throws(
          () =>
            exclusiveOf(r)(() => {
              throw new Boom();
            }),
          Boom,
        );
        r.get('z', { to: 'e#f' });
      });
    });
    assert.deepEqual(
      routes.list().map((x) => [x.name, x.path]),
      [['a_z', '/p/z(.:format)']],
    );
  });
});

// Mistakes Rails would accept silently (or that would fail only at request time), refused when
// the routes are drawn, each error naming the route or declaration it is in (issue 27).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ArgumentError, draw } from '../src/index.js';

/** The mapper as a JavaScript caller sees it: options of any shape (the types refuse some of these). */
type Options = Record<string, unknown>;
type LooseBlock = (r: Loose) => unknown;
interface Loose {
  resources(name: string, options?: Options | LooseBlock, block?: LooseBlock): Loose;
  resource(name: string, options?: Options | LooseBlock, block?: LooseBlock): Loose;
  scope(options: Options, block: LooseBlock): Loose;
  namespace(name: string, options: Options, block: LooseBlock): Loose;
  constraints(constraints: Options, block: LooseBlock): Loose;
  get(path: string, options?: Options): Loose;
  match(path: string, options?: Options): Loose;
}

function drawUntyped(block: (r: Loose) => void) {
  return draw((r) => {
    block(r as unknown as Loose);
  });
}

function refused(block: (r: Loose) => void, ...parts: (string | RegExp)[]): void {
  assert.throws(
    () => drawUntyped(block),
    (e: unknown) => {
      assert.ok(e instanceof ArgumentError, String(e));
      for (const part of parts) {
        if (typeof part === 'string') assert.ok(e.message.includes(part), `${e.message} should say ${part}`);
        else assert.match(e.message, part);
      }
      return true;
    },
  );
}

describe('unknown options', () => {
  test('a misspelt option names the option, the one meant and the route', () => {
    refused((r) => r.resources('posts', { onyl: ['index'] }), "'onyl'", "'only'", 'route "posts"');
    refused(
      (r) => r.resources('posts', { shalow: true }, (r) => r.resources('comments')),
      "'shalow'",
      "'shallow'",
      'post_comments',
    );
    refused((r) => r.get('about', { to: 'pages#about', acnhor: false }), "'acnhor'", "'anchor'");
    refused((r) => r.scope({ moduel: 'api' }, (r) => r.resources('keys')), "'moduel'", "'module'");
  });

  test("Rails' snake_case spellings name the camelCase option", () => {
    refused((r) => r.resources('posts', { path_names: { new: 'nuevo' } }), "'path_names'", "'pathNames'");
    refused((r) => r.namespace('admin', { shallow_path: 'x' }, (r) => r.resources('posts')), "'shallowPath'");
  });

  test('other extra keys stay defaults and segment constraints, as in Rails', () => {
    const routes = drawUntyped((r) => {
      r.get('photos', { to: 'photos#index', page: 1, path2: 'x' });
      r.get('photos/:id', { to: 'photos#show', id: /\d+/ });
    });
    assert.deepEqual(routes.list()[0]!.defaults, { page: 1, path2: 'x' });
    assert.deepEqual(routes.list()[1]!.constraints, { id: '\\d+' });
  });
});

describe('only / except', () => {
  test('an action the resource does not have is refused, naming the resource', () => {
    refused((r) => r.resources('posts', { only: ['indx'] }), "'indx'", 'only', 'resources "posts"', "'index'");
    refused((r) => r.resources('posts', { except: 'destory' }), "'destory'", 'except', "'destroy'");
    refused((r) => r.resource('profile', { only: ['index'] }), "'index'", 'resource "profile"');
    refused((r) => r.scope({ only: ['shwo'] }, (r) => r.resources('posts')), "'shwo'");
  });

  test('every canonical action (and an empty list) is accepted', () => {
    const routes = drawUntyped((r) => {
      r.resources('posts', { only: ['index', 'show', 'new', 'create', 'edit', 'update', 'destroy'] });
      r.resource('profile', { except: ['new', 'create', 'edit', 'update', 'destroy'] });
      r.resources('photos', { only: [] });
    });
    assert.equal(routes.list().length, 9);
  });
});

describe('verbs', () => {
  test('a verb that is no HTTP method is refused, naming the route', () => {
    refused((r) => r.match('a/b', { via: 'gett' }), "'gett'", "'a/b'");
    refused((r) => r.match('a/b', { via: ['get', 'pots'] }), "'pots'");
    refused((r) => r.scope({ via: 'gett' }, (r) => r.match('c/d')), "'gett'");
  });

  test("Rails' WebDAV and other registered methods stay accepted", () => {
    const routes = drawUntyped((r) => {
      r.match('files/:id', { to: 'files#copy', via: ['copy', 'propfind', 'MKCOL'] });
    });
    assert.equal(routes.list()[0]!.verb, 'COPY|PROPFIND|MKCOL');
  });
});

describe('constraints', () => {
  test('a string with RegExp syntax where a segment RegExp is expected', () => {
    refused(
      (r) => r.get('photos/:id', { to: 'photos#show', constraints: { id: '\\d+' } }),
      ':id',
      "'\\d+'",
      '/\\d+/',
      '/photos/:id(.:format)',
    );
    refused((r) => r.constraints({ id: '[a-z]+' }, (r) => r.resources('posts')), ':id', 'route "');
  });

  test('a plain word still matches itself, as in Rails', () => {
    const routes = drawUntyped((r) => {
      r.get('photos/:id', { to: 'photos#show', constraints: { format: 'json' } });
    });
    assert.equal(routes.recognize('GET', '/photos/1.json')?.params.format, 'json');
    assert.equal(routes.recognize('GET', '/photos/1.xml'), null);
  });

  test('request-based constraints are refused, naming the feature', () => {
    refused(
      (r) => r.get('photos', { to: 'photos#index', constraints: { subdomain: 'api' } }),
      'Request-based constraints',
      "'subdomain'",
      'route "photos"',
    );
    refused((r) => r.constraints({ host: 'example.com' }, (r) => r.resources('posts')), "'host'");
    refused(
      (r) => r.scope({ constraints: () => true }, (r) => r.resources('posts')),
      'Request-based constraints',
      'a lambda',
    );
    refused((r) => r.get('photos', { to: 'photos#index', constraints: { matches: () => true } }), 'matches(request)');
    refused((r) => r.get('photos/:id', { to: 'photos#show', constraints: { id: () => true } }), "a lambda for 'id'");
  });
});

describe('paths', () => {
  test('an unbalanced parenthesis is refused at draw(), not answered 500 at request time', () => {
    refused((r) => r.get('photos(/:id', { to: 'photos#show' }), "Unbalanced '('", '/photos(/:id');
    refused((r) => r.get('photos/:id)', { to: 'photos#show' }), "Unbalanced ')'");
    const routes = drawUntyped((r) => {
      r.get('photos(/:id(/:size))', { to: 'photos#show' });
    });
    assert.equal(routes.recognize('GET', '/photos/1/big')?.params.size, 'big');
  });
});

describe('middleware', () => {
  const a = () => 'a';
  const b = () => 'b';
  const c = () => 'c';
  const d = () => 'd';

  test('is a known option on every helper, carried outermost first into the route record', () => {
    const routes = drawUntyped((r) => {
      r.scope({ middleware: a }, (r) => {
        r.namespace('admin', { middleware: [b] }, (r) => {
          r.resources('posts', { middleware: c, only: ['index'] }, (r) => {
            r.get('search', { on: 'collection', middleware: d });
          });
        });
      });
      r.resource('profile', { only: 'show' });
    });
    const byName = new Map(routes.list().map((info) => [info.name, info]));
    assert.deepEqual(byName.get('search_admin_posts')?.middleware, [a, b, c, d]);
    assert.deepEqual(byName.get('admin_posts')?.middleware, [a, b, c]);
    assert.equal(byName.get('profile')?.middleware, undefined);
    assert.deepEqual(byName.get('admin_posts')?.defaults, {});
    assert.deepEqual(routes.recognize('GET', '/admin/posts/search')?.route.middleware, [a, b, c, d]);
  });

  test('anything but a function is refused', () => {
    refused((r) => r.scope({ middleware: 'auth' }, (r) => r.resources('posts')), 'middleware must be a function');
  });
});

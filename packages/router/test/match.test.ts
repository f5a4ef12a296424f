// match and the verb shortcuts: path and map forms, several paths, to, via, as, anchor,
// handler/action defaulting from the scope, path defaulting, shorthand.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('match: path form and map form', () => {
  test('path with to and via', () => {
    const routes = draw((r) => {
      r.match('photos/:id', { to: 'photos#show', via: 'get' });
    });
    assert.deepEqual(rows(routes.list()), [[null, 'GET', '/photos/:id(.:format)', 'photos#show']]);
    const m = routes.recognize('GET', '/photos/3');
    assert.ok(m);
    assert.equal(m.handler, 'photos');
    assert.equal(m.action, 'show');
    assert.deepEqual(m.params, { id: '3' });
  });

  test('map form: path => handler#action', () => {
    const routes = draw((r) => {
      r.get({ about: 'pages#about' });
    });
    assert.deepEqual(rows(routes.list()), [['about', 'GET', '/about(.:format)', 'pages#about']]);
    assert.equal(routes.recognize('GET', '/about')?.action, 'about');
  });

  test('map form carrying its options in the same map', () => {
    const routes = draw((r) => {
      r.match({ about: 'pages#about', via: 'get', as: 'ab' });
      r.match({ contact: 'pages#contact', via: ['get', 'post'] });
    });
    assert.deepEqual(rows(routes.list()), [
      ['ab', 'GET', '/about(.:format)', 'pages#about'],
      ['contact', 'GET|POST', '/contact(.:format)', 'pages#contact'],
    ]);
  });

  test('map form whose target has no # names the handler; the action comes from the path', () => {
    const routes = draw((r) => {
      r.get({ x: 'pages' });
    });
    assert.deepEqual(rows(routes.list()), [['x', 'GET', '/x(.:format)', 'pages#x']]);
  });

  test('a map followed by another argument is not read as path => target', () => {
    let routes;
    try {
      routes = draw((r) => {
        r.match({ about: 'pages#about' } as never, { via: 'get' });
      });
    } catch {
      return; // refusing the declaration is acceptable; Rails declares nothing
    }
    assert.equal(
      routes.list().some((x) => x.handler === 'pages' && x.action === 'about'),
      false,
    );
    assert.equal(routes.recognize('GET', '/about'), null);
  });

  test('several paths: each path yields its own route', () => {
    const routes = draw((r) => {
      r.get(['a', 'b'], { to: 'p#x' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['a', 'GET', '/a(.:format)', 'p#x'],
      ['b', 'GET', '/b(.:format)', 'p#x'],
    ]);
    assert.equal(routes.recognize('GET', '/a')?.action, 'x');
    assert.equal(routes.recognize('GET', '/b')?.action, 'x');
  });

  test('several paths through match with via', () => {
    const routes = draw((r) => {
      r.match(['one/two', 'three/four'], { to: 'p#y', via: 'post' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['one_two', 'POST', '/one/two(.:format)', 'p#y'],
      ['three_four', 'POST', '/three/four(.:format)', 'p#y'],
    ]);
  });
});

describe('match: via', () => {
  test('a single verb', () => {
    const routes = draw((r) => {
      r.match('ping', { to: 'p#ping', via: 'post' });
    });
    assert.equal(routes.list()[0]!.verb, 'POST');
    assert.equal(routes.recognize('POST', '/ping')?.action, 'ping');
    assert.equal(routes.recognize('GET', '/ping'), null);
  });

  test('a list of verbs gives one route with verb GET|POST', () => {
    const routes = draw((r) => {
      r.match('multi', { to: 'p#multi', via: ['get', 'post'] });
    });
    assert.deepEqual(rows(routes.list()), [['multi', 'GET|POST', '/multi(.:format)', 'p#multi']]);
    assert.equal(routes.recognize('GET', '/multi')?.action, 'multi');
    assert.equal(routes.recognize('POST', '/multi')?.action, 'multi');
    assert.equal(routes.recognize('DELETE', '/multi'), null);
  });

  test("'all' answers any verb and lists an empty verb", () => {
    const routes = draw((r) => {
      r.match('any', { to: 'p#any', via: 'all' });
    });
    assert.deepEqual(rows(routes.list()), [['any', '', '/any(.:format)', 'p#any']]);
    for (const v of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      assert.equal(routes.recognize(v, '/any')?.action, 'any', v);
    }
  });

  test('the verb shortcuts set their verb', () => {
    const routes = draw((r) => {
      r.get('g', { to: 'v#g' });
      r.post('po', { to: 'v#po' });
      r.put('pu', { to: 'v#pu' });
      r.patch('pa', { to: 'v#pa' });
      r.delete('d', { to: 'v#d' });
    });
    assert.deepEqual(
      routes.list().map((x) => x.verb),
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    );
  });
});

describe('match: as', () => {
  test('as names the route', () => {
    const routes = draw((r) => {
      r.match('named', { to: 'p#named', via: 'get', as: 'nm' });
    });
    assert.deepEqual(rows(routes.list()), [['nm', 'GET', '/named(.:format)', 'p#named']]);
    assert.equal(routes.helpers.nmPath!(), '/named');
  });

  test('as: null leaves the route unnamed', () => {
    const routes = draw((r) => {
      r.get('help/faq', { as: null });
    });
    assert.deepEqual(rows(routes.list()), [[null, 'GET', '/help/faq(.:format)', 'help#faq']]);
  });

  test('a path with a dynamic segment gets no automatic name', () => {
    const routes = draw((r) => {
      r.get('files/*rest', { to: 'f#g' });
    });
    assert.equal(routes.list()[0]!.name, null);
  });
});

describe('match: anchor', () => {
  test('anchor defaults to true: the whole path must match', () => {
    const routes = draw((r) => {
      r.get('unanch/x', { to: 'p#un' });
    });
    assert.equal(routes.recognize('GET', '/unanch/x')?.action, 'un');
    assert.equal(routes.recognize('GET', '/unanch/x/more'), null);
  });

  test('anchor: false matches a path prefix', () => {
    const routes = draw((r) => {
      r.get('unanch/x', { to: 'p#un', anchor: false });
    });
    assert.equal(routes.list()[0]!.path, '/unanch/x(.:format)');
    assert.equal(routes.recognize('GET', '/unanch/x/more')?.action, 'un');
  });
});

describe('match: handler and action defaults', () => {
  test('to defaults to <handler>#<action> of the scope when both are set', () => {
    const routes = draw((r) => {
      r.scope({ handler: 'things', action: 'act' }, (r) => {
        r.get('dflt');
      });
    });
    assert.deepEqual(rows(routes.list()), [['dflt', 'GET', '/dflt(.:format)', 'things#act']]);
  });

  test('with only a handler in the scope the action comes from the bare word', () => {
    const routes = draw((r) => {
      r.scope({ handler: 'things' }, (r) => {
        r.get('dflt');
      });
    });
    assert.deepEqual(rows(routes.list()), [['dflt', 'GET', '/dflt(.:format)', 'things#dflt']]);
  });

  test('handler and action options instead of to', () => {
    const routes = draw((r) => {
      r.get('about', { handler: 'pages', action: 'info' });
    });
    assert.deepEqual(rows(routes.list()), [['about', 'GET', '/about(.:format)', 'pages#info']]);
  });

  test("inside a resource the handler is the resource's", () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.get('stats', { on: 'collection' });
      });
    });
    assert.equal(routes.list()[0]!.handler, 'posts');
  });
});

describe('match: path', () => {
  test('the path defaults to the given text', () => {
    const routes = draw((r) => {
      r.get('some/where', { to: 'p#w' });
    });
    assert.equal(routes.list()[0]!.path, '/some/where(.:format)');
  });

  test('a bare word with a path option: the word is the action and name, the option the path', () => {
    const routes = draw((r) => {
      r.scope({ handler: 's' }, (r) => {
        r.get('foo', { path: 'bar' });
      });
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview', { path: 'pv' });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['foo', 'GET', '/bar(.:format)', 's#foo'],
      ['preview_post', 'GET', '/posts/:id/pv(.:format)', 'posts#preview'],
    ]);
    assert.equal(routes.recognize('GET', '/foo'), null);
    assert.equal(routes.recognize('GET', '/bar')?.action, 'foo');
  });

  test('format: false drops the format segment, format: true requires it', () => {
    const routes = draw((r) => {
      r.get('noform', { to: 'n#n', format: false });
      r.get('reqform', { to: 'n#r', format: true });
    });
    assert.deepEqual(
      routes.list().map((x) => x.path),
      ['/noform', '/reqform.:format'],
    );
    assert.equal(routes.recognize('GET', '/noform.json'), null);
    assert.equal(routes.recognize('GET', '/reqform'), null);
    assert.deepEqual(routes.recognize('GET', '/reqform.json')?.params, { format: 'json' });
  });
});

describe('match: shorthand', () => {
  test("get('help/faq') routes to help#faq, named help_faq", () => {
    const routes = draw((r) => {
      r.get('help/faq');
    });
    assert.deepEqual(rows(routes.list()), [['help_faq', 'GET', '/help/faq(.:format)', 'help#faq']]);
    assert.equal(routes.recognize('GET', '/help/faq')?.handler, 'help');
  });

  test('a leading slash is removed', () => {
    const routes = draw((r) => {
      r.get('/lead/slash');
    });
    assert.deepEqual(rows(routes.list()), [['lead_slash', 'GET', '/lead/slash(.:format)', 'lead#slash']]);
  });

  test('only the last slash becomes #', () => {
    const routes = draw((r) => {
      r.get('a/b/c/d');
    });
    assert.deepEqual(rows(routes.list()), [['a_b_c_d', 'GET', '/a/b/c/d(.:format)', 'a/b/c#d']]);
  });

  test('hyphens become underscores in handler and action, not in the path', () => {
    const routes = draw((r) => {
      r.get('my-stuff/do-it');
      r.get('v1/doc-s/x-y');
    });
    assert.deepEqual(rows(routes.list()), [
      ['my_stuff_do_it', 'GET', '/my-stuff/do-it(.:format)', 'my_stuff#do_it'],
      ['v1_doc_s_x_y', 'GET', '/v1/doc-s/x-y(.:format)', 'v1/doc_s#x_y'],
    ]);
    assert.equal(routes.recognize('GET', '/my-stuff/do-it')?.action, 'do_it');
  });

  test('a trailing (.:format) is ignored by the shorthand test and not doubled', () => {
    const routes = draw((r) => {
      r.get('w/x(.:format)');
    });
    assert.deepEqual(rows(routes.list()), [[null, 'GET', '/w/x(.:format)', 'w#x']]);
  });

  test('shorthand does not apply when to is given', () => {
    const routes = draw((r) => {
      r.get('help/faq', { to: 'a#b' });
    });
    assert.deepEqual(rows(routes.list()), [['help_faq', 'GET', '/help/faq(.:format)', 'a#b']]);
  });

  test('shorthand with match and several verbs', () => {
    const routes = draw((r) => {
      r.match('help/faq', { via: ['get', 'post'] });
    });
    assert.deepEqual(rows(routes.list()), [['help_faq', 'GET|POST', '/help/faq(.:format)', 'help#faq']]);
  });

  test('shorthand inside a namespace gets the module', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.get('reports/daily');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['admin_reports_daily', 'GET', '/admin/reports/daily(.:format)', 'admin/reports#daily'],
    ]);
  });
});

describe('match: where the shorthand does not apply', () => {
  test('an action given keeps the scope handler instead of reading the path', () => {
    const routes = draw((r) => {
      r.scope({ handler: 'h' }, (r) => {
        r.get('help/faq', { action: 'y' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['help_faq', 'GET', '/help/faq(.:format)', 'h#y']]);
  });

  test('a path with a dynamic segment or a glob names no handler', () => {
    for (const path of ['photos/:id', 'files/*rest']) {
      assert.throws(
        () =>
          draw((r) => {
            r.get(path);
          }),
        /Missing :handler key/,
      );
    }
  });
});

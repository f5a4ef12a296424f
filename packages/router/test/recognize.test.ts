// routes.recognize: declaration-order precedence, HEAD, optional format, constraints, dots in ids,
// percent-decoding, trailing slash, globs, query strings, no match. Expected values recorded from Rails 6.1
// (RouteSet#recognize_path).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';

function summary(m: ReturnType<ReturnType<typeof draw>['recognize']>) {
  return m ? { to: `${m.handler}#${m.action}`, params: m.params } : null;
}

describe('declaration order', () => {
  test("an earlier get 'posts/:id' wins over a later resources' new", () => {
    const routes = draw((r) => {
      r.get('posts/:id', { to: 'x#y' });
      r.resources('posts');
    });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/new')), { to: 'x#y', params: { id: 'new' } });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/1')), { to: 'x#y', params: { id: '1' } });
    // other verbs still reach the resource
    assert.deepEqual(summary(routes.recognize('DELETE', '/posts/1')), { to: 'posts#destroy', params: { id: '1' } });
  });

  test('declared the other way round, new wins', () => {
    const routes = draw((r) => {
      r.resources('posts');
      r.get('posts/:id', { to: 'x#y' });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/new')), { to: 'posts#new', params: {} });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/1')), { to: 'posts#show', params: { id: '1' } });
  });

  test('the matched route is reported', () => {
    const routes = draw((r) => {
      r.resources('posts');
    });
    const m = routes.recognize('GET', '/posts/1/edit');
    assert.ok(m);
    assert.equal(m.route.name, 'edit_post');
    assert.equal(m.route.path, '/posts/:id/edit(.:format)');
    assert.equal(m.route.verb, 'GET');
  });
});

describe('HEAD', () => {
  test('HEAD is answered by GET routes', () => {
    const routes = draw((r) => {
      r.resources('posts');
    });
    assert.deepEqual(summary(routes.recognize('HEAD', '/posts/1')), { to: 'posts#show', params: { id: '1' } });
    assert.deepEqual(summary(routes.recognize('HEAD', '/posts')), { to: 'posts#index', params: {} });
  });

  test('HEAD is not answered by routes of other verbs', () => {
    const routes = draw((r) => {
      r.post('ping', { to: 'p#ping' });
    });
    assert.equal(routes.recognize('HEAD', '/ping'), null);
  });

  test('methods are matched case-insensitively', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: 'show' });
    });
    assert.equal(routes.recognize('get', '/posts/1')?.action, 'show');
  });
});

describe('optional format', () => {
  test('(.:format) is optional and captured when present', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: ['index', 'show'] });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos.json')), {
      to: 'photos#index',
      params: { format: 'json' },
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/1.json')), {
      to: 'photos#show',
      params: { id: '1', format: 'json' },
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/1')), { to: 'photos#show', params: { id: '1' } });
  });

  test('a dot in an id position starts the format', () => {
    const routes = draw((r) => {
      r.get('posts/:id', { to: 'x#y' });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/a.b')), { to: 'x#y', params: { id: 'a', format: 'b' } });
  });
});

describe('constraints', () => {
  test('a segment constraint must match the whole segment', () => {
    const routes = draw((r) => {
      r.get('c/:code', { to: 'c#c', constraints: { code: /[A-Z]{3}/ } });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/c/ABC')), { to: 'c#c', params: { code: 'ABC' } });
    assert.equal(routes.recognize('GET', '/c/abc'), null);
    assert.equal(routes.recognize('GET', '/c/ABCD'), null);
  });

  test('an alternation constraint must match the whole segment', () => {
    const routes = draw((r) => {
      r.scope(':locale', { constraints: { locale: /en|fr/ } }, (r) => {
        r.resources('langs', { only: 'index' });
      });
    });
    assert.deepEqual(routes.recognize('GET', '/fr/langs')?.params, { locale: 'fr' });
    assert.equal(routes.recognize('GET', '/enfr/langs'), null);
    assert.equal(routes.recognize('GET', '/english/langs'), null);
  });

  test('the flags of a constraint RegExp are honoured (Rails: /[a-z]+/i matches ABC)', () => {
    const routes = draw((r) => {
      r.get('ci/:id', { to: 'c#i', constraints: { id: /[a-z]+/i } });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/ci/ABC')), { to: 'c#i', params: { id: 'ABC' } });
    assert.deepEqual(summary(routes.recognize('GET', '/ci/abc')), { to: 'c#i', params: { id: 'abc' } });
    assert.equal(routes.recognize('GET', '/ci/a1'), null);
  });

  test('a failing constraint lets a later route match', () => {
    const routes = draw((r) => {
      r.get('items/:id', { to: 'items#num', constraints: { id: /\d+/ } });
      r.get('items/:id', { to: 'items#word' });
    });
    assert.equal(routes.recognize('GET', '/items/42')?.action, 'num');
    assert.equal(routes.recognize('GET', '/items/forty')?.action, 'word');
  });
});

describe('dots in ids', () => {
  test(':id rejects dots by default', () => {
    const routes = draw((r) => {
      r.resources('docs', { only: 'show' }, (r) => {
        r.resources('pages', { only: 'show' });
      });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/docs/a.b')), {
      to: 'docs#show',
      params: { id: 'a', format: 'b' },
    });
    assert.equal(routes.recognize('GET', '/docs/a.b/pages/1'), null);
    assert.equal(routes.recognize('GET', '/docs/a.b.c'), null);
  });

  test('a constraint /[^\\/]+/ on id allows dots', () => {
    const routes = draw((r) => {
      r.resources('files', { constraints: { id: /[^\/]+/ } });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/files/a.b')), { to: 'files#show', params: { id: 'a.b' } });
    assert.deepEqual(summary(routes.recognize('GET', '/files/a.b/edit')), { to: 'files#edit', params: { id: 'a.b' } });
    assert.deepEqual(summary(routes.recognize('DELETE', '/files/v1.2.3')), {
      to: 'files#destroy',
      params: { id: 'v1.2.3' },
    });
  });

  test('the constraint also applies to the renamed parent id post_id', () => {
    const routes = draw((r) => {
      r.resources('posts', { constraints: { id: /[^\/]+/ }, only: [] }, (r) => {
        r.resources('comments', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/a.b/comments')), {
      to: 'comments#index',
      params: { post_id: 'a.b' },
    });
    assert.deepEqual(summary(routes.recognize('GET', '/posts/a.b/comments/c')), {
      to: 'comments#show',
      params: { post_id: 'a.b', id: 'c' },
    });
    assert.deepEqual(routes.list()[0]!.constraints.post_id, /[^\/]+/.source);
  });
});

describe('percent-decoding', () => {
  test('params are percent-decoded', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: 'show' });
    });
    assert.deepEqual(routes.recognize('GET', '/photos/a%20b')?.params, { id: 'a b' });
    assert.deepEqual(routes.recognize('GET', '/photos/caf%C3%A9')?.params, { id: 'café' });
    assert.deepEqual(routes.recognize('GET', '/photos/x%25y')?.params, { id: 'x%y' });
  });

  test('an encoded slash or dot stays inside the segment', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: 'show' });
    });
    assert.deepEqual(routes.recognize('GET', '/photos/a%2Fb')?.params, { id: 'a/b' });
    assert.deepEqual(routes.recognize('GET', '/photos/a%2Eb')?.params, { id: 'a.b' });
  });

  test('parent ids are decoded too', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: 'show' });
      });
    });
    assert.deepEqual(routes.recognize('GET', '/posts/%C3%BC/comments/a%20b')?.params, { post_id: 'ü', id: 'a b' });
  });
});

describe('trailing slash and query string', () => {
  test('a trailing slash is tolerated', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: ['index', 'show'] });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/')), { to: 'photos#index', params: {} });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/1/')), { to: 'photos#show', params: { id: '1' } });
  });

  test('the query string is ignored', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: ['index', 'show'] });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/1?x=y')), { to: 'photos#show', params: { id: '1' } });
    assert.deepEqual(summary(routes.recognize('GET', '/photos/1.json?x=1')), {
      to: 'photos#show',
      params: { id: '1', format: 'json' },
    });
    assert.deepEqual(summary(routes.recognize('GET', '/photos?page=2')), { to: 'photos#index', params: {} });
  });
});

describe('globs', () => {
  test('*path captures several segments; the format is split off', () => {
    const routes = draw((r) => {
      r.get('files/*path', { to: 'f#g' });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/files/a/b/c.txt')), {
      to: 'f#g',
      params: { path: 'a/b/c', format: 'txt' },
    });
    assert.deepEqual(summary(routes.recognize('GET', '/files/a')), { to: 'f#g', params: { path: 'a' } });
    assert.deepEqual(summary(routes.recognize('GET', '/files/a%20b/c')), { to: 'f#g', params: { path: 'a b/c' } });
  });

  test('a glob needs at least one segment', () => {
    const routes = draw((r) => {
      r.get('files/*path', { to: 'f#g' });
    });
    assert.equal(routes.recognize('GET', '/files'), null);
    assert.equal(routes.recognize('GET', '/files/'), null);
  });

  test('with format: false the glob keeps the dot', () => {
    const routes = draw((r) => {
      r.get('raw/*path', { to: 'f#r', format: false });
    });
    assert.deepEqual(summary(routes.recognize('GET', '/raw/a/b.txt')), { to: 'f#r', params: { path: 'a/b.txt' } });
  });
});

describe('no match', () => {
  test('null when nothing matches', () => {
    const routes = draw((r) => {
      r.resources('photos');
    });
    assert.equal(routes.recognize('GET', '/nothing'), null);
    assert.equal(routes.recognize('GET', '/photos/1/edit/more'), null);
    assert.equal(routes.recognize('GET', '/Photos'), null);
    assert.equal(routes.recognize('PATCH', '/photos'), null);
  });

  test('null on an empty route set', () => {
    const routes = draw(() => {});
    assert.equal(routes.recognize('GET', '/'), null);
    assert.deepEqual(routes.list(), []);
  });
});

describe('large sets (the compiled matcher cut into several functions)', () => {
  // 60 resources with 4 nested each: far more tree nodes than one generated function holds.
  const routes = draw((r) => {
    for (let i = 0; i < 60; i++)
      r.resources(`res${i}`, (r) =>
        ['a', 'b', 'c', 'd'].forEach((name) => {
          r.resources(name);
        }),
      );
    r.get('files/*path', { to: 'files#show' });
  });
  const requests: Array<[string, string]> = [];
  for (const i of [0, 7, 31, 59]) {
    for (const rest of [
      '',
      '/new',
      '/5',
      '/5.json',
      '/5/edit',
      '/5/c',
      '/5/c/new',
      '/5/d/9/edit',
      '/new/a',
      '/5/e',
      '/5/',
      '//5',
      '/a%20b',
      '/5?x=1',
    ]) {
      requests.push(['GET', `/res${i}${rest}`], ['PATCH', `/res${i}${rest}`], ['HEAD', `/res${i}${rest}`]);
    }
  }
  requests.push(['GET', '/files/a/b.txt'], ['GET', '/files/a%2Fb'], ['GET', '/nope']);

  test('answers the same once compiled as on the first lookups', () => {
    const first = requests.map(([method, path]) => summary(routes.recognize(method, path)));
    for (let round = 0; round < 40; round++) for (const [method, path] of requests) routes.recognize(method, path);
    const warm = requests.map(([method, path]) => summary(routes.recognize(method, path)));
    assert.deepEqual(warm, first);
  });

  test('precedence and params across the cut', () => {
    for (let round = 0; round < 40; round++) routes.recognize('GET', `/res${round}/1/a`);
    assert.deepEqual(summary(routes.recognize('GET', '/res59/new')), { to: 'res59#new', params: {} });
    assert.deepEqual(summary(routes.recognize('GET', '/res31/new/a')), { to: 'a#index', params: { res31_id: 'new' } });
    assert.deepEqual(summary(routes.recognize('GET', '/res7/5/d/9/edit.json')), {
      to: 'd#edit',
      params: { res7_id: '5', id: '9', format: 'json' },
    });
    assert.deepEqual(summary(routes.recognize('DELETE', '/res0/a%20b')), { to: 'res0#destroy', params: { id: 'a b' } });
    assert.equal(routes.recognize('GET', '/res59/5/e'), null);
  });
});

// routes.path / routes.url / routes.helpers: positional then keyed values, query strings, percent-encoding,
// optional format, host/protocol/port, missing-key errors. Expected values recorded from Rails 6.1 url helpers.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';

const routes = draw((r) => {
  r.root('pages#home');
  r.resources('photos');
  r.resources('posts', (r) => {
    r.resources('comments');
    r.member((r) => {
      r.get('preview');
    });
    r.collection((r) => {
      r.get('search');
    });
  });
  r.get('files/*path', { to: 'f#g', as: 'file' });
  r.get('search', { to: 's#s' });
  r.resources('docs', { format: false, only: 'show' });
  r.namespace('admin', (r) => {
    r.resources('users', { only: ['index', 'show'] });
  });
});

describe('routes.path', () => {
  test('positional values fill the required segments in order', () => {
    assert.equal(routes.path('photo', 1), '/photos/1');
    assert.equal(routes.path('edit_photo', 7), '/photos/7/edit');
    assert.equal(routes.path('post_comment', 1, 2), '/posts/1/comments/2');
    assert.equal(routes.path('edit_post_comment', 'a', 'b'), '/posts/a/comments/b/edit');
  });

  test('routes without segments', () => {
    assert.equal(routes.path('photos'), '/photos');
    assert.equal(routes.path('new_photo'), '/photos/new');
    assert.equal(routes.path('root'), '/');
    assert.equal(routes.path('admin_users'), '/admin/users');
  });

  test('keyed values from the params object', () => {
    assert.equal(routes.path('photo', { id: 5 }), '/photos/5');
    assert.equal(routes.path('post_comment', { post_id: 1, id: 2 }), '/posts/1/comments/2');
  });

  test('positional values first, then keyed ones', () => {
    assert.equal(routes.path('post_comment', 1, { id: 2 }), '/posts/1/comments/2');
  });

  test('zero and strings are valid values', () => {
    assert.equal(routes.path('photo', 0), '/photos/0');
    assert.equal(routes.path('photo', 'abc'), '/photos/abc');
  });

  test('optional format: a further positional value fills it', () => {
    assert.equal(routes.path('photo', 1, 'json'), '/photos/1.json');
    assert.equal(routes.path('photos', 'xml'), '/photos.xml');
    assert.equal(routes.path('post_comment', 1, 2, 'json'), '/posts/1/comments/2.json');
  });

  test('optional format from the params object; left out when not given', () => {
    assert.equal(routes.path('photo', 1, { format: 'json' }), '/photos/1.json');
    assert.equal(routes.path('photo', { id: 1, format: 'json' }), '/photos/1.json');
    assert.equal(routes.path('photo', 1), '/photos/1');
  });

  test('positional format followed by a params object', () => {
    const p = new URL(routes.path('photo', 1, 'json', { q: 1 }), 'http://x');
    assert.equal(p.pathname, '/photos/1.json');
    assert.equal(p.searchParams.get('q'), '1');
  });

  test('extra params go to the query string', () => {
    assert.equal(routes.path('photo', 1, { page: 2 }), '/photos/1?page=2');
    assert.equal(routes.path('search_posts', { q: 'x' }), '/posts/search?q=x');
    const u = new URL(routes.path('photo', 1, { q: 'x y', page: 2 }), 'http://x');
    assert.equal(u.pathname, '/photos/1');
    assert.equal(u.searchParams.get('q'), 'x y');
    assert.equal(u.searchParams.get('page'), '2');
    assert.equal([...u.searchParams.keys()].length, 2);
  });

  test('query values are percent-encoded', () => {
    const p = routes.path('search', { q: 'a&b=c' });
    assert.equal(p, '/search?q=a%26b%3Dc');
    const u = new URL(routes.path('search', { q: 'ü' }), 'http://x');
    assert.equal(u.searchParams.get('q'), 'ü');
    assert.ok(!routes.path('search', { q: 'ü' }).includes('ü'));
  });

  test('segment values are percent-encoded', () => {
    assert.equal(routes.path('photo', 'a b'), '/photos/a%20b');
    assert.equal(routes.path('photo', 'ü'), '/photos/%C3%BC');
    assert.equal(routes.path('photo', 'a/b'), '/photos/a%2Fb');
    assert.equal(routes.path('photo', 'a?b#c'), '/photos/a%3Fb%23c');
    assert.equal(routes.path('photo', '100%'), '/photos/100%25');
  });

  test('a dot in a value is kept as is', () => {
    assert.equal(routes.path('photo', 'a.b'), '/photos/a.b');
  });

  test('a glob keeps its slashes, its parts are encoded', () => {
    assert.equal(routes.path('file', 'a/b/c'), '/files/a/b/c');
    assert.equal(routes.path('file', 'a b/c'), '/files/a%20b/c');
  });

  test('a route without a format segment ignores a further positional value', () => {
    assert.equal(routes.path('doc', 1), '/docs/1');
    assert.equal(routes.path('doc', 1, 'json'), '/docs/1');
  });

  test('a missing required segment throws an Error naming the route and the missing keys', () => {
    assert.throws(
      () => routes.path('edit_post_comment', 1),
      (e: unknown) => e instanceof Error && /edit_post_comment/.test(e.message) && /\bid\b/.test(e.message),
    );
    assert.throws(
      () => routes.path('post_comment'),
      (e: unknown) =>
        e instanceof Error && /post_comment/.test(e.message) && /post_id/.test(e.message) && /\bid\b/.test(e.message),
    );
    assert.throws(
      () => routes.path('photo'),
      (e: unknown) => e instanceof Error && /photo/.test(e.message) && /\bid\b/.test(e.message),
    );
  });

  test("a value violating a segment constraint throws; the constraint's flags are honoured (Rails)", () => {
    const r2 = draw((r) => {
      r.get('ci/:id', { to: 'c#i', constraints: { id: /[a-z]+/i }, as: 'ci' });
    });
    assert.throws(
      () => r2.path('ci', 'a1'),
      (e: unknown) => e instanceof Error && /\bid\b/.test(e.message),
    );
    assert.equal(r2.path('ci', 'abc'), '/ci/abc');
    assert.equal(r2.path('ci', 'ABC'), '/ci/ABC');
  });

  test('a URL without a host names our options, not Rails spellings', () => {
    assert.throws(
      () => routes.url('photo', 1),
      (e: unknown) =>
        e instanceof Error &&
        e.message.includes('`host` option') &&
        e.message.includes('`defaultUrlOptions.host`') &&
        !/default_url_options|only_path|:host/.test(e.message),
    );
  });

  test('an unknown route name throws', () => {
    assert.throws(() => routes.path('no_such_route'), Error);
  });
});

describe('routes.url', () => {
  test('with host', () => {
    assert.equal(routes.url('photo', 1, { host: 'example.com' }), 'http://example.com/photos/1');
    assert.equal(routes.url('root', { host: 'h.io' }), 'http://h.io/');
  });

  test('with protocol and port', () => {
    assert.equal(
      routes.url('photo', 1, { host: 'example.com', protocol: 'https', port: 8080 }),
      'https://example.com:8080/photos/1',
    );
    assert.equal(routes.url('photo', 1, { host: 'ex.com', port: 3000 }), 'http://ex.com:3000/photos/1');
    assert.equal(routes.url('photo', 1, { host: 'ex.com', protocol: 'https' }), 'https://ex.com/photos/1');
  });

  test('the default port of the protocol is left out (Rails: port 80 on http, 443 on https)', () => {
    assert.equal(routes.url('photo', 1, { host: 'ex.com', port: 80 }), 'http://ex.com/photos/1');
    assert.equal(routes.url('photo', 1, { host: 'ex.com', protocol: 'https', port: 443 }), 'https://ex.com/photos/1');
    assert.equal(routes.url('photo', 1, { host: 'ex.com', protocol: 'https', port: 80 }), 'https://ex.com:80/photos/1');
    assert.equal(routes.url('photo', 1, { host: 'ex.com', port: '8080' }), 'http://ex.com:8080/photos/1');
  });

  test('host, protocol and port do not go to the query string; other params do', () => {
    assert.equal(routes.url('photos', { host: 'ex.com', protocol: 'https', page: 2 }), 'https://ex.com/photos?page=2');
  });

  test('url with format and nested values', () => {
    assert.equal(routes.url('post_comment', 1, 2, 'json', { host: 'ex.com' }), 'http://ex.com/posts/1/comments/2.json');
  });
});

describe('routes.helpers', () => {
  test('camelCase <name>Path and <name>Url helpers', () => {
    const h = routes.helpers;
    assert.equal(h.photosPath!(), '/photos');
    assert.equal(h.newPhotoPath!(), '/photos/new');
    assert.equal(h.editPhotoPath!(3), '/photos/3/edit');
    assert.equal(h.photoPath!(3, 'json'), '/photos/3.json');
    assert.equal(h.postCommentsPath!(1), '/posts/1/comments');
    assert.equal(h.editPostCommentPath!(1, 2), '/posts/1/comments/2/edit');
    assert.equal(h.previewPostPath!(4), '/posts/4/preview');
    assert.equal(h.searchPostsPath!(), '/posts/search');
    assert.equal(h.adminUserPath!(9), '/admin/users/9');
    assert.equal(h.rootPath!(), '/');
    assert.equal(h.photoUrl!(3, { host: 'ex.com' }), 'http://ex.com/photos/3');
  });

  test('helpers behave like path()/url() with the same arguments', () => {
    assert.equal(
      routes.helpers.postCommentPath!({ post_id: 1, id: 2, q: 'z' }),
      routes.path('post_comment', { post_id: 1, id: 2, q: 'z' }),
    );
    assert.equal(routes.helpers.postCommentPath!(1, 2, { q: 'z' }), '/posts/1/comments/2?q=z');
  });

  test('there is a helper pair for every named route and none for unnamed ones', () => {
    const names = routes
      .list()
      .map((x) => x.name)
      .filter((n): n is string => n !== null);
    for (const n of names) {
      const camel = n.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      assert.equal(typeof routes.helpers[`${camel}Path`], 'function', `${camel}Path`);
      assert.equal(typeof routes.helpers[`${camel}Url`], 'function', `${camel}Url`);
    }
    assert.equal(Object.keys(routes.helpers).length, names.length * 2);
  });

  test('helpers throw on missing segments like path()', () => {
    assert.throws(
      () => routes.helpers.editPhotoPath!(),
      (e: unknown) => e instanceof Error && /\bid\b/.test(e.message),
    );
  });
});

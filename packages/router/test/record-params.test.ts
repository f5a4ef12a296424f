// Issue #14: a URL helper given a record uses its `toParam()` (Rails' `to_param`) or else its `id`
// for the segment, and the record's other fields never reach the query string; a params hash
// (segment values by name, the rest as query params) still works as in Rails. Issue 27: a record
// is told from a params hash as Rails tells a model from a Hash: an object with `toParam()` or a
// class instance is a record, a plain object is a params hash.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { draw } from '../src/index.js';

const routes = draw((r) => {
  r.resources('articles', (r) => {
    r.resources('comments');
  });
  r.resources('photos', { only: ['index', 'show'] });
  r.resources('profiles', { param: 'username', only: ['show'] });
});
const h = routes.helpers;

/** A row as a data layer hands it out: a class instance with an id. */
class Row {
  constructor(fields: Record<string, unknown>) {
    Object.assign(this, fields);
  }
}

class Article {
  constructor(
    readonly id: number,
    readonly title: string,
    readonly slug: string,
  ) {}
  toParam(): string {
    return `${this.id}-${this.slug}`;
  }
}

describe('a record as a helper argument', () => {
  test('a record fills the segment with its id, and nothing else of it reaches the URL', () => {
    const article = new Row({ id: 7, title: 'Hello world', body: 'x' });
    assert.equal(h.articlePath!(article), '/articles/7');
    assert.equal(h.editArticlePath!(article), '/articles/7/edit');
    assert.equal(routes.path('article', article), '/articles/7');
    routes.defaultUrlOptions = { host: 'example.com' };
    assert.equal(h.articleUrl!(article), 'http://example.com/articles/7');
    routes.defaultUrlOptions = {};
  });

  test('toParam() wins over id, as to_param does', () => {
    const article = new Article(7, 'Hello', 'hello');
    assert.equal(h.articlePath!(article), '/articles/7-hello');
    assert.equal(h.articleCommentsPath!(article), '/articles/7-hello/comments');
  });

  test('nested helpers take one record per segment, in path order', () => {
    const article = new Row({ id: 3, title: 'T' });
    const comment = new Row({ id: 9, body: 'B', article_id: 3 });
    assert.equal(h.articleCommentPath!(article, comment), '/articles/3/comments/9');
    assert.equal(h.editArticleCommentPath!(new Article(3, 'T', 't'), comment), '/articles/3-t/comments/9/edit');
    assert.equal(h.articleCommentPath!(3, comment), '/articles/3/comments/9');
  });

  test('a params hash after the records still gives query params and URL options', () => {
    const article = new Row({ id: 7, title: 'Hello' });
    assert.equal(h.articlePath!(article, { page: 2 }), '/articles/7?page=2');
    assert.equal(h.articlePath!(article, { anchor: 'top' }), '/articles/7#top');
    assert.equal(h.articleCommentsPath!(article, { sort: 'new' }), '/articles/7/comments?sort=new');
    assert.equal(h.articlesPath!({ page: 2, q: 'a b' }), '/articles?page=2&q=a+b');
  });

  test('a hash that names segments other than id, or URL options, is a params hash', () => {
    assert.equal(h.articleCommentPath!({ article_id: 1, id: 2, q: 'z' }), '/articles/1/comments/2?q=z');
    assert.equal(h.photoPath!({ id: 1, format: 'json' }), '/photos/1.json');
    assert.equal(h.photoUrl!({ id: 1, host: 'ex.com' }), 'http://ex.com/photos/1');
  });

  test('a record keyed by name uses its id too', () => {
    assert.equal(
      h.articleCommentPath!({ article_id: { id: 4, title: 'T' }, id: new Article(5, 'x', 'x') }),
      '/articles/4/comments/5-x',
    );
  });

  test('property: whatever fields a record has, only its id reaches the path', () => {
    // Even fields named like segments or URL options (`format`, `host`): a record is never a params hash.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e9 }),
        fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), fc.oneof(fc.string(), fc.integer())),
        (id, fields) => {
          const record = new Row({ ...fields, id });
          const path = h.articlePath!(record);
          assert.equal(path, `/articles/${id}`);
          assert.deepEqual(routes.recognize('GET', path)?.params, { id: String(id) });
        },
      ),
    );
  });
});

describe('a params hash or a record, as Rails tells a Hash from a model', () => {
  test('a plain object is a params hash: its id names the segment `id`, its other keys go to the query', () => {
    assert.equal(h.articlePath!({ id: 7, title: 'Hello' }), '/articles/7?title=Hello');
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { id: 7 });
    assert.equal(h.articlePath!(bare), '/articles/7');
  });

  test('resources with param: a hash naming id misses the segment, a record gives its toParam() or id', () => {
    assert.throws(() => h.profilePath!({ id: 3 }), {
      name: 'MissingKeysError',
      message: /missing required keys: \[username\]/,
    });
    assert.equal(h.profilePath!({ username: 'ann' }), '/profiles/ann');
    assert.equal(h.profilePath!(new Row({ id: 3 })), '/profiles/3');
    assert.equal(h.profilePath!({ toParam: () => 'ann', id: 3 }), '/profiles/ann');
    assert.equal(h.profilePath!(new Article(3, 'T', 'ann')), '/profiles/3-ann');
  });
});

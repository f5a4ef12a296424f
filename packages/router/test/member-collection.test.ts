// collection / member / new / nested blocks, the `on:` option, and the helpers they create.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('collection', () => {
  test('recognizes /<resources>/<segment> and names it <segment>_<resources>', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.collection((r) => {
          r.get('search');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [['search_posts', 'GET', '/posts/search(.:format)', 'posts#search']]);
    const m = routes.recognize('GET', '/posts/search');
    assert.ok(m);
    assert.equal(m.handler, 'posts');
    assert.equal(m.action, 'search');
    assert.deepEqual(m.params, {});
  });

  test('creates search_posts_path and search_posts_url helpers (camelCase)', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.collection((r) => {
          r.get('search');
        });
      });
    });
    assert.equal(typeof routes.helpers.searchPostsPath, 'function');
    assert.equal(typeof routes.helpers.searchPostsUrl, 'function');
    assert.equal(routes.helpers.searchPostsPath!(), '/posts/search');
    assert.equal(routes.helpers.searchPostsUrl!({ host: 'ex.com' }), 'http://ex.com/posts/search');
    assert.equal(routes.path('search_posts'), '/posts/search');
  });

  test("collection routes are declared before the resource's own routes and win over show", () => {
    const routes = draw((r) => {
      r.resources('posts', { only: ['show'] }, (r) => {
        r.collection((r) => {
          r.get('search');
        });
      });
    });
    assert.deepEqual(
      routes.list().map((x) => x.name),
      ['search_posts', 'post'],
    );
    assert.equal(routes.recognize('GET', '/posts/search')?.action, 'search');
    assert.equal(routes.recognize('GET', '/posts/searching')?.action, 'show');
  });

  test('hyphens in a segment become underscores in the action and name, not in the path', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.collection((r) => {
          r.post('bulk-update');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['bulk_update_posts', 'POST', '/posts/bulk-update(.:format)', 'posts#bulk_update'],
    ]);
  });

  test('collection of a singular resource sits on its path', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: [] }, (r) => {
        r.collection((r) => {
          r.get('history');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['history_profile', 'GET', '/profile/history(.:format)', 'profiles#history'],
    ]);
  });
});

describe('member', () => {
  test('recognizes /<resources>/:id/<segment> and names it <segment>_<resource>', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [['preview_post', 'GET', '/posts/:id/preview(.:format)', 'posts#preview']]);
    const m = routes.recognize('GET', '/posts/12/preview');
    assert.ok(m);
    assert.equal(m.action, 'preview');
    assert.deepEqual(m.params, { id: '12' });
  });

  test('creates preview_post_path and preview_post_url helpers (camelCase)', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview');
        });
      });
    });
    assert.equal(routes.helpers.previewPostPath!(1), '/posts/1/preview');
    assert.equal(routes.helpers.previewPostUrl!(1, { host: 'ex.com' }), 'http://ex.com/posts/1/preview');
  });

  test('several verbs and as inside a member block (as is prefixed to the member name)', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview');
          r.post('publish', { as: 'pub' });
          r.patch('archive');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['preview_post', 'GET', '/posts/:id/preview(.:format)', 'posts#preview'],
      ['pub_post', 'POST', '/posts/:id/publish(.:format)', 'posts#publish'],
      ['archive_post', 'PATCH', '/posts/:id/archive(.:format)', 'posts#archive'],
    ]);
    assert.equal(routes.recognize('GET', '/posts/1/publish'), null);
    assert.equal(routes.recognize('POST', '/posts/1/publish')?.action, 'publish');
  });

  test('member of a singular resource has no id', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: [] }, (r) => {
        r.member((r) => {
          r.get('avatar');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [['avatar_profile', 'GET', '/profile/avatar(.:format)', 'profiles#avatar']]);
  });

  test('member routes of a nested resource carry the parent id', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: [] }, (r) => {
          r.member((r) => {
            r.put('approve');
          });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['approve_post_comment', 'PUT', '/posts/:post_id/comments/:id/approve(.:format)', 'comments#approve'],
    ]);
    assert.deepEqual(routes.recognize('PUT', '/posts/1/comments/2/approve')?.params, { post_id: '1', id: '2' });
    assert.equal(routes.helpers.approvePostCommentPath!(1, 2), '/posts/1/comments/2/approve');
  });

  test('a member route given a map target', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.member((r) => {
          r.get({ dl: 'photos#download' });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [['dl_photo', 'GET', '/photos/:id/dl(.:format)', 'photos#download']]);
  });
});

describe('new', () => {
  test('adds routes under /<resources>/new named <segment>_new_<resource>', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.new((r) => {
          r.get('draft');
          r.post('quick');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['draft_new_photo', 'GET', '/photos/new/draft(.:format)', 'photos#draft'],
      ['quick_new_photo', 'POST', '/photos/new/quick(.:format)', 'photos#quick'],
    ]);
    assert.equal(routes.recognize('POST', '/photos/new/quick')?.action, 'quick');
  });

  test('uses the renamed path segment of the new action', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [], pathNames: { new: 'nuevo' } }, (r) => {
        r.new((r) => {
          r.get('draft');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['draft_new_photo', 'GET', '/photos/nuevo/draft(.:format)', 'photos#draft'],
    ]);
  });

  test('new block in a singular resource', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: [] }, (r) => {
        r.new((r) => {
          r.get('draft');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['draft_new_profile', 'GET', '/profile/new/draft(.:format)', 'profiles#draft'],
    ]);
  });
});

describe('nested', () => {
  test('adds routes under /<resources>/:<resource>_id named <resource>_<segment>', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.nested((r) => {
          r.get('stats');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['photo_stats', 'GET', '/photos/:photo_id/stats(.:format)', 'photos#stats'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/photos/3/stats')?.params, { photo_id: '3' });
  });
});

describe('on: option', () => {
  test('on: member, collection and new are equivalent to the blocks', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.get('raw', { on: 'member' });
        r.get('feed', { on: 'collection' });
        r.post('clear', { on: 'new' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['raw_photo', 'GET', '/photos/:id/raw(.:format)', 'photos#raw'],
      ['feed_photos', 'GET', '/photos/feed(.:format)', 'photos#feed'],
      ['clear_new_photo', 'POST', '/photos/new/clear(.:format)', 'photos#clear'],
    ]);
  });

  test('on: with to and action', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.get('raw', { on: 'member', to: 'images#raw' });
        r.get('feed', { on: 'collection', action: 'rss' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['raw_photo', 'GET', '/photos/:id/raw(.:format)', 'images#raw'],
      ['feed_photos', 'GET', '/photos/feed(.:format)', 'photos#rss'],
    ]);
  });

  test('match with on: member and several verbs', () => {
    const routes = draw((r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.match('zap', { on: 'member', via: ['get', 'post'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [['zap_photo', 'GET|POST', '/photos/:id/zap(.:format)', 'photos#zap']]);
    assert.equal(routes.recognize('POST', '/photos/1/zap')?.action, 'zap');
    assert.equal(routes.recognize('GET', '/photos/1/zap')?.action, 'zap');
    assert.equal(routes.recognize('DELETE', '/photos/1/zap'), null);
  });

  test('on: member in a singular resource', () => {
    const routes = draw((r) => {
      r.resource('profile', { only: [] }, (r) => {
        r.get('y', { on: 'member' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['y_profile', 'GET', '/profile/y(.:format)', 'profiles#y']]);
  });

  test("the block routes (member, collection, on:) come before the resource's own routes", () => {
    const routes = draw((r) => {
      r.resources('posts', { only: ['index', 'show'] }, (r) => {
        r.member((r) => {
          r.get('preview');
        });
        r.get('recent', { on: 'collection' });
      });
    });
    assert.deepEqual(
      routes.list().map((x) => x.name),
      ['preview_post', 'recent_posts', 'posts', 'post'],
    );
  });
});

describe('canonical actions (CANONICAL_ACTIONS)', () => {
  test('actions that fit their scope level get no path segment and no name prefix', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.member((r) => {
          r.get('show');
          r.put('update');
          r.get('edit');
        });
        r.collection((r) => {
          r.get('index');
          r.post('create');
          r.get('search');
        });
        r.new((r) => {
          r.get('new');
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post', 'GET', '/posts/:id(.:format)', 'posts#show'],
      [null, 'PUT', '/posts/:id(.:format)', 'posts#update'],
      ['edit_post', 'GET', '/posts/:id/edit(.:format)', 'posts#edit'],
      ['posts', 'GET', '/posts(.:format)', 'posts#index'],
      [null, 'POST', '/posts(.:format)', 'posts#create'],
      ['search_posts', 'GET', '/posts/search(.:format)', 'posts#search'],
      ['new_post', 'GET', '/posts/new(.:format)', 'posts#new'],
    ]);
  });
});

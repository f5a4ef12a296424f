// Shallow nesting: shallow option on a parent, shallow block, shallowPath, shallowPrefix,
// shallow: false on a child, isShallow(). Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

const shallowComments: Row[] = [
  ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'comments#index'],
  [null, 'POST', '/posts/:post_id/comments(.:format)', 'comments#create'],
  ['new_post_comment', 'GET', '/posts/:post_id/comments/new(.:format)', 'comments#new'],
  ['edit_comment', 'GET', '/comments/:id/edit(.:format)', 'comments#edit'],
  ['comment', 'GET', '/comments/:id(.:format)', 'comments#show'],
  [null, 'PATCH', '/comments/:id(.:format)', 'comments#update'],
  [null, 'PUT', '/comments/:id(.:format)', 'comments#update'],
  [null, 'DELETE', '/comments/:id(.:format)', 'comments#destroy'],
];

describe('shallow routes', () => {
  test('shallow on the nested resource: index, create and new under the parent; show, edit, update, destroy at /<nested>/:id', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { shallow: true });
      });
    });
    assert.deepEqual(rows(routes.list()), shallowComments);
  });

  test("shallow on the parent applies to the nested resources; the parent's own routes are unchanged", () => {
    const routes = draw((r) => {
      r.resources('posts', { shallow: true, only: ['index', 'show'] }, (r) => {
        r.resources('comments');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ...shallowComments,
      ['posts', 'GET', '/posts(.:format)', 'posts#index'],
      ['post', 'GET', '/posts/:id(.:format)', 'posts#show'],
    ]);
  });

  test('shallow on the parent applies at every depth: grandchildren are shallow under the child', () => {
    const routes = draw((r) => {
      r.resources('articles', { shallow: true, only: [] }, (r) => {
        r.resources('comments', { only: ['index', 'show'] }, (r) => {
          r.resources('likes', { only: ['index', 'new', 'show'] });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['comment_likes', 'GET', '/comments/:comment_id/likes(.:format)', 'likes#index'],
      ['new_comment_like', 'GET', '/comments/:comment_id/likes/new(.:format)', 'likes#new'],
      ['like', 'GET', '/likes/:id(.:format)', 'likes#show'],
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['comment', 'GET', '/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('recognition of shallow member and collection routes', () => {
    const routes = draw((r) => {
      r.resources('posts', { shallow: true, only: [] }, (r) => {
        r.resources('comments');
      });
    });
    const show = routes.recognize('GET', '/comments/5');
    assert.ok(show);
    assert.equal(show.action, 'show');
    assert.deepEqual(show.params, { id: '5' });
    const create = routes.recognize('POST', '/posts/2/comments');
    assert.ok(create);
    assert.deepEqual(create.params, { post_id: '2' });
    assert.equal(routes.recognize('GET', '/posts/2/comments/5'), null);
  });

  test('the shallow block makes the resources declared inside shallow', () => {
    const routes = draw((r) => {
      r.shallow((r) => {
        r.resources('articles', { only: 'show' }, (r) => {
          r.resources('comments', { only: ['index', 'show'] });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['comment', 'GET', '/comments/:id(.:format)', 'comments#show'],
      ['article', 'GET', '/articles/:id(.:format)', 'articles#show'],
    ]);
  });

  test('a shallow block inside a resource', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.shallow((r) => {
          r.resources('comments', { only: ['index', 'show'] });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'comments#index'],
      ['comment', 'GET', '/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('shallow is not set after the shallow block ends', () => {
    const routes = draw((r) => {
      r.shallow((r) => {
        r.resources('articles', { only: [] }, (r) => {
          r.resources('notes', { only: 'show' });
        });
      });
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: 'show' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['note', 'GET', '/notes/:id(.:format)', 'notes#show'],
      ['post_comment', 'GET', '/posts/:post_id/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('shallowPath prefixes the path of the shallow member routes; the names stay the same', () => {
    const routes = draw((r) => {
      r.resources('articles', { only: [] }, (r) => {
        r.resources('comments', {
          shallow: true,
          shallowPath: 'sekret',
          only: ['index', 'edit', 'show', 'update', 'destroy'],
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['edit_comment', 'GET', '/sekret/comments/:id/edit(.:format)', 'comments#edit'],
      ['comment', 'GET', '/sekret/comments/:id(.:format)', 'comments#show'],
      [null, 'PATCH', '/sekret/comments/:id(.:format)', 'comments#update'],
      [null, 'PUT', '/sekret/comments/:id(.:format)', 'comments#update'],
      [null, 'DELETE', '/sekret/comments/:id(.:format)', 'comments#destroy'],
    ]);
    assert.deepEqual(routes.recognize('DELETE', '/sekret/comments/3')?.params, { id: '3' });
    assert.equal(routes.recognize('GET', '/comments/3'), null);
  });

  test('shallowPrefix names the shallow member routes edit_<prefix>_<singular> and <prefix>_<singular>; paths unchanged', () => {
    const routes = draw((r) => {
      r.resources('articles', { only: [] }, (r) => {
        r.resources('comments', { shallow: true, shallowPrefix: 'sk', only: ['index', 'edit', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['edit_sk_comment', 'GET', '/comments/:id/edit(.:format)', 'comments#edit'],
      ['sk_comment', 'GET', '/comments/:id(.:format)', 'comments#show'],
    ]);
    assert.equal(routes.path('edit_sk_comment', 4), '/comments/4/edit');
    assert.equal(routes.helpers.skCommentPath!(4), '/comments/4');
  });

  test('shallowPath and shallowPrefix together (option on the parent, shallow on the child)', () => {
    const routes = draw((r) => {
      r.resources('articles', { only: [], shallowPath: 'sekret', shallowPrefix: 'sk' }, (r) => {
        r.resources('comments', { shallow: true, only: ['index', 'edit', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_comments', 'GET', '/articles/:article_id/comments(.:format)', 'comments#index'],
      ['edit_sk_comment', 'GET', '/sekret/comments/:id/edit(.:format)', 'comments#edit'],
      ['sk_comment', 'GET', '/sekret/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('shallow: false on a child turns shallow off for it and its descendants; siblings stay shallow', () => {
    const routes = draw((r) => {
      r.resources('teams', { shallow: true, only: [] }, (r) => {
        r.resources('projects', { shallow: false, only: ['index', 'show'] }, (r) => {
          r.resources('tasks', { only: ['index', 'show'] });
        });
        r.resources('members', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['team_project_tasks', 'GET', '/teams/:team_id/projects/:project_id/tasks(.:format)', 'tasks#index'],
      ['team_project_task', 'GET', '/teams/:team_id/projects/:project_id/tasks/:id(.:format)', 'tasks#show'],
      ['team_projects', 'GET', '/teams/:team_id/projects(.:format)', 'projects#index'],
      ['team_project', 'GET', '/teams/:team_id/projects/:id(.:format)', 'projects#show'],
      ['team_members', 'GET', '/teams/:team_id/members(.:format)', 'members#index'],
      ['member', 'GET', '/members/:id(.:format)', 'members#show'],
    ]);
  });

  test('member routes of a shallow resource use the shallow member scope; collection routes stay nested', () => {
    const routes = draw((r) => {
      r.resources('posts', { shallow: true, only: [] }, (r) => {
        r.resources('comments', { only: [] }, (r) => {
          r.member((r) => {
            r.get('preview');
          });
          r.collection((r) => {
            r.get('search');
          });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['preview_comment', 'GET', '/comments/:id/preview(.:format)', 'comments#preview'],
      ['search_post_comments', 'GET', '/posts/:post_id/comments/search(.:format)', 'comments#search'],
    ]);
  });
});

describe('shallow combined with other options', () => {
  test('inside a namespace the shallow routes keep the namespace path, module and name prefix', () => {
    const routes = draw((r) => {
      r.namespace('admin', (r) => {
        r.resources('tasks', { shallow: true, only: [] }, (r) => {
          r.resources('steps', { only: ['index', 'show'] });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['admin_task_steps', 'GET', '/admin/tasks/:task_id/steps(.:format)', 'admin/steps#index'],
      ['admin_step', 'GET', '/admin/steps/:id(.:format)', 'admin/steps#show'],
    ]);
  });

  test('shallowPath from an enclosing scope', () => {
    const routes = draw((r) => {
      r.scope({ shallowPath: 'sekret' }, (r) => {
        r.resources('posts', { only: [] }, (r) => {
          r.resources('comments', { shallow: true, only: ['index', 'show'] });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'comments#index'],
      ['comment', 'GET', '/sekret/comments/:id(.:format)', 'comments#show'],
    ]);
  });

  test('shallowPath with shallow on a top-level resource also moves its own member routes (Rails)', () => {
    const routes = draw((r) => {
      r.resources('articles', { shallowPath: 'deep', shallow: true, only: ['index', 'show'] }, (r) => {
        r.resources('notes', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['article_notes', 'GET', '/deep/articles/:article_id/notes(.:format)', 'notes#index'],
      ['note', 'GET', '/deep/notes/:id(.:format)', 'notes#show'],
      ['articles', 'GET', '/articles(.:format)', 'articles#index'],
      ['article', 'GET', '/deep/articles/:id(.:format)', 'articles#show'],
    ]);
  });

  test('param on a shallow parent renames the parent id of the nested collection routes', () => {
    const routes = draw((r) => {
      r.resources('songs', { param: 'slug', shallow: true, only: [] }, (r) => {
        r.resources('lyrics', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['song_lyrics', 'GET', '/songs/:song_slug/lyrics(.:format)', 'lyrics#index'],
      ['lyric', 'GET', '/lyrics/:id(.:format)', 'lyrics#show'],
    ]);
  });
});

describe('shallow under a singular parent', () => {
  test('shallow on a singular parent still makes the nested plural resource shallow', () => {
    const routes = draw((r) => {
      r.resource('profile', { shallow: true, only: [] }, (r) => {
        r.resources('photos', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['profile_photos', 'GET', '/profile/photos(.:format)', 'photos#index'],
      ['photo', 'GET', '/photos/:id(.:format)', 'photos#show'],
    ]);
  });
});

describe('isShallow()', () => {
  test('true inside a plural resource with shallow set, and inside its nested resources', () => {
    const seen: Record<string, boolean> = {};
    draw((r) => {
      r.resources('posts', { shallow: true }, (r) => {
        seen.posts = r.isShallow();
        r.resources('comments', (r) => {
          seen.comments = r.isShallow();
        });
      });
    });
    assert.deepEqual(seen, { posts: true, comments: true });
  });

  test('true inside a plural resource declared in a shallow block, and inside a shallow block within a resource', () => {
    const seen: Record<string, boolean> = {};
    draw((r) => {
      r.shallow((r) => {
        r.resources('quotes', (r) => {
          seen.inBlock = r.isShallow();
        });
      });
      r.resources('pages', (r) => {
        seen.pagesBefore = r.isShallow();
        r.shallow((r) => {
          seen.pagesShallow = r.isShallow();
        });
        seen.pagesAfter = r.isShallow();
      });
    });
    assert.deepEqual(seen, { inBlock: true, pagesBefore: false, pagesShallow: true, pagesAfter: false });
  });

  test('false inside a singular resource even with shallow set', () => {
    let seen: boolean | undefined;
    draw((r) => {
      r.resource('profile', { shallow: true }, (r) => {
        seen = r.isShallow();
      });
    });
    assert.equal(seen, false);
  });

  test('false with shallow: false and without the shallow option', () => {
    const seen: boolean[] = [];
    draw((r) => {
      r.resources('users', { shallow: false }, (r) => {
        seen.push(r.isShallow());
      });
      r.resources('tags', (r) => {
        seen.push(r.isShallow());
      });
    });
    assert.deepEqual(seen, [false, false]);
  });

  test('returns a boolean, not the mapper', () => {
    let v: unknown;
    draw((r) => {
      r.resources('posts', { shallow: true }, (r) => {
        v = r.isShallow();
      });
    });
    assert.equal(typeof v, 'boolean');
  });
});

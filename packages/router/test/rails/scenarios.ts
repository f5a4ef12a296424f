/**
 * Rails conformance scenarios: each one is a Rails 6.1 `draw do ... end` body (`ruby`) and the SAME
 * declaration in our DSL (`draw`), plus recognition and generation probes. `record.rb` runs the Ruby
 * side in real Rails and writes `rails-fixtures.json`; `../rails-conformance.test.ts` compares.
 *
 * Conventions (see docs/router.md): Ruby symbols are plain strings; a bare word path
 * (`'preview'`) is a Ruby symbol (`:preview`), so the Ruby side uses a symbol wherever the TS side
 * gives a bare word; `controller:` is `handler:`; snake_case options are camelCase; regex constraints
 * are RegExp literals with the same source. Keep both sides exactly equivalent when editing, then
 * re-record (see the comment at the top of record.rb).
 */
import type { Mapper } from '../../src/index.js';

export interface Scenario {
  name: string;
  /** Body of a Rails `draw do ... end` block. */
  ruby: string;
  /** The same declaration in our DSL. */
  draw: (r: Mapper) => void;
  /** [verb, path] */
  recognize?: Array<[verb: string, path: string]>;
  /** [route name, ...helper args] (positional values, then an optional params object). */
  generate?: Array<[routeName: string, ...args: unknown[]]>;
}

/** Calls a mapper method with arguments the typed API may not accept (Rails-side argument errors). */
const loose = (r: Mapper): any => r as any;

/** Probes shared by scenarios that declare a plain `resources :photos`-like resource. */
function crudProbes(base: string): Array<[string, string]> {
  return [
    ['GET', `/${base}`],
    ['GET', `/${base}/`],
    ['GET', `/${base}.json`],
    ['POST', `/${base}`],
    ['GET', `/${base}/new`],
    ['GET', `/${base}/1`],
    ['GET', `/${base}/1/edit`],
    ['PATCH', `/${base}/1`],
    ['PUT', `/${base}/1`],
    ['DELETE', `/${base}/1`],
    ['HEAD', `/${base}/1`],
    ['DELETE', `/${base}`],
    ['POST', `/${base}/1`],
  ];
}

export const scenarios: Scenario[] = [
  // ───────────────────────────── resources basics ─────────────────────────────
  {
    name: 'resources: plain',
    ruby: String.raw`resources :photos`,
    draw: (r) => {
      r.resources('photos');
    },
    recognize: [
      ...crudProbes('photos'),
      ['GET', '/photos/1.json'],
      ['GET', '/photos/1.2'],
      ['GET', '/photos/1.2.json'],
      ['GET', '/photos/a%20b'],
      ['GET', '/photos/caf%C3%A9'],
      ['GET', '/photos/a%2Fb'],
      ['GET', '/photos/a%2Eb'],
      ['GET', '/photos/1/'],
      ['GET', '/photos//1'],
      ['GET', '/photos/1/edit/x'],
      ['GET', '/photos/new.json'],
      ['GET', '/photos/1/edit.json'],
      ['GET', '/photo'],
      ['GET', '/PHOTOS'],
      ['OPTIONS', '/photos'],
      ['get', '/photos'],
      ['GET', '/photos?x=1'],
      ['GET', '/nope'],
      ['GET', '/'],
      ['GET', '/photos/1.'],
      ['GET', '/photos/.json'],
      ['GET', '/photos/1..json'],
      ['GET', '/photos/%zz'],
      ['GET', '/photos/new/'],
      ['GET', '/photos.'],
      ['PROPFIND', '/photos'],
      ['GET', '/photos/1;x'],
    ],
    generate: [
      ['photos'],
      ['photos', { page: 2 }],
      ['photos', { format: 'json', page: 2 }],
      ['photo', 1],
      ['photo', 1, 'json'],
      ['photo', 1, { format: 'xml' }],
      ['photo', { id: 7 }],
      ['photo', 'a b'],
      ['photo', 'a/b.c'],
      ['photo', 'café'],
      ['photo', 1, { q: 'x y', a: 1 }],
      ['photo', 1, { tags: ['a', 'b'] }],
      ['photo', 1, { q: { x: 1 } }],
      ['photo'],
      ['edit_photo', 5],
      ['new_photo'],
      ['new_photo', 'json'],
      ['photo', 1, { anchor: 'top' }],
    ],
  },
  {
    name: 'resource: singular',
    ruby: String.raw`resource :profile`,
    draw: (r) => {
      r.resource('profile');
    },
    recognize: [
      ['GET', '/profile'],
      ['GET', '/profile/new'],
      ['GET', '/profile/edit'],
      ['POST', '/profile'],
      ['PATCH', '/profile'],
      ['PUT', '/profile'],
      ['DELETE', '/profile'],
      ['GET', '/profile.json'],
      ['HEAD', '/profile'],
      ['GET', '/profile/1'],
      ['GET', '/profiles'],
      ['GET', '/profile/'],
    ],
    generate: [['profile'], ['profile', 'json'], ['new_profile'], ['edit_profile'], ['profile', { x: 1 }]],
  },
  {
    name: 'resources: several names in one call with only list',
    ruby: String.raw`resources :books, :videos, only: [:index, :show]`,
    draw: (r) => {
      r.resources(['books', 'videos'], { only: ['index', 'show'] });
    },
    recognize: [
      ['GET', '/books'],
      ['GET', '/videos/3'],
      ['POST', '/books'],
      ['GET', '/videos/new'],
    ],
    generate: [['books'], ['video', 3]],
  },
  {
    name: 'resource: several names in one call',
    ruby: String.raw`resource :profile, :account`,
    draw: (r) => {
      r.resource(['profile', 'account']);
    },
    recognize: [
      ['GET', '/account'],
      ['GET', '/profile/edit'],
    ],
    generate: [['account'], ['edit_profile']],
  },
  {
    name: 'resources: only single action',
    ruby: String.raw`resources :photos, only: :index`,
    draw: (r) => {
      r.resources('photos', { only: 'index' });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/1'],
      ['GET', '/photos/new'],
    ],
    generate: [['photos']],
  },
  {
    name: 'resources: except single action',
    ruby: String.raw`resources :photos, except: :show`,
    draw: (r) => {
      r.resources('photos', { except: 'show' });
    },
    recognize: [
      ['GET', '/photos/1'],
      ['GET', '/photos/1/edit'],
      ['DELETE', '/photos/1'],
      ['GET', '/photos/new'],
    ],
    generate: [['edit_photo', 1]],
  },
  {
    name: 'resources: except list',
    ruby: String.raw`resources :photos, except: [:destroy, :edit]`,
    draw: (r) => {
      r.resources('photos', { except: ['destroy', 'edit'] });
    },
    recognize: [
      ['DELETE', '/photos/1'],
      ['GET', '/photos/1/edit'],
      ['GET', '/photos/1'],
    ],
    generate: [
      ['photo', 1],
      ['edit_photo', 1],
    ],
  },
  {
    name: 'resources: only empty list with member and collection routes',
    ruby: String.raw`resources :photos, only: [] do
  member do
    get :preview
  end
  collection do
    get :search
  end
end`,
    draw: (r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview');
        });
        r.collection((r) => {
          r.get('search');
        });
      });
    },
    recognize: [
      ['GET', '/photos/1/preview'],
      ['GET', '/photos/search'],
      ['GET', '/photos'],
      ['GET', '/photos/1'],
    ],
    generate: [['preview_photo', 1], ['search_photos']],
  },
  {
    name: 'resource: only list',
    ruby: String.raw`resource :session, only: [:new, :create, :destroy]`,
    draw: (r) => {
      r.resource('session', { only: ['new', 'create', 'destroy'] });
    },
    recognize: [
      ['GET', '/session/new'],
      ['POST', '/session'],
      ['DELETE', '/session'],
      ['GET', '/session'],
    ],
    generate: [['new_session'], ['session']],
  },
  {
    name: 'resources: path option',
    ruby: String.raw`resources :photos, path: 'images'`,
    draw: (r) => {
      r.resources('photos', { path: 'images' });
    },
    recognize: [
      ['GET', '/images'],
      ['GET', '/images/1/edit'],
      ['GET', '/photos'],
    ],
    generate: [['photos'], ['edit_photo', 1]],
  },
  {
    name: 'resources: path option with nested resource',
    ruby: String.raw`resources :photos, path: 'images' do
  resources :tags
end`,
    draw: (r) => {
      r.resources('photos', { path: 'images' }, (r) => {
        r.resources('tags');
      });
    },
    recognize: [
      ['GET', '/images/1/tags'],
      ['GET', '/images/1/tags/2'],
      ['GET', '/photos/1/tags'],
    ],
    generate: [
      ['photo_tags', 1],
      ['photo_tag', 1, 2],
    ],
  },
  {
    name: 'resources: path_names',
    ruby: String.raw`resources :photos, path_names: { new: 'make', edit: 'change' }`,
    draw: (r) => {
      r.resources('photos', { pathNames: { new: 'make', edit: 'change' } });
    },
    recognize: [
      ['GET', '/photos/make'],
      ['GET', '/photos/1/change'],
      ['GET', '/photos/new'],
      ['GET', '/photos/1/edit'],
    ],
    generate: [['new_photo'], ['edit_photo', 1]],
  },
  {
    name: 'resources: path_names only edit, nested child inherits',
    ruby: String.raw`resources :photos, path_names: { edit: 'change' } do
  resources :comments
end`,
    draw: (r) => {
      r.resources('photos', { pathNames: { edit: 'change' } }, (r) => {
        r.resources('comments');
      });
    },
    recognize: [
      ['GET', '/photos/1/comments/2/change'],
      ['GET', '/photos/new'],
      ['GET', '/photos/1/comments/2/edit'],
    ],
    generate: [['edit_photo_comment', 1, 2]],
  },
  {
    name: 'resource: path_names',
    ruby: String.raw`resource :profile, path_names: { edit: 'change' }`,
    draw: (r) => {
      r.resource('profile', { pathNames: { edit: 'change' } });
    },
    recognize: [
      ['GET', '/profile/change'],
      ['GET', '/profile/edit'],
    ],
    generate: [['edit_profile']],
  },
  {
    name: 'resources: param option, nested child uses renamed parent param',
    ruby: String.raw`resources :users, param: :slug do
  resources :posts
end`,
    draw: (r) => {
      r.resources('users', { param: 'slug' }, (r) => {
        r.resources('posts');
      });
    },
    recognize: [
      ['GET', '/users/bob'],
      ['GET', '/users/bob/posts/3'],
      ['PATCH', '/users/bob'],
      ['GET', '/users/bob/edit'],
    ],
    generate: [
      ['user', 'bob'],
      ['user', { slug: 'ann' }],
      ['user_post', 'bob', 3],
      ['edit_user', 'bob'],
    ],
  },
  {
    name: 'resources: param on nested child',
    ruby: String.raw`resources :users do
  resources :posts, param: :slug
end`,
    draw: (r) => {
      r.resources('users', (r) => {
        r.resources('posts', { param: 'slug' });
      });
    },
    recognize: [
      ['GET', '/users/1/posts/hello'],
      ['DELETE', '/users/1/posts/hello'],
    ],
    generate: [['user_post', 1, 'hello']],
  },
  {
    name: 'resources: as option',
    ruby: String.raw`resources :photos, as: 'images'`,
    draw: (r) => {
      r.resources('photos', { as: 'images' });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/1'],
      ['GET', '/images'],
    ],
    generate: [['images'], ['image', 1], ['new_image'], ['edit_image', 1]],
  },
  {
    name: 'resources: as option with nested resource',
    ruby: String.raw`resources :photos, as: 'images' do
  resources :comments, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('photos', { as: 'images' }, (r) => {
        r.resources('comments', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/photos/1/comments'],
      ['GET', '/photos/1/comments/2'],
    ],
    generate: [
      ['image_comments', 1],
      ['image_comment', 1, 2],
    ],
  },
  {
    name: 'resource: as and path and controller',
    ruby: String.raw`resource :profile, as: 'me', path: 'my-profile', controller: 'accounts'`,
    draw: (r) => {
      r.resource('profile', { as: 'me', path: 'my-profile', handler: 'accounts' });
    },
    recognize: [
      ['GET', '/my-profile'],
      ['GET', '/my-profile/edit'],
      ['GET', '/profile'],
    ],
    generate: [['me'], ['edit_me'], ['new_me']],
  },
  {
    name: 'resources: controller option',
    ruby: String.raw`resources :photos, controller: 'images'`,
    draw: (r) => {
      r.resources('photos', { handler: 'images' });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/1'],
    ],
    generate: [['photo', 1]],
  },
  {
    name: 'resources: controller option with namespace path',
    ruby: String.raw`resources :photos, controller: 'admin/images'`,
    draw: (r) => {
      r.resources('photos', { handler: 'admin/images' });
    },
    recognize: [['GET', '/photos/1']],
    generate: [['photo', 1]],
  },
  {
    name: 'resources: module option',
    ruby: String.raw`resources :photos, module: 'admin'`,
    draw: (r) => {
      r.resources('photos', { module: 'admin' });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/admin/photos'],
    ],
    generate: [['photos']],
  },
  {
    name: 'resources: module option on nested child',
    ruby: String.raw`resources :posts do
  resources :comments, module: 'posts'
end`,
    draw: (r) => {
      r.resources('posts', (r) => {
        r.resources('comments', { module: 'posts' });
      });
    },
    recognize: [
      ['GET', '/posts/1/comments'],
      ['GET', '/posts/1'],
    ],
    generate: [['post_comments', 1]],
  },
  {
    name: 'resources: format false',
    ruby: String.raw`resources :photos, format: false`,
    draw: (r) => {
      r.resources('photos', { format: false });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos.json'],
      ['GET', '/photos/1'],
      ['GET', '/photos/1.json'],
      ['GET', '/photos/1/edit'],
    ],
    generate: [['photos'], ['photo', 1], ['photo', 1, { format: 'json' }]],
  },
  {
    name: 'resources: format true (required format)',
    ruby: String.raw`resources :photos, format: true, only: [:index, :show]`,
    draw: (r) => {
      r.resources('photos', { format: true, only: ['index', 'show'] });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos.json'],
      ['GET', '/photos/1'],
      ['GET', '/photos/1.json'],
      ['GET', '/photos/1.tar.gz'],
    ],
    generate: [
      ['photos', 'json'],
      ['photo', 1, 'xml'],
      ['photo', 1],
    ],
  },
  {
    name: "resources: format 'json'",
    ruby: String.raw`resources :photos, format: 'json', only: [:index, :show]`,
    draw: (r) => {
      r.resources('photos', { format: 'json', only: ['index', 'show'] });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos.json'],
      ['GET', '/photos/1.xml'],
      ['GET', '/photos/1'],
    ],
    generate: [['photos'], ['photo', 1]],
  },
  {
    name: 'resources: id constraint allowing dots',
    ruby: String.raw`resources :files, constraints: { id: /[^\/]+/ }`,
    draw: (r) => {
      r.resources('files', { constraints: { id: /[^\/]+/ } });
    },
    recognize: [
      ['GET', '/files/a.b.c'],
      ['GET', '/files/a.b.json'],
      ['GET', '/files/report.pdf/edit'],
      ['DELETE', '/files/x.y'],
      ['GET', '/files'],
      ['GET', '/files.json'],
      ['GET', '/files/new'],
      ['GET', '/files/a%2Fb'],
    ],
    generate: [
      ['file', 'a.b.c'],
      ['edit_file', 'x.y'],
      ['file', 'a.b', 'json'],
    ],
  },
  {
    name: 'resources: id constraint allowing dots, format false',
    ruby: String.raw`resources :files, only: :show, format: false, constraints: { id: /[^\/]+/ }`,
    draw: (r) => {
      r.resources('files', { only: 'show', format: false, constraints: { id: /[^\/]+/ } });
    },
    recognize: [
      ['GET', '/files/a.b.json'],
      ['GET', '/files/x'],
    ],
    generate: [['file', 'a.b.json']],
  },
  {
    name: 'resources: numeric id constraint propagates to nested parent id',
    ruby: String.raw`resources :photos, constraints: { id: /\d+/ } do
  resources :comments, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('photos', { constraints: { id: /\d+/ } }, (r) => {
        r.resources('comments', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/photos/12'],
      ['GET', '/photos/abc'],
      ['GET', '/photos/new'],
      ['GET', '/photos/12/comments'],
      ['GET', '/photos/ab/comments'],
      ['GET', '/photos/12/comments/xy'],
    ],
    generate: [
      ['photo', 12],
      ['photo_comments', 5],
      ['photo', 'abc'],
    ],
  },
  {
    name: 'resources: defaults option',
    ruby: String.raw`resources :photos, only: [:index, :show], defaults: { format: 'json', page: '1' }`,
    draw: (r) => {
      r.resources('photos', { only: ['index', 'show'], defaults: { format: 'json', page: '1' } });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/1.xml'],
      ['GET', '/photos/1'],
    ],
    generate: [['photos'], ['photo', 1], ['photos', { page: 2 }]],
  },
  // ───────────────────────────── nesting ─────────────────────────────
  {
    name: 'nesting: three levels deep',
    ruby: String.raw`resources :publishers do
  resources :magazines do
    resources :photos
  end
end`,
    draw: (r) => {
      r.resources('publishers', (r) => {
        r.resources('magazines', (r) => {
          r.resources('photos');
        });
      });
    },
    recognize: [
      ['GET', '/publishers/1/magazines/2/photos'],
      ['GET', '/publishers/1/magazines/2/photos/3'],
      ['GET', '/publishers/1/magazines/2/photos/3/edit'],
      ['POST', '/publishers/1/magazines/2/photos'],
      ['GET', '/publishers/1/magazines/2/photos/new'],
      ['GET', '/publishers/1/magazines'],
      ['GET', '/magazines/2/photos'],
      ['GET', '/publishers/1/magazines/2/photos/3.json'],
    ],
    generate: [
      ['publisher_magazine_photos', 1, 2],
      ['publisher_magazine_photo', 1, 2, 3],
      ['edit_publisher_magazine_photo', 1, 2, 3],
      ['new_publisher_magazine_photo', 1, 2],
      ['publisher_magazine_photo', 1, 2],
      ['publisher_magazine_photo', 1, 2, 3, 'json'],
      ['publisher_magazine_photo', { publisher_id: 1, magazine_id: 2, id: 3, x: 'y' }],
    ],
  },
  {
    name: 'nesting: singular resource inside plural',
    ruby: String.raw`resources :users do
  resource :avatar
end`,
    draw: (r) => {
      r.resources('users', (r) => {
        r.resource('avatar');
      });
    },
    recognize: [
      ['GET', '/users/1/avatar'],
      ['GET', '/users/1/avatar/edit'],
      ['POST', '/users/1/avatar'],
      ['GET', '/users/1/avatars'],
    ],
    generate: [
      ['user_avatar', 1],
      ['edit_user_avatar', 1],
      ['new_user_avatar', 1],
    ],
  },
  {
    name: 'nesting: plural resources inside singular',
    ruby: String.raw`resource :account do
  resources :invoices
end`,
    draw: (r) => {
      r.resource('account', (r) => {
        r.resources('invoices');
      });
    },
    recognize: [
      ['GET', '/account/invoices'],
      ['GET', '/account/invoices/9'],
      ['GET', '/account'],
      ['DELETE', '/account/invoices/9'],
    ],
    generate: [['account_invoices'], ['account_invoice', 9], ['edit_account_invoice', 9]],
  },
  {
    name: 'nesting: singular inside singular',
    ruby: String.raw`resource :account do
  resource :settings, only: [:show, :update]
end`,
    draw: (r) => {
      r.resource('account', (r) => {
        r.resource('settings', { only: ['show', 'update'] });
      });
    },
    recognize: [
      ['GET', '/account/settings'],
      ['PUT', '/account/settings'],
    ],
    generate: [['account_settings']],
  },
  {
    name: 'nesting: only [] parent with nested child',
    ruby: String.raw`resources :a, only: [] do
  resources :b, only: [] do
    resources :c, only: [:index, :show]
  end
end`,
    draw: (r) => {
      r.resources('a', { only: [] }, (r) => {
        r.resources('b', { only: [] }, (r) => {
          r.resources('c', { only: ['index', 'show'] });
        });
      });
    },
    recognize: [
      ['GET', '/a/1/b/2/c'],
      ['GET', '/a/1/b/2/c/3'],
      ['GET', '/a/1'],
      ['GET', '/a/1/b/2'],
    ],
    generate: [
      ['a_b_c_index', 1, 2],
      ['a_b_c', 1, 2, 3],
    ],
  },
  // ───────────────────────────── shallow ─────────────────────────────
  {
    name: 'shallow: option on parent',
    ruby: String.raw`resources :articles, shallow: true do
  resources :comments
  resources :quotes, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('articles', { shallow: true }, (r) => {
        r.resources('comments');
        r.resources('quotes', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['POST', '/articles/1/comments'],
      ['GET', '/articles/1/comments/new'],
      ['GET', '/comments/2'],
      ['GET', '/comments/2/edit'],
      ['PATCH', '/comments/2'],
      ['DELETE', '/comments/2'],
      ['GET', '/articles/1/comments/2'],
      ['GET', '/quotes/3'],
      ['GET', '/articles/1'],
    ],
    generate: [
      ['article_comments', 1],
      ['new_article_comment', 1],
      ['comment', 2],
      ['edit_comment', 2],
      ['quote', 3],
      ['article', 1],
    ],
  },
  {
    name: 'shallow: option on child',
    ruby: String.raw`resources :articles do
  resources :comments, shallow: true
end`,
    draw: (r) => {
      r.resources('articles', (r) => {
        r.resources('comments', { shallow: true });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['GET', '/comments/2'],
      ['GET', '/articles/1/comments/2'],
    ],
    generate: [
      ['article_comments', 1],
      ['comment', 2],
    ],
  },
  {
    name: 'shallow: block',
    ruby: String.raw`shallow do
  resources :articles do
    resources :comments
  end
end`,
    draw: (r) => {
      r.shallow((r) => {
        r.resources('articles', (r) => {
          r.resources('comments');
        });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['GET', '/comments/2/edit'],
      ['GET', '/articles/1'],
    ],
    generate: [
      ['edit_comment', 2],
      ['article_comments', 1],
    ],
  },
  {
    name: 'shallow: shallow_path in scope',
    ruby: String.raw`scope shallow_path: 'sekret' do
  resources :articles do
    resources :comments, shallow: true
  end
end`,
    draw: (r) => {
      r.scope({ shallowPath: 'sekret' }, (r) => {
        r.resources('articles', (r) => {
          r.resources('comments', { shallow: true });
        });
      });
    },
    recognize: [
      ['GET', '/sekret/comments/2'],
      ['GET', '/articles/1/comments'],
      ['GET', '/comments/2'],
      ['GET', '/articles/1'],
    ],
    generate: [
      ['comment', 2],
      ['edit_comment', 2],
      ['article_comments', 1],
    ],
  },
  {
    name: 'shallow: shallow_prefix in scope',
    ruby: String.raw`scope shallow_prefix: 'sekret' do
  resources :articles do
    resources :comments, shallow: true
  end
end`,
    draw: (r) => {
      r.scope({ shallowPrefix: 'sekret' }, (r) => {
        r.resources('articles', (r) => {
          r.resources('comments', { shallow: true });
        });
      });
    },
    recognize: [
      ['GET', '/comments/2'],
      ['GET', '/comments/2/edit'],
    ],
    generate: [
      ['sekret_comment', 2],
      ['edit_sekret_comment', 2],
      ['article_comments', 1],
    ],
  },
  {
    name: 'shallow: shallow_path and shallow_prefix as resources options',
    ruby: String.raw`resources :articles, shallow: true, shallow_path: 'x', shallow_prefix: 'y' do
  resources :comments, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('articles', { shallow: true, shallowPath: 'x', shallowPrefix: 'y' }, (r) => {
        r.resources('comments', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/x/comments/2'],
      ['GET', '/articles/1/comments'],
      ['GET', '/articles/1'],
    ],
    generate: [
      ['y_comment', 2],
      ['article_comments', 1],
    ],
  },
  {
    name: 'shallow: false on a child',
    ruby: String.raw`resources :articles, shallow: true do
  resources :comments, shallow: false
  resources :tags, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('articles', { shallow: true }, (r) => {
        r.resources('comments', { shallow: false });
        r.resources('tags', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments/2'],
      ['GET', '/comments/2'],
      ['GET', '/tags/3'],
      ['GET', '/articles/1/tags/3'],
    ],
    generate: [
      ['article_comment', 1, 2],
      ['tag', 3],
    ],
  },
  {
    name: 'shallow: three levels',
    ruby: String.raw`resources :a, shallow: true do
  resources :b do
    resources :c
  end
end`,
    draw: (r) => {
      r.resources('a', { shallow: true }, (r) => {
        r.resources('b', (r) => {
          r.resources('c');
        });
      });
    },
    recognize: [
      ['GET', '/a/1/b'],
      ['GET', '/b/2'],
      ['GET', '/b/2/c'],
      ['GET', '/c/3'],
      ['GET', '/a/1/b/2/c'],
      ['GET', '/b/2/c/new'],
    ],
    generate: [
      ['a_b_index', 1],
      ['b', 2],
      ['b_c_index', 2],
      ['c', 3],
      ['new_b_c', 2],
    ],
  },
  {
    name: 'shallow: inside namespace',
    ruby: String.raw`namespace :admin do
  resources :articles, shallow: true do
    resources :comments
  end
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.resources('articles', { shallow: true }, (r) => {
          r.resources('comments');
        });
      });
    },
    recognize: [
      ['GET', '/admin/articles/1/comments'],
      ['GET', '/admin/comments/2'],
      ['GET', '/comments/2'],
      ['GET', '/admin/articles/1'],
    ],
    generate: [
      ['admin_article_comments', 1],
      ['admin_comment', 2],
      ['edit_admin_comment', 2],
    ],
  },
  {
    name: 'shallow: member routes and singular child in shallow parent',
    ruby: String.raw`resources :articles, shallow: true do
  resources :comments, only: [:index, :show] do
    member do
      post :like
    end
  end
  resource :cover, only: :show
end`,
    draw: (r) => {
      r.resources('articles', { shallow: true }, (r) => {
        r.resources('comments', { only: ['index', 'show'] }, (r) => {
          r.member((r) => {
            r.post('like');
          });
        });
        r.resource('cover', { only: 'show' });
      });
    },
    recognize: [
      ['POST', '/comments/2/like'],
      ['POST', '/articles/1/comments/2/like'],
      ['GET', '/articles/1/cover'],
      ['GET', '/cover'],
    ],
    generate: [
      ['like_comment', 2],
      ['article_cover', 1],
    ],
  },
  {
    name: 'shallow: shallow block inside namespace with scope',
    ruby: String.raw`scope 'api', as: 'api' do
  shallow do
    resources :projects, only: [] do
      resources :tasks, only: [:index, :show, :destroy]
    end
  end
end`,
    draw: (r) => {
      r.scope('api', { as: 'api' }, (r) => {
        r.shallow((r) => {
          r.resources('projects', { only: [] }, (r) => {
            r.resources('tasks', { only: ['index', 'show', 'destroy'] });
          });
        });
      });
    },
    recognize: [
      ['GET', '/api/projects/1/tasks'],
      ['GET', '/api/tasks/2'],
      ['DELETE', '/api/tasks/2'],
      ['GET', '/tasks/2'],
    ],
    generate: [
      ['api_project_tasks', 1],
      ['api_task', 2],
    ],
  },
  // ───────────────────────────── member / collection / new / nested / on ─────────────────────────────
  {
    name: 'member block',
    ruby: String.raw`resources :photos do
  member do
    get :preview
    post :publish
    match :share, via: [:get, :post]
  end
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.member((r) => {
          r.get('preview');
          r.post('publish');
          r.match('share', { via: ['get', 'post'] });
        });
      });
    },
    recognize: [
      ['GET', '/photos/1/preview'],
      ['POST', '/photos/1/publish'],
      ['GET', '/photos/1/publish'],
      ['POST', '/photos/1/share'],
      ['GET', '/photos/1/share.json'],
      ['GET', '/photos/1/preview.json'],
      ['HEAD', '/photos/1/preview'],
    ],
    generate: [
      ['preview_photo', 1],
      ['publish_photo', 1],
      ['share_photo', 1, 'json'],
    ],
  },
  {
    name: 'collection block',
    ruby: String.raw`resources :photos do
  collection do
    get :search
    delete :purge
  end
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.collection((r) => {
          r.get('search');
          r.delete('purge');
        });
      });
    },
    recognize: [
      ['GET', '/photos/search'],
      ['DELETE', '/photos/purge'],
      ['GET', '/photos/purge'],
      ['GET', '/photos/search.json'],
    ],
    generate: [['search_photos'], ['purge_photos'], ['search_photos', { q: 'cat' }]],
  },
  {
    name: 'new block',
    ruby: String.raw`resources :photos do
  new do
    get :draft
  end
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.new((r) => {
          r.get('draft');
        });
      });
    },
    recognize: [
      ['GET', '/photos/new/draft'],
      ['GET', '/photos/new'],
    ],
    generate: [['draft_new_photo']],
  },
  {
    name: 'new block with path_names',
    ruby: String.raw`resources :photos, path_names: { new: 'nuevo' } do
  new do
    get :draft
  end
end`,
    draw: (r) => {
      r.resources('photos', { pathNames: { new: 'nuevo' } }, (r) => {
        r.new((r) => {
          r.get('draft');
        });
      });
    },
    recognize: [
      ['GET', '/photos/nuevo/draft'],
      ['GET', '/photos/new/draft'],
    ],
    generate: [['draft_new_photo']],
  },
  {
    name: 'nested block',
    ruby: String.raw`resources :photos do
  nested do
    get :stats
  end
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.nested((r) => {
          r.get('stats');
        });
      });
    },
    recognize: [
      ['GET', '/photos/1/stats'],
      ['GET', '/photos/stats'],
    ],
    generate: [['photo_stats', 1]],
  },
  {
    name: 'on: option (member, collection, new)',
    ruby: String.raw`resources :photos do
  get :preview, on: :member
  get :search, on: :collection
  get :draft, on: :new
  post :bulk, on: :collection, as: 'bulk_create'
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.get('preview', { on: 'member' });
        r.get('search', { on: 'collection' });
        r.get('draft', { on: 'new' });
        r.post('bulk', { on: 'collection', as: 'bulk_create' });
      });
    },
    recognize: [
      ['GET', '/photos/1/preview'],
      ['GET', '/photos/search'],
      ['GET', '/photos/new/draft'],
      ['POST', '/photos/bulk'],
    ],
    generate: [['preview_photo', 1], ['search_photos'], ['draft_new_photo'], ['bulk_create_photos']],
  },
  {
    name: 'member route with action and to options',
    ruby: String.raw`resources :photos do
  get :thumb, on: :member, action: :thumbnail
  get :raw, on: :member, to: 'blobs#raw'
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.get('thumb', { on: 'member', action: 'thumbnail' });
        r.get('raw', { on: 'member', to: 'blobs#raw' });
      });
    },
    recognize: [
      ['GET', '/photos/1/thumb'],
      ['GET', '/photos/1/raw'],
    ],
    generate: [
      ['thumb_photo', 1],
      ['raw_photo', 1],
    ],
  },
  {
    name: 'get inside resources without on (nested scope)',
    ruby: String.raw`resources :photos do
  get :stats
  get 'report/:year', action: :report, as: 'report'
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.get('stats');
        r.get('report/:year', { action: 'report', as: 'report' });
      });
    },
    recognize: [
      ['GET', '/photos/1/stats'],
      ['GET', '/photos/1/report/2020'],
    ],
    generate: [
      ['photo_stats', 1],
      ['photo_report', 1, 2020],
    ],
  },
  {
    name: 'member and collection on singular resource',
    ruby: String.raw`resource :profile do
  get :preview, on: :member
  get :history, on: :collection
end`,
    draw: (r) => {
      r.resource('profile', (r) => {
        r.get('preview', { on: 'member' });
        r.get('history', { on: 'collection' });
      });
    },
    recognize: [
      ['GET', '/profile/preview'],
      ['GET', '/profile/history'],
    ],
    generate: [['preview_profile'], ['history_profile']],
  },
  {
    name: 'member on nested resource with as',
    ruby: String.raw`resources :posts do
  resources :comments do
    member do
      patch :approve, as: 'ok'
    end
  end
end`,
    draw: (r) => {
      r.resources('posts', (r) => {
        r.resources('comments', (r) => {
          r.member((r) => {
            r.patch('approve', { as: 'ok' });
          });
        });
      });
    },
    recognize: [
      ['PATCH', '/posts/1/comments/2/approve'],
      ['PUT', '/posts/1/comments/2/approve'],
    ],
    generate: [['ok_post_comment', 1, 2]],
  },
  // ───────────────────────────── errors ─────────────────────────────
  {
    name: 'error: collection outside resource scope',
    ruby: String.raw`collection do
  get :search
end`,
    draw: (r) => {
      r.collection((r) => {
        r.get('search');
      });
    },
  },
  {
    name: 'error: member outside resource scope',
    ruby: String.raw`member do
  get :preview
end`,
    draw: (r) => {
      r.member((r) => {
        r.get('preview');
      });
    },
  },
  {
    name: 'error: new outside resource scope',
    ruby: String.raw`new do
  get :draft
end`,
    draw: (r) => {
      r.new((r) => {
        r.get('draft');
      });
    },
  },
  {
    name: 'error: nested outside resource scope',
    ruby: String.raw`nested do
  get :stats
end`,
    draw: (r) => {
      r.nested((r) => {
        r.get('stats');
      });
    },
  },
  {
    name: 'error: on: member outside resource scope',
    ruby: String.raw`get :preview, on: :member`,
    draw: (r) => {
      r.get('preview', { on: 'member' });
    },
  },
  {
    name: 'error: unknown on value',
    ruby: String.raw`resources :photos do
  get :preview, on: :photos
end`,
    draw: (r) => {
      r.resources('photos', (r) => {
        r.get('preview', { on: 'photos' });
      });
    },
  },
  {
    name: 'error: root with options hash plus further options',
    ruby: String.raw`root({ to: 'pages#home' }, { as: 'start' })`,
    draw: (r) => {
      loose(r).root({ to: 'pages#home' }, { as: 'start' });
    },
  },
  {
    name: 'error: missing controller for bare word at top level',
    ruby: String.raw`get :photos`,
    draw: (r) => {
      r.get('photos');
    },
  },
  {
    name: 'error: duplicate route name',
    ruby: String.raw`get :a, to: 'x#a', as: 'dup'
get :b, to: 'x#b', as: 'dup'`,
    draw: (r) => {
      r.get('a', { to: 'x#a', as: 'dup' });
      r.get('b', { to: 'x#b', as: 'dup' });
    },
  },
  // ───────────────────────────── namespace ─────────────────────────────
  {
    name: 'namespace: top level',
    ruby: String.raw`namespace :admin do
  resources :users
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.resources('users');
      });
    },
    recognize: [...crudProbes('admin/users'), ['GET', '/users']],
    generate: [['admin_users'], ['admin_user', 1], ['edit_admin_user', 1], ['new_admin_user']],
  },
  {
    name: 'namespace: nested namespaces',
    ruby: String.raw`namespace :api do
  namespace :v1 do
    resources :items, only: [:index, :show]
  end
end`,
    draw: (r) => {
      r.namespace('api', (r) => {
        r.namespace('v1', (r) => {
          r.resources('items', { only: ['index', 'show'] });
        });
      });
    },
    recognize: [
      ['GET', '/api/v1/items'],
      ['GET', '/api/v1/items/3.json'],
    ],
    generate: [['api_v1_items'], ['api_v1_item', 3]],
  },
  {
    name: 'namespace: inside a resource behaves as nested',
    ruby: String.raw`resources :posts, only: :show do
  namespace :admin do
    resources :notes, only: [:index, :show]
  end
end`,
    draw: (r) => {
      r.resources('posts', { only: 'show' }, (r) => {
        r.namespace('admin', (r) => {
          r.resources('notes', { only: ['index', 'show'] });
        });
      });
    },
    recognize: [
      ['GET', '/posts/1/admin/notes'],
      ['GET', '/posts/1/admin/notes/2'],
      ['GET', '/admin/notes'],
    ],
    generate: [
      ['post_admin_notes', 1],
      ['post_admin_note', 1, 2],
    ],
  },
  {
    name: 'namespace: path, as and module options',
    ruby: String.raw`namespace :admin, path: 'secret', as: 'sec', module: 'backoffice' do
  resources :users, only: [:index, :show]
end`,
    draw: (r) => {
      r.namespace('admin', { path: 'secret', as: 'sec', module: 'backoffice' }, (r) => {
        r.resources('users', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/secret/users'],
      ['GET', '/admin/users'],
      ['GET', '/secret/users/1'],
    ],
    generate: [['sec_users'], ['sec_user', 1]],
  },
  {
    name: 'namespace: defaults option',
    ruby: String.raw`namespace :api, defaults: { format: 'json' } do
  resources :items, only: :index
end`,
    draw: (r) => {
      r.namespace('api', { defaults: { format: 'json' } }, (r) => {
        r.resources('items', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/api/items'],
      ['GET', '/api/items.xml'],
    ],
    generate: [['api_items'], ['api_items', { format: 'xml' }]],
  },
  {
    name: 'namespace: controller option on child resource',
    ruby: String.raw`namespace :admin do
  resources :posts, controller: 'articles', only: :index
  get :stats, to: 'dashboard#stats'
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.resources('posts', { handler: 'articles', only: 'index' });
        r.get('stats', { to: 'dashboard#stats' });
      });
    },
    recognize: [
      ['GET', '/admin/posts'],
      ['GET', '/admin/stats'],
    ],
    generate: [['admin_posts'], ['admin_stats']],
  },
  // ───────────────────────────── scope ─────────────────────────────
  {
    name: 'scope: path string',
    ruby: String.raw`scope 'blog' do
  resources :entries, only: [:index, :show]
end`,
    draw: (r) => {
      r.scope('blog', (r) => {
        r.resources('entries', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/blog/entries'],
      ['GET', '/blog/entries/1'],
      ['GET', '/entries'],
    ],
    generate: [['entries'], ['entry', 1]],
  },
  {
    name: 'scope: leading slash path',
    ruby: String.raw`scope '/admin' do
  get :stats, to: 'dashboard#stats'
end`,
    draw: (r) => {
      r.scope('/admin', (r) => {
        r.get('stats', { to: 'dashboard#stats' });
      });
    },
    recognize: [['GET', '/admin/stats']],
    generate: [['stats']],
  },
  {
    name: 'scope: module',
    ruby: String.raw`scope module: 'admin' do
  resources :users, only: :index
end`,
    draw: (r) => {
      r.scope({ module: 'admin' }, (r) => {
        r.resources('users', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/users'],
      ['GET', '/admin/users'],
    ],
    generate: [['users']],
  },
  {
    name: 'scope: as',
    ruby: String.raw`scope as: 'v1' do
  resources :keys, only: [:index, :show]
end`,
    draw: (r) => {
      r.scope({ as: 'v1' }, (r) => {
        r.resources('keys', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/keys'],
      ['GET', '/keys/1'],
    ],
    generate: [['v1_keys'], ['v1_key', 1]],
  },
  {
    name: 'scope: path, module and as combined',
    ruby: String.raw`scope 'v1', module: 'api', as: 'v1' do
  resources :keys
end`,
    draw: (r) => {
      r.scope('v1', { module: 'api', as: 'v1' }, (r) => {
        r.resources('keys');
      });
    },
    recognize: [
      ['GET', '/v1/keys'],
      ['GET', '/v1/keys/k1'],
      ['GET', '/v1/keys/new'],
      ['GET', '/keys'],
    ],
    generate: [['v1_keys'], ['v1_key', 'k1'], ['new_v1_key'], ['edit_v1_key', 2]],
  },
  {
    name: 'scope: options form with path key',
    ruby: String.raw`scope path: 'admin', as: 'admin', module: 'admin' do
  resources :users, only: :index
end`,
    draw: (r) => {
      r.scope({ path: 'admin', as: 'admin', module: 'admin' }, (r) => {
        r.resources('users', { only: 'index' });
      });
    },
    recognize: [['GET', '/admin/users']],
    generate: [['admin_users']],
  },
  {
    name: 'scope: nested scopes',
    ruby: String.raw`scope 'a', as: 'a' do
  scope 'b', module: 'm' do
    scope as: 'c' do
      resources :items, only: [:index, :show]
    end
  end
end`,
    draw: (r) => {
      r.scope('a', { as: 'a' }, (r) => {
        r.scope('b', { module: 'm' }, (r) => {
          r.scope({ as: 'c' }, (r) => {
            r.resources('items', { only: ['index', 'show'] });
          });
        });
      });
    },
    recognize: [
      ['GET', '/a/b/items'],
      ['GET', '/a/b/items/1'],
    ],
    generate: [['a_c_items'], ['a_c_item', 1]],
  },
  {
    name: 'scope: dynamic segment with constraint',
    ruby: String.raw`scope ':account_id', as: 'account', constraints: { account_id: /\d+/ } do
  resources :projects, only: [:index, :show]
end`,
    draw: (r) => {
      r.scope(':account_id', { as: 'account', constraints: { account_id: /\d+/ } }, (r) => {
        r.resources('projects', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/12/projects'],
      ['GET', '/ab/projects'],
      ['GET', '/12/projects/3'],
    ],
    generate: [
      ['account_projects', 12],
      ['account_project', 12, 3],
      ['account_projects', { account_id: 5, page: 2 }],
    ],
  },
  {
    name: 'scope: optional locale segment',
    ruby: String.raw`scope '(:locale)', constraints: { locale: /en|fr/ } do
  resources :pages, only: :show
end`,
    draw: (r) => {
      r.scope('(:locale)', { constraints: { locale: /en|fr/ } }, (r) => {
        r.resources('pages', { only: 'show' });
      });
    },
    recognize: [
      ['GET', '/pages/1'],
      ['GET', '/en/pages/1'],
      ['GET', '/de/pages/1'],
      ['GET', '/fr/pages/1.json'],
    ],
    generate: [
      ['page', 1],
      ['page', 1, { locale: 'fr' }],
    ],
  },
  {
    name: 'scope: handler and action give the default target',
    ruby: String.raw`scope controller: 'pages', action: 'show' do
  get :about
  get :contact
end`,
    draw: (r) => {
      r.scope({ handler: 'pages', action: 'show' }, (r) => {
        r.get('about');
        r.get('contact');
      });
    },
    recognize: [
      ['GET', '/about'],
      ['GET', '/contact'],
    ],
    generate: [['about'], ['contact']],
  },
  {
    name: 'scope: handler only',
    ruby: String.raw`scope controller: 'pages' do
  get :about
  get :team, action: 'team_page'
end`,
    draw: (r) => {
      r.scope({ handler: 'pages' }, (r) => {
        r.get('about');
        r.get('team', { action: 'team_page' });
      });
    },
    recognize: [
      ['GET', '/about'],
      ['GET', '/team'],
    ],
    generate: [['about'], ['team']],
  },
  {
    name: 'scope: path_names',
    ruby: String.raw`scope path_names: { new: 'neu', edit: 'bearbeiten' } do
  resources :items
end`,
    draw: (r) => {
      r.scope({ pathNames: { new: 'neu', edit: 'bearbeiten' } }, (r) => {
        r.resources('items');
      });
    },
    recognize: [
      ['GET', '/items/neu'],
      ['GET', '/items/1/bearbeiten'],
      ['GET', '/items/new'],
    ],
    generate: [['new_item'], ['edit_item', 1]],
  },
  {
    name: 'resources_path_names',
    ruby: String.raw`resources_path_names new: 'nuevo', edit: 'editar'
resources :photos
resource :profile, only: [:new, :edit]`,
    draw: (r) => {
      r.resourcesPathNames({ new: 'nuevo', edit: 'editar' });
      r.resources('photos');
      r.resource('profile', { only: ['new', 'edit'] });
    },
    recognize: [
      ['GET', '/photos/nuevo'],
      ['GET', '/photos/1/editar'],
      ['GET', '/profile/nuevo'],
      ['GET', '/photos/new'],
    ],
    generate: [['new_photo'], ['edit_photo', 1], ['edit_profile']],
  },
  // ───────────────────────────── concerns ─────────────────────────────
  {
    name: 'concerns: option (single and list)',
    ruby: String.raw`concern :commentable do
  resources :comments, only: [:index, :create]
end
concern :image_attachable do
  resources :images, only: :index
end
resources :articles, concerns: :commentable
resources :videos, concerns: [:commentable, :image_attachable], only: :show`,
    draw: (r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: ['index', 'create'] });
      });
      r.concern('image_attachable', (r) => {
        r.resources('images', { only: 'index' });
      });
      r.resources('articles', { concerns: 'commentable' });
      r.resources('videos', { concerns: ['commentable', 'image_attachable'], only: 'show' });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['POST', '/videos/2/comments'],
      ['GET', '/videos/2/images'],
      ['GET', '/articles/1/images'],
    ],
    generate: [
      ['article_comments', 1],
      ['video_images', 2],
    ],
  },
  {
    name: 'concerns: call inside resource',
    ruby: String.raw`concern :commentable do
  resources :comments, only: :index
end
resources :articles, only: :index do
  concerns :commentable
  get :feed, on: :collection
end`,
    draw: (r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: 'index' });
      });
      r.resources('articles', { only: 'index' }, (r) => {
        r.concerns('commentable');
        r.get('feed', { on: 'collection' });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['GET', '/articles/feed'],
    ],
    generate: [['article_comments', 1], ['feed_articles']],
  },
  {
    name: 'concerns: options passed to the concern block',
    ruby: String.raw`concern :commentable do |options|
  resources :comments, options
end
resources :articles, only: [] do
  concerns :commentable, only: :index
end
resources :posts, only: [] do
  concerns :commentable, only: :show, as: 'remarks'
end`,
    draw: (r) => {
      r.concern('commentable', (r, options) => {
        r.resources('comments', options);
      });
      r.resources('articles', { only: [] }, (r) => {
        r.concerns('commentable', { only: 'index' });
      });
      r.resources('posts', { only: [] }, (r) => {
        r.concerns('commentable', { only: 'show', as: 'remarks' });
      });
    },
    recognize: [
      ['GET', '/articles/1/comments'],
      ['GET', '/articles/1/comments/2'],
      ['GET', '/posts/1/comments/2'],
    ],
    generate: [
      ['article_comments', 1],
      ['post_remark', 1, 2],
    ],
  },
  {
    name: 'concerns: member routes in a concern, call at top level',
    ruby: String.raw`concern :reviewable do
  get :reviews, to: 'reviews#index'
end
concerns :reviewable
resources :books, only: :show, concerns: :reviewable`,
    draw: (r) => {
      r.concern('reviewable', (r) => {
        r.get('reviews', { to: 'reviews#index' });
      });
      r.concerns('reviewable');
      r.resources('books', { only: 'show', concerns: 'reviewable' });
    },
    recognize: [
      ['GET', '/reviews'],
      ['GET', '/books/1/reviews'],
    ],
    generate: [['reviews'], ['book_reviews', 1]],
  },
  // ───────────────────────────── constraints / defaults blocks ─────────────────────────────
  {
    name: 'constraints block',
    ruby: String.raw`constraints id: /\d+/ do
  resources :photos, only: [:show, :edit]
end
get 'photos/:id/raw', to: 'photos#raw', as: 'raw_photo', constraints: { id: /[^\/]+/ }`,
    draw: (r) => {
      r.constraints({ id: /\d+/ }, (r) => {
        r.resources('photos', { only: ['show', 'edit'] });
      });
      r.get('photos/:id/raw', { to: 'photos#raw', as: 'raw_photo', constraints: { id: /[^\/]+/ } });
    },
    recognize: [
      ['GET', '/photos/12'],
      ['GET', '/photos/ab'],
      ['GET', '/photos/a.b/raw'],
      ['GET', '/photos/12/edit'],
    ],
    generate: [
      ['photo', 12],
      ['raw_photo', 'a.b'],
    ],
  },
  {
    name: 'defaults block',
    ruby: String.raw`defaults format: 'json' do
  resources :photos, only: :index
  get :status, to: 'health#status'
end`,
    draw: (r) => {
      r.defaults({ format: 'json' }, (r) => {
        r.resources('photos', { only: 'index' });
        r.get('status', { to: 'health#status' });
      });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/status'],
      ['GET', '/status.xml'],
    ],
    generate: [['photos'], ['status']],
  },
  // ───────────────────────────── match ─────────────────────────────
  {
    name: 'match: to and via, unnamed path with segment',
    ruby: String.raw`match 'photos/:id', to: 'photos#show', via: :get`,
    draw: (r) => {
      r.match('photos/:id', { to: 'photos#show', via: 'get' });
    },
    recognize: [
      ['GET', '/photos/1'],
      ['POST', '/photos/1'],
      ['HEAD', '/photos/1'],
      ['GET', '/photos/1.json'],
      ['GET', '/photos'],
    ],
  },
  {
    name: 'match: as option',
    ruby: String.raw`match 'photos/:id', to: 'photos#show', via: :get, as: 'picture'`,
    draw: (r) => {
      r.match('photos/:id', { to: 'photos#show', via: 'get', as: 'picture' });
    },
    recognize: [['GET', '/photos/1']],
    generate: [
      ['picture', 1],
      ['picture', 1, 'png'],
      ['picture', { id: 1, size: 'lg' }],
    ],
  },
  {
    name: 'match: via list',
    ruby: String.raw`match :photos, to: 'photos#list', via: [:get, :post]`,
    draw: (r) => {
      r.match('photos', { to: 'photos#list', via: ['get', 'post'] });
    },
    recognize: [
      ['GET', '/photos'],
      ['POST', '/photos'],
      ['PUT', '/photos'],
      ['HEAD', '/photos'],
    ],
    generate: [['photos']],
  },
  {
    name: 'match: via all',
    ruby: String.raw`match :ping, to: 'health#ping', via: :all`,
    draw: (r) => {
      r.match('ping', { to: 'health#ping', via: 'all' });
    },
    recognize: [
      ['GET', '/ping'],
      ['DELETE', '/ping'],
      ['OPTIONS', '/ping'],
      ['HEAD', '/ping'],
    ],
    generate: [['ping']],
  },
  {
    name: 'match: anchor false',
    ruby: String.raw`match :assets, to: 'assets#serve', via: :get, anchor: false`,
    draw: (r) => {
      r.match('assets', { to: 'assets#serve', via: 'get', anchor: false });
    },
    recognize: [
      ['GET', '/assets'],
      ['GET', '/assets/app.js'],
      ['GET', '/assets/a/b/c'],
      ['GET', '/assetsx'],
    ],
    generate: [['assets']],
  },
  {
    name: 'match: several paths',
    ruby: String.raw`get :about, :contact, to: 'pages#show'`,
    draw: (r) => {
      r.get(['about', 'contact'], { to: 'pages#show' });
    },
    recognize: [
      ['GET', '/about'],
      ['GET', '/contact'],
      ['GET', '/about.json'],
    ],
    generate: [['about'], ['contact']],
  },
  {
    name: 'match: several path strings',
    ruby: String.raw`get 'help/faq', 'help/terms', to: 'pages#static'`,
    draw: (r) => {
      r.get(['help/faq', 'help/terms'], { to: 'pages#static' });
    },
    recognize: [
      ['GET', '/help/faq'],
      ['GET', '/help/terms'],
    ],
    generate: [['help_faq'], ['help_terms']],
  },
  {
    name: 'match: map form',
    ruby: String.raw`match 'about' => 'pages#about', via: :get
get 'photos/:id/full' => 'photos#full', as: 'full_photo'
match 'legal/terms' => 'pages#terms', via: [:get, :post]`,
    draw: (r) => {
      r.match({ about: 'pages#about', via: 'get' });
      r.get({ 'photos/:id/full': 'photos#full', as: 'full_photo' });
      r.match({ 'legal/terms': 'pages#terms', via: ['get', 'post'] });
    },
    recognize: [
      ['GET', '/about'],
      ['GET', '/photos/3/full'],
      ['POST', '/legal/terms'],
      ['DELETE', '/legal/terms'],
    ],
    generate: [['about'], ['full_photo', 3], ['legal_terms']],
  },
  {
    name: 'match: segment constraints and optional segments',
    ruby: String.raw`get 'posts/:year/:month', to: 'posts#archive', as: 'archive', constraints: { year: /\d{4}/, month: /\d{2}/ }
get 'blog(/:year(/:month))', to: 'blog#index', as: 'blog'`,
    draw: (r) => {
      r.get('posts/:year/:month', {
        to: 'posts#archive',
        as: 'archive',
        constraints: { year: /\d{4}/, month: /\d{2}/ },
      });
      r.get('blog(/:year(/:month))', { to: 'blog#index', as: 'blog' });
    },
    recognize: [
      ['GET', '/posts/2020/03'],
      ['GET', '/posts/20/03'],
      ['GET', '/posts/2020/3'],
      ['GET', '/blog'],
      ['GET', '/blog/2020'],
      ['GET', '/blog/2020/05'],
      ['GET', '/blog/2020/05.json'],
      ['GET', '/blog/2020/05/x'],
    ],
    generate: [
      ['archive', 2020, '03'],
      ['archive', { year: 2021, month: '12' }],
      ['archive', 2020],
      ['blog'],
      ['blog', 2020],
      ['blog', 2020, 5],
      ['blog', { year: 2020, month: 5 }],
      ['blog', { month: 5 }],
      ['blog', { year: 2020, q: 1 }],
    ],
  },
  {
    name: 'match: defaults on a route',
    ruby: String.raw`get 'photos(/:page)', to: 'photos#index', defaults: { page: '1' }, as: 'paged_photos'`,
    draw: (r) => {
      r.get('photos(/:page)', { to: 'photos#index', defaults: { page: '1' }, as: 'paged_photos' });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/3'],
    ],
    generate: [['paged_photos'], ['paged_photos', 3], ['paged_photos', { page: 1 }]],
  },
  {
    name: 'match: explicit (.:format) and format false',
    ruby: String.raw`get 'feed(.:format)', to: 'feeds#show', as: 'feed'
get :raw, to: 'feeds#raw', format: false
get :data, to: 'feeds#data', format: true`,
    draw: (r) => {
      r.get('feed(.:format)', { to: 'feeds#show', as: 'feed' });
      r.get('raw', { to: 'feeds#raw', format: false });
      r.get('data', { to: 'feeds#data', format: true });
    },
    recognize: [
      ['GET', '/feed'],
      ['GET', '/feed.rss'],
      ['GET', '/raw'],
      ['GET', '/raw.json'],
      ['GET', '/data'],
      ['GET', '/data.csv'],
    ],
    generate: [['feed', 'rss'], ['raw'], ['data', 'csv']],
  },
  {
    name: 'verb methods',
    ruby: String.raw`get :show_me, to: 'verbs#get'
post :signup, to: 'users#create'
put 'items/:id', to: 'items#replace', as: 'replace_item'
patch 'items/:id', to: 'items#tweak'
delete 'items/:id', to: 'items#remove'`,
    draw: (r) => {
      r.get('show_me', { to: 'verbs#get' });
      r.post('signup', { to: 'users#create' });
      r.put('items/:id', { to: 'items#replace', as: 'replace_item' });
      r.patch('items/:id', { to: 'items#tweak' });
      r.delete('items/:id', { to: 'items#remove' });
    },
    recognize: [
      ['GET', '/show_me'],
      ['POST', '/signup'],
      ['GET', '/signup'],
      ['PUT', '/items/1'],
      ['PATCH', '/items/1'],
      ['DELETE', '/items/1'],
      ['GET', '/items/1'],
    ],
    generate: [['show_me'], ['signup'], ['replace_item', 1]],
  },
  {
    name: 'shorthand: path to handler#action',
    ruby: String.raw`get 'help/faq'
get 'about-us/team-members'
get '/docs/api/intro'
post 'account/close'
get 'help/contact(.:format)'`,
    draw: (r) => {
      r.get('help/faq');
      r.get('about-us/team-members');
      r.get('/docs/api/intro');
      r.post('account/close');
      r.get('help/contact(.:format)');
    },
    recognize: [
      ['GET', '/help/faq'],
      ['GET', '/about-us/team-members'],
      ['GET', '/docs/api/intro'],
      ['POST', '/account/close'],
      ['GET', '/help/contact.json'],
    ],
    generate: [
      ['help_faq'],
      ['about_us_team_members'],
      ['docs_api_intro'],
      ['account_close'],
      ['help_contact', 'json'],
    ],
  },
  {
    name: 'match: to with only action inside resource member scope',
    ruby: String.raw`resources :photos, only: [] do
  member do
    get :preview, to: 'previews#show'
    get :crop, action: :cropper
  end
end`,
    draw: (r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.member((r) => {
          r.get('preview', { to: 'previews#show' });
          r.get('crop', { action: 'cropper' });
        });
      });
    },
    recognize: [
      ['GET', '/photos/1/preview'],
      ['GET', '/photos/1/crop'],
    ],
    generate: [
      ['preview_photo', 1],
      ['crop_photo', 1],
    ],
  },
  // ───────────────────────────── root ─────────────────────────────
  {
    name: 'root: string',
    ruby: String.raw`root 'pages#home'`,
    draw: (r) => {
      r.root('pages#home');
    },
    recognize: [
      ['GET', '/'],
      ['HEAD', '/'],
      ['POST', '/'],
      ['GET', ''],
      ['GET', '/index.html'],
      ['GET', '/.json'],
    ],
    generate: [['root'], ['root', { q: 1 }]],
  },
  {
    name: 'root: hash with as',
    ruby: String.raw`root to: 'pages#home', as: 'start'`,
    draw: (r) => {
      r.root({ to: 'pages#home', as: 'start' });
    },
    recognize: [['GET', '/']],
    generate: [['start']],
  },
  {
    name: 'root: inside resources',
    ruby: String.raw`resources :photos, only: :show do
  root to: 'photos#index'
end`,
    draw: (r) => {
      r.resources('photos', { only: 'show' }, (r) => {
        r.root({ to: 'photos#index' });
      });
    },
    recognize: [
      ['GET', '/photos'],
      ['GET', '/photos/1'],
      ['GET', '/'],
    ],
    generate: [['photos_root']],
  },
  {
    name: 'root: inside namespace and scope',
    ruby: String.raw`namespace :admin do
  root 'dashboard#index'
end
scope 'blog', as: 'blog' do
  root to: 'entries#index'
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.root('dashboard#index');
      });
      r.scope('blog', { as: 'blog' }, (r) => {
        r.root({ to: 'entries#index' });
      });
    },
    recognize: [
      ['GET', '/admin'],
      ['GET', '/admin/'],
      ['GET', '/blog'],
    ],
    generate: [['admin_root'], ['blog_root']],
  },
  // ───────────────────────────── globs ─────────────────────────────
  {
    name: 'glob: catch-all and inner glob',
    ruby: String.raw`get 'files/*filepath', to: 'files#show', as: 'file'
get 'docs/*section/edit', to: 'docs#edit', as: 'edit_doc'
get '*path', to: 'errors#not_found'`,
    draw: (r) => {
      r.get('files/*filepath', { to: 'files#show', as: 'file' });
      r.get('docs/*section/edit', { to: 'docs#edit', as: 'edit_doc' });
      r.get('*path', { to: 'errors#not_found' });
    },
    recognize: [
      ['GET', '/files/a/b/c.txt'],
      ['GET', '/files/a'],
      ['GET', '/files/a%20b/c'],
      ['GET', '/docs/x/y/edit'],
      ['GET', '/docs/x/edit.json'],
      ['GET', '/anything/else'],
      ['GET', '/x.json'],
      ['POST', '/anything'],
      ['GET', '/'],
    ],
    generate: [
      ['file', 'a/b/c.txt'],
      ['file', 'a b/c'],
      ['edit_doc', 'x/y'],
      ['file', { filepath: 'z' }],
    ],
  },
  {
    name: 'glob: format false and via all',
    ruby: String.raw`get 'pages/*slug', to: 'pages#show', format: false, as: 'page'
match '*any', to: 'errors#show', via: :all`,
    draw: (r) => {
      r.get('pages/*slug', { to: 'pages#show', format: false, as: 'page' });
      r.match('*any', { to: 'errors#show', via: 'all' });
    },
    recognize: [
      ['GET', '/pages/a/b.html'],
      ['DELETE', '/nothing/here'],
      ['PUT', '/x.json'],
    ],
    generate: [['page', 'a/b.html']],
  },
  // ───────────────────────────── inflections ─────────────────────────────
  {
    name: 'inflection: uncountable sheep',
    ruby: String.raw`resources :sheep`,
    draw: (r) => {
      r.resources('sheep');
    },
    recognize: [
      ['GET', '/sheep'],
      ['GET', '/sheep/1'],
    ],
    generate: [['sheep_index'], ['sheep', 1], ['new_sheep'], ['edit_sheep', 1]],
  },
  {
    name: 'inflection: uncountable news with nested child',
    ruby: String.raw`resources :news do
  resources :comments, only: :index
end`,
    draw: (r) => {
      r.resources('news', (r) => {
        r.resources('comments', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/news'],
      ['GET', '/news/1'],
      ['GET', '/news/1/comments'],
    ],
    generate: [['news_index'], ['news', 1], ['news_comments', 1]],
  },
  {
    name: 'inflection: irregular and rule-based plurals (resources)',
    ruby: String.raw`resources :people, :categories, :statuses, :addresses, :mice, :boxes, :wolves, :quizzes, only: :show
resources :children, :analyses, :matrices, :indices, :vertices, :buses, :aliases, :octopi, only: :show
resources :movies, :axes, :crises, :oxen, :shoes, :knives, :halves, :data, :media, only: :show
resources :databases, :houses, :heroes, :moves, :zombies, :companies, :series, :species, :fish, :police, only: :show
resources :equipment, :information, :rice, :money, :jeans, :bases, :buffaloes, :viri, :kisses, :wives, only: :show`,
    draw: (r) => {
      r.resources(['people', 'categories', 'statuses', 'addresses', 'mice', 'boxes', 'wolves', 'quizzes'], {
        only: 'show',
      });
      r.resources(['children', 'analyses', 'matrices', 'indices', 'vertices', 'buses', 'aliases', 'octopi'], {
        only: 'show',
      });
      r.resources(['movies', 'axes', 'crises', 'oxen', 'shoes', 'knives', 'halves', 'data', 'media'], { only: 'show' });
      r.resources(
        ['databases', 'houses', 'heroes', 'moves', 'zombies', 'companies', 'series', 'species', 'fish', 'police'],
        { only: 'show' },
      );
      r.resources(
        ['equipment', 'information', 'rice', 'money', 'jeans', 'bases', 'buffaloes', 'viri', 'kisses', 'wives'],
        { only: 'show' },
      );
    },
    recognize: [
      ['GET', '/people/1'],
      ['GET', '/mice/2'],
      ['GET', '/octopi/3'],
    ],
    generate: [
      ['person', 1],
      ['mouse', 2],
      ['wolf', 3],
      ['quiz', 4],
      ['status', 5],
      ['address', 6],
    ],
  },
  {
    name: 'inflection: irregular plurals with nested children (parent id names)',
    ruby: String.raw`resources :people do
  resources :addresses, only: :index
end
resources :categories, only: [] do
  resources :statuses, only: :index
end
resources :mice, only: [] do
  resources :wolves, only: :index
end`,
    draw: (r) => {
      r.resources('people', (r) => {
        r.resources('addresses', { only: 'index' });
      });
      r.resources('categories', { only: [] }, (r) => {
        r.resources('statuses', { only: 'index' });
      });
      r.resources('mice', { only: [] }, (r) => {
        r.resources('wolves', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/people/1/addresses'],
      ['GET', '/categories/2/statuses'],
      ['GET', '/mice/3/wolves'],
    ],
    generate: [['person_addresses', 1], ['category_statuses', 2], ['mouse_wolves', 3], ['people'], ['person', 1]],
  },
  {
    name: 'inflection: singular resources pluralize the handler',
    ruby: String.raw`resource :person, :status, :sheep, :mouse, :quiz, :leaf, :wife, :half, only: :show
resource :axis, :child, :datum, :octopus, :virus, :ox, :index, :matrix, only: :show
resource :vertex, :category, :day, :bus, :alias, :analysis, :crisis, :information, :equipment, only: :show
resource :news, :series, :move, :zombie, :hero, :buffalo, :tomato, :shoe, :house, :wolf, only: :show`,
    draw: (r) => {
      r.resource(['person', 'status', 'sheep', 'mouse', 'quiz', 'leaf', 'wife', 'half'], { only: 'show' });
      r.resource(['axis', 'child', 'datum', 'octopus', 'virus', 'ox', 'index', 'matrix'], { only: 'show' });
      r.resource(['vertex', 'category', 'day', 'bus', 'alias', 'analysis', 'crisis', 'information', 'equipment'], {
        only: 'show',
      });
      r.resource(['news', 'series', 'move', 'zombie', 'hero', 'buffalo', 'tomato', 'shoe', 'house', 'wolf'], {
        only: 'show',
      });
    },
    recognize: [
      ['GET', '/person'],
      ['GET', '/mouse'],
    ],
    generate: [['person'], ['quiz']],
  },
  {
    name: 'inflection: singular resource with nested plural and member',
    ruby: String.raw`resource :person do
  resources :quizzes, only: :show
  get :card, on: :member
end`,
    draw: (r) => {
      r.resource('person', (r) => {
        r.resources('quizzes', { only: 'show' });
        r.get('card', { on: 'member' });
      });
    },
    recognize: [
      ['GET', '/person/quizzes/1'],
      ['GET', '/person/card'],
    ],
    generate: [['person_quiz', 1], ['card_person']],
  },
  {
    name: 'inflection: compound and underscored names',
    ruby: String.raw`resources :line_items, :user_profiles, :api_keys, only: :show
resources :order_statuses do
  resources :line_items, only: :index
end`,
    draw: (r) => {
      r.resources(['line_items', 'user_profiles', 'api_keys'], { only: 'show' });
      r.resources('order_statuses', (r) => {
        r.resources('line_items', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/line_items/1'],
      ['GET', '/order_statuses/2/line_items'],
    ],
    generate: [
      ['line_item', 1],
      ['order_status_line_items', 2],
      ['order_status', 2],
    ],
  },
  // ───────────────────────────── combinations ─────────────────────────────
  {
    name: 'combo: namespace, nested resources, member, concern and shallow',
    ruby: String.raw`concern :commentable do
  resources :comments, only: [:index, :show]
end
namespace :admin do
  resources :posts, shallow: true, concerns: :commentable do
    member do
      post :publish
    end
    resources :revisions, only: [:index, :show]
  end
end`,
    draw: (r) => {
      r.concern('commentable', (r) => {
        r.resources('comments', { only: ['index', 'show'] });
      });
      r.namespace('admin', (r) => {
        r.resources('posts', { shallow: true, concerns: 'commentable' }, (r) => {
          r.member((r) => {
            r.post('publish');
          });
          r.resources('revisions', { only: ['index', 'show'] });
        });
      });
    },
    recognize: [
      ['GET', '/admin/posts/1/comments'],
      ['GET', '/admin/comments/2'],
      ['POST', '/admin/posts/1/publish'],
      ['GET', '/admin/revisions/3'],
      ['GET', '/admin/posts/1/revisions'],
    ],
    generate: [
      ['admin_post_comments', 1],
      ['admin_comment', 2],
      ['publish_admin_post', 1],
      ['admin_revision', 3],
    ],
  },
  {
    name: 'combo: route order, custom route before resources wins',
    ruby: String.raw`get 'photos/new', to: 'photos#custom_new', as: 'custom_new_photo'
resources :photos, only: [:new, :show]
get 'photos/latest', to: 'photos#latest'`,
    draw: (r) => {
      r.get('photos/new', { to: 'photos#custom_new', as: 'custom_new_photo' });
      r.resources('photos', { only: ['new', 'show'] });
      r.get('photos/latest', { to: 'photos#latest' });
    },
    recognize: [
      ['GET', '/photos/new'],
      ['GET', '/photos/latest'],
      ['GET', '/photos/5'],
    ],
    generate: [['custom_new_photo'], ['new_photo'], ['photos_latest']],
  },
  {
    name: 'combo: scope module with nested resources and namespace',
    ruby: String.raw`scope module: 'api' do
  namespace :v2 do
    resources :users, only: :show do
      resources :keys, only: :index
    end
  end
end`,
    draw: (r) => {
      r.scope({ module: 'api' }, (r) => {
        r.namespace('v2', (r) => {
          r.resources('users', { only: 'show' }, (r) => {
            r.resources('keys', { only: 'index' });
          });
        });
      });
    },
    recognize: [
      ['GET', '/v2/users/1'],
      ['GET', '/v2/users/1/keys'],
    ],
    generate: [
      ['v2_user', 1],
      ['v2_user_keys', 1],
    ],
  },
  {
    name: 'combo: resource inside namespace inside resources',
    ruby: String.raw`resources :teams, only: [] do
  namespace :billing do
    resource :plan, only: [:show, :update]
  end
end`,
    draw: (r) => {
      r.resources('teams', { only: [] }, (r) => {
        r.namespace('billing', (r) => {
          r.resource('plan', { only: ['show', 'update'] });
        });
      });
    },
    recognize: [
      ['GET', '/teams/1/billing/plan'],
      ['PATCH', '/teams/1/billing/plan'],
    ],
    generate: [['team_billing_plan', 1]],
  },
  // ───────────────────────────── edge cases ─────────────────────────────
  {
    name: 'edge: shallow nested member, collection, new and nested blocks with shallow_path/prefix',
    ruby: String.raw`scope shallow_path: 'sp', shallow_prefix: 'pre' do
  resources :articles, only: [] do
    resources :comments, shallow: true, only: [:index, :show] do
      member do
        get :preview
      end
      collection do
        get :search
      end
      new do
        get :draft
      end
      nested do
        get :stats
      end
    end
  end
end`,
    draw: (r) => {
      r.scope({ shallowPath: 'sp', shallowPrefix: 'pre' }, (r) => {
        r.resources('articles', { only: [] }, (r) => {
          r.resources('comments', { shallow: true, only: ['index', 'show'] }, (r) => {
            r.member((r) => {
              r.get('preview');
            });
            r.collection((r) => {
              r.get('search');
            });
            r.new((r) => {
              r.get('draft');
            });
            r.nested((r) => {
              r.get('stats');
            });
          });
        });
      });
    },
    recognize: [
      ['GET', '/sp/comments/2/preview'],
      ['GET', '/articles/1/comments/search'],
      ['GET', '/articles/1/comments/new/draft'],
      ['GET', '/sp/comments/2/stats'],
      ['GET', '/articles/1/comments/2/stats'],
    ],
    generate: [
      ['preview_pre_comment', 2],
      ['search_article_comments', 1],
      ['draft_new_article_comment', 1],
      ['pre_comment_stats', 2],
      ['pre_comment', 2],
    ],
  },
  {
    name: 'edge: shallow on a singular parent has no effect',
    ruby: String.raw`resource :account, shallow: true do
  resources :items, only: [:index, :show]
end`,
    draw: (r) => {
      r.resource('account', { shallow: true }, (r) => {
        r.resources('items', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/account/items/1'],
      ['GET', '/items/1'],
    ],
    generate: [
      ['account_item', 1],
      ['item', 1],
    ],
  },
  {
    name: 'edge: shallow nested four levels with namespace',
    ruby: String.raw`namespace :api do
  resources :orgs, shallow: true do
    resources :teams do
      resources :members, only: [:index, :show] do
        resources :roles, only: [:index, :show]
      end
    end
  end
end`,
    draw: (r) => {
      r.namespace('api', (r) => {
        r.resources('orgs', { shallow: true }, (r) => {
          r.resources('teams', (r) => {
            r.resources('members', { only: ['index', 'show'] }, (r) => {
              r.resources('roles', { only: ['index', 'show'] });
            });
          });
        });
      });
    },
    recognize: [
      ['GET', '/api/members/3/roles'],
      ['GET', '/api/roles/4'],
      ['GET', '/api/teams/2/members'],
    ],
    generate: [
      ['api_member_roles', 3],
      ['api_role', 4],
      ['api_team_members', 2],
      ['api_team', 2],
    ],
  },
  {
    name: 'edge: constraints propagate to member routes and nested shallow',
    ruby: String.raw`resources :users, constraints: { id: /[^\/]+/ }, shallow: true do
  member do
    get :card
  end
  resources :keys, only: [:index, :show]
end`,
    draw: (r) => {
      r.resources('users', { constraints: { id: /[^\/]+/ }, shallow: true }, (r) => {
        r.member((r) => {
          r.get('card');
        });
        r.resources('keys', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/users/a.b/card'],
      ['GET', '/users/a.b/keys'],
      ['GET', '/keys/x.y'],
      ['GET', '/users/a.b.json'],
    ],
    generate: [
      ['card_user', 'a.b'],
      ['user_keys', 'a.b'],
      ['key', 'x.y'],
    ],
  },
  {
    name: 'edge: case-insensitive regexp constraint',
    ruby: String.raw`resources :codes, only: :show, constraints: { id: /[a-z]+/i }`,
    draw: (r) => {
      r.resources('codes', { only: 'show', constraints: { id: /[a-z]+/i } });
    },
    recognize: [
      ['GET', '/codes/abc'],
      ['GET', '/codes/ABC'],
      ['GET', '/codes/a1'],
    ],
    generate: [['code', 'XYZ']],
  },
  {
    name: 'edge: format constraint',
    ruby: String.raw`resources :reports, only: [:index, :show], constraints: { format: /json|csv/ }`,
    draw: (r) => {
      r.resources('reports', { only: ['index', 'show'], constraints: { format: /json|csv/ } });
    },
    recognize: [
      ['GET', '/reports'],
      ['GET', '/reports.csv'],
      ['GET', '/reports.xml'],
      ['GET', '/reports/1.json'],
      ['GET', '/reports/1'],
    ],
    generate: [['report', 1, 'csv'], ['reports']],
  },
  {
    name: 'error: anchored regexp constraint',
    ruby: String.raw`resources :photos, constraints: { id: /^\d+/ }`,
    draw: (r) => {
      r.resources('photos', { constraints: { id: /^\d+/ } });
    },
  },
  {
    name: 'edge: same path, constrained route first',
    ruby: String.raw`get 'p/:id', to: 'pages#numeric', constraints: { id: /\d+/ }, as: 'num'
get 'p/:id', to: 'pages#named', as: 'named'`,
    draw: (r) => {
      r.get('p/:id', { to: 'pages#numeric', constraints: { id: /\d+/ }, as: 'num' });
      r.get('p/:id', { to: 'pages#named', as: 'named' });
    },
    recognize: [
      ['GET', '/p/12'],
      ['GET', '/p/about'],
      ['GET', '/p/1.json'],
    ],
    generate: [
      ['num', 12],
      ['named', 'about'],
      ['num', 'about'],
    ],
  },
  {
    name: 'edge: explicit HEAD route wins over GET for HEAD requests',
    ruby: String.raw`get :ping, to: 'health#get'
match :ping, to: 'health#head', via: :head, as: 'ping_head'
match :status, to: 'health#options', via: :options`,
    draw: (r) => {
      r.get('ping', { to: 'health#get' });
      r.match('ping', { to: 'health#head', via: 'head', as: 'ping_head' });
      r.match('status', { to: 'health#options', via: 'options' });
    },
    recognize: [
      ['GET', '/ping'],
      ['HEAD', '/ping'],
      ['OPTIONS', '/status'],
      ['GET', '/status'],
    ],
    generate: [['ping'], ['ping_head']],
  },
  {
    name: 'edge: leading-slash controller escapes the namespace module',
    ruby: String.raw`namespace :admin do
  resources :users, controller: '/users', only: :index
  get :report, to: '/reports#show'
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.resources('users', { handler: '/users', only: 'index' });
        r.get('report', { to: '/reports#show' });
      });
    },
    recognize: [
      ['GET', '/admin/users'],
      ['GET', '/admin/report'],
    ],
    generate: [['admin_users'], ['admin_report']],
  },
  {
    name: 'error: invalid controller name',
    ruby: String.raw`resources :users, controller: 'Admin::Users'`,
    draw: (r) => {
      r.resources('users', { handler: 'Admin::Users' });
    },
  },
  {
    name: 'edge: hyphenated symbol action inside resources',
    ruby: String.raw`resources :photos, only: [] do
  get :'full-size', on: :member
  get :'top-rated', on: :collection
end`,
    draw: (r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.get('full-size', { on: 'member' });
        r.get('top-rated', { on: 'collection' });
      });
    },
    recognize: [
      ['GET', '/photos/1/full-size'],
      ['GET', '/photos/top-rated'],
    ],
    generate: [['full_size_photo', 1], ['top_rated_photos']],
  },
  {
    name: 'edge: hyphenated resource name',
    ruby: String.raw`resources :'user-profiles', only: [:index, :show]`,
    draw: (r) => {
      r.resources('user-profiles', { only: ['index', 'show'] });
    },
    recognize: [
      ['GET', '/user-profiles'],
      ['GET', '/user-profiles/1'],
    ],
    generate: [['user_profiles'], ['user_profile', 1]],
  },
  {
    name: 'edge: resources path with slash and dynamic segment',
    ruby: String.raw`resources :photos, path: 'gallery/all', only: [:index, :show]
resources :albums, path: ':owner/albums', only: [:index, :show]`,
    draw: (r) => {
      r.resources('photos', { path: 'gallery/all', only: ['index', 'show'] });
      r.resources('albums', { path: ':owner/albums', only: ['index', 'show'] });
    },
    recognize: [
      ['GET', '/gallery/all'],
      ['GET', '/gallery/all/3'],
      ['GET', '/bob/albums/2'],
      ['GET', '/bob/albums'],
    ],
    generate: [['photo', 3], ['album', 'bob', 2], ['albums', { owner: 'ann' }], ['albums']],
  },
  {
    name: 'edge: format false and defaults on parent apply to nested',
    ruby: String.raw`resources :a, format: false, only: :show do
  resources :b, only: :index
end
resources :c, defaults: { locale: 'en' }, only: :show do
  resources :d, only: :index
end`,
    draw: (r) => {
      r.resources('a', { format: false, only: 'show' }, (r) => {
        r.resources('b', { only: 'index' });
      });
      r.resources('c', { defaults: { locale: 'en' }, only: 'show' }, (r) => {
        r.resources('d', { only: 'index' });
      });
    },
    recognize: [
      ['GET', '/a/1/b'],
      ['GET', '/a/1/b.json'],
      ['GET', '/c/1/d'],
      ['GET', '/c/1'],
    ],
    generate: [
      ['a_b_index', 1],
      ['c_d_index', 1],
    ],
  },
  {
    name: 'edge: scope format false and format true',
    ruby: String.raw`scope format: false do
  resources :plain, only: :index
end
scope format: true do
  get :export, to: 'exports#show'
end`,
    draw: (r) => {
      r.scope({ format: false }, (r) => {
        r.resources('plain', { only: 'index' });
      });
      r.scope({ format: true }, (r) => {
        r.get('export', { to: 'exports#show' });
      });
    },
    recognize: [
      ['GET', '/plain'],
      ['GET', '/plain.json'],
      ['GET', '/export.csv'],
      ['GET', '/export'],
    ],
    generate: [['plain_index'], ['export', 'csv']],
  },
  {
    name: 'edge: resources_path_names vs path_names precedence',
    ruby: String.raw`resources_path_names new: 'nuevo', edit: 'editar'
resources :photos, path_names: { edit: 'cambiar' }, only: [:new, :edit]
scope path_names: { new: 'neu' } do
  resources :items, only: [:new, :edit]
end`,
    draw: (r) => {
      r.resourcesPathNames({ new: 'nuevo', edit: 'editar' });
      r.resources('photos', { pathNames: { edit: 'cambiar' }, only: ['new', 'edit'] });
      r.scope({ pathNames: { new: 'neu' } }, (r) => {
        r.resources('items', { only: ['new', 'edit'] });
      });
    },
    recognize: [
      ['GET', '/photos/nuevo'],
      ['GET', '/photos/1/cambiar'],
      ['GET', '/items/neu'],
      ['GET', '/items/1/editar'],
    ],
    generate: [['new_photo'], ['edit_photo', 1], ['new_item'], ['edit_item', 1]],
  },
  {
    name: 'edge: optional segments in the middle and optional id',
    ruby: String.raw`get 'shop(/:category)/items', to: 'items#index', as: 'shop_items'
get 'photos(/:id)', to: 'photos#maybe', as: 'maybe_photo'`,
    draw: (r) => {
      r.get('shop(/:category)/items', { to: 'items#index', as: 'shop_items' });
      r.get('photos(/:id)', { to: 'photos#maybe', as: 'maybe_photo' });
    },
    recognize: [
      ['GET', '/shop/items'],
      ['GET', '/shop/toys/items'],
      ['GET', '/photos'],
      ['GET', '/photos/3'],
      ['GET', '/photos/3.json'],
    ],
    generate: [
      ['shop_items'],
      ['shop_items', 'toys'],
      ['shop_items', { category: 'toys' }],
      ['maybe_photo'],
      ['maybe_photo', 3],
      ['maybe_photo', { id: 4, format: 'json' }],
    ],
  },
  {
    name: 'edge: generation escaping and query encoding',
    ruby: String.raw`resources :photos, only: :show
get 'files/*path', to: 'files#show', as: 'file'`,
    draw: (r) => {
      r.resources('photos', { only: 'show' });
      r.get('files/*path', { to: 'files#show', as: 'file' });
    },
    recognize: [
      ['GET', '/photos/a+b'],
      ['GET', '/photos/%c3%a9'],
      ['GET', "/photos/a@b:c!$&'()*,;="],
      ['GET', '/photos/a%3Fb'],
      ['GET', '/files/a/%2F/b'],
    ],
    generate: [
      ['photo', "a+b@c:d!$&'()*,;=~"],
      ['photo', 'a?b#c'],
      ['photo', '%'],
      ['photo', 1, { q: 'a&b=c' }],
      ['photo', 1, { 'a b': 'c d' }],
      ['photo', 1, { empty: '' }],
      ['photo', 1, { t: true }],
      ['photo', 1, { n: null }],
      ['photo', 1, { list: [1, 2], h: { a: [3] } }],
      ['photo', 1, { z: 1, a: 2, m: 3 }],
      ['photo', null],
      ['file', 'a/b c?d#e'],
      ['file', ['x', 'y']],
      ['photo', 1, { q: 'é' }],
    ],
  },
  {
    name: 'edge: match via all on member and collection',
    ruby: String.raw`resources :photos, only: [] do
  match :hook, on: :member, via: :all
  match :bulk, on: :collection, via: [:put, :delete]
end`,
    draw: (r) => {
      r.resources('photos', { only: [] }, (r) => {
        r.match('hook', { on: 'member', via: 'all' });
        r.match('bulk', { on: 'collection', via: ['put', 'delete'] });
      });
    },
    recognize: [
      ['PATCH', '/photos/1/hook'],
      ['GET', '/photos/1/hook'],
      ['DELETE', '/photos/bulk'],
      ['GET', '/photos/bulk'],
    ],
    generate: [['hook_photo', 1], ['bulk_photos']],
  },
  {
    name: 'edge: root action from scope handler',
    ruby: String.raw`scope controller: 'home' do
  root action: 'landing'
end`,
    draw: (r) => {
      r.scope({ handler: 'home' }, (r) => {
        r.root({ action: 'landing' });
      });
    },
    recognize: [['GET', '/']],
    generate: [['root']],
  },
  {
    name: 'edge: namespace with shallow_prefix and shallow_path overrides',
    ruby: String.raw`namespace :admin, shallow_path: 'a', shallow_prefix: 'adm' do
  resources :posts, only: [] do
    resources :notes, shallow: true, only: [:index, :show]
  end
end`,
    draw: (r) => {
      r.namespace('admin', { shallowPath: 'a', shallowPrefix: 'adm' }, (r) => {
        r.resources('posts', { only: [] }, (r) => {
          r.resources('notes', { shallow: true, only: ['index', 'show'] });
        });
      });
    },
    recognize: [
      ['GET', '/a/notes/1'],
      ['GET', '/admin/notes/1'],
      ['GET', '/admin/posts/1/notes'],
    ],
    generate: [
      ['adm_note', 1],
      ['admin_post_notes', 1],
    ],
  },
  {
    name: 'edge: namespace with slash in name',
    ruby: String.raw`namespace 'admin/reports' do
  resources :sales, only: :index
end`,
    draw: (r) => {
      r.namespace('admin/reports', (r) => {
        r.resources('sales', { only: 'index' });
      });
    },
    recognize: [['GET', '/admin/reports/sales']],
    generate: [['admin_reports_sales']],
  },
  {
    name: 'edge: concern with shallow nested and member',
    ruby: String.raw`concern :attachable do
  resources :attachments, only: [:index, :show, :destroy] do
    member do
      get :download
    end
  end
end
resources :messages, shallow: true, concerns: :attachable, only: :show`,
    draw: (r) => {
      r.concern('attachable', (r) => {
        r.resources('attachments', { only: ['index', 'show', 'destroy'] }, (r) => {
          r.member((r) => {
            r.get('download');
          });
        });
      });
      r.resources('messages', { shallow: true, concerns: 'attachable', only: 'show' });
    },
    recognize: [
      ['GET', '/messages/1/attachments'],
      ['GET', '/attachments/2/download'],
      ['DELETE', '/attachments/2'],
    ],
    generate: [
      ['message_attachments', 1],
      ['download_attachment', 2],
      ['attachment', 2],
    ],
  },
  {
    name: 'edge: only and except together',
    ruby: String.raw`resources :photos, only: [:index, :show, :edit], except: :edit`,
    draw: (r) => {
      r.resources('photos', { only: ['index', 'show', 'edit'], except: 'edit' });
    },
    recognize: [
      ['GET', '/photos/1/edit'],
      ['GET', '/photos/1'],
    ],
    generate: [['photo', 1]],
  },
  {
    name: 'edge: names from as on match inside nested scopes',
    ruby: String.raw`scope 'v1', as: 'v1' do
  resources :users, only: [] do
    get 'export(.:format)', to: 'exports#user', as: 'export', on: :member
    get :settings, as: 'prefs'
  end
end`,
    draw: (r) => {
      r.scope('v1', { as: 'v1' }, (r) => {
        r.resources('users', { only: [] }, (r) => {
          r.get('export(.:format)', { to: 'exports#user', as: 'export', on: 'member' });
          r.get('settings', { as: 'prefs' });
        });
      });
    },
    recognize: [
      ['GET', '/v1/users/1/export.csv'],
      ['GET', '/v1/users/1/settings'],
    ],
    generate: [
      ['export_v1_user', 1, 'csv'],
      ['v1_user_prefs', 1],
    ],
  },
  {
    name: 'edge: scope with dynamic segment inside resources',
    ruby: String.raw`resources :users, only: [] do
  scope ':year' do
    get :posts, to: 'posts#by_year'
  end
end`,
    draw: (r) => {
      r.resources('users', { only: [] }, (r) => {
        r.scope(':year', (r) => {
          r.get('posts', { to: 'posts#by_year' });
        });
      });
    },
    recognize: [['GET', '/users/1/2020/posts']],
    generate: [['user_posts', 1, 2020]],
  },
  {
    name: 'edge: resources with a defaults format and explicit format request',
    ruby: String.raw`namespace :api, format: false, defaults: { format: :json } do
  resources :things, only: [:index, :show]
end`,
    draw: (r) => {
      r.namespace('api', { format: false, defaults: { format: 'json' } }, (r) => {
        r.resources('things', { only: ['index', 'show'] });
      });
    },
    recognize: [
      ['GET', '/api/things'],
      ['GET', '/api/things.json'],
      ['GET', '/api/things/1'],
    ],
    generate: [['api_things'], ['api_thing', 1]],
  },
  {
    name: 'inflection: singularize, broad word list (resources)',
    ruby: String.raw`resources :statuses, :crises, :axes, :diagnoses, :theses, :analyses, :halves, :calves, :lives, :wives, :elves, :knives, only: :show
resources :thieves, :shelves, :loaves, :hooves, :roofs, :chiefs, :proofs, :potatoes, :tomatoes, :heroes, :echoes, :vetoes, only: :show
resources :photos, :pianos, :radii, :fungi, :nuclei, :syllabi, :cacti, :criteria, :phenomena, :bacteria, :curricula, :memoranda, only: :show
resources :appendices, :indices, :matrices, :vertices, :oxen, :children, :people, :men, :women, :feet, :teeth, :geese, only: :show
resources :mice, :lice, :dice, :quizzes, :buses, :gases, :boxes, :foxes, :churches, :wishes, :kisses, :dishes, only: :show
resources :bushes, :taxes, :waltzes, :fezzes, :news, :series, :species, :sheep, :deer, :moose, :fish, :equipment, only: :show
resources :information, :rice, :money, :police, :jeans, :movies, :cookies, :zombies, :ties, :lies, :pies, :toys, only: :show
resources :days, :monkeys, :keys, :plays, :guys, :flies, :cities, :ladies, :stories, :queries, :allies, :stadiums, only: :show
resources :media, :data, :forums, :campuses, :viruses, :bonuses, :censuses, :aliases, :canvases, :uses, :users, :houses, only: :show
resources :horses, :causes, :purposes, :responses, :releases, :cases, :databases, :bases, :places, :prices, :services, :devices, only: :show
resources :inboxes, :matrix_items, :addresses, :hives, :archives, :objectives, :perspectives, :olives, :saves, :moves, only: :show`,
    draw: (r) => {
      r.resources(
        [
          'statuses',
          'crises',
          'axes',
          'diagnoses',
          'theses',
          'analyses',
          'halves',
          'calves',
          'lives',
          'wives',
          'elves',
          'knives',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'thieves',
          'shelves',
          'loaves',
          'hooves',
          'roofs',
          'chiefs',
          'proofs',
          'potatoes',
          'tomatoes',
          'heroes',
          'echoes',
          'vetoes',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'photos',
          'pianos',
          'radii',
          'fungi',
          'nuclei',
          'syllabi',
          'cacti',
          'criteria',
          'phenomena',
          'bacteria',
          'curricula',
          'memoranda',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'appendices',
          'indices',
          'matrices',
          'vertices',
          'oxen',
          'children',
          'people',
          'men',
          'women',
          'feet',
          'teeth',
          'geese',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'mice',
          'lice',
          'dice',
          'quizzes',
          'buses',
          'gases',
          'boxes',
          'foxes',
          'churches',
          'wishes',
          'kisses',
          'dishes',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'bushes',
          'taxes',
          'waltzes',
          'fezzes',
          'news',
          'series',
          'species',
          'sheep',
          'deer',
          'moose',
          'fish',
          'equipment',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'information',
          'rice',
          'money',
          'police',
          'jeans',
          'movies',
          'cookies',
          'zombies',
          'ties',
          'lies',
          'pies',
          'toys',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'days',
          'monkeys',
          'keys',
          'plays',
          'guys',
          'flies',
          'cities',
          'ladies',
          'stories',
          'queries',
          'allies',
          'stadiums',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'media',
          'data',
          'forums',
          'campuses',
          'viruses',
          'bonuses',
          'censuses',
          'aliases',
          'canvases',
          'uses',
          'users',
          'houses',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'horses',
          'causes',
          'purposes',
          'responses',
          'releases',
          'cases',
          'databases',
          'bases',
          'places',
          'prices',
          'services',
          'devices',
        ],
        { only: 'show' },
      );
      r.resources(
        [
          'inboxes',
          'matrix_items',
          'addresses',
          'hives',
          'archives',
          'objectives',
          'perspectives',
          'olives',
          'saves',
          'moves',
        ],
        { only: 'show' },
      );
    },
    recognize: [
      ['GET', '/cookies/1'],
      ['GET', '/matrix_items/2'],
    ],
    generate: [
      ['cooky', 1],
      ['wolf', 1],
      ['archife', 1],
      ['criterium', 1],
    ],
  },
  {
    name: 'inflection: pluralize, broad word list (singular resources)',
    ruby: String.raw`resource :person, :man, :woman, :child, :foot, :tooth, :goose, :cactus, :fungus, :radius, :criterion, :phenomenon, only: :show
resource :medium, :datum, :thesis, :crisis, :analysis, :diagnosis, :wife, :life, :knife, :leaf, :half, :calf, only: :show
resource :elf, :shelf, :thief, :roof, :chief, :safe, :potato, :tomato, :hero, :echo, :photo, :piano, only: :show
resource :quiz, :bus, :gas, :box, :fox, :church, :wish, :kiss, :tax, :buzz, :city, :lady, only: :show
resource :story, :toy, :day, :key, :guy, :fly, :sheep, :deer, :fish, :series, :news, :equipment, only: :show
resource :information, :rice, :money, :police, :jeans, :movie, :cookie, :zombie, :tie, :virus, :octopus, :status, only: :show
resource :alias, :index, :matrix, :vertex, :appendix, :ox, :mouse, :louse, :die, :hive, :archive, :move, only: :show
resource :house, :horse, :database, :base, :address, :user, :campus, :bonus, :axis, :basis, only: :show`,
    draw: (r) => {
      r.resource(
        [
          'person',
          'man',
          'woman',
          'child',
          'foot',
          'tooth',
          'goose',
          'cactus',
          'fungus',
          'radius',
          'criterion',
          'phenomenon',
        ],
        { only: 'show' },
      );
      r.resource(
        [
          'medium',
          'datum',
          'thesis',
          'crisis',
          'analysis',
          'diagnosis',
          'wife',
          'life',
          'knife',
          'leaf',
          'half',
          'calf',
        ],
        { only: 'show' },
      );
      r.resource(
        ['elf', 'shelf', 'thief', 'roof', 'chief', 'safe', 'potato', 'tomato', 'hero', 'echo', 'photo', 'piano'],
        { only: 'show' },
      );
      r.resource(['quiz', 'bus', 'gas', 'box', 'fox', 'church', 'wish', 'kiss', 'tax', 'buzz', 'city', 'lady'], {
        only: 'show',
      });
      r.resource(['story', 'toy', 'day', 'key', 'guy', 'fly', 'sheep', 'deer', 'fish', 'series', 'news', 'equipment'], {
        only: 'show',
      });
      r.resource(
        [
          'information',
          'rice',
          'money',
          'police',
          'jeans',
          'movie',
          'cookie',
          'zombie',
          'tie',
          'virus',
          'octopus',
          'status',
        ],
        { only: 'show' },
      );
      r.resource(
        ['alias', 'index', 'matrix', 'vertex', 'appendix', 'ox', 'mouse', 'louse', 'die', 'hive', 'archive', 'move'],
        { only: 'show' },
      );
      r.resource(['house', 'horse', 'database', 'base', 'address', 'user', 'campus', 'bonus', 'axis', 'basis'], {
        only: 'show',
      });
    },
    recognize: [
      ['GET', '/person'],
      ['GET', '/safe'],
    ],
    generate: [['person'], ['safe']],
  },
  // ───────────────────────────── issue #14: a module scope names the handler ─────────────────────────────
  {
    name: 'module scope: a route with no controller anywhere uses the namespace',
    ruby: String.raw`namespace :account do
  get :description, action: :description, as: :description
  post 'settings/save', action: :save
end`,
    draw: (r) => {
      r.namespace('account', (r) => {
        r.get('description', { action: 'description', as: 'description' });
        r.post('settings/save', { action: 'save' });
      });
    },
    recognize: [
      ['GET', '/account/description'],
      ['POST', '/account/settings/save'],
    ],
    generate: [['account_description']],
  },
  {
    name: 'module scope: scope module and nested namespaces name the handler too',
    ruby: String.raw`scope module: 'account' do
  get :profile, action: :profile
end
namespace :admin do
  namespace :reports do
    get :summary, action: :summary
  end
  scope module: 'tools', controller: 'cache' do
    delete :flush, action: :flush
  end
end`,
    draw: (r) => {
      r.scope({ module: 'account' }, (r) => {
        r.get('profile', { action: 'profile' });
      });
      r.namespace('admin', (r) => {
        r.namespace('reports', (r) => {
          r.get('summary', { action: 'summary' });
        });
        r.scope({ module: 'tools', handler: 'cache' }, (r) => {
          r.delete('flush', { action: 'flush' });
        });
      });
    },
    recognize: [
      ['GET', '/profile'],
      ['GET', '/admin/reports/summary'],
      ['DELETE', '/admin/flush'],
    ],
    generate: [['profile'], ['admin_reports_summary'], ['admin_flush']],
  },
  {
    name: 'error: a :controller segment inside a namespace',
    ruby: String.raw`namespace :admin do
  get ':controller/:action'
end`,
    draw: (r) => {
      r.namespace('admin', (r) => {
        r.get(':handler/:action');
      });
    },
  },
];

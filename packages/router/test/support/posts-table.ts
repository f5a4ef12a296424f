// `rails routes` of `resources :posts` (Rails 6.1), with Handler#Action for Controller#Action.
export const POSTS_TABLE = [
  '   Prefix Verb   URI Pattern               Handler#Action',
  '    posts GET    /posts(.:format)          posts#index',
  '          POST   /posts(.:format)          posts#create',
  ' new_post GET    /posts/new(.:format)      posts#new',
  'edit_post GET    /posts/:id/edit(.:format) posts#edit',
  '     post GET    /posts/:id(.:format)      posts#show',
  '          PATCH  /posts/:id(.:format)      posts#update',
  '          PUT    /posts/:id(.:format)      posts#update',
  '          DELETE /posts/:id(.:format)      posts#destroy',
].join('\n');

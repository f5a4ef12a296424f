/**
 * The example route set of the API contract ("Declaring"): what the table test compares with
 * `rails routes` of the same declarations.
 */
import { draw } from '../../src/draw.js';
import type { RouteSet } from '../../src/route-set.js';

export function demoRoutes(): RouteSet {
  return draw((r) => {
    r.root('pages#home'); // root 'pages#home'
    r.resources('photos'); // resources :photos
    r.resources(['books', 'videos'], { only: ['index', 'show'] });
    r.resources('posts', { except: 'destroy' }, (r) => {
      r.resources('comments', { shallow: true });
      r.member((r) => {
        r.get('preview');
      });
      r.collection((r) => {
        r.get('search');
      });
      r.new((r) => {
        r.get('draft');
      });
    });
    r.resource('profile', { pathNames: { edit: 'change' } });
    r.namespace('admin', (r) => {
      r.resources('users');
    });
    r.scope({ module: 'api', path: 'v1', as: 'v1' }, (r) => {
      r.resources('keys');
    });
    r.scope('blog', (r) => {
      r.resources('entries');
    });
    r.shallow((r) => {
      r.resources('a', (r) => r.resources('b'));
    });
    r.concern('commentable', (r) => {
      r.resources('comments');
    });
    r.resources('articles', { concerns: ['commentable'] });
    r.match('photos/:id', { to: 'photos#show', via: 'get' });
    // The contract's example leaves out `via`; like Rails 6.1, the core refuses a match without it.
    r.match({ about: 'pages#about', via: 'get' }); // map form: path => target
    r.get('help/faq'); // shorthand: to 'help#faq'
    r.get('photos/:id/raw', { to: 'photos#raw', as: 'raw_photo', constraints: { id: /[^\/]+/ } });
    r.resources('files', { constraints: { id: /[^\/]+/ } }); // ids with dots
    r.resourcesPathNames({ new: 'nuevo' });
  });
}

// Nested resources: any depth, plural in singular, singular in plural, parent id params <singular>_id.
// Expected values recorded from Rails 6.1.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw } from '../src/index.js';
import type { RouteInfo } from '../src/index.js';

type Row = [string | null, string, string, string];
const rows = (list: RouteInfo[]): Row[] => list.map((r) => [r.name, r.verb, r.path, `${r.handler}#${r.action}`]);

describe('nesting', () => {
  test("one level: all seven actions under /<parents>/:<parent>_id, then the parent's own routes", () => {
    const routes = draw((r) => {
      r.resources('magazines', (r) => {
        r.resources('ads');
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['magazine_ads', 'GET', '/magazines/:magazine_id/ads(.:format)', 'ads#index'],
      [null, 'POST', '/magazines/:magazine_id/ads(.:format)', 'ads#create'],
      ['new_magazine_ad', 'GET', '/magazines/:magazine_id/ads/new(.:format)', 'ads#new'],
      ['edit_magazine_ad', 'GET', '/magazines/:magazine_id/ads/:id/edit(.:format)', 'ads#edit'],
      ['magazine_ad', 'GET', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#show'],
      [null, 'PATCH', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#update'],
      [null, 'PUT', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#update'],
      [null, 'DELETE', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#destroy'],
      ['magazines', 'GET', '/magazines(.:format)', 'magazines#index'],
      [null, 'POST', '/magazines(.:format)', 'magazines#create'],
      ['new_magazine', 'GET', '/magazines/new(.:format)', 'magazines#new'],
      ['edit_magazine', 'GET', '/magazines/:id/edit(.:format)', 'magazines#edit'],
      ['magazine', 'GET', '/magazines/:id(.:format)', 'magazines#show'],
      [null, 'PATCH', '/magazines/:id(.:format)', 'magazines#update'],
      [null, 'PUT', '/magazines/:id(.:format)', 'magazines#update'],
      [null, 'DELETE', '/magazines/:id(.:format)', 'magazines#destroy'],
    ]);
  });

  test('the nested id is :id and the parent id is :<parent>_id in recognized params', () => {
    const routes = draw((r) => {
      r.resources('magazines', { only: [] }, (r) => {
        r.resources('ads');
      });
    });
    const show = routes.recognize('GET', '/magazines/9/ads/3');
    assert.ok(show);
    assert.equal(show.handler, 'ads');
    assert.equal(show.action, 'show');
    assert.deepEqual(show.params, { magazine_id: '9', id: '3' });
    const create = routes.recognize('POST', '/magazines/9/ads');
    assert.ok(create);
    assert.equal(create.action, 'create');
    assert.deepEqual(create.params, { magazine_id: '9' });
    assert.equal(routes.recognize('GET', '/magazines/9'), null);
  });

  test('five levels deep: every ancestor contributes :<singular>_id and a name part', () => {
    const routes = draw((r) => {
      r.resources('countries', { only: [] }, (r) => {
        r.resources('regions', { only: [] }, (r) => {
          r.resources('cities', { only: [] }, (r) => {
            r.resources('streets', { only: [] }, (r) => {
              r.resources('houses', { only: ['index', 'show', 'edit'] });
            });
          });
        });
      });
    });
    const base = '/countries/:country_id/regions/:region_id/cities/:city_id/streets/:street_id/houses';
    assert.deepEqual(rows(routes.list()), [
      ['country_region_city_street_houses', 'GET', `${base}(.:format)`, 'houses#index'],
      ['edit_country_region_city_street_house', 'GET', `${base}/:id/edit(.:format)`, 'houses#edit'],
      ['country_region_city_street_house', 'GET', `${base}/:id(.:format)`, 'houses#show'],
    ]);
    const m = routes.recognize('GET', '/countries/1/regions/2/cities/3/streets/4/houses/5');
    assert.ok(m);
    assert.equal(m.action, 'show');
    assert.deepEqual(m.params, { country_id: '1', region_id: '2', city_id: '3', street_id: '4', id: '5' });
    assert.equal(
      routes.path('edit_country_region_city_street_house', 1, 2, 3, 4, 5),
      '/countries/1/regions/2/cities/3/streets/4/houses/5/edit',
    );
  });

  test('plural in singular: no parent id, the singular path and name prefix', () => {
    const routes = draw((r) => {
      r.resource('account', { only: [] }, (r) => {
        r.resources('invoices', { only: ['index', 'show'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['account_invoices', 'GET', '/account/invoices(.:format)', 'invoices#index'],
      ['account_invoice', 'GET', '/account/invoices/:id(.:format)', 'invoices#show'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/account/invoices/4')?.params, { id: '4' });
  });

  test('singular in plural: under /<parents>/:<parent>_id, no id of its own, plural handler', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.resource('avatar', { only: ['show', 'edit'] });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['edit_user_avatar', 'GET', '/users/:user_id/avatar/edit(.:format)', 'avatars#edit'],
      ['user_avatar', 'GET', '/users/:user_id/avatar(.:format)', 'avatars#show'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/users/8/avatar')?.params, { user_id: '8' });
  });

  test('plural in singular in plural', () => {
    const routes = draw((r) => {
      r.resources('users', { only: [] }, (r) => {
        r.resource('avatar', { only: [] }, (r) => {
          r.resources('versions', { only: 'show' });
        });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['user_avatar_version', 'GET', '/users/:user_id/avatar/versions/:id(.:format)', 'versions#show'],
    ]);
    assert.deepEqual(routes.recognize('GET', '/users/1/avatar/versions/2')?.params, { user_id: '1', id: '2' });
  });

  test('singular in singular', () => {
    const routes = draw((r) => {
      r.resource('account', { only: [] }, (r) => {
        r.resource('setting', { only: 'show' });
      });
    });
    assert.deepEqual(rows(routes.list()), [['account_setting', 'GET', '/account/setting(.:format)', 'settings#show']]);
  });

  test('a nested update gets the nested member name on PATCH when show is excluded', () => {
    const routes = draw((r) => {
      r.resources('magazines', { only: [] }, (r) => {
        r.resources('ads', { only: 'update' });
      });
    });
    assert.deepEqual(rows(routes.list()), [
      ['magazine_ad', 'PATCH', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#update'],
      [null, 'PUT', '/magazines/:magazine_id/ads/:id(.:format)', 'ads#update'],
    ]);
  });

  test('sibling nested resources each get the same parent prefix, and nesting does not leak to later declarations', () => {
    const routes = draw((r) => {
      r.resources('posts', { only: [] }, (r) => {
        r.resources('comments', { only: 'index' });
        r.resources('likes', { only: 'index' });
      });
      r.resources('tags', { only: 'index' });
    });
    assert.deepEqual(rows(routes.list()), [
      ['post_comments', 'GET', '/posts/:post_id/comments(.:format)', 'comments#index'],
      ['post_likes', 'GET', '/posts/:post_id/likes(.:format)', 'likes#index'],
      ['tags', 'GET', '/tags(.:format)', 'tags#index'],
    ]);
  });
});

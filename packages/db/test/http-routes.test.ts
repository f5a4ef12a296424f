import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRoutes } from '@divan/router';
import routes from '../src/http/routes.js';

/** The HTTP API is one route set declared with @divan/router; divan-routes can print it. */
describe('the API route table', () => {
  it('lists every endpoint family with its handler', () => {
    const table = formatRoutes(routes);
    for (const endpoint of [
      'server#welcome',
      'documents#show',
      'bulk#docs',
      'changes#index',
      'views#show',
      'views#info',
    ]) {
      assert.ok(table.includes(endpoint), endpoint);
    }
  });

  it('recognizes CouchDB paths, ids with dots and encoded slashes included', () => {
    assert.equal(routes.recognize('GET', '/db/_design/app/_view/by_x')?.action, 'show');
    assert.deepEqual(routes.recognize('GET', '/db/file.txt')?.params.docid, 'file.txt');
    assert.deepEqual(routes.recognize('GET', '/a%2Fb/x')?.params.db, 'a/b');
    const notAllowed = routes.recognize('PATCH', '/db/_bulk_docs');
    assert.deepEqual([notAllowed?.action, notAllowed?.params.allow], ['methodNotAllowed', 'POST']);
  });
});

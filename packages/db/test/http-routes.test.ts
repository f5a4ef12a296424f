import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRoutes } from '@divan/router';
import { HANDLER_MODULES, HANDLERS } from '../src/http/handler-table.js';
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

/** Each endpoint is declared once: its verbs give its `Allow`, and a database's endpoints their access level. */
describe('the endpoint declarations', () => {
  it('give every route a handler action in the table', () => {
    const table: Partial<Record<string, Partial<Record<string, unknown>>>> = HANDLERS;
    for (const route of routes.list()) {
      assert.equal(typeof table[route.handler]?.[route.action], 'function', `${route.handler}#${route.action}`);
    }
  });

  it('give every route of a family loaded on first use an action of its module', async () => {
    const modules: Partial<Record<string, () => Promise<Record<string, unknown>>>> = HANDLER_MODULES;
    for (const route of routes.list()) {
      const load = modules[route.handler];
      if (load === undefined) continue;
      assert.equal(typeof (await load())[route.action], 'function', `${route.handler}#${route.action}`);
    }
  });

  it("give every database route an access level, the 405 answers 'none'", () => {
    for (const route of routes.list()) {
      if (!route.path.includes(':db')) continue;
      // Creating and deleting a database: their handlers ask for a server admin before anything else.
      const unchecked = ['errors#methodNotAllowed', 'databases#create', 'databases#destroy'];
      const answersItself = unchecked.includes(route.handler) || unchecked.includes(`${route.handler}#${route.action}`);
      const expected = answersItself ? 'none' : route.defaults.access;
      assert.ok(typeof route.defaults.access === 'string', `${route.verb} ${route.path}`);
      assert.equal(route.defaults.access, expected, `${route.verb} ${route.path}`);
    }
    assert.equal(routes.recognize('POST', '/db/_purge')?.route.defaults.access, 'server-admin');
    assert.equal(routes.recognize('PUT', '/db/_security')?.route.defaults.access, 'db-admin');
    assert.equal(routes.recognize('GET', '/db/_security')?.route.defaults.access, 'member-own-doc');
    assert.equal(routes.recognize('GET', '/_node/_local/db/_changes')?.route.defaults.access, 'feed-ids');
    // Reserved names the server does not have authorize first, as CouchDB does.
    assert.equal(routes.recognize('GET', '/db/_shards')?.route.defaults.access, 'member');
    assert.equal(routes.recognize('POST', '/db/_sync_shards')?.route.defaults.access, 'server-admin');
    assert.equal(routes.recognize('GET', '/db/_design/d/_search/idx')?.route.defaults.access, 'member');
    assert.equal(routes.recognize('GET', '/db/_design/d/_bogus')?.route.defaults.access, 'member');
    assert.equal(routes.recognize('GET', '/db/_index/x/y')?.route.defaults.access, 'none');
  });

  it("derive `Allow` from the verbs, in CouchDB's order for each endpoint", () => {
    const allow = (path: string) => routes.recognize('PATCH', path)?.params.allow;
    assert.equal(allow('/db'), 'DELETE,GET,HEAD,POST');
    assert.equal(allow('/db/_changes'), 'GET,POST,HEAD');
    assert.equal(allow('/db/_all_docs'), 'GET,HEAD,POST');
    assert.equal(allow('/db/doc'), 'DELETE,GET,HEAD,POST,PUT,COPY');
    assert.equal(allow('/db/doc/file.txt'), 'DELETE,GET,HEAD,PUT');
    assert.equal(allow('/_session'), 'GET,HEAD,POST,DELETE');
    assert.equal(allow('/_uuids'), 'GET');
    assert.equal(routes.recognize('HEAD', '/_uuids')?.action, 'uuids');
  });
});

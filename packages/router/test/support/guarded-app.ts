/**
 * A guarded application, as every adapter test builds it with its framework's own guards: an
 * `admin` namespace behind a guard, one route (`publish`) behind a guard of its own. Each
 * spelling of a guarded request must be either guarded (401) or not dispatched (the action
 * never runs): never the action past the guard.
 */
import assert from 'node:assert/strict';
import { draw, type Middleware } from '../../src/index.js';

export function guardedRoutes() {
  return draw((r) => {
    r.namespace('admin', (r) => r.resources('posts', { only: ['show', 'destroy'] }));
    r.resources('posts', { only: ['show', 'create'] });
    // A route without a format: the framework's guard on `/publish` covers every spelling it answers.
    r.post('publish', { to: 'posts#publish', format: false });
  });
}

/**
 * The same routes with their guards declared in the DSL (`middleware:`): on the namespace and on
 * the route, which keeps its format here (`/publish.json` is recognized, and guarded). `trace`
 * records the order the middleware ran in.
 */
export function routesGuardedInDsl(guard: Middleware, trace: (name: string) => Middleware) {
  return draw((r) => {
    r.namespace('admin', { middleware: [trace('namespace'), guard] }, (r) =>
      r.resources('posts', { only: ['show', 'destroy'], middleware: trace('resources') }),
    );
    r.resources('posts', { only: ['show', 'create'] });
    r.post('publish', { to: 'posts#publish', middleware: [trace('route'), guard] });
  });
}

/** The actions: each records that it ran, and answers 200. */
export function guardedActions<F>(answer: (name: string) => F) {
  return {
    'admin/posts': { show: answer('admin/posts#show'), destroy: answer('admin/posts#destroy') },
    posts: { show: answer('posts#show'), create: answer('posts#create'), publish: answer('posts#publish') },
  };
}

/** What the actions ran, in order (each test empties it). */
export const dispatched: string[] = [];

/** The guarded requests and the other spellings of each. */
export const GUARDED: { method: string; canonical: string; spellings: string[] }[] = [
  {
    method: 'DELETE',
    canonical: '/admin/posts/1',
    spellings: [
      '/admin/posts/1/',
      '//admin/posts/1',
      '/admin//posts/1',
      '/admin/posts//1',
      '///admin/posts/1',
      '/admin/posts/1//',
      '/%61dmin/posts/1',
      '/admin/%70osts/1',
      '/ADMIN/posts/1',
      '/Admin/posts/1',
      '/admin/posts/1.json',
      '/admin/posts/%31',
    ],
  },
  {
    method: 'GET',
    canonical: '/admin/posts/1',
    spellings: ['//admin/posts/1', '/admin/posts/1/', '/admin/posts/1.json', '/Admin/posts/1', '/admin//posts/1'],
  },
  {
    method: 'POST',
    canonical: '/publish',
    spellings: ['/publish/', '//publish', '/publish.json', '/%70ublish', '/PUBLISH', '/publish//'],
  },
];

/** One request, spelled as given (fetch keeps doubled slashes and escapes). */
async function send(base: string, method: string, path: string, auth: boolean): Promise<number> {
  const headers: Record<string, string> = auth ? { authorization: 'yes' } : {};
  if (method === 'POST') headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Every spelling of every guarded request: guarded (401) or not dispatched; the canonical
 * spelling is guarded without credentials and dispatched with them.
 */
export async function expectGuardsHold(base: string): Promise<void> {
  for (const { method, canonical, spellings } of GUARDED) {
    dispatched.length = 0;
    assert.equal(await send(base, method, canonical, false), 401, `${method} ${canonical} without credentials`);
    assert.deepEqual(dispatched, [], `${method} ${canonical} ran without credentials`);
    assert.equal(await send(base, method, canonical, true), 200, `${method} ${canonical} with credentials`);
    assert.equal(dispatched.length, 1, `${method} ${canonical} with credentials ran its action`);
    for (const spelling of spellings) {
      dispatched.length = 0;
      const status = await send(base, method, spelling, false);
      assert.ok(
        status === 401 || dispatched.length === 0,
        `${method} ${spelling} reached ${dispatched.join(', ')} past the guard (status ${status})`,
      );
    }
  }
}

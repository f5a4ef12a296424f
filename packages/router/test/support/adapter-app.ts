/**
 * The route set every adapter test serves, and what each test asks of it over real HTTP on a
 * loopback port: recognition with params, JSON bodies, 405 with Allow, fall-through of paths no
 * route owns, error statuses.
 */
import assert from 'node:assert/strict';
import { draw } from '../../src/index.js';

export function adapterRoutes() {
  return draw((r) => {
    r.resources('posts', { only: ['index', 'show', 'create', 'update'] }, (r) => {
      r.resources('comments', { only: ['show'] });
    });
    r.get('files/*path', { to: 'files#show', as: 'file' });
    r.get('boom', { to: 'errors#boom' });
    r.get('teapot', { to: 'errors#teapot' });
  });
}

/** A teapot error: a status of its own. */
export function teapot(): Error {
  return Object.assign(new Error('short and stout'), { status: 418 });
}

export async function listen(
  start: (port: 0, host: string) => Promise<{ port: number; close(): Promise<void> }>,
): Promise<{ base: string; close(): Promise<void> }> {
  const { port, close } = await start(0, '127.0.0.1');
  return { base: `http://127.0.0.1:${port}`, close };
}

/** `GET /posts/42.json`: the action answers the route's params and name as JSON. */
export async function expectRecognized(base: string): Promise<void> {
  const res = await fetch(`${base}/posts/42.json`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { params: { id: '42', format: 'json' }, route: 'post' });
}

/** `POST /posts` with a JSON body: the framework parsed it and the action echoes it, 201. */
export async function expectJsonBody(base: string): Promise<void> {
  const res = await fetch(`${base}/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Hi' }),
  });
  assert.equal(res.status, 201);
  assert.deepEqual(await res.json(), { received: { title: 'Hi' } });
}

/** `DELETE /posts/1`: the path is known, the verb is not: 405 with Allow. */
export async function expectMethodNotAllowed(base: string): Promise<void> {
  const res = await fetch(`${base}/posts/1`, { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'GET, HEAD, PATCH, PUT');
  await res.arrayBuffer();
}

/**
 * The route set every adapter test serves, and what each test asks of it over real HTTP on a
 * loopback port: recognition with params, JSON bodies, 405 with Allow, fall-through of paths no
 * route owns, error statuses.
 */
import { draw } from '../../src/index.js';

export function adapterRoutes() {
  return draw((r) => {
    r.resources('posts', { only: ['index', 'show', 'create', 'update'] }, (r) => {
      r.resources('comments', { only: ['show'] });
    });
    r.get('files/*path', { to: 'files#show', as: 'file' });
    r.get('missing', { to: 'ghost#index' });
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

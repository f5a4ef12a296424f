// The Express 5 adapter against real Express on a loopback port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressRouter } from '../src/adapters/express.js';
import { draw } from '../src/index.js';
import {
  adapterRoutes,
  expectJsonBody,
  expectMethodNotAllowed,
  expectRecognized,
  teapot,
} from './support/adapter-app.js';

const routes = adapterRoutes();
let base = '';
let close = async () => {};

before(async () => {
  const app = express();
  app.use(express.json());
  app.get('/before', (_req, res) => {
    res.send('declared before');
  });
  app.use(
    expressRouter(
      routes,
      {
        posts: {
          index: (_req, res) => res.json([{ id: 1 }]),
          show: (req, res) => res.json({ params: req.params, route: res.locals.divan.route.name }),
          create: async (req, res) => {
            await Promise.resolve();
            res.status(201).json({ received: req.body });
          },
          update: (_req, res) => res.status(204).end(),
        },
        comments: { show: (req, res) => res.json(req.params) },
        files: { show: (req, res) => res.send(String(req.params.path)) },
        errors: {
          boom: () => {
            throw new Error('secret detail');
          },
          teapot: async () => {
            throw teapot();
          },
        },
      },
      { methodNotAllowed: true },
    ),
  );
  // Mounted under a path, it recognizes the path below the mount.
  const mounted = draw((r) => r.resources('posts', { only: ['index'] }));
  app.use('/api', expressRouter(mounted, { posts: { index: (_req, res) => res.json({ mounted: true }) } }));
  app.get('/after', (_req, res) => {
    res.send('declared after');
  });
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).send('express 404');
  });
  app.use(
    (
      error: { status?: number; message: string; headers?: Record<string, string> },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.set(error.headers ?? {});
      res.status(error.status ?? 500).json({ handled: error.status ?? 500 });
    },
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});

after(() => close());

describe('expressRouter', () => {
  test('recognizes, sets req.params and the match, calls the action', async () => {
    await expectRecognized(base);
    const nested = await fetch(`${base}/posts/1/comments/a%20b`);
    assert.deepEqual(await nested.json(), { post_id: '1', id: 'a b' });
    // A glob leaves the extension to `format`, as in Rails.
    assert.equal(await (await fetch(`${base}/files/a/b.txt`)).text(), 'a/b');
  });

  test("Express' own body parsing reaches the action", async () => {
    await expectJsonBody(base);
  });

  test('paths it does not own fall through: routes declared after it still answer', async () => {
    assert.equal(await (await fetch(`${base}/before`)).text(), 'declared before');
    assert.equal(await (await fetch(`${base}/after`)).text(), 'declared after');
    const miss = await fetch(`${base}/nowhere`);
    assert.equal(miss.status, 404);
    assert.equal(await miss.text(), 'express 404');
  });

  test('405 with Allow when the path is known and the verb is not', async () => {
    await expectMethodNotAllowed(base);
  });

  test("errors go to Express' error handling with their status", async () => {
    const boom = await fetch(`${base}/boom`);
    assert.equal(boom.status, 500);
    assert.deepEqual(await boom.json(), { handled: 500 });
    const tea = await fetch(`${base}/teapot`);
    assert.equal(tea.status, 418);
    await tea.arrayBuffer();
  });

  test('mounted under a path, it recognizes the path below the mount', async () => {
    assert.deepEqual(await (await fetch(`${base}/api/posts`)).json(), { mounted: true });
  });

  test('HEAD is answered by the GET route', async () => {
    const res = await fetch(`${base}/posts`, { method: 'HEAD' });
    assert.equal(res.status, 200);
  });
});

// One canonical path: each framework's own guards (a prefix guard on a namespace, a guard on a
// route) hold for every spelling of a request, through the real framework on a loopback port.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Hono, type Next } from 'hono';
import type { Context as HonoContext } from 'hono';
import { expressRouter } from '../src/adapters/express.js';
import { fastifyRouter } from '../src/adapters/fastify.js';
import { honoRouter } from '../src/adapters/hono.js';
import { createNodeListener } from '../src/adapters/node.js';
import { draw } from '../src/index.js';
import { dispatched, expectGuardsHold, guardedActions, guardedRoutes } from './support/guarded-app.js';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((close) => close())));

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Express: app.use(prefix) and a route guard hold for every spelling', () => {
  test('guarded or not dispatched', async () => {
    const app = express();
    const auth = (req: express.Request, res: express.Response, next: express.NextFunction) => {
      if (req.headers.authorization === undefined) res.status(401).end();
      else next();
    };
    app.use('/admin', auth);
    app.post('/publish', auth);
    app.use(
      expressRouter(
        guardedRoutes(),
        guardedActions((name) => (_req: express.Request, res: express.Response) => {
          dispatched.push(name);
          res.json({});
        }),
      ),
    );
    await expectGuardsHold(await listen(http.createServer(app)));
  });
});

describe("Hono: use('/admin/*') and a route guard hold for every spelling", () => {
  test('guarded or not dispatched', async () => {
    const app = new Hono();
    const guard = async (c: HonoContext, next: Next) => {
      if (c.req.header('authorization') === undefined) return c.body(null, 401);
      await next();
    };
    app.use('/admin/*', guard);
    app.use('/publish', guard);
    app.use(
      honoRouter(
        guardedRoutes(),
        guardedActions((name) => (c: HonoContext) => {
          dispatched.push(name);
          return c.json({});
        }),
      ),
    );
    const base = await new Promise<string>((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
      closers.push(() => new Promise<void>((done) => server.close(() => done())));
    });
    await expectGuardsHold(base);
  });
});

describe('Fastify: routeOptions (hooks, schemas) hold for every spelling Divan recognizes', () => {
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers.authorization === undefined) await reply.code(401).send();
  };

  test('guarded or not dispatched; a schema validates the format spelling too', async () => {
    const app = Fastify();
    await app.register(
      fastifyRouter(
        guardedRoutes(),
        guardedActions((name) => async () => {
          dispatched.push(name);
          return {};
        }),
        {
          routeOptions: {
            'admin/posts#show': { onRequest },
            'admin/posts#destroy': { onRequest },
            'posts#publish': { onRequest },
            'posts#create': {
              schema: { body: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } },
            },
          },
        },
      ),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await expectGuardsHold(base);
    for (const path of ['/posts', '/posts.json']) {
      dispatched.length = 0;
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 400, path);
      assert.match(((await res.json()) as { message: string }).message, /required property 'title'/);
      assert.deepEqual(dispatched, []);
    }
    for (const path of ['/posts/', '//posts', '/posts//']) {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 404, path);
      await res.arrayBuffer();
    }
  });

  test('options for a route Fastify reaches through a wildcard, or for no route, are refused at registration', async () => {
    const globbed = draw((r) => r.get('files/*path', { to: 'files#show' }));
    assert.throws(
      () => fastifyRouter(globbed, { files: { show: () => '' } }, { routeOptions: { 'files#show': { onRequest } } }),
      /routeOptions\['files#show'\].*wildcard/,
    );
    assert.throws(
      () =>
        fastifyRouter(
          guardedRoutes(),
          guardedActions(() => () => ''),
          {
            routeOptions: { 'posts#destory': { onRequest } } as never,
          },
        ),
      /does not declare: posts#destory/,
    );
    const spanning = draw((r) => r.get('docs/:id/raw', { to: 'docs#raw', constraints: { id: /.+/ } }));
    assert.throws(() => fastifyRouter(spanning, { docs: { raw: () => '' } }), /cannot express GET \/docs\/:id\/raw/);
    const inner = draw((r) => r.get('files/*path/edit', { to: 'files#edit' }));
    assert.throws(
      () => fastifyRouter(inner, { files: { edit: () => '' } }),
      /cannot express GET \/files\/\*path\/edit/,
    );
  });

  test('a request recognized as a route whose options did not run is refused, not dispatched', async () => {
    // Fastify's router prefers the static /posts/new; recognition, in declaration order, the earlier posts/:id.
    const ordered = draw((r) => r.get('posts/:id', { to: 'early#show' }).resources('posts', { only: ['new'] }));
    const app = Fastify();
    await app.register(
      fastifyRouter(
        ordered,
        {
          early: {
            show: async () => {
              dispatched.push('early#show');
              return 'early';
            },
          },
          posts: { new: async () => 'new' },
        },
        { routeOptions: { 'early#show': { onRequest } } },
      ),
    );
    dispatched.length = 0;
    const res = await app.inject({ url: '/posts/new' });
    assert.equal(res.statusCode, 500);
    assert.match(res.json<{ message: string }>().message, /early#show.*posts#new/);
    assert.deepEqual(dispatched, []);
    assert.equal((await app.inject({ url: '/posts/7' })).statusCode, 401);
    await app.close();
  });
});

describe('node:http: only the canonical spelling is dispatched', () => {
  test('doubled and trailing slashes are not recognized', async () => {
    const base = await listen(
      http.createServer(
        createNodeListener(
          guardedRoutes(),
          guardedActions((name) => () => {
            dispatched.push(name);
            return {};
          }),
        ),
      ),
    );
    dispatched.length = 0;
    for (const path of [
      '//admin/posts/1',
      '/admin//posts/1',
      '/admin/posts/1/',
      '/Admin/posts/1',
      '/%61dmin/posts/1',
    ]) {
      const res = await fetch(base + path, { method: 'DELETE' });
      assert.equal(res.status, 404, path);
      await res.arrayBuffer();
    }
    assert.deepEqual(dispatched, []);
    assert.equal((await fetch(`${base}/admin/posts/1`, { method: 'DELETE' })).status, 200);
    assert.deepEqual(dispatched, ['admin/posts#destroy']);
  });
});

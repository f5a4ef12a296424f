// Middleware declared in the DSL (`middleware:` on a namespace, a resource, a route), run by
// every adapter in scope order before the action, for every spelling the adapter recognizes.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Hono, type Context as HonoContext, type Next } from 'hono';
import { expressRouter } from '../src/adapters/express.js';
import { fastifyRouter } from '../src/adapters/fastify.js';
import { honoRouter } from '../src/adapters/hono.js';
import { createNodeListener, HttpError, type Context } from '../src/adapters/node.js';
import { dispatched, expectGuardsHold, guardedActions, routesGuardedInDsl } from './support/guarded-app.js';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((close) => close())));

const ran: string[] = [];

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

/** With credentials, GET /admin/posts/1 runs the namespace's middleware, then the resource's, then the action. */
async function expectScopeOrder(base: string): Promise<void> {
  ran.length = 0;
  const res = await fetch(`${base}/admin/posts/1`, { headers: { authorization: 'yes' } });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.deepEqual(ran, ['namespace', 'resources']);
  assert.deepEqual(dispatched.slice(-1), ['admin/posts#show']);
}

describe('middleware declared with the routes', () => {
  test('node:http: (ctx, next), guarding every spelling, in scope order', async () => {
    const guard = (ctx: Context, next: () => unknown) => {
      if (ctx.req.headers.authorization === undefined) throw new HttpError(401, 'who are you?');
      return next();
    };
    const trace = (name: string) => (_ctx: Context, next: () => unknown) => {
      ran.push(name);
      return next();
    };
    const base = await listen(
      http.createServer(
        createNodeListener(
          routesGuardedInDsl(guard, trace),
          guardedActions((name) => () => {
            dispatched.push(name);
            return {};
          }),
        ),
      ),
    );
    await expectGuardsHold(base);
    await expectScopeOrder(base);
  });

  test('Express: (req, res, next), guarding every spelling, in scope order', async () => {
    const guard = (req: express.Request, res: express.Response, next: express.NextFunction) => {
      if (req.headers.authorization === undefined) res.status(401).end();
      else next();
    };
    const trace = (name: string) => (_req: express.Request, _res: express.Response, next: express.NextFunction) => {
      ran.push(name);
      next();
    };
    const app = express();
    app.use(
      expressRouter(
        routesGuardedInDsl(guard, trace),
        guardedActions((name) => () => {
          dispatched.push(name);
          return {};
        }),
      ),
    );
    const base = await listen(http.createServer(app));
    await expectGuardsHold(base);
    await expectScopeOrder(base);
  });

  test('Hono: (c, next), guarding every spelling, in scope order', async () => {
    const guard = async (c: HonoContext, next: Next) => {
      if (c.req.header('authorization') === undefined) return c.body(null, 401);
      await next();
    };
    const trace = (name: string) => async (_c: HonoContext, next: Next) => {
      ran.push(name);
      await next();
    };
    const app = new Hono();
    app.use(
      honoRouter(
        routesGuardedInDsl(guard, trace),
        guardedActions((name) => () => {
          dispatched.push(name);
          return {};
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
    await expectScopeOrder(base);
  });

  test('Fastify: (request, reply) like a preHandler, guarding every spelling, in scope order', async () => {
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.headers.authorization === undefined) await reply.code(401).send();
    };
    const trace = (name: string) => async () => {
      ran.push(name);
    };
    const app = Fastify();
    await app.register(
      fastifyRouter(
        routesGuardedInDsl(guard, trace),
        guardedActions((name) => async () => {
          dispatched.push(name);
          return {};
        }),
      ),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await expectGuardsHold(base);
    await expectScopeOrder(base);
  });
});

describe('middleware in the declaration', () => {
  test('a scope adds to the middleware around it; a route adds its own last; it is no default or param', () => {
    const a = () => 'a';
    const b = () => 'b';
    const routes = routesGuardedInDsl(a, () => b);
    const show = routes.list().find((route) => route.handler === 'admin/posts' && route.action === 'show');
    assert.deepEqual(show?.middleware, [b, a, b]);
    assert.deepEqual(show?.defaults, {});
    assert.deepEqual(routes.recognize('GET', '/admin/posts/1')?.params, { id: '1' });
    assert.equal(routes.list().find((route) => route.action === 'create')?.middleware, undefined);
  });
});

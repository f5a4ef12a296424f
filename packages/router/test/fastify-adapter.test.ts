// The Fastify 5 plugin against real Fastify on a loopback port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyRouter } from '../src/adapters/fastify.js';
import { draw } from '../src/index.js';
import {
  adapterRoutes,
  expectJsonBody,
  expectMethodNotAllowed,
  expectRecognized,
  teapot,
} from './support/adapter-app.js';

const routes = adapterRoutes();
let app: FastifyInstance;
let base = '';
const hooked: string[] = [];

before(async () => {
  app = Fastify();
  app.addHook('onRequest', async (request) => {
    hooked.push(request.url);
  });
  app.get('/own', async () => 'a Fastify route');
  await app.register(
    fastifyRouter(
      routes,
      {
        posts: {
          index: async () => [{ id: 1 }],
          show: async (request) => ({ params: request.params, route: request.divan?.route.name }),
          create: async (request, reply) => reply.code(201).send({ received: request.body }),
          update: async (_request, reply) => reply.code(204).send(),
        },
        comments: { show: async (request) => request.params },
        files: { show: async (request) => request.params.path },
        errors: {
          boom: async () => {
            throw new Error('secret detail');
          },
          teapot: async () => {
            throw teapot();
          },
        },
      },
      {
        routeOptions: {
          'posts#create': {
            schema: { body: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } },
          },
          'comments#show': {
            preHandler: async (_request, reply) => {
              reply.header('x-route-hook', 'comments#show');
            },
          },
        },
        methodNotAllowed: true,
      },
    ),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});

after(() => app.close());

describe('fastifyRouter', () => {
  test('recognizes, sets request.params and request.divan, sends what the action returns', async () => {
    await expectRecognized(base);
    const nested = await fetch(`${base}/posts/1/comments/a%20b`);
    assert.deepEqual(await nested.json(), { post_id: '1', id: 'a b' });
  });

  test('POST bodies arrive, parsed by Fastify; its hooks run for every route', async () => {
    hooked.length = 0;
    await expectJsonBody(base);
    assert.deepEqual(hooked, ['/posts']);
  });

  test("Fastify's own routes answer; unknown paths reach Fastify's 404", async () => {
    assert.equal(await (await fetch(`${base}/own`)).text(), 'a Fastify route');
    const miss = await fetch(`${base}/nowhere`);
    assert.equal(miss.status, 404);
    assert.equal(((await miss.json()) as { message: string }).message, 'Route GET:/nowhere not found');
  });

  test('declared routes are Fastify routes of their own, with their options: validation and hooks per route', async () => {
    assert.equal(app.hasRoute({ method: 'GET', url: '/posts/:id' }), true);
    assert.equal(app.hasRoute({ method: 'GET', url: '/posts/:post_id/comments/:id' }), true);
    // A glob ending the path is Fastify's wildcard; no catch-all is claimed.
    assert.equal(app.hasRoute({ method: 'GET', url: '/files/*' }), true);
    assert.equal(app.hasRoute({ method: 'GET', url: '/*' }), false);
    const invalid = await fetch(`${base}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'no title' }),
    });
    assert.equal(invalid.status, 400);
    assert.match(((await invalid.json()) as { message: string }).message, /must have required property 'title'/);
    const hooked = await fetch(`${base}/posts/1/comments/2`);
    assert.equal(hooked.headers.get('x-route-hook'), 'comments#show');
    assert.deepEqual(await hooked.json(), { post_id: '1', id: '2' });
    const other = await fetch(`${base}/posts/1`);
    assert.equal(other.headers.get('x-route-hook'), null);
    await other.arrayBuffer();
  });

  test('405 with Allow when the path is known and the verb is not', async () => {
    await expectMethodNotAllowed(base);
  });

  test("errors go to Fastify's error handling with their status", async () => {
    const boom = await fetch(`${base}/boom`);
    assert.equal(boom.status, 500);
    await boom.arrayBuffer();
    const tea = await fetch(`${base}/teapot`);
    assert.equal(tea.status, 418);
    await tea.arrayBuffer();
  });

  test('HEAD is answered by the GET route; the route set is on the instance', async () => {
    const res = await fetch(`${base}/posts`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(app.divan.path('post_comment', 1, 2), '/posts/1/comments/2');
  });
});

describe('fastifyRouter: a param whose constraint takes a slash', () => {
  test("is served through Fastify's wildcard, as a glob is", async () => {
    const spanning = draw((r) => r.get('pages/:id', { to: 'pages#show', constraints: { id: /.+/ } }));
    const server = Fastify();
    await server.register(fastifyRouter(spanning, { pages: { show: async (request) => request.params.id } }));
    assert.equal((await server.inject({ url: '/pages/a/b' })).body, 'a/b');
    assert.equal((await server.inject({ url: '/pages/a' })).body, 'a');
    await server.close();
  });
});

describe('fastifyRouter: a prefix route (anchor: false)', () => {
  test('is reached at every path Divan recognizes for it, as in Rails, next to routes of its own', async () => {
    const mounted = draw((r) =>
      r
        .get('status', { to: 'pages#status' })
        .match('mounted', { to: 'mounted#app', via: 'all', anchor: false })
        .get('files/:name', { to: 'files#show', anchor: false }),
    );
    assert.equal(mounted.list()[1]!.anchored, false);
    assert.equal(mounted.list()[0]!.anchored, undefined);
    const server = Fastify();
    await server.register(
      fastifyRouter(mounted, {
        pages: { status: async () => 'status' },
        mounted: { app: async (request) => `app ${request.method}` },
        files: { show: async (request) => `file ${request.params.name}` },
      }),
    );
    for (const url of ['/mounted', '/mounted/a/b', '/mounted.json', '/mounted-x', '/mounted/a?q=1']) {
      assert.equal(mounted.recognize('GET', url.split('?')[0]!)?.action, 'app', url);
      assert.equal((await server.inject({ url })).body, 'app GET', url);
    }
    assert.equal((await server.inject({ method: 'DELETE', url: '/mounted/x' })).body, 'app DELETE');
    for (const url of ['/files/a', '/files/a/b', '/files/a.txt/b']) {
      assert.equal((await server.inject({ url })).body, `file ${mounted.recognize('GET', url)?.params.name}`, url);
    }
    assert.equal((await server.inject({ url: '/status' })).body, 'status');
    assert.equal((await server.inject({ url: '/mountedx' })).statusCode, 404);
    assert.equal((await server.inject({ url: '/status/x' })).statusCode, 404);
    await server.close();
  });

  test('refuses routeOptions for it: other paths come in through the same Fastify route', () => {
    const mounted = draw((r) => r.match('mounted', { to: 'mounted#app', via: 'all', anchor: false }));
    assert.throws(
      () => fastifyRouter(mounted, { mounted: { app: async () => 'app' } }, { routeOptions: { 'mounted#app': {} } }),
      /routeOptions\['mounted#app'\]: \/mounted\(\.:format\) is a prefix route \(anchor: false\)/,
    );
  });
});

describe('fastifyRouter: declaration order decides, as in Rails', () => {
  test("an earlier get('posts/:id') wins over the resource's static /posts/new, which Fastify's router would pick", async () => {
    const ordered = draw((r) => r.get('posts/:id', { to: 'early#show' }).resources('posts', { only: ['new', 'show'] }));
    const server = Fastify();
    await server.register(
      fastifyRouter(ordered, {
        early: { show: async (request) => `early ${request.params.id}` },
        posts: { new: async () => 'posts#new', show: async () => 'posts#show' },
      }),
    );
    await server.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = server.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
      assert.equal(await (await fetch(`${url}/posts/new`)).text(), 'early new');
      assert.equal(await (await fetch(`${url}/posts/7`)).text(), 'early 7');
    } finally {
      await server.close();
    }
  });
});

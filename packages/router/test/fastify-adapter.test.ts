// The Fastify 5 plugin against real Fastify on a loopback port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyRouter } from '../src/adapters/fastify.js';
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
    fastifyRouter(routes, {
      posts: {
        index: async () => [{ id: 1 }],
        show: async (request) => ({ params: request.params, route: request.divan?.route.name }),
        create: async (request, reply) => reply.code(201).send({ received: request.body }),
      },
      comments: { show: async (request) => request.params },
      errors: {
        boom: async () => {
          throw new Error('secret detail');
        },
        teapot: async () => {
          throw teapot();
        },
      },
    }),
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

  test('405 with Allow when the path is known and the verb is not', async () => {
    await expectMethodNotAllowed(base);
  });

  test("errors go to Fastify's error handling with their status; a missing action is a 501", async () => {
    const boom = await fetch(`${base}/boom`);
    assert.equal(boom.status, 500);
    await boom.arrayBuffer();
    const tea = await fetch(`${base}/teapot`);
    assert.equal(tea.status, 418);
    await tea.arrayBuffer();
    const ghost = await fetch(`${base}/missing`);
    assert.equal(ghost.status, 501);
    assert.match(((await ghost.json()) as { message: string }).message, /ghost#index/);
  });

  test('HEAD is answered by the GET route; the route set is on the instance', async () => {
    const res = await fetch(`${base}/posts`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(app.divan.path('post_comment', 1, 2), '/posts/1/comments/2');
  });
});

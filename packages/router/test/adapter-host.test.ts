// Living with the host framework, through each real framework: another verb falls through (405
// when asked, OPTIONS never), one handler contract (a returned value is the answer, HttpError
// keeps its status), missing actions refused at start-up, mounting under a prefix, no catch-all
// claimed by Fastify, URL helpers that take the mount point.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { expressRouter } from '../src/adapters/express.js';
import { fastifyRouter } from '../src/adapters/fastify.js';
import { honoRouter, type DivanEnv } from '../src/adapters/hono.js';
import { createNodeListener, HttpError } from '../src/adapters/node.js';
import { draw } from '../src/index.js';
import { expressInject } from './support/express-inject.js';

const routes = () =>
  draw((r) => {
    r.resources('posts', { only: ['index', 'show'] });
  });

describe('another verb on a known path', () => {
  test('Express: falls through to later routes; 405 through the error handler when asked; OPTIONS never', async () => {
    const app = express();
    app.use(expressRouter(routes(), { posts: { index: () => [], show: () => ({}) } }));
    app.delete('/posts/:id', (_req, res) => {
      res.send('the app deletes');
    });
    assert.equal((await expressInject(app, 'DELETE', '/posts/1')).body, 'the app deletes');

    const strict = express();
    strict.use(expressRouter(routes(), { posts: { index: () => [], show: () => ({}) } }, { methodNotAllowed: true }));
    strict.options('/posts/:id', (_req, res) => {
      res.set('x-cors', 'yes').end();
    });
    const refused = await expressInject(strict, 'DELETE', '/posts/1');
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.allow, 'GET, HEAD');
    assert.equal((await expressInject(strict, 'OPTIONS', '/posts/1')).headers['x-cors'], 'yes');
  });

  test('Hono: falls through to later routes; 405 through onError when asked; OPTIONS never', async () => {
    const app = new Hono();
    app.use(honoRouter(routes(), { posts: { index: () => [], show: () => ({}) } }));
    app.delete('/posts/:id', (c) => c.text('the app deletes'));
    assert.equal(await (await app.request('/posts/1', { method: 'DELETE' })).text(), 'the app deletes');

    const strict = new Hono();
    strict.use(honoRouter(routes(), { posts: { index: () => [], show: () => ({}) } }, { methodNotAllowed: true }));
    strict.options('/posts/:id', (c) => c.text('preflight'));
    const refused = await strict.request('/posts/1', { method: 'DELETE' });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get('allow'), 'GET, HEAD');
    assert.equal(await (await strict.request('/posts/1', { method: 'OPTIONS' })).text(), 'preflight');
  });

  test("Fastify: Fastify's own by default; 405 when asked; OPTIONS never", async () => {
    const app = Fastify();
    await app.register(fastifyRouter(routes(), { posts: { index: async () => [], show: async () => ({}) } }));
    app.delete('/posts/:id', async () => 'the app deletes');
    assert.equal((await app.inject({ method: 'DELETE', url: '/posts/1' })).body, 'the app deletes');

    const strict = Fastify();
    await strict.register(
      fastifyRouter(routes(), { posts: { index: async () => [], show: async () => ({}) } }, { methodNotAllowed: true }),
    );
    strict.options('/posts/:id', async () => 'preflight');
    const refused = await strict.inject({ method: 'DELETE', url: '/posts/1' });
    assert.equal(refused.statusCode, 405);
    assert.equal(refused.headers.allow, 'GET, HEAD');
    assert.equal((await strict.inject({ method: 'OPTIONS', url: '/posts/1' })).body, 'preflight');
    await Promise.all([app.close(), strict.close()]);
  });
});

describe('one handler contract', () => {
  const answering = {
    posts: {
      index: () => ({ answered: 'index' }),
      show: async () => {
        throw new HttpError(404, 'no such post');
      },
    },
  };

  test('Express: a returned value is the answer; HttpError keeps its status', async () => {
    const app = express();
    app.use(expressRouter(routes(), answering));
    const answered = await expressInject(app, 'GET', '/posts');
    assert.equal(answered.status, 200);
    assert.deepEqual(JSON.parse(answered.body), { answered: 'index' });
    assert.equal((await expressInject(app, 'GET', '/posts/1')).status, 404);
    const text = express();
    text.use(
      expressRouter(routes(), { posts: { index: async () => 'all posts', show: () => new Uint8Array([1, 2]) } }),
    );
    const index = await expressInject(text, 'GET', '/posts');
    assert.equal(index.body, 'all posts');
    assert.match(index.headers['content-type'] ?? '', /^text\/plain/);
    assert.equal((await expressInject(text, 'GET', '/posts/1')).headers['content-type'], 'application/octet-stream');
  });

  test("Hono: a returned value is the answer; HttpError keeps its status under Hono's default onError", async () => {
    const app = new Hono();
    app.use(honoRouter(routes(), answering));
    assert.deepEqual(await (await app.request('/posts')).json(), { answered: 'index' });
    const missing = await app.request('/posts/1');
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: 'not_found', reason: 'no such post' });
  });

  test('Fastify: a returned value is the answer; HttpError keeps its status', async () => {
    const app = Fastify();
    await app.register(fastifyRouter(routes(), answering));
    assert.deepEqual((await app.inject({ url: '/posts' })).json(), { answered: 'index' });
    assert.equal((await app.inject({ url: '/posts/1' })).statusCode, 404);
    await app.close();
  });

  test('every adapter refuses, when created, a table that lacks an action the routes need', () => {
    const partial = { posts: { index: () => [] } };
    for (const create of [
      () => createNodeListener(routes(), partial),
      () => expressRouter(routes(), partial),
      () => fastifyRouter(routes(), partial),
      () => honoRouter(routes(), partial),
    ]) {
      assert.throws(
        create,
        /lacks 1 action\(s\)[\s\S]*Handler "posts" has no action "show" for posts#show \(GET \/posts\/:id\(\.:format\)\)/,
      );
    }
  });
});

describe('mounted under a prefix, with helpers that take the mount point', () => {
  const mountedRoutes = () => draw((r) => r.resources('posts', { only: ['show'] }));

  test('Fastify: register(..., { prefix })', async () => {
    const app = Fastify();
    await app.register(
      fastifyRouter(mountedRoutes(), {
        posts: { show: async (request) => app.divan.path('post', request.params.id, { scriptName: '/api' }) },
      }),
      { prefix: '/api' },
    );
    assert.equal((await app.inject({ url: '/api/posts/7' })).body, '/api/posts/7');
    assert.equal((await app.inject({ url: '/api/posts/7.json' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/posts/7' })).statusCode, 404);
    await app.close();
  });

  test("Hono: app.route('/api', ...) and basePath('/api'); c.get('scriptName') is the mount point", async () => {
    const set = mountedRoutes();
    const sub = new Hono<DivanEnv>();
    sub.use(
      honoRouter(set, {
        posts: { show: (c) => set.helpers.postPath(c.get('params').id, { scriptName: c.get('scriptName') }) },
      }),
    );
    const app = new Hono();
    app.route('/api', sub);
    assert.equal(await (await app.request('/api/posts/7')).text(), '/api/posts/7');
    assert.equal((await app.request('/posts/7')).status, 404);

    const based = new Hono<DivanEnv>().basePath('/v2');
    based.use(honoRouter(set, { posts: { show: (c) => `${c.get('scriptName')} ${c.get('params').id}` } }));
    assert.equal(await (await based.request('/v2/posts/8')).text(), '/v2 8');
  });

  test('helpers take scriptName per call, or from defaultUrlOptions', () => {
    const set = mountedRoutes();
    assert.equal(set.helpers.postPath(1, { scriptName: '/api/' }), '/api/posts/1');
    set.defaultUrlOptions = { host: 'example.com', scriptName: '/api' };
    assert.equal(set.helpers.postPath(1), '/api/posts/1');
    assert.equal(set.helpers.postUrl(1), 'http://example.com/api/posts/1');
  });
});

describe('Fastify claims no catch-all', () => {
  test("a fallback route and a not-found handler of the application's own register beside it", async () => {
    const app = Fastify();
    await app.register(fastifyRouter(routes(), { posts: { index: async () => 'posts', show: async () => 'post' } }));
    app.get('/*', async () => 'spa shell');
    assert.equal((await app.inject({ url: '/posts' })).body, 'posts');
    assert.equal((await app.inject({ url: '/dashboard/settings' })).body, 'spa shell');
    await app.close();
  });
});

// The Hono 4 middleware against real Hono, served on a loopback port by @hono/node-server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { honoRouter, type DivanEnv } from '../src/adapters/hono.js';
import { draw } from '../src/index.js';
import {
  adapterRoutes,
  expectJsonBody,
  expectMethodNotAllowed,
  expectRecognized,
  teapot,
} from './support/adapter-app.js';

const routes = adapterRoutes();
let server: ServerType;
let base = '';

before(async () => {
  const app = new Hono<DivanEnv>();
  app.get('/before', (c) => c.text('declared before'));
  app.use(
    honoRouter(
      routes,
      {
        posts: {
          index: (c) => c.json([{ id: 1 }]),
          show: (c) => c.json({ params: c.get('params'), route: c.get('divan').route.name }),
          create: async (c) => c.json({ received: await c.req.json() }, 201),
          update: (c) => c.body(null, 204),
        },
        comments: { show: (c) => c.json(c.get('params')) },
        files: { show: (c) => c.text(String(c.get('params').path)) },
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
  app.get('/after', (c) => c.text('declared after'));
  app.onError((error, c) => {
    const status = (error as { status?: number }).status ?? 500;
    for (const [name, value] of Object.entries((error as { headers?: Record<string, string> }).headers ?? {}))
      c.header(name, value);
    return c.json({ handled: status, message: status < 500 ? error.message : 'hidden' }, status as 500);
  });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});

after(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
    }),
);

describe('honoRouter', () => {
  test('recognizes the path as sent, sets params and the match, returns the action’s response', async () => {
    await expectRecognized(base);
    // `%2F` stays inside the segment: the path is decoded once, by the router.
    const nested = await fetch(`${base}/posts/1/comments/a%2Fb%20c`);
    assert.deepEqual(await nested.json(), { post_id: '1', id: 'a/b c' });
  });

  test('request bodies arrive through Hono', async () => {
    await expectJsonBody(base);
  });

  test('paths it does not own fall through to the routes after it', async () => {
    assert.equal(await (await fetch(`${base}/before`)).text(), 'declared before');
    assert.equal(await (await fetch(`${base}/after`)).text(), 'declared after');
    assert.equal((await fetch(`${base}/nowhere`)).status, 404);
  });

  test('405 with Allow when the path is known and the verb is not', async () => {
    await expectMethodNotAllowed(base);
  });

  test("errors go to Hono's onError", async () => {
    assert.deepEqual(await (await fetch(`${base}/boom`)).json(), { handled: 500, message: 'hidden' });
    assert.deepEqual(await (await fetch(`${base}/teapot`)).json(), { handled: 418, message: 'short and stout' });
  });
});

describe('URL generation without Node globals', () => {
  test('helpers escape non-ASCII values with Buffer gone (workers, Deno, Bun)', () => {
    const saved = globalThis.Buffer;
    try {
      // @ts-expect-error: removed on purpose, as on runtimes that have no Buffer
      delete globalThis.Buffer;
      assert.equal(typeof (globalThis as { Buffer?: unknown }).Buffer, 'undefined');
      assert.equal(routes.helpers.postPath!('café ☕'), '/posts/caf%C3%A9%20%E2%98%95');
      assert.equal(routes.helpers.filePath!('naïve/🎉.txt'), '/files/na%C3%AFve/%F0%9F%8E%89.txt');
      assert.equal(routes.path('posts', { q: 'ü' }), '/posts?q=%C3%BC');
      // Declaring and recognizing need no Buffer either.
      const unicode = draw((r) => r.get('café/:id', { to: 'cafes#show', as: 'cafe' }));
      assert.equal(unicode.path('cafe', 1), '/caf%C3%A9/1');
      assert.equal(unicode.recognize('GET', '/caf%C3%A9/1')?.params.id, '1');
    } finally {
      globalThis.Buffer = saved;
    }
  });
});

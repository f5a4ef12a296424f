import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { HttpError, createNodeListener, type Context, type Handlers } from '../src/adapters/node.js';
import type { RouteSetLike } from '../src/types.js';
import { draw } from '../src/index.js';
import { StubRouteSet, postsRoutes, route } from './support/stub-route-set.js';

function sampleRoutes(): RouteSetLike {
  return new StubRouteSet(sampleRows());
}

function sampleRows() {
  return [
    ...postsRoutes(),
    route({
      name: 'post_comment',
      verb: 'GET',
      path: '/posts/:post_id/comments/:id(.:format)',
      handler: 'comments',
      action: 'show',
    }),
    route({ name: 'raw', verb: 'GET', path: '/raw', handler: 'files', action: 'raw' }),
    route({ name: 'boom', verb: 'GET', path: '/boom', handler: 'errors', action: 'boom' }),
    route({ name: 'reject', verb: 'GET', path: '/reject', handler: 'errors', action: 'reject' }),
    route({ name: 'manual', verb: 'GET', path: '/manual', handler: 'misc', action: 'manual' }),
    route({ name: 'created', verb: 'POST', path: '/created', handler: 'misc', action: 'created' }),
    route({ name: 'redirect', verb: 'GET', path: '/redirect', handler: 'misc', action: 'redirect' }),
    route({ name: 'nil', verb: 'GET', path: '/nil', handler: 'misc', action: 'nil' }),
    route({ name: 'slow', verb: 'GET', path: '/slow', handler: 'misc', action: 'slow' }),
    route({ name: 'query', verb: 'GET', path: '/query', handler: 'misc', action: 'query' }),
  ];
}

class Comments {
  prefix = 'comment';
  show(ctx: Context) {
    return `${this.prefix} ${String(ctx.params.id)} of post ${String(ctx.params.post_id)}`;
  }
}

const seen: Context[] = [];

const handlers: Handlers = {
  posts: {
    index: () => [{ id: 1, title: 'Hello' }],
    show: (ctx) => {
      seen.push(ctx);
      return { id: ctx.params.id, format: ctx.params.format ?? null };
    },
    create: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { created: true };
    },
    destroy: () => undefined,
    new: () => 'new',
    edit: () => 'edit',
    update: () => 'updated',
  },
  comments: new Comments() as unknown as Handlers[string],
  files: { raw: () => Buffer.from([0, 1, 2, 255]) },
  errors: {
    boom: () => {
      throw new Error('secret internals');
    },
    reject: async () => {
      throw new Error('async secret');
    },
  },
  misc: {
    manual: ({ res }) => {
      res.writeHead(202, { 'Content-Type': 'text/html' });
      res.end('<p>manual</p>');
      return 'ignored';
    },
    created: ({ res }) => {
      res.statusCode = 201;
      return { ok: true };
    },
    redirect: ({ res }) => {
      res.statusCode = 302;
      res.setHeader('Location', '/posts');
    },
    nil: () => null,
    slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 20)),
    query: ({ query }) => ({ page: query.get('page'), tags: query.getAll('tag') }),
  },
};

let server: Server;
let base: string;
let port: number;

before(async () => {
  server = createServer(createNodeListener(sampleRoutes(), handlers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The raw bytes of a response, to see that HEAD really carries no body. */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('createNodeListener', () => {
  test('200 JSON with path params; ctx carries route, handler, action, query', async () => {
    const res = await fetch(`${base}/posts/42.json?x=1`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await res.json(), { id: '42', format: 'json' });
    const ctx = seen.at(-1)!;
    assert.equal(ctx.handler, 'posts');
    assert.equal(ctx.action, 'show');
    assert.equal(ctx.route.name, 'post');
    assert.equal(ctx.query.get('x'), '1');
  });

  test('query string is split off the path and parsed', async () => {
    const res = await fetch(`${base}/query?page=3&tag=a&tag=b`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { page: '3', tags: ['a', 'b'] });
  });

  test('a returned array is JSON', async () => {
    const res = await fetch(`${base}/posts`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), [{ id: 1, title: 'Hello' }]);
  });

  test('a string is text/plain; class-instance handlers keep their this', async () => {
    const res = await fetch(`${base}/posts/7/comments/9`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await res.text(), 'comment 9 of post 7');
  });

  test('a Buffer is application/octet-stream', async () => {
    const res = await fetch(`${base}/raw`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual([...new Uint8Array(await res.arrayBuffer())], [0, 1, 2, 255]);
  });

  test('async handlers: the resolved value is the response', async () => {
    const res = await fetch(`${base}/posts`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { created: true });
    const slow = await fetch(`${base}/slow`);
    assert.equal(await slow.text(), 'late');
  });

  test('undefined gives 204 with no body', async () => {
    const res = await fetch(`${base}/posts/1`, { method: 'DELETE' });
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
  });

  test('null is JSON null', async () => {
    const res = await fetch(`${base}/nil`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'null');
  });

  test('a status set by the handler is kept', async () => {
    const created = await fetch(`${base}/created`, { method: 'POST' });
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), { ok: true });
    const redirect = await fetch(`${base}/redirect`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), '/posts');
  });

  test('a response the handler ended itself is left alone', async () => {
    const res = await fetch(`${base}/manual`);
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('content-type'), 'text/html');
    assert.equal(await res.text(), '<p>manual</p>');
  });

  test('404 when no route matches', async () => {
    const res = await fetch(`${base}/x?y=1`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await res.text(), '{"error":"not_found","reason":"No route matches [GET] \\"/x\\""}');
  });

  test('405 with Allow when the path answers other verbs only', async () => {
    const res = await fetch(`${base}/posts`, { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
    const body = (await res.json()) as { error: string; reason: string };
    assert.equal(body.error, 'method_not_allowed');
    assert.match(body.reason, /No route matches \[DELETE\] "\/posts"/);
  });

  test('a table that lacks an action some route needs is refused at start-up, naming each handler#action', () => {
    const rows = [
      ...sampleRows(),
      route({ name: 'missing_handler', verb: 'GET', path: '/nohandler', handler: 'nothing', action: 'index' }),
      route({ name: 'inherited', verb: 'GET', path: '/inherited', handler: 'posts', action: 'toString' }),
    ];
    const { update: _update, ...withoutUpdate } = handlers.posts as Record<string, unknown>;
    assert.throws(
      () => createNodeListener(new StubRouteSet(rows), { ...handlers, posts: withoutUpdate }),
      (error: Error) => {
        assert.match(error.message, /lacks 3 action\(s\)/);
        assert.match(error.message, /posts#update \(PATCH \/posts\/:id\(\.:format\)\)/);
        assert.match(error.message, /No handler "nothing" for nothing#index/);
        // what every object inherits is not an action
        assert.match(error.message, /posts#toString/);
        return true;
      },
    );
  });

  test('500 on a thrown error or a rejected promise, logged, stack not leaked, server alive', async (t) => {
    const logged = t.mock.method(console, 'error', () => {});
    for (const path of ['/boom', '/reject']) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 500);
      const text = await res.text();
      assert.deepEqual(JSON.parse(text), { error: 'internal_server_error', reason: 'Internal Server Error' });
      assert.doesNotMatch(text, /secret|at /);
    }
    assert.equal(logged.mock.callCount(), 2);
    assert.ok(
      logged.mock.calls.some((c) => c.arguments.some((a) => a instanceof Error && a.message === 'secret internals')),
    );
    const still = await fetch(`${base}/posts`);
    assert.equal(still.status, 200);
  });

  test('HEAD is answered by GET routes, with headers and no body', async () => {
    const res = await fetch(`${base}/posts/5`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('content-length'), String(JSON.stringify({ id: '5', format: null }).length));
    assert.equal(await res.text(), '');

    const raw = await rawRequest('HEAD /posts/5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(raw.endsWith('\r\n\r\n'), `no body expected after the headers: ${JSON.stringify(raw)}`);

    const missing = await rawRequest('HEAD /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(missing, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.ok(missing.endsWith('\r\n\r\n'), `no body expected on a 404 to HEAD: ${JSON.stringify(missing)}`);
  });
});

describe('createNodeListener with a drawn route set', () => {
  test('params, percent-decoding, constraints, 404, 405', async () => {
    const routes = draw((r) => {
      r.resources('posts', { only: ['index', 'show', 'create'] }, (r) => {
        r.resources('comments', { only: ['show'] });
      });
      r.resources('files', { only: ['show'], constraints: { id: /[^\/]+/ } });
      r.namespace('admin', (r) => {
        r.resources('users', { only: ['index'] });
      });
    });
    const app = createServer(
      createNodeListener(routes, {
        posts: { index: () => 'all posts', show: ({ params }) => ({ ...params }), create: () => 'created' },
        comments: { show: ({ params, route }) => ({ params, name: route.name }) },
        files: { show: ({ params }) => `file ${String(params.id)}` },
        'admin/users': { index: () => [] },
      }),
    );
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      assert.equal(await (await fetch(`${url}/posts`)).text(), 'all posts');
      assert.deepEqual(await (await fetch(`${url}/posts/hello%20world.json`)).json(), {
        id: 'hello world',
        format: 'json',
      });
      assert.deepEqual(await (await fetch(`${url}/posts/1/comments/2`)).json(), {
        params: { post_id: '1', id: '2' },
        name: 'post_comment',
      });
      assert.equal(await (await fetch(`${url}/files/report.v2.pdf`)).text(), 'file report.v2.pdf');

      const notFound = await fetch(`${url}/posts/1/edit`);
      assert.equal(notFound.status, 404);
      assert.deepEqual(await notFound.json(), { error: 'not_found', reason: 'No route matches [GET] "/posts/1/edit"' });

      const notAllowed = await fetch(`${url}/posts/1`, { method: 'DELETE' });
      assert.equal(notAllowed.status, 405);
      assert.equal(notAllowed.headers.get('allow'), routes.allowedMethods('/posts/1').join(', '));
      assert.match(notAllowed.headers.get('allow') ?? '', /\bGET\b/);
      await notAllowed.body?.cancel();

      // OPTIONS is never refused: the path's verbs, no body.
      const options = await fetch(`${url}/posts/1`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.equal(options.headers.get('allow'), routes.allowedMethods('/posts/1').join(', '));
    } finally {
      app.closeAllConnections();
      await new Promise<void>((resolve) => app.close(() => resolve()));
    }
  });
});

describe('createNodeListener: bodies and error statuses', () => {
  const routes = draw((r) => {
    r.post('echo/json', { to: 'echo#json' });
    r.post('echo/text', { to: 'echo#text' });
    r.get('fail/:status', { to: 'fail#status' });
  });
  let url = '';
  let server: Server;

  before(async () => {
    server = createServer(
      createNodeListener(
        routes,
        {
          echo: {
            json: async (ctx: Context) => ({ got: await ctx.json(), again: await ctx.json() }),
            text: async (ctx: Context) =>
              `${(await ctx.text()).toUpperCase()} (${(await ctx.body()).byteLength} bytes)`,
          },
          fail: {
            status: (ctx: Context<{ status: string }>) => {
              const status = Number(ctx.params.status);
              throw Object.assign(new Error(`failed with ${status}`), status > 0 ? { status } : {});
            },
          },
        },
        { maxBodyBytes: 64 },
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('ctx.json() parses the body, once', async () => {
    const res = await fetch(`${url}/echo/json`, { method: 'POST', body: '{"a":[1,"é"]}' });
    assert.deepEqual(await res.json(), { got: { a: [1, 'é'] }, again: { a: [1, 'é'] } });
  });

  test('ctx.text() and ctx.body() read the same bytes', async () => {
    const res = await fetch(`${url}/echo/text`, { method: 'POST', body: 'héllo' });
    assert.equal(await res.text(), 'HÉLLO (6 bytes)');
  });

  test('malformed JSON is a 400, a body past maxBodyBytes a 413', async () => {
    const bad = await fetch(`${url}/echo/json`, { method: 'POST', body: '{nope' });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'bad_request', reason: 'Request body is not valid JSON' });
    const big = await fetch(`${url}/echo/text`, { method: 'POST', body: 'x'.repeat(65) });
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { error: string }).error, 'payload_too_large');
  });

  test('a thrown error keeps its status and message below 500; others are a 500 that leaks nothing', async (t) => {
    t.mock.method(console, 'error', () => {});
    const notFound = await fetch(`${url}/fail/404`);
    assert.equal(notFound.status, 404);
    assert.deepEqual(await notFound.json(), { error: 'not_found', reason: 'failed with 404' });
    const unavailable = await fetch(`${url}/fail/503`);
    assert.equal(unavailable.status, 503);
    assert.deepEqual(await unavailable.json(), { error: 'internal_server_error', reason: 'Internal Server Error' });
    const plain = await fetch(`${url}/fail/0`);
    assert.equal(plain.status, 500);
    assert.equal((await plain.text()).includes('failed'), false);
  });
});

/**
 * Sends `bytes` in one write on a connection of its own and collects the answer until the server
 * closes the connection (`closed`), or `enough(answer)` holds or `ms` pass (the client closes it).
 */
function exchange(
  port: number,
  bytes: Buffer,
  enough: (answer: string) => boolean = () => false,
  ms = 5000,
): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    let closed = true;
    const hangUp = () => {
      closed = false;
      socket.destroy();
    };
    const timer = setTimeout(hangUp, ms);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (enough(Buffer.concat(chunks).toString('latin1'))) hangUp();
    });
    socket.on('error', () => {}); // 'close' follows, with what came before it
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer: Buffer.concat(chunks).toString('latin1'), closed });
    });
  });
}

/** The status lines of the responses in an answer. */
/** The responses in an answer, as `status body`. */
const responses = (answer: string) =>
  answer
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter((response) => response !== '')
    .map((response) => `${response.slice(9, 12)} ${response.slice(response.indexOf('\r\n\r\n') + 4)}`.trimEnd());

describe('createNodeListener: a body cut off by the client', () => {
  test("gives the handler's body read a 400, not a server error", async () => {
    const routes = draw((r) => r.post('json', { to: 'write#json' }));
    let failure: unknown;
    const read = new Promise<void>((resolve) => {
      const server = createServer(
        createNodeListener(routes, {
          write: {
            json: async (ctx: Context) => {
              try {
                await ctx.json();
              } catch (error) {
                failure = error;
                resolve();
                throw error;
              }
            },
          },
        }),
      );
      server.listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            'POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('error', () => {});
        void read.then(() => server.close());
      });
    });
    await read;
    assert.ok(failure instanceof HttpError, String(failure));
    assert.equal((failure as HttpError).status, 400);
  });
});

describe('createNodeListener: a request followed by bytes that are no request', () => {
  /** Bytes a client sent past its request: they start with no method, so they are no request. */
  const GARBAGE = ', "more": true}\r\n\r\n';
  const routes = draw((r) => {
    r.post('json', { to: 'write#json' });
    r.post('text', { to: 'write#text' });
    r.post('bytes', { to: 'write#bytes' });
    r.get('read', { to: 'write#read' });
    r.post('ping', { to: 'write#ping' });
    r.delete('things/:id', { to: 'write#destroy' });
  });
  /** What the handlers did, in the order they did it. */
  const applied: string[] = [];
  let server: Server;
  let port = 0;

  before(async () => {
    server = createServer(
      createNodeListener(routes, {
        write: {
          json: async (ctx: Context) => {
            const done = `json ${JSON.stringify(await ctx.json())}`;
            applied.push(done);
            ctx.res.statusCode = 201;
            return done;
          },
          text: async (ctx: Context) => {
            const done = `text ${(await ctx.text()).length}`;
            applied.push(done);
            ctx.res.statusCode = 201;
            return done;
          },
          bytes: async (ctx: Context) => {
            const done = `bytes ${(await ctx.body()).byteLength}`;
            applied.push(done);
            ctx.res.statusCode = 201;
            return done;
          },
          read: () => 'read',
          // Acts without reading the body it may have been sent.
          ping: () => {
            applied.push('ping');
          },
          destroy: (ctx: Context) => {
            applied.push(`destroy ${String(ctx.params.id)}`);
          },
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A request as bytes, its body framed by Content-Length or by `chunked` (one chunk, none when empty). */
  function request(method: string, path: string, body: string, { chunked = false, headers = '' } = {}): Buffer {
    const bytes = Buffer.from(body);
    const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${bytes.length}`;
    const head = Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\n${headers}${framing}\r\n\r\n`);
    if (!chunked) return Buffer.concat([head, bytes]);
    const chunk = bytes.length > 0 ? [Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')] : [];
    return Buffer.concat([head, ...chunk, Buffer.from('0\r\n\r\n')]);
  }

  const cases: [string, Buffer][] = [
    ['a Content-Length body read with ctx.json()', request('POST', '/json', '{"name":"a"}')],
    ['a chunked body read with ctx.json()', request('POST', '/json', '{"name":"b"}', { chunked: true })],
    ['a body read with ctx.text()', request('POST', '/text', 'some text')],
    // More than one read of the socket: the garbage arrives with the body's last bytes.
    [
      'a body large enough to come in several reads, read with ctx.body()',
      request('POST', '/bytes', 'x'.repeat(300_000)),
    ],
  ];
  // No body reader runs for these: the listener must look before it calls the handler.
  const bodiless: [string, Buffer][] = [
    ['a request with no body', Buffer.from('DELETE /things/1 HTTP/1.1\r\nHost: x\r\n\r\n')],
    ['a request with an empty body', request('POST', '/ping', '')],
    ['a request with an empty chunked body', request('POST', '/ping', '', { chunked: true })],
  ];
  const outcomes: [string, [string, Buffer][]][] = [
    ['the handler applies nothing', cases],
    ['the handler is not called', bodiless],
  ];
  for (const [outcome, list] of outcomes) {
    for (const [label, bytes] of list) {
      test(`${label}: Node's 400, the connection closed, and ${outcome}`, async () => {
        applied.length = 0;
        const { answer, closed } = await exchange(port, Buffer.concat([bytes, Buffer.from(GARBAGE)]));
        assert.ok(closed, `the server closes the connection: ${JSON.stringify(answer)}`);
        assert.deepEqual(responses(answer), ['400'], answer);
        // A handler goes on after the connection is gone: give it time to apply, if it would.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(applied, []);
      });
    }
  }

  test('valid requests pipelined on one connection are each answered, in order, and applied', async () => {
    applied.length = 0;
    const large = 'y'.repeat(300_000);
    const { answer, closed } = await exchange(
      port,
      Buffer.concat([
        request('POST', '/json', '{"n":1}'),
        request('POST', '/json', '{"n":2}', { chunked: true }),
        request('POST', '/bytes', large),
        request('POST', '/text', 'three'),
        Buffer.from('DELETE /things/4 HTTP/1.1\r\nHost: x\r\n\r\n'),
        request('POST', '/ping', 'unread'),
        Buffer.from('GET /read HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      ]),
    );
    assert.ok(closed, 'the server closes the connection after the last request, as it asked');
    const done = ['json {"n":1}', 'json {"n":2}', `bytes ${large.length}`, 'text 5', 'destroy 4', 'ping'];
    assert.deepEqual(responses(answer), [...done.slice(0, 4).map((d) => `201 ${d}`), '204', '204', '200 read']);
    // The handlers of pipelined requests run side by side: each applies once, the order is theirs.
    assert.deepEqual(applied.sort(), done.sort());
  });
});

/**
 * A `node:http` request listener dispatching to handler objects by route:
 *
 *   const server = http.createServer(createNodeListener(routes, {
 *     posts: {
 *       index: () => [{ id: 1 }],                          // 200 JSON
 *       show: ({ params }) => `post ${params.id}`,          // 200 text/plain
 *       destroy: async ({ params }) => { await remove(params.id); }, // 204
 *     },
 *   }));
 *
 * The value a handler returns (or the value its promise resolves to) becomes the response unless
 * the handler ended the response itself: a string → text/plain, a Buffer / Uint8Array →
 * application/octet-stream, `undefined` → an empty response (204 unless the handler set a status),
 * anything else → JSON. The status is the one the handler set on `ctx.res`, 200 by default.
 * A handler that answers later by itself must return a promise that settles once it is done.
 *
 * Errors are JSON `{"error": ..., "reason": ...}`: 404 when no route's path matches, 405 with an
 * `Allow` header when the path matches only other verbs, 501 when the route has no handler
 * function, 500 when the handler throws (logged with console.error; the stack is not sent).
 * HEAD requests are answered by GET routes and never carry a body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteInfo, RouteSetLike } from '../types.js';

/** What a handler function receives. */
export interface Context {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path params (`id`, `post_id`, `format`, ...) and declared defaults. */
  params: Record<string, unknown>;
  /** The query string of the request. */
  query: URLSearchParams;
  route: RouteInfo;
  /** `admin/users` */
  handler: string;
  /** `index` */
  action: string;
}

/** A handler action: its return value (or promise) becomes the response. */
export type HandlerFunction = (ctx: Context) => unknown;

/** `{ 'admin/users': { index(ctx) { ... }, show(ctx) { ... } } }`: handler name → action name → function. */
export type Handlers = Record<string, Record<string, HandlerFunction>>;

/** The listener `http.createServer` takes. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Builds the `node:http` request listener of a route set; see the module comment. */
export function createNodeListener(routes: RouteSetLike, handlers: Handlers): NodeListener {
  return (req, res) => {
    dispatch(routes, handlers, req, res).catch((error: unknown) => {
      // Only reached when writing a response fails; never let it escape the listener.
      console.error('[divan] failed to answer', req.method, req.url, error);
      if (!res.writableEnded) res.destroy();
    });
  };
}

async function dispatch(
  routes: RouteSetLike,
  handlers: Handlers,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const { path, query } = splitUrl(req.url ?? '/');
  const label = `[${method}] ${JSON.stringify(path)}`;

  let match;
  try {
    match = routes.recognize(method, path) ?? (method === 'HEAD' ? routes.recognize('GET', path) : null);
  } catch (error) {
    if (error instanceof URIError) {
      return sendJson(req, res, 400, { error: 'bad_request', reason: `Malformed path ${JSON.stringify(path)}` });
    }
    console.error(`[divan] error recognizing ${label}:`, error);
    return sendJson(req, res, 500, { error: 'internal_server_error', reason: 'Internal Server Error' });
  }

  if (!match) {
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0) {
      res.setHeader('Allow', allowed.join(', '));
      return sendJson(req, res, 405, {
        error: 'method_not_allowed',
        reason: `No route matches ${label}; allowed: ${allowed.join(', ')}`,
      });
    }
    return sendJson(req, res, 404, { error: 'not_found', reason: `No route matches ${label}` });
  }

  const { handler, action } = match;
  const endpoint = `${handler}#${action}`;
  const target = lookup(handlers, handler);
  const fn = target === undefined ? undefined : lookup(target, action);
  if (typeof fn !== 'function') {
    const reason =
      target === undefined
        ? `No handler ${JSON.stringify(handler)} for ${endpoint}`
        : `Handler ${JSON.stringify(handler)} has no action ${JSON.stringify(action)} for ${endpoint}`;
    return sendJson(req, res, 501, { error: 'not_implemented', reason });
  }

  const ctx: Context = { req, res, params: match.params, query, route: match.route, handler, action };
  let value: unknown;
  try {
    value = await (fn as HandlerFunction).call(target, ctx);
  } catch (error) {
    console.error(`[divan] error in ${endpoint} (${label}):`, error);
    if (res.headersSent) {
      // Part of the answer is out already: cut the connection rather than end a truncated body.
      if (!res.writableEnded) res.destroy();
      return;
    }
    return sendJson(req, res, 500, { error: 'internal_server_error', reason: 'Internal Server Error' });
  }

  if (res.writableEnded) return;
  if (res.headersSent) {
    // The handler started writing the body itself: finish it.
    res.end();
    return;
  }
  if (value === undefined) {
    if (res.statusCode === 200) res.statusCode = 204;
    res.end();
    return;
  }
  if (typeof value === 'string') return send(req, res, 'text/plain; charset=utf-8', value);
  if (value instanceof Uint8Array) return send(req, res, 'application/octet-stream', value);

  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    console.error(`[divan] ${endpoint} returned a value that is not JSON-serializable:`, error);
    return sendJson(req, res, 500, { error: 'internal_server_error', reason: 'Internal Server Error' });
  }
  // JSON.stringify gives undefined for functions and symbols.
  return send(req, res, 'application/json; charset=utf-8', json ?? 'null');
}

/** The path (query and fragment removed) and query of a request target, also in absolute form. */
function splitUrl(url: string): { path: string; query: URLSearchParams } {
  let target = url;
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  let path = q >= 0 ? target.slice(0, q) : target;
  const query = new URLSearchParams(q >= 0 ? target.slice(q + 1) : '');
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  if (absolute) path = path.slice(absolute[0].length);
  if (!path.startsWith('/')) path = `/${path}`;
  return { path, query };
}

/** `object[key]`, own or from a class prototype, ignoring what every object inherits (`toString`, `constructor`, ...). */
function lookup<T>(object: Record<string, T>, key: string): T | undefined {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  if (!Object.hasOwn(object, key) && (key in Object.prototype || key === '__proto__')) {
    return undefined;
  }
  return object[key];
}

function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  send(req, res, 'application/json; charset=utf-8', JSON.stringify(body), true);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  contentType: string,
  body: string | Uint8Array,
  replaceType = false,
): void {
  if (replaceType || !res.hasHeader('Content-Type')) res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

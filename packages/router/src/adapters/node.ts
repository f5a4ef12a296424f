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
 * Errors are JSON `{"error": ..., "reason": ...}`: 400 for a malformed path, 404 when no
 * route's path matches or the path is not spelled canonically (see `isCanonicalPath`), 405 with
 * an `Allow` header when the path matches only other verbs (OPTIONS answers 204 with `Allow`
 * instead). A handler table that lacks an action some route needs is refused when the listener
 * is created. An error a handler throws answers with its own
 * `status` (or `statusCode`) when that is 400-599, with its message as the reason (`throw new
 * HttpError(404, 'no such post')`); any other error answers 500 "Internal Server Error" and is
 * logged with console.error (its message and stack are never sent). HEAD requests are answered
 * by GET routes and never carry a body.
 *
 * `ctx.text()`, `ctx.json()` and `ctx.body()` read the request body (once; later calls give the
 * same value), up to `maxBodyBytes` (1 MiB by default, 413 past it); malformed JSON is a 400.
 * They reject (400) a body followed, in the same write, by bytes that are no request: Node's
 * parser failed on those, answered a bare 400 and closed the connection (see request-end.ts). A
 * request with no body followed by such bytes does not reach its handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CheckedHandlers, HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match, RouteInfo, RouteSetLike } from '../types.js';
import {
  actionFinder,
  assertActions,
  errorName,
  errorStatus,
  HttpError,
  lookupRequest,
  pathOfUrl,
  type HandlerTable,
  type Resolved,
} from './shared.js';
import { followedByNoRequest } from './request-end.js';

export { HttpError } from './shared.js';

/** What a handler function receives; `P` types its params (the typed route set gives it). */
export interface Context<P extends Record<string, unknown> = Record<string, unknown>> {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path params (`id`, `post_id`, `format`, ...) and declared defaults. */
  params: P;
  /** The query string of the request. */
  query: URLSearchParams;
  route: RouteInfo;
  /** `admin/users` */
  handler: string;
  /** `index` */
  action: string;
  /** The request body as bytes. */
  body(): Promise<Uint8Array>;
  /** The request body as UTF-8 text. */
  text(): Promise<string>;
  /** The request body parsed as JSON (`undefined` when empty); malformed JSON answers 400. */
  json<T = unknown>(): Promise<T>;
}

/** A handler action: its return value (or promise) becomes the response. */
// biome-ignore lint/suspicious/noExplicitAny: a table of handlers for different routes holds contexts of any params
export type HandlerFunction<P extends Record<string, unknown> = any> = (ctx: Context<P>) => unknown;

/**
 * A middleware declared with the routes (`middleware:`), as node:http's adapter runs it: the
 * context, and `next()` running the rest (the action last) and giving back what it returned.
 */
// biome-ignore lint/suspicious/noExplicitAny: declared once for routes of any params
export type NodeMiddleware = (ctx: Context<any>, next: () => unknown) => unknown;

/** `{ 'admin/users': { index(ctx) { ... }, show(ctx) { ... } } }`: handler name → action name → function. */
export type Handlers = HandlerTable<HandlerFunction>;

/** The listener `http.createServer` takes. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface NodeListenerOptions {
  /** The largest request body `ctx.body()` and friends read (bytes; 1 MiB by default). */
  maxBodyBytes?: number;
}

/**
 * The handler table of a typed route set: only declared `handler#action` pairs, each context's
 * params typed from its route's path (any names and shapes when the routes are not typed).
 */
export type NodeHandlers<R extends TypedRoute> = HandlerTableFor<R, 'node'>;

declare module '../typed-routes.js' {
  interface HandlerKinds<P> {
    node: HandlerFunction<P extends Record<string, unknown> ? P : Record<string, string>>;
  }
}

/** Builds the `node:http` request listener of a route set; see the module comment. */
export function createNodeListener<
  R extends TypedRoute = UnknownRoute,
  const T extends NodeHandlers<R> = NodeHandlers<R>,
>(routes: TypedRouteSetLike<R>, handlers: CheckedHandlers<T, R>, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  assertActions(routes, handlers as Handlers);
  const findAction = actionFinder(handlers as Handlers);
  return (req, res) => {
    dispatch(routes, findAction, maxBodyBytes, req, res).catch((error: unknown) => {
      // Only reached when writing a response fails; never let it escape the listener.
      console.error('[divan] failed to answer', req.method, req.url, error);
      if (!res.writableEnded) res.destroy();
    });
  };
}

async function dispatch(
  routes: RouteSetLike,
  findAction: (match: Match) => Resolved<HandlerFunction>,
  maxBodyBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const { path, query } = splitUrl(req.url ?? '/');
  const label = `[${method}] ${JSON.stringify(path)}`;

  let found;
  try {
    found = lookupRequest(routes, method, path);
  } catch (error) {
    if (error instanceof URIError) {
      return sendJson(req, res, 400, { error: 'bad_request', reason: `Malformed path ${JSON.stringify(path)}` });
    }
    console.error(`[divan] error recognizing ${label}:`, error);
    return sendJson(req, res, 500, { error: 'internal_server_error', reason: 'Internal Server Error' });
  }

  if (found.kind === 'method-not-allowed') {
    res.setHeader('Allow', found.allowed.join(', '));
    // OPTIONS is never refused: without a route of its own, it answers what the path allows.
    if (method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    return sendJson(req, res, 405, {
      error: 'method_not_allowed',
      reason: `No route matches ${label}; allowed: ${found.allowed.join(', ')}`,
    });
  }
  if (found.kind === 'not-found') {
    return sendJson(req, res, 404, { error: 'not_found', reason: `No route matches ${label}` });
  }

  const { match } = found;
  const { handler, action } = match;
  const endpoint = `${handler}#${action}`;
  const resolved = findAction(match);
  if ('missing' in resolved) return sendJson(req, res, 501, { error: 'not_implemented', reason: resolved.missing });

  // The listener runs as soon as the request's headers are parsed, while Node's parser is still
  // in the bytes they came in; one turn later, for a request with no body, it is through them:
  // when bytes that are no request came right behind it, Node has answered 400 and closed the
  // connection, and the handler must not act on a request the client was told failed. (Behind a
  // body, the body readers see them. Node runs pending callbacks as it hands over each piece of a
  // body, so a handler that never reads the body it was sent can act before they are parsed.)
  await null;
  if (followedByNoRequest(req)) return;

  const ctx: Context = {
    req,
    res,
    params: match.params,
    query,
    route: match.route,
    handler,
    action,
    ...bodyReaders(req, maxBodyBytes),
  };
  let value: unknown;
  try {
    value = await withMiddleware(match.route.middleware as readonly NodeMiddleware[] | undefined, ctx, resolved.fn);
  } catch (error) {
    const status = errorStatus(error);
    if (status >= 500) console.error(`[divan] error in ${endpoint} (${label}):`, error);
    if (res.headersSent) {
      // Part of the answer is out already: cut the connection rather than end a truncated body.
      if (!res.writableEnded) res.destroy();
      return;
    }
    // A client error's message is meant for the client; a server error's never leaves the server.
    const reason = status < 500 && error instanceof Error ? error.message : 'Internal Server Error';
    return sendJson(req, res, status, { error: errorName(status), reason });
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

/**
 * Runs the route's declared middleware, outermost first, then the action: each gets the
 * context and `next()`, which runs the rest and gives back what the action returned; what the
 * first one returns is the answer (a guard answers by returning or throwing without `next()`).
 */
function withMiddleware(
  middleware: readonly NodeMiddleware[] | undefined,
  ctx: Context,
  action: HandlerFunction,
): unknown {
  if (middleware === undefined) return action(ctx);
  const step = (i: number): unknown => {
    const layer = middleware[i];
    return layer === undefined ? action(ctx) : layer(ctx, () => step(i + 1));
  };
  return step(0);
}

/** The body readers of a context: the body is read once, on the first call, and kept. */
function bodyReaders(req: IncomingMessage, maxBytes: number): Pick<Context, 'body' | 'text' | 'json'> {
  let bytes: Promise<Uint8Array> | null = null;
  const body = () => (bytes ??= readBody(req, maxBytes));
  const text = async () => new TextDecoder().decode(await body());
  const json = async <T>() => {
    const source = await text();
    if (source.trim() === '') return undefined as T;
    try {
      return JSON.parse(source) as T;
    } catch {
      throw new HttpError(400, 'Request body is not valid JSON');
    }
  };
  return { body, text, json };
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new HttpError(413, `Request body is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    // The client went away mid-body: its mistake (a 400 nobody reads), not a server error.
    if (req.destroyed && !(error instanceof HttpError)) throw new HttpError(400, 'The request body ended early');
    throw error;
  }
  // Node answered 400 and closed the connection: the client was told the request failed.
  if (followedByNoRequest(req)) throw new HttpError(400, 'The request is followed by bytes that are no request');
  return Buffer.concat(chunks);
}

/** The path and query of a request target. */
function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const target = url.split('#', 1)[0]!;
  const q = target.indexOf('?');
  return { path: pathOfUrl(target), query: new URLSearchParams(q >= 0 ? target.slice(q + 1) : '') };
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

/**
 * The node:http listener: authenticates, recognizes the route with @divan/router, runs the
 * handler, and turns every CouchError into CouchDB's `{"error","reason"}` with its status. Any
 * other error is a 500 `unknown_error`, logged; a response already under way is cut instead.
 */
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteInfo } from '@divan/router';
import { anonymous } from '../auth/index.js';
import { authorizeDb } from './access.js';
import { applyCors } from './cors.js';
import { setSessionCookie } from './handlers/session.js';
import { CouchError } from '../errors.js';
import { StorageUnavailableError } from '../storage/contract.js';
import { validateDbName } from '../storage/db-names.js';
import { NODE_NAME } from '../server/couch-server.js';
import type { CouchServer } from '../server/couch-server.js';
import type { RequestContext } from './context.js';
import { handlerOf } from './handler-table.js';
import { sendError, sendJson } from './respond.js';
import { checkRequestEnd } from './body.js';
import { CouchResponse, REQUEST_ID_HEADER } from './couch-response.js';
import { acceptsType } from './accept.js';
import { origin } from './location.js';
import { pathDecodes, undecodablePath } from './path-encoding.js';
import { routes } from './routes.js';
import { countAnswer, countStart } from './request-counts.js';
import { jsonpCallbackOf } from './jsonp.js';
import { authorizeServerPath } from './server-authorization.js';
export function createListener(couch: CouchServer): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // Set, first, once anything touches the headers (./couch-response.ts); a response node:http
    // made without that class (unusual-requests.ts) gets it at once.
    if (res instanceof CouchResponse) res.pendingRequestId = requestId(req);
    else res.setHeader(REQUEST_ID_HEADER, requestId(req));
    // Read per request: the config API may turn CORS on or change it.
    const cors = couch.cors;
    if (cors !== undefined && applyCors(cors, req, res)) return;
    handle(couch, req, res).catch((error: unknown) => {
      couch.log(`[error] answering ${req.method} ${req.url}: ${String(error)}`);
      if (!res.writableEnded) res.destroy();
    });
  };
}

async function handle(couch: CouchServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const method = methodOf(req);
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q >= 0 ? url.slice(0, q) : url;
  const ctx: RequestContext = {
    req,
    res,
    server: couch,
    params: {},
    query: new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''),
    rawPath,
    method,
    user: anonymous(),
    reroute: route,
  };
  // `on`, not `once`: a response closes once, and `once` wraps the listener and removes it again.
  res.on('close', () => logRequest(ctx, started));
  try {
    const found = await couch.auth.authenticate(
      req.headers.cookie,
      req.headers.authorization,
      () => req.socket.remoteAddress ?? '',
      req.headers,
      // A connection that closes after this request sends no other: nothing to remember for it
      // (remembering costs a WeakMap entry, whose write barrier is slow, per connection).
      res.shouldKeepAlive ? req.socket : undefined,
    );
    ctx.user = found.user;
    if (found.via !== undefined) ctx.authenticatedBy = found.via;
    // Login and logout set their own cookie over this one.
    if (found.refresh !== undefined) setSessionCookie(ctx, found.refresh);
    if (pathDecodes(rawPath) && redirectDesignId(ctx)) return;
    await route(ctx);
  } catch (error) {
    fail(ctx, error);
  }
}

/**
 * Recognizes the route of the request `ctx` describes, authorizes it and runs its handler: every
 * request, and each request a rewrite (`_rewrite`) makes of one.
 */
async function route(ctx: RequestContext): Promise<void> {
  const { rawPath, method } = ctx;
  // Server paths are authorized before their verb or their existence is looked at (CouchDB's order).
  authorizeServerPath(rawPath, method, ctx.user);
  const decodes = pathDecodes(rawPath);
  // A `+` in a path is a plus (only a query string reads it as a space).
  const path = rawPath.includes('+') ? rawPath.replaceAll('+', '%2B') : rawPath;
  let match;
  try {
    match = routes.recognize(method, path);
  } catch (error) {
    if (error instanceof URIError) throw new CouchError('bad_request', 'Malformed URL path');
    throw error;
  }
  if (!decodes) throw undecodablePath(match, rawPath);
  if (match === null) throw new CouchError('not_found', 'missing');
  ctx.params = match.params;
  ctx.endpoint = endpointOf(match.route);
  // A rewrite's new request is the same client request: counted once, as the rewrite.
  if (ctx.rewrites === undefined) countStart(ctx);
  const jsonp = jsonpCallbackOf(ctx);
  if (jsonp !== undefined) ctx.jsonp = jsonp;
  if (match.params.node !== undefined) checkNodeLocal(ctx);
  const handler = handlerOf(match);
  if (handler === undefined) throw new CouchError('not_implemented', `${match.handler}#${match.action}`);
  if (match.params.db !== undefined) await authorizeDb(ctx, match.route);
  // A request with no body (DELETE, COPY, PUT /db) ends with its headers: bytes behind them
  // that are no request fail it here, as the body readers fail a body followed by such bytes.
  checkRequestEnd(ctx);
  await handler(ctx);
}

/**
 * The request's method; a POST with `X-HTTP-Method-Override` naming one of CouchDB's methods is
 * that method (for clients that can only send GET and POST), any other method ignores the header.
 */
function methodOf(req: IncomingMessage): string {
  const method = (req.method ?? 'GET').toUpperCase();
  const override = req.headers['x-http-method-override'];
  if (method !== 'POST' || typeof override !== 'string' || !OVERRIDES.has(override)) return method;
  return override;
}

const OVERRIDES = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'TRACE', 'CONNECT', 'COPY']);

/** A request id a client sends is echoed back (ids of its own to trace); a fresh one otherwise. */
function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-couch-request-id'];
  if (typeof sent === 'string' && /^[\x21-\x7e]{1,64}$/.test(sent)) return sent;
  if (idPoolAt + 5 > idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  idPoolAt += 5;
  return idPool.toString('hex', idPoolAt - 5, idPoolAt);
}

/** Random bytes for request ids, filled 1,000 ids at a time (a system call per request cost ~2% of a small one). */
const idPool = Buffer.alloc(5000);
let idPoolAt = idPool.length;

function fail(ctx: RequestContext, error: unknown): void {
  const { res, server } = ctx;
  const couchError =
    error instanceof CouchError
      ? error
      : error instanceof StorageUnavailableError
        ? new CouchError('service_unavailable', `The storage is not available right now: ${error.message}`, 503)
        : new CouchError('unknown_error', error instanceof Error ? error.message : String(error), 500);
  if (!(error instanceof CouchError) || couchError.status >= 500) {
    server.log(`[error] ${ctx.method} ${ctx.rawPath}: ${couchError.error}: ${couchError.reason}`);
    if (error instanceof Error && error.stack !== undefined) server.log(`[debug] ${error.stack}`);
  }
  ctx.failure = couchError;
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  // Drain what the client still sends so it can read the error (a too-large body, say).
  ctx.req.resume();
  const headers: Record<string, string> = {};
  if (couchError.error === 'method_not_allowed') headers.Allow = String(ctx.params.allow);
  if (couchError.status === 401) {
    // CouchDB sends WWW-Authenticate only when asked to (no browser login prompt otherwise).
    const wanted = ctx.req.headers['x-couchdb-www-authenticate'];
    if (typeof wanted === 'string') headers['WWW-Authenticate'] = wanted;
    if (couchError.error === 'unauthorized' && wantsLoginPage(ctx)) {
      const location = `${origin(ctx)}/_utils/session.html?return=${encodeURIComponent(ctx.rawPath)}&reason=${encodeURIComponent(couchError.reason)}`;
      return sendJson(ctx, 302, couchError.toJSON(), { ...headers, Location: location });
    }
  }
  sendError(ctx, couchError, headers);
}

/** A browser asking for a page (takes HTML, not JSON) is sent to the login page instead of a 401. */
function wantsLoginPage(ctx: RequestContext): boolean {
  const accept = ctx.req.headers.accept;
  return accept !== undefined && !acceptsType(accept, 'application/json') && acceptsType(accept, 'text/html');
}

/**
 * `handler#action` of a route, made once per route: the statistics look it up in sets on every
 * request, and a string built per request is flattened and hashed again each time.
 */
function endpointOf(route: RouteInfo): string {
  let endpoint = endpoints.get(route);
  if (endpoint === undefined) {
    endpoint = `${route.handler}#${route.action}`;
    endpoints.set(route, endpoint);
  }
  return endpoint;
}

const endpoints = new WeakMap<RouteInfo, string>();

/** One line per request, when its response is done: who asked what, the answer and how long it took. */
function logRequest(ctx: RequestContext, started: number): void {
  const elapsed = performance.now() - started;
  ctx.server.stats.record(ctx.method, ctx.res.statusCode, elapsed);
  countAnswer(ctx);
  const ms = elapsed.toFixed(1);
  const user = ctx.user.name ?? '-';
  const failure = ctx.failure === undefined ? '' : ` ${ctx.failure.error}: ${ctx.failure.reason}`;
  const cut = ctx.res.writableFinished ? '' : ' (cut)';
  ctx.server.log(`[info] ${ctx.method} ${ctx.req.url} ${ctx.res.statusCode} ${ms}ms ${user}${failure}${cut}`);
}

/** `/_node/{node}/...`: this node's own API. Its database names are checked even for reads. */
function checkNodeLocal(ctx: RequestContext): void {
  const node = String(ctx.params.node);
  if (node !== '_local' && node !== NODE_NAME) throw new CouchError('not_found', `No such node: ${node}`);
  if (ctx.params.db !== undefined) validateDbName(String(ctx.params.db));
}

/** `GET /db/_design%2Fapp` → 301 to `/db/_design/app`, as CouchDB. */
function redirectDesignId(ctx: RequestContext): boolean {
  const match = /^(\/[^/]+\/)_design%2F(.+)$/i.exec(ctx.rawPath);
  if (match === null || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  const search = ctx.req.url!.slice(ctx.rawPath.length);
  ctx.res.statusCode = 301;
  ctx.res.setHeader('Location', `${match[1]}_design/${match[2]}${search}`);
  ctx.res.end();
  return true;
}

/**
 * Hono 4 middleware (`@divan/router/hono`), for every runtime Hono runs on:
 *
 *   const app = new Hono();
 *   app.use(honoRouter(routes, {
 *     posts: {
 *       show: (c) => c.json({ id: c.get('params').id }),
 *       create: async (c) => c.json(await save(await c.req.json()), 201),
 *     },
 *   }));
 *
 * It recognizes the path as sent below its mount point (`app.route('/api', ...)`, `basePath`;
 * only the canonical spelling, see `isCanonicalPath`), sets `c.get('params')` to the route's
 * params, `c.get('divan')` to the match and `c.get('scriptName')` to the mount point, and
 * answers with what `handlers[handler][action](c, next)` returns (a Response, or any value: see
 * `answerWith`). Errors go to Hono's `onError`; an `HttpError` answers with its status under
 * Hono's default handler too (its `getResponse()`). A path no route owns, and by default a
 * known path with another verb, falls through with `next()` (`methodNotAllowed: true` answers
 * those 405 with `Allow`). A handler table that lacks an action some route needs is refused when
 * the middleware is created. Nothing here needs Node (no `Buffer`, no `node:` module).
 *
 * One middleware instance serves one mount point: an instance registered both at the root and
 * under `/api` would take the root's (paths below `/api` are paths below the root too).
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { CheckedHandlers, HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match } from '../types.js';
import { actionFinder, assertActions, HttpError, lookupRequest, pathOfUrl, type HandlerTable } from './shared.js';

/** The variables the middleware sets on the context. */
export interface DivanVariables {
  params: Record<string, string>;
  divan: Match;
  /** Where the middleware is mounted (`/api`, `''` at the root): the `scriptName` of URL helpers. */
  scriptName: string;
}

export type DivanEnv = { Variables: DivanVariables };

/** An action: a Hono handler reading the route's params with `c.get('params')`; what it returns is the answer. */
export type HonoHandler = (c: Context<DivanEnv>, next: Next) => unknown;

export type HonoHandlers = HandlerTable<HonoHandler>;

declare module '../typed-routes.js' {
  interface HandlerKinds<P> {
    /** A Hono handler whose `c.get('params')` are the route's. */
    hono: (c: Context<{ Variables: { params: P; divan: Match; scriptName: string } }>, next: Next) => unknown;
  }
}

export interface HonoRouterOptions {
  /**
   * Answer a path Divan knows with another verb with a 405 (with `Allow`, through `onError`).
   * Off by default: such a request goes on to what the application declares next. OPTIONS is
   * never refused.
   */
  methodNotAllowed?: boolean;
}

/** A typed route set's table holds only its declared `handler#action` pairs. */
export function honoRouter<
  R extends TypedRoute = UnknownRoute,
  const T extends HandlerTableFor<R, 'hono'> = HandlerTableFor<R, 'hono'>,
>(
  routes: TypedRouteSetLike<R>,
  handlers: CheckedHandlers<T, R>,
  options: HonoRouterOptions = {},
): MiddlewareHandler<DivanEnv> {
  assertActions(routes, handlers as HandlerTable<HonoHandler>);
  const findAction = actionFinder(handlers as HandlerTable<HonoHandler>);
  // The mount point the last request came through: reading Hono's route path costs about 5% of
  // a request (it maps every matched route), so it is read again only for a path outside it.
  let mount: string | null = null;
  // A Response may come back without a promise: Hono takes either from a middleware.
  const middleware = (c: Context<DivanEnv>, next: Next): unknown => {
    const sent = pathOfUrl(c.req.url); // as sent: c.req.path is already decoded
    if (mount === null || !isUnder(sent, mount)) mount = mountOf(sent, c.req.routePath);
    const scriptName = mount;
    const path = mount === '' ? sent : sent.slice(mount.length) || '/';
    let found;
    try {
      found = lookupRequest(routes, c.req.method, path);
    } catch (error) {
      if (error instanceof URIError) throw new HttpError(400, `Malformed path ${JSON.stringify(path)}`);
      throw error;
    }
    if (found.kind === 'not-found') return next();
    if (found.kind === 'method-not-allowed') {
      if (options.methodNotAllowed !== true || c.req.method === 'OPTIONS') return next();
      const allow = found.allowed.join(', ');
      throw new HttpError(405, `No route matches [${c.req.method}] ${JSON.stringify(path)}; allowed: ${allow}`, {
        Allow: allow,
      });
    }
    const { match } = found;
    const resolved = findAction(match);
    if ('missing' in resolved) throw new HttpError(501, resolved.missing);
    c.set('params', match.params as Record<string, string>);
    c.set('divan', match);
    c.set('scriptName', scriptName);
    // A Response goes back as it is: awaiting it here would add a promise and a turn to every
    // request, which the benchmark's overhead budget (10%) cannot spare.
    const layers = match.route.middleware as readonly HonoMiddleware[] | undefined;
    if (layers !== undefined) return runMiddleware(layers, c, () => resolved.fn(c, next));
    const value = resolved.fn(c, next);
    if (value instanceof Response) return value;
    if (value instanceof Promise) return value.then((answer) => answerWith(c, answer));
    return answerWith(c, value);
  };
  return middleware as MiddlewareHandler<DivanEnv>;
}

/** A Hono middleware declared with the routes (`middleware:`), run before the action. */
// biome-ignore lint/suspicious/noExplicitAny: declared once for routes of any params
export type HonoMiddleware = (c: Context<any>, next: Next) => unknown;

/**
 * Runs the route's declared middleware as Hono composes its own: each awaits `next()` to go on
 * (the action's answer is then `c.res`) or answers itself by returning a Response.
 */
async function runMiddleware(
  layers: readonly HonoMiddleware[],
  c: Context<DivanEnv>,
  action: () => unknown,
): Promise<Response | undefined> {
  const step = async (i: number): Promise<void> => {
    const layer = layers[i];
    const answer = layer === undefined ? answerWith(c, await action()) : await layer(c, () => step(i + 1));
    if (answer instanceof Response) c.res = answer;
  };
  await step(0);
  return c.finalized ? c.res : undefined;
}

/**
 * What an action returned is the answer, as in the other adapters: a Response as it is, a
 * string as text, a Uint8Array as bytes, `undefined` an empty 204 (unless the action answered
 * through `next()` or `c.res`), anything else JSON.
 */
function answerWith(c: Context<DivanEnv>, value: unknown): Response | undefined {
  if (value instanceof Response) return value;
  if (value === undefined) return c.finalized ? undefined : c.body(null, 204);
  if (typeof value === 'string') return c.text(value);
  if (value instanceof Uint8Array) {
    c.header('Content-Type', 'application/octet-stream');
    return c.body(value as Uint8Array<ArrayBuffer>);
  }
  return c.json(value as object);
}

/**
 * The mount point of a request, as sent: where the middleware runs, Hono's route path
 * (`/api/*` under `app.route('/api', ...)`, `basePath('/api')` or `app.use('/api/*', ...)`) has
 * as many segments before its `*` as the mount point has in the path as sent.
 */
function mountOf(path: string, routePath: string): string {
  if (routePath === '/*' || routePath === '*') return '';
  const pattern = routePath.replace(/\/?\*$/, '');
  let at = 0;
  for (let segments = pattern.split('/').length - 1; segments > 0 && at !== -1; segments--)
    at = path.indexOf('/', at + 1);
  return at === -1 ? path : path.slice(0, at);
}

/** Whether a path is the mount point or below it. */
function isUnder(path: string, mount: string): boolean {
  return path.startsWith(mount) && (path.length === mount.length || path.charCodeAt(mount.length) === 47);
}

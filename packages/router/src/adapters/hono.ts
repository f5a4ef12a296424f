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
 * It recognizes `c.req.path`, sets `c.get('params')` to the route's params and `c.get('divan')`
 * to the match, and returns what `handlers[handler][action](c)` returns (a Response, or a
 * promise of one); errors go to Hono's `onError`. A path no route owns falls through with
 * `next()`; a known path with another verb answers 405 with `Allow`; a route without a handler
 * function throws a 501 error. Nothing here needs Node (no `Buffer`, no `node:` module).
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match } from '../types.js';
import { HTTPException } from 'hono/http-exception';
import { actionFinder, lookupRequest, pathOfUrl, type HandlerTable } from './shared.js';

/** The variables the middleware sets on the context. */
export interface DivanVariables {
  params: Record<string, string>;
  divan: Match;
}

export type DivanEnv = { Variables: DivanVariables };

/** An action: a Hono handler reading the route's params with `c.get('params')`. */
export type HonoHandler = (c: Context<DivanEnv>, next: Next) => Response | Promise<Response | undefined>;

export type HonoHandlers = HandlerTable<HonoHandler>;

declare module '../typed-routes.js' {
  interface HandlerKinds<P> {
    /** A Hono handler whose `c.get('params')` are the route's. */
    hono: (
      c: Context<{ Variables: { params: P; divan: Match } }>,
      next: Next,
    ) => Response | Promise<Response | undefined>;
  }
}

/** A typed route set's table holds only its declared `handler#action` pairs. */
export function honoRouter<R extends TypedRoute = UnknownRoute>(
  routes: TypedRouteSetLike<R>,
  handlers: HandlerTableFor<R, 'hono'>,
): MiddlewareHandler<DivanEnv> {
  const findAction = actionFinder(handlers as HandlerTable<HonoHandler>);
  // A Response may come back without a promise: Hono takes either from a middleware.
  const middleware = (c: Context<DivanEnv>, next: Next): Response | Promise<unknown> => {
    const path = pathOfUrl(c.req.url); // as sent: c.req.path is already decoded
    let found;
    try {
      found = lookupRequest(routes, c.req.method, path);
    } catch (error) {
      if (error instanceof URIError)
        throw new HTTPException(400, { message: `Malformed path ${JSON.stringify(path)}` });
      throw error;
    }
    if (found.kind === 'not-found') return next();
    if (found.kind === 'method-not-allowed') {
      c.header('Allow', found.allowed.join(', '));
      return c.json(
        {
          error: 'method_not_allowed',
          reason: `No route matches [${c.req.method}] ${JSON.stringify(path)}; allowed: ${found.allowed.join(', ')}`,
        },
        405,
      );
    }
    const { match } = found;
    const resolved = findAction(match);
    if ('missing' in resolved) throw new HTTPException(501, { message: resolved.missing });
    c.set('params', match.params as Record<string, string>);
    c.set('divan', match);
    // Returned as it is (a Response or a promise of one): awaiting it here would add a promise
    // and a turn to every request, which the benchmark's overhead budget (10%) cannot spare.
    return resolved.fn(c, next);
  };
  return middleware as MiddlewareHandler<DivanEnv>;
}

/**
 * Express 5 middleware (`@divan/router/express`):
 *
 *   app.use(express.json());
 *   app.use(expressRouter(routes, {
 *     posts: {
 *       show: (req, res) => res.json({ id: req.params.id }),
 *       create: async (req, res) => res.status(201).json(await save(req.body)),
 *     },
 *   }));
 *   app.use((req, res) => res.status(404).send('not ours'));   // still reached
 *
 * It recognizes `req.path` (relative to where the middleware is mounted; only its canonical
 * spelling, see `isCanonicalPath`), sets `req.params` to the route's params and
 * `res.locals.divan` to the match, and calls `handlers[handler][action](req, res, next)`. What
 * the action returns (or its promise resolves to) is the answer, unless it answered itself; a
 * rejected promise or a throw goes to `next(error)`, Express' error handling, which every error
 * of the adapter goes through (400, 405). A path no route owns, and by default a known path with
 * another verb, falls through with `next()`, so the middleware and routes declared after it
 * still run (`methodNotAllowed: true` answers those 405 with `Allow`). A handler table that
 * lacks an action some route needs is refused when the middleware is created.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { CheckedHandlers, HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match } from '../types.js';
import { actionFinder, assertActions, HttpError, lookupRequest, type HandlerTable } from './shared.js';

/** An action: an Express handler whose `req.params` are the route's params. */
export type ExpressHandler = (req: Request, res: Response, next: NextFunction) => unknown;

export type ExpressHandlers = HandlerTable<ExpressHandler>;

declare module '../typed-routes.js' {
  interface HandlerKinds<P> {
    /** An Express handler whose `req.params` are the route's. */
    express: (req: Request<P>, res: Response, next: NextFunction) => unknown;
  }
}

/** What `res.locals.divan` holds for a recognized request. */
export type ExpressMatch = Match;

export interface ExpressRouterOptions {
  /**
   * Answer a path Divan knows with another verb with a 405 (with `Allow`, through Express' error
   * handler). Off by default: such a request goes on to what the application declares next.
   * OPTIONS is never refused.
   */
  methodNotAllowed?: boolean;
}

/** A typed route set's table holds only its declared `handler#action` pairs. */
export function expressRouter<
  R extends TypedRoute = UnknownRoute,
  const T extends HandlerTableFor<R, 'express'> = HandlerTableFor<R, 'express'>,
>(routes: TypedRouteSetLike<R>, handlers: CheckedHandlers<T, R>, options: ExpressRouterOptions = {}): RequestHandler {
  assertActions(routes, handlers as HandlerTable<ExpressHandler>);
  const findAction = actionFinder(handlers as HandlerTable<ExpressHandler>);
  return (req, res, next) => {
    let found;
    try {
      found = lookupRequest(routes, req.method, req.path);
    } catch (error) {
      if (error instanceof URIError) return next(new HttpError(400, `Malformed path ${JSON.stringify(req.path)}`));
      return next(error);
    }
    if (found.kind === 'not-found') return next();
    if (found.kind === 'method-not-allowed') {
      if (options.methodNotAllowed !== true || req.method === 'OPTIONS') return next();
      const allow = found.allowed.join(', ');
      return next(
        new HttpError(405, `No route matches [${req.method}] ${JSON.stringify(req.path)}; allowed: ${allow}`, {
          Allow: allow,
        }),
      );
    }
    const { match } = found;
    const resolved = findAction(match);
    if ('missing' in resolved) return next(new HttpError(501, resolved.missing));
    req.params = match.params as Request['params'];
    res.locals.divan = match;
    const action = () => {
      let value: unknown;
      try {
        value = resolved.fn(req, res, next);
      } catch (error) {
        return next(error);
      }
      if (value instanceof Promise) value.then((answer) => answerWith(res, answer), next);
      else answerWith(res, value);
    };
    const middleware = match.route.middleware as readonly ExpressMiddleware[] | undefined;
    if (middleware === undefined) action();
    else runMiddleware(middleware, req, res, next, action);
  };
}

/** An Express middleware declared with the routes (`middleware:`), run before the action. */
export type ExpressMiddleware = (req: Request, res: Response, next: NextFunction) => unknown;

/**
 * Runs the route's declared middleware in order, as Express runs a route's stack: each calls
 * `next()` to go on, `next(error)` for Express' error handling, `next('route')` to leave the
 * route to what the application declares next, or answers itself.
 */
function runMiddleware(
  middleware: readonly ExpressMiddleware[],
  req: Request,
  res: Response,
  next: NextFunction,
  action: () => void,
): void {
  let at = 0;
  const step = (error?: unknown): void => {
    if (error === 'route' || error === 'router') return next();
    if (error !== undefined && error !== null) return next(error);
    const layer = middleware[at++];
    if (layer === undefined) return action();
    try {
      const value = layer(req, res, step as NextFunction);
      if (value instanceof Promise) value.catch(next);
    } catch (thrown) {
      next(thrown);
    }
  };
  step();
}

/**
 * What an action returned is the answer, as in the other adapters, unless it answered itself:
 * a string as text/plain, a Uint8Array as bytes (unless the action set a type), anything else
 * but `undefined` as JSON.
 */
function answerWith(res: Response, value: unknown): void {
  if (value === undefined || res.headersSent || value === res) return;
  if (typeof value === 'string' || value instanceof Uint8Array) {
    if (res.get('Content-Type') === undefined)
      res.type(typeof value === 'string' ? 'text/plain' : 'application/octet-stream');
    res.send(value);
  } else res.json(value);
}

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
 * It recognizes `req.path` (relative to where the middleware is mounted), sets `req.params` to the
 * route's params and `res.locals.divan` to the match, and calls `handlers[handler][action](req,
 * res, next)`; a rejected promise or a throw goes to `next(error)`, Express' error handling. A
 * path no route owns falls through with `next()`, so the middleware and routes declared after it
 * still run. A known path with another verb answers 405 with `Allow`; a route without a handler
 * function goes to `next()` with a 501 error (`status: 501`).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match } from '../types.js';
import { actionFinder, HttpError, lookupRequest, type HandlerTable } from './shared.js';

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

/** A typed route set's table holds only its declared `handler#action` pairs. */
export function expressRouter<R extends TypedRoute = UnknownRoute>(
  routes: TypedRouteSetLike<R>,
  handlers: HandlerTableFor<R, 'express'>,
): RequestHandler {
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
      res.set('Allow', found.allowed.join(', '));
      res.status(405).json({
        error: 'method_not_allowed',
        reason: `No route matches [${req.method}] ${JSON.stringify(req.path)}; allowed: ${found.allowed.join(', ')}`,
      });
      return;
    }
    const { match } = found;
    const resolved = findAction(match);
    if ('missing' in resolved) return next(new HttpError(501, resolved.missing));
    req.params = match.params as Request['params'];
    res.locals.divan = match;
    try {
      const value = resolved.fn(req, res, next);
      if (value instanceof Promise) value.catch(next);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Fastify 5 plugin (`@divan/router/fastify`):
 *
 *   await app.register(fastifyRouter(routes, {
 *     posts: {
 *       show: (request) => ({ id: request.params.id }),      // returned values are sent by Fastify
 *       create: async (request, reply) => reply.code(201).send(await save(request.body)),
 *     },
 *   }));
 *   app.divan.helpers.postPath(1);                           // the route set, on the instance
 *
 * The route set is registered with Fastify as one route per verb it uses, on every path
 * (`/` and `/*`), so Fastify's own body parsing, hooks (`onRequest`, `preHandler`, ...),
 * reply serialization and error handling apply to every declared route, while recognition keeps
 * the declaration's Rails order, optional segments, globs and constraints (which Fastify's
 * router cannot express). Routes Fastify knows by an exact path of its own still win over these.
 * The action gets `request.params` set to the route's params and `request.divan` to the match;
 * a path no route owns goes to Fastify's not-found handler, a known path with another verb
 * answers 405 with `Allow`, a route without a handler function throws a 501 error.
 */
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match, RouteSetLike } from '../types.js';
import { actionFinder, HttpError, lookupRequest, pathOfUrl, type HandlerTable } from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The route set the plugin serves: `list()`, `path()`, `url()`, `helpers`. */
    divan: RouteSetLike;
  }
  interface FastifyRequest {
    /** The route this request was recognized as. */
    divan: Match | null;
  }
}

/** An action: a Fastify handler whose `request.params` are the route's params. */
export type FastifyHandler = (
  request: FastifyRequest<{ Params: Record<string, string> }>,
  reply: FastifyReply,
) => unknown;

export type FastifyHandlers = HandlerTable<FastifyHandler>;

declare module '../typed-routes.js' {
  interface HandlerKinds<P> {
    /** A Fastify handler whose `request.params` are the route's. */
    fastify: (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => unknown;
  }
}

const ALL_METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/** A typed route set's table holds only its declared `handler#action` pairs. */
export function fastifyRouter<R extends TypedRoute = UnknownRoute>(
  routes: TypedRouteSetLike<R>,
  handlers: HandlerTableFor<R, 'fastify'>,
): FastifyPluginCallback {
  const findAction = actionFinder(handlers as HandlerTable<FastifyHandler>);
  const plugin: FastifyPluginCallback = (app: FastifyInstance, _options, done) => {
    app.decorate('divan', routes);
    app.decorateRequest('divan', null);
    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      const path = pathOfUrl(request.url);
      let found;
      try {
        found = lookupRequest(routes, request.method, path);
      } catch (error) {
        if (error instanceof URIError) throw new HttpError(400, `Malformed path ${JSON.stringify(path)}`);
        throw error;
      }
      if (found.kind === 'not-found') return reply.callNotFound();
      if (found.kind === 'method-not-allowed') {
        return reply
          .code(405)
          .header('Allow', found.allowed.join(', '))
          .send({
            error: 'method_not_allowed',
            reason: `No route matches [${request.method}] ${JSON.stringify(path)}; allowed: ${found.allowed.join(', ')}`,
          });
      }
      const { match } = found;
      const resolved = findAction(match);
      if ('missing' in resolved) throw new HttpError(501, resolved.missing);
      request.params = match.params;
      request.divan = match;
      return resolved.fn(request as Parameters<FastifyHandler>[0], reply);
    };
    // Every verb, so that another verb on a known path answers 405; HEAD comes from GET
    // (Fastify's exposeHeadRoutes) and the handler answers it from GET routes.
    const method = ALL_METHODS.filter((m) => m !== 'HEAD');
    app.route({ method, url: '/', handler });
    app.route({ method, url: '/*', handler });
    done();
  };
  // As `fastify-plugin` does: the decorations belong to the instance that registers the plugin.
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
  return plugin;
}

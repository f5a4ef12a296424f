/**
 * Fastify 5 plugin (`@divan/router/fastify`):
 *
 *   await app.register(fastifyRouter(routes, {
 *     posts: {
 *       show: (request) => ({ id: request.params.id }),      // returned values are sent by Fastify
 *       create: async (request, reply) => reply.code(201).send(await save(request.body)),
 *     },
 *   }, {
 *     routeOptions: { 'posts#create': { schema: { body: { type: 'object', required: ['title'] } } } },
 *   }));
 *   app.divan.helpers.postPath(1);                           // the route set, on the instance
 *
 * Every declared route Fastify's router can express (static words and whole-segment params,
 * `/posts/:post_id/comments/:id`) is registered with Fastify as a route of its own, its format
 * suffix left to recognition, with the options given for its `handler#action` (a schema,
 * hooks, config...): Fastify's body parsing, validation, hooks, serialization and error
 * handling then apply per route. The rest (globs, optional groups, any verb) and every other
 * path go to one catch-all route per verb (`/`, `/*`), which answers 405 with `Allow` for a
 * known path with another verb and sends other paths to Fastify's not-found handler.
 *
 * Which route answers is always decided by recognition, in declaration order as in Rails (a
 * route's Fastify entry only brings its options): in a `preValidation` hook, before Fastify
 * validates, `request.params` becomes the route's params (`/posts/1.json` → `{ id: '1',
 * format: 'json' }`) and `request.divan` the match. A route without a handler function throws
 * a 501 error.
 */
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  RouteShorthandOptions,
} from 'fastify';
import type { HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match, RouteInfo, RouteSetLike } from '../types.js';
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
/** `posts#create`: the pairs a route set declares (any string when they are not typed). */
type Endpoint<R extends TypedRoute> = R extends TypedRoute ? `${R['handler']}#${R['action']}` : never;

export interface FastifyRouterOptions<R extends TypedRoute = UnknownRoute> {
  /** Fastify route options (`schema`, hooks, `config`, ...) by `handler#action`. */
  routeOptions?: { [E in Endpoint<R>]?: RouteShorthandOptions };
}

/** A path Fastify's router reads as we do: `/words/:param/...`, the format suffix cut off. */
const FASTIFY_PATH = /^(?:\/(?:[\w~-]+|:\w+))+$|^\/$/;

/** The Fastify URL of a route, or null when its path needs our recognition alone. */
function fastifyUrl(route: RouteInfo): string | null {
  const path = route.path.endsWith('(.:format)') ? route.path.slice(0, -'(.:format)'.length) : route.path;
  return FASTIFY_PATH.test(path) ? path : null;
}

export function fastifyRouter<R extends TypedRoute = UnknownRoute>(
  routes: TypedRouteSetLike<R>,
  handlers: HandlerTableFor<R, 'fastify'>,
  options: FastifyRouterOptions<R> = {},
): FastifyPluginCallback {
  const findAction = actionFinder(handlers as HandlerTable<FastifyHandler>);
  const routeOptions = (options.routeOptions ?? {}) as Record<string, RouteShorthandOptions | undefined>;
  const plugin: FastifyPluginCallback = (app: FastifyInstance, _options, done) => {
    app.decorate('divan', routes);
    app.decorateRequest('divan', null);

    /**
     * Recognition: sets `request.params` and `request.divan`, or answers 404/405 itself (and
     * then does not call `done`). Runs as a preValidation hook on routes given options, so that
     * validation and their hooks see the route's params; elsewhere the handler runs it, which
     * spares each request a hook (the benchmark measured the adapter at 0.86-0.89 of Fastify's
     * own rate with the hook on every route, 1.00-1.04 without).
     */
    const recognize = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const path = pathOfUrl(request.url);
      let found;
      try {
        found = lookupRequest(routes, request.method, path);
      } catch (error) {
        done(
          error instanceof URIError ? new HttpError(400, `Malformed path ${JSON.stringify(path)}`) : (error as Error),
        );
        return;
      }
      // An answer given here ends the request: `done` is not called then.
      if (found.kind === 'not-found') reply.callNotFound();
      else if (found.kind === 'method-not-allowed') {
        reply
          .code(405)
          .header('Allow', found.allowed.join(', '))
          .send({
            error: 'method_not_allowed',
            reason: `No route matches [${request.method}] ${JSON.stringify(path)}; allowed: ${found.allowed.join(', ')}`,
          });
      } else {
        request.params = found.match.params;
        request.divan = found.match;
        done();
      }
    };
    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      if (request.divan === null) {
        let failed: Error | undefined;
        let recognized = false;
        recognize(request, reply, (error) => {
          failed = error;
          recognized = true;
        });
        if (failed !== undefined) throw failed;
        if (!recognized) return reply; // answered: 404 or 405
      }
      const match = request.divan!;
      const resolved = findAction(match);
      if ('missing' in resolved) throw new HttpError(501, resolved.missing);
      return resolved.fn(request as Parameters<FastifyHandler>[0], reply);
    };

    // Each route Fastify can express, once per verb and URL (a later route with the same ones
    // is reached through recognition, as in Rails).
    const registered = new Set<string>();
    for (const route of routes.list()) {
      const url = fastifyUrl(route);
      if (url === null || route.verb === '') continue;
      const fresh = route.verb
        .split('|')
        .filter((v) => v !== 'HEAD' && !registered.has(`${v} ${url}`)) as HTTPMethods[];
      if (fresh.length === 0) continue;
      for (const v of fresh) registered.add(`${v} ${url}`);
      const own = routeOptions[`${route.handler}#${route.action}`] ?? {};
      if (routeOptions[`${route.handler}#${route.action}`] === undefined) app.route({ method: fresh, url, handler });
      else app.route({ ...own, method: fresh, url, preValidation: chain(recognize, own.preValidation), handler });
    }
    // Every verb, so that another verb on a known path answers 405; HEAD comes from GET
    // (Fastify's exposeHeadRoutes) and recognition answers it from GET routes.
    const method = ALL_METHODS.filter((m) => m !== 'HEAD');
    const rootLeft = method.filter((m) => !registered.has(`${m} /`));
    if (rootLeft.length > 0) app.route({ method: rootLeft, url: '/', handler });
    app.route({ method, url: '/*', handler });
    done();
  };
  // As `fastify-plugin` does: the decorations belong to the instance that registers the plugin.
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
  return plugin;
}

/** Our recognition first, then the route's own preValidation hooks, if any. */
function chain(
  recognize: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void,
  own: RouteShorthandOptions['preValidation'],
): RouteShorthandOptions['preValidation'] {
  if (own === undefined) return recognize;
  return [recognize, ...(Array.isArray(own) ? own : [own])] as RouteShorthandOptions['preValidation'];
}

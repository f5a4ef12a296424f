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
 *   app.divan.helpers.postPath?.(1);                         // the route set, on the instance
 *
 * Every declared route is registered with Fastify as routes of its own, one per spelling
 * Fastify's router needs (`/posts`, `/posts.:format`, each variant of an optional group, a
 * glob ending the path as Fastify's `*`; see fastify-urls.ts), with the options given for its
 * `handler#action` (a schema, hooks, config...): Fastify's body parsing, validation, hooks,
 * serialization and error handling apply per route. No catch-all is claimed: a path no route
 * owns, or a non-canonical spelling (`/posts/1/`, `//posts/1`; see `isCanonicalPath`), is
 * Fastify's own business (its 404, `@fastify/static`, an application's fallback). A route
 * Fastify cannot express (a glob inside the path) is refused at registration, and so are
 * options for a route whose Fastify entry is broader than it (a glob) or for no route at all.
 *
 * Which route answers is always decided by recognition, in declaration order as in Rails (a
 * route's Fastify entry brings requests in, with its options): in a `preValidation` hook,
 * before Fastify validates, `request.params` becomes the route's params (`/posts/1.json` →
 * `{ id: '1', format: 'json' }`) and `request.divan` the match. When the route recognition
 * picks is not the one whose options ran (an earlier `get('posts/:id')` wins over the
 * resource's `/posts/new`, which Fastify's router picks), it answers only if both have the
 * same options; otherwise it is a 500 naming both, never a dispatch past a hook.
 *
 * A known path with another verb is Fastify's (its 404, or a route of the application's own)
 * unless `methodNotAllowed: true` (405 with `Allow`; OPTIONS never). `register(plugin, {
 * prefix })` mounts the routes under the prefix. A handler table that lacks an action some
 * route needs is refused when the plugin is created.
 */
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  RouteShorthandOptions,
} from 'fastify';
import type { CheckedHandlers, HandlerTableFor, TypedRoute, TypedRouteSetLike, UnknownRoute } from '../typed-routes.js';
import type { Match, RouteHelper, RouteInfo, RouteSetLike } from '../types.js';
import { fastifyUrlKey, fastifyUrls } from './fastify-urls.js';
import {
  actionFinder,
  assertActions,
  HttpError,
  isCanonicalPath,
  lookupRequest,
  pathOfUrl,
  type HandlerTable,
} from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The route set the plugin serves: `list()`, `path()`, `url()`, and its `helpers` by name
     * (typed loosely here, as Fastify's instance type cannot know the set: a helper may be
     * missing; the route set itself has them typed).
     */
    divan: RouteSetLike & { readonly helpers: Readonly<Record<string, RouteHelper | undefined>> };
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

const ALL_METHODS: HTTPMethods[] = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/** `posts#create`: the pairs a route set declares (any string when they are not typed). */
type Endpoint<R extends TypedRoute> = R extends TypedRoute ? `${R['handler']}#${R['action']}` : never;

export interface FastifyRouterOptions<R extends TypedRoute = UnknownRoute> {
  /** Fastify route options (`schema`, hooks, `config`, ...) by `handler#action`. */
  routeOptions?: { [E in Endpoint<R>]?: RouteShorthandOptions };
  /**
   * Answer 405 with `Allow` for a path Divan knows with another verb (OPTIONS excepted). Off by
   * default: such a request is Fastify's (its 404, or a route of the application's own);
   * on, the plugin registers the other verbs of each of its URLs, which the application then
   * cannot register itself.
   */
  methodNotAllowed?: boolean;
}

type Recognizer = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/** One Fastify route: a verb and URL, and the options of the first declared route that needed it. */
interface Entry {
  method: HTTPMethods;
  url: string;
  options: RouteShorthandOptions | undefined;
  endpoint: string;
}

export function fastifyRouter<
  R extends TypedRoute = UnknownRoute,
  const T extends HandlerTableFor<R, 'fastify'> = HandlerTableFor<R, 'fastify'>,
>(
  routes: TypedRouteSetLike<R>,
  handlers: CheckedHandlers<T, R>,
  options: FastifyRouterOptions<R> = {},
): FastifyPluginCallback {
  assertActions(routes, handlers as HandlerTable<FastifyHandler>);
  const findAction = actionFinder(handlers as HandlerTable<FastifyHandler>);
  const routeOptions = (options.routeOptions ?? {}) as Record<string, RouteShorthandOptions | undefined>;
  const entries = fastifyEntries(routes.list(), routeOptions);
  const plugin: FastifyPluginCallback = (app: FastifyInstance, pluginOptions, done) => {
    // A route set from `draw` has its helpers; a bare RouteSetLike serves routes without them.
    if (!app.hasDecorator('divan')) app.decorate('divan', routes as FastifyInstance['divan']);
    if (!app.hasRequestDecorator('divan')) app.decorateRequest('divan', null);
    // The plugin shares its instance (as `fastify-plugin` does), so Fastify does not apply a
    // `prefix` given to `register`: it is ours to add to each URL and to cut from each path.
    const prefix = String((pluginOptions as { prefix?: unknown }).prefix ?? '').replace(/\/+$/, '');
    const mountLength = app.prefix.length + prefix.length;

    for (const entry of entries) {
      const own = entry.options;
      const recognize = recognizer(routes, routeOptions, entry, mountLength);
      const handler = (request: FastifyRequest, reply: FastifyReply) => {
        if (request.divan === null) {
          let failed: Error | undefined;
          let recognized = false;
          recognize(request, reply, (error) => {
            failed = error;
            recognized = true;
          });
          if (failed !== undefined) throw failed;
          if (!recognized) return reply; // answered: not found
        }
        const match = request.divan!;
        const resolved = findAction(match);
        if ('missing' in resolved) throw new HttpError(501, resolved.missing);
        const layers = match.route.middleware as readonly FastifyMiddleware[] | undefined;
        if (layers === undefined) return resolved.fn(request as Parameters<FastifyHandler>[0], reply);
        return runMiddleware(layers, request, reply, resolved.fn);
      };
      const url = entry.url === '/' && prefix !== '' ? prefix : prefix + entry.url;
      // Recognition runs as a preValidation hook only where the route has options (validation and
      // its hooks then see the route's params); elsewhere the handler runs it, which spares each
      // request a hook (the benchmark measured 0.86-0.89 of Fastify's own rate with the hook on
      // every route, 1.00-1.04 without).
      if (own === undefined) app.route({ method: entry.method, url, handler });
      else
        app.route({ ...own, method: entry.method, url, preValidation: chain(recognize, own.preValidation), handler });
    }
    if (options.methodNotAllowed === true) registerMethodNotAllowed(app, routes, entries, prefix, mountLength);
    done();
  };
  // As `fastify-plugin` does: the decorations belong to the instance that registers the plugin.
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
  return plugin;
}

/**
 * The Fastify routes of a route set, in declaration order, one per verb and URL shape (a later
 * route needing the same one is reached through recognition, as in Rails); refuses what Fastify
 * cannot serve safely (see the module comment).
 */
function fastifyEntries(list: RouteInfo[], routeOptions: Record<string, RouteShorthandOptions | undefined>): Entry[] {
  const entries = new Map<string, Entry>();
  const endpoints = new Set<string>();
  for (const route of list) {
    const endpoint = `${route.handler}#${route.action}`;
    endpoints.add(endpoint);
    const own = routeOptions[endpoint];
    const shape = fastifyUrls(route.path, route.constraints, route.anchored !== false);
    if (shape === null)
      throw new Error(
        `[divan] Fastify's router cannot express ${route.verb || 'any verb'} ${route.path} (${endpoint}): a glob (or a param whose constraint takes a slash) may only end a path here`,
      );
    if (route.anchored === false && own !== undefined)
      throw new Error(
        `[divan] routeOptions['${endpoint}']: ${route.path} is a prefix route (anchor: false), served through Fastify's wildcard ${shape.urls.join(', ')}, which other routes' paths reach too; its options would not be this route's alone. Guard it in the handler or with middleware: declared with the routes`,
      );
    if (shape.wildcard && own !== undefined)
      throw new Error(
        `[divan] routeOptions['${endpoint}']: ${route.path} is served through Fastify's wildcard ${shape.urls.join(', ')}, which other paths reach too; its options would not be this route's alone. Guard it in the handler, or give the route a path of words and params`,
      );
    const methods =
      route.verb === '' ? ALL_METHODS : (route.verb.split('|').filter((v) => v !== 'HEAD') as HTTPMethods[]);
    for (const url of shape.urls) {
      for (const method of methods) {
        const key = fastifyUrlKey(method, url);
        if (!entries.has(key)) entries.set(key, { method, url, options: own, endpoint });
      }
    }
  }
  const unknown = Object.keys(routeOptions).filter((e) => routeOptions[e] !== undefined && !endpoints.has(e));
  if (unknown.length > 0)
    throw new Error(`[divan] routeOptions for routes the route set does not declare: ${unknown.join(', ')}`);
  return [...entries.values()];
}

/**
 * Recognition for one Fastify route: sets `request.params` and `request.divan`, or answers
 * itself (and then does not call `done`): Fastify's not-found handler for what Divan does not
 * recognize here (another verb, a non-canonical spelling).
 */
function recognizer(
  routes: RouteSetLike,
  routeOptions: Record<string, RouteShorthandOptions | undefined>,
  entry: Entry,
  mountLength: number,
): Recognizer {
  return (request, reply, done) => {
    const path = pathOfUrl(request.url).slice(mountLength) || '/';
    let found;
    try {
      found = lookupRequest(routes, request.method, path);
    } catch (error) {
      done(error instanceof URIError ? new HttpError(400, `Malformed path ${JSON.stringify(path)}`) : (error as Error));
      return;
    }
    if (found.kind !== 'match') {
      reply.callNotFound();
      return;
    }
    const { match } = found;
    const endpoint = `${match.handler}#${match.action}`;
    if (routeOptions[endpoint] !== entry.options) {
      // The options that ran are another route's: never dispatch past a hook that did not run.
      done(
        new HttpError(
          500,
          `[divan] ${request.method} ${JSON.stringify(path)} is ${endpoint}, declared first, but Fastify's router reached it through ${entry.method} ${entry.url} (${entry.endpoint}), whose routeOptions differ: give both the same options, or declare them so that the paths do not overlap`,
        ),
      );
      return;
    }
    request.params = match.params;
    request.divan = match;
    done();
  };
}

/** The 405 routes: every URL's verbs no route registered (not OPTIONS, never blocked; HEAD comes with GET). */
function registerMethodNotAllowed(
  app: FastifyInstance,
  routes: RouteSetLike,
  entries: Entry[],
  prefix: string,
  mountLength: number,
): void {
  const taken = new Set(entries.map((e) => fastifyUrlKey(e.method, e.url)));
  const urls = new Map(entries.map((e) => [fastifyUrlKey('', e.url), e.url]));
  for (const url of urls.values()) {
    const method = ALL_METHODS.filter((m) => m !== 'OPTIONS' && !taken.has(fastifyUrlKey(m, url)));
    if (method.length === 0) continue;
    app.route({
      method,
      url: url === '/' && prefix !== '' ? prefix : prefix + url,
      handler: (request, reply) => {
        const path = pathOfUrl(request.url).slice(mountLength) || '/';
        const allowed = isCanonicalPath(path) ? routes.allowedMethods(path) : [];
        if (allowed.length === 0) return reply.callNotFound();
        throw new HttpError(
          405,
          `No route matches [${request.method}] ${JSON.stringify(path)}; allowed: ${allowed.join(', ')}`,
          { Allow: allowed.join(', ') },
        );
      },
    });
  }
}

/**
 * A middleware declared with the routes (`middleware:`): run like an async `preHandler` hook,
 * after Fastify's own hooks and validation, before the action; it stops the request by
 * sending (`reply.code(401).send()`) or throwing.
 */
export type FastifyMiddleware = (request: FastifyRequest, reply: FastifyReply) => unknown;

async function runMiddleware(
  layers: readonly FastifyMiddleware[],
  request: FastifyRequest,
  reply: FastifyReply,
  action: FastifyHandler,
): Promise<unknown> {
  for (const layer of layers) {
    await layer(request, reply);
    if (reply.sent) return reply;
  }
  return action(request as Parameters<FastifyHandler>[0], reply);
}

/** Our recognition first, then the route's own preValidation hooks, if any. */
function chain(
  recognize: Recognizer,
  own: RouteShorthandOptions['preValidation'],
): RouteShorthandOptions['preValidation'] {
  if (own === undefined) return recognize;
  return [recognize, ...(Array.isArray(own) ? own : [own])] as RouteShorthandOptions['preValidation'];
}

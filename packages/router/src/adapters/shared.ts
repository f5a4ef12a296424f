/**
 * What every adapter does the same way: look a request up (HEAD falling back to GET routes),
 * tell "no route owns this path" from "the path is known, the verb is not" (405 with `Allow`),
 * and find the action function of a match in a handler table without reaching what every
 * object inherits (`toString`, `constructor`, ...).
 */
import type { Match, RouteInfo, RouteSetLike } from '../types.js';

/** `{ 'admin/users': { index, show } }`: handler name → action name → function (or a class instance's methods). */
export type HandlerTable<F> = Record<string, Record<string, F> | object>;

/** The outcome of looking a request up. */
export type Lookup =
  | { kind: 'match'; match: Match }
  /** The path is known, not with this verb: answer 405 with `Allow: allowed`. */
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

const NOT_FOUND: Lookup = Object.freeze({ kind: 'not-found' });

/**
 * Whether a request path is spelled the one way the adapters dispatch: no doubled slash
 * anywhere, no trailing slash (but `/` itself). The host framework matches its own guards
 * (`app.use('/admin', auth)`, Hono's `/admin/*`, a Fastify route's hooks) on the path as sent,
 * while recognition squeezes slashes as Rails does: dispatching `//admin/posts/1` would walk
 * past a guard that never saw `/admin`. So another spelling is not recognized (it falls
 * through to the framework, which answers it as it would without Divan). Case and escapes
 * need no rule here: static segments match byte for byte (`/ADMIN`, `/%61dmin` are not
 * `/admin`), and only param values are decoded.
 */
export function isCanonicalPath(path: string): boolean {
  const last = path.length - 1;
  return path.indexOf('//') === -1 && (last === 0 || path.charCodeAt(last) !== 47);
}

/**
 * Looks a request up (the path as sent, see `isCanonicalPath`); a malformed escape (`%zz`)
 * throws a URIError the caller maps to 400.
 */
export function lookupRequest(routes: RouteSetLike, method: string, path: string): Lookup {
  if (!isCanonicalPath(path)) return NOT_FOUND;
  const verb = method.toUpperCase();
  const match = routes.recognize(verb, path) ?? (verb === 'HEAD' ? routes.recognize('GET', path) : null);
  if (match !== null) return { kind: 'match', match };
  const allowed = routes.allowedMethods(path);
  return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : NOT_FOUND;
}

/** The path of a request target as sent (`/a%20b`), also in absolute form; query and fragment removed. */
export function pathOfUrl(url: string): string {
  let end = url.length;
  const q = url.indexOf('?');
  if (q >= 0) end = q;
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < end) end = hash;
  let path = url.slice(0, end);
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  if (absolute) path = path.slice(absolute[0].length);
  return path.startsWith('/') ? path : `/${path}`;
}

/** `object[key]`, own or from a class prototype, ignoring what every object inherits. */
function member(object: unknown, key: string): unknown {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  if (!Object.hasOwn(object, key) && (key in Object.prototype || key === '__proto__')) return undefined;
  return (object as Record<string, unknown>)[key];
}

/** The action of a route: its function bound to its handler object, or why there is none. */
export type Resolved<F> = { fn: F } | { missing: string };

/**
 * Finds the action of a match in a handler table, once per route (the table is read when a
 * route is first requested; later requests reuse the bound function).
 */
export function actionFinder<F extends (...args: never[]) => unknown>(
  handlers: HandlerTable<F>,
): (match: Match) => Resolved<F> {
  const found = new Map<RouteInfo, Resolved<F>>();
  return (match) => {
    let resolved = found.get(match.route);
    if (resolved === undefined) found.set(match.route, (resolved = resolve(handlers, match)));
    return resolved;
  };
}

function resolve<F>(handlers: HandlerTable<F>, match: Pick<Match, 'handler' | 'action'>): Resolved<F> {
  const target = member(handlers, match.handler);
  const fn = target === undefined ? undefined : member(target, match.action);
  if (typeof fn === 'function') return { fn: fn.bind(target) as F };
  const endpoint = `${match.handler}#${match.action}`;
  return {
    missing:
      target === undefined
        ? `No handler ${JSON.stringify(match.handler)} for ${endpoint}`
        : `Handler ${JSON.stringify(match.handler)} has no action ${JSON.stringify(match.action)} for ${endpoint}`,
  };
}

/**
 * Refuses, when an adapter is created, a handler table that lacks an action some route needs:
 * a typo or a forgotten action is a start-up error naming every such `handler#action`, not a
 * 501 a client finds later. (A route whose handler or action comes from the path, `:action`,
 * is looked up per request.)
 */
export function assertActions(routes: RouteSetLike, handlers: HandlerTable<unknown>): void {
  const missing = new Map<string, string>();
  for (const route of routes.list()) {
    const endpoint = `${route.handler}#${route.action}`;
    if (missing.has(endpoint) || /^$|:/.test(route.handler) || /^$|:/.test(route.action)) continue;
    const resolved = resolve(handlers, route);
    if ('missing' in resolved) missing.set(endpoint, `${resolved.missing} (${route.verb || 'any verb'} ${route.path})`);
  }
  if (missing.size > 0)
    throw new Error(
      `[divan] The handler table lacks ${missing.size} action(s) the routes need:\n  ${[...missing.values()].join('\n  ')}\nAdd them, or leave those routes out of the declaration (only:/except:).`,
    );
}

/**
 * The status an error answers with: its own `status` (or `statusCode`) when it is an HTTP
 * error status (400-599), else 500.
 */
export function errorStatus(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 500;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  return typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599 ? code : 500;
}

/** An error that answers with its status (the adapters pass it to the framework's error handling). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries (`Allow` of a 405); Express' and Fastify's error handlers set them. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** Express and Fastify read `statusCode` too. */
  get statusCode(): number {
    return this.status;
  }

  /**
   * The answer, as node:http's adapter gives it: Hono's default error handler sends what an
   * error's `getResponse()` returns (as for its own HTTPException), so an HttpError answers
   * with its status there too. A server error's message never leaves the server.
   */
  getResponse(): Response {
    const reason = this.status < 500 ? this.message : 'Internal Server Error';
    return new Response(JSON.stringify({ error: errorName(this.status), reason }), {
      status: this.status,
      headers: { ...this.headers, 'content-type': 'application/json; charset=utf-8' },
    });
  }
}

/** `bad_request`, `not_found`, ...: the JSON error name of a status. */
export function errorName(status: number): string {
  const names: Record<number, string> = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    422: 'unprocessable_entity',
  };
  return names[status] ?? (status < 500 ? 'client_error' : 'internal_server_error');
}

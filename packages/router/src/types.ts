/**
 * The public shapes of a compiled route set. Everything that reads routes (the table printer,
 * the typed-helper writer, the node:http dispatcher, the CLI) depends on these types only.
 */

/** One declared route, as `rails routes` would list it. */
export interface RouteInfo {
  /** Rails' "Prefix": `edit_post`; null when the route is unnamed. */
  name: string | null;
  /** `GET`, `PATCH`, `GET|POST` for a multi-verb match, `''` for any verb. */
  verb: string;
  /** `/posts/:post_id/comments(.:format)` */
  path: string;
  /** `admin/users` (Rails' controller). */
  handler: string;
  /** `index` */
  action: string;
  /** RegExp source per segment: those declared, incl. format and renamed parent ids (`post_id`). */
  constraints: Record<string, string>;
  /** Declared defaults (not handler/action). */
  defaults: Record<string, unknown>;
  /** False for a prefix route (`anchor: false`: `/mounted` also answers `/mounted/a/b`); absent when anchored. */
  anchored?: false;
  /** The `middleware` of the enclosing scopes then the route's own, outermost first; absent when none. */
  middleware?: readonly Middleware[];
}

/**
 * A function run before the route's handler by the adapter (its own signature per framework):
 * declared on a scope or a route, a route carries those of every enclosing scope, outermost first.
 */
export type Middleware = (...args: never[]) => unknown;

/** The answer of `recognize`. */
export interface Match {
  route: RouteInfo;
  handler: string;
  action: string;
  /** Path segments (`id`, `post_id`, `format` when present), percent-decoded, plus declared defaults. */
  params: Record<string, unknown>;
}

/** Options a generated URL may carry besides path params (`url()` only). */
export interface UrlOptions {
  host?: string;
  protocol?: string;
  port?: number | string;
  anchor?: string;
  /** Where the routes are mounted (`/api`): prefixed to every path (Rails' `script_name`). */
  scriptName?: string;
}

/** A URL/path helper: positional values for the required segments (then the optional format), then a params object. */
export type RouteHelper = (...args: unknown[]) => string;

/** What every reader of a route set relies on. */
export interface RouteSetLike {
  list(): RouteInfo[];
  recognize(method: string, path: string): Match | null;
  /** Verbs that some route answers for this path (HEAD included where GET is); empty when no route's path matches. */
  allowedMethods(path: string): string[];
  path(name: string, ...args: unknown[]): string;
  url(name: string, ...args: unknown[]): string;
}

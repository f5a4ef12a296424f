/** The options the DSL accepts, camelCase versions of Rails' option names. */

export type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options' | 'all' | (string & {});

export type Constraint = RegExp | string;

/** A middleware declared with the routes; its arguments are the adapter's (see `middleware`). */
// biome-ignore lint/suspicious/noExplicitAny: each adapter calls it with its own arguments
export type RouteMiddleware = (...args: any[]) => unknown;

export interface MatchOptions {
  /** `handler#action` */
  to?: string;
  /** Rails' `controller`. */
  handler?: string;
  action?: string;
  /** The route's name; `false`/`null` leaves it unnamed. */
  as?: string | null | false;
  via?: Verb | Verb[];
  /** `member`, `collection` or `new`: declare the route in that scope of the resource. */
  on?: string;
  path?: string;
  /** Default format value, `false` to drop `(.:format)`, `true` to require it, or a RegExp. */
  format?: string | boolean | RegExp;
  /** Match the whole path (default) or only a prefix of it. */
  anchor?: boolean;
  constraints?: Record<string, Constraint>;
  defaults?: Record<string, unknown>;
  module?: string;
  /**
   * Functions every adapter runs, in scope order, before the route's action (each adapter's own
   * middleware shape: docs/router.md, "Middleware"); a scope's are added to its routes' own.
   */
  middleware?: RouteMiddleware | readonly RouteMiddleware[];
  /** Other keys: a RegExp constrains the segment of that name, any other value becomes a default. */
  [extra: string]: unknown;
}

export interface ScopeOptions extends MatchOptions {
  shallow?: boolean;
  shallowPath?: string;
  shallowPrefix?: string;
  pathNames?: Record<string, string>;
  only?: string | string[];
  except?: string | string[];
}

export interface ResourcesOptions extends ScopeOptions {
  param?: string;
  concerns?: string | string[];
}

/** Option names that are never a path in the map form of `match`. */
export const OPTION_NAMES: ReadonlySet<string> = new Set([
  'only',
  'except',
  'path',
  'pathNames',
  'shallow',
  'shallowPath',
  'shallowPrefix',
  'format',
  'module',
  'concerns',
  'as',
  'param',
  'handler',
  'constraints',
  'defaults',
  'on',
  'via',
  'to',
  'action',
  'anchor',
  'middleware',
]);

/** Rails' `Resources::RESOURCE_OPTIONS`: the options a resource keeps; the rest open a scope. */
export const RESOURCE_OPTIONS: readonly string[] = Object.freeze([
  'as',
  'handler',
  'path',
  'only',
  'except',
  'param',
  'concerns',
]);

/** Rails' `Resources::VALID_ON_OPTIONS`. */
export const VALID_ON_OPTIONS: readonly string[] = Object.freeze(['new', 'collection', 'member']);

/** Actions that fit their scope level and so add no path segment or name prefix. */
export const CANONICAL_ACTIONS: readonly string[] = Object.freeze([
  'index',
  'create',
  'new',
  'show',
  'update',
  'destroy',
]);

/** Rails' `Scope::OPTIONS`: keys a `scope` call stores in its frame (the rest go to `options`). */
export const SCOPE_OPTIONS = [
  'path',
  'shallowPath',
  'as',
  'shallowPrefix',
  'module',
  'handler',
  'action',
  'pathNames',
  'constraints',
  'shallow',
  'defaults',
  'via',
  'format',
] as const;

/** Constraint keys that describe the request's URL rather than a path segment. */
export const URL_OPTIONS: readonly string[] = Object.freeze(['protocol', 'subdomain', 'domain', 'host', 'port']);

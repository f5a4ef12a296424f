/**
 * The core of the routing DSL (Rails' `Mapper::Base` with the scope stack and `Mapping`'s
 * naming): the scope frames every block method pushes, and `match`, which every route
 * declaration ends in (path, handler and action, name). The other modules of the mapper sit on
 * it, each in its own file as in Rails: http-helpers.ts (`get`, `post`, ...), scoping.ts
 * (`scope`, `namespace`, ...), concerns.ts, resources.ts; mapper.ts puts them together.
 */
import { ArgumentError } from '../errors.js';
import { escapeDeclaredPath, normalizeName, normalizePath, withFormat } from '../pattern/normalize.js';
import type { RouteSpec } from '../route.js';
import type { ResourceRoutes } from '../resource-routes.js';
import { buildRouteSpec, internVerbs, isPlainObject } from './mapping.js';
import { CANONICAL_ACTIONS, OPTION_NAMES, VALID_ON_OPTIONS, type MatchOptions, type Middleware } from './options.js';
import { middlewareList, refuseUnknownVerbs } from './refusals.js';
import type { Resource } from './resource.js';
import { startsValidName } from '../support/name-parts.js';
import { present, RESOURCE_METHOD_SCOPES, Scope, type ScopeFrame, type ScopeLevel } from './scope.js';
import type { Mapper } from './mapper.js';

export type Block = (r: Mapper) => void;
export type ConcernBlock = (r: Mapper, options: Record<string, unknown>) => void;
export type Names = string | string[];
export type PathArg = string | string[] | Record<string, unknown>;

/** Receives each route as it is declared; the route set implements it. */
export interface RouteSink {
  add(spec: RouteSpec): void;
  /** A plain resource's own routes as one record (resource-routes.ts). */
  addResourceRoutes(routes: ResourceRoutes): void;
  hasNamedRoute(name: string): boolean;
}

/** A bare word (`preview`, `new-draft`) is an action name, like a Ruby symbol; anything else is a path. */
export function isBareWord(path: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(path);
}

export { startsValidName } from '../support/name-parts.js';

/** Verb lists (interned) by `via` string: most routes say `get`. */
export const viaVerbs = new Map<string, string[]>();

/** The verbs of a `via` option (`'get'`, `['get', 'post']`, `'all'`: every verb, an empty list). */
export function verbsOf(viaValue: unknown, where: () => string = () => 'a resource'): string[] {
  const via = (Array.isArray(viaValue) ? viaValue : viaValue === undefined || viaValue === null ? [] : [viaValue]).map(
    (v) => String(v).toLowerCase(),
  );
  if (via.length === 0) throw new ArgumentError(MATCH_VIA_MESSAGE);
  const verbs = internVerbs(via.includes('all') ? [] : via.map((v) => v.toUpperCase()));
  refuseUnknownVerbs(verbs, where);
  if (typeof viaValue === 'string') viaVerbs.set(viaValue, verbs);
  return verbs;
}

/** Options and constraints of a route declared with none (only read). */
export const NO_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({});

const MATCH_VIA_MESSAGE =
  'You should not use the `match` method in your router without specifying an HTTP method.\n' +
  "If you want to expose your action to both GET and POST, add the `via: ['get', 'post']` option.\n" +
  'If you want to expose your action to GET, use `get` in the router:\n' +
  "  Instead of: r.match('path', { to: 'handler#action' })\n" +
  "  Do: r.get('path', { to: 'handler#action' })";

export abstract class MapperBase {
  protected current: Scope;

  constructor(protected readonly sink: RouteSink) {
    this.current = new Scope({ pathNames: { new: 'new', edit: 'edit' } }, null, null);
  }

  // Declared by later modules, used by \`match\` (as Rails' modules call each other through self).
  abstract defaults(defaults: Record<string, unknown>, block: Block): this;
  abstract member(block: Block): this;
  /** `member`, `collection` or `new` (an `on:` option) with the block. */
  protected abstract onLevel(level: string, block: () => void): void;
  abstract isShallow(): boolean;
  protected abstract nestedScope(block: () => void): void;

  // ---------------------------------------------------------------- scope stack

  /** Runs `block` with `frame` pushed (or a new `level`), restoring the scope even if it throws. */
  protected within(frame: ScopeFrame | null, level: ScopeLevel | undefined, block: () => void): void {
    const saved = this.current;
    if (frame) this.current = this.current.push(frame);
    if (level !== undefined) this.current = this.current.pushLevel(level);
    try {
      block();
    } finally {
      this.current = saved;
    }
  }

  protected withScopeLevel(level: ScopeLevel, block: () => void): void {
    this.within(null, level, block);
  }

  protected pathScope(path: string, block: () => void): void {
    this.within({ path: normalizePath(`${this.current.get('path') ?? ''}/${path}`) }, undefined, block);
  }

  /** Shallow routes drop the enclosing path and name prefix for `shallowPath`/`shallowPrefix`. */
  protected shallowScope(block: () => void): void {
    this.within({ as: this.current.get('shallowPrefix'), path: this.current.get('shallowPath') }, undefined, block);
  }

  protected get parentResource(): Resource | undefined {
    return this.current.get('resource');
  }

  /** This mapper as blocks receive it: the only concrete class is `Mapper`, made of every module. */
  protected get self(): Mapper {
    return this as unknown as Mapper;
  }

  protected run(block: Block | undefined): void {
    if (block) block(this.self);
  }

  // ---------------------------------------------------------------- match

  /** Declares a route: `match('photos/:id', { to: 'photos#show', via: 'get' })`, or the map form. */
  match(path: PathArg, options?: MatchOptions): this {
    let paths: string[];
    let opts: Record<string, unknown>;
    if (isPlainObject(path) && options === undefined) {
      opts = { ...path };
      const key = Object.keys(opts).find((k) => !OPTION_NAMES.has(k));
      if (key === undefined) throw new ArgumentError('Route path not specified');
      const target = opts[key];
      delete opts[key];
      if (typeof target === 'string' && target.includes('#')) opts.to = target;
      else if (typeof target === 'string') opts.handler = target;
      else opts.to = target;
      paths = [key];
    } else if (isPlainObject(path)) {
      throw new ArgumentError('the map form of match takes no further options');
    } else {
      // Never modified below: the options are read, and what is left of them is copied.
      opts = options ?? {};
      paths = typeof path === 'string' ? [path] : (Array.isArray(path) ? path.flat() : [path]).map(String);
    }
    if ('defaults' in opts) {
      const { defaults, ...rest } = opts;
      this.defaults((defaults as Record<string, unknown>) ?? {}, () => this.mapMatch(paths, rest));
    } else {
      this.mapMatch(paths, opts);
    }
    return this;
  }

  protected mapMatch(paths: string[], options: Record<string, unknown>): void {
    if (options.on !== undefined && !VALID_ON_OPTIONS.includes(String(options.on))) {
      throw new ArgumentError(`Unknown scope ${String(options.on)} given to :on`);
    }
    // What is left after the keys read here goes on to the route (the caller's object is not modified).
    const {
      handler: handlerOption,
      path: optionPath,
      to: toOption,
      via: viaOption,
      format: formatOption,
      anchor: anchorOption,
      constraints: constraintsOption,
      middleware: middlewareOption,
      ...rest
    } = options;
    const scope = this.current;
    const scopeHandler = scope.get('handler');
    const scopeAction = scope.get('action');
    let to = toOption as string | undefined;
    if (scopeHandler && scopeAction && to === undefined) to = `${scopeHandler}#${scopeAction}`;

    const handler = (handlerOption as string | undefined) ?? scopeHandler;
    const viaValue = 'via' in options ? viaOption : scope.get('via');
    const verbs =
      (typeof viaValue === 'string' ? viaVerbs.get(viaValue) : undefined) ??
      verbsOf(viaValue, () => `the route '${paths.join("', '")}'`);
    const formatted = 'format' in options ? formatOption : scope.get('format');
    const anchor = 'anchor' in options ? anchorOption !== false : true;
    const constraints = constraintsOption ?? {};

    const middleware = middlewareList(middlewareOption);
    const route: RouteArgs = { handler, to, verbs, formatted, anchor, constraints, middleware };
    // Paths first, then bare words, as Rails groups strings before symbols.
    for (const path of paths) {
      if (isBareWord(path)) continue;
      if (optionPath !== undefined) {
        throw new ArgumentError('Ambiguous route definition. Both :path and the route path were specified as strings.');
      }
      to = this.toFromPath(path, to, rest.action as string | undefined);
      this.decomposedMatch({ action: path, path }, { ...route, to }, rest);
    }
    for (const action of paths) {
      if (isBareWord(action)) this.decomposedMatch({ action, path: optionPath as string | undefined }, route, rest);
    }
  }

  protected toFromPath(path: string, to: string | undefined, action: string | undefined): string | undefined {
    if (to !== undefined || action !== undefined) return to;
    const bare = path.replace(/\(\.:format\)$/, '');
    if (!/^\/?[-\w]+\/[-\w/]+$/.test(bare)) return undefined;
    return bare
      .replace(/^\//, '')
      .replace(/\/([^/]*)$/, '#$1')
      .replace(/-/g, '_');
  }

  protected decomposedMatch(target: RouteTarget, route: RouteArgs, options: Record<string, unknown>): void {
    const on = options.on as string | undefined;
    if (on !== undefined) {
      const { on: _on, ...rest } = options;
      const scoped = () => this.decomposedMatch(target, route, rest);
      this.onLevel(on, scoped);
      return;
    }
    if (this.current.level === 'resources') this.nestedScope(() => this.decomposedMatch(target, route, options));
    else if (this.current.level === 'resource') this.member(() => this.decomposedMatch(target, route, options));
    else this.addRoute(target, route, options);
  }

  protected addRoute(target: RouteTarget, route: RouteArgs, options: Record<string, unknown>): void {
    let path = this.pathForAction(target);
    if (!present(path)) throw new ArgumentError('path is required');

    let action: string | undefined = target.action;
    let defaultAction = (options.action as string | undefined) ?? this.current.get('action');
    if (/^[\w\-/]+$/.test(action)) {
      if (defaultAction === undefined && !action.includes('/')) defaultAction = action.replace(/-/g, '_');
    } else {
      action = undefined;
    }

    let name: string | null;
    if ('as' in options && (options.as === null || options.as === false || options.as === undefined)) name = null;
    else name = this.nameForAction(options.as as string | undefined, action);
    // The route's extra options: everything but `action` and `as` (the caller's object stays as is).
    let extra = options;
    if ('action' in options || 'as' in options) {
      const { action: _action, as: _as, ...rest } = options;
      extra = rest;
    }

    path = withFormat(normalizePath(escapeDeclaredPath(path)), route.formatted);
    const spec = buildRouteSpec(this.current, {
      name,
      path,
      verbs: route.verbs,
      handler: route.handler,
      defaultAction,
      to: route.to,
      formatted: route.formatted,
      anchor: route.anchor,
      constraints: route.constraints,
      middleware: route.middleware,
      options: extra,
    });
    this.sink.add(spec);
  }

  protected pathForAction(target: RouteTarget): string {
    const scopePath = this.current.get('path') ?? '';
    if (target.path !== undefined) return `${scopePath}/${target.path}`;
    if (this.isCanonicalAction(target.action)) return scopePath;
    return `${scopePath}/${this.actionPath(target.action)}`;
  }

  protected actionPath(name: string): string {
    return this.current.get('pathNames')?.[name] ?? name;
  }

  protected isCanonicalAction(action: string | undefined, level: ScopeLevel = this.current.level): boolean {
    return action !== undefined && RESOURCE_METHOD_SCOPES.includes(level) && CANONICAL_ACTIONS.includes(action);
  }

  /** The route's name; `level` is the scope level the route is declared at (the current one unless told). */
  protected nameForAction(
    as: string | undefined,
    action: string | undefined,
    level: ScopeLevel = this.current.level,
  ): string | null {
    if (present(as)) return this.joinedName(as, action, level) || null;
    const candidate = this.implicitName(action, level);
    return candidate === null || this.sink.hasNamedRoute(candidate) ? null : candidate;
  }

  /** The name a route gets without `as`, unless it is taken by then: null when there is none or it would be invalid. */
  protected implicitName(action: string | undefined, level: ScopeLevel): string | null {
    const candidate = this.joinedName(undefined, action, level);
    return candidate !== null && startsValidName(candidate) ? candidate : null;
  }

  /** The parts of a route's name joined (Rails' `name_for_action` before its checks); null: no name in a resource. */
  protected joinedName(as: string | undefined, action: string | undefined, level: ScopeLevel): string | null {
    let prefix: string | undefined;
    if (present(as)) prefix = as;
    else if (!this.isCanonicalAction(action, level)) prefix = action;
    if (prefix !== undefined && prefix !== '/' && prefix !== '') {
      // A plain word (`edit`, `preview`) is its own name part.
      if (!/^\w+$/.test(prefix)) prefix = normalizeName(prefix.replace(/-/g, '_'));
    } else prefix = undefined;

    const namePrefix = this.current.get('as');
    let collectionName: string | undefined;
    let memberName: string | undefined;
    const resource = this.parentResource;
    if (resource) {
      if (!present(as) && !present(action)) return null;
      collectionName = resource.collectionName;
      memberName = resource.memberName;
    }
    return this.current.actionName(namePrefix, prefix, collectionName, memberName, level);
  }
}

export interface RouteTarget {
  /** The action word or the path string as written. */
  action: string;
  /** An explicit path segment (the path string itself, or the `path` option of a bare word). */
  path?: string | undefined;
}

export interface RouteArgs {
  handler: string | undefined;
  to: string | undefined;
  verbs: string[];
  formatted: unknown;
  anchor: boolean;
  constraints: unknown;
  /** The route's own middleware (the scopes' come first). */
  middleware: Middleware[];
}

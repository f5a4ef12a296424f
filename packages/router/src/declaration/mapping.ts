/**
 * Turns one route call, with the scope it was made in, into a normalized RouteSpec: the
 * handler and action (from `to`, the scope and the module), the segment requirements
 * (constraints on path params, format included), and the defaults (Rails' `Mapping`).
 */
import { ArgumentError } from '../errors.js';
import { PathPattern } from '../pattern/pattern.js';
import { isEmpty } from '../support/is-empty.js';
import { NO_DEFAULTS, NO_MIDDLEWARE, NO_REQUIREMENTS, type RouteSpec } from '../route.js';
import type { Scope } from './scope.js';
import type { Middleware } from './options.js';
import {
  refuseConstraint,
  refuseMisspeltOptions,
  refuseRequestConstraints,
  refuseUnbalancedPath,
  routeLabel,
} from './refusals.js';

export interface RouteCall {
  name: string | null;
  /** Normalized, escaped path with its format segment. */
  path: string;
  verbs: string[];
  handler: string | undefined;
  defaultAction: string | undefined;
  to: string | undefined;
  formatted: unknown;
  anchor: boolean;
  constraints: unknown;
  /** The route's own middleware, when it declares some. */
  middleware?: Middleware[];
  /** What is left of the call's options: extra keys become requirements or defaults. */
  options: Record<string, unknown>;
}

const ANCHORS = /^(\\A|\^)|(\\Z|\\z|\$)$/;

/** A constraint as a RegExp: strings match themselves literally, as `Regexp.union` does. */
export function toRegExp(value: unknown): RegExp {
  if (value instanceof RegExp) return value;
  return new RegExp(String(value).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
}

/** An options map: not null, an array or a RegExp. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RegExp);
}

const verbLists = new Map<string, string[]>();

/** Routes share one array per verb list: most of 10,000 routes say ['GET']. */
export function internVerbs(verbs: string[]): string[] {
  if (Object.isFrozen(verbs)) return verbs; // interned already
  const key = verbs.join('|');
  let list = verbLists.get(key);
  if (list === undefined) verbLists.set(key, (list = Object.freeze(verbs.slice()) as string[]));
  return list;
}

function orShared<T extends object>(value: T, shared: T): T {
  return isEmpty(value) ? shared : value;
}

/** `{ ...a, ...b }` without copying when one side is empty (the result is only read). */
function merged(a: Record<string, unknown> | undefined, b: Record<string, unknown>): Record<string, unknown> {
  if (a === undefined || isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  return { ...a, ...b };
}

let lastValidHandler = '';
const HANDLER_NAME = /^[a-z_0-9][a-z_0-9/]*$/;

/** Whether a handler name is one Rails accepts (`admin/users`). */
function isValidHandler(handler: string): boolean {
  if (handler === lastValidHandler) return true;
  if (!HANDLER_NAME.test(handler)) return false;
  lastValidHandler = handler;
  return true;
}

/**
 * The handler the routes of a scope get, when the scope adds nothing else to them (no options,
 * defaults, constraints, format or action): then their specs are lean ones (route.ts,
 * `leanSpecOf`), kept as one record per resource until read (resource-routes.ts). Undefined
 * when `buildRouteSpec` must (it also reports what is wrong).
 *
 * Why a second way to build a resource's specs: with every spec built by `buildRouteSpec`,
 * declaring and compiling the benchmark's 10,000 Rails-shaped routes missed its 40 ms target
 * by a quarter; with this one it meets it (docs/benchmarks.md).
 */
export function leanHandler(scope: Scope): string | undefined {
  if (!isEmpty(scope.get('options')) || !isEmpty(scope.get('defaults')) || !isEmpty(scope.get('constraints')))
    return undefined;
  if (scope.get('format') !== undefined || scope.get('action') !== undefined) return undefined;
  if (scope.get('middleware') !== undefined) return undefined;
  let handler = scope.get('handler');
  if (!handler) return undefined;
  const module = scope.get('module');
  if (module) handler = handler.startsWith('/') ? handler.slice(1) : `${module}/${handler}`;
  return isValidHandler(handler) ? handler : undefined;
}

export function buildRouteSpec(scope: Scope, call: RouteCall): RouteSpec {
  const options = merged(scope.get('options'), call.options);
  const defaults: Record<string, unknown> = scope.get('defaults') ?? NO_DEFAULTS;
  const pathParams = PathPattern.names(call.path);
  const where = () => routeLabel(call.name, call.verbs, call.path);
  refuseUnbalancedPath(call.path, where);
  refuseMisspeltOptions(options, where);

  // Handler and action: `to` first, then the call's and the scope's, then the module prefix.
  const [toHandler, toAction] = call.to?.includes('#') ? call.to.split('#') : [];
  let handler = toHandler || call.handler;
  const action = toAction || call.defaultAction;
  const module = scope.get('module');
  if (module) {
    // Rails: a `:handler` segment could name any handler, so a module scope refuses it.
    if (pathParams.includes('handler'))
      throw new ArgumentError(':handler segment is not allowed within a namespace block');
    // A module scope with no handler anywhere names its own module (`namespace('account')`
    // → `account#...`), as Rails' `[module, controller].compact.join('/')` does.
    if (!handler) handler = module;
    else handler = handler.startsWith('/') ? handler.slice(1) : `${module}/${handler}`;
  }

  if (!handler && !pathParams.includes('handler')) {
    throw new ArgumentError('Missing :handler key on routes definition, please check your routes.');
  }
  if (handler && !isValidHandler(handler)) {
    throw new ArgumentError(
      `'${handler}' is not a supported handler name. This can lead to potential routing problems. ` +
        'See https://guides.rubyonrails.org/routing.html#specifying-a-controller-to-use',
    );
  }
  if (!action && !pathParams.includes('action')) {
    throw new ArgumentError('Missing :action key on routes definition, please check your routes.');
  }

  // Extra options: a RegExp constrains the segment of that name, anything else is a default.
  const constraints: Record<string, unknown> = { ...(scope.get('constraints') ?? {}) };
  const optionDefaults: Record<string, unknown> = {};
  for (const key in options) {
    const value = options[key];
    if (value instanceof RegExp) constraints[key] = value;
    else optionDefaults[key] = value;
  }
  refuseRequestConstraints(call.constraints, where);
  if (isPlainObject(call.constraints) && !isEmpty(call.constraints)) Object.assign(constraints, call.constraints);

  const requirements: Record<string, RegExp> = {};
  for (const key in constraints) {
    const value = constraints[key];
    const isPathParam = pathParams.includes(key);
    refuseConstraint(key, value, isPathParam, where);
    if (!isPathParam) continue; // a constraint of the scope on a segment this route does not have
    const re = toRegExp(value);
    if (ANCHORS.test(re.source)) {
      throw new ArgumentError(`Regexp anchor characters are not allowed in routing requirements: ${String(re)}`);
    }
    requirements[key] = re;
  }

  const formatRequirements: Record<string, RegExp> = {};
  const formatDefaults: Record<string, unknown> = {};
  if (call.formatted === true) formatRequirements.format = /.+/;
  else if (call.formatted instanceof RegExp) formatRequirements.format = call.formatted;
  else if (typeof call.formatted === 'string') {
    formatRequirements.format = new RegExp(call.formatted);
    formatDefaults.format = call.formatted;
  }

  let allDefaults: Record<string, unknown> = NO_DEFAULTS;
  if (!isEmpty(formatDefaults) || !isEmpty(defaults) || !isEmpty(optionDefaults)) {
    allDefaults = { ...formatDefaults, ...defaults, ...optionDefaults };
    delete allDefaults.handler;
    delete allDefaults.action;
    for (const key of Object.keys(allDefaults)) if (allDefaults[key] === undefined) delete allDefaults[key];
  }

  return {
    name: call.name,
    verbs: internVerbs(call.verbs),
    path: call.path,
    handler: handler ?? '',
    action: action ?? (pathParams.includes('action') ? 'index' : ''),
    requirements: orShared(
      isEmpty(formatRequirements) ? requirements : { ...formatRequirements, ...requirements },
      NO_REQUIREMENTS as Record<string, RegExp>,
    ),
    defaults: orShared(allDefaults, NO_DEFAULTS as Record<string, unknown>),
    anchored: call.anchor,
    formatted: call.formatted !== false,
    middleware: scopeMiddleware(scope, call.middleware),
  };
}

/** The enclosing scopes' middleware, then the route's own (one shared empty list when there is none). */
function scopeMiddleware(scope: Scope, own: Middleware[] | undefined): Middleware[] {
  const enclosing = scope.get('middleware');
  if (own === undefined || own.length === 0) return enclosing ?? NO_MIDDLEWARE;
  return enclosing === undefined ? own : [...enclosing, ...own];
}

/**
 * Declaration mistakes Rails accepts silently and Divan refuses at `draw()`, each naming where
 * it was made: an option name one typo away from a known one (Rails would turn `onyl` into a
 * default), an action `only`/`except` cannot leave, a verb no request can carry, a string where
 * a segment's RegExp is expected, an unbalanced `(`, and constraints on the request (host,
 * subdomain, a lambda, an object with `matches`) that no adapter passes to the matcher.
 */
import { ArgumentError } from '../errors.js';
import { OPTION_NAMES, type Middleware } from './options.js';

/** Rails' `ActionDispatch::Request::HTTP_METHODS` (RFC 2616, 2518, 3253, 3648, 3744, 5323, 4791, 5789) and LINK/UNLINK. */
const HTTP_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'PUT',
  'POST',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
  'VERSION-CONTROL',
  'REPORT',
  'CHECKOUT',
  'CHECKIN',
  'UNCHECKOUT',
  'MKWORKSPACE',
  'UPDATE',
  'LABEL',
  'MERGE',
  'BASELINE-CONTROL',
  'MKACTIVITY',
  'ORDERPATCH',
  'ACL',
  'SEARCH',
  'MKCALENDAR',
  'PATCH',
  'LINK',
  'UNLINK',
]);

/**
 * Constraint keys Rails reads from the request, not the path: the matcher sees only the path
 * and the verb, so such a constraint would be listed and never applied.
 */
const REQUEST_CONDITIONS: ReadonlySet<string> = new Set([
  'protocol',
  'subdomain',
  'domain',
  'host',
  'port',
  'ip',
  'remote_ip',
  'user_agent',
  'request_method',
  'media_type',
  'content_type',
  'xhr',
]);

/** `route "post" (GET /posts/:id(.:format))`, or the path alone for an unnamed route. */
export function routeLabel(name: string | null, verbs: readonly string[], path: string): string {
  return `${name ? `route "${name}"` : 'route'} (${verbs.join('|') || 'ANY'} ${path})`;
}

export function refuseUnknownVerbs(verbs: readonly string[], where: () => string): void {
  for (const verb of verbs) {
    if (!HTTP_METHODS.has(verb)) {
      throw new ArgumentError(`Unknown verb '${verb.toLowerCase()}' in via of ${where()}: not an HTTP method`);
    }
  }
}

/** `only`/`except` name actions the resource has; anything else would silently keep or drop nothing. */
export function refuseUnknownActions(
  option: 'only' | 'except',
  actions: readonly string[],
  known: readonly string[],
  where: string,
): void {
  for (const action of actions) {
    if (!known.includes(action)) {
      const near = known.find((k) => oneTypoApart(action, k));
      throw new ArgumentError(
        `Unknown action '${action}' in ${option} of ${where}${near ? ` (did you mean '${near}'?)` : ''}; ` +
          `its actions are ${known.join(', ')}`,
      );
    }
  }
}

/**
 * Extra keys stay Rails' defaults and segment constraints (`page: 1`, `id: /\d+/`), unless the key
 * is a known option misspelt: one typo away, Rails' snake_case (`path_names`) or another case.
 */
export function refuseMisspeltOptions(options: Record<string, unknown>, where: () => string): void {
  for (const key in options) {
    if (OPTION_NAMES.has(key)) continue;
    const meant = misspeltOption(key);
    if (meant !== undefined) {
      throw new ArgumentError(
        `Unknown option '${key}' in ${where()}: did you mean '${meant}'? ` +
          '(a default of that name goes in `defaults: { ... }`)',
      );
    }
  }
}

function misspeltOption(key: string): string | undefined {
  const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()).toLowerCase();
  for (const known of OPTION_NAMES) {
    const lower = known.toLowerCase();
    if (camel === lower) return known;
    // Four letters and fewer: only a swap of two letters (`onyl`), as `page` is not a typo of `path`.
    if (known.length >= 5 ? oneTypoApart(key.toLowerCase(), lower) : isTransposition(key.toLowerCase(), lower))
      return known;
  }
  return undefined;
}

function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** One letter changed, added, removed, or two neighbours swapped (and not equal). */
function oneTypoApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    if (isTransposition(a, b)) return true;
    let diff = 0;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff++;
    return diff === 1;
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1);
}

const REGEXP_SYNTAX = /[\\^$.*+?()[\]{}|]/;

/** A constraint the matcher can apply: on a path segment, a RegExp or a literal word. */
export function refuseConstraint(key: string, value: unknown, isPathParam: boolean, where: () => string): void {
  if (typeof value === 'function' || (isObject(value) && typeof value.matches === 'function')) {
    throw requestConstraint(
      `a ${typeof value === 'function' ? 'lambda' : 'matches(request) object'} for '${key}'`,
      where,
    );
  }
  if (!isPathParam) {
    if (REQUEST_CONDITIONS.has(key)) throw requestConstraint(`'${key}'`, where);
    return;
  }
  // A plain word (`format: 'json'`) matches itself, as Rails' `Regexp.union` makes it; a string
  // holding RegExp syntax (`'\\d+'`) was meant as a pattern and would match only its own text.
  if (typeof value === 'string' && REGEXP_SYNTAX.test(value)) {
    throw new ArgumentError(
      `The constraint on :${key} in ${where()} is the string '${value}', which would match only that text: ` +
        `write the RegExp /${value}/`,
    );
  }
}

/** `constraints` given as a lambda or an object with `matches(request)` (Rails' request-based form). */
export function refuseRequestConstraints(constraints: unknown, where: () => string): void {
  if (typeof constraints === 'function' || (isObject(constraints) && typeof constraints.matches === 'function')) {
    throw requestConstraint(typeof constraints === 'function' ? 'a lambda' : 'a matches(request) object', where);
  }
}

function requestConstraint(what: string, where: () => string): ArgumentError {
  return new ArgumentError(
    `Request-based constraints are not supported (${what} in ${where()}): the adapters match on the path ` +
      'and the verb only; check the request in the handler or in a middleware',
  );
}

/** The `middleware` option as a list: a function, or an array of functions (nothing else). */
export function middlewareList(value: unknown): Middleware[] {
  const list = Array.isArray(value) ? value.flat() : value === undefined || value === null ? [] : [value];
  for (const fn of list) {
    if (typeof fn !== 'function')
      throw new ArgumentError(`middleware must be a function or an array of functions, not ${String(fn)}`);
  }
  return list as Middleware[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Parentheses (optional groups) open and close in pairs; `\(` is a literal one. */
export function refuseUnbalancedPath(path: string, where: () => string): void {
  let depth = 0;
  for (let i = 0; i < path.length; i++) {
    const ch = path.charCodeAt(i);
    if (ch === 92 /* \ */) i++;
    else if (ch === 40 /* ( */) depth++;
    else if (ch === 41 /* ) */ && --depth < 0) break;
  }
  if (depth !== 0) {
    throw new ArgumentError(`Unbalanced '${depth > 0 ? '(' : ')'}' in the path of ${where()}`);
  }
}

/**
 * The route table `rails routes` prints (ActionDispatch::Routing::ConsoleFormatter::Sheet), with
 * `Handler#Action` for Rails' `Controller#Action` and JavaScript-style requirement listings:
 *
 *    Prefix Verb   URI Pattern               Handler#Action
 *     posts GET    /posts(.:format)          posts#index
 *           POST   /posts(.:format)          posts#create
 *      file GET    /files/:id(.:format)      files#show {id: /[^\/]+/}
 *
 * Prefix is right-aligned, Verb and URI Pattern left-aligned; every column is as wide as its
 * widest entry (at least its header) and columns are separated by one space. The last column is
 * `handler#action`, then, when the route has declared defaults or constraints, a space and
 * `{key: value, ...}`. The result has no trailing newline (Rails' `format` neither).
 */
import type { RouteInfo, RouteSetLike } from '../types.js';

export interface FormatRoutesOptions {
  /**
   * Like `rails routes -g`: keep the routes whose name, verb, path, handler, action or
   * `handler#action` matches. The text is a regular expression (matched case-insensitively);
   * when it is not a valid one it is matched as plain text.
   */
  grep?: string;
  /**
   * Like `rails routes -c`: keep the routes whose handler matches, a regular expression (case
   * sensitive, as Rails') written as a handler (`admin/users`) or as Rails names a controller
   * (`Admin::UsersController`).
   */
  handler?: string;
  /** Like `rails routes --expanded`: one block per route instead of the table. */
  expanded?: boolean;
}

const HEADERS = ['Prefix', 'Verb', 'URI Pattern', 'Handler#Action'] as const;

const GUIDE = 'For more information about routes, see the Rails guide: https://guides.rubyonrails.org/routing.html.';

/** Builds the predicate of `--grep`: a case-insensitive RegExp, or plain text when not a valid RegExp. */
export function routeGrep(grep: string): (route: RouteInfo) => boolean {
  let test: (s: string) => boolean;
  try {
    const re = new RegExp(grep, 'i');
    test = (s) => re.test(s);
  } catch {
    const needle = grep.toLowerCase();
    test = (s) => s.toLowerCase().includes(needle);
  }
  return (r) =>
    test(r.name ?? '') ||
    test(r.verb) ||
    test(r.path) ||
    test(r.handler) ||
    test(r.action) ||
    test(`${r.handler}#${r.action}`);
}

/** Builds the predicate of `-c`: the handler matched by the text, underscored as Rails underscores a controller name. */
export function routeHandlerFilter(handler: string): (route: RouteInfo) => boolean {
  const name = handler
    .replace(/::/g, '/')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/_?controller$/, '');
  let test: (s: string) => boolean;
  try {
    const re = new RegExp(name);
    test = (s) => re.test(s);
  } catch {
    test = (s) => s.includes(name);
  }
  return (r) => test(r.handler);
}

/** The routes `--grep` and `-c` keep (both when both are given). */
export function filterRoutes(routes: readonly RouteInfo[], options: FormatRoutesOptions): RouteInfo[] {
  let shown = [...routes];
  if (options.grep !== undefined && options.grep !== '') shown = shown.filter(routeGrep(options.grep));
  if (options.handler !== undefined && options.handler !== '')
    shown = shown.filter(routeHandlerFilter(options.handler));
  return shown;
}

/** `{format: "jpg", id: /[^\/]+/}`: declared defaults, then constraints (Rails' `requirements`). */
export function formatRequirements(route: Pick<RouteInfo, 'constraints' | 'defaults'>): string {
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(route.defaults ?? {})) entries.set(key, formatValue(value));
  for (const [key, source] of Object.entries(route.constraints ?? {})) entries.set(key, formatRegExp(source));
  if (entries.size === 0) return '';
  const parts = [...entries].map(([key, value]) => `${formatKey(key)}: ${value}`);
  return `{${parts.join(', ')}}`;
}

/** The `rails routes` table of a route set; see the module comment. */
export function formatRoutes(routes: RouteSetLike, options: FormatRoutesOptions = {}): string {
  const all = routes.list();
  const shown = filterRoutes(all, options);

  if (shown.length === 0) {
    const lines =
      all.length === 0
        ? ["You don't have any routes defined!", '', 'Please add some routes in your draw((r) => { ... }) block.', '']
        : options.handler !== undefined && options.handler !== ''
          ? ['No routes were found for this handler.']
          : ['No routes were found for this grep pattern.'];
    return [...lines, GUIDE].join('\n');
  }
  if (options.expanded) return expanded(shown);

  type Row = readonly [string, string, string, string];
  const rows = shown.map((r): Row => {
    const requirements = formatRequirements(r);
    const endpoint = `${r.handler}#${r.action}`;
    return [r.name ?? '', r.verb, r.path, requirements === '' ? endpoint : `${endpoint} ${requirements}`];
  });
  const width = (i: 0 | 1 | 2) => Math.max(HEADERS[i].length, ...rows.map((row) => row[i].length));
  const [nameWidth, verbWidth, pathWidth] = [width(0), width(1), width(2)];
  const line = (cells: Row) =>
    `${cells[0].padStart(nameWidth)} ${cells[1].padEnd(verbWidth)} ${cells[2].padEnd(pathWidth)} ${cells[3]}`;
  return [line(HEADERS), ...rows.map(line)].join('\n');
}

/** Rails' `ConsoleFormatter::Expanded` (at its 80 columns when not printing to a terminal). */
function expanded(routes: readonly RouteInfo[]): string {
  return routes
    .map((r, i) => {
      const requirements = formatRequirements(r);
      const endpoint = `${r.handler}#${r.action}`;
      return [
        `--[ Route ${i + 1} ]`.padEnd(EXPANDED_WIDTH, '-'),
        `Prefix         | ${r.name ?? ''}`,
        `Verb           | ${r.verb}`,
        `URI            | ${r.path}`,
        `Handler#Action | ${requirements === '' ? endpoint : `${endpoint} ${requirements}`}`,
      ].join('\n');
    })
    .join('\n');
}

const EXPANDED_WIDTH = 80;

function formatKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** `/source/` the way JavaScript prints a RegExp (slashes escaped); flags are not part of a constraint. */
function formatRegExp(source: string): string {
  try {
    return `/${new RegExp(source).source}/`;
  } catch {
    return `/${source}/`;
  }
}

function formatValue(value: unknown): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

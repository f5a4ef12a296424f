/**
 * URL generation for a named route (Rails' `Journey::Formatter` for named routes):
 * positional values fill the path's keys in order (skipping keys given by name), optional
 * groups appear only when every key in them is given, required keys must be present and
 * satisfy their constraint, and what the path does not use becomes the query string.
 */
import { renderPath, type PathNode, type PathSpelling } from '../pattern/ast.js';
import type { Route } from '../route.js';
import type { UrlOptions } from '../types.js';
import { escapeFragment, escapePath, escapeSegment, toParam, toQuery } from './escape.js';

/** Options that shape the URL itself and never reach the query string. */
const RESERVED = new Set([
  'host',
  'protocol',
  'port',
  'anchor',
  'params',
  'only_path',
  'onlyPath',
  'trailing_slash',
  'trailingSlash',
  'script_name',
  'scriptName',
  'subdomain',
  'domain',
  'tld_length',
  'user',
  'password',
]);

function isOptionsObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { toParam?: unknown }).toParam !== 'function'
  );
}

/**
 * Whether the last helper argument is a params hash (segment values by name, the rest to the
 * query string) rather than a record standing for the next segment, as Rails tells a Hash from a
 * model: a plain object (an object literal, parsed JSON) is a params hash; a record is an object
 * with `toParam()` or a class instance (its `toParam()`, else its `id`, fills the segment). So
 * `profilePath({ id: 3 })` on `/profiles/:username` is a missing key, as `profile_path(id: 3)` is.
 */
function isParamsHash(last: unknown): last is Record<string, unknown> {
  if (!isOptionsObject(last)) return false;
  const proto = Object.getPrototypeOf(last);
  return proto === Object.prototype || proto === null;
}

/** Splits helper arguments into a params object: positional values first, then the trailing params hash. */
export function paramsFromArgs(route: Route, args: unknown[]): Record<string, unknown> {
  let positional = args;
  let named: Record<string, unknown> = {};
  const last = args[args.length - 1];
  if (args.length > 0 && isParamsHash(last)) {
    positional = args.slice(0, -1);
    named = last;
  }
  const params: Record<string, unknown> = {};
  if (positional.length > 0) {
    const keys = route.segmentKeys.filter((k) => !Object.hasOwn(named, k));
    for (let i = 0; i < positional.length && i < keys.length; i++) params[keys[i]!] = positional[i];
  }
  return Object.assign(params, named);
}

export class MissingKeysError extends Error {
  override name = 'MissingKeysError';
}

/** Builds the path (with query string and fragment) of a route from a params object. */
export function generatePath(route: Route, params: Record<string, unknown>): string {
  const values = new Map<string, string>();
  const defaults = route.spec.defaults;
  for (const key of route.segmentKeys) {
    const value = toParam(params[key]);
    if (value === null) continue;
    // An optional segment given its default value is left out, as Rails does (`/photos`, not `/photos/1`).
    if (!route.requiredKeys.includes(key) && key in defaults && toParam(defaults[key]) === value) continue;
    values.set(key, value);
  }

  const missing: string[] = [];
  const unmatched: string[] = [];
  for (const key of route.requiredKeys) {
    const value = values.get(key);
    if (value === undefined || value === '') missing.push(key);
    else {
      const requirement = route.spec.requirements[key];
      if (requirement && !new RegExp(`^(?:${requirement.source})$`, requirement.flags.replace(/[gy]/g, '')).test(value))
        unmatched.push(key);
    }
  }
  if (missing.length > 0 || unmatched.length > 0) {
    const why = [
      missing.length > 0 ? `missing required keys: [${missing.join(', ')}]` : '',
      unmatched.length > 0 ? `possible unmatched constraints: [${unmatched.join(', ')}]` : '',
    ].filter(Boolean);
    throw new MissingKeysError(`No route matches ${routeLabel(route)}, ${why.join(', ')}`);
  }

  let path = render(route.ast, values) || '/';
  // Rails' script_name: where the routes are mounted (`/api`), before the route's own path.
  const scriptName = toParam(params.scriptName ?? params.script_name);
  if (scriptName !== null && scriptName !== '') path = scriptName.replace(/\/+$/, '') + path;

  const query: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (values.has(key) || RESERVED.has(key) || Object.hasOwn(defaults, key)) continue;
    if (route.segmentKeys.includes(key)) continue;
    query[key] = value;
  }
  if (isOptionsObject(params.params)) Object.assign(query, params.params);
  if (params.trailing_slash === true || params.trailingSlash === true) {
    if (!path.endsWith('/')) path += '/';
  }
  const qs = toQuery(query);
  if (qs !== '') path += `?${qs}`;
  const anchor = toParam(params.anchor);
  if (anchor !== null) path += `#${escapeFragment(anchor)}`;
  return path;
}

/** `https://example.com:8080` + path; the host is required (Rails' "Missing host to link to!"). */
export function urlFor(path: string, options: UrlOptions & Record<string, unknown>): string {
  let host = options.host === undefined || options.host === null ? '' : String(options.host);
  let protocol = options.protocol === undefined || options.protocol === null ? '' : String(options.protocol);
  const hostProtocol = /^([a-z][a-z0-9+.-]*):\/\//i.exec(host);
  if (hostProtocol) {
    if (protocol === '') protocol = hostProtocol[1]!;
    host = host.slice(hostProtocol[0].length);
  }
  if (host === '') {
    throw new Error(
      'Missing host to link to! Give the `host` option, set `defaultUrlOptions.host` on the route set, or generate a path (`path()`, `...Path` helpers) instead',
    );
  }
  protocol = protocol === '' ? 'http' : protocol.replace(/:?(\/\/)?$/, '');
  const given = options.port === undefined || options.port === null ? '' : String(options.port);
  // The protocol's own port is left out, as Rails does.
  const port =
    given === '' || (protocol === 'http' && given === '80') || (protocol === 'https' && given === '443')
      ? ''
      : `:${given}`;
  return `${protocol}://${host}${port}${path}`;
}

function routeLabel(route: Route): string {
  const name = route.name ? `"${route.name}" ` : '';
  return `${name}(${route.spec.verbs.join('|') || 'ANY'} ${route.spec.path})`;
}

/** Renders the path; an optional group renders only when all of its keys have values. */
function render(nodes: PathNode[], values: Map<string, string>): string {
  const spelling: PathSpelling = {
    dot: '.',
    literal: (text) => text,
    param: (node) => (node.type === 'param' ? escapeSegment : escapePath)(values.get(node.name)!),
    group: (children) =>
      groupKeys(children).every((k) => values.has(k) && values.get(k) !== '') ? renderPath(children, spelling) : '',
  };
  return renderPath(nodes, spelling);
}

/** The keys of a group itself; nested groups decide for themselves. */
function groupKeys(nodes: PathNode[]): string[] {
  const keys: string[] = [];
  for (const n of nodes) if (n.type === 'param' || n.type === 'glob') keys.push(n.name);
  return keys;
}

/**
 * A precompiled path for the common helper call: exactly the required keys, given
 * positionally, and no optional group. Returns null when the call needs the general path.
 */
export function compileFastPath(route: Route): ((args: unknown[]) => string | null) | null {
  // Positional values fill the path's keys in order: only when the required keys come first
  // do they land on exactly those keys.
  if (route.requiredKeys.some((key, i) => route.segmentKeys[i] !== key)) return null;
  const chunks: Array<string | { index: number; glob: boolean }> = [];
  let text = '';
  let index = 0;
  for (const node of route.ast) {
    if (node.type === 'slash') text += '/';
    else if (node.type === 'dot') text += '.';
    else if (node.type === 'literal') text += node.text;
    else if (node.type === 'group') continue;
    else {
      if (route.spec.requirements[node.name]) return null;
      if (route.requiredKeys.indexOf(node.name) !== index) return null; // a repeated key
      if (text !== '') chunks.push(text);
      text = '';
      chunks.push({ index: index++, glob: node.type === 'glob' });
    }
  }
  if (text !== '') chunks.push(text);
  const arity = index;
  if (arity === 0) {
    const fixed = (chunks[0] as string | undefined) ?? '/';
    return (args) => (args.length === 0 ? fixed : null);
  }
  return (args) => {
    if (args.length !== arity) return null;
    let out = '';
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      if (typeof chunk === 'string') {
        out += chunk;
        continue;
      }
      const value = args[chunk.index];
      let s: string;
      if (typeof value === 'number') s = `${value}`;
      else if (typeof value === 'string') s = chunk.glob ? escapePath(value) : escapeSegment(value);
      else return null;
      if (s === '') return null;
      out += s;
    }
    return out;
  };
}

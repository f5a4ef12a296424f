/**
 * `_rewrite` (chttpd_rewrite): a design document's `rewrites`, as an array of rules or as a
 * JavaScript function, turns the path after `_rewrite/` into a new request under the design
 * document's path (`/db/_design/ddoc/` + the target, `..` segments resolved), which the server
 * then answers as any other request.
 */
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { RenderRunnerOptions } from '../sandbox/index.js';
import type { DesignDoc } from './design-doc.js';
import { withRunner } from './runner-pool.js';

/** The new request a rewrite makes (the path still relative to the design document, its query apart). */
export interface Rewritten {
  path: string;
  query: [string, string][];
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A rewrite function's direct answer (`{code, headers, body}`). */
export interface RewriteAnswer {
  code: number;
  headers: Record<string, string>;
  body: string | undefined;
}

const MATCH_ALL = { bind: '*' } as const;
type Token = string | { bind: string };

/** Query members whose values travel as JSON (chttpd_rewrite's maybe_json and decode_query_value). */
const JSON_MEMBERS = new Set(['key', 'startkey', 'start_key', 'endkey', 'end_key', 'keys']);

interface Rule {
  from: Token[];
  method: string;
  to: Token[];
  query: [string, unknown][];
  formats: Record<string, unknown>;
}

/** The first rule matching the method and the path's segments, or 404 `not_found` `missing`. */
export function rewriteByRules(
  rules: readonly unknown[],
  method: string,
  parts: readonly string[],
  requestQuery: URLSearchParams,
): Rewritten {
  const queryList: [string, unknown][] = [...requestQuery].map(([key, value]) => {
    if (!JSON_MEMBERS.has(key)) return [key, value];
    try {
      return [key, JSON.parse(value)];
    } catch {
      throw new CouchError('bad_request', `The query parameter ${key} must be JSON.`);
    }
  });
  // Every rule is read before any is tried: one bad rule fails them all, as in CouchDB.
  const parsed = rules
    .filter((raw) => raw !== null && typeof raw === 'object' && !Array.isArray(raw))
    .map((raw) => ruleOf(raw as Record<string, unknown>));
  for (const rule of parsed) {
    if (rule.method !== '*' && rule.method !== method) continue;
    const bound = bindPath(rule.from, parts);
    if (bound === undefined) continue;
    const bindings = [...bound.bindings, ...queryList];
    const queryArgs = rule.query.map(([key, value]): [string, unknown] => [
      key,
      replaceVar(value, bindings, rule.formats),
    ]);
    const ruleKeys = new Set(queryArgs.map(([key]) => key));
    const final = [...bindings.filter(([key]) => !ruleKeys.has(key)), ...queryArgs];
    const path = newPath(rule.to, final, bound.remaining)
      .map((part) => encodeURIComponent(part))
      .join('/');
    const query = final
      .filter(([key]) => key !== '*')
      .map(([key, value]): [string, string] => [
        key,
        JSON_MEMBERS.has(key) || typeof value !== 'string' ? JSON.stringify(value) : value,
      ]);
    return { path, query };
  }
  throw new CouchError('not_found', 'missing');
}

function ruleOf(rule: Record<string, unknown>): Rule {
  if (rule.to === undefined) throw new CouchError('error', 'invalid_rewrite_target');
  const query = rule.query;
  const formats = rule.formats;
  return {
    method: typeof rule.method === 'string' ? rule.method : '*',
    from: rule.from === undefined ? [MATCH_ALL] : parsePath(String(rule.from)),
    to: parsePath(String(rule.to)),
    query: query !== null && typeof query === 'object' && !Array.isArray(query) ? Object.entries(query) : [],
    formats:
      formats !== null && typeof formats === 'object' && !Array.isArray(formats)
        ? (formats as Record<string, unknown>)
        : {},
  };
}

/** `a/:b/*` → tokens; a third `..` would reach above the database (`[httpd] secure_rewrites`). */
function parsePath(path: string): Token[] {
  const tokens: Token[] = [];
  let dotDots = 0;
  for (const part of path.split('/')) {
    if (part === '') continue;
    if (part === '*') tokens.push(MATCH_ALL);
    else if (part === '..') {
      if (dotDots === 2) throw new CouchError('insecure_rewrite_rule', 'too many ../.. segments');
      dotDots += 1;
      tokens.push(part);
    } else tokens.push(part.startsWith(':') ? { bind: part.slice(1) } : part);
  }
  return tokens;
}

function bindPath(
  from: readonly Token[],
  parts: readonly string[],
): { remaining: string[]; bindings: [string, unknown][] } | undefined {
  const bindings: [string, unknown][] = [];
  let i = 0;
  for (let t = 0; t < from.length; t++) {
    const token = from[t]!;
    if (typeof token !== 'string' && token.bind === '*' && t === from.length - 1) {
      return { remaining: parts.slice(i), bindings };
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (typeof token === 'string') {
      if (token !== part) return undefined;
    } else bindings.push([token.bind, part]);
    i += 1;
  }
  return i === parts.length ? { remaining: [], bindings } : undefined;
}

function lookup(name: string, bindings: readonly [string, unknown][], fallback: unknown): unknown {
  const found = bindings.find(([key]) => key === name);
  return found === undefined ? fallback : found[1];
}

/** A rule's query value: `:var` and `*` from the bindings, typed by the rule's `formats`. */
function replaceVar(value: unknown, bindings: readonly [string, unknown][], formats: Record<string, unknown>): unknown {
  const one = (v: unknown): unknown => {
    if (v === '*') return format('*', lookup('*', bindings, v), formats);
    if (typeof v === 'string' && v.startsWith(':')) return format(v.slice(1), lookup(v.slice(1), bindings, v), formats);
    return v;
  };
  if (typeof value === 'string') return one(value);
  if (Array.isArray(value)) return value.map(one);
  return value;
}

function format(name: string, value: unknown, formats: Record<string, unknown>): unknown {
  const wanted = formats[name];
  if (typeof value !== 'string') return value;
  if (wanted === 'int' && /^[+-]?\d+$/.test(value)) return Number.parseInt(value, 10);
  if (wanted === 'bool' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return value;
}

function newPath(to: readonly Token[], bindings: readonly [string, unknown][], remaining: readonly string[]): string[] {
  const parts: string[] = [];
  for (const token of to) {
    if (typeof token === 'string') parts.push(token);
    else if (token.bind === '*') return [...parts, ...remaining];
    else {
      const value = lookup(token.bind, bindings, undefined);
      parts.push(value === undefined ? 'undefined' : typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  return parts;
}

/** Runs the design document's `rewrites` function on the request object: its result, undefined for none. */
export function rewriteWith(
  db: Database,
  ddoc: DesignDoc,
  req: Record<string, unknown>,
  options: RenderRunnerOptions,
): Promise<unknown> {
  return withRunner(db, ddoc, options, (runner) => runner.rewrite(req));
}

/**
 * A rewrite function's result: a path (string), `{path, query, method, headers, body}` for a new
 * request, or `{code, headers, body}` answered at once.
 */
export function rewriteByResult(result: unknown, requestQuery: URLSearchParams): Rewritten | RewriteAnswer {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new CouchError('rewrite_error', 'bad rewrite');
  }
  const r = result as Record<string, unknown>;
  const stringMap = (value: unknown, what: string): Record<string, string> | undefined => {
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new CouchError('rewrite_error', `bad rewrite: ${what} must be an object`);
    }
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
  };
  const headers = stringMap(r.headers, 'headers');
  if (r.body !== undefined && typeof r.body !== 'string')
    throw new CouchError('rewrite_error', 'bad rewrite: body must be a string');
  if (r.code !== undefined) {
    if (!Number.isInteger(r.code)) throw new CouchError('rewrite_error', 'bad rewrite: code must be an integer');
    return { code: r.code as number, headers: headers ?? {}, body: r.body as string | undefined };
  }
  if (typeof r.path !== 'string') throw new CouchError('rewrite_error', 'Rewrite result must produce a new path.');
  if (r.method !== undefined && typeof r.method !== 'string') {
    throw new CouchError('rewrite_error', 'bad rewrite: method must be a string');
  }
  const query = stringMap(r.query, 'query');
  const rewritten: Rewritten = {
    path: r.path,
    query: query === undefined ? [...requestQuery] : Object.entries(query),
  };
  if (typeof r.method === 'string') rewritten.method = r.method;
  if (headers !== undefined) rewritten.headers = headers;
  if (typeof r.body === 'string') rewritten.body = r.body;
  return rewritten;
}

/** The design document's path + `/` + the target, `.` and `..` resolved (chttpd_rewrite:normalize_path). */
export function resolveRewritePath(prefix: string, path: string): string {
  const segments: string[] = [];
  for (const segment of `${prefix}/${path}`.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && segments.length > 0 && segments[segments.length - 1] !== '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

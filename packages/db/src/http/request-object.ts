/**
 * CouchDB's request object (`req`, chttpd_external:json_req_obj) as the JavaScript functions
 * receive it: `_changes` filters, shows, lists, updates and rewrite functions, built in one place.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { RequestContext } from './context.js';
import { dbInfo } from './handlers/databases.js';

/** Query parameters the functions receive JSON-decoded (couch_httpd_external's json_query_keys). */
const JSON_QUERY_KEYS = new Set(['key', 'startkey', 'endkey', 'descending']);

/** The members a rewrite function's request object leaves out (couch_query_servers:rewrite). */
const NOT_FOR_REWRITES = new Set(['info', 'form', 'uuid', 'id']);

export interface RequestObjectOptions {
  /** The document id the path names (`req.id`), null when none. */
  id: string | null;
  /** `req.body`: the body as the function receives it (`"undefined"` when there is none). */
  body: unknown;
  /** `req.path`, when it is not the request's own path split into segments. */
  path?: string[];
  /** The request body's text, for `req.form` (an HTML form post). */
  formText?: string;
  /** A rewrite function's request object: without `info`, `form`, `uuid` and `id`. */
  forRewrite?: boolean;
}

/** CouchDB's request object, its members in CouchDB's order. */
export async function requestObject(
  ctx: RequestContext,
  db: Database,
  options: RequestObjectOptions,
): Promise<Record<string, unknown>> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of ctx.query) {
    if (!JSON_QUERY_KEYS.has(key)) {
      query[key] = value;
      continue;
    }
    try {
      query[key] = JSON.parse(value);
    } catch {
      // CouchDB: 500.
      throw new CouchError('bad_request', `The query parameter ${key} must be JSON for a JavaScript function.`);
    }
  }
  // The query as sent, unless a rewrite made this request.
  const url = ctx.req.url ?? '';
  const sent = url.indexOf('?');
  const search = ctx.requestedPath === undefined ? (sent >= 0 ? url.slice(sent + 1) : '') : ctx.query.toString();
  const path = options.path ?? pathSegments(ctx.rawPath);
  const members: [string, () => unknown | Promise<unknown>][] = [
    ['info', () => dbInfo(db)],
    ['uuid', () => randomUUID().replaceAll('-', '')],
    ['id', () => options.id],
    ['method', () => ctx.method],
    ['requested_path', () => pathSegments(ctx.requestedPath ?? ctx.rawPath)],
    ['path', () => path],
    ['raw_path', () => (search === '' ? ctx.rawPath : `${ctx.rawPath}?${search}`)],
    ['query', () => query],
    ['headers', () => headersOf(ctx.req)],
    ['body', () => options.body],
    ['peer', () => ctx.req.socket.remoteAddress ?? ''],
    ['form', () => formOf(ctx, options.formText)],
    ['cookie', () => cookiesOf(ctx.req.headers.cookie)],
    ['userCtx', () => ({ db: db.name, name: ctx.user.name, roles: ctx.user.roles })],
    ['secObj', () => db.security()],
  ];
  const req: Record<string, unknown> = {};
  for (const [name, value] of members) {
    if (options.forRewrite && NOT_FOR_REWRITES.has(name)) continue;
    req[name] = await value();
  }
  return req;
}

/** A path's segments, percent-decoded (`/db/_design/x` → `["db", "_design", "x"]`). */
export function pathSegments(rawPath: string): string[] {
  return rawPath
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment));
}

/** Request headers with their names as the client sent them. */
function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
  return headers;
}

/** An HTML form post's fields (`application/x-www-form-urlencoded`, POST or PUT), else `{}`. */
function formOf(ctx: RequestContext, text: string | undefined): Record<string, string> {
  const type = (ctx.req.headers['content-type'] ?? '').toLowerCase();
  if (text === undefined || !type.startsWith('application/x-www-form-urlencoded')) return {};
  if (ctx.method !== 'POST' && ctx.method !== 'PUT') return {};
  return Object.fromEntries(new URLSearchParams(text));
}

function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}

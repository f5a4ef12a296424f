/**
 * CORS as CouchDB's chttpd_cors answers it (`[chttpd] enable_cors = true` and the `[cors]`
 * section): a preflight `OPTIONS` on any path is answered here, before authentication; other
 * requests from an allowed origin get the allow and expose headers, errors included, so a page
 * can read a 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CorsOptions } from '../server/cors-settings.js';

export type { CorsOptions } from '../server/cors-settings.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'TRACE', 'CONNECT', 'COPY', 'OPTIONS'];
const ALLOWED_HEADERS = [
  'accept',
  'accept-language',
  'authorization',
  'content-length',
  'content-range',
  'content-type',
  'destination',
  'expires',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'last-event-id',
  'last-modified',
  'origin',
  'pragma',
  'x-couch-full-commit',
  'x-couch-id',
  'x-couch-persist',
  'x-couchdb-www-authenticate',
  'x-http-method-override',
  'x-requested-with',
];
const EXPOSED = 'content-type, cache-control, accept-ranges, etag, server, x-couch-request-id, x-couch-update-newrev';

/**
 * Adds CORS headers for an allowed origin; answers a valid preflight itself (returns true then).
 * Requests without `Origin`, or from another origin, are left as they are.
 */
export function applyCors(options: CorsOptions, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || !allowed(options, origin)) return false;
  const allowOrigin = options.origins === '*' && !options.credentials ? '*' : origin;
  const wantedMethod = req.headers['access-control-request-method'];
  if (req.method === 'OPTIONS' && typeof wantedMethod === 'string') {
    const methods = options.methods ?? METHODS;
    if (!methods.includes(wantedMethod.toUpperCase())) return false;
    const allowedHeaders = new Set([...ALLOWED_HEADERS, ...(options.headers ?? []).map((h) => h.toLowerCase())]);
    const wanted = (req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== '');
    if (!wanted.every((h) => allowedHeaders.has(h))) return false;
    res.statusCode = 200;
    res.setHeader('Access-Control-Allow-Origin', allowOrigin);
    if (options.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
    res.setHeader('Access-Control-Allow-Headers', [...allowedHeaders].join(', '));
    res.setHeader('Access-Control-Max-Age', String(options.maxAge ?? 600));
    res.setHeader('Vary', 'Origin');
    res.setHeader('Content-Length', 0);
    res.end();
    return true;
  }
  res.setHeader('Access-Control-Allow-Origin', allowOrigin);
  if (options.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  if (allowOrigin !== '*') res.setHeader('Vary', 'Origin');
  return false;
}

function allowed(options: CorsOptions, origin: string): boolean {
  return options.origins === '*' || options.origins.includes(origin);
}

/** `--cors-origins` text: `*` or a comma-separated list. */
export function parseOrigins(text: string): readonly string[] | '*' {
  const list = text
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  return list.includes('*') ? '*' : list;
}

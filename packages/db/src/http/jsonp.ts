/**
 * JSONP (`?callback=name`), off unless `[chttpd] allow_jsonp` (or CouchDB 1.x's `[httpd]` one) is
 * "true": a JSON answer is then `/* CouchDB *\/name(json);`, `application/javascript`. A callback
 * name is letters, digits and `._[]` (CouchDB's validate_callback); any other is a 400.
 */
import { CouchError } from '../errors.js';
import type { RequestContext } from './context.js';

const CALLBACK = /^[A-Za-z0-9._[\]]*$/;

export const JSONP_TYPE = 'application/javascript';

/** The callback this request's JSON answers are wrapped in, or undefined. */
export function jsonpCallbackOf(ctx: RequestContext): string | undefined {
  const callback = ctx.query.get('callback');
  if (callback === null || callback === '') return undefined;
  const config = ctx.server.config;
  const allowed = (config.chttpd?.allow_jsonp ?? config.httpd?.allow_jsonp) === 'true';
  if (!allowed) return undefined;
  if (!CALLBACK.test(callback)) throw new CouchError('bad_request', 'invalid_callback');
  return callback;
}

/** What goes before the JSON. */
export function jsonpStart(callback: string): string {
  return `/* CouchDB */${callback}(`;
}

export const JSONP_END = ');';

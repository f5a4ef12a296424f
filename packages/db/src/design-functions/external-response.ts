/**
 * A response object as show, update and list functions return it, turned into an HTTP answer as
 * chttpd_external does: `code` (default 200), `headers`, and the body from `body` (text/html by
 * default), `json` (application/json) or `base64` (application/binary); a `Content-Type` among
 * the headers wins over the default. Anything else is CouchDB's `external_response_error`.
 */
import { CouchError } from '../errors.js';
import type { RenderResponse } from '../sandbox/index.js';

export interface ExternalAnswer {
  status: number;
  /** Header names as the function wrote them. */
  headers: [string, string][];
  body: Buffer;
}

/** Status and headers only (a list's `start()`), the content type defaulting to JSON. */
export function externalHead(resp: RenderResponse): { status: number; headers: [string, string][] } {
  const { status, headers, contentType } = parse(resp);
  return { status, headers: withContentType(headers, contentType) };
}

export function externalAnswer(resp: RenderResponse): ExternalAnswer {
  const { status, headers, contentType, body } = parse(resp);
  return { status, headers: withContentType(headers, contentType), body };
}

/** Sets (or replaces, whatever its case) each header of `extra` (couch_mrview_show:apply_headers). */
export function applyHeaders(resp: RenderResponse, extra: Record<string, string>): RenderResponse {
  const given = resp.headers;
  const headers: Record<string, unknown> =
    given !== null && typeof given === 'object' && !Array.isArray(given)
      ? { ...(given as Record<string, unknown>) }
      : {};
  for (const [name, value] of Object.entries(extra)) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  return { ...resp, headers };
}

function parse(resp: RenderResponse): {
  status: number;
  headers: [string, string][];
  contentType: string;
  body: Buffer;
} {
  let status = 200;
  let contentType = 'application/json';
  let body = Buffer.alloc(0);
  let headers: [string, string][] = [];
  for (const [key, value] of Object.entries(resp)) {
    if (key === 'code' && Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 999) {
      status = value as number;
    } else if (key === 'stop' && typeof value === 'boolean') {
      // A list's "stop": nothing to keep.
    } else if (key === 'json') {
      body = Buffer.from(JSON.stringify(value) ?? 'null');
      contentType = 'application/json';
    } else if (key === 'body' && typeof value === 'string') {
      body = Buffer.from(value);
      contentType = 'text/html; charset=utf-8';
    } else if (key === 'base64' && typeof value === 'string') {
      body = Buffer.from(value, 'base64');
      contentType = 'application/binary';
    } else if (key === 'headers' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      headers = Object.entries(value as Record<string, unknown>).map(([name, v]) => {
        if (typeof v !== 'string') throw invalid(key, value);
        return [name, v];
      });
    } else {
      throw invalid(key, value);
    }
  }
  return { status, headers, contentType, body };
}

function withContentType(headers: [string, string][], contentType: string): [string, string][] {
  return headers.some(([name]) => name.toLowerCase() === 'content-type')
    ? headers
    : [['Content-Type', contentType], ...headers];
}

function invalid(key: string, value: unknown): CouchError {
  return new CouchError(
    'external_response_error',
    `Invalid data from external server: ${JSON.stringify({ [key]: value })}`,
    500,
  );
}

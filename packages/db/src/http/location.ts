/** Absolute `Location` headers, with path segments escaped as CouchDB escapes them. */
import type { RequestContext } from './context.js';

/**
 * The request header a `[chttpd]` setting names (chttpd_util:get_chttpd_config: `[chttpd]`, then
 * CouchDB 1.x's `[httpd]`, then the default), so a proxy that sends its own header names works.
 */
function forwardedHeader(ctx: RequestContext, setting: string, fallback: string): string | undefined {
  const { config } = ctx.server;
  const named = config.chttpd?.[setting] ?? config.httpd?.[setting];
  // `fallback` is given in lower case, as node keeps header names (no lowering per request).
  const value = ctx.req.headers[named === undefined ? fallback : named.toLowerCase()];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The host the client asked for (CouchDB's host_for_request): `[chttpd] x_forwarded_host`'s header, else Host. */
export function requestHost(ctx: RequestContext): string | undefined {
  return forwardedHeader(ctx, 'x_forwarded_host', 'x-forwarded-host') ?? ctx.req.headers.host;
}

/**
 * `scheme://host:port` of the request as its client sees it, CouchDB's absolute_uri: behind a
 * proxy, `X-Forwarded-Host` names the host, `X-Forwarded-Ssl: on` or `X-Forwarded-Proto: https`
 * the scheme (header names from `[chttpd] x_forwarded_host`, `x_forwarded_ssl`, `x_forwarded_proto`).
 */
export function origin(ctx: RequestContext): string {
  const host = requestHost(ctx) ?? `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  const secure =
    forwardedHeader(ctx, 'x_forwarded_ssl', 'x-forwarded-ssl') === 'on' ||
    forwardedHeader(ctx, 'x_forwarded_proto', 'x-forwarded-proto') === 'https' ||
    (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
  return `${secure ? 'https' : 'http'}://${host}`;
}

/** Segments every escaping below leaves as they are (most document ids): answered without it. */
const PLAIN_SEGMENT = /^[\w.:-]*$/;

/** CouchDB's escaping of a path segment: like encodeURIComponent, plus `!'()*~` escaped and `:` left as is. */
export function encodeSegment(segment: string): string {
  if (PLAIN_SEGMENT.test(segment)) return segment;
  return encodeURIComponent(segment)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%3A', ':');
}

/** The absolute URL of `/seg1/seg2...`, each segment escaped. */
export function locationOf(ctx: RequestContext, ...segments: readonly string[]): string {
  // Concatenated, not mapped and joined: every write's answer makes one (two segments).
  let url = origin(ctx);
  for (const segment of segments) url += `/${encodeSegment(segment)}`;
  return segments.length === 0 ? `${url}/` : url;
}

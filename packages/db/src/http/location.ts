/** Absolute `Location` headers, with path segments escaped as CouchDB escapes them. */
import type { RequestContext } from './context.js';

/**
 * `scheme://host:port` of the request as its client sees it, CouchDB's absolute_uri: behind a
 * proxy, `X-Forwarded-Host` names the host, `X-Forwarded-Ssl: on` or `X-Forwarded-Proto: https`
 * the scheme.
 */
export function origin(ctx: RequestContext): string {
  const { headers } = ctx.req;
  const forwarded = headers['x-forwarded-host'];
  const host =
    (typeof forwarded === 'string' && forwarded !== '' ? forwarded : undefined) ??
    headers.host ??
    `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  const secure =
    headers['x-forwarded-ssl'] === 'on' ||
    headers['x-forwarded-proto'] === 'https' ||
    (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
  return `${secure ? 'https' : 'http'}://${host}`;
}

/** CouchDB's escaping of a path segment: like encodeURIComponent, plus `!'()*~` escaped and `:` left as is. */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%3A', ':');
}

/** The absolute URL of `/seg1/seg2...`, each segment escaped. */
export function locationOf(ctx: RequestContext, ...segments: readonly string[]): string {
  return `${origin(ctx)}/${segments.map(encodeSegment).join('/')}`;
}

/** Absolute `Location` headers, with path segments escaped as CouchDB escapes them. */
import type { RequestContext } from './context.js';

/** `http://host:port` of the request. */
export function origin(ctx: RequestContext): string {
  const host = ctx.req.headers.host ?? `${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  return `http://${host}`;
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

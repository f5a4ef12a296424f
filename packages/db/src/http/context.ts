import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserCtx } from '../auth/index.js';
import type { CouchError } from '../errors.js';
import type { CouchServer } from '../server/couch-server.js';

/** What every endpoint handler receives. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  server: CouchServer;
  /** Path params, percent-decoded (`db`, `docid`, `ddoc`, ...), and route defaults. */
  params: Record<string, unknown>;
  query: URLSearchParams;
  /** The request path as sent (still percent-encoded). */
  rawPath: string;
  method: string;
  user: UserCtx;
  /** The error answered, if any (for the request log line). */
  failure?: CouchError;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;
export type HandlerTable = Record<string, Record<string, Handler>>;

export function param(ctx: RequestContext, name: string): string {
  return String(ctx.params[name]);
}

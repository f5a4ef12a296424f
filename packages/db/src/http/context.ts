import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserCtx } from '../auth/index.js';
import type { CouchError } from '../errors.js';
import type { Database } from '../documents/database.js';
import type { AccessReader } from '../documents/access-rules.js';
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
  /** The handler that authenticated the caller (`GET /_session`'s `info.authenticated`). */
  authenticatedBy?: 'jwt' | 'cookie' | 'proxy' | 'default';
  /** The addressed database and what its `_security` grants the caller (set before the handler runs). */
  access?: DbAccess;
  /** A request a rewrite (`_rewrite`) made: the path the client asked for (`req.requested_path`). */
  requestedPath?: string;
  /** How many rewrites led to this request (CouchDB stops at `[httpd] rewrite_limit`, 100). */
  rewrites?: number;
  /** The body once read, for a request read again after a rewrite (./body.ts). */
  bufferedBody?: Buffer;
  /** Recognizes, authorizes and answers the request `ctx` now describes (a rewrite's new request). */
  reroute?: (ctx: RequestContext) => Promise<void>;
  /** The endpoint that answers (`handler#action`), for the statistics. */
  endpoint?: string;
  /** The JSONP callback JSON answers are wrapped in (`?callback=` with `[chttpd] allow_jsonp`). */
  jsonp?: string;
  /** The error answered, if any (for the request log line). */
  failure?: CouchError;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;

export function param(ctx: RequestContext, name: string): string {
  return String(ctx.params[name]);
}

/** A database request's authorization, decided once in dispatch (see access.ts). */
export interface DbAccess {
  db: Database;
  security: Record<string, unknown>;
  /** Server admin, or DB admin by name or role. */
  dbAdmin: boolean;
  /** A non-admin of an access-enabled database: reads see only their documents (per-document `_access`). */
  reader?: AccessReader;
}

/** Server-level endpoints: welcome, health, uuids, database list, session. */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { randomId } from '../../documents/database.js';
import type { RequestContext } from '../context.js';
import { sendJson } from '../respond.js';

export const VERSION = '3.5.0';
export const VENDOR_VERSION = '0.1.0';

export const server = {
  welcome(ctx: RequestContext): void {
    sendJson(ctx, 200, {
      couchdb: 'Welcome',
      version: VERSION,
      uuid: ctx.server.uuid,
      features: [],
      vendor: { name: 'Divan', version: VENDOR_VERSION },
    });
  },

  up(ctx: RequestContext): void {
    sendJson(ctx, 200, { status: 'ok', seeds: {} });
  },

  uuids(ctx: RequestContext): void {
    const raw = ctx.query.get('count') ?? '1';
    const count = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(count >= 0)) throw new CouchError('bad_request', 'count must be a positive integer');
    if (count > 1000) throw new CouchError('bad_request', 'count parameter too large');
    const uuids = Array.from({ length: count }, randomId);
    sendJson(ctx, 200, { uuids }, { 'Cache-Control': 'must-revalidate, no-cache', Pragma: 'no-cache' });
  },

  allDbs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, ctx.server.listDbs());
  },

  session(ctx: RequestContext): void {
    sendJson(ctx, 200, {
      ok: true,
      userCtx: ctx.user,
      info: { authentication_handlers: ['default'], ...(ctx.user.name === null ? {} : { authenticated: 'default' }) },
    });
  },
};

/** The fallback of every endpoint: 405 with the methods it answers, as CouchDB lists them. */
export const errors = {
  methodNotAllowed(ctx: RequestContext): void {
    const allow = String(ctx.params.allow);
    throw new CouchError('method_not_allowed', `Only ${allow} allowed`);
  },

  notImplemented(ctx: RequestContext): void {
    const what = String(ctx.params.feature ?? 'This endpoint');
    throw new CouchError('not_implemented', `${what} is not supported by this server yet.`);
  },
};

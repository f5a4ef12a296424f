/** Database endpoints: create, info, delete, and the small per-database settings. */
import { requireAdmin, requireDbAccess } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { compactionOf } from '../../documents/compaction.js';
import type { Database } from '../../documents/database.js';
import { param, type RequestContext } from '../context.js';
import { readJson } from '../body.js';
import { locationOf } from '../location.js';
import { sendJson } from '../respond.js';

/** The database a request addresses, after the access check. */
export function dbOf(ctx: RequestContext): Database {
  requireDbAccess(ctx.user);
  return ctx.server.db(param(ctx, 'db'));
}

export const databases = {
  create(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    for (const name of ['n', 'q']) {
      const value = ctx.query.get(name);
      if (value !== null && !(/^\d+$/.test(value) && Number(value) > 0)) {
        throw new CouchError('bad_request', `The \`${name}\` value should be a positive integer.`);
      }
    }
    const name = param(ctx, 'db');
    ctx.server.createDb(name);
    sendJson(ctx, 201, { ok: true }, { Location: locationOf(ctx, name) });
  },

  show(ctx: RequestContext): void {
    sendJson(ctx, 200, dbInfo(dbOf(ctx)));
  },

  destroy(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    if (ctx.query.has('rev')) {
      throw new CouchError(
        'bad_request',
        'You tried to DELETE a database with a ?=rev parameter. Did you mean to DELETE a document instead?',
      );
    }
    ctx.server.deleteDb(param(ctx, 'db'));
    sendJson(ctx, 200, { ok: true });
  },

  revsLimit(ctx: RequestContext): void {
    sendJson(ctx, 200, dbOf(ctx).revsLimit);
  },

  async setRevsLimit(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const value = await readJson(ctx);
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new CouchError('bad_request', 'Revs limit must be a positive integer');
    }
    db.setRevsLimit(value);
    sendJson(ctx, 200, { ok: true });
  },

  security(ctx: RequestContext): void {
    const db = dbOf(ctx);
    const stored = db.store.getProp('security');
    sendJson(ctx, 200, stored === undefined ? DEFAULT_SECURITY : JSON.parse(stored));
  },

  async setSecurity(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    requireAdmin(ctx.user);
    const value = await readJson(ctx);
    if (!(value instanceof JsonObject)) throw new CouchError('bad_request', 'Security object must be a JSON object');
    db.store.setProp('security', JSON.stringify(toPlain(value)));
    sendJson(ctx, 200, { ok: true });
  },

  ensureFullCommit(ctx: RequestContext): void {
    dbOf(ctx);
    sendJson(ctx, 201, { ok: true, instance_start_time: '0' });
  },

  compact(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    dbOf(ctx);
    sendJson(ctx, 202, { ok: true });
  },
};

/** `GET /db`'s answer (also each row of `_dbs_info`). */
export function dbInfo(db: Database): Record<string, unknown> {
  const meta = db.meta();
  return {
    instance_start_time: String(Math.floor(meta.createdAt / 1000)),
    db_name: db.name,
    purge_seq: meta.purgeSeq,
    update_seq: meta.updateSeq,
    sizes: meta.sizes,
    props: {},
    doc_del_count: meta.docDelCount,
    doc_count: meta.docCount,
    disk_format_version: 8,
    compact_running: compactionOf(db) !== undefined,
    cluster: { q: 1, n: 1, w: 1, r: 1 },
  };
}

/** CouchDB 3's default: a new database is for admins only. */
const DEFAULT_SECURITY = { members: { roles: ['_admin'] }, admins: { roles: ['_admin'] } };

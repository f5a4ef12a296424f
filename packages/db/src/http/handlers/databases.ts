/** Database endpoints: create, info, delete, and the small per-database settings. */
import { checkSecurityObject, requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { compactionOf } from '../../documents/compaction.js';
import type { Database } from '../../documents/database.js';
import { parsePartitionedFlag } from '../../documents/partition.js';
import { param, type RequestContext } from '../context.js';
import { readJson } from '../body.js';
import { locationOf } from '../location.js';
import { sendJson } from '../respond.js';
import { perDocAccess } from '../../server/access-settings.js';

/** The database a request addresses, as authorized before its handler ran (http/access.ts). */
export function dbOf(ctx: RequestContext): Database {
  if (ctx.access === undefined) throw new Error(`${ctx.method} ${ctx.rawPath}: database route without authorization`);
  return ctx.access.db;
}

export const databases = {
  async create(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    for (const name of ['n', 'q']) {
      const value = ctx.query.get(name);
      if (value !== null && !(/^\d+$/.test(value) && Number(value) > 0)) {
        throw new CouchError('bad_request', `The \`${name}\` value should be a positive integer.`);
      }
    }
    const partitioned = parsePartitionedFlag(ctx.query.get('partitioned'));
    const access = accessOption(ctx);
    const name = param(ctx, 'db');
    await ctx.server.createDb(name, { partitioned, access });
    sendJson(ctx, 201, { ok: true }, { Location: locationOf(ctx, name) });
  },

  async show(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, await dbInfo(dbOf(ctx)));
  },

  async destroy(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    if (ctx.query.has('rev')) {
      throw new CouchError(
        'bad_request',
        'You tried to DELETE a database with a ?=rev parameter. Did you mean to DELETE a document instead?',
      );
    }
    await ctx.server.deleteDb(param(ctx, 'db'));
    sendJson(ctx, 200, { ok: true });
  },

  async revsLimit(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, await dbOf(ctx).revsLimit());
  },

  async setRevsLimit(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const value = await readJson(ctx);
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new CouchError('bad_request', 'Revs limit must be a positive integer');
    }
    await db.setRevsLimit(value);
    sendJson(ctx, 200, { ok: true });
  },

  async security(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    sendJson(ctx, 200, await db.security());
  },

  async setSecurity(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const value = await readJson(ctx);
    if (!(value instanceof JsonObject)) throw new CouchError('bad_request', 'Security object must be a JSON object');
    const plain = toPlain(value);
    checkSecurityObject(plain);
    await db.setSecurity(plain);
    sendJson(ctx, 200, { ok: true });
  },

  async ensureFullCommit(ctx: RequestContext): Promise<void> {
    dbOf(ctx);
    sendJson(ctx, 201, { ok: true, instance_start_time: '0' });
  },
};

/** `?access=true` of `PUT /db`: per-document access, when the server allows it (CouchDB's words). */
function accessOption(ctx: RequestContext): boolean {
  const value = ctx.query.get('access');
  if (value === null || value === 'false') return false;
  if (value !== 'true') throw new CouchError('bad_request', 'The `access` value should be a boolean.');
  if (!perDocAccess(ctx.server.config).enable) {
    throw new CouchError('bad_request', 'The `access` option is not available on this CouchDB installation.');
  }
  return true;
}

/** `GET /db`'s answer (also each row of `_dbs_info`). */
export async function dbInfo(db: Database): Promise<Record<string, unknown>> {
  const meta = await db.meta();
  return {
    instance_start_time: String(Math.floor(meta.createdAt / 1000)),
    db_name: db.name,
    purge_seq: meta.purgeSeq,
    update_seq: meta.updateSeq,
    sizes: meta.sizes,
    props: db.partitioned ? { partitioned: true } : (await db.accessEnabled()) ? { access: true } : {},
    doc_del_count: meta.docDelCount,
    doc_count: meta.docCount,
    disk_format_version: 8,
    compact_running: compactionOf(db) !== undefined,
    cluster: { q: 1, n: 1, w: 1, r: 1 },
  };
}

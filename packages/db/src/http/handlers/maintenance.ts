/**
 * Database maintenance: `POST /db/_compact` (../../documents/compaction.ts) and
 * `POST /db/_compact/{ddoc}` (view compaction). Both answer 202 at once, as CouchDB does, and
 * run after the answer.
 */
import { requireAdmin } from '../../auth/index.js';
import { compact } from '../../documents/compaction.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import { param, type RequestContext } from '../context.js';
import { sendJson } from '../respond.js';
import { dbOf } from './databases.js';

export const maintenance = {
  compact(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const db = dbOf(ctx);
    void compact(db, ctx.server.log).catch(() => {});
    sendJson(ctx, 202, { ok: true });
  },

  /** The design doc must exist (404 otherwise); its index is compacted once answered. */
  compactViews(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const db = dbOf(ctx);
    const manager = ctx.server.views(db);
    const ddocId = DESIGN_PREFIX + param(ctx, 'docid');
    manager.groupOf(ddocId);
    setImmediate(() => {
      manager
        .compact(ddocId)
        .catch((error) => ctx.server.log(`[error] compacting the views of ${db.name}/${ddocId}: ${String(error)}`));
    });
    sendJson(ctx, 202, { ok: true });
  },
};

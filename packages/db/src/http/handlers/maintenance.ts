/**
 * Database maintenance: `POST /db/_compact` (../../documents/compaction.ts) and
 * `POST /db/_compact/{ddoc}` (view compaction), both answering 202 at once and running after
 * the answer, as CouchDB does; `POST /db/_purge`, `GET /db/_purged_infos` and `GET|PUT /db/_purged_infos_limit`
 * (../../documents/purge.ts).
 */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject } from '../../json/index.js';
import { compact } from '../../documents/compaction.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import { purgeDocs, purgedInfos, purgedInfosLimit, setPurgedInfosLimit } from '../../documents/purge.js';
import { parseRev, type Rev } from '../../revisions/index.js';
import { checkJsonType, readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { sendJson } from '../respond.js';
import { dbOf } from './databases.js';

/** CouchDB's `[purge] max_document_id_number` and `max_revisions_number` defaults. */
const MAX_PURGE_IDS = 100;
const MAX_PURGE_REVS = 1000;

export const maintenance = {
  /** Database admins (the member check first, as CouchDB). */
  async compact(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx); // DB admins too: authorized in dispatch (http/access.ts)
    // CouchDB asks for a JSON content type (415 otherwise), though no body is read.
    checkJsonType(ctx);
    void compact(db, ctx.server.log).catch(() => {});
    sendJson(ctx, 202, { ok: true });
  },

  /** The design doc must exist (404 otherwise); its index is compacted once answered. */
  async compactViews(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx); // DB admins too: authorized in dispatch (http/access.ts)
    checkJsonType(ctx);
    const manager = ctx.server.views(db);
    const ddocId = DESIGN_PREFIX + param(ctx, 'docid');
    await manager.groupOf(ddocId);
    setImmediate(() => {
      manager
        .compact(ddocId)
        .catch((error) => ctx.server.log(`[error] compacting the views of ${db.name}/${ddocId}: ${String(error)}`));
    });
    sendJson(ctx, 202, { ok: true });
  },

  /** `{docid: [revs]}` → 201 `{"purge_seq": null, "purged": {docid: [revs purged]}}` (server admins only). */
  async purge(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const db = dbOf(ctx);
    const body = await readJson(ctx, true);
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    const request: [string, Rev[]][] = [];
    let revCount = 0;
    for (const [id, revs] of body.entries()) {
      if (!Array.isArray(revs)) throw new CouchError('bad_request', 'Invalid revision list');
      request.push([id, revs.map((rev) => parseRev(rev))]);
      revCount += revs.length;
    }
    if (request.length > MAX_PURGE_IDS) throw new CouchError('bad_request', 'Exceeded maximum number of documents.');
    if (revCount > MAX_PURGE_REVS) throw new CouchError('bad_request', 'Exceeded maximum number of revisions.');
    sendJson(ctx, 201, { purge_seq: null, purged: await purgeDocs(db, request) });
  },

  /** `{"purged_infos": [{"id", "revs"}]}`: the purge log (CouchDB 3.5). */
  async purgedInfos(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, { purged_infos: await purgedInfos(dbOf(ctx)) });
  },

  async purgedInfosLimit(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, await purgedInfosLimit(dbOf(ctx)));
  },

  async setPurgedInfosLimit(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx); // DB admins too: authorized in dispatch (http/access.ts)
    const value = await readJson(ctx);
    await setPurgedInfosLimit(db, typeof value === 'number' ? value : Number.NaN);
    sendJson(ctx, 200, { ok: true });
  },
};

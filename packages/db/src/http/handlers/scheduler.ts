/**
 * `/_scheduler/jobs` and `/_scheduler/docs`: the replication scheduler's lists, empty until
 * server-side replication exists (admin-only, as in CouchDB); `POST /_replicate` refuses with
 * the reason that says so (documents/replicator-db.ts).
 */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { replicationUnavailable } from '../../documents/replicator-db.js';
import type { RequestContext } from '../context.js';
import { sendJson } from '../respond.js';

export const scheduler = {
  /** `POST /_replicate`: refused, whoever asks and whatever it asks (a cancel too: no job exists). */
  replicate(): void {
    throw replicationUnavailable();
  },

  jobs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { total_rows: 0, offset: 0, jobs: [] });
  },

  /** `/_scheduler/docs` and `/_scheduler/docs/{replicator db}`. */
  docs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { total_rows: 0, offset: 0, docs: [] });
  },

  job(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    throw new CouchError('not_found', 'unknown_job');
  },

  doc(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    throw new CouchError('not_found', 'unknown_doc');
  },
};

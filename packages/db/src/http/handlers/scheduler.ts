/**
 * `POST /_replicate` (replication/: a one-shot answers when done, a continuous job with 202) and
 * `/_scheduler/jobs` (the running `_replicate` jobs, admin-only as in CouchDB);
 * `/_scheduler/docs` stays empty while `_replicator` documents are refused
 * (documents/replicator-db.ts).
 */
import { isAdmin, requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { toPlain } from '../../json/index.js';
import { readReplicationRequest } from '../../replication/request.js';
import { readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { sendJson } from '../respond.js';

export const scheduler = {
  /**
   * `POST /_replicate`: any signed-in user, acting with their own rights on local databases
   * (an admin's job acts as admin). Anonymous callers are refused: a replication makes this
   * server fetch and write URLs on their behalf.
   */
  async replicate(ctx: RequestContext): Promise<void> {
    if (ctx.user.name === null && !isAdmin(ctx.user)) {
      throw new CouchError('unauthorized', 'You must be signed in to replicate.');
    }
    const request = readReplicationRequest(toPlain(await readJson(ctx, true)));
    const answer = await ctx.server.replicator.replicate(request, ctx.user);
    sendJson(ctx, answer.status, answer.body);
  },

  jobs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const jobs = ctx.server.replicator.schedulerJobs();
    sendJson(ctx, 200, { total_rows: jobs.length, offset: 0, jobs });
  },

  /** `/_scheduler/docs` and `/_scheduler/docs/{replicator db}`. */
  docs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { total_rows: 0, offset: 0, docs: [] });
  },

  job(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const job = ctx.server.replicator.schedulerJobs().find((entry) => entry.id === param(ctx, 'docid'));
    if (job === undefined) throw new CouchError('not_found', 'unknown_job');
    sendJson(ctx, 200, job);
  },

  doc(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    throw new CouchError('not_found', 'unknown_doc');
  },
};

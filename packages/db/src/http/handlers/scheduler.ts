/**
 * `POST /_replicate` (replication/: a one-shot answers when done, a continuous job with 202),
 * `/_scheduler/jobs[/{id}]` (the `_replicate` jobs and the replication documents' jobs) and
 * `/_scheduler/docs[/{replicator db}[/{docid}]]` (the replication documents and their states),
 * admin-only as in CouchDB, in CouchDB's shapes with `limit` and `skip`. A replicator database's
 * name may come with its `/` unescaped (`/_scheduler/docs/other/_replicator/doc`), as in CouchDB.
 */
import { isAdmin, requireAdmin } from '../../auth/index.js';
import { isReplicatorDb } from '../../documents/replicator-db.js';
import { CouchError } from '../../errors.js';
import { toPlain } from '../../json/index.js';
import { readReplicationRequest } from '../../replication/request.js';
import { docListing, jobListing } from '../../replication/scheduler-listing.js';
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
    const body = toPlain(await readJson(ctx, true));
    const request = readReplicationRequest(body);
    const answer = await ctx.server.replicator.replicate(request, ctx.user);
    // Continuous jobs are kept across restarts (replication/replicate-jobs.ts).
    const id = String(answer.body._local_id);
    if (request.cancel) await ctx.server.replicateJobs.forget(id);
    else if (request.continuous && answer.status === 202) {
      await ctx.server.replicateJobs.remember(id, body as Record<string, unknown>, ctx.user);
    }
    sendJson(ctx, answer.status, answer.body);
  },

  jobs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const page = paged(ctx, allJobs(ctx));
    sendJson(ctx, 200, { total_rows: page.total, offset: page.offset, jobs: page.rows });
  },

  job(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    // A `+` of the id may come decoded as a space.
    const id = param(ctx, 'docid').replaceAll(' ', '+');
    const job = allJobs(ctx).find((entry) => entry.id === id);
    if (job === undefined) throw new CouchError('not_found', 'unknown_job');
    sendJson(ctx, 200, job);
  },

  /** `/_scheduler/docs` and `/_scheduler/docs/{replicator db}`. */
  docs(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const db = ctx.params.replicator === undefined ? undefined : param(ctx, 'replicator');
    listDocs(ctx, db);
  },

  /** `/_scheduler/docs/{db}/{docid}`, or `/_scheduler/docs/{a}/_replicator` (the db `a/_replicator`). */
  doc(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const first = param(ctx, 'replicator');
    const docid = param(ctx, 'docid');
    if (docid === '_replicator' && !isReplicatorDb(first)) {
      listDocs(ctx, `${first}/_replicator`);
      return;
    }
    showDoc(ctx, first, docid);
  },

  /** `/_scheduler/docs/{a}/{b}/…`: a replicator database named with its `/`s, then maybe a document. */
  docPath(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const segments = String(ctx.params.rest ?? '')
      .split('/')
      .map((segment) => decodeURIComponent(segment));
    const dbEnd = segments.lastIndexOf('_replicator');
    if (dbEnd < 0) throw new CouchError('not_found', 'unknown_doc');
    const db = segments.slice(0, dbEnd + 1).join('/');
    const rest = segments.slice(dbEnd + 1);
    if (rest.length === 0) listDocs(ctx, db);
    else showDoc(ctx, db, rest.join('/'));
  },
};

function allJobs(ctx: RequestContext): Record<string, unknown>[] {
  const node = ctx.server.nodeName;
  const scheduled = ctx.server.scheduler.all().map((job) => jobListing(job, node));
  const jobs = [...ctx.server.replicator.schedulerJobs(), ...scheduled];
  return jobs.sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
}

function listDocs(ctx: RequestContext, db: string | undefined): void {
  if (db !== undefined && !isReplicatorDb(db)) throw new CouchError('not_found', 'Database does not exist.');
  const { server } = ctx;
  const entries = server.replicatorDocs.all().filter((entry) => db === undefined || entry.db === db);
  const page = paged(
    ctx,
    entries.map((entry) => docListing(entry, server.scheduler, server.nodeName)),
  );
  sendJson(ctx, 200, { total_rows: page.total, offset: page.offset, docs: page.rows });
}

function showDoc(ctx: RequestContext, db: string, docid: string): void {
  const entry = ctx.server.replicatorDocs.get(db, docid);
  if (entry === undefined) throw new CouchError('not_found', 'unknown_doc');
  sendJson(ctx, 200, docListing(entry, ctx.server.scheduler, ctx.server.nodeName));
}

/** `limit` and `skip` of a listing (non-negative integers; a bad one is a 400). */
function paged<T>(ctx: RequestContext, rows: T[]): { total: number; offset: number; rows: T[] } {
  const skip = count(ctx, 'skip') ?? 0;
  const limit = count(ctx, 'limit');
  const end = limit === undefined ? undefined : skip + limit;
  return { total: rows.length, offset: skip, rows: rows.slice(skip, end) };
}

function count(ctx: RequestContext, name: 'limit' | 'skip'): number | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new CouchError('bad_request', `\`${name}\` must be a non-negative integer.`);
  return Number(text);
}

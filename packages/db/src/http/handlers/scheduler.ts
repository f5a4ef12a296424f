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

  async jobs(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const page = paged(ctx, await allJobs(ctx));
    sendJson(ctx, 200, { total_rows: page.total, offset: page.offset, jobs: page.rows });
  },

  async job(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    // A `+` of the id may come decoded as a space.
    const id = param(ctx, 'docid').replaceAll(' ', '+');
    const job = (await allJobs(ctx)).find((entry) => entry.id === id);
    if (job === undefined) throw new CouchError('not_found', 'unknown_job');
    sendJson(ctx, 200, job);
  },

  /** `/_scheduler/docs` and `/_scheduler/docs/{replicator db}`. */
  async docs(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const db = ctx.params.replicator === undefined ? undefined : param(ctx, 'replicator');
    await listDocs(ctx, db);
  },

  /** `/_scheduler/docs/{db}/{docid}`, or `/_scheduler/docs/{a}/_replicator` (the db `a/_replicator`). */
  async doc(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const first = param(ctx, 'replicator');
    const docid = param(ctx, 'docid');
    if (docid === '_replicator' && !isReplicatorDb(first)) {
      await listDocs(ctx, `${first}/_replicator`);
      return;
    }
    await showDoc(ctx, first, docid);
  },

  /** `/_scheduler/docs/{a}/{b}/…`: a replicator database named with its `/`s, then maybe a document. */
  async docPath(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const segments = String(ctx.params.rest ?? '')
      .split('/')
      .map((segment) => decodeURIComponent(segment));
    const dbEnd = segments.lastIndexOf('_replicator');
    if (dbEnd < 0) throw new CouchError('not_found', 'unknown_doc');
    const db = segments.slice(0, dbEnd + 1).join('/');
    const rest = segments.slice(dbEnd + 1);
    if (rest.length === 0) await listDocs(ctx, db);
    else await showDoc(ctx, db, rest.join('/'));
  },
};

/**
 * The documents' jobs and documents as the nodes running them last published them
 * (./replication/job-leases.ts): the same on every node; this node's own as they are now.
 */
async function scheduled(
  ctx: RequestContext,
): Promise<{ jobs: Record<string, unknown>[]; docs: Record<string, unknown>[] }> {
  return ctx.server.jobLeases.merged(ctx.server.schedulerSnapshot());
}

async function allJobs(ctx: RequestContext): Promise<Record<string, unknown>[]> {
  const jobs = [...ctx.server.replicator.schedulerJobs(), ...(await scheduled(ctx)).jobs];
  return jobs.sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
}

async function listDocs(ctx: RequestContext, db: string | undefined): Promise<void> {
  if (db !== undefined && !isReplicatorDb(db)) throw new CouchError('not_found', 'Database does not exist.');
  const docs = (await scheduled(ctx)).docs.filter((entry) => db === undefined || entry.database === db);
  const page = paged(ctx, docs);
  sendJson(ctx, 200, { total_rows: page.total, offset: page.offset, docs: page.rows });
}

async function showDoc(ctx: RequestContext, db: string, docid: string): Promise<void> {
  const entry = (await scheduled(ctx)).docs.find((doc) => doc.database === db && doc.doc_id === docid);
  if (entry === undefined) throw new CouchError('not_found', 'unknown_doc');
  sendJson(ctx, 200, entry);
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

/**
 * The server's replications started by `POST /_replicate`, run by the scheduler beside the
 * replication documents' jobs (./scheduler.ts: `max_jobs`, rotation, backoff): a one-shot's request
 * waits for its answer; a continuous job runs until cancelled (by its body or its id), listed in
 * `_active_tasks` and `/_scheduler/jobs`. Every job acts as the user who started it: on a local
 * database with that user's rights, never more. Both kinds open their endpoints here.
 */
import { isAdmin, requireAdmin, type UserCtx } from '../auth/index.js';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { Endpoint } from './endpoint.js';
import { ReplicationJob } from './job.js';
import type { ReplicationScheduler } from './scheduler.js';
import { jobListing } from './scheduler-listing.js';
import type { ReplicatorTls } from './tls-settings.js';
import type { ReplicationId } from './replication-id.js';
import type { EndpointSpec, ReplicationRequest } from './request.js';
import type { ReplicatorMeter } from './meter.js';

/** What the replicator needs from the server above it. */
export interface ReplicatorHost {
  /** The server's uuid (in every replication id, as CouchDB's `[couchdb] uuid`), the same across restarts and nodes. */
  serverUuid(): Promise<string>;
  /** The node name `_scheduler` shows. */
  node: string;
  log(line: string): void;
  /** A local database, or a 404 when there is none. */
  openDb(name: string): Promise<Database>;
  /** `partitioned`: `create_target_params.partitioned` (documents/partition.ts). */
  createDb(name: string, options?: { partitioned?: boolean }): Promise<Database>;
  /** The scheduler that runs the jobs (the documents' too). */
  scheduler(): ReplicationScheduler;
  /** Counts duplicate adds and remote endpoints' requests (the node's `couch_replicator.*` statistics). */
  meter?: ReplicatorMeter;
  /** How `https:` peers' certificates are trusted now (a job keeps what it started with). */
  tls(): ReplicatorTls;
}

export interface ReplicateAnswer {
  status: 200 | 202;
  body: Record<string, unknown>;
}

/** A replication's two endpoints, opened, and its id. */
export interface Opened {
  source: Endpoint;
  target: Endpoint;
  id: ReplicationId;
}

export class Replicator {
  constructor(private readonly host: ReplicatorHost) {}

  async replicate(request: ReplicationRequest, user: UserCtx): Promise<ReplicateAnswer> {
    if (request.cancel) return this.cancel(request, user);
    const opened = await this.open(request, user);
    const scheduler = this.host.scheduler();
    const id = opened.id.full;
    const existing = scheduler.get(id);
    if (existing !== undefined) {
      this.host.meter?.('jobs.duplicate_adds');
      closeBoth(opened);
      if (request.continuous) return { status: 202, body: { ok: true, _local_id: id } };
      // The same one-shot already scheduled: its answer is this one's (two would race on the checkpoints).
      if (existing.answer !== undefined) return { status: 200, body: { ...(await existing.answer) } };
      throw new CouchError(
        'conflict',
        `Replication ${id} already runs` +
          (existing.origin === null
            ? '.'
            : `, triggered by document ${existing.origin.docId} of ${existing.origin.db}.`),
      );
    }
    const job = new ReplicationJob(id, request, user, null, opened.source.shown, opened.target.shown);
    scheduler.add(job, opened);
    if (job.answer === undefined) return { status: 202, body: { ok: true, _local_id: id } };
    return { status: 200, body: { ...(await job.answer) } };
  }

  /** `/_scheduler/jobs` entries of this node's `_replicate` jobs (CouchDB's shape). */
  schedulerJobs(): Record<string, unknown>[] {
    return this.host
      .scheduler()
      .all()
      .filter((job) => job.origin === null)
      .map((job) => jobListing(job, this.host.node));
  }

  private async cancel(request: ReplicationRequest, user: UserCtx): Promise<ReplicateAnswer> {
    let id = request.replicationId;
    if (id === undefined) {
      const opened = await this.open(request, user);
      closeBoth(opened);
      id = opened.id.full;
    }
    // An id given with spaces had its `+` decoded by a form: CouchDB reads them back as `+`.
    const scheduler = this.host.scheduler();
    const job = scheduler.get(id.replaceAll(' ', '+'));
    if (job === undefined || job.origin !== null) {
      throw new CouchError('not_found', `No replication with id ${id} is running.`);
    }
    if (!isAdmin(user) && job.user.name !== user.name) {
      throw new CouchError('unauthorized', 'Only the user who started a replication, or an admin, may cancel it.');
    }
    this.host.log(`Replication ${job.id} (${job.source} -> ${job.target}) cancelled.`);
    // Answered once its run has checkpointed and ended.
    await scheduler.remove(job.id).catch(() => undefined);
    return { status: 200, body: { ok: true, _local_id: job.id } };
  }

  /** Both endpoints opened (or the target created), and the replication id (the scheduler's jobs use it too). */
  async open(request: ReplicationRequest, user: UserCtx): Promise<Opened> {
    const source = await this.endpoint(request.source, user, 'source', request, false);
    let target: Endpoint;
    try {
      target = await this.endpoint(request.target, user, 'target', request, request.createTarget);
    } catch (error) {
      source.close();
      throw error;
    }
    const opened = { source, target } as Opened;
    try {
      const filter = request.filter;
      const code = filter?.kind === 'design' ? await source.filterSource(filter.name) : undefined;
      const owner = user.name === null || user.roles.includes('_admin') ? undefined : user.name;
      // Loaded with the first replication, as the endpoints are (it normalizes Mango selectors).
      const { replicationId } = await import('./replication-id.js');
      opened.id = replicationId(await this.host.serverUuid(), request, code, owner);
    } catch (error) {
      closeBoth(opened);
      throw error;
    }
    return opened;
  }

  private async endpoint(
    spec: EndpointSpec,
    user: UserCtx,
    role: 'source' | 'target',
    request: ReplicationRequest,
    create: boolean,
  ): Promise<Endpoint> {
    // The endpoints (and the Mango selectors and sandbox filters they reach) load with the first
    // replication: an idle server never imports them.
    if (spec.kind === 'remote') {
      const { RemoteEndpoint } = await import('./remote-endpoint.js');
      const remote = new RemoteEndpoint(
        spec.remote,
        request.connectionTimeoutMs,
        request.retriesPerRequest,
        this.host.meter,
        this.host.tls(),
      );
      if (create) await remote.create(request.createTargetParams);
      // Reachable and readable now: a one-shot's answer says so rather than its first batch.
      await remote.info();
      return remote;
    }
    let db: Database;
    try {
      db = await this.host.openDb(spec.name);
    } catch (error) {
      if (!(error instanceof CouchError) || error.status !== 404) throw error;
      if (!create) throw new CouchError('db_not_found', `The ${role} database ${spec.name} does not exist.`, 404);
      // Creating a database is a server admin's right, as `PUT /db` is.
      requireAdmin(user);
      db = await this.host.createDb(spec.name, localCreateOptions(request.createTargetParams));
    }
    const { LocalEndpoint } = await import('./local-endpoint.js');
    return LocalEndpoint.open(db, user, role, this.host.log);
  }
}

/**
 * `create_target_params` for a local target, as `PUT /db` takes them: `q` and `n` (one shard and
 * one copy here, checked and passed over as `PUT /db` does) and `partitioned`; any other is
 * refused by name rather than dropped.
 */
export function localCreateOptions(params: Record<string, unknown>): { partitioned: boolean } {
  for (const [key, value] of Object.entries(params)) {
    if (key === 'q' || key === 'n') {
      if (!(Number.isInteger(Number(value)) && Number(value) > 0)) {
        throw new CouchError('bad_request', `create_target_params.${key} should be a positive integer.`);
      }
    } else if (key === 'partitioned') {
      if (typeof value !== 'boolean' && value !== 'true' && value !== 'false') {
        throw new CouchError('bad_request', 'create_target_params.partitioned should be a boolean.');
      }
    } else {
      throw new CouchError(
        'bad_request',
        `create_target_params.${key} is not supported for a target on this server (only q, n and partitioned).`,
      );
    }
  }
  return { partitioned: params.partitioned === true || params.partitioned === 'true' };
}

export function closeBoth(opened: Partial<Opened>): void {
  opened.source?.close();
  opened.target?.close();
}

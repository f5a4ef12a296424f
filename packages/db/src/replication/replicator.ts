/**
 * The server's replications started by `POST /_replicate`: one-shot jobs run while the request
 * waits; continuous jobs run in the background until cancelled, listed in `_active_tasks` and
 * `/_scheduler/jobs`. A continuous job that fails is started again from its checkpoint after a
 * pause (the scheduler's rotation and backoff come with `_replicator` documents). Every job acts
 * as the user who started it: on a local database with that user's rights, never more.
 */
import { isAdmin, requireAdmin, type UserCtx } from '../auth/index.js';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { Endpoint } from './endpoint.js';
import { ReplicationSession, type SessionResult } from './session.js';
import { LocalEndpoint } from './local-endpoint.js';
import { randomBytes } from 'node:crypto';
import type { Storage } from '../storage/contract.js';
import { RemoteEndpoint } from './remote-endpoint.js';
import { replicationId, type ReplicationId } from './replication-id.js';
import type { EndpointSpec, ReplicationRequest } from './request.js';

/** What the replicator needs from the server above it. */
export interface ReplicatorHost {
  /** Where the replicator keeps its uuid (in every replication id), the same across restarts and nodes. */
  values: Pick<Storage, 'getServerValue' | 'setServerValue'>;
  /** The node name `_scheduler` shows. */
  node: string;
  log(line: string): void;
  /** A local database, or a 404 when there is none. */
  openDb(name: string): Promise<Database>;
  /** `partitioned`: `create_target_params.partitioned` (documents/partition.ts). */
  createDb(name: string, options?: { partitioned?: boolean }): Promise<Database>;
}

export interface ReplicateAnswer {
  status: 200 | 202;
  body: Record<string, unknown>;
}

const UUID_KEY = 'replicator_uuid';

/** The pause before a failed continuous job starts again. */
const RETRY_MS = 5_000;

interface Job {
  id: ReplicationId;
  pid: string;
  user: UserCtx;
  request: ReplicationRequest;
  source: string;
  target: string;
  startTime: string;
  history: { timestamp: string; type: string; reason?: string }[];
  session: ReplicationSession | undefined;
  stop: AbortController;
  /** A one-shot's answer; a continuous job's end. */
  done: Promise<SessionResult | undefined>;
}

/** A replication's two endpoints, opened, and its id. */
export interface Opened {
  source: Endpoint;
  target: Endpoint;
  id: ReplicationId;
}

export class Replicator {
  private readonly jobs = new Map<string, Job>();
  private pids = 0;
  private uuid: Promise<string> | undefined;

  constructor(private readonly host: ReplicatorHost) {}

  async replicate(request: ReplicationRequest, user: UserCtx): Promise<ReplicateAnswer> {
    if (request.cancel) return this.cancel(request, user);
    const opened = await this.open(request, user);
    const running = this.jobs.get(opened.id.full);
    if (running !== undefined) {
      closeBoth(opened);
      if (request.continuous) return { status: 202, body: { ok: true, _local_id: opened.id.full } };
      // The same one-shot already running: its answer is this one's (two would race on the checkpoints).
      const result = await running.done;
      return { status: 200, body: { ...result } };
    }
    const job = this.register(opened, request, user);
    if (request.continuous) {
      job.done = this.runContinuous(job, opened);
      return { status: 202, body: { ok: true, _local_id: opened.id.full } };
    }
    job.done = this.runOnce(job, opened);
    const result = await job.done;
    return { status: 200, body: { ...result } };
  }

  /** `_active_tasks` entries of the running sessions. */
  tasks(): Record<string, unknown>[] {
    return [...this.jobs.values()].flatMap((job) => (job.session === undefined ? [] : [job.session.task(job.pid)]));
  }

  /** `/_scheduler/jobs` entries (CouchDB's shape). */
  schedulerJobs(): Record<string, unknown>[] {
    return [...this.jobs.values()].map((job) => {
      return {
        database: null,
        id: job.id.full,
        pid: job.pid,
        source: job.source,
        target: job.target,
        user: job.user.name,
        doc_id: null,
        info: job.session?.info(job.pid) ?? null,
        history: [...job.history].reverse(),
        node: this.host.node,
        start_time: job.startTime,
      };
    });
  }

  /** Stops every job (the server is closing), each after its checkpoint. */
  async close(): Promise<void> {
    const jobs = [...this.jobs.values()];
    for (const job of jobs) this.stopJob(job);
    await Promise.allSettled(jobs.map((job) => job.done));
  }

  private async cancel(request: ReplicationRequest, user: UserCtx): Promise<ReplicateAnswer> {
    let id = request.replicationId;
    if (id === undefined) {
      const opened = await this.open(request, user);
      closeBoth(opened);
      id = opened.id.full;
    }
    // An id given with spaces had its `+` decoded by a form: CouchDB reads them back as `+`.
    const job = this.jobs.get(id.replaceAll(' ', '+'));
    if (job === undefined) throw new CouchError('not_found', `No replication with id ${id} is running.`);
    if (!isAdmin(user) && job.user.name !== user.name) {
      throw new CouchError('unauthorized', 'Only the user who started a replication, or an admin, may cancel it.');
    }
    this.stopJob(job);
    await job.done.catch(() => undefined);
    return { status: 200, body: { ok: true, _local_id: job.id.full } };
  }

  private register(opened: Opened, request: ReplicationRequest, user: UserCtx): Job {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const job: Job = {
      id: opened.id,
      pid: `<0.${++this.pids}.0>`,
      user,
      request,
      source: opened.source.shown,
      target: opened.target.shown,
      startTime: now,
      history: [{ timestamp: now, type: 'added' }],
      session: undefined,
      stop: new AbortController(),
      done: Promise.resolve(undefined),
    };
    this.jobs.set(opened.id.full, job);
    return job;
  }

  private stopJob(job: Job): void {
    job.stop.abort();
    job.session?.cancel();
  }

  private session(job: Job, opened: Opened): ReplicationSession {
    const { request } = job;
    const session = new ReplicationSession(opened.source, opened.target, {
      replicationId: job.id.full,
      continuous: request.continuous,
      ...(request.filter === undefined ? {} : { filter: request.filter }),
      ...(request.sinceSeq === undefined ? {} : { sinceSeq: request.sinceSeq }),
      useCheckpoints: request.useCheckpoints,
      checkpointIntervalMs: request.checkpointIntervalMs,
      winningRevsOnly: request.winningRevsOnly,
      workerBatchSize: request.workerBatchSize,
      ...(request.httpConnections === undefined ? {} : { httpConnections: request.httpConnections }),
      user: job.user,
      log: this.host.log,
    });
    job.session = session;
    job.history.push({ timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), type: 'started' });
    return session;
  }

  private async runOnce(job: Job, opened: Opened): Promise<SessionResult> {
    try {
      const result = await this.session(job, opened).run();
      const stats = job.session!.stats;
      this.host.log(
        `Replication ${job.id.full} (${job.source} -> ${job.target}) completed: ` +
          `${stats.docs_written} written, ${stats.doc_write_failures} failed.`,
      );
      return result;
    } catch (error) {
      this.host.log(`Replication ${job.id.full} (${job.source} -> ${job.target}) failed: ${reasonOf(error)}`);
      throw error;
    } finally {
      closeBoth(opened);
      this.jobs.delete(job.id.full);
    }
  }

  private async runContinuous(job: Job, first: Opened): Promise<undefined> {
    let opened: Opened | undefined = first;
    while (!job.stop.signal.aborted) {
      try {
        opened ??= await this.open(job.request, job.user);
        await this.session(job, opened).run();
      } catch (error) {
        if (job.stop.signal.aborted) break;
        const reason = reasonOf(error);
        job.history.push({ timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), type: 'crashed', reason });
        this.host.log(
          `Replication ${job.id.full} (${job.source} -> ${job.target}) failed: ${reason}; ` +
            `starting again in ${RETRY_MS / 1000} s.`,
        );
        await pause(RETRY_MS, job.stop.signal);
      } finally {
        if (opened !== undefined) closeBoth(opened);
        opened = undefined;
      }
    }
    this.jobs.delete(job.id.full);
    this.host.log(`Replication ${job.id.full} (${job.source} -> ${job.target}) cancelled.`);
    return undefined;
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
      opened.id = replicationId(await this.replicatorUuid(), request, code, owner);
    } catch (error) {
      closeBoth(opened);
      throw error;
    }
    return opened;
  }

  /**
   * The uuid replication ids are made with: a server value, so a job started again after a
   * restart (or on another node) finds its checkpoints. Read back after writing, so two nodes
   * that start at once agree on the one stored last.
   */
  private replicatorUuid(): Promise<string> {
    this.uuid ??= (async () => {
      const { values } = this.host;
      const stored = await values.getServerValue(UUID_KEY);
      if (stored !== undefined) return stored;
      await values.setServerValue(UUID_KEY, randomBytes(16).toString('hex'));
      return (await values.getServerValue(UUID_KEY))!;
    })();
    this.uuid.catch(() => {
      this.uuid = undefined;
    });
    return this.uuid;
  }

  private async endpoint(
    spec: EndpointSpec,
    user: UserCtx,
    role: 'source' | 'target',
    request: ReplicationRequest,
    create: boolean,
  ): Promise<Endpoint> {
    if (spec.kind === 'remote') {
      const remote = new RemoteEndpoint(spec.remote, request.connectionTimeoutMs, request.retriesPerRequest);
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

function reasonOf(error: unknown): string {
  if (error instanceof CouchError) return `${error.error}: ${error.reason}`;
  return error instanceof Error ? error.message : String(error);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done);
  });
}

/**
 * The replication scheduler, as CouchDB's couch_replicator_scheduler runs jobs: at most
 * `max_jobs` run at once; every `interval` it stops the excess (continuous jobs first), starts
 * pending jobs that are not backing off (the ones that waited longest first), and, when jobs
 * wait while `max_jobs` run, rotates up to `max_churn` continuous jobs (the longest running
 * stop, waiting ones start). A job that crashed `n` times in a row waits
 * base × 2^min(n − 1, 10) before it starts again (`health_threshold` decides when a run counts
 * as healthy and ends the streak). Beyond CouchDB, a running job that shows no progress for
 * `stall_timeout` (a source or target that stopped answering without closing) is a zombie: the
 * scheduler abandons its run, records a crash and starts it again after the backoff.
 *
 * Jobs are added by the replicator documents' processor (./replicator-docs.ts), which hears back
 * when a one-shot job completes, and by `POST /_replicate` (./replicator.ts): those count toward
 * `max_jobs`, rotate and back off as the documents' do, and run on the node that was asked (a
 * document's job only on the node holding its lease: ./job-leases.ts). Where CouchDB drops a `_replicate` job that
 * crashes, a continuous one here backs off and starts again (it is kept across restarts too,
 * ./replicate-jobs.ts); a one-shot that crashes answers its request with the error.
 */
import type { SessionResult } from './session.js';
import { type JobRun, type ReplicationJob, reasonOf } from './job.js';
import { closeBoth, type Opened } from './replicator.js';
import { CouchError } from '../errors.js';
import { backoffMs, SCHEDULER_DEFAULTS, type SchedulerSettings } from './scheduler-settings.js';
import type { ReplicationRequest } from './request.js';
import type { UserCtx } from '../auth/index.js';
import type { ReplicatorMeter } from './meter.js';

export interface SchedulerHost {
  log(line: string): void;
  /** Opens both endpoints of a request as `user` (the replicator's `open`). */
  open(request: ReplicationRequest, user: UserCtx): Promise<Opened>;
  /** A document's one-shot job finished: its document is marked completed. */
  completed(job: ReplicationJob, result: SessionResult): void;
  /**
   * Whether this node holds a document job's lease (several nodes share the jobs: ./job-leases.ts);
   * undefined: a document's job runs on the node holding the replicator lease.
   */
  holds?(jobId: string): boolean;
  /** A document's job was added (its lease may be taken at once). */
  added?(job: ReplicationJob): void;
  /** Counts the jobs' events (the node's `couch_replicator.*` statistics). */
  meter?: ReplicatorMeter;
}

/** How often the scheduler looks for zombies (and lets the reschedule timer be long). */
const WATCH_MS = 1_000;

export class ReplicationScheduler {
  private readonly jobs = new Map<string, ReplicationJob>();
  settings: SchedulerSettings = SCHEDULER_DEFAULTS;
  private timer: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
  private pids = 0;
  private closed = false;
  /** Whether this node runs the jobs (it holds the replicator lease: ./replicator-lease.ts). */
  private active = false;
  private readonly runs = new Set<Promise<unknown>>();

  constructor(private readonly host: SchedulerHost) {}

  start(): void {
    this.schedule();
    this.watch ??= setInterval(() => this.findZombies(), WATCH_MS);
    this.watch.unref();
  }

  /** New settings apply at once: the next reschedule comes one new `interval` from now. */
  configure(settings: SchedulerSettings): void {
    const intervalChanged = settings.intervalMs !== this.settings.intervalMs;
    this.settings = settings;
    if (intervalChanged && this.timer !== undefined) this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.reschedule();
      this.schedule();
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  /**
   * Starts or stops running the documents' jobs on this node: the lease was taken or lost. Stopped
   * jobs wait as pending (the node that takes the lease runs them).
   */
  setActive(active: boolean): void {
    this.active = active;
    if (active) {
      this.reschedule();
      return;
    }
    for (const job of this.jobs.values()) if (!this.runsHere(job)) this.stopJob(job, true);
  }

  get isActive(): boolean {
    return this.active;
  }

  all(): ReplicationJob[] {
    return [...this.jobs.values()];
  }

  get(id: string): ReplicationJob | undefined {
    return this.jobs.get(id);
  }

  /**
   * Adds a job and starts it at once when there is room (CouchDB's maybe_start_newly_added_job).
   * `opened`: its endpoints, already opened by the caller, used by its first run (closed if it waits).
   */
  add(job: ReplicationJob, opened?: Opened): void {
    void this.remove(job.id);
    this.jobs.set(job.id, job);
    if (job.origin !== null) this.host.added?.(job);
    this.host.meter?.('jobs.adds');
    if (this.runningCount() < this.settings.maxJobs) this.startJob(job, opened);
    if (!job.running && opened !== undefined) closeBoth(opened);
    if (this.closed) job.answered({ error: new CouchError('replication_stopped', 'The server is stopping.', 503) });
  }

  /**
   * Stops and forgets a job (its document was deleted or changed, a `_replicate` cancelled);
   * settles when its run has ended, after its last checkpoint.
   */
  remove(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (job === undefined) return Promise.resolve();
    const ended = job.run?.ended ?? Promise.resolve();
    this.jobs.delete(id);
    this.host.meter?.('jobs.removes');
    if (!job.running) this.answerRemoved(job);
    this.stopJob(job, false);
    return ended;
  }

  /** Whether this node runs `job`: a document's only while it holds its lease, a `_replicate` always. */
  private runsHere(job: ReplicationJob): boolean {
    if (job.origin === null) return true;
    return this.host.holds === undefined ? this.active : this.host.holds(job.id);
  }

  /** This node took or lost a document job's lease (./job-leases.ts): the job starts or stops here. */
  leaseChanged(jobId: string, holding: boolean): void {
    const job = this.jobs.get(jobId);
    if (job === undefined) return;
    if (holding) this.reschedule();
    else if (job.running) this.stopJob(job, true);
  }

  /** One round: stop the excess, start pending jobs, rotate (couch_replicator_scheduler:reschedule). */
  reschedule(): void {
    const { maxJobs, maxChurn } = this.settings;
    const running = this.runningCount();
    if (running > maxJobs) {
      const stopped = this.stopLongestRunning(running - maxJobs, true);
      if (stopped < running - maxJobs) this.stopLongestRunning(running - maxJobs - stopped, false);
    }
    const nowRunning = this.runningCount();
    const pending = this.all().filter((job) => !job.running && this.runsHere(job)).length;
    if (nowRunning < maxJobs && pending > 0) {
      for (const job of this.pendingJobs(maxJobs - nowRunning)) this.startJob(job);
      return;
    }
    if (nowRunning === maxJobs && pending > 0) {
      const rotate = Math.min(pending, nowRunning, maxChurn);
      const startable = this.pendingJobs(rotate);
      // Only as many stop as can start in their place: a backing-off job does not take a slot.
      const stopped = this.stopLongestRunning(startable.length, true);
      for (const job of startable.slice(0, stopped)) this.startJob(job);
    }
  }

  /** Up to `count` waiting jobs not backing off, those that waited longest first. */
  private pendingJobs(count: number): ReplicationJob[] {
    const now = Date.now();
    const { healthThresholdSec, crashBackoffMs } = this.settings;
    return this.all()
      .filter((job) => {
        if (job.running || !this.runsHere(job)) return false;
        const latest = job.history[0];
        if (latest === undefined || latest.type === 'added' || latest.type === 'stopped') return true;
        const crashes = job.consecutiveCrashes(healthThresholdSec);
        return now - job.latestCrashAt() >= backoffMs(crashes, crashBackoffMs);
      })
      .sort((a, b) => a.lastStarted() - b.lastStarted())
      .slice(0, Math.max(0, count));
  }

  private stopLongestRunning(count: number, continuous: boolean): number {
    const running = this.all()
      .filter((job) => job.running && job.continuous === continuous)
      .sort((a, b) => a.lastStarted() - b.lastStarted())
      .slice(0, Math.max(0, count));
    for (const job of running) this.stopJob(job, true);
    return running.length;
  }

  runningCount(): number {
    let count = 0;
    for (const job of this.jobs.values()) if (job.running) count++;
    return count;
  }

  /** The job's state as `_scheduler/docs` names it. */
  stateOf(job: ReplicationJob): 'running' | 'pending' | 'crashing' {
    if (job.running) return 'running';
    return job.consecutiveCrashes(this.settings.healthThresholdSec) > 0 ? 'crashing' : 'pending';
  }

  private startJob(job: ReplicationJob, opened?: Opened): void {
    if (job.running || this.closed || !this.runsHere(job)) return;
    const run = job.nextRun(`<0.${++this.pids}.0>`);
    job.record({ type: 'started', at: Date.now() }, this.settings.maxHistory);
    this.host.meter?.('jobs.starts');
    const done = this.runJob(job, run, opened);
    run.ended = done;
    this.runs.add(done);
    void done.finally(() => this.runs.delete(done));
  }

  private async runJob(job: ReplicationJob, run: JobRun, preopened: Opened | undefined): Promise<void> {
    let result: SessionResult;
    try {
      const opened = preopened ?? (await this.host.open(job.request, job.user));
      if (!job.isCurrent(run)) {
        closeBoth(opened);
        this.answerRemoved(job);
        return;
      }
      // An idle job's longpoll answers well within the stall timeout (else it would be taken for stalled).
      const longpollMs = Math.min(10_000, Math.floor(this.settings.stallTimeoutMs / 2));
      result = await job.runSession(run, opened, (line) => this.host.log(line), this.host.meter, longpollMs);
    } catch (error) {
      // No session yet: the endpoints could not be opened (CouchDB's failed start).
      if (run.opened === undefined) this.host.meter?.('failed_starts');
      if (!job.isCurrent(run)) {
        this.answerRemoved(job, { error });
        return;
      }
      this.crashed(job, run, error);
      return;
    } finally {
      if (run.opened !== undefined) closeBoth(run.opened);
    }
    if (!job.isCurrent(run)) {
      // Cancelled: a waiting `_replicate` one-shot answers with what it did up to its checkpoint.
      this.answerRemoved(job, { result });
      return;
    }
    job.keepStats(run);
    job.run = undefined;
    if (job.continuous) return; // stopped by the scheduler: it waits as pending
    this.jobs.delete(job.id);
    const stats = job.info();
    this.host.log(
      `Replication ${job.id} (${job.source} -> ${job.target}) completed: ` +
        `${String(stats?.docs_written ?? 0)} written, ${String(stats?.doc_write_failures ?? 0)} failed.`,
    );
    if (job.origin === null) job.answered({ result });
    else this.host.completed(job, result);
  }

  /**
   * A removed job's waiting `_replicate` request gets its answer: the cancelled run's outcome, or
   * (never started, or stopped before its session) that it was cancelled. A job only stopped for
   * a while (rotation, excess) is still scheduled and answers later.
   */
  private answerRemoved(job: ReplicationJob, outcome?: { result: SessionResult } | { error: unknown }): void {
    if (this.jobs.get(job.id) === job) return;
    job.answered(
      outcome ??
        ({ error: new CouchError('not_found', `Replication ${job.id} was cancelled before it ran.`) } as const),
    );
  }

  private crashed(job: ReplicationJob, run: JobRun, error: unknown): void {
    const reason = reasonOf(error);
    this.host.meter?.('jobs.crashes');
    job.keepStats(run);
    job.run = undefined;
    job.record({ type: 'crashed', at: Date.now(), reason }, this.settings.maxHistory);
    if (job.answer !== undefined) {
      // A `_replicate` one-shot: its request answers with the error (CouchDB drops the job too).
      this.jobs.delete(job.id);
      this.host.log(`Replication ${job.id} (${job.source} -> ${job.target}) failed: ${reason}`);
      job.answered({ error });
      return;
    }
    const crashes = job.consecutiveCrashes(this.settings.healthThresholdSec);
    const wait = backoffMs(crashes, this.settings.crashBackoffMs);
    this.host.log(
      `Replication ${job.id} (${job.source} -> ${job.target}) crashed: ${reason}; ` +
        `crash ${crashes} in a row, starting again in ${Math.round(wait / 1000)} s at the earliest.`,
    );
    // Started again by a reschedule after the backoff: one is set for the moment it ends.
    const timer = setTimeout(() => this.startWhenRoom(job), wait + 10);
    timer.unref();
  }

  /** Starts a job whose backoff ended, when a slot is free (else the reschedule rotates it in). */
  private startWhenRoom(job: ReplicationJob): void {
    if (this.closed || this.jobs.get(job.id) !== job || job.running) return;
    if (this.runningCount() < this.settings.maxJobs && this.pendingJobs(Number.MAX_SAFE_INTEGER).includes(job)) {
      this.startJob(job);
    }
  }

  /** Stops a run; `record` says whether the stop is an event of the job (not when it is removed). */
  private stopJob(job: ReplicationJob, record: boolean): void {
    const run = job.run;
    if (run === undefined) return;
    this.host.meter?.('jobs.stops');
    job.keepStats(run);
    job.run = undefined;
    // Its session checkpoints and ends; the run closes the endpoints then.
    run.session?.cancel();
    if (record) job.record({ type: 'stopped', at: Date.now() }, this.settings.maxHistory);
  }

  /** Running jobs that showed no progress for `stall_timeout`: abandoned, recorded as crashes. */
  private findZombies(): void {
    const now = Date.now();
    for (const job of this.jobs.values()) {
      const run = job.run;
      if (run === undefined) continue;
      if (now - job.lastProgress() < this.settings.stallTimeoutMs) continue;
      run.session?.cancel();
      if (run.opened !== undefined) closeBoth(run.opened);
      this.crashed(
        job,
        run,
        new CouchError(
          'replication_stalled',
          `no progress for ${Math.round(this.settings.stallTimeoutMs / 1000)} s (source or target not answering)`,
          502,
        ),
      );
    }
  }

  /** Stops every job (the server is closing), each after its checkpoint where it can. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.watch !== undefined) clearInterval(this.watch);
    const runs = [...this.runs];
    for (const job of this.jobs.values()) {
      const run = job.run;
      run?.session?.cancel();
    }
    // Bounded: a run stuck on a peer that does not answer is not waited for (its endpoints close below).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(runs),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 5_000);
      }),
    ]);
    clearTimeout(timer);
    for (const job of this.jobs.values()) {
      if (job.run?.opened !== undefined) closeBoth(job.run.opened);
      job.run = undefined;
      job.answered({ error: new CouchError('replication_stopped', 'The server is stopping.', 503) });
    }
  }
}

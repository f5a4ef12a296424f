/**
 * One scheduled replication job (a `_replicator` document's, or a `POST /_replicate`'s, whose
 * origin is null as CouchDB's transient jobs have no database): its request, the user it acts as,
 * and its history of events as couch_replicator_scheduler keeps it (`added`, `started`,
 * `stopped`, `crashed` with a reason; newest first, `max_history` long). The scheduler starts and
 * stops it; each start runs one replication session until it ends (a one-shot's completion), is
 * stopped, or fails (a crash). A run whose session stops answering is abandoned by the scheduler
 * (a zombie): its later outcome, if any, is ignored, as each run has its own generation.
 */
import type { UserCtx } from '../auth/index.js';
import { CouchError } from '../errors.js';
import type { SessionStats } from './checkpoint.js';
import type { ReplicatorMeter } from './meter.js';
import type { Opened } from './replicator.js';
import type { ReplicationRequest } from './request.js';
import { ReplicationSession, type SessionResult } from './session.js';
import { migrateCheckpoints } from './checkpoint-migration.js';

export type JobEventType = 'added' | 'started' | 'stopped' | 'crashed';

export interface JobEvent {
  type: JobEventType;
  /** Milliseconds since the epoch. */
  at: number;
  reason?: string;
}

/** Where a job comes from: a replication document. */
export interface JobOrigin {
  db: string;
  docId: string;
}

export interface JobRun {
  generation: number;
  pid: string;
  session: ReplicationSession | undefined;
  opened: Opened | undefined;
  /** When the run last showed progress (ms): its start, then each batch or longpoll answered. */
  startedAt: number;
  /** Settles when the run has ended (its session checkpointed, its endpoints closed). */
  ended?: Promise<void>;
}

export class ReplicationJob {
  readonly history: JobEvent[] = [];
  run: JobRun | undefined;
  private generation = 0;
  /** The last session's counters, kept while the job waits (`info` of a pending job). */
  lastStats:
    | (SessionStats & { checkpointed_source_seq: unknown; source_seq: unknown; through_seq: unknown })
    | undefined;
  readonly startTime = Date.now();
  /** A `_replicate` one-shot's answer, for the request that waits on it (settled once). */
  readonly answer: Promise<SessionResult> | undefined;
  private settle: { resolve(result: SessionResult): void; reject(error: unknown): void } | undefined;

  constructor(
    readonly id: string,
    readonly request: ReplicationRequest,
    readonly user: UserCtx,
    readonly origin: JobOrigin | null,
    readonly source: string,
    readonly target: string,
  ) {
    this.history.push({ type: 'added', at: Date.now() });
    if (origin === null && !request.continuous) {
      this.answer = new Promise<SessionResult>((resolve, reject) => {
        this.settle = { resolve, reject };
      });
      // The waiting request reads it; marked handled so a job nobody waits for leaves no stray rejection.
      this.answer.catch(() => undefined);
    }
  }

  /** Answers the request waiting on a `_replicate` one-shot (the first outcome counts). */
  answered(outcome: { result: SessionResult } | { error: unknown }): void {
    const settle = this.settle;
    this.settle = undefined;
    if (settle === undefined) return;
    if ('result' in outcome) settle.resolve(outcome.result);
    else settle.reject(outcome.error);
  }

  get continuous(): boolean {
    return this.request.continuous;
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  record(event: JobEvent, maxHistory: number): void {
    this.history.unshift(event);
    this.history.length = Math.min(this.history.length, maxHistory);
  }

  /** A new run's identity; outcomes of older runs are ignored. */
  nextRun(pid: string): JobRun {
    this.run = { generation: ++this.generation, pid, session: undefined, opened: undefined, startedAt: Date.now() };
    return this.run;
  }

  isCurrent(run: JobRun): boolean {
    return this.run?.generation === run.generation;
  }

  /** The session's last progress or answered changes read (ms), or the run's start. */
  lastProgress(): number {
    const run = this.run;
    if (run === undefined) return Date.now();
    const updated = (run.session?.updatedOn ?? 0) * 1000;
    return Math.max(run.startedAt, updated, run.session?.heardAt ?? 0);
  }

  /** Starts the session of `run` over `opened`; resolves with a one-shot's result. */
  runSession(
    run: JobRun,
    opened: Opened,
    log: (line: string) => void,
    meter?: ReplicatorMeter,
    longpollMs?: number,
  ): Promise<SessionResult> {
    const { request } = this;
    const session = new ReplicationSession(opened.source, opened.target, {
      replicationId: this.id,
      checkpointName: opened.id.base,
      continuous: request.continuous,
      ...(request.filter === undefined ? {} : { filter: request.filter }),
      ...(request.sinceSeq === undefined ? {} : { sinceSeq: request.sinceSeq }),
      useCheckpoints: request.useCheckpoints,
      checkpointIntervalMs: request.checkpointIntervalMs,
      winningRevsOnly: request.winningRevsOnly,
      workerBatchSize: request.workerBatchSize,
      ...(longpollMs === undefined ? {} : { longpollMs }),
      ...(request.httpConnections === undefined ? {} : { httpConnections: request.httpConnections }),
      user: this.user,
      log,
      meter,
    });
    run.session = session;
    run.opened = opened;
    if (!request.useCheckpoints) return session.run();
    return migrateCheckpoints(opened).then(() => session.run());
  }

  /** Keeps the counters of the run ending now. */
  keepStats(run: JobRun): void {
    const session = run.session;
    if (session === undefined) return;
    this.lastStats = {
      ...session.stats,
      checkpointed_source_seq: session.committedSeq,
      source_seq: session.sourceSeq,
      through_seq: session.throughSeq,
    };
  }

  /** The replication's counters now (CouchDB's `info` of a job). */
  info(): Record<string, unknown> | null {
    const session = this.run?.session;
    if (session !== undefined) return session.info(this.run!.pid);
    const stats = this.lastStats;
    if (stats === undefined) return null;
    return {
      revisions_checked: stats.missing_checked,
      missing_revisions_found: stats.missing_found,
      docs_read: stats.docs_read,
      docs_written: stats.docs_written,
      changes_pending: null,
      doc_write_failures: stats.doc_write_failures,
      checkpointed_source_seq: stats.checkpointed_source_seq,
      source_seq: stats.source_seq,
      through_seq: stats.through_seq,
    };
  }

  /** The last crash's reason, if the latest event is one. */
  lastCrash(): string | undefined {
    const latest = this.history[0];
    return latest?.type === 'crashed' ? latest.reason : undefined;
  }

  /**
   * Consecutive crashes (couch_replicator_scheduler's rule): each crash counts while it came
   * within `healthThresholdSec` of the event before it; a stop after a start ends the streak.
   */
  consecutiveCrashes(healthThresholdSec: number): number {
    let count = 0;
    const events = this.history;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const previous = events[i + 1];
      if (event.type === 'crashed') {
        if (previous === undefined) return count;
        if (event.at - previous.at > healthThresholdSec * 1000) return count;
        count++;
        continue;
      }
      if (event.type === 'stopped' && previous?.type === 'started') return count;
    }
    return count;
  }

  lastStarted(): number {
    return this.history.find((event) => event.type === 'started')?.at ?? 0;
  }

  latestCrashAt(): number {
    return this.history.find((event) => event.type === 'crashed')?.at ?? 0;
  }
}

/** A failure's reason as `_scheduler` and the documents show it. */
export function reasonOf(error: unknown): string {
  if (error instanceof CouchError) return `${error.error}: ${error.reason}`;
  return error instanceof Error ? error.message : String(error);
}

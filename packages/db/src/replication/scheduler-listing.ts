/**
 * What `/_scheduler/jobs`, `/_scheduler/docs` and `_active_tasks` show of the scheduler's jobs
 * and the replication documents, in CouchDB 3.5's shapes. Endpoints are shown as the endpoint
 * objects show them: URLs without credentials, never a password or an Authorization header.
 */
import type { DocEntry } from './replicator-docs.js';
import { isoSeconds } from './replicator-docs.js';
import type { ReplicationJob } from './job.js';
import type { ReplicationScheduler } from './scheduler.js';

/** A `/_scheduler/jobs` entry. */
export function jobListing(job: ReplicationJob, node: string): Record<string, unknown> {
  return {
    database: job.origin?.db ?? null,
    id: job.id,
    pid: job.run?.pid ?? null,
    source: job.source,
    target: job.target,
    user: job.user.name,
    doc_id: job.origin?.docId ?? null,
    info: job.info(),
    history: job.history.map((event) => ({
      timestamp: isoSeconds(new Date(event.at)),
      type: event.type,
      ...(event.reason === undefined ? {} : { reason: event.reason }),
    })),
    node,
    start_time: isoSeconds(new Date(job.startTime)),
  };
}

/** A `/_scheduler/docs` entry. */
export function docListing(entry: DocEntry, scheduler: ReplicationScheduler, node: string): Record<string, unknown> {
  const job = entry.job;
  const state = entry.state === 'job' && job !== undefined ? scheduler.stateOf(job) : entry.state;
  let info: Record<string, unknown> | null = null;
  let errorCount = 0;
  let lastUpdated = entry.lastUpdated;
  if (job !== undefined && entry.state === 'job') {
    lastUpdated = Math.max(lastUpdated, job.history[0]?.at ?? 0);
    if (state === 'crashing') {
      errorCount = job.consecutiveCrashes(scheduler.settings.healthThresholdSec);
      info = { error: job.lastCrash() ?? null };
    } else {
      info = job.info();
    }
  } else if (state === 'error' || state === 'failed') {
    errorCount = state === 'error' ? entry.errorCount : 1;
    info = { error: entry.reason ?? null };
  } else if (state === 'completed') {
    info = entry.stats ?? null;
  }
  return {
    database: entry.db,
    doc_id: entry.docId,
    id: state === 'completed' || state === 'failed' ? null : (job?.id ?? null),
    node,
    source: entry.source,
    target: entry.target,
    state,
    info,
    error_count: errorCount,
    last_updated: isoSeconds(new Date(lastUpdated)),
    start_time: isoSeconds(new Date(entry.startTime)),
    source_proxy: null,
    target_proxy: null,
  };
}

/** `_active_tasks` entries of the running jobs (CouchDB's replication task fields). */
export function jobTasks(scheduler: ReplicationScheduler): Record<string, unknown>[] {
  return scheduler.all().flatMap((job) => {
    const run = job.run;
    if (run?.session === undefined) return [];
    return [{ ...run.session.task(run.pid), database: job.origin?.db ?? null, doc_id: job.origin?.docId ?? null }];
  });
}

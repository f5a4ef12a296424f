/**
 * The scheduler's settings, with CouchDB's names and defaults (`[replicator]` section,
 * couch_replicator_scheduler): `max_jobs` (jobs running at once), `interval` (ms between
 * reschedules), `max_churn` (jobs stopped and started per reschedule when more wait than run),
 * `max_history` (events kept per job), `health_threshold` (seconds a job must run to count as
 * healthy again). Two of Divan's own: `crash_backoff` (the base of the backoff, CouchDB's fixed
 * 30 s) and `stall_timeout` (ms without progress after which a running job is taken for a zombie
 * and restarted). Read from the start options, then the config API's stored `[replicator]` section;
 * a value that is not a positive integer is a 400, changing nothing.
 */
import { CouchError } from '../errors.js';

export interface SchedulerSettings {
  maxJobs: number;
  intervalMs: number;
  maxChurn: number;
  maxHistory: number;
  healthThresholdSec: number;
  crashBackoffMs: number;
  stallTimeoutMs: number;
}

export const SCHEDULER_DEFAULTS: SchedulerSettings = {
  maxJobs: 500,
  intervalMs: 60_000,
  maxChurn: 20,
  maxHistory: 20,
  healthThresholdSec: 120,
  crashBackoffMs: 30_000,
  // Two of the longest waits a healthy job makes (a 10 s longpoll, a 30 s request), and some.
  stallTimeoutMs: 90_000,
};

/** CouchDB's exponent cap: the backoff stops doubling after 2^10 times the base. */
export const MAX_BACKOFF_EXPONENT = 10;

const KEYS: Record<string, keyof SchedulerSettings> = {
  max_jobs: 'maxJobs',
  interval: 'intervalMs',
  max_churn: 'maxChurn',
  max_history: 'maxHistory',
  health_threshold: 'healthThresholdSec',
  crash_backoff: 'crashBackoffMs',
  stall_timeout: 'stallTimeoutMs',
};

/** `base` with the `[replicator]` section's values over it. */
export function schedulerSettings(
  base: SchedulerSettings,
  section: Readonly<Record<string, string>> | undefined,
): SchedulerSettings {
  const settings = { ...base };
  for (const [name, key] of Object.entries(KEYS)) {
    const text = section?.[name];
    if (text === undefined) continue;
    const value = Number(text);
    // `max_jobs` may be 0 (nothing runs), as in CouchDB.
    const least = name === 'max_jobs' ? 0 : 1;
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < least) {
      throw new CouchError('bad_request', `[replicator] ${name} must be an integer of at least ${least}.`);
    }
    settings[key] = value;
  }
  return settings;
}

/** CouchDB's backoff after `crashes` consecutive crashes: base × 2^min(crashes − 1, 10). */
export function backoffMs(crashes: number, baseMs: number): number {
  if (crashes <= 0) return 0;
  return 2 ** Math.min(crashes - 1, MAX_BACKOFF_EXPONENT) * baseMs;
}

/**
 * What the replicator did, for the node's `couch_replicator.*` statistics under CouchDB's names
 * (its couch_replicator stats_descriptions): the scheduler's job events, the sessions'
 * checkpoints and failed changes reads, the HTTP requests of remote endpoints and their answers,
 * the documents' processor's databases and changes. The replicator only reports; the server
 * above it counts (server/stats.ts). CouchDB's counters of things this replicator does not have
 * (worker processes, a connection pool, streamed responses) are not reported.
 */

export type ReplicatorCounter =
  | 'requests'
  | 'responses.success'
  | 'responses.failure'
  | 'checkpoints.success'
  | 'checkpoints.failure'
  | 'changes_read_failures'
  | 'failed_starts'
  | 'db_scans'
  | 'docs.dbs_created'
  | 'docs.dbs_deleted'
  | 'docs.dbs_found'
  | 'docs.db_changes'
  | 'docs.failed_state_updates'
  | 'docs.completed_state_updates'
  | 'jobs.adds'
  | 'jobs.duplicate_adds'
  | 'jobs.removes'
  | 'jobs.starts'
  | 'jobs.stops'
  | 'jobs.crashes';

/** Called once per event; absent where nobody counts (a replicator used on its own). */
export type ReplicatorMeter = (counter: ReplicatorCounter) => void;

/**
 * Replication documents (`_replicator` databases) are not run by Divan yet: `POST /_replicate`
 * replicates (src/replication/), but a document in a replicator database would say a job was
 * scheduled that never runs. Every place a user meets that answers with this one reason, as a
 * 403 `forbidden`: a refusal of a well-formed request (as CouchDB's replicator database refuses a
 * document it will not run), never a 5xx, which would tell clients and monitoring that the
 * server failed. Fauxton shows the reason when its "new replication" form is submitted (it
 * writes to `_replicator`); its replication pages show it on opening from http/fauxton-notice.ts.
 */
import { CouchError } from '../errors.js';

export const REPLICATION_UNAVAILABLE =
  'Replication documents are not run by Divan yet; start a replication with POST /_replicate, or replicate with a client such as PouchDB.';

export function replicationUnavailable(): CouchError {
  return new CouchError('forbidden', REPLICATION_UNAVAILABLE);
}

/** `_replicator` and any database whose last path segment is `_replicator`, as in CouchDB. */
export function isReplicatorDb(name: string): boolean {
  return name === '_replicator' || name.endsWith('/_replicator');
}

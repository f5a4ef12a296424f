/**
 * Server-side replication is not in Divan yet. Every place a user meets it answers with this
 * one reason, as a 403 `forbidden`: a refusal of a well-formed request (as CouchDB's replicator
 * database refuses a document it will not run), never a 5xx, which would tell clients and
 * monitoring that the server failed. Fauxton shows the reason when its "new replication" form is
 * submitted (it writes to `_replicator`); its replication pages show it on opening from
 * http/fauxton-notice.ts. Replication run by a client (PouchDB) against Divan is unaffected: it
 * reads and writes ordinary databases.
 */
import { CouchError } from '../errors.js';

export const REPLICATION_UNAVAILABLE =
  'Server-side replication is not available in Divan; replicate with a client such as PouchDB.';

export function replicationUnavailable(): CouchError {
  return new CouchError('forbidden', REPLICATION_UNAVAILABLE);
}

/** `_replicator` and any database whose last path segment is `_replicator`, as in CouchDB. */
export function isReplicatorDb(name: string): boolean {
  return name === '_replicator' || name.endsWith('/_replicator');
}

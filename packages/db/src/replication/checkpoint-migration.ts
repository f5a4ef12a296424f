/**
 * Checkpoints written under the id Divan gave a replication before it computed CouchDB's
 * (./replication-id-legacy.ts) are carried over, as CouchDB's couch_replicator_scheduler_job
 * (find_and_migrate_logs) does with its older id versions: on each side where no checkpoint is
 * under the current name, one found under the old name is written under the current one, so the
 * job resumes where it stood. The old document stays (CouchDB leaves it too).
 */
import { checkpointId } from './checkpoint.js';
import type { Endpoint } from './endpoint.js';
import type { ReplicationId } from './replication-id.js';

export async function migrateCheckpoints(opened: { source: Endpoint; target: Endpoint; id: ReplicationId }) {
  const current = checkpointId(opened.id.base);
  const old = checkpointId(opened.id.legacy);
  await Promise.all(
    [opened.source, opened.target].map(async (endpoint) => {
      if ((await endpoint.getLocal(current)) !== undefined) return;
      const previous = await endpoint.getLocal(old);
      if (previous === undefined) return;
      const { _id, _rev, ...body } = previous;
      await endpoint.putLocal(current, body);
    }),
  );
}

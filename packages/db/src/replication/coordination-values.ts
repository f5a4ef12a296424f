/**
 * Where the replicator's nodes coordinate: the leases, heartbeats and publications of
 * ./replicator-lease.ts and ./job-leases.ts. On a storage several nodes share (PostgreSQL) these
 * are its server values; on one this process holds alone (SQLite), they stay in memory, since no
 * other node reads them and none outlives the process — which spares the disk a durable write
 * every round of an idle server.
 */
import type { Storage } from '../storage/contract.js';

export type CoordinationValues = Pick<
  Storage,
  'getServerValue' | 'setServerValue' | 'addServerValue' | 'deleteServerValue' | 'serverValueKeys'
>;

/** The server value keys the coordination writes (`replicator_replicate_jobs` is not one: it is kept). */
const COORDINATION_PREFIXES = ['replicator_lease', 'replicator_nodes', 'replicator_node_', 'replicator_job_lease-'];

/** The storage is asked at each call: a server's field is set before its storage is. */
export function coordinationValues(storage: () => Storage): CoordinationValues {
  const memory = memoryValues();
  const of = () => {
    const it = storage();
    return it.sharedByNodes ? it : memory;
  };
  return {
    getServerValue: (key) => of().getServerValue(key),
    setServerValue: (key, value) => of().setServerValue(key, value),
    addServerValue: (key, value) => of().addServerValue(key, value),
    deleteServerValue: (key) => of().deleteServerValue(key),
    serverValueKeys: (prefix) => of().serverValueKeys(prefix),
  };
}

/**
 * Deletes the coordination keys an earlier version stored on a storage this process holds alone
 * (every such key is a dead process's: none is read any more).
 */
export async function deleteStoredCoordination(storage: Storage): Promise<void> {
  for (const prefix of COORDINATION_PREFIXES) {
    for (const key of await storage.serverValueKeys(prefix)) await storage.deleteServerValue(key);
  }
}

function memoryValues(): CoordinationValues {
  const values = new Map<string, string>();
  return {
    getServerValue: async (key) => values.get(key),
    setServerValue: async (key, value) => {
      values.set(key, value);
    },
    addServerValue: async (key, value) => {
      const stored = values.get(key);
      if (stored !== undefined) return stored;
      values.set(key, value);
      return value;
    },
    deleteServerValue: async (key) => {
      values.delete(key);
    },
    serverValueKeys: async (prefix) => [...values.keys()].filter((key) => key.startsWith(prefix)).sort(),
  };
}

/**
 * The server's uuid (CouchDB's `[couchdb] uuid`): `GET /` shows it, and every replication id is
 * made with it. It is kept as a storage server value, so it stays the same across restarts (a
 * PouchDB replication finds its checkpoints after one: PouchDB names them by this uuid) and on
 * every node of a shared storage.
 */
import { randomBytes } from 'node:crypto';
import type { Storage } from '../storage/contract.js';

export const SERVER_UUID_KEY = 'uuid';
/** Where the replicator kept its uuid before the server had one: adopted, so replication ids and checkpoints stay. */
const REPLICATOR_UUID_KEY = 'replicator_uuid';

type Place = Pick<Storage, 'getServerValue' | 'addServerValue'>;

/** The stored uuid, or one stored now (of two nodes starting at once, both keep the one stored first). */
export async function loadServerUuid(place: Place): Promise<string> {
  const stored = (await place.getServerValue(SERVER_UUID_KEY))?.trim();
  if (stored !== undefined && stored !== '') return stored;
  const earlier = (await place.getServerValue(REPLICATOR_UUID_KEY))?.trim();
  const uuid = earlier !== undefined && earlier !== '' ? earlier : randomBytes(16).toString('hex');
  return (await place.addServerValue(SERVER_UUID_KEY, uuid)).trim();
}

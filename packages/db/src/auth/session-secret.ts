/**
 * The secret that signs session cookies (CouchDB's `[chttpd_auth] secret`), kept once as a
 * storage server value so every node on a shared storage accepts every node's cookies.
 */
import { randomBytes } from 'node:crypto';
import type { AdminsPlace } from './admins.js';

export const SECRET_KEY = 'session-secret';

/** The stored secret, or a new random one stored now. */
export async function loadSessionSecret(place: AdminsPlace): Promise<string> {
  const stored = (await place.getServerValue(SECRET_KEY))?.trim();
  if (stored !== undefined && stored !== '') return stored;
  const secret = randomBytes(16).toString('hex');
  if (stored === '') {
    await place.setServerValue(SECRET_KEY, secret);
    return secret;
  }
  // Of two nodes starting at once on one storage, both keep the value stored first.
  return (await place.addServerValue(SECRET_KEY, secret)).trim();
}

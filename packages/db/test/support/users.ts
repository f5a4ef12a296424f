/** Helpers for the auth suites: `_users` accounts, logins and hand-made session cookies. */
import { encodeCookie } from '../../src/auth/cookie.js';
import type { TestServer } from './server.js';

export const basic = (name: string, password: string): string =>
  `Basic ${Buffer.from(`${name}:${password}`, 'utf8').toString('base64')}`;

/** Creates (or replaces) a `_users` account as the server admin. */
export async function createUser(t: TestServer, name: string, password: string, roles: string[] = []): Promise<void> {
  const id = `org.couchdb.user:${name}`;
  const old = await t.request('GET', `/_users/${encodeURIComponent(id)}`);
  const body = { _id: id, name, password, roles, type: 'user', ...(old.status === 200 ? { _rev: old.json._rev } : {}) };
  const r = await t.request('PUT', `/_users/${encodeURIComponent(id)}`, { body });
  if (r.status !== 201) throw new Error(`creating ${name}: ${r.status} ${r.text}`);
}

/** Logs in through `POST /_session`; the `AuthSession` value. */
export async function login(t: TestServer, name: string, password: string): Promise<string> {
  const r = await t.request('POST', '/_session', { auth: false, body: { name, password } });
  if (r.status !== 200) throw new Error(`login ${name}: ${r.status} ${r.text}`);
  return cookieValue(r.headers.get('set-cookie'));
}

export function cookieValue(header: string | null): string {
  const match = /^AuthSession=([^;]*)/.exec(header ?? '');
  if (match === null) throw new Error(`no AuthSession cookie in ${header}`);
  return match[1]!;
}

/** A cookie made as the server makes them, for any issue time (the secret is read from storage). */
export async function forgeCookie(t: TestServer, name: string, ageSec: number, salt?: string): Promise<string> {
  const secret = (await t.server.couch.storage.getServerValue('session-secret'))!.trim();
  let userSalt = salt;
  if (userSalt === undefined) {
    const doc = await t.request('GET', `/_users/${encodeURIComponent(`org.couchdb.user:${name}`)}`);
    userSalt = doc.json.salt as string;
  }
  return encodeCookie(name, Math.floor(Date.now() / 1000) - ageSec, secret, userSalt);
}

export const withCookie = (value: string) => ({ auth: false as const, headers: { cookie: `AuthSession=${value}` } });

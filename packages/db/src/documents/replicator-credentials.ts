/**
 * Credentials in replication documents are stored encrypted (beyond CouchDB, which keeps them in
 * plain text): AES-256-GCM with a server key held by the storage layer (a server value, so every
 * node on the same storage decrypts what any node encrypted). The write rules encrypt each secret
 * in place as the document is written — the password of a URL's user info, `auth.basic.password`,
 * and the `Authorization` and `Cookie` headers — so no reader of the document (its owner, an admin,
 * `_changes`, `_all_docs`, a replication of the `_replicator` database) ever sees them in plain
 * text; the replicator decrypts them when it runs the job. A value already encrypted (a document
 * read back and written again) is kept as it is; a value encrypted under another key cannot be
 * decrypted and fails the job, not the write.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { JsonObject, type JsonValue } from '../json/index.js';

/** The prefix of an encrypted value: base64url of iv (12) | tag (16) | ciphertext follows. */
export const ENCRYPTED_PREFIX = 'divan-encrypted-v1-';

/** The server value holding the key (hex, 32 bytes). */
export const CREDENTIALS_KEY = 'replicator_credentials_key';

const SECRET_HEADERS = new Set(['authorization', 'cookie']);

export function newCredentialsKey(): string {
  return randomBytes(32).toString('hex');
}

export function encryptSecret(plain: string, key: Buffer): string {
  if (plain.startsWith(ENCRYPTED_PREFIX)) return plain;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ENCRYPTED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
}

export function decryptSecret(value: string, key: Buffer): string {
  if (!value.startsWith(ENCRYPTED_PREFIX)) return value;
  const raw = Buffer.from(value.slice(ENCRYPTED_PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('A credential of this replication document was encrypted with another key; write it again.');
  }
}

/** The document's body with every secret of `source` and `target` encrypted (a new object when any was). */
export function encryptCredentials(body: JsonObject, key: Buffer): JsonObject {
  return mapEndpoints(body, (secret) => encryptSecret(secret, key));
}

/** A document (plain JSON) with its secrets decrypted, for the replicator only. */
export function decryptCredentials(doc: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  const out = { ...doc };
  for (const field of ['source', 'target'] as const)
    out[field] = mapPlainEndpoint(doc[field], (s) => decryptSecret(s, key));
  return out;
}

function mapEndpoints(body: JsonObject, change: (secret: string) => string): JsonObject {
  let copy: JsonObject | undefined;
  for (const field of ['source', 'target']) {
    const value = body.get(field);
    const mapped = mapJsonEndpoint(value, change);
    if (mapped === value) continue;
    copy ??= new JsonObject([...body.keys], [...body.values]);
    copy.set(field, mapped as JsonValue);
  }
  return copy ?? body;
}

function mapJsonEndpoint(value: JsonValue | undefined, change: (secret: string) => string): JsonValue | undefined {
  if (typeof value === 'string') return mapUrl(value, change);
  if (!(value instanceof JsonObject)) return value;
  const out = new JsonObject([...value.keys], [...value.values]);
  const url = value.get('url');
  if (typeof url === 'string') out.set('url', mapUrl(url, change));
  const headers = value.get('headers');
  if (headers instanceof JsonObject) {
    const mapped = new JsonObject([...headers.keys], [...headers.values]);
    for (const [name, header] of headers) {
      if (typeof header === 'string' && SECRET_HEADERS.has(name.toLowerCase())) mapped.set(name, change(header));
    }
    out.set('headers', mapped);
  }
  const auth = value.get('auth');
  const basic = auth instanceof JsonObject ? auth.get('basic') : undefined;
  if (auth instanceof JsonObject && basic instanceof JsonObject) {
    const password = basic.get('password');
    if (typeof password === 'string') {
      const newBasic = new JsonObject([...basic.keys], [...basic.values]).set('password', change(password));
      out.set('auth', new JsonObject([...auth.keys], [...auth.values]).set('basic', newBasic));
    }
  }
  return out;
}

function mapPlainEndpoint(value: unknown, change: (secret: string) => string): unknown {
  if (typeof value === 'string') return mapUrl(value, change);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const spec = { ...(value as Record<string, unknown>) };
  if (typeof spec.url === 'string') spec.url = mapUrl(spec.url, change);
  if (spec.headers !== null && typeof spec.headers === 'object' && !Array.isArray(spec.headers)) {
    const headers: Record<string, unknown> = { ...(spec.headers as Record<string, unknown>) };
    for (const [name, header] of Object.entries(headers)) {
      if (typeof header === 'string' && SECRET_HEADERS.has(name.toLowerCase())) headers[name] = change(header);
    }
    spec.headers = headers;
  }
  const auth = spec.auth as Record<string, unknown> | undefined;
  const basic = auth?.basic as Record<string, unknown> | undefined;
  if (basic !== undefined && basic !== null && typeof basic.password === 'string') {
    spec.auth = { ...auth, basic: { ...basic, password: change(basic.password) } };
  }
  return spec;
}

/** The URL with the password of its user info changed (as text: the URL is otherwise kept as written). */
function mapUrl(text: string, change: (secret: string) => string): string {
  const match = /^(https?:\/\/)([^/?#@]*)@/i.exec(text);
  if (match === null) return text;
  const userinfo = match[2]!;
  const colon = userinfo.indexOf(':');
  if (colon < 0) return text;
  const password = decodeURIComponent(userinfo.slice(colon + 1));
  const changed = encodeURIComponent(change(password));
  return `${match[1]}${userinfo.slice(0, colon)}:${changed}@${text.slice(match[0].length)}`;
}

/**
 * HTTP Basic credentials, parsed the way CouchDB's `basic_name_pw` does: only the exact prefix
 * `Basic ` counts (other schemes such as Bearer or Digest mean "no credentials"), undecodable
 * base64 is a 400, and a decoded value without `:` — or the logout pair `_:_` — is anonymous.
 */
import { CouchError } from '../errors.js';

export interface BasicCredentials {
  name: string;
  password: string;
}

// Standard alphabet; padding optional, as Erlang's base64:decode tolerates it missing.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export function parseAuthorization(header: string | undefined): BasicCredentials | null {
  if (header === undefined || !header.startsWith('Basic ')) return null;
  const encoded = header.slice('Basic '.length).trim();
  if (!BASE64.test(encoded)) {
    throw new CouchError('bad_request', 'Authorization header has invalid base64 value');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const name = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1); // the password may itself contain ':'
  if (name === '_' && password === '_') return null;
  return { name, password };
}

/**
 * Proxy authentication (CouchDB's `proxy_authentication_handler`): a proxy in front of the server
 * has authenticated the user and names them in headers, `X-Auth-CouchDB-UserName` and
 * `X-Auth-CouchDB-Roles` (comma-separated). With `[chttpd_auth] proxy_use_secret = true` and a
 * `[chttpd_auth] secret`, `X-Auth-CouchDB-Token` must be the hex HMAC of the name under that
 * secret (SHA-256, or SHA-1: CouchDB's `hash_algorithms`); a request without a valid token is not
 * authenticated by this handler. On only when `[chttpd] authentication_handlers` lists it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UserCtx } from './authenticate.js';

export interface ProxyAuthOptions {
  /** Header names, lower case (CouchDB's `x_auth_username`, `x_auth_roles`, `x_auth_token`). */
  userHeader: string;
  rolesHeader: string;
  tokenHeader: string;
  /** Set when tokens are required (`proxy_use_secret` with a `secret`). */
  secret?: string;
}

export const PROXY_DEFAULTS: ProxyAuthOptions = {
  userHeader: 'x-auth-couchdb-username',
  rolesHeader: 'x-auth-couchdb-roles',
  tokenHeader: 'x-auth-couchdb-token',
};

type Headers = Record<string, string | string[] | undefined>;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The user a proxy names, or undefined when it names none (or its token does not verify). */
export function proxyUser(options: ProxyAuthOptions, headers: Headers): UserCtx | undefined {
  const name = single(headers[options.userHeader]);
  if (name === undefined) return undefined;
  const rolesText = single(headers[options.rolesHeader]);
  const roles = rolesText === undefined ? [] : rolesText.split(/\s*,\s*/).filter((role) => role !== '');
  if (options.secret !== undefined) {
    const token = Buffer.from(single(headers[options.tokenHeader]) ?? '');
    const verifies = ['sha256', 'sha1'].some((algorithm) => {
      const expected = Buffer.from(createHmac(algorithm, options.secret!).update(name).digest('hex'));
      return expected.length === token.length && timingSafeEqual(expected, token);
    });
    if (!verifies) return undefined;
  }
  return { name, roles };
}

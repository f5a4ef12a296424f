/**
 * CouchDB's `AuthSession` cookie value: base64url (no padding) of `name:HEXTIME:mac`, where the
 * mac is the raw HMAC over `name:HEXTIME` keyed by the server secret followed by the user's salt.
 * Keying with the salt is what makes a password change (new salt) void every earlier cookie.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CouchError } from '../errors.js';

export const COOKIE_NAME = 'AuthSession';
/** The HMAC digests accepted when verifying (CouchDB's `hash_algorithms` default); the first signs. */
const ALGORITHMS = ['sha256', 'sha1'] as const;

export interface ParsedCookie {
  name: string;
  /** Issue time, Unix seconds. NaN when the time part is not hex (such a cookie never verifies). */
  time: number;
  /** The time as sent: the mac covers this text. */
  timeHex: string;
  mac: Buffer;
}

export function encodeCookie(name: string, timeSec: number, secret: string, salt: string): string {
  const payload = `${name}:${timeSec.toString(16).toUpperCase()}`;
  const mac = createHmac(ALGORITHMS[0], secret + salt)
    .update(payload)
    .digest();
  return Buffer.concat([Buffer.from(`${payload}:`, 'utf8'), mac]).toString('base64url');
}

/**
 * Splits a cookie value. Empty → null (no cookie); a value that is not base64url or has fewer
 * than three `:`-separated parts → 400, as CouchDB answers even when Basic credentials come along.
 */
export function decodeCookie(value: string): ParsedCookie | null {
  if (value === '') return null;
  if (!/^[A-Za-z0-9_-]+=*$/.test(value)) throw malformed();
  const bytes = Buffer.from(value, 'base64url');
  // The mac is raw bytes and may hold ':' itself: only the first two colons separate.
  const first = bytes.indexOf(0x3a);
  const second = first < 0 ? -1 : bytes.indexOf(0x3a, first + 1);
  if (second < 0) throw malformed();
  const name = bytes.subarray(0, first).toString('utf8');
  const hex = bytes.subarray(first + 1, second).toString('latin1');
  const time = /^[0-9a-fA-F]{1,13}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
  return { name, time, timeHex: hex, mac: Buffer.from(bytes.subarray(second + 1)) };
}

/** True when the mac was made with the secret and this salt by one of the accepted digests. */
export function cookieMacMatches(cookie: ParsedCookie, secret: string, salt: string): boolean {
  if (Number.isNaN(cookie.time)) return false;
  const payload = `${cookie.name}:${cookie.timeHex}`;
  return ALGORITHMS.some((algorithm) => {
    const expected = createHmac(algorithm, secret + salt)
      .update(payload)
      .digest();
    return expected.length === cookie.mac.length && timingSafeEqual(expected, cookie.mac);
  });
}

/** The value of the `AuthSession` cookie in a Cookie header (undefined when absent). */
export function authSessionOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === COOKIE_NAME) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Attributes of the session cookie (`[chttpd_auth]` and `[couch_httpd_auth]` settings). */
export interface CookieAttributes {
  /** Over TLS: `Secure`. */
  secure: boolean;
  /** `cookie_domain`. */
  domain?: string;
  /** `same_site`: `None`, `Lax` or `Strict`. */
  sameSite?: string;
  /** `allow_persistent_cookies` (default true): without it, no `Expires`/`Max-Age` (a browser-session cookie). */
  persistent?: boolean;
}

/**
 * `Set-Cookie` for a session (an empty value clears it), attributes in mochiweb's order:
 * `Version`, `Expires`, `Max-Age`, `Secure`, `Domain`, `Path`, `HttpOnly`, `SameSite`.
 */
export function sessionCookieHeader(
  value: string,
  nowMs: number,
  timeoutSec: number,
  attributes: CookieAttributes,
): string {
  let header = `${COOKIE_NAME}=${value}; Version=1`;
  if (attributes.persistent !== false) {
    header += `; Expires=${formatExpires(new Date(nowMs + timeoutSec * 1000))}; Max-Age=${timeoutSec}`;
  }
  if (attributes.secure) header += '; Secure';
  if (attributes.domain !== undefined) header += `; Domain=${attributes.domain}`;
  header += '; Path=/; HttpOnly';
  if (attributes.sameSite !== undefined) header += `; SameSite=${attributes.sameSite}`;
  return header;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Wed, 25-Nov-2026 19:49:24 GMT`: the dashed form CouchDB's mochiweb writes. */
function formatExpires(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())}-${MONTHS[date.getUTCMonth()]}-${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} GMT`
  );
}

function malformed(): CouchError {
  return new CouchError('bad_request', 'Malformed AuthSession cookie. Please clear your cookies.');
}

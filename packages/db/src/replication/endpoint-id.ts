/**
 * What CouchDB 3.5's replication id (version 4, couch_replicator_ids) takes of a remote endpoint,
 * worked out from the request exactly as given, before Divan sets its credentials apart:
 * `{remote, User, Host, NonDefaultPort, Path, Headers, undefined}`.
 *
 * CouchDB's steps, in order (couch_replicator_docs:parse_rep_db, couch_replicator_utils:
 * normalize_basic_auth, couch_replicator_ids:get_v4_endpoint):
 * - the URL gets a trailing `/` unless it has one or a `?`;
 * - the headers are sorted by name (bytes, case kept), merged over the replicator's defaults
 *   (`Accept: application/json`, `User-Agent: CouchDB-Replicator/3.5.0`), then an `Authorization`
 *   header whose scheme is `basic` is taken out (any `Authorization` header present reorders the
 *   list by lower-cased name, as mochiweb_headers keeps it), and the defaults left unchanged
 *   are dropped;
 * - the user is `auth.basic.username`, else the URL's user info, else the `Authorization: Basic`
 *   header's, as bytes; a password is never part of it;
 * - host, port and path come from the URL without its user info, parsed as ibrowse_lib:parse_url
 *   does (no lower-casing, no percent-decoding; the path keeps a query); port 80 (http), 5984
 *   (http) and 443 (https) are `default`.
 * Everything is handled as bytes (the URL's UTF-8), as Erlang's lists of bytes are.
 */

export interface RemoteIdInfo {
  /** The user name's bytes, or undefined (`undefined`). */
  user: Buffer | undefined;
  /** The whole URL when ibrowse could not parse it (CouchDB then hashes it as the host). */
  host: Buffer;
  port: number | 'default' | undefined;
  path: Buffer | undefined;
  headers: Array<[Buffer, Buffer]>;
}

/** The CouchDB release whose replicator's default `User-Agent` the ids drop. */
const COUCHDB_VERSION = '3.5.0';

export function remoteIdInfo(
  rawUrl: string,
  rawHeaders: Readonly<Record<string, string>>,
  authUser: string | undefined,
): RemoteIdInfo {
  let url = bytesOf(rawUrl);
  if (!url.includes('?') && !url.endsWith('/')) url += '/';
  const headers = withoutBasicAuth(mergeDefaults(rawHeaders));
  // The URL's user info is cut out by its length as ibrowse parsed it (user, `:`, password, `@`).
  const parsed = parseUrl(url);
  let urlUser: string | undefined;
  if (parsed !== undefined && parsed.username !== undefined && parsed.password !== undefined) {
    urlUser = parsed.username;
    const prefix = `${parsed.protocol}://${parsed.username}:${parsed.password}@`;
    url = `${parsed.protocol}://${url.slice(prefix.length)}`;
  }
  const user =
    authUser !== undefined ? Buffer.from(authUser, 'utf8') : urlUser !== undefined ? latin(urlUser) : headers.user;
  const where = parseUrl(url);
  const list = headers.list.map(([name, value]): [Buffer, Buffer] => [latin(name), latin(value)]);
  if (where === undefined) return { user, host: latin(url), port: undefined, path: undefined, headers: list };
  const port =
    (where.protocol === 'http' && (where.port === 80 || where.port === 5984)) ||
    (where.protocol === 'https' && where.port === 443)
      ? 'default'
      : where.port;
  return { user, host: latin(where.host), port, path: latin(where.path), headers: list };
}

/** A string's UTF-8 bytes as a string of one char per byte (Erlang's list of bytes). */
function bytesOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

function latin(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

type Header = [string, string];

/** lists:ukeysort of the given headers, then lists:ukeymerge over the defaults (the given win). */
function mergeDefaults(rawHeaders: Readonly<Record<string, string>>): Header[] {
  const given = Object.entries(rawHeaders).map(([name, value]): Header => [bytesOf(name), bytesOf(value)]);
  const sorted: Header[] = [];
  for (const header of given.sort(([a], [b]) => compare(a, b))) {
    if (sorted.at(-1)?.[0] !== header[0]) sorted.push(header);
  }
  const merged: Header[] = [];
  const defaults = defaultHeaders();
  let i = 0;
  let j = 0;
  while (i < sorted.length || j < defaults.length) {
    const a = sorted[i];
    const b = defaults[j];
    if (b === undefined || (a !== undefined && compare(a[0], b[0]) <= 0)) {
      merged.push(a!);
      if (b !== undefined && a![0] === b[0]) j++;
      i++;
    } else {
      merged.push(b);
      j++;
    }
  }
  return merged;
}

function defaultHeaders(): Header[] {
  return [
    ['Accept', 'application/json'],
    ['User-Agent', `CouchDB-Replicator/${COUCHDB_VERSION}`],
  ];
}

/**
 * couch_replicator_utils:remove_basic_auth_from_headers, then `-- DefaultHeaders`: the user of
 * an `Authorization: Basic` header and the list without it.
 */
function withoutBasicAuth(headers: Header[]): { user: Buffer | undefined; list: Header[] } {
  let user: Buffer | undefined;
  let list = headers;
  if (headers.some(([name]) => name.toLowerCase() === 'authorization')) {
    // mochiweb_headers: one entry per lower-cased name (repeated names' values joined by ", "),
    // listed in that name's order, each under the name it was first given.
    const byName = new Map<string, Header>();
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      const there = byName.get(key);
      byName.set(key, there === undefined ? [name, value] : [there[0], `${there[1]}, ${value}`]);
    }
    const auth = byName.get('authorization')![1];
    const space = auth.indexOf(' ');
    const scheme = space < 0 ? auth : auth.slice(0, space);
    if (scheme.toLowerCase() === 'basic' && space >= 0) {
      byName.delete('authorization');
      user = basicUser(auth.slice(space + 1));
    }
    list = [...byName.entries()].sort(([a], [b]) => compare(a, b)).map(([, header]) => header);
  }
  const defaults = defaultHeaders();
  list = list.filter(([name, value]) => {
    const at = defaults.findIndex(([n, v]) => n === name && v === value);
    if (at < 0) return true;
    defaults.splice(at, 1);
    return false;
  });
  return { user, list };
}

/** The user of a Basic credential (`user:password` in base64), as bytes. */
function basicUser(base64: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(base64, 'base64');
  const colon = decoded.indexOf(0x3a);
  return colon < 0 ? undefined : decoded.subarray(0, colon);
}

/** Byte order of two byte strings (Erlang's order of lists of bytes). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface ParsedUrl {
  protocol: 'http' | 'https';
  username: string | undefined;
  password: string | undefined;
  host: string;
  port: number;
  path: string;
}

/**
 * ibrowse_lib:parse_url over a byte string: `protocol://[user[:password]@]host[:port][/path]`,
 * the user info told from `host:port` by the `@` that follows; an IPv6 host in brackets is
 * given without them. Undefined where ibrowse answers an error.
 */
export function parseUrl(url: string): ParsedUrl | undefined {
  const scheme = /^(https?):\/\//.exec(url);
  if (scheme === null) return undefined;
  const protocol = scheme[1] as 'http' | 'https';
  const defaultPort = protocol === 'http' ? 80 : 443;
  const rest = url.slice(scheme[0].length);
  // The authority ends at the first `/` or `?` (a `?` starts the path as `/?`).
  const end = rest.search(/[/?]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const path = end < 0 ? '/' : rest[end] === '/' ? rest.slice(end) : `/${rest.slice(end)}`;
  let username: string | undefined;
  let password: string | undefined;
  let hostPort = authority;
  const at = authority.indexOf('@');
  if (at >= 0) {
    const info = authority.slice(0, at);
    const colon = info.indexOf(':');
    if (colon < 0) {
      username = info;
      password = '';
    } else {
      username = info.slice(0, colon);
      password = info.slice(colon + 1);
    }
    hostPort = authority.slice(at + 1);
  }
  let host: string;
  let portText: string | undefined;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return undefined;
    host = hostPort.slice(1, close);
    if (!host.includes(':')) return undefined;
    const after = hostPort.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return undefined;
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = hostPort.indexOf(':');
    host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    portText = colon < 0 ? undefined : hostPort.slice(colon + 1);
    if (host === '' && portText === undefined) return undefined;
    // Without user info, `host:` is read as a user and an empty password: list_to_integer("") fails.
    if (at < 0 && portText === '' && end >= 0) return undefined;
  }
  let port = defaultPort;
  if (portText !== undefined && portText !== '') {
    if (!/^[+-]?\d+$/.test(portText)) return undefined;
    port = Number.parseInt(portText, 10);
  }
  return { protocol, username, password, host, port, path };
}

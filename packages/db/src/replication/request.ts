/**
 * A `POST /_replicate` body read into a replication request, with CouchDB's options and a clear
 * 400 for what CouchDB would crash on (a missing endpoint, one that is neither a URL nor a
 * database name, `query_params` that are not strings). Credentials are taken out of URLs and
 * headers here, so nothing after this file sees them next to a URL.
 */
import { isValidDbName } from '../storage/db-names.js';
import { CouchError } from '../errors.js';
import type { ChangesFilter, Seq } from './endpoint.js';
import type { RemoteSpec } from './remote-endpoint.js';
import { remoteIdInfo, type RemoteIdInfo } from './endpoint-id.js';

export type EndpointSpec =
  | { kind: 'local'; name: string }
  /** `id`: what CouchDB's replication id takes of the endpoint as given (./endpoint-id.ts). */
  | { kind: 'remote'; remote: RemoteSpec; id: RemoteIdInfo };

export interface ReplicationRequest {
  source: EndpointSpec;
  target: EndpointSpec;
  continuous: boolean;
  cancel: boolean;
  /** `cancel` by id: the job's `_local_id` (`<hash>+continuous…`). */
  replicationId?: string;
  createTarget: boolean;
  createTargetParams: Record<string, unknown>;
  filter?: ChangesFilter;
  sinceSeq?: Seq;
  useCheckpoints: boolean;
  checkpointIntervalMs: number;
  winningRevsOnly: boolean;
  workerBatchSize: number;
  connectionTimeoutMs: number;
  retriesPerRequest: number;
  /** `http_connections`: how many documents with attachments are written at once, at most. */
  httpConnections?: number;
}

/** CouchDB's defaults (`[replicator]` section). */
export const DEFAULTS = {
  workerBatchSize: 500,
  checkpointIntervalMs: 30_000,
  connectionTimeoutMs: 30_000,
  retriesPerRequest: 5,
} as const;

export function readReplicationRequest(body: unknown): ReplicationRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  const b = body as Record<string, unknown>;
  const cancel = bool(b, 'cancel');
  const replicationId = b.replication_id;
  if (replicationId !== undefined && typeof replicationId !== 'string') {
    throw badRequest('`replication_id` must be a string.');
  }
  if (cancel && replicationId !== undefined) {
    // Cancelling by id needs no endpoints.
    return { ...emptyRequest(), cancel, replicationId };
  }
  for (const key of ['proxy', 'source_proxy', 'target_proxy']) {
    if (b[key] !== undefined && b[key] !== null && b[key] !== '') {
      throw badRequest(`\`${key}\` is not supported by this server: replications connect directly.`);
    }
  }
  const request: ReplicationRequest = {
    source: endpoint(b.source, 'source'),
    target: endpoint(b.target, 'target'),
    continuous: bool(b, 'continuous'),
    cancel,
    createTarget: bool(b, 'create_target'),
    createTargetParams: objectOf(b, 'create_target_params') ?? {},
    useCheckpoints: b.use_checkpoints === undefined ? true : bool(b, 'use_checkpoints'),
    checkpointIntervalMs: positiveInt(b, 'checkpoint_interval') ?? DEFAULTS.checkpointIntervalMs,
    winningRevsOnly: bool(b, 'winning_revs_only'),
    workerBatchSize: positiveInt(b, 'worker_batch_size') ?? DEFAULTS.workerBatchSize,
    connectionTimeoutMs: positiveInt(b, 'connection_timeout') ?? DEFAULTS.connectionTimeoutMs,
    retriesPerRequest: nonNegativeInt(b, 'retries_per_request') ?? DEFAULTS.retriesPerRequest,
  };
  // A job keeps a few requests in flight (the next changes, the next batch's reads beside this
  // batch's writes, documents with attachments written side by side): at most this many of the last.
  const httpConnections = positiveInt(b, 'http_connections');
  if (httpConnections !== undefined) request.httpConnections = httpConnections;
  if (b.since_seq !== undefined) request.sinceSeq = b.since_seq;
  const filter = filterOf(b);
  if (filter !== undefined) request.filter = filter;
  return request;
}

function emptyRequest(): ReplicationRequest {
  const none: EndpointSpec = { kind: 'local', name: '' };
  return {
    source: none,
    target: none,
    continuous: false,
    cancel: false,
    createTarget: false,
    createTargetParams: {},
    useCheckpoints: true,
    checkpointIntervalMs: DEFAULTS.checkpointIntervalMs,
    winningRevsOnly: false,
    workerBatchSize: DEFAULTS.workerBatchSize,
    connectionTimeoutMs: DEFAULTS.connectionTimeoutMs,
    retriesPerRequest: DEFAULTS.retriesPerRequest,
  };
}

/** `doc_ids`, `selector`, `filter` (+ `query_params`): at most one (CouchDB's 400). */
function filterOf(b: Record<string, unknown>): ChangesFilter | undefined {
  const given = ['doc_ids', 'selector', 'filter'].filter((key) => b[key] !== undefined && b[key] !== null);
  if (given.length > 1) throw badRequest('`selector`, `filter` and `doc_ids` fields are mutually exclusive');
  const queryParams = objectOf(b, 'query_params') ?? {};
  for (const [key, value] of Object.entries(queryParams)) {
    if (typeof value !== 'string')
      throw badRequest(`The query parameter \`${key}\` of \`query_params\` must be a string.`);
  }
  if (b.doc_ids !== undefined && b.doc_ids !== null) {
    if (!Array.isArray(b.doc_ids) || !b.doc_ids.every((id) => typeof id === 'string')) {
      throw badRequest('`doc_ids` must be a list of document ids (strings).');
    }
    // Sorted and unique, as CouchDB keeps them (the replication id hashes them).
    return { kind: 'doc_ids', ids: [...new Set(b.doc_ids as string[])].sort() };
  }
  if (b.selector !== undefined && b.selector !== null) {
    const selector = objectOf(b, 'selector')!;
    return { kind: 'selector', selector };
  }
  if (b.filter !== undefined && b.filter !== null) {
    if (typeof b.filter !== 'string' || b.filter === '') throw badRequest('`filter` must be a non-empty string.');
    if (b.filter.startsWith('_')) {
      throw badRequest(
        `The filter ${b.filter} is not a design document filter (\`ddoc/name\`); use doc_ids or selector.`,
      );
    }
    if (!/^[^/]+\/[^/]+$/.test(b.filter)) throw badRequest('`filter` must be of the form `designname/filtername`.');
    return { kind: 'design', name: b.filter, queryParams: queryParams as Record<string, string> };
  }
  return undefined;
}

/** A URL (credentials set apart), `{url, headers, auth}`, or a bare local database name. */
function endpoint(value: unknown, role: 'source' | 'target'): EndpointSpec {
  if (value === undefined || value === null || value === '') throw badRequest(`The \`${role}\` is missing.`);
  if (typeof value === 'string') {
    const given = endpointOfUrl(value, role, {}, undefined);
    return given.kind === 'local' ? given : { ...given, id: remoteIdInfo(value, {}, undefined) };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`The \`${role}\` must be a URL, a database name or an object with a \`url\`.`);
  }
  const spec = value as Record<string, unknown>;
  if (typeof spec.url !== 'string' || spec.url === '') throw badRequest(`The \`${role}\` has no \`url\`.`);
  const headers: Record<string, string> = {};
  let basic: RemoteSpec['basic'];
  if (spec.headers !== undefined) {
    if (spec.headers === null || typeof spec.headers !== 'object' || Array.isArray(spec.headers)) {
      throw badRequest(`The \`headers\` of the \`${role}\` must be an object of strings.`);
    }
    for (const [name, header] of Object.entries(spec.headers)) {
      if (typeof header !== 'string')
        throw badRequest(`The \`headers\` of the \`${role}\` must be an object of strings.`);
      const fromHeader = name.toLowerCase() === 'authorization' ? basicOfHeader(header) : undefined;
      if (fromHeader !== undefined) basic = fromHeader;
      else headers[name] = header;
    }
  }
  if (spec.auth !== undefined && spec.auth !== null) {
    const auth = spec.auth as Record<string, unknown>;
    const given = typeof auth === 'object' ? (auth.basic as Record<string, unknown> | undefined) : undefined;
    if (given === undefined || typeof given.username !== 'string' || typeof given.password !== 'string') {
      throw badRequest(`The \`auth\` of the \`${role}\` must be \`{"basic": {"username", "password"}}\` (strings).`);
    }
    basic = { username: given.username, password: given.password };
  }
  const given = endpointOfUrl(spec.url, role, headers, basic, spec.auth !== undefined && spec.auth !== null);
  if (given.kind === 'local') return given;
  const authUser = spec.auth === undefined || spec.auth === null ? undefined : basic?.username;
  return { ...given, id: remoteIdInfo(spec.url, (spec.headers as Record<string, string> | undefined) ?? {}, authUser) };
}

function endpointOfUrl(
  text: string,
  role: 'source' | 'target',
  headers: Record<string, string>,
  basic: RemoteSpec['basic'],
  fromAuth = false,
): { kind: 'local'; name: string } | { kind: 'remote'; remote: RemoteSpec } {
  if (!/^https?:\/\//i.test(text)) {
    if (isValidDbName(text)) return { kind: 'local', name: text };
    // The value is not echoed: it may hold a password.
    throw badRequest(`The \`${role}\` is neither an http(s) URL nor a valid database name.`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`The \`${role}\` is not a valid URL.`);
  }
  // CouchDB 3's precedence (couch_replicator_utils:normalize_basic_auth): `auth.basic`, then the
  // URL's user info, then an `Authorization: Basic` header. Either way the URL keeps none of them.
  if (url.username !== '' && !fromAuth) {
    basic = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const base = url.toString().replace(/\/+$/, '');
  if (new URL(base).pathname === '' || new URL(base).pathname === '/') {
    throw badRequest(`The \`${role}\` URL names no database.`);
  }
  return { kind: 'remote', remote: { url: base, headers, ...(basic === undefined ? {} : { basic }) } };
}

function basicOfHeader(header: string): RemoteSpec['basic'] {
  const match = /^basic\s+(\S+)$/i.exec(header.trim());
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function bool(b: Record<string, unknown>, key: string): boolean {
  const value = b[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badRequest(`\`${key}\` must be a boolean.`);
  return value;
}

function objectOf(b: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = b[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(`\`${key}\` must be a JSON object.`);
  return value as Record<string, unknown>;
}

function positiveInt(b: Record<string, unknown>, key: string): number | undefined {
  const value = b[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw badRequest(`\`${key}\` must be a positive integer.`);
  }
  return value;
}

function nonNegativeInt(b: Record<string, unknown>, key: string): number | undefined {
  const value = b[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw badRequest(`\`${key}\` must be a non-negative integer.`);
  }
  return value;
}

function badRequest(reason: string): CouchError {
  return new CouchError('bad_request', reason);
}

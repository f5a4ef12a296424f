/**
 * The replication id as CouchDB 3.5 computes it (couch_replicator_ids, version 4), so a job's
 * `_scheduler` id and its checkpoints (`_local/<base>` on both sides) are the ones CouchDB gives
 * the same request on a server of the same uuid: the lower-case hex MD5 of
 * `term_to_binary([UUID, Source, Target | Filter] ++ [winning_revs_only])`, then `+continuous`
 * and `+create_target`.
 * - UUID: the server's uuid, a binary.
 * - A remote endpoint: `{remote, User, Host, NonDefaultPort, Path, Headers, undefined}`
 *   (./endpoint-id.ts), strings as lists of bytes; no password in it, so a changed password keeps
 *   the id.
 * - Filter: a design filter's source code (trimmed as couch_replicator_filters:fetch does) and
 *   `query_params` as given; `doc_ids` sorted and unique; a selector normalized as Mango does
 *   (mango_selector:normalize) with every object's members sorted (couch_replicator_filters:ejsort).
 * - `winning_revs_only` (an atom) only when set.
 * Atoms are ATOM_EXT, as OTP 25 writes them (the CouchDB 3.5.0 these ids follow).
 *
 * Beyond CouchDB, whose 3.x replicator has no local endpoints (a `_replicate` body's bare name
 * becomes a URL of the server itself): a local database is `{local, Name, User}`, User the job's
 * user name when not a server admin (`undefined` otherwise), so two users' checkpoints stay apart.
 */
import { createHash } from 'node:crypto';
import { fromPlain, JsonObject, type JsonValue, TermWriter } from '../json/index.js';
import { normalizeSelectorJson } from '../mango/selector.js';
import { legacyReplicationId } from './replication-id-legacy.js';
import type { EndpointSpec, ReplicationRequest } from './request.js';

export { REPLICATION_ID_VERSION } from './replication-id-version.js';

export interface ReplicationId {
  /** What the checkpoints are named by (`_local/<base>`). */
  base: string;
  /** `+continuous`, `+create_target`, in CouchDB's order. */
  extension: string;
  /** What `_local_id` and `_scheduler` carry. */
  full: string;
  /** The id Divan gave the same replication before (checkpoints `_local/<legacy>`): read when none is under `base`. */
  legacy: string;
}

export function replicationId(
  serverUuid: string,
  request: ReplicationRequest,
  filterSource?: string,
  /** The job's user when not a server admin: a local endpoint is theirs (a remote one names its user). */
  user?: string,
): ReplicationId {
  const base = createHash('md5')
    .update(replicationIdTerm(serverUuid, request, filterSource, user))
    .digest('hex');
  const extension = `${request.continuous ? '+continuous' : ''}${request.createTarget ? '+create_target' : ''}`;
  return {
    base,
    extension,
    full: base + extension,
    legacy: legacyReplicationId(serverUuid, request, filterSource, user),
  };
}

/** The bytes CouchDB hashes: `term_to_binary` of the id's list, version byte first. */
export function replicationIdTerm(
  serverUuid: string,
  request: ReplicationRequest,
  filterSource?: string,
  user?: string,
): Buffer {
  const filter = request.filter;
  const filterParts = filter === undefined ? 0 : filter.kind === 'design' ? 2 : 1;
  const writer = new TermWriter().byte(131);
  writer.list(3 + filterParts + (request.winningRevsOnly ? 1 : 0));
  writer.binary(serverUuid);
  endpoint(writer, request.source, user);
  endpoint(writer, request.target, user);
  if (filter?.kind === 'design') {
    writer.binary(trimmedCode(filterSource ?? filter.name));
    writer.value(fromPlain(filter.queryParams));
  } else if (filter?.kind === 'doc_ids') {
    const ids = [...new Set(filter.ids)].map((id) => Buffer.from(id, 'utf8')).sort(Buffer.compare);
    if (ids.length === 0) writer.nil();
    else {
      writer.list(ids.length);
      for (const id of ids) writer.binary(id);
      writer.nil();
    }
  } else if (filter?.kind === 'selector') {
    writer.value(sortedMembers(normalizeSelectorJson(fromPlain(filter.selector))));
  }
  if (request.winningRevsOnly) writer.atom('winning_revs_only');
  return Buffer.from(writer.nil().finish());
}

function endpoint(writer: TermWriter, spec: EndpointSpec, user: string | undefined): void {
  if (spec.kind === 'local') {
    writer.tuple(3).atom('local').binary(spec.name);
    if (user === undefined) writer.atom('undefined');
    else writer.binary(user);
    return;
  }
  const { id } = spec;
  writer.tuple(7).atom('remote');
  if (id.user === undefined) writer.atom('undefined');
  else writer.string(id.user);
  writer.string(id.host);
  if (id.port === undefined || id.port === 'default') writer.atom(id.port ?? 'undefined');
  else writer.integer(id.port);
  if (id.path === undefined) writer.atom('undefined');
  else writer.string(id.path);
  if (id.headers.length === 0) writer.nil();
  else {
    writer.list(id.headers.length);
    for (const [name, value] of id.headers) writer.tuple(2).string(name).string(value);
    writer.nil();
  }
  // OAuth: always `undefined` since CouchDB 2 (kept so that ids did not change).
  writer.atom('undefined');
}

/**
 * couch_replicator_filters:fetch's `re:replace(Code, "^\s*(.*?)\s*$", "\1")`: without `dotall`,
 * `.` stops at a newline, so only code on one line (spaces and newlines around it aside) is
 * trimmed; code over several lines stays as it is.
 */
export function trimmedCode(code: string): Buffer {
  const bytes = Buffer.from(code, 'utf8');
  const space = (byte: number | undefined) => byte === 0x20 || (byte !== undefined && byte >= 0x09 && byte <= 0x0d);
  let start = 0;
  let end = bytes.length;
  while (start < end && space(bytes[start])) start++;
  while (end > start && space(bytes[end - 1])) end--;
  const middle = bytes.subarray(start, end);
  return middle.includes(0x0a) ? bytes : Buffer.from(middle);
}

/** couch_replicator_filters:ejsort: every object's members ordered by name (bytes), arrays kept in order. */
function sortedMembers(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (!(value instanceof JsonObject)) return value;
  const order = value.keys
    .map((key, i) => ({ key, bytes: Buffer.from(key, 'utf8'), value: sortedMembers(value.values[i]!) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return new JsonObject(
    order.map((member) => member.key),
    order.map((member) => member.value),
  );
}

/**
 * The replication ids Divan made before it computed CouchDB's (./replication-id.ts): the same
 * inputs, hashed over canonical JSON instead of Erlang's term format. Checkpoints written under
 * these ids (`_local/<base><extension>`) are still read, so a job resumes where it stood before
 * the change, as CouchDB reads its own older id versions.
 */
import { createHash } from 'node:crypto';
import type { EndpointSpec, ReplicationRequest } from './request.js';

/** The id, suffixes included: its checkpoints were `_local/<this id>`. */
export function legacyReplicationId(
  serverUuid: string,
  request: ReplicationRequest,
  filterSource?: string,
  /** The job's user when not a server admin: a local endpoint is theirs (a remote one names its user). */
  user?: string,
): string {
  const parts: unknown[] = [serverUuid, endpointInfo(request.source), endpointInfo(request.target)];
  // Two users replicating the same local databases keep their own checkpoints (their `_access`
  // names each one: documents/access-rules.ts), as CouchDB's ids name each endpoint's user.
  const local = request.source.kind === 'local' || request.target.kind === 'local';
  if (user !== undefined && local) parts.push(['user', user]);
  const filter = request.filter;
  if (filter?.kind === 'design') parts.push(filterSource ?? filter.name, sortedObject(filter.queryParams));
  else if (filter?.kind === 'doc_ids') parts.push(filter.ids);
  else if (filter?.kind === 'selector') parts.push(sortedObject(filter.selector));
  // Checkpoints of a winners-only replication are not a full one's.
  if (request.winningRevsOnly) parts.push('winning_revs_only');
  const base = createHash('md5').update(JSON.stringify(parts)).digest('hex');
  const extension = `${request.continuous ? '+continuous' : ''}${request.createTarget ? '+create_target' : ''}`;
  return base + extension;
}

function endpointInfo(spec: EndpointSpec): unknown {
  if (spec.kind === 'local') return ['local', spec.name];
  const url = new URL(spec.remote.url);
  const defaultPort = url.port === '' || url.port === '5984';
  const headers = Object.entries(spec.remote.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [
    'remote',
    spec.remote.basic?.username ?? null,
    url.hostname,
    defaultPort ? 'default' : Number(url.port),
    url.pathname,
    headers,
  ];
}

/** Objects with their members sorted at every level, so member order does not change the id. */
function sortedObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedObject);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedObject((value as Record<string, unknown>)[key]);
  return out;
}

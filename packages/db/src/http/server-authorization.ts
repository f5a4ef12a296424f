/**
 * CouchDB's authorization of server paths (chttpd_auth_request): a path whose first segment
 * starts with `_` (other than the users and replicator databases, which are databases and
 * authorized as such) belongs to server admins, and that is checked before anything else about
 * the request — its verb, whether anything is there. So an anonymous `POST /_db_updates` is a
 * 401, not a 405, and an anonymous `/_nothing` a 401, not a 404. A few paths are open, each
 * leaving the rest to its endpoint: `/_up`, `/_uuids`, `/_session`, `/_replicate`, `/_stats`,
 * `/_active_tasks`, and `/_utils` read with GET or HEAD. `/_node/{node}/_stats`, `_system` and
 * `_prometheus` are also the `_metrics` role's. `/_all_dbs` and `/_dbs_info` are server admins'
 * as CouchDB's default `[chttpd] admin_only_all_dbs = true` has it (the only way this server has them).
 */
import { requireAdmin, requireMetrics, type UserCtx } from '../auth/index.js';

/** Server paths open to anyone when they are the whole path (their endpoints check what they need). */
const OPEN = new Set(['_up', '_uuids', '_session', '_replicate', '_stats', '_active_tasks']);

/** Node paths the `_metrics` role reads, as `/_node/{node}/<name>…`. */
const METRICS = new Set(['_stats', '_system', '_prometheus']);

/** Throws CouchDB's 401 when `user` may not call the server path `rawPath` with any verb. */
export function authorizeServerPath(rawPath: string, method: string, user: UserCtx): void {
  // Most requests name a database: no `_`, nor a `%5F` or an empty segment before one.
  const second = rawPath[1];
  if (second !== '_' && second !== '%' && second !== '/') return;
  const parts = rawPath
    .split('/')
    .filter((part) => part !== '')
    .map(decodedSegment);
  const first = parts[0];
  if (first === undefined || !first.startsWith('_') || first === '_users' || first === '_replicator') return;
  if (parts.length === 1 && OPEN.has(first)) return;
  if (first === '_utils' && (method === 'GET' || method === 'HEAD')) return;
  if (first === '_node' && METRICS.has(parts[2] ?? '')) return requireMetrics(user);
  requireAdmin(user);
}

/** A path segment as CouchDB reads it (percent-decoded; `+` stays a plus), or as sent when it does not decode. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

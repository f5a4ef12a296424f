/**
 * The partition of a `_search` request, checked as dreyfus_httpd checks it: `partition` comes from
 * the query string (where `/{db}/_partition/{p}/...` puts it) or the JSON body; a design document
 * is partitioned when its `options.partitioned` says so, by default when its database is. A
 * partitioned index answers only a query that names a partition, a global one only a query that
 * does not; a partition's query has no facets or groups. A partitioned database's searches take
 * up to 2000 hits (25 by default, 200 at most elsewhere).
 *
 * The index itself stays global (one index of every partition): a partition's query keeps the
 * hits whose id is in the partition, the hits Clouseau's `_partition` clause would keep.
 */
import type { Database } from '../documents/database.js';
import { DESIGN_PREFIX } from '../documents/doc-id.js';
import { CouchError } from '../errors.js';
import { JsonObject } from '../json/index.js';
import type { SearchParams } from './search-request.js';

/** `[dreyfus] limit` / `max_limit`, and their partitioned databases' `limit_partitions` / `max_limit_partitions`. */
export const GLOBAL_LIMITS = { default: 25, max: 200 } as const;
export const PARTITIONED_LIMITS = { default: 2000, max: 2000 } as const;

export interface SearchLimits {
  default: number;
  max: number;
}

export function searchLimits(db: Database): SearchLimits {
  return db.partitioned ? PARTITIONED_LIMITS : GLOBAL_LIMITS;
}

/** The request's `partition`: the query string's or the body's, 400 when they differ. */
export function partitionParam(query: URLSearchParams, body: Record<string, unknown> | undefined): string | undefined {
  const fromQuery = query.get('partition') ?? undefined;
  const fromBody = body?.partition;
  if (fromBody !== undefined && typeof fromBody !== 'string') {
    throw new CouchError('bad_request', '`partition` must be a string');
  }
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw new CouchError('bad_request', 'Multiple conflicting values for `partition` provided');
  }
  return fromQuery ?? fromBody;
}

/** Whether `_design/{ddoc}`'s indexes are partitioned (get_view_partition_option). */
async function designPartitioned(db: Database, ddoc: string): Promise<boolean> {
  if (!db.partitioned) return false;
  const current = await db.winningBody(DESIGN_PREFIX + ddoc);
  const options = current?.body instanceof JsonObject ? current.body.get('options') : undefined;
  const given = options instanceof JsonObject ? options.get('partitioned') : undefined;
  return typeof given === 'boolean' ? given : true;
}

/** dreyfus_httpd:validate_search_restrictions' partition rules, in its order and with its errors. */
export async function checkSearchPartition(
  db: Database,
  ddoc: string,
  partition: string | undefined,
  params: SearchParams,
): Promise<void> {
  const notSupported = () => new CouchError('bad_request', '`partition` not supported on this index');
  if (!db.partitioned) {
    if (partition !== undefined) throw notSupported();
    return;
  }
  const partitioned = await designPartitioned(db, ddoc);
  if (partitioned && partition === undefined) {
    throw new CouchError('bad_request', '`partition` parameter is mandatory for queries to this index.');
  }
  if (!partitioned && partition !== undefined) throw notSupported();
  const { counts, ranges, drilldown } = params.facets;
  if (
    partition !== undefined &&
    (counts !== undefined || ranges !== undefined || drilldown !== undefined || params.group !== undefined)
  ) {
    throw new CouchError(
      'bad_request',
      '`partition` and any of `drilldown`, `ranges`, `group_field`, `group_sort`, `group_limit` or `group_by` are incompatible',
    );
  }
}

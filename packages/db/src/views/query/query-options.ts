/**
 * A view or `_all_docs` query after parsing and validation (see `./query-params.ts`): what the
 * view engine (and `_all_docs`, which reads the members it has) needs, with CouchDB 3's resolution
 * of reduce, grouping and index freshness already applied.
 */
import type { Viewer } from '../../documents/replicator-reads.js';

export interface ViewQuery {
  /** Who reads: `include_docs` documents as they may see them (documents/replicator-reads.ts). */
  viewer?: Viewer;
  /** Range bounds in iteration order; undefined = not given. `key` sets both. */
  startkey?: unknown;
  endkey?: unknown;
  /** Tie-breaks among rows whose key equals startkey/endkey; undefined = CouchDB's default for the direction. */
  startkeyDocid?: string;
  endkeyDocid?: string;
  /** Multi-key fetch; a one-element list has already been turned into startkey = endkey. */
  keys?: unknown[];
  inclusiveEnd: boolean;
  descending: boolean;
  /** undefined = unlimited. */
  limit?: number;
  skip: number;
  /** True iff the view has a reduce function and reduce was not disabled. */
  reduce: boolean;
  /** Resolved group level (couch_mrview_util:determine_group_level); always 'none' when not reducing. */
  group: 'none' | 'exact' | number;
  includeDocs: boolean;
  conflicts: boolean;
  updateSeq: boolean;
  /** Index freshness: `update=` or `stale=` (ok → 'false', update_after → 'lazy'). */
  update: 'true' | 'false' | 'lazy';
  stable: boolean;
  sorted: boolean;
  attachments: boolean;
  attEncodingInfo: boolean;
  /** A partitioned database's partition the query reads alone (../../documents/partition.ts). */
  partition?: string;
}

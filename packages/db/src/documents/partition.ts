/**
 * Partitioned databases' rules (CouchDB's couch_partition): in a database created with
 * `?partitioned=true` every document id but `_design/` and `_local/` ones is `partition:docid`,
 * and a partition's documents are the ids from `partition:` up to `partition;` (`;` follows `:`
 * in code point order), one contiguous range of the by-id order: what partition-scoped reads
 * fold over. The error texts are CouchDB 3.5's.
 */
import { CouchError } from '../errors.js';
import { toPlain } from '../json/index.js';
import { isWellFormed } from '../support/unicode.js';
import { DESIGN_PREFIX, LOCAL_PREFIX, validateDocId } from './doc-id.js';
import type { DocCheck } from './write-plan.js';

/** The database prop (`DocumentStore.getProp`) that marks a partitioned database: `"true"`. */
export const PARTITIONED_PROP = 'partitioned';

/** The system databases CouchDB refuses to partition (couch_partition:validate_dbname). */
const SYSTEM_DBS = new Set(['_dbs', '_nodes', '_users', '_replicator', '_global_changes']);
const SYSTEM_SUFFIXES = ['_users', '_replicator'];

/** The partition of a document id (everything before its first `:`), or undefined without one. */
export function partitionOf(id: string): string | undefined {
  const colon = id.indexOf(':');
  return colon < 0 ? undefined : id.slice(0, colon);
}

/** A partition name as a request gives it: 400 `illegal_partition` unless CouchDB would take it. */
export function validatePartition(partition: unknown): string {
  if (typeof partition !== 'string') throw new CouchError('illegal_partition', 'Partition must be a string');
  if (partition === '') throw new CouchError('illegal_partition', 'Partition must not be empty');
  if (partition.startsWith('_')) {
    throw new CouchError('illegal_partition', 'Partition must not start with an underscore');
  }
  if (!isWellFormed(partition)) throw new CouchError('illegal_partition', 'Partition must be valid UTF-8');
  if (partition.includes(':')) throw new CouchError('illegal_partition', 'Partition must not contain a colon');
  return partition;
}

/**
 * The id rule of a partitioned database, for an id that already passed `validateDocId`:
 * `_design/` and `_local/` ids are exempt; any other needs a valid partition and a valid id after it.
 */
export function validatePartitionedDocId(id: string): string {
  if (id.startsWith(DESIGN_PREFIX) || id.startsWith(LOCAL_PREFIX)) return id;
  const partition = partitionOf(id);
  if (partition === undefined) throw new CouchError('illegal_docid', 'Doc id must be of form partition:id');
  validatePartition(partition);
  validateDocId(id.slice(partition.length + 1));
  return id;
}

/** The by-id range of a partition's documents: `start` inclusive, `end` exclusive. */
export function partitionIdRange(partition: string): { start: string; end: string } {
  return { start: `${partition}:`, end: `${partition};` };
}

/** Whether a document id is in the partition. */
export function inPartition(id: string, partition: string): boolean {
  return id.startsWith(`${partition}:`);
}

/** `PUT /db?partitioned=`: the flag, or CouchDB's 400 for any other text. */
export function parsePartitionedFlag(value: string | null): boolean {
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw new CouchError('bad_request', 'Invalid `partitioned` parameter');
}

/** CouchDB refuses to partition its system databases (and any users or replicator database). */
export function checkPartitionableName(name: string): void {
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (SYSTEM_DBS.has(name) || SYSTEM_SUFFIXES.includes(base)) {
    throw new CouchError('bad_request', 'Cannot partition a system database');
  }
}

/**
 * A design document's `options.partitioned` (CouchDB's default: the database's own setting);
 * `true` in a database that is not partitioned is refused as couch_mrview:validate refuses it.
 */
export function designPartitioned(options: unknown, dbPartitioned: boolean): boolean {
  const value =
    typeof options === 'object' && options !== null && !Array.isArray(options)
      ? (options as Record<string, unknown>).partitioned
      : undefined;
  if (value === undefined) return dbPartitioned;
  if (typeof value !== 'boolean') {
    throw new CouchError('invalid_design_doc', '`options.partitioned` field must have boolean type');
  }
  if (value && !dbPartitioned) {
    throw new CouchError('invalid_design_doc', 'partitioned option cannot be true in a non-partitioned database.');
  }
  return value;
}

/**
 * A database's check of each design document written (a `DocCheck`, ./write-plan.ts: a bad one
 * is its own error row): `inner`'s, then `options.partitioned` against the database's setting.
 */
export function withDesignPartitionCheck(dbPartitioned: boolean, inner?: DocCheck): DocCheck {
  return (id, body, deleted) => {
    inner?.(id, body, deleted);
    if (id.startsWith(DESIGN_PREFIX) && !deleted)
      designPartitioned(toPlain(body.get('options') ?? null), dbPartitioned);
  };
}

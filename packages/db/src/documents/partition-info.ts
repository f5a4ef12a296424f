/**
 * `GET /{db}/_partition/{partition}`: a partition's document counts and sizes, read from the
 * partition's id range alone (./partition.ts). As in CouchDB, `sizes.external` is the live
 * documents' JSON and `sizes.active` what the partition's revisions occupy in storage: every
 * revision body still kept (old revisions until compaction, tombstones), so compaction shrinks it.
 */
import { CouchError } from '../errors.js';
import type { Database } from './database.js';
import { partitionIdRange, validatePartition } from './partition.js';

export interface PartitionInfo {
  db_name: string;
  sizes: { active: number; external: number };
  partition: string;
  doc_count: number;
  doc_del_count: number;
}

export async function partitionInfo(db: Database, partition: string): Promise<PartitionInfo> {
  validatePartition(partition);
  requirePartitioned(db);
  const { start, end } = partitionIdRange(partition);
  const stats = await db.store.rangeStats(start, end);
  return {
    db_name: db.name,
    sizes: { active: stats.active, external: stats.external },
    partition,
    doc_count: stats.docCount,
    doc_del_count: stats.docDelCount,
  };
}

/** CouchDB's 400 for a partition request to a database that is not partitioned. */
export function requirePartitioned(db: Database): void {
  if (!db.partitioned) throw new CouchError('bad_request', 'database is not partitioned');
}

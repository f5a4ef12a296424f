/**
 * The records and winning bodies of many documents, read together: two storage calls for a
 * request that opens a batch of documents (`_bulk_get`, a replicator's batch), where reading each
 * on its own costs two calls per document (two PostgreSQL round trips each).
 */
import type { DocRecord } from '../storage/records.js';
import type { DocumentStore } from '../storage/contract.js';

export class ReadAhead {
  private constructor(
    private readonly records: Map<string, DocRecord | undefined>,
    private readonly winners: Map<string, string | undefined>,
  ) {}

  static async of(store: DocumentStore, ids: readonly string[]): Promise<ReadAhead> {
    const unique = [...new Set(ids)];
    const found = await store.getDocs(unique);
    const records = new Map(unique.map((id, i) => [id, found[i]]));
    const live = found.filter((record): record is DocRecord => record !== undefined);
    const bodies = await store.getBodies(live.map((record) => ({ id: record.id, rev: record.rev })));
    return new ReadAhead(records, new Map(live.map((record, i) => [record.id, bodies[i]])));
  }

  /** Whether `id` was read ahead (its record may still be undefined: no such document). */
  has(id: string): boolean {
    return this.records.has(id);
  }

  record(id: string): DocRecord | undefined {
    return this.records.get(id);
  }

  /** The body of revision `rev` of `record` when it is the winner read ahead; undefined otherwise. */
  bodyOf(record: DocRecord, rev: string): string | undefined {
    return rev === record.rev ? this.winners.get(record.id) : undefined;
  }
}

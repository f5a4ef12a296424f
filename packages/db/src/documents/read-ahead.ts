/**
 * The records and winning bodies of many documents, read together: one storage call for a
 * request that opens a batch of documents (`_bulk_get`, a replicator's batch), where reading each
 * on its own costs two calls per document (two PostgreSQL round trips each). A deleted winner's
 * body (which the records-with-bodies read leaves out) is read in a second call, only when the
 * batch has one.
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
    const found = await store.getDocsWithBodies(unique);
    const records = new Map<string, DocRecord | undefined>();
    const winners = new Map<string, string | undefined>();
    const deleted: DocRecord[] = [];
    for (const [i, id] of unique.entries()) {
      const doc = found[i];
      if (doc === undefined) {
        records.set(id, undefined);
        continue;
      }
      const record: DocRecord = { id: doc.id, seq: doc.seq, rev: doc.rev, deleted: doc.deleted, tree: doc.tree };
      records.set(id, record);
      if (doc.deleted) deleted.push(record);
      else winners.set(id, doc.body);
    }
    if (deleted.length > 0) {
      const bodies = await store.getBodies(deleted.map((record) => ({ id: record.id, rev: record.rev })));
      for (const [i, record] of deleted.entries()) winners.set(record.id, bodies[i]);
    }
    return new ReadAhead(records, winners);
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

/**
 * A database's live design documents' records, kept between reads (issue #31: every write
 * looked its validate functions up by folding the `_design/` range, ~7% of a PUT's CPU). The
 * records are kept with the update sequence they were read at, and given again while that
 * sequence holds; this process's own commits that touch no design document move the sequence
 * on (their sequences follow it directly), so the writes of a busy database keep the records.
 * Any other change (a design document written, a purge, another node's write on shared
 * storage) leaves the sequence behind and the next read folds the range again.
 */
import type { DocumentStore } from '../storage/contract.js';
import type { DocRecord } from '../storage/records.js';
import { DESIGN_PREFIX } from './doc-id.js';

export class DesignRecords {
  private cached: { seq: number; records: DocRecord[] } | undefined;

  constructor(private readonly store: DocumentStore) {}

  /** The live design documents' records, in id order. */
  async get(): Promise<DocRecord[]> {
    return (await this.current()).records;
  }

  /**
   * For a write's rules on a store that tells its plan the design sequence (storage/contract.ts
   * `tellsDesignSeq`): the records kept, without reading the counters (a round trip there), and
   * the update sequence they are known current at; the write's plan sends a write back when a
   * design document changed after it (./group-commit.ts). None kept: read as `current`.
   */
  kept(): Promise<{ records: DocRecord[]; seq: number }> {
    const cached = this.cached;
    return cached === undefined ? this.current() : Promise.resolve({ records: cached.records, seq: cached.seq });
  }

  /** The records, checked against the counters, and the update sequence they are current at. */
  async current(): Promise<{ records: DocRecord[]; seq: number }> {
    const { updateSeq } = await this.store.counters();
    const cached = this.cached;
    if (cached !== undefined && cached.seq === updateSeq) return { records: cached.records, seq: updateSeq };
    const records: DocRecord[] = [];
    for await (const page of this.store.foldDocs({ start: DESIGN_PREFIX, end: '_design0', inclusiveEnd: false })) {
      for (const record of page) if (!record.deleted) records.push(record);
    }
    // Read at `updateSeq` or later: a later change has a sequence after it, so it is seen above.
    this.cached = { seq: updateSeq, records };
    return { records, seq: updateSeq };
  }

  /** After a commit of this process: the ids it touched and the (consecutive) sequences it took. */
  committed(ids: readonly string[], seqs: readonly number[]): void {
    const cached = this.cached;
    if (cached === undefined || seqs.length === 0) return;
    if (ids.some((id) => id.startsWith(DESIGN_PREFIX))) {
      this.cached = undefined;
      return;
    }
    const first = seqs[0]!;
    const last = seqs[seqs.length - 1]!;
    if (first === cached.seq + 1 && last - first === seqs.length - 1) cached.seq = last;
  }
}

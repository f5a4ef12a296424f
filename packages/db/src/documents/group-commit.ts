/**
 * Group commit: write requests that arrive while a commit is under way wait for it, then go
 * together in the next one, planned over the records the engine locked (./write-plan.ts). The
 * first request of a group waits for the rest of the event loop's turn (setImmediate), so the
 * requests whose bytes came in the same turn (concurrent clients) share one transaction: with
 * an in-process engine (SQLite) one commit's WAL frames and locks instead of one set each, with
 * a network engine (PostgreSQL) one transaction's round trips. A writer that has been alone for
 * LONE_GROUPS groups commits at once (an embedded caller writing one document after another
 * would otherwise pay an event-loop turn each), but for one group in PROBE_EVERY, which waits
 * again to see whether company came back.
 *
 * A request whose rules ran with design documents older than the design sequence the engine
 * tells the plan (a design document changed since, on any node) is left out of the plan and
 * rejected with `DesignsChanged`, for its rules to run again (./write-pipeline.ts).
 */
import type { DocumentStore } from '../storage/contract.js';
import { AccessPlanner } from './access-rules.js';
import { type DocCheck, idsOf, planWrites, type WriteRequest, type WriteResult } from './write-plan.js';

/** Groups of one request in a row after which a request commits without waiting. */
const LONE_GROUPS = 8;
/** While commits go at once, one group in this many waits for company again. */
const PROBE_EVERY = 16;

/** A write request's rules ran with design documents that have changed since: nothing of it was written. */
export class DesignsChanged extends Error {
  constructor() {
    super('the design documents changed while the write was checked');
  }
}

interface Pending {
  request: WriteRequest;
  resolve(rows: WriteResult[]): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  private queue: Pending[] = [];
  /** A run is scheduled or under way: a request submitted now joins its next group. */
  private running = false;
  /** Groups in a row that had one request. */
  private lone = 0;
  private probes = 0;

  constructor(
    private readonly store: DocumentStore,
    /** The revs limit: the number itself once known (no promise to wait for). */
    private readonly revsLimit: () => number | Promise<number>,
    /** After each commit that took sequences: the ids its requests touched, the sequences it took. */
    private readonly committed: (ids: readonly string[], seqs: readonly number[]) => void,
    private readonly check?: DocCheck,
  ) {}

  submit(request: WriteRequest): Promise<WriteResult[]> {
    if (!this.running && this.lone >= LONE_GROUPS && ++this.probes % PROBE_EVERY !== 0) {
      // A lone writer's request commits at once, without the queue's entry, promise and arrays.
      this.running = true;
      this.lone++;
      return this.commitAlone(request);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.run());
      }
    });
  }

  /** One request committed on its own; requests that came meanwhile go in the next group. */
  private async commitAlone(request: WriteRequest): Promise<WriteResult[]> {
    try {
      const rows = (await this.commitGroup([request]))[0]!;
      if (rows instanceof DesignsChanged) throw rows;
      return rows;
    } finally {
      if (this.queue.length > 0) void this.run();
      else this.running = false;
    }
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        this.lone = batch.length === 1 ? this.lone + 1 : 0;
        try {
          const result = await this.commitGroup(batch.map((p) => p.request));
          batch.forEach((p, i) => {
            const rows = result[i]!;
            if (rows instanceof DesignsChanged) p.reject(rows);
            else p.resolve(rows);
          });
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * Plans and commits `requests` in one storage transaction: each request's rows, in order, or
   * `DesignsChanged` for a request left out (see the top of this file).
   */
  private async commitGroup(requests: readonly WriteRequest[]): Promise<(WriteResult[] | DesignsChanged)[]> {
    const known = this.revsLimit();
    const limit = typeof known === 'number' ? known : await known;
    // An access-enabled database's writes carry their writer; the plan then reads stored access.
    const access = requests.some((r) => r.access !== undefined);
    const ids = idsOf(requests);
    const { result, seqs } = await this.store.update(
      ids,
      (records, designSeq) => {
        const plan = (planned: readonly WriteRequest[]) =>
          planWrites(planned, records, limit, this.check, access ? new AccessPlanner() : undefined);
        const stale = requests.map(
          (r) => designSeq !== undefined && r.designsAt !== undefined && r.designsAt < designSeq,
        );
        if (!stale.includes(true)) {
          const planned = plan(requests);
          return { writes: planned.writes, result: planned.results as (WriteResult[] | DesignsChanged)[] };
        }
        const planned = plan(requests.filter((_, i) => !stale[i]));
        let k = 0;
        const rows = requests.map((_, i) => (stale[i] ? new DesignsChanged() : planned.results[k++]!));
        return { writes: planned.writes, result: rows };
      },
      access ? { access: true } : undefined,
    );
    if (seqs.length > 0) this.committed(ids, seqs);
    return result;
  }
}

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
 */
import type { DocumentStore } from '../storage/contract.js';
import { AccessPlanner } from './access-rules.js';
import { type DocCheck, idsOf, planWrites, type WriteRequest, type WriteResult } from './write-plan.js';

/** Groups of one request in a row after which a request commits without waiting. */
const LONE_GROUPS = 8;
/** While commits go at once, one group in this many waits for company again. */
const PROBE_EVERY = 16;

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
      return (await this.commitGroup([request]))[0]!;
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
            p.resolve(result[i]!);
          });
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Plans and commits `requests` in one storage transaction: each request's rows, in order. */
  private async commitGroup(requests: readonly WriteRequest[]): Promise<WriteResult[][]> {
    const known = this.revsLimit();
    const limit = typeof known === 'number' ? known : await known;
    // An access-enabled database's writes carry their writer; the plan then reads stored access.
    const access = requests.some((r) => r.access !== undefined);
    const ids = idsOf(requests);
    const { result, seqs } = await this.store.update(
      ids,
      (records) => {
        const planned = planWrites(requests, records, limit, this.check, access ? new AccessPlanner() : undefined);
        return { writes: planned.writes, result: planned.results };
      },
      access ? { access: true } : undefined,
    );
    if (seqs.length > 0) this.committed(ids, seqs);
    return result;
  }
}

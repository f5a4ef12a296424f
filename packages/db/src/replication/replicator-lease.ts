/**
 * The leader of the nodes sharing one storage (PostgreSQL): the holder of a lease kept in a
 * server value (`{id, name, until}`), renewed every `renewMs` and good for `ttlMs`. The leader does
 * what one node only should: writes `failed` states back to malformed replication documents and
 * starts again the continuous `_replicate` jobs kept from before a restart (the documents' jobs
 * themselves are shared by all nodes: ./job-leases.ts). A node takes the lease when it is free or
 * expired, then reads it back: the node whose write stayed holds it. A node that dies stops
 * renewing and another takes over within `ttlMs` plus one renewal; a node that closes gives the
 * lease up at once.
 */
import type { Storage } from '../storage/contract.js';

const LEASE_KEY = 'replicator_lease';

export interface LeaseHost {
  values: Pick<Storage, 'getServerValue' | 'setServerValue'>;
  /** This node's identity (unique per process) and the name `_scheduler` shows. */
  nodeId: string;
  nodeName(): string;
  log(line: string): void;
  /** Called when this node starts or stops holding the lease. */
  changed(holding: boolean): void;
}

export interface SchedulerSnapshot {
  node: string;
  jobs: Record<string, unknown>[];
  docs: Record<string, unknown>[];
}

interface Lease {
  id: string;
  name: string;
  until: number;
}

export class ReplicatorLease {
  holding = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly host: LeaseHost,
    private readonly ttlMs = 6_000,
    private readonly renewMs = 2_000,
  ) {}

  start(): void {
    void this.tick();
    this.timer ??= setInterval(() => void this.tick(), this.renewMs);
    this.timer.unref();
  }

  private tick(): Promise<void> {
    this.ticking ??= this.renew().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async renew(): Promise<void> {
    if (this.closed) return;
    let holding = false;
    try {
      const now = Date.now();
      const current = await this.read();
      if (current === undefined || current.id === this.host.nodeId || current.until <= now) {
        const mine: Lease = { id: this.host.nodeId, name: this.host.nodeName(), until: now + this.ttlMs };
        await this.host.values.setServerValue(LEASE_KEY, JSON.stringify(mine));
        // Another node may have written at the same moment: the write that stayed decides.
        await new Promise((resolve) => setTimeout(resolve, 50));
        holding = (await this.read())?.id === this.host.nodeId;
      }
    } catch {
      // Storage away: a node that cannot renew does not hold the lease (another will take it).
      holding = false;
    }
    if (this.closed) return;
    if (holding !== this.holding) {
      this.holding = holding;
      this.host.log(`[notice] replicator: this node ${holding ? 'now runs' : 'no longer runs'} the replication jobs`);
      this.host.changed(holding);
    }
  }

  private async read(): Promise<Lease | undefined> {
    const text = await this.host.values.getServerValue(LEASE_KEY);
    if (text === undefined || text === '') return undefined;
    return JSON.parse(text) as Lease;
  }

  /** Stops renewing; a holder gives the lease up so another node takes the jobs at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.ticking;
    if (!this.holding) return;
    this.holding = false;
    try {
      const current = await this.read();
      if (current?.id === this.host.nodeId) {
        await this.host.values.setServerValue(LEASE_KEY, JSON.stringify({ ...current, until: 0 }));
      }
    } catch {
      // Storage away: the lease expires on its own.
    }
  }
}

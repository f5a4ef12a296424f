/**
 * Replication documents' jobs shared by the nodes of one storage (PostgreSQL): each job runs on
 * the node holding its lease. A job's leases are numbered tenures, each a server value naming its
 * node, created with `addServerValue` (atomic across the nodes: of two nodes taking the same
 * tenure, exactly one gets it), so no two nodes ever hold a job at once. A tenure ends when its
 * node gives it up (its value emptied) or dies: a node is alive while its heartbeat (a server
 * value renewed every `renewMs`, good for `ttlMs`) is. A node whose own heartbeat could not be
 * renewed in time, or that finds a newer tenure of a job it holds, stops the job.
 *
 * Nodes share the jobs fairly: each lists itself in a registry of live nodes, and takes a new
 * lease only while it holds fewer than its share (the jobs divided by the live nodes, rounded
 * up); a node holding more than its share (another node joined) gives one up a round, for the
 * others to take. The registry only counts nodes for the shares: a lease is safe without it.
 * A node that dies stops its heartbeat: its jobs are free for the others within `ttlMs` plus one
 * round; a node that closes gives its leases up at once.
 *
 * Each node publishes what it knows of the jobs and documents; `/_scheduler` merges the live
 * nodes' publications (`merged`), each job as the node running it shows it, the same on every node.
 *
 * Old tenures are deleted, so the keys of a job stay few: its latest tenure and a head (the latest
 * tenure known and the lowest that may still be stored). A node that does not know a job's tenure
 * starts looking from the head. Before tenures are deleted the head names a later one, so a node
 * that creates a deleted tenure again (it looked while they were being deleted) finds the head
 * past its tenure and gives it up: it never runs the job. The holder deletes its predecessors a
 * round after it took the lease (the head written by then); a job whose document is gone has all
 * its keys deleted, by its holder or, when nobody holds it (given up, or its node dead), by any node.
 */
import type { Storage } from '../storage/contract.js';
import type { SchedulerSnapshot } from './replicator-lease.js';

const NODES_KEY = 'replicator_nodes';
const HEARTBEAT_PREFIX = 'replicator_node_heartbeat-';
const SNAPSHOT_PREFIX = 'replicator_node_snapshot-';

const JOB_PREFIX = 'replicator_job_lease-';

/** Rounds between two looks for the keys of jobs no node knows, while none were found. */
const SWEEP_ROUNDS = 15;

/** How long a dead node's heartbeat stays before it is deleted (its snapshot with it). */
const DEAD_NODE_KEPT_MS = 60_000;

/** A job's keys' prefix (server value keys are `[a-z0-9_-]` only: a replication id's `+` and others escaped). */
export function jobKey(jobId: string): string {
  return `${JOB_PREFIX}${jobId.replace(/[^a-z0-9_]/g, (c) => `-${c.charCodeAt(0).toString(16)}`)}`;
}

/** The job prefix and the tenure (or the head) of one of its keys. */
function splitJobKey(key: string): { job: string; tenure: number | 'head' } | undefined {
  const match = /^(.+)-(\d+|head)$/.exec(key);
  if (match === null) return undefined;
  return { job: match[1]!, tenure: match[2] === 'head' ? 'head' : Number(match[2]) };
}

function tenureKey(jobId: string, tenure: number): string {
  return `${jobKey(jobId)}-${tenure}`;
}

/** The key of a job's head: `{latest, floor}`, the latest tenure known and the lowest that may be stored. */
function headKey(jobId: string): string {
  return `${jobKey(jobId)}-head`;
}

interface Head {
  latest: number;
  floor: number;
}

export interface JobLeaseHost {
  values: Pick<
    Storage,
    'getServerValue' | 'setServerValue' | 'addServerValue' | 'deleteServerValue' | 'serverValueKeys'
  >;
  /** This node's identity (unique per process) and the name `_scheduler` shows. */
  nodeId: string;
  nodeName(): string;
  log(line: string): void;
  /** The ids of the documents' jobs this node knows of (every node knows them all). */
  jobIds(): string[];
  /** Every replicator database was read since this node started: `jobIds` names every job with a document. */
  settled(): boolean;
  /** This node starts or stops holding a job's lease. */
  changed(jobId: string, holding: boolean): void;
  /** What `/_scheduler` shows of this node's jobs and documents now. */
  snapshot(): SchedulerSnapshot;
}

/** A node's publication: its snapshot, and the jobs it holds. */
interface Published extends SchedulerSnapshot {
  held: string[];
}

export class JobLeases {
  private readonly held = new Set<string>();
  /** The latest tenure seen of each job (0: none yet); those held are this node's. */
  private readonly tenures = new Map<string, number>();
  /** Held jobs whose older tenures are deleted (by this node, at the tenure held). */
  private readonly tidied = new Map<string, number>();
  /** Held jobs taken in the last round: their predecessors are deleted a whole round later. */
  private readonly fresh = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private again = false;
  /** When this node's heartbeat was last written. */
  private lastBeat = Date.now();
  /** Keys of jobs no document names and no live node holds: since when each job was seen so (ms). */
  private readonly orphans = new Map<string, number>();
  /** Rounds until the next look for such keys. */
  private sweepIn = 0;

  constructor(
    private readonly host: JobLeaseHost,
    private readonly ttlMs = 6_000,
    private readonly renewMs = 2_000,
  ) {}

  start(): void {
    void this.tick();
    this.timer ??= setInterval(() => {
      this.checkBeat();
      void this.tick();
    }, this.renewMs);
    this.timer.unref();
  }

  /**
   * A node whose heartbeat was not renewed for `ttlMs - renewMs` (a round held up by a slow
   * storage or event loop) stops its jobs before the others may think it dead and take them.
   */
  private checkBeat(): void {
    if (Date.now() - this.lastBeat <= this.ttlMs - this.renewMs) return;
    for (const id of [...this.held]) this.drop(id);
  }

  holds(jobId: string): boolean {
    return this.held.has(jobId);
  }

  /** A round now (a job was added: it need not wait for the next one); one more after a round under way. */
  tick(): Promise<void> {
    if (this.ticking !== undefined) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.round().finally(() => {
      this.ticking = undefined;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    });
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (this.closed) return;
    try {
      const beat = Date.now();
      this.checkBeat();
      await this.host.values.setServerValue(
        HEARTBEAT_PREFIX + this.host.nodeId,
        JSON.stringify({ name: this.host.nodeName(), until: beat + this.ttlMs }),
      );
      this.lastBeat = beat;
      const live = await this.announce();
      const jobs = this.host.jobIds().sort();
      const known = new Set(jobs);
      // Jobs gone (their document deleted or changed): their leases given up, their keys deleted.
      for (const id of [...this.tenures.keys()]) if (!known.has(id)) await this.forget(id);
      const share = Math.ceil(jobs.length / Math.max(1, live));
      // More than the share (a node joined): one given up a round, for the others to take.
      if (this.held.size > share) await this.release([...this.held].sort().at(-1)!);
      // A newer tenure of a job held here: another node took it (this one was thought dead).
      for (const id of [...this.held]) {
        const { tenure, holder } = await this.latest(id);
        if (tenure !== this.tenures.get(id) || holder !== this.host.nodeId) this.drop(id);
      }
      for (const id of [...this.held]) if (!this.fresh.has(id)) await this.tidy(id);
      this.fresh.clear();
      const alive = new Map<string, boolean>();
      if (--this.sweepIn <= 0 && this.host.settled()) await this.sweep(known, alive);
      for (const id of jobs) {
        if (this.held.size >= share || this.closed) break;
        if (this.held.has(id)) continue;
        const { tenure, holder } = await this.latest(id);
        // Being deleted (its head names a tenure no longer stored): looked at again next round.
        if (holder === null) continue;
        // Free: never taken, given up, or its node dead (this node's own stale tenure included).
        const held = holder !== undefined && holder !== '' && holder !== this.host.nodeId;
        if (held && (await this.alive(holder, alive))) continue;
        const next = tenure + 1;
        const won = (await this.host.values.addServerValue(tenureKey(id, next), this.host.nodeId)) === this.host.nodeId;
        this.tenures.set(id, next);
        if (won && (await this.claim(id, next)) && !this.closed) {
          this.fresh.add(id);
          this.take(id);
        }
      }
      await this.host.values.setServerValue(
        SNAPSHOT_PREFIX + this.host.nodeId,
        JSON.stringify({ ...this.host.snapshot(), held: [...this.held] } satisfies Published),
      );
    } catch (error) {
      // Storage away: a node that cannot renew holds nothing (the others take its jobs).
      this.host.log(`[warning] replicator: the job leases could not be renewed: ${String(error)}`);
      for (const id of [...this.held]) this.drop(id);
    }
  }

  /**
   * A job's latest tenure and its node ('' once given up; undefined before the first; null when
   * not known now: the head names a tenure that is no longer stored, the job's keys being deleted).
   * Looked for from the tenure this node knows, else from the head.
   */
  private async latest(id: string): Promise<{ tenure: number; holder: string | undefined | null }> {
    let tenure = this.tenures.get(id) ?? 0;
    let holder = tenure === 0 ? undefined : await this.host.values.getServerValue(tenureKey(id, tenure));
    if (holder === undefined && tenure > 0) {
      // The tenure known here was deleted (superseded, or the job's keys deleted): from the head.
      tenure = 0;
      if (!this.held.has(id)) this.tenures.set(id, 0);
    }
    if (tenure === 0) {
      const head = await this.head(id);
      if (head !== undefined) {
        tenure = head.latest;
        holder = await this.host.values.getServerValue(tenureKey(id, tenure));
        if (holder === undefined) return { tenure, holder: null };
      }
    }
    for (;;) {
      const next = await this.host.values.getServerValue(tenureKey(id, tenure + 1));
      if (next === undefined) break;
      tenure++;
      holder = next;
    }
    if (!this.held.has(id)) this.tenures.set(id, tenure);
    return { tenure, holder };
  }

  private async head(id: string): Promise<Head | undefined> {
    const text = await this.host.values.getServerValue(headKey(id));
    return text === undefined || text === '' ? undefined : (JSON.parse(text) as Head);
  }

  /**
   * A tenure just created is the job's only if no later one was ever named by the head (else it
   * is a deleted tenure created again, its key deleted here); the head then names it.
   */
  private async claim(id: string, tenure: number): Promise<boolean> {
    const head = await this.head(id);
    if (head !== undefined && head.latest > tenure) {
      await this.host.values.deleteServerValue(tenureKey(id, tenure));
      this.tenures.set(id, 0);
      return false;
    }
    await this.host.values.setServerValue(
      headKey(id),
      JSON.stringify({ latest: tenure, floor: head?.floor ?? 1 } satisfies Head),
    );
    return true;
  }

  /**
   * Deletes the held job's older tenures (never the one held): first the head names the held
   * tenure (again, should a late write have named an older one), then the tenures from its floor
   * up, then the floor moves up. Once per tenure held.
   */
  private async tidy(id: string): Promise<void> {
    const tenure = this.tenures.get(id);
    if (tenure === undefined || this.tidied.get(id) === tenure) return;
    const head = await this.head(id);
    const floor = head?.floor ?? 1;
    if (head === undefined || head.latest !== tenure) {
      // Named again; the tenures are deleted next round, when this write has long landed everywhere.
      if (head === undefined || head.latest < tenure)
        await this.host.values.setServerValue(headKey(id), JSON.stringify({ latest: tenure, floor } satisfies Head));
      return;
    }
    for (let old = floor; old < tenure; old++) await this.host.values.deleteServerValue(tenureKey(id, old));
    if (floor < tenure)
      await this.host.values.setServerValue(
        headKey(id),
        JSON.stringify({ latest: tenure, floor: tenure } satisfies Head),
      );
    this.tidied.set(id, tenure);
  }

  /**
   * A job no longer known (its document deleted or changed): given up if held here, and its keys
   * deleted when nobody runs it (held here, given up, or its node dead), the head last.
   */
  private async forget(id: string): Promise<void> {
    const holding = this.held.has(id);
    if (holding) this.drop(id);
    const { tenure, holder } = await this.latest(id);
    const running = typeof holder === 'string' && holder !== '' && holder !== this.host.nodeId;
    if (!running || !(await this.alive(holder, new Map()))) {
      const floor = (await this.head(id))?.floor ?? 1;
      for (let old = floor; old <= tenure; old++) await this.host.values.deleteServerValue(tenureKey(id, old));
      await this.host.values.deleteServerValue(headKey(id));
    }
    this.tenures.delete(id);
    this.tidied.delete(id);
  }

  /**
   * Deletes the keys of jobs whose documents went away while no node ran (a node started since
   * knows only the jobs of documents still there, so `forget` never sees them), and the
   * heartbeats and publications of nodes long dead. Only once this node has read every replicator
   * database; a job's keys go when no job this node knows has them and no live node holds their
   * latest tenure, both seen for `ttlMs` (a document written meanwhile is read, or its job taken,
   * well within it), and seen so again just before they are deleted, the head last.
   */
  private async sweep(known: ReadonlySet<string>, alive: Map<string, boolean>): Promise<void> {
    const ownKeys = new Set([...known, ...this.tenures.keys()].map(jobKey));
    const found = new Map<string, number[]>();
    for (const key of await this.host.values.serverValueKeys(JOB_PREFIX)) {
      const parts = splitJobKey(key);
      if (parts === undefined || ownKeys.has(parts.job)) continue;
      const tenures = found.get(parts.job) ?? [];
      if (parts.tenure !== 'head') tenures.push(parts.tenure);
      found.set(parts.job, tenures);
    }
    for (const job of [...this.orphans.keys()]) if (!found.has(job)) this.orphans.delete(job);
    const now = Date.now();
    for (const [job, tenures] of found) {
      if (this.closed) return;
      if (await this.runs(job, tenures, alive)) {
        this.orphans.delete(job);
        continue;
      }
      const since = this.orphans.get(job);
      if (since === undefined) {
        this.orphans.set(job, now);
        continue;
      }
      if (now - since < this.ttlMs) continue;
      // Looked at again just before: a tenure taken since, or a live holder, keeps them.
      const again = (await this.host.values.serverValueKeys(`${job}-`))
        .map((key) => splitJobKey(key))
        .filter((parts) => parts?.job === job);
      const tenuresNow = again.flatMap((parts) => (parts!.tenure === 'head' ? [] : [parts!.tenure]));
      if (Math.max(0, ...tenuresNow) > Math.max(0, ...tenures) || (await this.runs(job, tenuresNow, new Map()))) {
        this.orphans.delete(job);
        continue;
      }
      for (const tenure of tenuresNow.sort((a, b) => a - b))
        await this.host.values.deleteServerValue(`${job}-${tenure}`);
      await this.host.values.deleteServerValue(`${job}-head`);
      this.orphans.delete(job);
      this.host.log(`[info] replicator: the lease keys of a job no document names were deleted (${job}).`);
    }
    for (const key of await this.host.values.serverValueKeys(HEARTBEAT_PREFIX)) {
      const node = key.slice(HEARTBEAT_PREFIX.length);
      if (node === this.host.nodeId) continue;
      const text = await this.host.values.getServerValue(key);
      const until = text === undefined || text === '' ? 0 : ((JSON.parse(text) as { until?: number }).until ?? 0);
      if (until > now - DEAD_NODE_KEPT_MS) continue;
      await this.host.values.deleteServerValue(SNAPSHOT_PREFIX + node);
      await this.host.values.deleteServerValue(key);
    }
    this.sweepIn = this.orphans.size > 0 ? 1 : SWEEP_ROUNDS;
  }

  /** Whether a live node holds the latest of a job's tenures (given by its keys' numbers). */
  private async runs(job: string, tenures: readonly number[], alive: Map<string, boolean>): Promise<boolean> {
    if (tenures.length === 0) return false;
    const holder = await this.host.values.getServerValue(`${job}-${Math.max(...tenures)}`);
    if (holder === undefined || holder === '' || holder === this.host.nodeId) return false;
    return this.alive(holder, alive);
  }

  /** Whether a node's heartbeat is current (`alive` caches the nodes asked in a round). */
  private async alive(node: string, alive: Map<string, boolean>): Promise<boolean> {
    if (node === this.host.nodeId) return true;
    let lives = alive.get(node);
    if (lives === undefined) {
      const text = await this.host.values.getServerValue(HEARTBEAT_PREFIX + node);
      lives = text !== undefined && text !== '' && (JSON.parse(text) as { until: number }).until > Date.now();
      alive.set(node, lives);
    }
    return lives;
  }

  /** Lists this node in the registry of live nodes; answers how many are live. */
  private async announce(): Promise<number> {
    const nodes = await this.nodes();
    nodes[this.host.nodeId] = Date.now() + this.ttlMs;
    await this.host.values.setServerValue(NODES_KEY, JSON.stringify(nodes));
    return Object.keys(nodes).length;
  }

  /** The live nodes of the registry (the expired left out), with when they expire. */
  private async nodes(): Promise<Record<string, number>> {
    const text = await this.host.values.getServerValue(NODES_KEY);
    const all = text === undefined || text === '' ? {} : (JSON.parse(text) as Record<string, number>);
    const now = Date.now();
    return Object.fromEntries(Object.entries(all).filter(([, until]) => typeof until === 'number' && until > now));
  }

  /**
   * The live nodes' publications merged: each document as the node holding its job shows it
   * (else as any node shows it: pending), the jobs of every node that runs them.
   */
  async merged(own: SchedulerSnapshot): Promise<SchedulerSnapshot> {
    // This node's own publication as it is now (a job it just took shows at once).
    const published: Published[] = [{ ...own, held: [...this.held] }];
    for (const id of Object.keys(await this.nodes())) {
      if (id === this.host.nodeId) continue;
      const text = await this.host.values.getServerValue(SNAPSHOT_PREFIX + id);
      if (text !== undefined && text !== '') published.push(JSON.parse(text) as Published);
    }
    const holderOf = new Map<string, Published>();
    for (const node of published) for (const id of node.held) holderOf.set(id, node);
    const docs = new Map<string, Record<string, unknown>>();
    for (const node of published) {
      for (const doc of node.docs) {
        const key = JSON.stringify([doc.database, doc.doc_id]);
        const holder = typeof doc.id === 'string' ? holderOf.get(doc.id) : undefined;
        if (holder === node || !docs.has(key)) docs.set(key, doc);
      }
    }
    const jobs = published.flatMap((node) => node.jobs.filter((job) => holderOf.get(String(job.id)) === node));
    return { node: this.host.nodeName(), jobs, docs: [...docs.values()] };
  }

  private take(id: string): void {
    this.held.add(id);
    this.host.changed(id, true);
  }

  private drop(id: string): void {
    if (!this.held.delete(id)) return;
    this.tidied.delete(id);
    this.host.changed(id, false);
  }

  /** Gives a lease up at once (its tenure emptied), so another node may take the job. */
  private async release(id: string): Promise<void> {
    const tenure = this.tenures.get(id);
    this.drop(id);
    if (tenure !== undefined && tenure > 0) await this.host.values.setServerValue(tenureKey(id, tenure), '');
  }

  /** Stops renewing and gives every lease up, so the other nodes take the jobs at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.ticking;
    try {
      for (const id of [...this.held]) await this.release(id);
      await this.host.values.setServerValue(HEARTBEAT_PREFIX + this.host.nodeId, JSON.stringify({ until: 0 }));
      const nodes = await this.nodes();
      delete nodes[this.host.nodeId];
      await this.host.values.setServerValue(NODES_KEY, JSON.stringify(nodes));
    } catch {
      // Storage away: the leases and the registry entry expire on their own.
    }
  }
}

/**
 * Replication documents become jobs, as CouchDB's couch_replicator_doc_processor does it: every
 * replicator database (`_replicator`, `…/_replicator`) is followed through its changes; a new or
 * changed document is read into a replication request, its replication id computed (which may
 * fetch a filter from the source), and its job handed to the scheduler; a deleted document's job
 * is removed. A document the replicator cannot read is marked `failed` with the reason; so is a
 * second document asking for a replication another document already runs (CouchDB's duplicate
 * rule). A one-shot job that completes marks its document `completed` with its stats. Those
 * terminal states are written back to the document (`_replication_state`,
 * `_replication_state_time`, `_replication_state_reason`, `_replication_stats`) and the document
 * is not run again until someone rewrites it without them.
 *
 * A job acts as the document's `user_ctx` (whose name and roles the write rules held to the
 * writer's own, documents/replicator-db.ts): on local databases with those rights, never as admin.
 */
import type { UserCtx } from '../auth/index.js';
import type { Database } from '../documents/database.js';
import { readDocInput } from '../documents/doc-input.js';
import { isDesignId } from '../documents/doc-id.js';
import { isReplicatorDb, REPLICATOR_ROLE } from '../documents/replicator-db.js';
import { decryptCredentials } from '../documents/replicator-credentials.js';
import { CouchError } from '../errors.js';
import { fromPlain, JsonObject, toPlain } from '../json/index.js';
import { parseRev } from '../revisions/index.js';
import { ReplicationJob, reasonOf } from './job.js';
import { closeBoth, type Opened } from './replicator.js';
import { readReplicationRequest, type ReplicationRequest } from './request.js';
import type { ReplicationScheduler } from './scheduler.js';
import { backoffMs } from './scheduler-settings.js';
import type { SessionResult } from './session.js';
import type { ReplicatorMeter } from './meter.js';

export interface ReplicatorDocsHost {
  log(line: string): void;
  listDbs(): Promise<string[]>;
  openDb(name: string): Promise<Database>;
  open(request: ReplicationRequest, user: UserCtx): Promise<Opened>;
  /** The key the documents' credentials are stored encrypted with. */
  credentialsKey(): Promise<Buffer>;
  /** Whether this node runs the jobs (and so writes the documents' states back). */
  leads(): boolean;
  /** Counts the databases and changes seen, the states written (the node's `couch_replicator.*` statistics). */
  meter?: ReplicatorMeter;
}

export type DocState = 'initializing' | 'error' | 'pending' | 'running' | 'crashing' | 'completed' | 'failed';

/** What the processor knows of one replication document (a row of `/_scheduler/docs`). */
export interface DocEntry {
  db: string;
  docId: string;
  /** The document's content that decides its job (state members left out). */
  fingerprint: string;
  job: ReplicationJob | undefined;
  /** `initializing`, `error`, `completed`, `failed`; a job's own state otherwise. */
  state: 'initializing' | 'error' | 'completed' | 'failed' | 'job';
  reason: string | undefined;
  errorCount: number;
  lastUpdated: number;
  startTime: number;
  source: string | null;
  target: string | null;
  stats: Record<string, unknown> | undefined;
}

/** How often the replicator databases are listed again (new ones followed, deleted ones dropped). */
const DISCOVER_MS = 2_000;

/** The replicator's own writes (state back to documents): the rules let the `_replicator` role through. */
const REPLICATOR_WRITER = { user: { name: null, roles: ['_admin', REPLICATOR_ROLE] } };

const STATE_MEMBERS = new Set([
  '_replication_id',
  '_replication_state',
  '_replication_state_time',
  '_replication_state_reason',
  '_replication_stats',
]);

export class ReplicatorDocs {
  private readonly entries = new Map<string, DocEntry>();
  /** Each followed database; `caughtUp` once its changes were read to the end and those documents processed. */
  private readonly followers = new Map<string, { stop(): void; caughtUp: boolean }>();
  /** The replicator databases were listed once (each is followed from then on). */
  private listed = false;
  /** Per document, the processing under way: one at a time, in change order. */
  private readonly queues = new Map<string, Promise<void>>();
  private discover: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly host: ReplicatorDocsHost,
    private readonly scheduler: ReplicationScheduler,
  ) {}

  start(): void {
    void this.discoverDbs();
    this.discover ??= setInterval(() => void this.discoverDbs(), DISCOVER_MS);
    this.discover.unref();
  }

  /** Follows a replicator database now (it was just created here) rather than at the next listing. */
  follow(name: string, created = true): void {
    if (this.closed || !isReplicatorDb(name) || this.followers.has(name)) return;
    this.host.meter?.(created ? 'docs.dbs_created' : 'docs.dbs_found');
    let stopped = false;
    let wake: (() => void) | undefined;
    let unlisten: (() => void) | undefined;
    const follower = {
      stop: () => {
        stopped = true;
        unlisten?.();
        wake?.();
      },
      caughtUp: false,
    };
    this.followers.set(name, follower);
    void (async () => {
      let since = 0;
      try {
        const db = await this.host.openDb(name);
        let latest = 0;
        unlisten = db.onChange((seq) => {
          latest = Math.max(latest, seq);
          wake?.();
        });
        while (!stopped) {
          for await (const page of db.foldChanges(since)) {
            for (const record of page) {
              since = Math.max(since, record.seq);
              if (isDesignId(record.id)) continue;
              this.host.meter?.('docs.db_changes');
              this.enqueue(name, record.id, () => this.process(db, record.id));
            }
          }
          if (stopped) break;
          // Its documents read so far are processed (their jobs known) when the work queued now is done.
          if (!follower.caughtUp) {
            await Promise.allSettled([...this.queues.values()]);
            follower.caughtUp = true;
          }
          if (latest <= since) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        }
      } catch (error) {
        // The database went away, or storage did: the next listing decides.
        this.host.log(`[warning] replicator database ${name}: ${reasonOf(error)}`);
        this.followers.get(name)?.stop();
        this.followers.delete(name);
      }
    })();
  }

  private async discoverDbs(): Promise<void> {
    if (this.closed) return;
    let names: string[];
    try {
      names = (await this.host.listDbs()).filter(isReplicatorDb);
    } catch {
      return; // storage away for a moment
    }
    this.host.meter?.('db_scans');
    for (const name of names) this.follow(name, false);
    this.listed = true;
    for (const name of [...this.followers.keys()]) {
      if (names.includes(name)) continue;
      this.followers.get(name)!.stop();
      this.followers.delete(name);
      this.host.meter?.('docs.dbs_deleted');
      for (const entry of [...this.entries.values()]) if (entry.db === name) this.forget(entry);
    }
  }

  /**
   * Every replicator database was read to its end since this node started, and each document
   * read was brought in line with it: the jobs known now are those of every document there was.
   */
  settled(): boolean {
    if (!this.listed) return false;
    for (const follower of this.followers.values()) if (!follower.caughtUp) return false;
    return true;
  }

  private enqueue(db: string, docId: string, work: () => Promise<void>): void {
    const key = entryKey(db, docId);
    const next = (this.queues.get(key) ?? Promise.resolve()).then(work).catch((error: unknown) => {
      this.host.log(`[error] replication document ${docId} of ${db}: ${reasonOf(error)}`);
    });
    this.queues.set(key, next);
    void next.finally(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
  }

  /** Reads one document as it is now and brings its job in line with it. */
  private async process(db: Database, docId: string): Promise<void> {
    if (this.closed) return;
    const key = entryKey(db.name, docId);
    const found = await db.winningBody(docId);
    const existing = this.entries.get(key);
    if (found === undefined || !(found.body instanceof JsonObject)) {
      if (existing !== undefined) this.forget(existing);
      return;
    }
    const body = found.body;
    const state = body.get('_replication_state');
    const fingerprint = JSON.stringify(toPlain(body.without(STATE_MEMBERS)));
    if (state === 'completed' || state === 'failed') {
      if (existing?.job !== undefined) this.scheduler.remove(existing.job.id);
      const plain = toPlain(body) as Record<string, unknown>;
      const reason = plain._replication_state_reason;
      const time = typeof plain._replication_state_time === 'string' ? Date.parse(plain._replication_state_time) : NaN;
      this.entries.set(key, {
        ...this.blank(db.name, docId, fingerprint),
        ...(existing === undefined
          ? {}
          : { startTime: existing.startTime, source: existing.source, target: existing.target }),
        state,
        reason: typeof reason === 'string' ? reason : undefined,
        lastUpdated: Number.isNaN(time) ? Date.now() : time,
        stats: isObject(plain._replication_stats) ? plain._replication_stats : undefined,
      });
      return;
    }
    // Unchanged (a rewrite of the same request): the job runs on. A document rewritten without
    // its terminal state runs again.
    const terminal = existing?.state === 'failed' || existing?.state === 'completed';
    if (existing !== undefined && existing.fingerprint === fingerprint && !terminal) return;
    if (existing?.job !== undefined) this.scheduler.remove(existing.job.id);
    const entry = this.blank(db.name, docId, fingerprint);
    this.entries.set(key, entry);
    await this.startJob(db, entry, body);
  }

  private blank(db: string, docId: string, fingerprint: string): DocEntry {
    return {
      db,
      docId,
      fingerprint,
      job: undefined,
      state: 'initializing',
      reason: undefined,
      errorCount: 0,
      lastUpdated: Date.now(),
      startTime: Date.now(),
      source: null,
      target: null,
      stats: undefined,
    };
  }

  /** Reads the request, computes the id, refuses a duplicate, hands the job to the scheduler. */
  private async startJob(db: Database, entry: DocEntry, body: JsonObject): Promise<void> {
    const plain = toPlain(body) as Record<string, unknown>;
    let request: ReplicationRequest;
    try {
      request = readReplicationRequest(decryptCredentials(plain, await this.host.credentialsKey()));
      if (request.cancel)
        throw new CouchError(
          'bad_request',
          'A replication document cannot cancel a replication; delete the document instead.',
        );
    } catch (error) {
      await this.fail(db, entry, error instanceof CouchError ? error.reason : reasonOf(error));
      return;
    }
    const user = userOf(plain.user_ctx);
    let opened: Opened;
    try {
      opened = await this.host.open(request, user);
    } catch (error) {
      // Transient (a source away, a filter not readable yet): tried again after a backoff.
      if (this.entries.get(entryKey(entry.db, entry.docId)) !== entry) return;
      entry.state = 'error';
      entry.reason = reasonOf(error);
      entry.errorCount++;
      entry.lastUpdated = Date.now();
      const wait = Math.min(backoffMs(entry.errorCount, this.scheduler.settings.crashBackoffMs), 3_600_000);
      setTimeout(() => {
        if (this.entries.get(entryKey(entry.db, entry.docId)) !== entry || this.closed) return;
        this.enqueue(entry.db, entry.docId, () => this.startJob(db, entry, body));
      }, wait).unref();
      return;
    }
    closeBoth(opened);
    if (this.entries.get(entryKey(entry.db, entry.docId)) !== entry) return;
    const id = opened.id.full;
    entry.source = opened.source.shown;
    entry.target = opened.target.shown;
    const other = [...this.entries.values()].find((e) => e !== entry && e.job?.id === id);
    if (other !== undefined) {
      await this.fail(
        db,
        entry,
        `Replication \`${id}\` specified by document \`${entry.docId}\` already started, ` +
          `triggered by document \`${other.docId}\` from db \`${other.db}\``,
      );
      return;
    }
    const job = new ReplicationJob(id, request, user, { db: entry.db, docId: entry.docId }, entry.source, entry.target);
    entry.job = job;
    entry.state = 'job';
    entry.reason = undefined;
    entry.lastUpdated = Date.now();
    this.scheduler.add(job);
  }

  /** A one-shot job finished: its document says `completed`, with the session's stats. */
  completed(job: ReplicationJob, result: SessionResult): void {
    if (job.origin === null) return;
    const entry = this.entries.get(entryKey(job.origin.db, job.origin.docId));
    if (entry?.job !== job) return;
    const stats = job.info() ?? {};
    const recorded = {
      revisions_checked: stats.revisions_checked ?? 0,
      missing_revisions_found: stats.missing_revisions_found ?? 0,
      docs_read: stats.docs_read ?? 0,
      docs_written: stats.docs_written ?? 0,
      doc_write_failures: stats.doc_write_failures ?? 0,
      checkpointed_source_seq:
        'source_last_seq' in result ? result.source_last_seq : (stats.checkpointed_source_seq ?? 0),
    };
    entry.job = undefined;
    entry.state = 'completed';
    entry.stats = recorded;
    entry.lastUpdated = Date.now();
    this.host.meter?.('docs.completed_state_updates');
    this.enqueue(entry.db, entry.docId, () =>
      this.writeState(entry.db, entry.docId, { _replication_state: 'completed', _replication_stats: recorded }),
    );
  }

  private async fail(db: Database, entry: DocEntry, reason: string): Promise<void> {
    entry.state = 'failed';
    entry.reason = reason;
    entry.lastUpdated = Date.now();
    // The node running the jobs writes it back; the others see it in the document then.
    if (!this.host.leads()) return;
    this.host.log(`[error] Error processing replication doc \`${entry.docId}\` from \`${db.name}\`: ${reason}`);
    this.host.meter?.('docs.failed_state_updates');
    await this.writeState(db.name, entry.docId, { _replication_state: 'failed', _replication_state_reason: reason });
  }

  /**
   * Writes a terminal state into the document (CouchDB's update_rep_doc): the state, its time,
   * and the members that go with it; the others of `STATE_MEMBERS` removed. Retried on conflict;
   * a document deleted meanwhile is left alone.
   */
  private async writeState(dbName: string, docId: string, members: Record<string, unknown>): Promise<void> {
    const db = await this.host.openDb(dbName);
    for (let attempt = 0; attempt < 10; attempt++) {
      const found = await db.winningBody(docId);
      if (found === undefined || !(found.body instanceof JsonObject)) return;
      const body = found.body.without(STATE_MEMBERS);
      for (const [key, value] of Object.entries(members)) body.set(key, fromPlain(value));
      body.set('_replication_state_time', isoSeconds(new Date()));
      const input = readDocInput(body);
      input.rev = parseRev(found.rev);
      try {
        await db.putDoc(docId, input, true, undefined, REPLICATOR_WRITER);
        return;
      } catch (error) {
        if (!(error instanceof CouchError) || error.error !== 'conflict') throw error;
      }
    }
  }

  private forget(entry: DocEntry): void {
    if (entry.job !== undefined) this.scheduler.remove(entry.job.id);
    this.entries.delete(entryKey(entry.db, entry.docId));
  }

  /** Every document entry, ordered by database then document id. */
  all(): DocEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.db === b.db ? compare(a.docId, b.docId) : compare(a.db, b.db)));
  }

  get(db: string, docId: string): DocEntry | undefined {
    return this.entries.get(entryKey(db, docId));
  }

  close(): void {
    this.closed = true;
    if (this.discover !== undefined) clearInterval(this.discover);
    for (const follower of this.followers.values()) follower.stop();
    this.followers.clear();
  }
}

/** The user a document's job acts as: its `user_ctx`, or nobody (no roles) without one. */
function userOf(value: unknown): UserCtx {
  if (!isObject(value)) return { name: null, roles: [] };
  const name = typeof value.name === 'string' && value.name !== '' ? value.name : null;
  const roles = Array.isArray(value.roles)
    ? value.roles.filter((role): role is string => typeof role === 'string')
    : [];
  return { name, roles };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function entryKey(db: string, docId: string): string {
  return `${db}\u0000${docId}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** CouchDB's timestamps in replication documents and `_scheduler`: ISO 8601 to the second. */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * One replication session, as couch_replicator runs it: resume from the checkpoints, then read
 * the source's changes in batches of `worker_batch_size`; for each batch ask the target which
 * revisions it lacks (`_revs_diff`), fetch those with their history and attachments, write them
 * with `new_edits=false`, and checkpoint on both sides every `checkpoint_interval` and at the
 * end. A one-shot session ends when the source has nothing newer; a continuous one waits for
 * changes (longpoll) until it is cancelled. Documents the target refuses are counted and logged
 * by id and reason; CouchDB 3.3's policy decides whether the job goes on: refusals of 401, 403,
 * 413 and 415 are skipped, any other error fails the job.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { UserCtx } from '../auth/index.js';
import { CouchError } from '../errors.js';
import {
  checkpointBody,
  checkpointId,
  resumePoint,
  rfc1123,
  type CheckpointBody,
  type HistoryEntry,
  type SessionStats,
} from './checkpoint.js';
import type { JsonValue } from '../json/index.js';
import type { ReplicatorMeter } from './meter.js';
import type {
  ChangeEntry,
  ChangesFilter,
  Endpoint,
  FetchedDoc,
  Seq,
  StoredRevision,
  Wanted,
  WriteFailure,
} from './endpoint.js';

export interface JobSettings {
  replicationId: string;
  /** The base of the replication id, the checkpoints' name (CouchDB's `_local/<base>`); else the id. */
  checkpointName?: string;
  continuous: boolean;
  filter?: ChangesFilter;
  sinceSeq?: Seq;
  useCheckpoints: boolean;
  checkpointIntervalMs: number;
  winningRevsOnly: boolean;
  workerBatchSize: number;
  /**
   * How long a caught-up continuous job waits for a change (default 10 s); kept under the
   * scheduler's stall timeout, so an idle job answers before it could be taken for stalled.
   */
  longpollMs?: number;
  /** `http_connections`: documents with attachment bytes written at once, at most. */
  httpConnections?: number;
  /** Who the job acts as (its local writes), shown in tasks. */
  user: UserCtx;
  log: (line: string) => void;
  /** Counts checkpoints and failed changes reads (the node's `couch_replicator.*` statistics). */
  meter?: ReplicatorMeter;
}

/** What a finished one-shot answers (CouchDB's `_replicate` body). */
export type SessionResult = { ok: true; no_changes: true } | ({ ok: true } & Omit<CheckpointBody, 'last_seq'>);

/** Refusals a replication skips (CouchDB 3.3): the document is counted as a failure and the job goes on. */
const SKIPPED_STATUSES = new Set([401, 403, 413, 415]);

/** How long a continuous job's longpoll waits for a change. */
const LONGPOLL_MS = 10_000;

/**
 * Batches a session has under way at once: one being written while the next ones are read from
 * the source (their changes, `_revs_diff`, `_bulk_get`).
 */
const BATCHES_IN_FLIGHT = 3;

/**
 * Batches prepared at once: the source serves one batch's `_bulk_get` while the target reads the
 * answer of the one before (diffs and fetches change nothing, so their order does not matter;
 * the writes keep theirs). One at a time, each side waited for the other: a pull's servers were
 * both idle a good part of the time, and the target spent more CPU for the same work (30,000
 * documents: 1.2–1.5 s against 0.8–1.0 s).
 */
const PREPARES_AT_ONCE = 2;

/** Revisions fetched per `_bulk_get`. */
const FETCH_BATCH = 500;

/** Documents with attachment bytes written at once (their writes are one request or transaction each). */
const PARTS_CONCURRENCY = 8;

export class ReplicationSession {
  readonly sessionId = randomUUID().replaceAll('-', '');
  readonly stats: SessionStats = {
    missing_checked: 0,
    missing_found: 0,
    docs_read: 0,
    docs_written: 0,
    doc_write_failures: 0,
  };
  readonly startedOn = Math.floor(Date.now() / 1000);
  updatedOn = this.startedOn;
  /** When the source last answered a changes read (ms): an idle job's sign of life. */
  heardAt = Date.now();
  startTime = rfc1123();
  /** Where this session started, how far it has replicated, and what is checkpointed. */
  startSeq: Seq = 0;
  throughSeq: Seq = 0;
  committedSeq: Seq = 0;
  /** The source's latest sequence seen (`source_seq` in tasks). */
  sourceSeq: Seq = 0;
  changesPending: number | null = null;
  private history: HistoryEntry[] = [];
  private lastCheckpoint: CheckpointBody | undefined;
  private lastCheckpointAt = Date.now();
  private readonly stop = new AbortController();
  private instances = { source: '', target: '' };
  private localRevs: { source?: string; target?: string } = {};

  constructor(
    readonly source: Endpoint,
    readonly target: Endpoint,
    readonly settings: JobSettings,
  ) {}

  get cancelled(): boolean {
    return this.stop.signal.aborted;
  }

  /** Ends a continuous session after its current batch (it checkpoints first). */
  cancel(): void {
    this.stop.abort();
  }

  async run(): Promise<SessionResult> {
    const [sourceInfo, targetInfo] = await Promise.all([this.source.info(), this.target.info()]);
    this.instances = { source: sourceInfo.instanceStartTime, target: targetInfo.instanceStartTime };
    this.sourceSeq = sourceInfo.updateSeq;
    await this.resume();
    const { continuous, workerBatchSize } = this.settings;
    const read = (since: Seq, wait: boolean) => {
      const page = this.source.changes({
        since,
        limit: workerBatchSize,
        ...(this.settings.filter === undefined ? {} : { filter: this.settings.filter }),
        ...(wait ? { waitMs: this.settings.longpollMs ?? LONGPOLL_MS, signal: this.stop.signal } : {}),
      });
      // Awaited below; marked handled so a failed batch meanwhile leaves no stray rejection.
      page.catch(() => this.settings.meter?.('changes_read_failures'));
      return page;
    };
    let next = read(this.throughSeq, false);
    // Batches in flight, oldest first: each is prepared (once the one PREPARES_AT_ONCE before it
    // is) and then written (after the one before it), so the source serves one batch while the
    // target writes an earlier one, as CouchDB's workers overlap. A batch takes the job through
    // its sequence only once it and every batch before it are written: the checkpoint never
    // passes a gap.
    const inFlight: Promise<void>[] = [];
    /** The latest batches' preparations, newest last. */
    const prepared: Promise<unknown>[] = [];
    let written: Promise<unknown> = Promise.resolve();
    /** Settles once the latest batch has asked the source for its revisions (fetches are asked in order). */
    let fetchTurn: Promise<void> = Promise.resolve();
    const start = (results: readonly ChangeEntry[], seq: Seq) => {
      const after = prepared.length < PREPARES_AT_ONCE ? Promise.resolve() : prepared[0]!;
      const turn = fetchTurn;
      let asked = noop;
      fetchTurn = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const batch = after
        .then(() => (results.length > 0 ? this.prepareBatch(results, turn, asked) : []))
        .finally(asked);
      const done = Promise.all([batch, written]).then(async ([fetched]) => {
        await this.writeBatch(fetched);
        this.throughSeq = seq;
        this.updatedOn = Math.floor(Date.now() / 1000);
      });
      // Awaited through `inFlight`; marked handled so a failure meanwhile leaves no stray rejection.
      batch.catch(noop);
      done.catch(noop);
      prepared.push(batch);
      if (prepared.length > PREPARES_AT_ONCE) prepared.shift();
      written = done;
      inFlight.push(done);
    };
    const drain = async (keep: number) => {
      while (inFlight.length > keep) await inFlight.shift();
    };
    try {
      while (!this.cancelled) {
        // A local endpoint's reads and writes may all settle as microtasks: the server's sockets
        // and timers get their turn once a batch (else a large in-process job holds them for its whole run).
        await yieldToEventLoop();
        const page = await next;
        this.heardAt = Date.now();
        const caughtUp = page.results.length < workerBatchSize;
        // The next batch's changes are read while this one is prepared and written (its seq is
        // not committed before); a caught-up continuous job already waits for the next change
        // meanwhile, so a write landing during this batch travels without waiting for it.
        if (!caughtUp) next = read(page.lastSeq, false);
        else if (continuous) next = read(page.lastSeq, true);
        start(page.results, page.lastSeq);
        await drain(caughtUp ? 0 : BATCHES_IN_FLIGHT - 1);
        if (caughtUp) {
          this.changesPending = 0;
          if (!continuous) break;
          // Caught up with progress not checkpointed: the checkpoint is written when due, not
          // after the longpoll (up to LONGPOLL_MS) when no change comes meanwhile.
          if (!sameSeq(this.throughSeq, this.committedSeq)) await this.checkpointDueOr(next);
        }
        // Every `checkpoint_interval`, as CouchDB does (through the batches written by now); a
        // session's end checkpoints below.
        if (Date.now() - this.lastCheckpointAt >= this.settings.checkpointIntervalMs) await this.checkpoint();
      }
    } finally {
      // A cancelled job still finishes the batches under way: its checkpoint covers them.
      await Promise.all(inFlight.map((done) => done.catch(noop)));
    }
    await this.checkpoint();
    if (this.lastCheckpoint === undefined) return { ok: true, no_changes: true };
    // PouchDB's `last_seq` is for the checkpoint's readers, not part of CouchDB's answer.
    const { last_seq: _, ...answer } = this.lastCheckpoint;
    return { ok: true, ...answer };
  }

  /** Until the next checkpoint is due, or `next` (the changes being waited for) has settled. */
  private async checkpointDueOr(next: Promise<unknown>): Promise<void> {
    const dueIn = this.lastCheckpointAt + this.settings.checkpointIntervalMs - Date.now();
    if (dueIn <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    const due = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, dueIn);
    });
    try {
      await Promise.race([due, next.then(noop, noop)]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async resume(): Promise<void> {
    const id = checkpointId(this.settings.checkpointName ?? this.settings.replicationId);
    if (this.settings.useCheckpoints) {
      const [sourceLog, targetLog] = await Promise.all([this.source.getLocal(id), this.target.getLocal(id)]);
      this.localRevs = {
        ...(typeof sourceLog?._rev === 'string' ? { source: sourceLog._rev } : {}),
        ...(typeof targetLog?._rev === 'string' ? { target: targetLog._rev } : {}),
      };
      const point = resumePoint(sourceLog, targetLog);
      this.startSeq = point.since;
      this.history = point.history;
    }
    // `since_seq` wins over the checkpoints (CouchDB's rule).
    if (this.settings.sinceSeq !== undefined) this.startSeq = this.settings.sinceSeq;
    this.throughSeq = this.startSeq;
    this.committedSeq = this.startSeq;
  }

  /**
   * The first half of a batch: which revisions the target lacks (`_revs_diff`), and those read
   * from the source. It runs while the previous batch is written (the target and the source
   * each work meanwhile); nothing here changes the target.
   */
  private async prepareBatch(
    changes: readonly ChangeEntry[],
    /** Settles once the batch before has asked for its revisions. */
    turn: Promise<void>,
    /** Tells the next batch that this one has asked for its last revisions. */
    asked: () => void,
  ): Promise<Fetched[]> {
    const revs = new Map<string, string[]>();
    for (const change of changes) {
      const leaves = this.settings.winningRevsOnly ? change.changes.slice(0, 1) : change.changes;
      const known = revs.get(change.id) ?? [];
      for (const { rev } of leaves) if (!known.includes(rev)) known.push(rev);
      revs.set(change.id, known);
    }
    for (const list of revs.values()) this.stats.missing_checked += list.length;
    const missing = await this.target.revsDiff(revs);
    const wanted: Wanted[] = [];
    for (const [id, { missing: list, possibleAncestors }] of missing) {
      if (list.length === 0) continue;
      this.stats.missing_found += list.length;
      wanted.push({ id, revs: list, attsSince: possibleAncestors });
    }
    // The batches' fetches are asked for in their order, though their diffs may end in another:
    // a remote source decides how to ask for a batch from the one before (remote-endpoint.ts).
    await turn;
    const fetched: Fetched[] = [];
    for (let at = 0; at < wanted.length; at += FETCH_BATCH) {
      const fetching = this.fetch(wanted.slice(at, at + FETCH_BATCH));
      if (at + FETCH_BATCH >= wanted.length) asked();
      const slice = await fetching;
      this.stats.docs_read += slice.docs.length + slice.withParts.length + slice.stored.length;
      fetched.push(slice);
    }
    // Documents the source sent but could not be read (too deeply nested): failures of their own.
    const unreadable = this.source.takeUnreadable?.() ?? [];
    if (unreadable.length > 0) {
      this.stats.doc_write_failures += unreadable.length;
      for (const failure of unreadable) this.reportFailure(failure, 'read');
    }
    return fetched;
  }

  /** The second half of a batch: its documents written, refusals reported (a fatal one throws). */
  private async writeBatch(fetched: readonly Fetched[]): Promise<void> {
    // A batch is carried whole, even by a cancelled job: its checkpoint then covers it.
    for (const { docs, withParts, stored } of fetched) {
      const count = docs.length + withParts.length + stored.length;
      const failures = stored.length === 0 ? [] : await this.target.writeStored!(stored);
      if (docs.length > 0) failures.push(...(await this.target.write(docs)));
      if (withParts.length > 0 && this.target.writeAllWithParts !== undefined) {
        // A database of this server takes them together (one transaction).
        failures.push(...(await this.target.writeAllWithParts(withParts)));
      } else {
        // Small attachments go inline in one `_bulk_docs` where the target takes them so; the
        // others one by one (CouchDB's multipart PUT), a few at a time.
        let rest = withParts;
        if (withParts.length > 0 && this.target.writeInline !== undefined) {
          const inline = await this.target.writeInline(withParts);
          failures.push(...inline.failures);
          rest = inline.rest;
        }
        const concurrency = Math.min(PARTS_CONCURRENCY, this.settings.httpConnections ?? PARTS_CONCURRENCY);
        await eachConcurrently(rest, concurrency, async (doc) => {
          failures.push(...(await this.target.writeWithParts!(doc)));
        });
      }
      this.stats.docs_written += count - failures.length;
      this.stats.doc_write_failures += failures.length;
      for (const failure of failures) this.reportFailure(failure);
      const fatal = failures.find((failure) => !SKIPPED_STATUSES.has(failure.status));
      if (fatal !== undefined) {
        throw new CouchError(
          fatal.error,
          `The target refused document ${JSON.stringify(fatal.id)}: ${fatal.reason}`,
          fatal.status >= 400 ? fatal.status : 500,
        );
      }
    }
  }

  /**
   * The revisions of one fetch: as stored when both endpoints are databases of this server (the
   * text goes from store to store), else as documents.
   */
  private async fetch(wanted: readonly Wanted[]): Promise<Fetched> {
    if (this.source.fetchStored === undefined || this.target.writeStored === undefined) {
      return { ...(await this.fetchDocs(wanted)), stored: [] };
    }
    const { stored, others } = await this.source.fetchStored(wanted);
    const docs = others.length === 0 ? { docs: [], withParts: [] } : await this.fetchDocs(others);
    return { ...docs, stored };
  }

  /**
   * Revisions as documents: with attachment bytes beside the JSON when both endpoints can
   * (stored bytes travel as they are), else with their data inline.
   */
  private async fetchDocs(wanted: readonly Wanted[]): Promise<Omit<Fetched, 'stored'>> {
    if (this.source.fetchWithParts === undefined || this.target.writeWithParts === undefined) {
      return { docs: await this.source.fetch(wanted), withParts: [] };
    }
    const docs: JsonValue[] = [];
    const withParts: FetchedDoc[] = [];
    for (const fetched of await this.source.fetchWithParts(wanted)) {
      if (fetched.parts.size === 0) docs.push(fetched.doc);
      else withParts.push(fetched);
    }
    return { docs, withParts };
  }

  private reportFailure(failure: WriteFailure, side: 'read' | 'write' = 'write'): void {
    const rev = failure.rev === undefined ? '' : `, revision \`${failure.rev}\``;
    const where =
      side === 'write'
        ? `write document \`${failure.id}\`${rev}, to target`
        : `read document \`${failure.id}\` from source`;
    const database = side === 'write' ? this.target.shown : this.source.shown;
    this.settings.log(
      `Replicator: couldn't ${where} database \`${database}\`. ` +
        `Error: \`${failure.error}\`, reason: \`${failure.reason}\`. Replication ${this.settings.replicationId}.`,
    );
  }

  /**
   * Writes the checkpoint on both sides unless nothing moved since the last one. Without
   * `use_checkpoints` nothing is written, but the session's record is still what a one-shot answers.
   */
  private async checkpoint(): Promise<void> {
    this.lastCheckpointAt = Date.now();
    if (sameSeq(this.throughSeq, this.committedSeq)) return;
    if (!this.settings.useCheckpoints) {
      this.lastCheckpoint = checkpointBody(this.historyEntry(), this.history);
      this.committedSeq = this.throughSeq;
      return;
    }
    await this.commitCheckpoint().then(
      () => this.settings.meter?.('checkpoints.success'),
      (error: unknown) => {
        this.settings.meter?.('checkpoints.failure');
        throw error;
      },
    );
  }

  /** Writes the checkpoint document on both sides (each side checked to be the database the session began with). */
  private async commitCheckpoint(): Promise<void> {
    const [sourceInfo, targetInfo] = await Promise.all([this.source.info(), this.target.info()]);
    this.sourceSeq = sourceInfo.updateSeq;
    if (sourceInfo.instanceStartTime !== this.instances.source) {
      throw new CouchError(
        'replication_failed',
        `The source ${this.source.shown} was created again; restart the replication.`,
        409,
      );
    }
    if (targetInfo.instanceStartTime !== this.instances.target) {
      throw new CouchError(
        'replication_failed',
        `The target ${this.target.shown} was created again; restart the replication.`,
        409,
      );
    }
    // Batches go on being written meanwhile: what is committed is what the body says.
    const seq = this.throughSeq;
    const body = checkpointBody(this.historyEntry(), this.history);
    const id = checkpointId(this.settings.checkpointName ?? this.settings.replicationId);
    const withRev = (rev: string | undefined) => ({ _id: id, ...(rev === undefined ? {} : { _rev: rev }), ...body });
    this.localRevs.source = await this.source.putLocal(id, withRev(this.localRevs.source));
    this.localRevs.target = await this.target.putLocal(id, withRev(this.localRevs.target));
    this.committedSeq = seq;
    this.lastCheckpoint = body;
  }

  /** This session's entry of a checkpoint's `history`, as of now. */
  private historyEntry(): HistoryEntry {
    return {
      session_id: this.sessionId,
      start_time: this.startTime,
      end_time: rfc1123(),
      start_last_seq: this.startSeq,
      end_last_seq: this.throughSeq,
      recorded_seq: this.throughSeq,
      ...this.stats,
    };
  }

  /** The replication's counters now, as `_scheduler` shows a running job's `info` (CouchDB's fields). */
  info(pid: string): Record<string, unknown> {
    const task = this.task(pid);
    return {
      revisions_checked: task.revisions_checked,
      missing_revisions_found: task.missing_revisions_found,
      docs_read: task.docs_read,
      docs_written: task.docs_written,
      changes_pending: task.changes_pending,
      doc_write_failures: task.doc_write_failures,
      checkpointed_source_seq: task.checkpointed_source_seq,
      source_seq: task.source_seq,
      through_seq: task.through_seq,
    };
  }

  /** The session as `_active_tasks` shows a replication (CouchDB's fields). */
  task(pid: string): Record<string, unknown> {
    return {
      pid,
      type: 'replication',
      replication_id: this.settings.replicationId,
      doc_id: null,
      database: null,
      user: this.settings.user.name,
      source: this.source.shown,
      target: this.target.shown,
      continuous: this.settings.continuous,
      checkpointed_source_seq: this.committedSeq,
      source_seq: this.sourceSeq,
      through_seq: this.throughSeq,
      revisions_checked: this.stats.missing_checked,
      missing_revisions_found: this.stats.missing_found,
      docs_read: this.stats.docs_read,
      docs_written: this.stats.docs_written,
      doc_write_failures: this.stats.doc_write_failures,
      changes_pending: this.changesPending,
      checkpoint_interval: this.settings.checkpointIntervalMs,
      started_on: this.startedOn,
      updated_on: this.updatedOn,
    };
  }
}

function noop(): void {}

function sameSeq(a: Seq, b: Seq): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One fetch's revisions: those written in bulk, those with attachment bytes beside them, those as stored. */
interface Fetched {
  docs: JsonValue[];
  withParts: FetchedDoc[];
  stored: StoredRevision[];
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

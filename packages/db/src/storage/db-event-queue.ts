/**
 * The database events an engine records (`Storage.foldDbEvents`), queued in order and written in
 * batches, both engines. `updated` is recorded after the commit it follows, once per database per
 * batch (CouchDB's global_changes also coalesces them), so a write pays no second transaction of
 * its own; `created` and `deleted` are written before their call returns. A read flushes first,
 * so this storage's reads see every event it recorded.
 */
import type { DbEventType } from './records.js';

/**
 * A batch delay for engines whose event writes cost a transaction of their own (SQLite's events
 * file): CouchDB's global_changes `max_event_delay`, 25 ms. Without it a stream of
 * single-document writes paid that transaction for each write. Reads of the events flush first,
 * so nothing reads stale.
 */
export const COUCH_EVENT_DELAY_MS = 25;

export interface NewDbEvent {
  dbName: string;
  type: DbEventType;
}

export class DbEventQueue {
  private queued: NewDbEvent[] = [];
  /** Databases with an `updated` event in `queued`: one is enough. */
  private readonly updatedQueued = new Set<string>();
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();

  /**
   * `write` gives the events the next sequences, in order, in one transaction. `delayMs`: how
   * long a queued `updated` waits for others (0: until the current turn of the event loop ends).
   */
  constructor(
    private readonly write: (events: readonly NewDbEvent[]) => Promise<void>,
    private readonly delayMs = 0,
  ) {}

  /** A commit changed `dbName`'s documents: its `updated` event goes with the next batch. */
  updated(dbName: string): void {
    if (this.updatedQueued.has(dbName)) return;
    this.updatedQueued.add(dbName);
    this.queued.push({ dbName, type: 'updated' });
    if (this.scheduled) return;
    this.scheduled = true;
    // A failed batch is queued again by flush; the next write or read retries it.
    const flush = () => void this.flush().catch(() => {});
    if (this.delayMs > 0) setTimeout(flush, this.delayMs);
    else setImmediate(flush);
  }

  /** Records `created` or `deleted` after what is queued, and resolves once it is written. */
  record(dbName: string, type: 'created' | 'deleted'): Promise<void> {
    this.queued.push({ dbName, type });
    return this.flush();
  }

  /** Writes everything queued so far (after any batch already being written). */
  flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queued;
    this.queued = [];
    this.updatedQueued.clear();
    const run = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.write(batch);
      } catch (error) {
        // Kept for the next flush, before anything queued since.
        for (const event of batch) if (event.type === 'updated') this.updatedQueued.add(event.dbName);
        this.queued = [...batch, ...this.queued];
        throw error;
      }
    });
    this.writing = run.catch(() => {});
    return run;
  }
}

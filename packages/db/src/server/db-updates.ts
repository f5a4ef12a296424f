/**
 * The server's database events (`_db_updates`), read from storage, where every node records its
 * own (storage/contract.ts `foldDbEvents`): a feed on one node sees another node's databases
 * created, written and deleted. Waiting feeds learn of new events by polling the latest sequence
 * while anyone listens, as a database's change listeners do.
 */
import type { Storage } from '../storage/contract.js';
import type { DbEvent } from '../storage/records.js';

/** How often the latest event's sequence is read while a feed waits. */
const WATCH_MS = 200;

export type DbEventListener = (seq: number) => void;

export class DbUpdates {
  private readonly listeners = new Set<DbEventListener>();
  private watch: NodeJS.Timeout | undefined;

  constructor(private readonly storage: Storage) {}

  /** The events after `since`, by sequence (descending: newest first). */
  async *events(since: number, descending = false): AsyncGenerator<DbEvent> {
    for await (const page of this.storage.foldDbEvents(since, descending)) yield* page;
  }

  /** The latest event's sequence (0 before any). */
  seq(): Promise<number> {
    return this.storage.dbEventSeq();
  }

  /** Calls `listener` with the latest sequence every time it moves (first at the next poll). */
  onEvent(listener: DbEventListener): () => void {
    this.listeners.add(listener);
    this.watch ??= setInterval(() => void this.poll(), WATCH_MS).unref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.watch !== undefined) {
        clearInterval(this.watch);
        this.watch = undefined;
      }
    };
  }

  private async poll(): Promise<void> {
    let seq: number;
    try {
      seq = await this.seq();
    } catch {
      return; // storage away for a moment: the next poll tries again
    }
    for (const listener of this.listeners) listener(seq);
  }
}

/**
 * The server's database events (`_db_updates`), read from storage, where every node records its
 * own (storage/contract.ts `foldDbEvents`): a feed on one node sees another node's databases
 * created, written and deleted. Waiting feeds learn of new events by polling the latest sequence
 * while anyone listens (support/sequence-watch.ts, as a database's change listeners do).
 */
import type { Storage } from '../storage/contract.js';
import type { DbEvent } from '../storage/records.js';
import { SequenceWatch } from '../support/sequence-watch.js';

/** How often the latest event's sequence is read while a feed waits. */
const WATCH_MS = 200;

export type DbEventListener = (seq: number) => void;

export class DbUpdates {
  private readonly watch = new SequenceWatch(() => this.seq(), WATCH_MS);

  constructor(private readonly storage: Storage) {}

  /** The events after `since`, by sequence (descending: newest first). */
  async *events(since: number, descending = false): AsyncGenerator<DbEvent> {
    for await (const page of this.storage.foldDbEvents(since, descending)) yield* page;
  }

  /** The latest event's sequence (0 before any). */
  seq(): Promise<number> {
    return this.storage.dbEventSeq();
  }

  /** Calls `listener` with the latest sequence at the next poll, then every time it moves. */
  onEvent(listener: DbEventListener): () => void {
    return this.watch.listen(listener);
  }
}

/**
 * A follower of the authentication database's changes (`_users`), for the server's features that
 * act on accounts (couch_peruser's databases, per-document access's role log): it reads the
 * changes after the last it handled whenever the database says it moved, and polls while the
 * database does not exist yet; one pass at a time, another pass queued when a change comes
 * during one.
 */
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { ChangedDoc } from '../storage/records.js';

/** What a follower needs of the server. */
export interface UsersFollowerServer {
  readonly authenticationDb: string;
  db(name: string): Promise<Database>;
  log(line: string): void;
}

/** An account document's id prefix; the rest is the user name. */
export const USER_PREFIX = 'org.couchdb.user:';
/** How often a follower looks again when nothing told it of a change (a users database made later). */
const POLL_MS = 1_000;

export interface UsersFollowerOptions {
  /** Names the follower in error lines. */
  label: string;
  /** Where to start in a users database first seen: 0 (every account), or its current sequence. */
  startAt(users: Database): Promise<number>;
  /** Handles one change of the users database, in sequence order. */
  apply(change: ChangedDoc): Promise<void>;
}

export class UsersFollower {
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private watched: Database | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly server: UsersFollowerServer,
    private readonly options: UsersFollowerOptions,
  ) {}

  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Starts following (from `startAt` of the users database as it is then). */
  start(): void {
    if (this.timer !== undefined) return;
    this.watched = undefined;
    this.timer = setInterval(() => this.kick(), POLL_MS).unref();
    this.kick();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.watched = undefined;
  }

  /** Resolves once every change seen so far is handled (for tests and a clean shutdown). */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private kick(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.follow()
      .catch((error: unknown) => this.server.log(`[error] ${this.options.label}: ${(error as Error).message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again && this.timer !== undefined) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async follow(): Promise<void> {
    if (this.timer === undefined) return;
    let users: Database;
    try {
      users = await this.server.db(this.server.authenticationDb);
    } catch (error) {
      if (error instanceof CouchError && error.status === 404) return; // made later: the poll finds it
      throw error;
    }
    if (this.watched !== users) {
      this.unsubscribe?.();
      this.watched = users;
      this.since = await this.options.startAt(users);
      this.unsubscribe = users.onChange(() => this.kick());
    }
    for await (const page of users.foldChangedBodies(this.since)) {
      for (const change of page) {
        await this.options.apply(change);
        this.since = change.seq;
      }
    }
  }
}

/**
 * CouchDB 3's `couch_peruser`, for apps that keep the database-per-user model: with
 * `[couch_peruser] enable = true`, every account of the authentication database gets a private
 * database named `userdb-` (`database_prefix`) and the hex of the UTF-8 name, whose `_security`
 * makes the user its only admin and member; with `delete_dbs = true`, deleting the account
 * deletes the database. It follows the authentication database's changes, from the start each
 * time it is enabled (creating what exists already changes nothing), on every node sharing a
 * storage (two nodes creating one database: one of them finds it made).
 */
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { ConfigSections } from './config.js';

export interface PerUserSettings {
  enable: boolean;
  deleteDbs: boolean;
  prefix: string;
}

export function perUserSettings(config: ConfigSections): PerUserSettings {
  const section = config.couch_peruser ?? {};
  return {
    enable: section.enable === 'true',
    deleteDbs: section.delete_dbs === 'true',
    prefix: section.database_prefix || 'userdb-',
  };
}

/** A user's private database name: the prefix and the hex of the name's UTF-8 bytes. */
export function userDbName(prefix: string, name: string): string {
  return `${prefix}${Buffer.from(name, 'utf8').toString('hex')}`;
}

/** What the follower needs of the server. */
export interface PerUserServer {
  readonly authenticationDb: string;
  db(name: string): Promise<Database>;
  createDb(name: string): Promise<Database>;
  deleteDb(name: string): Promise<void>;
  log(line: string): void;
}

const USER_PREFIX = 'org.couchdb.user:';
/** How often a follower looks again when nothing told it of a change (a users database made later). */
const POLL_MS = 1_000;

export class PerUserDatabases {
  private settings: PerUserSettings = { enable: false, deleteDbs: false, prefix: 'userdb-' };
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private watched: Database | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly server: PerUserServer) {}

  /** Applies the config: starts following from the beginning when enabled, stops when not. */
  configure(settings: PerUserSettings): void {
    const was = this.settings;
    this.settings = settings;
    if (settings.enable && !was.enable) {
      this.since = 0;
      this.timer = setInterval(() => this.kick(), POLL_MS).unref();
      this.kick();
    } else if (!settings.enable && was.enable) this.stop();
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
      .catch((error: unknown) => this.server.log(`[error] couch_peruser: ${(error as Error).message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again && this.settings.enable) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async follow(): Promise<void> {
    if (!this.settings.enable) return;
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
      this.since = 0;
      this.unsubscribe = users.onChange(() => this.kick());
    }
    for await (const page of users.foldChangedBodies(this.since)) {
      for (const change of page) {
        if (change.id.startsWith(USER_PREFIX)) await this.apply(change.id.slice(USER_PREFIX.length), change.deleted);
        this.since = change.seq;
      }
    }
  }

  private async apply(name: string, deleted: boolean): Promise<void> {
    const dbName = userDbName(this.settings.prefix, name);
    if (deleted) {
      if (!this.settings.deleteDbs) return;
      try {
        await this.server.deleteDb(dbName);
      } catch (error) {
        if (!(error instanceof CouchError && error.status === 404)) throw error;
      }
      return;
    }
    let db: Database;
    try {
      db = await this.server.createDb(dbName);
    } catch (error) {
      if (error instanceof CouchError && error.status === 412) return; // there already
      throw error;
    }
    await db.setSecurity({ admins: { names: [name], roles: [] }, members: { names: [name], roles: [] } });
  }
}

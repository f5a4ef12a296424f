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
import { USER_PREFIX, UsersFollower, type UsersFollowerServer } from './users-follower.js';

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
export interface PerUserServer extends UsersFollowerServer {
  createDb(name: string): Promise<Database>;
  deleteDb(name: string): Promise<void>;
}

export class PerUserDatabases {
  private settings: PerUserSettings = { enable: false, deleteDbs: false, prefix: 'userdb-' };
  private readonly follower: UsersFollower;

  constructor(private readonly server: PerUserServer) {
    this.follower = new UsersFollower(server, {
      label: 'couch_peruser',
      // Every account, each time it is enabled: creating what exists already changes nothing.
      startAt: async () => 0,
      apply: async (change) => {
        if (change.id.startsWith(USER_PREFIX)) await this.apply(change.id.slice(USER_PREFIX.length), change.deleted);
      },
    });
  }

  /** Applies the config: starts following from the beginning when enabled, stops when not. */
  configure(settings: PerUserSettings): void {
    const was = this.settings;
    this.settings = settings;
    if (settings.enable && !was.enable) this.follower.start();
    else if (!settings.enable && was.enable) this.follower.stop();
  }

  stop(): void {
    this.follower.stop();
  }

  /** Resolves once every change seen so far is handled (for tests and a clean shutdown). */
  settled(): Promise<void> {
    return this.follower.settled();
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

/**
 * Role changes in `_users` reach the feeds of access-enabled databases at once (per-document
 * `_access`, documents/access-roles.ts): this follower reads the authentication database's
 * changes and records each changed account's roles in the role log of every access-enabled
 * database open on this node, which moves its sequence and wakes its waiting feeds (other
 * nodes' feeds see the sequence move; each node's follower does the same for what it has open).
 * A database not open here records a user's roles at that user's next feed request instead.
 */
import { principalsOf } from '../documents/access-rules.js';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';

/** What the follower needs of the server. */
export interface RoleFollowerServer {
  readonly authenticationDb: string;
  db(name: string): Promise<Database>;
  /** The databases open on this node. */
  openDatabases(): Iterable<Database>;
  log(line: string): void;
}

const USER_PREFIX = 'org.couchdb.user:';
/** How often the follower looks again when nothing told it of a change (a users database made later). */
const POLL_MS = 1_000;

export class AccessRoleFollower {
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private watched: Database | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly server: RoleFollowerServer) {}

  start(): void {
    if (this.timer !== undefined) return;
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
      .catch((error: unknown) => this.server.log(`[error] access roles: ${(error as Error).message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again && this.timer !== undefined) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async follow(): Promise<void> {
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
      // Accounts as they are now are recorded when first asked for: only later changes matter here.
      this.since = await users.updateSeq();
      this.unsubscribe = users.onChange(() => this.kick());
    }
    for await (const page of users.foldChangedBodies(this.since)) {
      for (const change of page) {
        if (change.id.startsWith(USER_PREFIX) && !change.deleted && change.body !== undefined) {
          const version = Number(change.rev.slice(0, change.rev.indexOf('-')));
          await this.record(change.id.slice(USER_PREFIX.length), rolesOf(change.body), version);
        }
        this.since = change.seq;
      }
    }
  }

  /** `version`: the account document's revision number (a late record of an older one changes nothing). */
  private async record(name: string, roles: string[], version: number): Promise<void> {
    const principals = principalsOf({ name, roles });
    for (const db of [...this.server.openDatabases()]) {
      if (!(await db.accessEnabled())) continue;
      const { seq } = await db.store.recordRoles(name, roles, principals, version);
      if (seq !== undefined) db.notifyChanged(seq);
    }
  }
}

/** The `roles` of a user document's body text (strings only). */
function rolesOf(body: string): string[] {
  const parsed = JSON.parse(body) as { roles?: unknown };
  return Array.isArray(parsed.roles) ? parsed.roles.filter((role): role is string => typeof role === 'string') : [];
}

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
import { USER_PREFIX, UsersFollower, type UsersFollowerServer } from './users-follower.js';

/** What the follower needs of the server. */
export interface RoleFollowerServer extends UsersFollowerServer {
  /** The databases open on this node. */
  openDatabases(): Iterable<Database>;
}

export class AccessRoleFollower {
  private readonly follower: UsersFollower;

  constructor(private readonly server: RoleFollowerServer) {
    this.follower = new UsersFollower(server, {
      label: 'access roles',
      // Accounts as they are now are recorded when first asked for: only later changes matter here.
      startAt: (users) => users.updateSeq(),
      apply: async (change) => {
        if (change.id.startsWith(USER_PREFIX) && !change.deleted && change.body !== undefined) {
          const version = Number(change.rev.slice(0, change.rev.indexOf('-')));
          await this.record(change.id.slice(USER_PREFIX.length), rolesOf(change.body), version);
        }
      },
    });
  }

  start(): void {
    this.follower.start();
  }

  stop(): void {
    this.follower.stop();
  }

  /** Resolves once every change seen so far is handled (for tests and a clean shutdown). */
  settled(): Promise<void> {
    return this.follower.settled();
  }

  /** `version`: the account document's revision number (a late record of an older one changes nothing). */
  private async record(name: string, roles: string[], version: number): Promise<void> {
    const principals = principalsOf({ name, roles });
    for (const db of [...this.server.openDatabases()]) {
      if (!(await db.accessEnabled())) continue;
      await db.recordRoles(name, roles, principals, version);
    }
  }
}

/** The `roles` of a user document's body text (strings only). */
function rolesOf(body: string): string[] {
  const parsed = JSON.parse(body) as { roles?: unknown };
  return Array.isArray(parsed.roles) ? parsed.roles.filter((role): role is string => typeof role === 'string') : [];
}

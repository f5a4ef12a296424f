/**
 * Authorization of every database route, before its handler runs: the caller must be a member
 * of the database (`_security`), and some endpoints need more. Each route of `/:db/...` declares
 * its level (routes.ts), so every one (Mango's included) is covered without a check in its handler.
 * Checks follow CouchDB's order: the member check first, then the admin check of the action.
 */
import { isDbAdmin, requireAdmin, requireDbAdmin, requireDbAdminForMaintenance, requireMember } from '../auth/index.js';
import { CouchError } from '../errors.js';
import type { RouteInfo } from '@divan/router';
import type { RequestContext } from './context.js';
import { checkReaderRoute } from './access-readers.js';
import { type AccessReader, USERS_ROLE, withUsersRole } from '../documents/access-rules.js';

/**
 * Who may call an endpoint of a database, declared with the endpoint in routes.ts. The levels
 * follow CouchDB's checks; "a users database" is `_users` or any database named `.../_users`.
 * - `none`: no database check (the error answers; creating and deleting a database, whose
 *   handlers ask for a server admin before anything else);
 * - `member`: members of the database (`_security`); in a users database, its DB admins only
 *   (the answer could carry other users' documents);
 * - `member-own-doc`: members, in a users database too: there a member reaches only their own
 *   document (checkUsersDbRead below, the `_users` write rules);
 * - `feed`: a feed of every document: server admins only on `_users` and `_replicator` (CouchDB
 *   3), else as `member`;
 * - `feed-ids`: as `feed`, and in a users database a member may read the ids, not the documents
 *   (`include_docs`, `conflicts`: DB admins only);
 * - `db-admin`: settings and index definitions (Mango indexes are design documents): 401 for
 *   anonymous, 403 for a signed-in member;
 * - `db-admin-maintenance`: `_compact` and `_view_cleanup`: a 401 "not a server or db admin" for members;
 * - `server-admin`: server admins only, whatever `_security` says (every other caller gets that 401).
 */
export type Access =
  | 'none'
  | 'member'
  | 'member-own-doc'
  | 'feed'
  | 'feed-ids'
  | 'db-admin'
  | 'db-admin-maintenance'
  | 'server-admin';

/** Authorizes the caller for the database route matched, at the level the route declares. */
export async function authorizeDb(ctx: RequestContext, route: RouteInfo): Promise<void> {
  const access = accessOf(route);
  if (access === 'none') return;
  if (access === 'server-admin') requireAdmin(ctx.user);
  const name = String(ctx.params.db);
  const db = ctx.server.openDb(name) ?? (await ctx.server.db(name));
  const security = await db.security();
  // In an access-enabled database every signed-in user holds `_users` (documents/access-rules.ts).
  const user = (await db.accessEnabled()) ? withUsersRole(ctx.user) : ctx.user;
  const feed = access === 'feed' || access === 'feed-ids';
  if (feed && (name === '_users' || name === '_replicator')) requireAdmin(ctx.user);
  requireMember(user, security);
  if (access === 'db-admin-maintenance') requireDbAdminForMaintenance(user, security);
  if (access === 'db-admin') requireDbAdmin(user, security);
  // The one rule of a single endpoint: `_users`' own `_security` is fixed unless configured.
  if (
    route.handler === 'databases' &&
    route.action === 'setSecurity' &&
    name === '_users' &&
    !ctx.server.usersDbSecurityEditable
  ) {
    throw new CouchError('forbidden', "You can't edit the security object of the user database.");
  }
  const dbAdmin = isDbAdmin(user, security);
  if (!dbAdmin && ctx.server.isUsersDb(name)) checkUsersDbAccess(ctx, access);
  const reader = dbAdmin ? undefined : await db.accessReaderOf(ctx.user, security);
  // A feed reads the reader's roles as `_users` has them now, or as the request gives them
  // (documents/access-roles.ts).
  const userName = ctx.user.name;
  if (reader !== undefined && userName !== null) reader.account = accountOf(ctx, userName);
  if (reader !== undefined) checkReaderRoute(route);
  ctx.access = { db, security, dbAdmin, ...(reader === undefined ? {} : { reader }) };
}

/**
 * Where a reader's feed takes their roles from. A user of a JWT or a proxy holds the roles the
 * request gives (the token's, the proxy's header), whatever `_users` says: the feed records those
 * in a role log of their own (`log`), so a role first seen on a request back-fills its older
 * documents then, and one no longer given reports its documents as removed. Requests are ordered
 * by the time they arrive (there is no account revision to order them by).
 */
function accountOf(ctx: RequestContext, name: string): NonNullable<AccessReader['account']> {
  if (ctx.authenticatedBy === 'jwt' || ctx.authenticatedBy === 'proxy') {
    const roles = ctx.user.roles.filter((role) => role !== USERS_ROLE);
    return { name, log: `${REQUEST_ROLES}${name}`, roles: async () => ({ roles, version: Date.now() }) };
  }
  return { name, roles: () => ctx.server.accountRoles(name) };
}

/**
 * The role log's name of a user whose roles come with their requests: no account name in
 * `_users` starts with an underscore, so it never meets an account's log (ordered by revision
 * numbers).
 */
const REQUEST_ROLES = '_request:';

/** A database route without a level is refused, never opened. */
function accessOf(route: RouteInfo): Access {
  const access = route.defaults.access;
  if (typeof access !== 'string') throw new Error(`The route ${route.verb} ${route.path} declares no access level`);
  return access as Access;
}

/**
 * CouchDB strips other users' documents from what members read (`_all_docs` lists ids, their
 * docs come back null); here the reads that could carry documents are refused instead.
 */
function checkUsersDbAccess(ctx: RequestContext, access: Access): void {
  if (access === 'member-own-doc') return;
  const includeDocs = ctx.query.get('include_docs') === 'true' || ctx.query.has('conflicts');
  if (access === 'feed-ids' && !includeDocs) return;
  throw new CouchError('forbidden', "Only administrators can read other users' documents in the users database.");
}

/**
 * Reading a document of a users database: DB admins read all; anyone else only their own
 * document (others' are 404, design documents 403), as couch_users_db strips them.
 */
export function checkUsersDbRead(ctx: RequestContext, id: string): void {
  const access = ctx.access;
  if (access === undefined || access.dbAdmin || !ctx.server.isUsersDb(access.db.name)) return;
  if (id.startsWith('_design/')) {
    throw new CouchError('forbidden', 'Only administrators can view design docs in the users database.');
  }
  if (ctx.user.name === null || id !== `org.couchdb.user:${ctx.user.name}`)
    throw new CouchError('not_found', 'missing');
}

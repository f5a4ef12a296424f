/**
 * Authorization of every database route, before its handler runs: the caller must be a member
 * of the database (`_security`), and some actions need more. Decided here per handler action,
 * so each route of `/:db/...` (Mango's included) is covered without a check in its handler.
 * Checks follow CouchDB's order: the member check first, then the admin check of the action.
 */
import { isDbAdmin, requireAdmin, requireDbAdmin, requireDbAdminForMaintenance, requireMember } from '../auth/index.js';
import { isUsersDb } from '../documents/users-db.js';
import { CouchError } from '../errors.js';
import type { RequestContext } from './context.js';

/** Creating and deleting a database: their handlers ask for a server admin before anything else. */
const NO_DATABASE_CHECK = new Set(['databases#create', 'databases#destroy']);
/** Server admins only, whatever `_security` says (every other caller gets that 401). */
const SERVER_ADMIN_ONLY = new Set(['maintenance#purge']);
/** `_compact` and `_view_cleanup`: a 401 "not a server or db admin" for plain members. */
const DB_ADMIN_MAINTENANCE = new Set(['maintenance#compact', 'maintenance#compactViews', 'views#cleanup']);
/** Settings and index definitions (Mango indexes are design documents). */
const DB_ADMIN = new Set([
  'databases#setSecurity',
  'databases#setRevsLimit',
  'maintenance#setPurgedInfosLimit',
  'mango#createIndex',
  'mango#deleteIndex',
  'mango#bulkDeleteIndexes',
]);
/** Feeds of every document: server admins only on the system databases `_users` and `_replicator` (CouchDB 3). */
const SYSTEM_DB_FEEDS = new Set([
  'all_docs#index',
  'all_docs#query',
  'all_docs#queries',
  'changes#index',
  'changes#query',
]);

export async function authorizeDb(ctx: RequestContext, action: string): Promise<void> {
  if (NO_DATABASE_CHECK.has(action) || action.startsWith('errors#')) return;
  if (SERVER_ADMIN_ONLY.has(action)) requireAdmin(ctx.user);
  const name = String(ctx.params.db);
  const db = await ctx.server.db(name);
  const security = await db.security();
  if ((name === '_users' || name === '_replicator') && SYSTEM_DB_FEEDS.has(action)) requireAdmin(ctx.user);
  requireMember(ctx.user, security);
  if (DB_ADMIN_MAINTENANCE.has(action)) requireDbAdminForMaintenance(ctx.user, security);
  if (DB_ADMIN.has(action)) requireDbAdmin(ctx.user, security);
  if (action === 'databases#setSecurity' && name === '_users' && !ctx.server.usersDbSecurityEditable) {
    throw new CouchError('forbidden', "You can't edit the security object of the user database.");
  }
  const dbAdmin = isDbAdmin(ctx.user, security);
  if (!dbAdmin && isUsersDb(name)) checkUsersDbAction(ctx, action);
  ctx.access = { db, security, dbAdmin };
}

/** What a member who is not DB admin may do in a users database: nothing that reads others' documents. */
const USERS_DB_MEMBER_ACTIONS = new Set([
  'databases#show',
  'databases#security',
  'databases#ensureFullCommit',
  'documents#show',
  'documents#update',
  'documents#create',
  'documents#destroy',
  'documents#copy',
  'attachments#show',
  'attachments#update',
  'attachments#destroy',
  'bulk#docs',
  'bulk#revsDiff',
  'bulk#missingRevs',
  'all_docs#index',
  'changes#index',
]);

/**
 * CouchDB strips other users' documents from what members read (`_all_docs` lists ids, their
 * docs come back null); here the reads that could carry documents are refused instead.
 */
function checkUsersDbAction(ctx: RequestContext, action: string): void {
  const includeDocs = ctx.query.get('include_docs') === 'true' || ctx.query.has('conflicts');
  if (
    USERS_DB_MEMBER_ACTIONS.has(action) &&
    !(includeDocs && (action === 'all_docs#index' || action === 'changes#index'))
  ) {
    return;
  }
  throw new CouchError('forbidden', "Only administrators can read other users' documents in the users database.");
}

/**
 * Reading a document of a users database: DB admins read all; anyone else only their own
 * document (others' are 404, design documents 403), as couch_users_db strips them.
 */
export function checkUsersDbRead(ctx: RequestContext, id: string): void {
  const access = ctx.access;
  if (access === undefined || access.dbAdmin || !isUsersDb(access.db.name)) return;
  if (id.startsWith('_design/')) {
    throw new CouchError('forbidden', 'Only administrators can view design docs in the users database.');
  }
  if (ctx.user.name === null || id !== `org.couchdb.user:${ctx.user.name}`)
    throw new CouchError('not_found', 'missing');
}

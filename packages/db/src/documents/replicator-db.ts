/**
 * Replication documents (`_replicator` and any `…/_replicator` database): the rules every write
 * of one passes, whoever writes it (HTTP, the embedded API, a replication into the database), as
 * CouchDB 3.5's replicator database applies them — its `before_doc_update` (the `owner` member is
 * the writer; only admins write other users' documents) and its validation (a malformed document
 * is refused with a 403 and the reason CouchDB gives). One rule goes beyond CouchDB: a writer who
 * is not an admin cannot take someone else's document over by rewriting it without `owner`
 * (CouchDB then sets `owner` to the new writer).
 *
 * The replicator itself writes the documents' states back with the `_replicator` role, which the
 * rules let through, as CouchDB's does.
 */
import { isAdmin, type UserCtx } from '../auth/index.js';
import { CouchError } from '../errors.js';
import { JsonObject, toPlain } from '../json/index.js';

/** The role the replicator writes states back with (CouchDB's). */
export const REPLICATOR_ROLE = '_replicator';

/** `_replicator` and any database whose last path segment is `_replicator`, as in CouchDB. */
export function isReplicatorDb(name: string): boolean {
  return name === '_replicator' || name.endsWith('/_replicator');
}

export interface ReplicatorWrite {
  id: string;
  /** The new body (without `_` members other than `_replication_*`), or undefined for a deletion. */
  body: JsonObject | undefined;
  /** The current document as plain JSON, or null. */
  oldDoc: Record<string, unknown> | null;
  user: UserCtx;
  /** The writer administers the database (CouchDB's `check_is_admin`). */
  dbAdmin: boolean;
}

/**
 * Checks one write; answers the body to store (with `owner` set) or throws a 403 `forbidden`.
 * Deletions answer undefined.
 */
export function checkReplicatorWrite(write: ReplicatorWrite): JsonObject | undefined {
  const { user, body, oldDoc } = write;
  if (user.roles.includes(REPLICATOR_ROLE)) return body;
  const oldOwner = oldDoc === null ? undefined : oldDoc.owner;
  const ownsOld = oldDoc === null || oldOwner === undefined || oldOwner === null || oldOwner === user.name;
  if (body === undefined) {
    if (!write.dbAdmin && !ownsOld)
      forbid('Replication documents can only be deleted by admins or by the users who created them.');
    return undefined;
  }
  const withOwner = ownerSet(body, write);
  // Beyond CouchDB: rewriting someone else's document without `owner` does not take it over.
  if (!write.dbAdmin && !ownsOld) forbid("Can't update replication documents from other users.");
  // A document the replicator marked failed may be malformed: it is never run again.
  if (withOwner.get('_replication_state') === 'failed') return withOwner;
  validate(plain(withOwner), user);
  return withOwner;
}

/** CouchDB's before_doc_update: `owner` is the writer unless an admin names someone else. */
function ownerSet(body: JsonObject, write: ReplicatorWrite): JsonObject {
  const owner = body.get('owner');
  const name = write.user.name;
  if (owner === undefined || (owner === null && write.dbAdmin)) return copyWith(body, 'owner', name);
  if (owner === name || write.dbAdmin) return body;
  return forbid("Can't update replication documents from other users.");
}

function copyWith(body: JsonObject, key: string, value: string | null): JsonObject {
  const copy = new JsonObject([...body.keys], [...body.values]);
  copy.set(key, value);
  return copy;
}

/** CouchDB's validation of a replication document, its reasons word for word. */
function validate(doc: Record<string, unknown>, user: UserCtx): void {
  endpoint(doc.source, 'source');
  endpoint(doc.target, 'target');
  if (doc.create_target !== undefined && typeof doc.create_target !== 'boolean') {
    forbid("The `create_target' field must be a boolean.");
  }
  if (doc.continuous !== undefined && typeof doc.continuous !== 'boolean') {
    forbid("The `continuous' field must be a boolean.");
  }
  if (doc.doc_ids !== undefined && !Array.isArray(doc.doc_ids)) {
    forbid("The `doc_ids' field must be an array of strings.");
  }
  if (doc.selector !== undefined && typeof doc.selector !== 'object') forbid("The `selector' field must be an object.");
  if (doc.filter !== undefined && (typeof doc.filter !== 'string' || doc.filter === '')) {
    forbid("The `filter' field must be a non-empty string.");
  }
  if (doc.doc_ids !== undefined && doc.selector !== undefined)
    forbid("`doc_ids' field is incompatible with `selector'.");
  if ((doc.doc_ids !== undefined || doc.selector !== undefined) && doc.filter !== undefined) {
    forbid("`filter' field is incompatible with `selector' and `doc_ids'.");
  }
  if (doc.query_params !== undefined && (typeof doc.query_params !== 'object' || doc.query_params === null)) {
    forbid("The `query_params' field must be an object.");
  }
  const admin = isAdmin(user);
  // A falsy `user_ctx` counts as missing, as in CouchDB's check.
  if (!doc.user_ctx) {
    if (!admin) forbid("The `user_ctx' property is missing (it is optional for admins only).");
    return;
  }
  const ctx = doc.user_ctx as Record<string, unknown>;
  if (typeof ctx !== 'object') forbid("The `user_ctx' property must be a non-null object.");
  if (!(ctx.name === null || ctx.name === undefined || (typeof ctx.name === 'string' && ctx.name.length > 0))) {
    forbid("The `user_ctx.name' property must be a non-empty string or null.");
  }
  if (!admin && (ctx.name ?? undefined) !== (user.name ?? undefined)) forbid("The given `user_ctx.name' is not valid");
  if (ctx.roles !== undefined && ctx.roles !== null && !Array.isArray(ctx.roles)) {
    forbid("The `user_ctx.roles' property must be an array of strings.");
  }
  if (!admin && Array.isArray(ctx.roles)) {
    for (const role of ctx.roles) {
      if (typeof role !== 'string' || role.length === 0) forbid('Roles must be non-empty strings.');
      if (!user.roles.includes(role as string)) forbid(`Invalid role (\`${String(role)}') in the \`user_ctx'`);
    }
  }
}

function endpoint(value: unknown, field: string): void {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) {
    forbid(`The \`${field}' property must exist and be either a string or an object.`);
  }
  if (typeof value !== 'object' || value === null) return;
  const spec = value as Record<string, unknown>;
  if (typeof spec.url !== 'string' || spec.url === '') {
    forbid(`The url property must exist in the \`${field}' field and must be a non-empty string.`);
  }
  if (spec.auth !== undefined && (typeof spec.auth !== 'object' || spec.auth === null)) {
    forbid(`\`${field}.auth' must be a non-null object.`);
  }
  if (spec.headers !== undefined && (typeof spec.headers !== 'object' || spec.headers === null)) {
    forbid(`\`${field}.headers' must be a non-null object.`);
  }
}

function plain(body: JsonObject): Record<string, unknown> {
  return toPlain(body) as Record<string, unknown>;
}

function forbid(reason: string): never {
  throw new CouchError('forbidden', reason, 403);
}

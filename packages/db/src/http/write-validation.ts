/**
 * The checks every document write of a request passes before it is stored, in CouchDB's order:
 * design documents need a DB admin; a replicator database takes no replication document (server-
 * side replication is not available: server/replication.ts), only deletions of those it holds;
 * in a users database the password is hashed and the `_users` rules apply; then each design
 * document's `validate_doc_update`, in id order, with `(newDoc, oldDoc, userCtx, secObj)`.
 * `_local` documents are never checked.
 */
import { requireDbAdmin } from '../auth/index.js';
import { USER_PREFIX, hashUserPassword, isUsersDb, validateUserDoc } from '../auth/users-db.js';
import { isReplicatorDb, replicationUnavailable } from '../server/replication.js';
import { isDesignId, isLocalId } from '../documents/doc-id.js';
import type { DocInput } from '../documents/doc-input.js';
import type { Database, WriteValidator } from '../documents/database.js';
import { CouchError } from '../errors.js';
import { toPlain } from '../json/index.js';
import { formatRev, parseRev, type Rev } from '../revisions/index.js';
import type { NewAttachment } from '../documents/attachment-resolve.js';
import { ValidateRunner, type ValidateFunction } from '../sandbox/validate-runner.js';
import type { RequestContext } from './context.js';
import { DESIGN_PREFIX } from '../documents/doc-id.js';

/** A validate function's refusal: its reason goes out as the JSON it threw (a string, a number, an object). */
class ValidateRefusal extends CouchError {
  constructor(
    error: string,
    readonly value: unknown,
    status: number,
  ) {
    super(error, typeof value === 'string' ? value : JSON.stringify(value), status);
  }

  override toJSON(): { error: string; reason: string } {
    return { error: this.error, reason: this.value as string };
  }
}

/** The validator for the writes of this request (its database must be authorized: ctx.access). */
export function writeValidatorOf(ctx: RequestContext): WriteValidator {
  return async (items, newEdits) => {
    const access = ctx.access;
    if (access === undefined) throw new Error('write without an authorized database');
    const { db, security, dbAdmin } = access;
    const usersDb = isUsersDb(db.name);
    const replicatorDb = isReplicatorDb(db.name);
    // Looked up at the first document a validate function may judge, never for `_local` and design
    // documents: a replication checkpoint's write reads no design documents.
    let runner: ValidateRunner | undefined;
    const userCtx = { db: db.name, name: ctx.user.name, roles: ctx.user.roles };
    const refusals: (CouchError | undefined)[] = [];
    for (const { id, input } of items) {
      if (isLocalId(id)) {
        refusals.push(undefined);
        continue;
      }
      // Outside the try: a storage failure here fails the whole request, as any read would.
      const functions = isDesignId(id) ? undefined : (runner ??= await validateRunnerOf(db));
      try {
        if (functions === undefined) {
          requireDbAdmin(ctx.user, security);
          refusals.push(undefined);
          continue;
        }
        // Stored, the document would say a replication was scheduled that never runs.
        if (replicatorDb && !input.deleted) throw replicationUnavailable();
        if (usersDb && !dbAdmin && ctx.user.name !== null && id !== USER_PREFIX + ctx.user.name) {
          // Someone else's user document does not exist for this writer (the whole request).
          throw Object.assign(new CouchError('not_found', 'missing'), { wholeRequest: true });
        }
        if (usersDb && !input.deleted) {
          const hashed = await hashUserPassword(input.body, ctx.server.hashIterations);
          if (hashed !== undefined) {
            input.body = hashed;
            input.json = undefined;
          }
        }
        if (!usersDb && functions.size === 0) {
          refusals.push(undefined);
          continue;
        }
        const old = await db.winningBody(id);
        let oldDoc: Record<string, unknown> | null = null;
        if (old !== undefined) {
          oldDoc = { _id: id, _rev: old.rev, ...plainBody(old.body) };
          const atts = (await db.revisionAttachments(id, parseRev(old.rev))) ?? [];
          if (atts.length > 0) oldDoc._attachments = stubsOf(atts);
          oldDoc = withRevisions(oldDoc, old.rev);
        }
        const newDoc = newDocOf(id, input, newEdits);
        if (usersDb) validateUserDoc({ newDoc, oldDoc, user: ctx.user, dbAdmin });
        const outcome = await functions.validate(newDoc, oldDoc, userCtx, security);
        if (!outcome.ok) {
          refusals.push(
            outcome.status === 401 || outcome.status === 403
              ? new ValidateRefusal(outcome.error, outcome.reason, outcome.status)
              : new CouchError(outcome.error, String(outcome.reason), outcome.status),
          );
          continue;
        }
        refusals.push(undefined);
      } catch (error) {
        if (!(error instanceof CouchError) || (error as { wholeRequest?: boolean }).wholeRequest) throw error;
        refusals.push(error);
      }
    }
    return refusals;
  };
}

function plainBody(body: unknown): Record<string, unknown> {
  const plain = toPlain(body as never);
  return typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : {};
}

function withRevisions(doc: Record<string, unknown>, rev: string): Record<string, unknown> {
  const dash = rev.indexOf('-');
  return { ...doc, _revisions: { start: Number(rev.slice(0, dash)), ids: [rev.slice(dash + 1)] } };
}

/** `newDoc` as CouchDB hands it over: `_id`, the parent `_rev`, the members, `_deleted`, `_revisions`. */
function newDocOf(id: string, input: DocInput, newEdits: boolean): Record<string, unknown> {
  const doc: Record<string, unknown> = { _id: id };
  const rev: Rev | undefined = input.rev;
  if (rev !== undefined) doc._rev = formatRev(rev);
  if (!input.deleted) Object.assign(doc, plainBody(input.body));
  const attachments = input.atts !== undefined ? stubsOf(input.atts) : inputStubs(input);
  if (attachments !== undefined) doc._attachments = attachments;
  if (input.deleted) doc._deleted = true;
  if (input.revisions !== undefined && !newEdits) doc._revisions = input.revisions;
  else if (rev !== undefined) doc._revisions = { start: rev.pos, ids: [rev.id] };
  return doc;
}

/** Longer than a validate call may run (its time limit is 5 s). */
const RETIRE_MS = 30_000;

/** Attachments as validate functions see them: stubs (`content_type`, `revpos`, `digest`, `length`). */
function stubsOf(atts: readonly NewAttachment[]): Record<string, unknown> | undefined {
  if (atts.length === 0) return undefined;
  const stubs: Record<string, unknown> = {};
  for (const att of atts) {
    stubs[att.name] = {
      content_type: att.contentType,
      ...(att.revpos === undefined ? {} : { revpos: att.revpos }),
      digest: att.digest,
      length: att.length,
      stub: true,
    };
  }
  return stubs;
}

/** `_attachments` as the client wrote them, before their bytes are stored. */
function inputStubs(input: DocInput): Record<string, unknown> | undefined {
  if (input.attachments === undefined || input.attachments.length === 0) return undefined;
  const stubs: Record<string, unknown> = {};
  for (const att of input.attachments) {
    const revpos = att.revpos === undefined ? {} : { revpos: att.revpos };
    if (att.kind === 'stub') stubs[att.name] = { ...revpos, stub: true };
    else {
      const length = att.kind === 'data' ? att.bytes.length : att.length;
      stubs[att.name] = { content_type: att.contentType, ...revpos, length, stub: true };
    }
  }
  return stubs;
}

/** Each database's functions, reloaded when a design document changes (any node's write). */
const runners = new WeakMap<Database, { fingerprint: string; runner: ValidateRunner }>();

async function validateRunnerOf(db: Database): Promise<ValidateRunner> {
  const designs: { id: string; rev: string }[] = [];
  for await (const page of db.store.foldDocs({ start: DESIGN_PREFIX, end: '_design0', inclusiveEnd: false })) {
    for (const record of page) if (!record.deleted) designs.push({ id: record.id, rev: record.rev });
  }
  const fingerprint = designs.map((d) => `${d.id}\0${d.rev}`).join('\n');
  const cached = runners.get(db);
  if (cached?.fingerprint === fingerprint) return cached.runner;
  const functions: ValidateFunction[] = [];
  for (const { id } of designs) {
    const body = plainBody((await db.winningBody(id))?.body);
    // Design documents whose member is not a string never saved (see design-check); skip any other.
    if (typeof body.validate_doc_update === 'string') functions.push({ ddocId: id, source: body.validate_doc_update });
  }
  // Writes under way may still be using the old functions: their isolate goes a little later.
  if (cached !== undefined) setTimeout(() => cached.runner.dispose(), RETIRE_MS).unref();
  const runner = new ValidateRunner(functions);
  runners.set(db, { fingerprint, runner });
  return runner;
}

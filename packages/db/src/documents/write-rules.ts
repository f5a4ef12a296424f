/**
 * The rules every document write passes before anything of it is stored, whoever writes it (HTTP,
 * the embedded API, any in-process writer), in CouchDB's order (couch_db, not chttpd): design
 * documents need a DB admin; in a replicator database the replication document rules apply
 * (`owner`, CouchDB's validation: ./replicator-db.ts); in a users database the password is hashed and the `_users` rules apply (./users-db.ts); then each design
 * document's `validate_doc_update`, in id order, with `(newDoc, oldDoc, userCtx, secObj)`.
 * `_local` documents are checked only by the per-document access rules (./access-rules.ts).
 */
import { isDbAdmin, requireDbAdmin, type SecurityObject, type UserCtx } from '../auth/index.js';
import { CouchError } from '../errors.js';
import { type JsonObject, toPlain } from '../json/index.js';
import { formatRev, parseRev, type Rev } from '../revisions/index.js';
import { ValidateRunner, type ValidateFunction } from '../sandbox/validate-runner.js';
import { checkAccessWrite } from './access-rules.js';
import type { NewAttachment } from './attachment-resolve.js';
import type { Database } from './database.js';
import { isDesignId, isLocalId } from './doc-id.js';
import type { DocInput } from './doc-input.js';
import { encryptCredentials } from './replicator-credentials.js';
import { checkReplicatorWrite, isReplicatorDb } from './replicator-db.js';
import { USER_PREFIX, hashUserPassword, isUsersDb, validateUserDoc } from './users-db.js';
import { AUTH_DDOC_ID, AUTH_VALIDATE_SOURCE } from './users-auth-ddoc.js';
import type { DocRecord } from '../storage/records.js';

/** Who writes: CouchDB's `userCtx`, and the `_security` the caller was already authorized against. */
export interface Writer {
  user: UserCtx;
  /** The database's `_security` as the caller read it (read from the database when not given). */
  security?: SecurityObject;
}

/** The embedded API's writer, and every in-process write made on the server's own behalf. */
export const SERVER_ADMIN: Writer = { user: { name: null, roles: ['_admin'] } };

/** What the rules need from the server: the PBKDF2 rounds for passwords hashed now. */
export interface WriteRuleSettings {
  hashIterations: number;
  /** The server's users-database rule (with its `authentication_db`); users-db.ts's by default. */
  isUsersDb?: (name: string) => boolean;
  /** The key replication documents' credentials are stored encrypted with (./replicator-credentials.ts). */
  credentialsKey?: () => Promise<Buffer>;
  /** Told of each run of a database's validate functions: how long it took, and whether it refused. */
  validated?: (ms: number, refused: boolean) => void;
}

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

/**
 * Checks a batch before anything of it is stored: `refusals`, one entry per item, the refusal or
 * undefined; `designsAt`, the update sequence the design documents the rules ran with are current
 * at (undefined: none looked up). `keptDesigns`: with those this node kept, unchecked
 * (./design-records.ts `kept`), except in `_users` and `_replicator`, whose rules change bodies;
 * `kept` says whether it did.
 * It may replace an item's `body` (clearing `json`): `_users` hashes passwords that way. Throwing
 * fails the whole request.
 */
export async function checkWrites(
  db: Database,
  items: readonly { id: string; input: DocInput }[],
  newEdits: boolean,
  writer: Writer,
  settings: WriteRuleSettings,
  keptDesigns = false,
): Promise<{
  refusals: (CouchError | undefined)[];
  designsAt: number | undefined;
  kept: boolean;
  runner: ValidateRunner | undefined;
}> {
  const { user } = writer;
  const usersDb = (settings.isUsersDb ?? isUsersDb)(db.name);
  const replicatorDb = isReplicatorDb(db.name);
  const kept = keptDesigns && !usersDb && !replicatorDb;
  let designsAt: number | undefined;
  // Looked up at the first document a rule may judge, never for `_local` documents: a replication
  // checkpoint's write reads neither the design documents nor `_security`.
  let runner: ValidateRunner | undefined;
  let security: SecurityObject | undefined = writer.security;
  const securityOf = async () => (security ??= await db.security());
  const userCtx = { db: db.name, name: user.name, roles: user.roles };
  const refusals: (CouchError | undefined)[] = [];
  // Per-document access (./access-rules.ts): an access-enabled database's first rules.
  const accessWriter = db.accessKnownOff
    ? undefined
    : (db.knownAccessWriterOf(writer) ?? (await db.accessWriterOf(writer)));
  const readLocal = (id: string) => db.store.getLocal(id);
  for (const { id, input } of items) {
    if (accessWriter !== undefined) {
      const kind = isLocalId(id) ? 'local' : isDesignId(id) ? 'design' : 'doc';
      try {
        const local = checkAccessWrite(readLocal, id, input, accessWriter, kind);
        if (local !== undefined) await local;
      } catch (error) {
        if (!(error instanceof CouchError)) throw error;
        refusals.push(error);
        continue;
      }
    }
    if (isLocalId(id)) {
      refusals.push(undefined);
      continue;
    }
    // Outside the try: a storage failure here fails the whole request, as any read would.
    if (!isDesignId(id) && runner === undefined) ({ runner, seq: designsAt } = await validateRunnerOf(db, kept));
    const functions = isDesignId(id) ? undefined : runner;
    const secObj =
      functions === undefined || usersDb || replicatorDb || functions.size > 0 ? await securityOf() : undefined;
    try {
      if (functions === undefined) {
        requireDbAdmin(user, secObj!);
        refusals.push(undefined);
        continue;
      }
      const dbAdmin = secObj !== undefined && isDbAdmin(user, secObj);
      if (replicatorDb) {
        const body = checkReplicatorWrite({
          id,
          body: input.deleted ? undefined : (input.body as JsonObject),
          oldDoc: await oldDocOf(db, id),
          user,
          dbAdmin,
        });
        const stored =
          body === undefined || settings.credentialsKey === undefined
            ? body
            : encryptCredentials(body, await settings.credentialsKey());
        if (stored !== undefined && stored !== input.body) {
          input.body = stored;
          input.json = undefined;
        }
      }
      if (usersDb && !dbAdmin && user.name !== null && id !== USER_PREFIX + user.name) {
        // Someone else's user document does not exist for this writer (the whole request).
        throw Object.assign(new CouchError('not_found', 'missing'), { wholeRequest: true });
      }
      if (usersDb && !input.deleted) {
        const hashed = await hashUserPassword(input.body, settings.hashIterations);
        if (hashed !== undefined) {
          input.body = hashed;
          input.json = undefined;
        }
      }
      if (!usersDb && functions.size === 0) {
        refusals.push(undefined);
        continue;
      }
      const oldDoc = await oldDocOf(db, id);
      const newDoc = newDocOf(id, input, newEdits);
      if (usersDb) validateUserDoc({ newDoc, oldDoc, user, dbAdmin });
      const started = performance.now();
      const outcome = await functions.validate(newDoc, oldDoc, userCtx, secObj!);
      settings.validated?.(performance.now() - started, !outcome.ok);
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
  return { refusals, designsAt, kept, runner };
}

/** `oldDoc` as CouchDB hands it over: the current winner with its attachment stubs and `_revisions`. */
async function oldDocOf(db: Database, id: string): Promise<Record<string, unknown> | null> {
  const old = await db.winningBody(id);
  if (old === undefined) return null;
  const doc: Record<string, unknown> = { _id: id, _rev: old.rev, ...plainBody(old.body) };
  const atts = (await db.revisionAttachments(id, parseRev(old.rev))) ?? [];
  if (atts.length > 0) doc._attachments = stubsOf(atts);
  const dash = old.rev.indexOf('-');
  return { ...doc, _revisions: { start: Number(old.rev.slice(0, dash)), ids: [old.rev.slice(dash + 1)] } };
}

function plainBody(body: unknown): Record<string, unknown> {
  const plain = toPlain(body as never);
  return typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : {};
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

/**
 * Each database's functions, reloaded when a design document changes (any node's write). `designs`
 * is the list of records they were made from: the database gives the same list again while no
 * design document can have changed (./design-records.ts), so most writes compare one reference.
 */
const runners = new WeakMap<
  Database,
  { designs: readonly DocRecord[]; reloads: number; fingerprint: string; runner: ValidateRunner }
>();
let reloads = 0;

/** `POST /_reload_query_servers`: every database's validate functions start in a fresh sandbox at its next write. */
export function reloadValidateFunctions(): void {
  reloads++;
}

/**
 * Whether `used` (a runner `checkWrites` judged with, from the design documents kept) is still
 * the database's: its design documents read as they are now (the counters read) give the same.
 */
export async function validatorsStillCurrent(db: Database, used: ValidateRunner | undefined): Promise<boolean> {
  return used === undefined || (await validateRunnerOf(db, false)).runner === used;
}

/** The database's validate functions, and the update sequence the design records they came from are current at. */
async function validateRunnerOf(db: Database, kept: boolean): Promise<{ runner: ValidateRunner; seq: number }> {
  const { records: designs, seq } = await db.designRecordsForWrite(kept);
  const cached = runners.get(db);
  if (cached !== undefined && cached.designs === designs && cached.reloads === reloads) {
    return { runner: cached.runner, seq };
  }
  // Records read again (another node's write, a purge) may still be the same revisions.
  const fingerprint = `${reloads}\n${designs.map((d) => `${d.id}\0${d.rev}`).join('\n')}`;
  if (cached?.fingerprint === fingerprint) {
    cached.designs = designs;
    return { runner: cached.runner, seq };
  }
  const functions: ValidateFunction[] = [];
  const usersDb = isUsersDb(db.name);
  for (const { id } of designs) {
    const body = plainBody((await db.winningBody(id))?.body);
    // The users database's own rules run natively (validateUserDoc), not a second time here.
    if (usersDb && id === AUTH_DDOC_ID && body.validate_doc_update === AUTH_VALIDATE_SOURCE) continue;
    // Design documents whose member is not a string never saved (see design-check); skip any other.
    if (typeof body.validate_doc_update === 'string') functions.push({ ddocId: id, source: body.validate_doc_update });
  }
  // Writes under way may still be using the old functions: their isolate goes a little later.
  if (cached !== undefined) setTimeout(() => cached.runner.dispose(), RETIRE_MS).unref();
  const runner = new ValidateRunner(functions);
  runners.set(db, { designs, reloads, fingerprint, runner });
  return { runner, seq };
}

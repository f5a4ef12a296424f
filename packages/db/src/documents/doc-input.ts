import { CouchError } from '../errors.js';
import { JsonObject, toPlain, type JsonValue } from '../json/index.js';
import { parseRev, type Rev } from '../revisions/index.js';
import { checkDroppedAttachments, readAttachmentsInput, type AttachmentInput } from './attachment-input.js';
import type { NewAttachment } from './attachment-resolve.js';
import { isLocalId } from './doc-id.js';

/** A document as a client sent it, special members taken apart from the body. */
export interface DocInput {
  /** `_id` from the body (the URL's id, when there is one, wins over it). */
  id: unknown;
  /** `_rev` of the body. */
  rev: Rev | undefined;
  /** `_revisions` of the body: the rev path, newest first. */
  revisions: { start: number; ids: string[] } | undefined;
  deleted: boolean;
  /** The body without special members: what is stored and hashed. */
  body: JsonObject;
  /**
   * `stringifyJson(body)` when the parser could tell it from the source text (else undefined:
   * stringify `body`). Taken when the input is read, so `body` must not change afterwards.
   */
  json?: string | undefined;
  /** `_attachments` as the client wrote it (undefined: none). */
  attachments?: AttachmentInput[] | undefined;
  /** The attachments of the new revision, once resolved (database.ts does it before planning). */
  atts?: NewAttachment[] | undefined;
}

/** Members CouchDB reads from a document, and those it silently drops (couch_doc:transfer_fields). */
export const SPECIAL_MEMBERS: ReadonlySet<string> = new Set([
  '_id',
  '_rev',
  '_deleted',
  '_revisions',
  '_attachments',
  '_conflicts',
  '_deleted_conflicts',
  '_local_seq',
  '_revs_info',
]);

/**
 * Takes a parsed document apart, with CouchDB's validation of its special members. `urlId` is the
 * id the request's path names, when it names one (it decides, over `_id`, whether the document
 * is a `_local` one, which keeps no attachments).
 */
export function readDocInput(value: JsonValue, urlId?: string): DocInput {
  if (!(value instanceof JsonObject)) throw new CouchError('bad_request', 'Document must be a JSON object');
  let rev: Rev | undefined;
  let revisions: DocInput['revisions'];
  let deleted = false;
  let hasSpecial = false;
  let id: JsonValue | undefined;
  let hasId = false;
  let attachmentsMember: JsonObject | undefined;
  const { keys, values } = value;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.charCodeAt(0) !== 95 /* _ */) continue;
    const member = values[i]!;
    hasSpecial = true;
    switch (key) {
      case '_id':
        // The first one, as get() would find (a parsed object has no duplicate keys anyway).
        if (!hasId) id = member;
        hasId = true;
        break;
      case '_conflicts':
      case '_deleted_conflicts':
      case '_local_seq':
      case '_revs_info':
        break;
      case '_rev':
        rev = parseRev(member);
        break;
      case '_deleted':
        if (typeof member !== 'boolean') throw badSpecial(key);
        deleted = member;
        break;
      case '_revisions':
        revisions = readRevisions(member);
        break;
      case '_attachments':
        if (!(member instanceof JsonObject)) throw badSpecial(key);
        attachmentsMember = member;
        break;
      case '_access':
      case '_replication_id':
      case '_replication_state':
      case '_replication_state_time':
      case '_replication_state_reason':
      case '_replication_stats':
        break; // CouchDB 3.x accepts these (replicator documents, access): they stay in the body.
      default:
        throw badSpecial(key);
    }
  }
  let attachments: AttachmentInput[] | undefined;
  if (attachmentsMember !== undefined && attachmentsMember.size > 0) {
    // Read once the id is known (`_id` may come after it). CouchDB reads a `_local` document's
    // `_attachments` as any document's, then writes the document without it.
    const localId = urlId ?? id;
    if (typeof localId === 'string' && isLocalId(localId)) checkDroppedAttachments(attachmentsMember);
    else attachments = readAttachmentsInput(attachmentsMember);
  }
  const body = hasSpecial ? value.without(SPECIAL_MEMBERS) : value;
  const json = hasSpecial ? value.canonicalText(SPECIAL_MEMBERS) : value.canonicalText();
  return { id, rev, revisions, deleted, body, json, attachments };
}

function readRevisions(value: JsonValue): DocInput['revisions'] {
  const plain = value instanceof JsonObject ? (toPlain(value) as Record<string, unknown>) : undefined;
  const start = plain?.start;
  const ids = plain?.ids;
  if (
    typeof start !== 'number' ||
    !Number.isInteger(start) ||
    start < 0 ||
    !Array.isArray(ids) ||
    ids.length === 0 ||
    !ids.every((id) => typeof id === 'string' && id !== '')
  ) {
    throw badSpecial('_revisions');
  }
  return { start, ids: ids as string[] };
}

const badSpecial = (key: string): CouchError => new CouchError('doc_validation', `Bad special document member: ${key}`);

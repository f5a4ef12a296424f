/**
 * The standalone attachment requests (`PUT/DELETE/GET /db/doc/name`): a new revision of the
 * document with one attachment added, replaced or removed, and the lookup of one attachment.
 * CouchDB's order of checks: the rev is checked before the body is read, so a conflict stores
 * nothing.
 */
import { CouchError, conflict, notFound } from '../errors.js';
import { parseJson, type JsonObject } from '../json/index.js';
import { findRev, formatRev, parseRev, parseTree, type Rev } from '../revisions/index.js';
import type { AttachmentSource } from '../storage/records.js';
import { attachmentsOf, splitStoredBody, type Attachment } from './attachment.js';
import { storeAttachmentBytes } from './attachment-bytes.js';
import { checkAttachmentName } from './attachment-input.js';
import type { NewAttachment } from './attachment-resolve.js';
import type { Database, Writer } from './database.js';
import type { DocInput } from './doc-input.js';
import { validateDocId } from './doc-id.js';

export const missingAttachment = (): CouchError => notFound('Document is missing attachment');
const missingRev = (): CouchError => new CouchError('not_found', 'missing_rev', 409);

export interface Upload {
  source: AttachmentSource;
  contentType: string;
  /** Sent with `Content-Encoding: gzip`: stored as it is. */
  gzipped: boolean;
}

/** The revision an attachment edit builds on: its body text and attachments (none for a new document). */
interface Base {
  rev: Rev | undefined;
  body: string;
  atts: Attachment[];
}

async function baseOf(db: Database, id: string, rev: Rev | undefined): Promise<Base> {
  const record = await db.store.getDoc(id);
  if (rev === undefined) {
    // No rev: a new document, or one written again over its tombstone (with nothing of it).
    if (record !== undefined && !record.deleted) throw conflict();
    return { rev: undefined, body: '{}', atts: [] };
  }
  const found = record === undefined ? undefined : findRev(parseTree(record.tree), rev);
  if (found === undefined) throw missingRev();
  if (!found.isLeaf || found.deleted) throw conflict();
  const stored = await db.store.getBody(id, formatRev(rev));
  if (stored === undefined) throw conflict();
  return { rev, body: splitStoredBody(stored).body, atts: attachmentsOf(stored) };
}

/** `PUT /db/doc/name`: the attachment written first, the others kept in their order. */
export async function putAttachment(
  db: Database,
  rawId: string,
  name: string,
  rev: Rev | undefined,
  upload: Upload,
  writer?: Writer,
): Promise<{ ok: true; id: string; rev: string }> {
  const id = validateDocId(rawId);
  checkAttachmentName(name);
  const base = await baseOf(db, id, rev);
  return db.withAttachmentWrite(async () => {
    const bytes = await storeAttachmentBytes(db.store, upload.source, {
      name,
      contentType: upload.contentType,
      gzipped: upload.gzipped,
      maxBytes: db.maxAttachmentBytes,
      compressionLevel: db.attachmentCompressionLevel(),
    });
    const added: NewAttachment = { name, contentType: upload.contentType, revpos: undefined, ...bytes };
    return writeOver(db, id, base, [added, ...base.atts.filter((att) => att.name !== name)], writer);
  });
}

/** `DELETE /db/doc/name`: needs the rev; the attachment must be in it. */
export async function deleteAttachment(
  db: Database,
  id: string,
  name: string,
  rev: Rev | undefined,
  writer?: Writer,
): Promise<{ ok: true; id: string; rev: string }> {
  const record = await db.store.getDoc(id);
  if (rev === undefined) {
    if (record === undefined) throw notFound('missing');
    const current = record.deleted ? [] : ((await db.revisionAttachments(id, parseRev(record.rev))) ?? []);
    if (current.some((att) => att.name === name)) throw conflict();
    throw missingAttachment();
  }
  const found = record === undefined ? undefined : findRev(parseTree(record.tree), rev);
  if (found === undefined) throw missingRev();
  const atts = (await db.revisionAttachments(id, rev)) ?? [];
  if (!atts.some((att) => att.name === name)) throw missingAttachment();
  const base = await baseOf(db, id, rev);
  return writeOver(
    db,
    id,
    base,
    base.atts.filter((att) => att.name !== name),
    writer,
  );
}

async function writeOver(
  db: Database,
  id: string,
  base: Base,
  atts: NewAttachment[],
  writer?: Writer,
): Promise<{ ok: true; id: string; rev: string }> {
  const input: DocInput = {
    id,
    rev: base.rev,
    revisions: undefined,
    deleted: false,
    body: parseJson(base.body) as JsonObject,
    json: base.body,
    atts,
  };
  return db.putPrepared(id, input, writer);
}

/**
 * The attachment `name` of a document: of `rev`, or of the winner (404 `deleted` when that is a
 * tombstone). 404 `missing` for an unknown document or revision, "Document is missing attachment"
 * when the revision has no such attachment.
 */
export async function findAttachment(
  db: Database,
  id: string,
  name: string,
  rev: Rev | undefined,
): Promise<Attachment> {
  // One storage call for the winner's body: what a plain GET, and a replicator naming the
  // current revision, read.
  const found = await db.store.getDocWithBody(id);
  if (found === undefined) throw notFound('missing');
  const { record } = found;
  let body: string | undefined;
  if (rev === undefined) {
    if (record.deleted) throw notFound('deleted');
    body = found.body;
  } else if (formatRev(rev) === record.rev) {
    body = found.body;
  } else {
    const old = findRev(parseTree(record.tree), rev);
    if (old === undefined || !old.stored) throw notFound('missing');
    body = await db.store.getBody(id, formatRev(rev));
  }
  if (body === undefined) throw notFound('missing');
  const atts = attachmentsOf(body);
  const att = atts.find((a) => a.name === name);
  if (att === undefined) throw missingAttachment();
  return att;
}

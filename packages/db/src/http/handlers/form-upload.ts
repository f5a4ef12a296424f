/**
 * `POST /db/doc` with an HTML form (CouchDB's form upload, chttpd_db's POST to a document): the
 * Referer must name this host, the body must be `multipart/form-data` (415 otherwise); its
 * `_attachments` file fields become the document's attachments (named by their file names,
 * replacing any of the same name), on the revision its `_rev` field names, or on the document its
 * `_doc` field holds. One new revision, written as any PUT of the document is, answers 201.
 */
import { CouchError } from '../../errors.js';
import { JsonObject, parseJson } from '../../json/index.js';
import { readDocInput } from '../../documents/doc-input.js';
import { validateDocId } from '../../documents/doc-id.js';
import { parseRev } from '../../revisions/index.js';
import { bodyStream } from '../body.js';
import { requestHost } from '../location.js';
import type { RequestContext } from '../context.js';
import { boundaryOf, MultipartReader } from '../../support/multipart.js';
import { sendJson } from '../respond.js';
import { writtenStatus } from '../write-quorum.js';
import { writerOf } from '../writer.js';
import { dbOf } from './databases.js';

interface FormFile {
  name: string;
  type: string;
  data: Buffer;
}

export async function formUpload(ctx: RequestContext, id: string): Promise<void> {
  checkReferer(ctx);
  const db = dbOf(ctx);
  validateDocId(id);
  const contentType = ctx.req.headers['content-type'] ?? '';
  if (contentType.split(';')[0]!.trim().toLowerCase() !== 'multipart/form-data') {
    throw new CouchError('bad_content_type', 'Content-Type must be multipart/form-data');
  }
  const { fields, files } = await readForm(ctx, contentType);
  let body: JsonObject;
  const docField = fields.get('_doc');
  if (docField !== undefined) {
    const parsed = parseJson(docField);
    if (!(parsed instanceof JsonObject)) throw new CouchError('bad_request', 'Document must be a JSON object');
    body = parsed;
  } else {
    const rev = fields.get('_rev');
    if (rev === undefined) throw new CouchError('bad_request', 'A form upload needs a `_rev` or a `_doc` field.');
    const opened = await db.openDoc(id, { rev: parseRev(rev) });
    body = parseJson(opened.json) as JsonObject;
  }
  // The document's attachments as stubs, each new file replacing the one of its name.
  const attachments = new JsonObject();
  const old = body.get('_attachments');
  if (old instanceof JsonObject) {
    for (const [name, value] of old.entries()) {
      if (!files.some((file) => file.name === name)) attachments.set(name, value);
    }
  }
  for (const file of files) {
    attachments.set(
      file.name,
      JsonObject.from([
        ['content_type', file.type],
        ['data', file.data.toString('base64')],
      ]),
    );
  }
  body.set('_attachments', attachments);
  const input = readDocInput(body, id);
  const result = await db.putDoc(id, input, true, undefined, writerOf(ctx));
  sendJson(ctx, writtenStatus(ctx, 201), { ok: true, id: result.id, rev: result.rev }, { ETag: `"${result.rev}"` });
}

/** CouchDB's validate_referer: a form must come from a page of this host. */
function checkReferer(ctx: RequestContext): void {
  const referer = ctx.req.headers.referer;
  if (referer === undefined) throw new CouchError('bad_request', 'Referer header required.');
  const host = requestHost(ctx);
  let refererHost: string | undefined;
  try {
    refererHost = new URL(referer).host;
  } catch {
    refererHost = undefined;
  }
  if (refererHost !== host) throw new CouchError('bad_request', 'Referer header must match host.');
}

/** The form's text fields and its `_attachments` files (the whole body within the request size limit). */
async function readForm(
  ctx: RequestContext,
  contentType: string,
): Promise<{ fields: Map<string, string>; files: FormFile[] }> {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) throw new CouchError('bad_request', 'The multipart request has no boundary.');
  const reader = new MultipartReader(bodyStream(ctx), boundary);
  const fields = new Map<string, string>();
  const files: FormFile[] = [];
  let left = ctx.server.maxBodyBytes;
  for (let headers = await reader.next(); headers !== undefined; headers = await reader.next()) {
    const disposition = headers.get('content-disposition') ?? '';
    const name = dispositionParam(disposition, 'name');
    const data = await reader.bodyBytes(left);
    left -= data.length;
    if (name === undefined) continue;
    const filename = dispositionParam(disposition, 'filename');
    if (name === '_attachments') {
      // A file input left empty sends a part with no file name: nothing to attach.
      if (filename === undefined || filename === '') continue;
      files.push({ name: filename, type: headers.get('content-type') ?? 'application/octet-stream', data });
    } else {
      fields.set(name, data.toString('utf8'));
    }
  }
  await reader.rest();
  return { fields, files };
}

/** A parameter of a Content-Disposition header (`name="x"`, or unquoted). */
function dispositionParam(header: string, param: string): string | undefined {
  const match = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (match === null) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

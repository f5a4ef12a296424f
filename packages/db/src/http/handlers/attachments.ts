/**
 * Standalone attachments, `/db/doc/name` (and under `_design/`): the body streams into storage
 * as it arrives and out of it a chunk at a time, never held whole. Conditional requests, ranges
 * and gzip follow CouchDB (chttpd_db:db_attachment_req).
 */
import { hiddenFrom } from '../../documents/access-reads.js';
import { writtenStatus } from '../write-quorum.js';
import { CouchError, notFound } from '../../errors.js';
import { isLocalId } from '../../documents/doc-id.js';
import { DEFAULT_CONTENT_TYPE } from '../../documents/attachment-input.js';
import { deleteAttachment, findAttachment, putAttachment } from '../../documents/attachment-edits.js';
import type { Attachment } from '../../documents/attachment.js';
import { parseRev } from '../../revisions/index.js';
import { acceptsGzip } from '../accept-encoding.js';
import { bodyStream } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { locationOf } from '../location.js';
import { randomBoundary } from '../../support/multipart.js';
import { parseRange, resolveRanges, type ByteRange } from '../range.js';
import { sendError, sendJson, streamBytes, ifNoneMatch } from '../respond.js';
import { dbOf } from './databases.js';
import { docIdOf, revOf } from './documents.js';
import { checkUsersDbRead } from '../access.js';
import { writerOf } from '../writer.js';

/** The attachment name of a request: the rest of the path, its segments decoded and joined with `/`. */
function nameOf(ctx: RequestContext): string {
  return param(ctx, 'attachment');
}

export const localDocAttachmentsRefused = (): CouchError =>
  new CouchError('bad_request', '_local documents do not accept attachments.');

function docOf(ctx: RequestContext): string {
  const id = docIdOf(ctx);
  if (isLocalId(id)) throw localDocAttachmentsRefused();
  return id;
}

export const attachments = {
  async show(ctx: RequestContext): Promise<void> {
    const id = docOf(ctx);
    const db = dbOf(ctx);
    checkUsersDbRead(ctx, id);
    const revText = ctx.query.get('rev');
    // An attachment of a document the reader may not read is absent (per-document `_access`).
    if (await hiddenFrom(db, ctx.access?.reader, id, revText === null ? undefined : parseRev(revText))) {
      throw notFound('missing');
    }
    const att = await findAttachment(db, id, nameOf(ctx), revText === null ? undefined : parseRev(revText));
    const etag = `"${att.digest.slice(4)}"`;
    const { res } = ctx;
    if (ifNoneMatch(ctx, etag)) {
      res.statusCode = 304;
      res.setHeader('ETag', etag);
      res.setHeader('Content-Length', 0);
      return void res.end();
    }
    const gzipStored = att.encodedLength !== undefined;
    const sendGzip = acceptsGzip(header(ctx, 'accept-encoding')) && gzipStored;
    const ranges = resolveRanges(parseRange(header(ctx, 'range')), att.length);
    if (ranges === 'unsatisfiable') {
      return sendError(ctx, new CouchError('requested_range_not_satisfiable', 'Requested range not satisfiable'));
    }
    if (!gzipStored && ranges !== 'whole') return sendRanges(ctx, db, att, etag, ranges);
    res.statusCode = 200;
    res.setHeader('Content-Type', att.contentType);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'must-revalidate');
    res.setHeader('Content-Security-Policy', 'sandbox');
    res.setHeader('Accept-Ranges', gzipStored ? 'none' : 'bytes');
    if (sendGzip) {
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Content-Length', att.encodedLength!);
      return streamBytes(ctx, db.attachmentBytes(att), att.encodedLength);
    }
    // An upload sent gzipped has no known identity length (CouchDB's length is its stored
    // length then): its decoded form goes chunked.
    const knownLength = !gzipStored || att.length !== att.encodedLength;
    if (knownLength) res.setHeader('Content-Length', att.length);
    const bytes = gzipStored ? db.attachmentIdentity(att) : db.attachmentBytes(att);
    return streamBytes(ctx, bytes, knownLength ? att.length : undefined);
  },

  async update(ctx: RequestContext): Promise<void> {
    const id = docOf(ctx);
    const db = dbOf(ctx);
    const name = nameOf(ctx);
    const rev = revOf(ctx, undefined);
    const declared = Number(ctx.req.headers['content-length']);
    if (declared > db.maxAttachmentBytes) throw new CouchError('attachment_too_large', name);
    const encoding = (header(ctx, 'content-encoding') ?? 'identity').trim().toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity') {
      throw new CouchError('bad_content_type', 'Only gzip and identity content-encodings are supported');
    }
    const result = await putAttachment(
      db,
      id,
      name,
      rev,
      {
        source: bodyStream(ctx),
        contentType: header(ctx, 'content-type') ?? DEFAULT_CONTENT_TYPE,
        gzipped: encoding === 'gzip',
      },
      writerOf(ctx),
    );
    sendJson(ctx, writtenStatus(ctx, 201), result, { Location: locationOf(ctx, param(ctx, 'db'), id, name) });
  },

  async destroy(ctx: RequestContext): Promise<void> {
    const id = docOf(ctx);
    const db = dbOf(ctx);
    const result = await deleteAttachment(db, id, nameOf(ctx), revOf(ctx, undefined), writerOf(ctx));
    sendJson(ctx, writtenStatus(ctx, 200), result);
  },
};

function header(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

async function sendRanges(
  ctx: RequestContext,
  db: Awaited<ReturnType<typeof dbOf>>,
  att: Attachment,
  etag: string,
  ranges: ByteRange[],
): Promise<void> {
  const { res } = ctx;
  res.statusCode = 206;
  if (ranges.length === 1) {
    const { first, last } = ranges[0]!;
    res.setHeader('Content-Type', att.contentType);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'must-revalidate');
    res.setHeader('Content-Security-Policy', 'sandbox');
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Range', `bytes ${first}-${last}/${att.length}`);
    res.setHeader('Content-Length', last - first + 1);
    return streamBytes(ctx, db.attachmentBytes(att, first, last + 1), last - first + 1);
  }
  const boundary = randomBoundary();
  res.setHeader('Content-Type', `multipart/byteranges; boundary="${boundary}"`);
  if (ctx.method === 'HEAD') {
    res.setHeader('Content-Length', 0);
    return void res.end();
  }
  const parts = async function* (): AsyncGenerator<Uint8Array> {
    for (const [k, { first, last }] of ranges.entries()) {
      const head = `${k === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${att.contentType}\r\nContent-Range: bytes ${first}-${last}/${att.length}\r\n\r\n`;
      yield Buffer.from(head);
      yield* db.attachmentBytes(att, first, last + 1);
    }
    yield Buffer.from(`\r\n--${boundary}--`);
  };
  return streamBytes(ctx, parts());
}

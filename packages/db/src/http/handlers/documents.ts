/**
 * Document endpoints (`/db/id`, `/db/_design/id`, `/db/_local/id`, `POST /db`): CouchDB's rules
 * for where a rev may come from, status codes, ETag and Location.
 */
import { viewerOf } from '../viewer.js';
import type { Viewer } from '../../documents/replicator-reads.js';
import { writtenStatus } from '../write-quorum.js';
import { CouchError, conflict, notFound } from '../../errors.js';
import { fromPlain, parseJson, stringifyJson, type JsonObject } from '../../json/index.js';
import { formatRev, parseRev, type Rev } from '../../revisions/index.js';
import { readDocInput, type DocInput } from '../../documents/doc-input.js';
import { isLocalId, randomId } from '../../documents/doc-id.js';
import type { Database, OpenedDoc, OpenOptions, OpenRevsResult } from '../../documents/database.js';
import type { Attachment } from '../../documents/attachment.js';
import { acceptsType } from '../accept.js';
import { boundaryOf, MultipartReader, randomBoundary } from '../../support/multipart.js';
import { documentPart, errorPart, mixedParts, relatedParts } from '../multipart-write.js';
import { bodyStream, readJson, checkJsonType, parseBody } from '../body.js';
import { validateDocId } from '../../documents/doc-id.js';
import { param, type RequestContext } from '../context.js';
import { looseBool } from '../../support/query-values.js';
import { opaqueEtag, sendJson, sendText, streamBytes, ifNoneMatch } from '../respond.js';
import { dbOf } from './databases.js';
import { locationOf } from '../location.js';
import { checkUsersDbRead } from '../access.js';
import { writerOf } from '../writer.js';
import { formUpload } from './form-upload.js';
import { hiddenFrom, readableRevs } from '../../documents/access-reads.js';

/** The document id of a request: routes under `_design/` and `_local/` carry the prefix as a default. */
export function docIdOf(ctx: RequestContext): string {
  const prefix = ctx.params.prefix;
  const id = (typeof prefix === 'string' ? prefix : '') + param(ctx, 'docid');
  // `_local` with no name, whatever the method (chttpd_db's db_req clauses for it).
  if (id === '_local' || id === '_local/') throw new CouchError('bad_request', 'Invalid _local document id.');
  return id;
}

export const documents = {
  async show(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const id = docIdOf(ctx);
    checkUsersDbRead(ctx, id);
    const { query } = ctx;
    // A document the reader may not read is absent for them (per-document `_access`).
    const rev = query.get('rev');
    if (await hiddenFrom(db, ctx.access?.reader, id, rev === null ? undefined : parseRev(rev))) {
      const openRevs = query.get('open_revs');
      if (openRevs === null || openRevs === 'all') throw notFound('missing');
      const revs = parseRevs(openRevs, '`open_revs` must be `all` or a JSON array of revisions');
      return sendText(ctx, 200, `[${revs.map((r) => `{"missing":${JSON.stringify(formatRev(r))}}`).join(',')}]`);
    }
    if (isLocalId(id)) {
      const doc = await db.local.get(id);
      const etag = localEtag(doc.id, doc.rev, doc.body);
      if (ifNoneMatch(ctx, etag)) return sendText(ctx, 304, '', { ETag: etag });
      return sendText(ctx, 200, db.local.render(doc, looseBool(query, 'revs')), { ETag: etag });
    }
    const openRevs = query.get('open_revs');
    const options = { ...openOptions(query), viewer: viewerOf(ctx) };
    if (openRevs !== null) {
      const revs =
        openRevs === 'all' ? 'all' : parseRevs(openRevs, '`open_revs` must be `all` or a JSON array of revisions');
      if (acceptsType(ctx.req.headers.accept, 'multipart/mixed')) {
        // Every revision with its attachments as parts (but those `atts_since` leaves out).
        const results = await db.openRevs(id, revs, { ...options, follows: true });
        return sendOpenRevsMultipart(ctx, db, readableRevs(results, ctx.access?.reader, revs === 'all'));
      }
      const results = readableRevs(await db.openRevs(id, revs, options), ctx.access?.reader, revs === 'all');
      const parts = results.map((r) => ('ok' in r ? `{"ok":${r.ok}}` : `{"missing":${JSON.stringify(r.missing)}}`));
      return sendText(ctx, 200, `[${parts.join(',')}]`);
    }
    // Attachment data goes as parts when the client takes multipart/related (CouchDB's default).
    const multipart =
      (options.attachments === true || options.attsSince !== undefined) &&
      acceptsType(ctx.req.headers.accept, 'multipart/related');
    const doc = await db.openDoc(id, multipart ? { ...options, follows: true } : options);
    const etag = `"${doc.rev}"`;
    if (multipart && doc.following.length > 0) {
      if (ifNoneMatch(ctx, etag) && !doc.hasMeta) return sendText(ctx, 304, '', { ETag: etag });
      const boundary = randomBoundary();
      const related = relatedParts(boundary, doc, (att) => db.attachmentBytes(att));
      ctx.res.statusCode = 200;
      ctx.res.setHeader('Content-Type', `multipart/related; boundary="${boundary}"`);
      ctx.res.setHeader('Content-Length', related.length);
      if (!doc.hasMeta) ctx.res.setHeader('ETag', etag);
      return streamBytes(ctx, related.parts, related.length);
    }
    if (multipart) {
      // No attachment follows: the JSON as it would be without multipart (inline data, none here).
      return showJson(ctx, await db.openDoc(id, options));
    }
    return showJson(ctx, doc);
  },

  async update(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const id = docIdOf(ctx);
    const newEdits = ctx.query.get('new_edits') !== 'false';
    // CouchDB takes the multipart form only for exactly this spelling, with a parameter.
    if (!isLocalId(id) && (ctx.req.headers['content-type'] ?? '').startsWith('multipart/related;')) {
      return updateMultipart(ctx, db, id, newEdits);
    }
    const input = readDocInput(await readJson(ctx), id);
    input.rev = revOf(ctx, input.rev);
    const result = await db.putDoc(id, input, newEdits, undefined, writerOf(ctx));
    const etag = isLocalId(id) ? localEtag(id, result.rev, input.deleted ? '' : stringifyJson(input.body)) : undefined;
    respondWritten(ctx, result, input.deleted ? 200 : 201, true, etag);
  },

  async create(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    checkJsonType(ctx);
    const input = readDocInput(await readJson(ctx));
    const id = input.id === undefined ? randomId() : input.id;
    const result = await db.putDoc(id, input, true, undefined, writerOf(ctx));
    respondWritten(ctx, result, 201, true);
  },

  async destroy(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const id = docIdOf(ctx);
    if (isLocalId(id)) {
      const result = await db.deleteLocal(id, writerOf(ctx));
      return sendJson(ctx, 200, result, { ETag: localEtag(id, result.rev, '') });
    }
    await db.requireCurrent(id, undefined);
    const rev = revOf(ctx, undefined);
    if (rev === undefined) throw conflict();
    const input: DocInput = { id, rev, revisions: undefined, deleted: true, body: fromPlain({}) as JsonObject };
    respondWritten(ctx, await db.putDoc(id, input, true, undefined, writerOf(ctx)), 200, false);
  },

  async copy(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const id = docIdOf(ctx);
    const destination = ctx.req.headers.destination;
    if (typeof destination !== 'string' || destination === '') {
      throw new CouchError('bad_request', 'Destination header is mandatory for COPY.');
    }
    // CouchDB's parse_copy_destination_header: a path in this database, never a URL.
    if (/^https?:\/\//.test(destination)) throw new CouchError('bad_request', 'Destination URL must be relative.');
    const q = destination.indexOf('?');
    const target = decodeURIComponent(q >= 0 ? destination.slice(0, q) : destination);
    const targetRev = q >= 0 ? new URLSearchParams(destination.slice(q + 1)).get('rev') : null;
    checkUsersDbRead(ctx, id);
    // The source must be readable (per-document `_access`): else it is absent.
    const sourceRev = ctx.query.get('rev');
    if (await hiddenFrom(db, ctx.access?.reader, id, sourceRev === null ? undefined : parseRev(sourceRev))) {
      throw notFound('missing');
    }
    // The attachments go along as they are (their revpos and digest kept). Those of an old
    // revision may be referenced by nothing else once compaction drops it: it keeps off them
    // from the read until the copy commits.
    const result = await db.withAttachmentWrite(async () => {
      const { body, atts } = await sourceOf(db, id, ctx.query.get('rev'), viewerOf(ctx));
      const input: DocInput = {
        id: target,
        rev: targetRev === null ? undefined : parseRev(targetRev),
        revisions: undefined,
        deleted: false,
        body,
      };
      const writer = writerOf(ctx);
      if (atts.length === 0 || isLocalId(target)) return db.putDoc(target, input, true, undefined, writer);
      input.atts = atts;
      return db.putPrepared(validateDocId(target), input, writer);
    });
    respondWritten(ctx, result, 201, true);
  },

  /** POST to a document is CouchDB's HTML form upload (./form-upload.ts). */
  formUpload: (ctx: RequestContext) => formUpload(ctx, docIdOf(ctx)),
};

/** The body and attachments of the revision COPY copies. */
async function sourceOf(
  db: Database,
  id: string,
  rev: string | null,
  viewer: Viewer,
): Promise<{ body: JsonObject; atts: Attachment[] }> {
  if (isLocalId(id)) return { body: parseJson((await db.local.get(id)).body) as JsonObject, atts: [] };
  const doc = await db.openDoc(id, rev === null ? { viewer } : { rev: parseRev(rev), viewer });
  const parsed = parseJson(doc.json) as JsonObject;
  const atts = (await db.revisionAttachments(id, parseRev(doc.rev))) ?? [];
  return { body: readDocInput(parsed.without(new Set(['_attachments']))).body, atts };
}

/**
 * `PUT /db/doc` as `multipart/related` (the replicator's form): the JSON part first, then one
 * part per attachment that says `follows`, in that order, each streamed into storage.
 */
async function updateMultipart(ctx: RequestContext, db: Database, id: string, newEdits: boolean): Promise<void> {
  const boundary = boundaryOf(ctx.req.headers['content-type']!);
  if (boundary === undefined) throw new CouchError('bad_request', 'The multipart request has no boundary.');
  const reader = new MultipartReader(bodyStream(ctx), boundary);
  const headers = await reader.next();
  const type = headers?.get('content-type') ?? '';
  if (type.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    throw new CouchError('bad_content_type', 'Content-Type must be application/json');
  }
  const input = readDocInput(parseBody(await reader.bodyBytes(ctx.server.maxBodyBytes)));
  input.rev = revOf(ctx, input.rev);
  // Nothing is written before the request is in whole (a body followed by bytes that are no
  // request writes nothing: body.ts). The database reads one part per attachment that follows,
  // in order: the rest of the body (parts nobody asked for, the epilogue) is read with the last
  // one, so that a failure there stores none of its bytes, or here when no part follows.
  let left = input.attachments?.filter((att) => att.kind === 'follows').length ?? 0;
  if (left === 0) await reader.rest();
  const following = () =>
    (async function* () {
      if ((await reader.next()) === undefined) throw new CouchError('bad_request', 'attachment shorter than expected');
      yield* reader.body();
      if (--left === 0) await reader.rest();
    })();
  const result = await db.putDoc(id, input, newEdits, following, writerOf(ctx));
  respondWritten(ctx, result, input.deleted ? 200 : 201, true);
}

function openOptions(query: URLSearchParams): OpenOptions {
  const rev = query.get('rev');
  const meta = looseBool(query, 'meta');
  return {
    rev: rev === null ? undefined : parseRev(rev),
    revs: looseBool(query, 'revs'),
    revsInfo: meta || looseBool(query, 'revs_info'),
    conflicts: meta || looseBool(query, 'conflicts'),
    deletedConflicts: meta || looseBool(query, 'deleted_conflicts'),
    latest: looseBool(query, 'latest'),
    localSeq: looseBool(query, 'local_seq'),
    ...attachmentOptions(query),
  };
}

function showJson(ctx: RequestContext, doc: OpenedDoc): void {
  if (doc.hasMeta) return sendText(ctx, 200, doc.json);
  const etag = `"${doc.rev}"`;
  if (ifNoneMatch(ctx, etag)) return sendText(ctx, 304, '', { ETag: etag });
  sendText(ctx, 200, doc.json, { ETag: etag });
}

async function sendOpenRevsMultipart(ctx: RequestContext, db: Database, results: OpenRevsResult[]): Promise<void> {
  const outer = randomBoundary();
  const inner = randomBoundary();
  const bytesOf = (att: Attachment) => db.attachmentBytes(att);
  const parts = results.map((r) =>
    'ok' in r ? documentPart(r.doc, bytesOf, inner) : errorPart(`{"missing":${JSON.stringify(r.missing)}}`),
  );
  ctx.res.statusCode = 200;
  ctx.res.setHeader('Content-Type', `multipart/mixed; boundary="${outer}"`);
  return streamBytes(ctx, mixedParts(outer, parts));
}

/** `attachments`, `att_encoding_info` (only the value `true` counts, as CouchDB) and `atts_since`. */
export function attachmentOptions(
  query: URLSearchParams,
): Pick<OpenOptions, 'attachments' | 'attEncodingInfo' | 'attsSince'> {
  const since = query.get('atts_since');
  return {
    attachments: query.get('attachments') === 'true',
    attEncodingInfo: query.get('att_encoding_info') === 'true',
    attsSince: since === null ? undefined : parseRevs(since, 'Invalid list of revisions'),
  };
}

/** A JSON list of revisions in a query value (`atts_since`, `open_revs`); `notList` when it is not a list. */
function parseRevs(raw: string, notList: string): Rev[] {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    throw new CouchError('bad_request', 'invalid UTF-8 JSON');
  }
  if (!Array.isArray(list)) throw new CouchError('bad_request', notList);
  return list.map((rev) => parseRev(rev));
}

/**
 * The rev of a write: from the body, `?rev=` or `If-Match`; two sources that disagree are a 400,
 * as CouchDB checks them.
 */
export function revOf(ctx: RequestContext, bodyRev: Rev | undefined): Rev | undefined {
  const queryRev = ctx.query.get('rev');
  const ifMatch = ctx.req.headers['if-match'];
  const etagRev = typeof ifMatch === 'string' ? ifMatch.replace(/^"|"$/g, '') : undefined;
  const text = (rev: Rev) => `${rev.pos}-${rev.id}`;
  if (bodyRev !== undefined) {
    if (queryRev !== null && queryRev !== text(bodyRev)) {
      throw new CouchError('bad_request', 'Document rev from request body and query string have different values');
    }
    if (etagRev !== undefined && etagRev !== text(bodyRev)) {
      throw new CouchError('bad_request', 'Document rev and etag have different values');
    }
    return bodyRev;
  }
  if (queryRev !== null) {
    if (etagRev !== undefined && etagRev !== queryRev) {
      throw new CouchError('bad_request', 'Document rev and etag have different values');
    }
    return parseRev(queryRev);
  }
  return etagRev === undefined ? undefined : parseRev(etagRev);
}

function respondWritten(
  ctx: RequestContext,
  result: { id: string; rev: string },
  status: number,
  withLocation: boolean,
  etag = `"${result.rev}"`,
): void {
  if (ctx.query.get('batch') === 'ok') return sendJson(ctx, 202, { ok: true, id: result.id });
  const headers: Record<string, string> = { ETag: etag };
  const db = param(ctx, 'db');
  if (withLocation) headers.Location = locationOf(ctx, db, result.id);
  // `{ ok, id, rev }` as JSON.stringify writes it, without walking an object (every write answers it).
  const json = `{"ok":true,"id":${jsonString(result.id)},"rev":${jsonString(result.rev)}}`;
  sendText(ctx, writtenStatus(ctx, status), json, headers);
}

/** Printable ASCII but `"` and `\`: a JSON string of it is the text in quotes. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `JSON.stringify(text)`: a plain id or rev (nearly all) quoted as it is; V8's stringify of a
 * string goes into C++ (two calls were ~1% of a c1 `PUT`'s server CPU).
 */
function jsonString(text: string): string {
  return PLAIN_JSON_STRING.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** A `_local` doc's ETag is opaque (CouchDB hashes a term), never its `0-N` rev. */
function localEtag(id: string, rev: string, body: string): string {
  return opaqueEtag('_local', id, rev, body);
}

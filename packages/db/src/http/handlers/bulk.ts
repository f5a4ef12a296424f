/** `_bulk_docs`, `_bulk_get`, `_revs_diff`, `_missing_revs`: the endpoints replication lives on. */
import { viewerOf } from '../viewer.js';
import { hiddenFrom, readableRevs } from '../../documents/access-reads.js';
import type { AccessReader } from '../../documents/access-rules.js';
import { writtenStatus } from '../write-quorum.js';
import { CouchError, tooDeep as tooDeepError } from '../../errors.js';
import { bulkDocsWithRefused, type RefusedDoc } from '../../documents/bulk-refused.js';
import { JsonObject, type JsonValue, parseJsonMembers, toPlain } from '../../json/index.js';
import { formatRev, parseRev, type Rev } from '../../revisions/index.js';
import { randomId, validateDocId } from '../../documents/doc-id.js';
import { validatePartitionedDocId } from '../../documents/partition.js';
import { readDocInput, type DocInput } from '../../documents/doc-input.js';
import { readJson, readJsonIsolatingDeep } from '../body.js';
import type { RequestContext } from '../context.js';
import { looseBool } from '../../support/query-values.js';
import { sendBytes, sendJson, streamBytes } from '../respond.js';
import type { OpenedDoc, OpenOptions } from '../../documents/database.js';
import type { ReadAhead } from '../../documents/read-ahead.js';
import type { Attachment } from '../../documents/attachment.js';
import { acceptsType } from '../accept.js';
import { randomBoundary } from '../../support/multipart.js';
import { bulkGetParts, documentPart, errorPart, type MixedPart } from '../multipart-write.js';
import { attachmentOptions } from './documents.js';
import { dbOf } from './databases.js';
import { writerOf } from '../writer.js';

async function objectBody(ctx: RequestContext): Promise<JsonObject> {
  const body = await readJson(ctx, true);
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return body;
}

/** The body's `docs` list, with each endpoint's own reasons when it is missing or not a list. */
function docsOf(body: JsonObject, missing: string, notList: string): JsonValue[] {
  const docs = body.get('docs');
  if (docs === undefined) throw new CouchError('bad_request', missing);
  if (!Array.isArray(docs)) throw new CouchError('bad_request', notList);
  return docs;
}

export const bulk = {
  async docs(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const { value: body, tooDeep } = await readJsonIsolatingDeep(ctx);
    if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    const docs = docsOf(body, 'POST body must include `docs` parameter.', '`docs` parameter must be an array.');
    const newEdits = body.get('new_edits') ?? true;
    if (typeof newEdits !== 'boolean') {
      // The docs are validated first, as CouchDB does; it then crashes (500) where there are docs,
      // and gives this 400 only where there are none: here it is always the 400.
      for (const doc of docs) checkDoc(doc);
      throw new CouchError('bad_request', '`new_edits` parameter must be a boolean.');
    }
    if (newEdits && body.get('all_or_nothing') === true) {
      // Every doc is validated first (one bad doc is still a 400), then the whole batch is refused.
      const rows = docs.map((doc) => {
        const input = checkDoc(doc);
        return {
          id: typeof input.id === 'string' ? input.id : randomId(),
          rev: input.rev === undefined ? '0-' : formatRev(input.rev),
          error: 'not_implemented',
          reason: 'all_or_nothing is not supported',
        };
      });
      return sendJson(ctx, 417, rows);
    }
    const results = await bulkDocsWithRefused(db, docs, refusedDocs(docs, tooDeep), newEdits, writerOf(ctx));
    const status = writtenStatus(ctx, 201, toPlain(body.get('w') ?? null));
    sendJson(ctx, status, newEdits ? results : results.filter((r) => 'error' in r));
  },

  async get(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const body = await objectBody(ctx);
    const docs = docsOf(body, "Missing JSON list of 'docs'.", '`docs` must be a list of {"id", "rev"} objects.');
    // Parameters that name revisions belong in each entry, not in the query (CouchDB's list).
    for (const key of ['open_revs', 'new_edits', 'w', 'rev', 'atts_since']) {
      if (ctx.query.has(key)) throw new CouchError('bad_request', `"${key}" query parameter is not acceptable`);
    }
    const options: OpenOptions = {
      viewer: viewerOf(ctx),
      revs: looseBool(ctx.query, 'revs'),
      latest: looseBool(ctx.query, 'latest'),
      ...attachmentOptions(ctx.query),
    };
    const accept = ctx.req.headers.accept;
    const multipart =
      !acceptsType(accept, 'application/json') &&
      (acceptsType(accept, 'multipart/mixed') || acceptsType(accept, 'multipart/related'));
    if (multipart) {
      // Every attachment follows, whatever the query (but those `atts_since` leaves out).
      const entries = async function* () {
        for (const [entry, ahead] of readingAhead(db, docs)) {
          yield await bulkGetOne(db, entry, { ...options, follows: true }, await ahead, ctx.access?.reader);
        }
      };
      const boundary = `--${randomBoundary()}`;
      ctx.res.statusCode = 200;
      ctx.res.setHeader('Content-Type', `multipart/mixed; boundary="${boundary}"`);
      return streamBytes(ctx, bulkGetParts(boundary, bulkGetMixed(db, entries())));
    }
    // Each entry's text is encoded as it is made and the bytes joined once: joining the entries'
    // strings (each built of many pieces) and encoding the whole cost ~5× as much CPU.
    const results: Buffer[] = [RESULTS_HEAD];
    for (const [entry, ahead] of readingAhead(db, docs)) {
      if (results.length > 1) results.push(COMMA);
      results.push(Buffer.from(bulkGetJson(await bulkGetOne(db, entry, options, await ahead, ctx.access?.reader))));
    }
    results.push(RESULTS_TAIL);
    sendBytes(ctx, 200, Buffer.concat(results));
  },

  async revsDiff(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    sendJson(ctx, 200, await db.revsDiff(revsRequest(await objectBody(ctx)), ctx.access?.reader));
  },

  async missingRevs(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const diff = await db.revsDiff(revsRequest(await objectBody(ctx)), ctx.access?.reader);
    const missing: Record<string, string[]> = {};
    for (const id in diff) missing[id] = diff[id]!.missing;
    sendJson(ctx, 200, { missing_revs: missing });
  },
};

/** The `docs` too deeply nested to read, each with its error row (its `_id` read from its text). */
function refusedDocs(docs: readonly JsonValue[], tooDeep: ReadonlyMap<JsonObject, string>): Map<JsonValue, RefusedDoc> {
  const refused = new Map<JsonValue, RefusedDoc>();
  if (tooDeep.size === 0) return refused;
  const { reason } = tooDeepError();
  for (const doc of docs) {
    const text = doc instanceof JsonObject ? tooDeep.get(doc) : undefined;
    if (text === undefined) continue;
    const id = parseJsonMembers(text, ID_ONLY).get('_id');
    refused.set(doc, { id: typeof id === 'string' ? id : randomId(), error: 'bad_request', reason });
  }
  return refused;
}

const ID_ONLY = new Set(['_id']);

function revsRequest(body: JsonObject): Map<string, Rev[]> {
  const request = new Map<string, Rev[]>();
  for (const [id, revs] of body.entries()) {
    if (!Array.isArray(revs)) {
      throw new CouchError('bad_request', `The revisions of ${JSON.stringify(id)} must be a list of revs.`);
    }
    request.set(
      id,
      revs.map((rev) => parseRev(rev)),
    );
  }
  return request;
}

type Db = Awaited<ReturnType<typeof dbOf>>;

/** Validates a `_bulk_docs` entry as CouchDB does before writing anything (throws its 400s). */
function checkDoc(doc: JsonValue): DocInput {
  const input = readDocInput(doc);
  if (input.id !== undefined) validateDocId(input.id);
  return input;
}

/** The error row of a design doc whose content CouchDB would refuse; undefined for any other doc. */

/** One entry of a `_bulk_get` answer: documents and errors, each as JSON (documents also opened). */
type BulkGetItem = { ok: OpenedDoc } | { error: string };

interface BulkGetEntry {
  id: unknown;
  items: BulkGetItem[];
}

/** Documents read ahead per window of a `_bulk_get`: memory stays bounded, calls few. */
const READ_AHEAD_DOCS = 100;

/** Each entry with the read-ahead of its window (read when its window's first entry comes up). */
function* readingAhead(db: Db, entries: readonly JsonValue[]): Generator<[JsonValue, Promise<ReadAhead>]> {
  for (let at = 0; at < entries.length; at += READ_AHEAD_DOCS) {
    const window = entries.slice(at, at + READ_AHEAD_DOCS);
    const ids: string[] = [];
    for (const entry of window) {
      const id = entry instanceof JsonObject ? entry.get('id') : undefined;
      // An id bulkGetOne refuses is looked up for nothing: it simply is not found.
      if (typeof id === 'string') ids.push(id);
    }
    const ahead = db.readAhead(ids);
    // Rejected with the first entry that awaits it; never left unhandled.
    ahead.catch(() => {});
    for (const entry of window) yield [entry, ahead];
  }
}

async function bulkGetOne(
  db: Db,
  entry: JsonValue,
  options: OpenOptions,
  ahead?: ReadAhead,
  reader?: AccessReader,
): Promise<BulkGetEntry> {
  const id = entry instanceof JsonObject ? entry.get('id') : undefined;
  const revValue = entry instanceof JsonObject ? entry.get('rev') : undefined;
  const since = entry instanceof JsonObject ? entry.get('atts_since') : undefined;
  const error = (docId: unknown, rev: unknown, name: string, reason: string): BulkGetItem => ({
    error: JSON.stringify({ id: docId, rev, error: name, reason }),
  });
  const wrap = (items: BulkGetItem[]): BulkGetEntry => ({ id: id ?? null, items });
  if (id === undefined) return wrap([error(null, null, 'bad_request', 'document id missed')]);
  try {
    validateDocId(id);
    // A partitioned database's rule, as CouchDB's _bulk_get applies it to reads.
    if (db.partitioned) validatePartitionedDocId(id as string);
  } catch (failure) {
    if (!(failure instanceof CouchError)) throw failure;
    return wrap([error(id, null, failure.error, failure.reason)]);
  }
  const docId = id as string;
  let revs: Rev[] | 'all';
  if (revValue === undefined || revValue === null) revs = 'all';
  else {
    try {
      revs = [parseRev(revValue)];
    } catch {
      return wrap([error(docId, revValue, 'bad_request', 'Invalid rev format')]);
    }
  }
  let attsSince: Rev[] | undefined;
  if (since !== undefined) {
    if (!Array.isArray(since)) {
      return wrap([error(docId, since, 'bad_request', 'att_since value must be array of revs.')]);
    }
    try {
      attsSince = since.map((rev) => parseRev(rev));
    } catch {
      return wrap([error(docId, revValue ?? null, 'bad_request', 'Invalid rev format')]);
    }
  }
  // A document the reader may not read is absent for them (per-document `_access`).
  if (await hiddenFrom(db, reader, docId)) {
    const revList = revs === 'all' ? ['undefined'] : revs.map(formatRev);
    return wrap(revList.map((rev) => error(docId, rev, 'not_found', 'missing')));
  }
  // No leaf at all: CouchDB reports the (absent) rev param, printed by Erlang as `undefined`.
  if (revs === 'all' && (await db.leafRevs(docId, ahead)).length === 0)
    return wrap([error(docId, 'undefined', 'not_found', 'missing')]);
  // CouchDB 3.5 fetches `_bulk_get` in batches merged into a revision tree: its leaf order.
  const opened: OpenOptions = { ...options, revsOrder: 'keyTree', ...(attsSince === undefined ? {} : { attsSince }) };
  const results = readableRevs(await db.openRevs(docId, revs, opened, ahead), reader, revs === 'all');
  return wrap(results.map((r) => ('ok' in r ? { ok: r.doc } : error(docId, r.missing, 'not_found', 'missing'))));
}

const RESULTS_HEAD = Buffer.from('{"results":[');
const COMMA = Buffer.from(',');
/** The answer's end, with the newline CouchDB ends bodies with. */
const RESULTS_TAIL = Buffer.from(']}\n');

function bulkGetJson(entry: BulkGetEntry): string {
  const docs = entry.items.map((item) => ('ok' in item ? `{"ok":${item.ok.json}}` : `{"error":${item.error}}`));
  return `{"id":${JSON.stringify(entry.id)},"docs":[${docs.join(',')}]}`;
}

/** The parts of a multipart `_bulk_get` answer, a document at a time. */
async function* bulkGetMixed(db: Db, entries: AsyncIterable<BulkGetEntry>): AsyncGenerator<MixedPart> {
  const bytesOf = (att: Attachment) => db.attachmentBytes(att);
  for await (const entry of entries) {
    for (const item of entry.items) {
      if (!('ok' in item)) yield errorPart(item.error);
      else {
        const doc = item.ok;
        const inner = `--${randomBoundary()}`;
        const part = documentPart(doc, bytesOf, inner, [`X-Doc-Id: ${entry.id}`, `X-Rev-Id: ${doc.rev}`]);
        // CouchDB leaves this inner boundary unquoted.
        if (doc.following.length > 0)
          part.headers[part.headers.length - 1] = `Content-Type: multipart/related; boundary=${inner}`;
        yield part;
      }
    }
  }
}

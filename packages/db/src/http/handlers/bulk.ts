/** `_bulk_docs`, `_bulk_get`, `_revs_diff`, `_missing_revs`: the endpoints replication lives on. */
import { CouchError } from '../../errors.js';
import { JsonObject, type JsonValue } from '../../json/index.js';
import { formatRev, parseRev, type Rev } from '../../revisions/index.js';
import { randomId } from '../../documents/database.js';
import { validateDocId } from '../../documents/doc-id.js';
import { readDocInput, type DocInput } from '../../documents/doc-input.js';
import { readJson } from '../body.js';
import type { RequestContext } from '../context.js';
import { looseBool } from '../../support/query-values.js';
import { sendJson, sendText } from '../respond.js';
import { dbOf } from './databases.js';

async function objectBody(ctx: RequestContext): Promise<JsonObject> {
  const body = await readJson(ctx, true);
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return body;
}

export const bulk = {
  async docs(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    const body = await objectBody(ctx);
    const docs = body.get('docs');
    if (docs === undefined) throw new CouchError('bad_request', 'POST body must include `docs` parameter.');
    if (!Array.isArray(docs)) throw new CouchError('bad_request', '`docs` parameter must be an array.');
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
    const results = await db.bulkDocs(docs, newEdits);
    sendJson(ctx, 201, newEdits ? results : results.filter((r) => 'error' in r));
  },

  async get(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    const body = await objectBody(ctx);
    const docs = body.get('docs');
    if (docs === undefined) throw new CouchError('bad_request', "Missing JSON list of 'docs'.");
    if (!Array.isArray(docs)) throw new CouchError('bad_request', '`docs` must be a list of {"id", "rev"} objects.');
    // Parameters that name revisions belong in each entry, not in the query (CouchDB's list).
    for (const key of ['open_revs', 'new_edits', 'w', 'rev', 'atts_since']) {
      if (ctx.query.has(key)) throw new CouchError('bad_request', `"${key}" query parameter is not acceptable`);
    }
    const options = { revs: looseBool(ctx.query, 'revs'), latest: looseBool(ctx.query, 'latest') };
    const results: string[] = [];
    for (const entry of docs) results.push(await bulkGetOne(db, entry, options));
    sendText(ctx, 200, `{"results":[${results.join(',')}]}`);
  },

  async revsDiff(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    sendJson(ctx, 200, await db.revsDiff(revsRequest(await objectBody(ctx))));
  },

  async missingRevs(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    const diff = await db.revsDiff(revsRequest(await objectBody(ctx)));
    const missing: Record<string, string[]> = {};
    for (const id in diff) missing[id] = diff[id]!.missing;
    sendJson(ctx, 200, { missing_revs: missing });
  },
};

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

async function bulkGetOne(db: Db, entry: JsonValue, options: { revs: boolean; latest: boolean }): Promise<string> {
  const id = entry instanceof JsonObject ? entry.get('id') : undefined;
  const revValue = entry instanceof JsonObject ? entry.get('rev') : undefined;
  const error = (docId: unknown, rev: unknown, name: string, reason: string) =>
    `{"error":${JSON.stringify({ id: docId, rev, error: name, reason })}}`;
  const wrap = (docs: string[]) => `{"id":${JSON.stringify(id ?? null)},"docs":[${docs.join(',')}]}`;
  if (id === undefined) return wrap([error(null, null, 'bad_request', 'document id missed')]);
  try {
    validateDocId(id);
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
  // No leaf at all: CouchDB reports the (absent) rev param, printed by Erlang as `undefined`.
  if (revs === 'all' && (await db.leafRevs(docId)).length === 0)
    return wrap([error(docId, 'undefined', 'not_found', 'missing')]);
  const results = await db.openRevs(docId, revs, options);
  return wrap(results.map((r) => ('ok' in r ? `{"ok":${r.ok}}` : error(docId, r.missing, 'not_found', 'missing'))));
}

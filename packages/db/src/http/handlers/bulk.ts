/** `_bulk_docs`, `_bulk_get`, `_revs_diff`, `_missing_revs`: the endpoints replication lives on. */
import { CouchError } from '../../errors.js';
import { JsonObject, type JsonValue } from '../../json/index.js';
import { parseRev, type Rev } from '../../revisions/index.js';
import { readJson } from '../body.js';
import type { RequestContext } from '../context.js';
import { looseBool } from '../query.js';
import { sendJson, sendText } from '../respond.js';
import { dbOf } from './databases.js';

async function objectBody(ctx: RequestContext): Promise<JsonObject> {
  const body = await readJson(ctx, true);
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return body;
}

export const bulk = {
  async docs(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const body = await objectBody(ctx);
    const docs = body.get('docs');
    if (docs === undefined) throw new CouchError('bad_request', 'POST body must include `docs` parameter.');
    if (!Array.isArray(docs)) throw new CouchError('bad_request', '`docs` parameter must be an array.');
    const newEditsValue = body.get('new_edits') ?? true;
    if (typeof newEditsValue !== 'boolean') throw new CouchError('bad_request', '`new_edits` parameter must be a boolean.');
    if (body.get('all_or_nothing') === true) {
      const rows = docs.map((doc) => ({
        id: doc instanceof JsonObject && typeof doc.get('_id') === 'string' ? doc.get('_id') : null,
        rev: '0-',
        error: 'not_implemented',
        reason: 'all_or_nothing is not supported',
      }));
      return sendJson(ctx, 417, rows);
    }
    const results = db.bulkDocs(docs, newEditsValue);
    sendJson(ctx, 201, newEditsValue ? results : results.filter((r) => 'error' in r));
  },

  async get(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const body = await objectBody(ctx);
    const docs = body.get('docs');
    if (!Array.isArray(docs)) throw new CouchError('bad_request', 'Missing JSON list of \'docs\'.');
    const revs = looseBool(ctx.query, 'revs');
    const results = docs.map((entry) => bulkGetOne(db, entry, revs));
    sendText(ctx, 200, `{"results":[${results.join(',')}]}`);
  },

  async revsDiff(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    sendJson(ctx, 200, db.revsDiff(revsRequest(await objectBody(ctx))));
  },

  async missingRevs(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const diff = db.revsDiff(revsRequest(await objectBody(ctx)));
    const missing: Record<string, string[]> = {};
    for (const id in diff) missing[id] = diff[id].missing;
    sendJson(ctx, 200, { missing_revs: missing });
  },
};

function revsRequest(body: JsonObject): Map<string, Rev[]> {
  const request = new Map<string, Rev[]>();
  for (const [id, revs] of body.entries()) {
    if (!Array.isArray(revs)) throw new CouchError('bad_request', `Revisions of ${id} must be a list.`);
    request.set(id, revs.map((rev) => parseRev(rev)));
  }
  return request;
}

type Db = ReturnType<typeof dbOf>;

function bulkGetOne(db: Db, entry: JsonValue, withRevs: boolean): string {
  const id = entry instanceof JsonObject ? entry.get('id') : undefined;
  const revValue = entry instanceof JsonObject ? entry.get('rev') : undefined;
  const error = (docId: unknown, rev: unknown, name: string, reason: string) =>
    `{"error":${JSON.stringify({ id: docId, rev, error: name, reason })}}`;
  const wrap = (docs: string[]) => `{"id":${JSON.stringify(id ?? null)},"docs":[${docs.join(',')}]}`;
  if (typeof id !== 'string') return wrap([error(null, null, 'bad_request', 'document id missed')]);
  let revs: Rev[] | 'all';
  if (revValue === undefined || revValue === null) revs = 'all';
  else {
    try {
      revs = [parseRev(revValue)];
    } catch {
      return wrap([error(id, revValue, 'bad_request', 'Invalid rev format')]);
    }
  }
  if (revs === 'all' && db.leafRevs(id).length === 0) return wrap([error(id, 'undefined', 'not_found', 'missing')]);
  const results = db.openRevs(id, revs, { revs: withRevs });
  return wrap(results.map((r) => ('ok' in r ? `{"ok":${r.ok}}` : error(id, r.missing, 'not_found', 'missing'))));
}


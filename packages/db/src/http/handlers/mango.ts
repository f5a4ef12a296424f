/**
 * Mango over HTTP: `_index` (create, list, delete), `_find` and `_explain`. The handlers parse
 * the request and answer; what the answers are is ../../mango's.
 */
import { viewerOf } from '../viewer.js';
import { CouchError } from '../../errors.js';
import { JsonObject, stringifyJson } from '../../json/index.js';
import { explain } from '../../mango/explain.js';
import { type FindRun, findBody } from '../../mango/find.js';
import { type FindRequest, parseFindRequest } from '../../mango/find-request.js';
import { validatePartition } from '../../documents/partition.js';
import { parseIndexRequest } from '../../mango/index-request.js';
import { ALL_DOCS_INDEX } from '../../mango/json-index.js';
import { bulkDeleteIndexes, createIndex, deleteIndex, listedIndexes } from '../../mango/indexes.js';
import { checkJsonType, readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { writerOf } from '../writer.js';
import { sendBytes, sendJson, sendText } from '../respond.js';
import { dbOf } from './databases.js';
import { countFind } from '../request-counts.js';

/** A `partition` in the query string (`/{db}/_partition/{p}/_find` puts it there) wins over the body's. */
function scopedFind(ctx: RequestContext, request: FindRequest): FindRequest {
  const partition = ctx.query.get('partition');
  return partition === null ? request : { ...request, partition: validatePartition(partition) };
}

export const mango = {
  /** `POST /{db}/_find`: `{"docs", "bookmark", "execution_stats"?, "warning"?}`, or `{"docs":[]}` when not run. */
  async find(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    checkJsonType(ctx);
    const body = await readJson(ctx);
    const request = { ...scopedFind(ctx, parseFindRequest(body)), viewer: viewerOf(ctx) };
    const onRun = (run: FindRun) => countFind(ctx.server.stats, run);
    const reader = ctx.access?.reader;
    sendBytes(ctx, 200, await findBody(db, ctx.server.views(db), request, stringifyJson(body), onRun, reader));
  },

  /** `POST /{db}/_explain`. */
  async explain(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    checkJsonType(ctx);
    sendText(ctx, 200, stringifyJson(await explain(db, scopedFind(ctx, parseFindRequest(await readJson(ctx))))));
  },

  /** `POST /{db}/_index`. */
  async createIndex(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    checkJsonType(ctx);
    sendJson(ctx, 200, await createIndex(db, parseIndexRequest(await readJson(ctx)), writerOf(ctx)));
  },

  /** `GET /{db}/_index`: `_all_docs` first, then the JSON and text indexes; `limit`/`skip` slice the list. */
  async indexes(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const all = [ALL_DOCS_INDEX(), ...(await listedIndexes(db))];
    const limit = listParam(ctx, 'limit', 1);
    const skip = listParam(ctx, 'skip', 0) ?? 0;
    const indexes = all.slice(skip, limit === undefined ? undefined : skip + limit);
    const answer = JsonObject.from([
      ['total_rows', all.length],
      ['indexes', indexes],
    ]);
    sendText(ctx, 200, stringifyJson(answer));
  },

  /** `DELETE /{db}/_index/{ddoc}/{type}/{name}` (the ddoc with or without `_design/`). */
  async deleteIndex(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const ddoc = ctx.params.design === undefined ? param(ctx, 'ddoc') : `_design/${param(ctx, 'ddoc')}`;
    await deleteIndex(db, ddoc, param(ctx, 'type'), param(ctx, 'name'), writerOf(ctx));
    sendJson(ctx, 200, { ok: true });
  },

  /** `POST /{db}/_index/_bulk_delete` `{"docids": [...]}`. */
  async bulkDeleteIndexes(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    checkJsonType(ctx);
    const body = await readJson(ctx);
    const ids = body instanceof JsonObject ? body.get('docids') : undefined;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new CouchError('invalid_bulk_docs', 'Bulk Delete requires an array of non-null docids', 400);
    }
    sendJson(ctx, 200, await bulkDeleteIndexes(db, ids as string[], writerOf(ctx)));
  },
};

/**
 * `limit` (at least 1) or `skip` (at least 0) of `GET /_index`. CouchDB answers a bad one with a
 * 500 (`invalid_list_index_params`); a client's mistake is a 400 here.
 */
function listParam(ctx: RequestContext, name: 'limit' | 'skip', min: number): number | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  const n = Number(text);
  if (!/^-?[0-9]+$/.test(text) || n < min) {
    throw new CouchError('invalid_list_index_params', `Index parameter ranges: limit > 1, skip > 0`, 400);
  }
  return n;
}

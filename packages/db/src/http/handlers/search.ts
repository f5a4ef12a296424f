/**
 * Full-text search: `GET/POST /{db}/_design/{ddoc}/_search/{index}` and
 * `GET /{db}/_design/{ddoc}/_search_info/{index}` (src/search/ does the work); a partition's
 * `_search` comes through http/handlers/partitions.ts with `partition` in the query string.
 */
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { analyzeRequest } from '../../search/analyzers.js';
import { type SearchRow, searchDefinition, searchIndex, searchInfo } from '../../search/search.js';
import { checkSearchPartition, searchLimits } from '../../search/search-partition.js';
import { parseSearchParams } from '../../search/search-request.js';
import { readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { sendJson, sendText } from '../respond.js';
import { viewerOf } from '../viewer.js';
import { dbOf } from './databases.js';

/** Rows as JSON; included documents are JSON text already: spliced in, not parsed again. */
function rowsJson(rows: readonly SearchRow[]): string {
  const out = rows.map((row) => {
    const { doc, ...rest } = row;
    const head = JSON.stringify(rest);
    return doc === undefined ? head : `${head.slice(0, -1)},"doc":${doc}}`;
  });
  return `[${out.join(',')}]`;
}

/** `counts` and `ranges` after the rows, when asked for. */
function facets(answer: { counts?: unknown; ranges?: unknown }): string {
  let out = '';
  if (answer.counts !== undefined) out += `,"counts":${JSON.stringify(answer.counts)}`;
  if (answer.ranges !== undefined) out += `,"ranges":${JSON.stringify(answer.ranges)}`;
  return out;
}

export const search = {
  async query(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const def = await searchDefinition(db, param(ctx, 'docid'), param(ctx, 'index'));
    let body: Record<string, unknown> | undefined;
    if (ctx.method === 'POST') {
      const json = await readJson(ctx, true);
      if (!(json instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
      body = toPlain(json) as Record<string, unknown>;
    }
    const params = parseSearchParams(ctx.query, body, searchLimits(db));
    await checkSearchPartition(db, param(ctx, 'docid'), params.partition, params);
    const answer = await searchIndex(db, ctx.server.views(db), def, { ...params, viewer: viewerOf(ctx) });
    if ('groups' in answer) {
      const groups = answer.groups.map(
        (g) => `{"by":${JSON.stringify(g.by)},"total_rows":${g.total_rows},"rows":${rowsJson(g.rows)}}`,
      );
      return sendText(ctx, 200, `{"total_rows":${answer.total_rows},"groups":[${groups.join(',')}]}`);
    }
    sendText(
      ctx,
      200,
      `{"total_rows":${answer.total_rows},"bookmark":${JSON.stringify(answer.bookmark)},"rows":${rowsJson(answer.rows)}${facets(answer)}}`,
    );
  },

  /**
   * Removes the index files no current design document uses. Search indexes live beside view
   * indexes (src/search/search-design.ts): one cleanup keeps every index in use, of both kinds.
   */
  async cleanup(ctx: RequestContext): Promise<void> {
    await ctx.server.views(dbOf(ctx)).cleanup();
    sendJson(ctx, 202, { ok: true });
  },

  /** `POST /_search_analyze`: an analyzer's terms for a text. */
  async analyze(ctx: RequestContext): Promise<void> {
    const json = await readJson(ctx, true);
    if (!(json instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
    sendJson(ctx, 200, analyzeRequest(toPlain(json) as Record<string, unknown>));
  },

  async info(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    sendJson(ctx, 200, await searchInfo(db, ctx.server.views(db), param(ctx, 'docid'), param(ctx, 'index')));
  },
};

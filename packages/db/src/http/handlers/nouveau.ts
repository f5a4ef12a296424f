/**
 * Nouveau: `GET/POST /{db}/_design/{ddoc}/_nouveau/{index}`, `GET .../_nouveau_info/{index}`,
 * `POST /{db}/_nouveau_cleanup` and `POST /_nouveau_analyze` (src/search/nouveau*.ts does the work).
 */
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { nouveauAnalyze, nouveauDefinition, nouveauInfo, nouveauSearch } from '../../search/nouveau.js';
import { parseNouveauParams } from '../../search/nouveau-request.js';
import { readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { sendJson, sendText } from '../respond.js';
import { viewerOf } from '../viewer.js';
import { dbOf } from './databases.js';

async function jsonBody(ctx: RequestContext): Promise<Record<string, unknown>> {
  const json = await readJson(ctx, true);
  if (!(json instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return toPlain(json) as Record<string, unknown>;
}

export const nouveau = {
  async query(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const def = await nouveauDefinition(db, param(ctx, 'docid'), param(ctx, 'index'));
    const body = ctx.method === 'POST' ? await jsonBody(ctx) : undefined;
    const params = parseNouveauParams(ctx.query, body);
    params.search.viewer = viewerOf(ctx);
    const answer = await nouveauSearch(db, ctx.server.views(db), def, params);
    // Included documents are JSON text already: spliced in, not parsed again.
    const hits = answer.hits.map(({ doc, ...hit }) =>
      doc === undefined ? JSON.stringify(hit) : `{"doc":${doc},${JSON.stringify(hit).slice(1)}`,
    );
    const { hits: _, ...rest } = answer;
    const head = JSON.stringify({ bookmark: rest.bookmark, counts: rest.counts });
    const tail = JSON.stringify({
      ranges: rest.ranges,
      total_hits: rest.total_hits,
      total_hits_relation: rest.total_hits_relation,
    });
    sendText(ctx, 200, `${head.slice(0, -1)},"hits":[${hits.join(',')}],${tail.slice(1)}`);
  },

  async info(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    sendJson(ctx, 200, await nouveauInfo(db, ctx.server.views(db), param(ctx, 'docid'), param(ctx, 'index')));
  },

  /** Nouveau indexes live beside view and search indexes: one cleanup keeps every index in use. */
  async cleanup(ctx: RequestContext): Promise<void> {
    await ctx.server.views(dbOf(ctx)).cleanup();
    sendJson(ctx, 202, { ok: true });
  },

  async analyze(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, nouveauAnalyze(await jsonBody(ctx)));
  },
};

/**
 * CouchDB 3.5's view query interface: `GET/POST /{db}/_design/{ddoc}/_view/{view}` (and
 * `/queries`), `_info`, `_view_cleanup`, `_active_tasks`. Rows stream as they are read; the ETag
 * hashes what the answer depends on (index signature and sequence, the parameters), so it
 * changes exactly when the answer can.
 */
import { viewerOf } from '../viewer.js';
import { jobTasks } from '../../replication/scheduler-listing.js';
import { acceptsType } from '../accept.js';
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import type { Database } from '../../documents/database.js';
import { compactionTasks } from '../../documents/compaction.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import { openView, parseQuery, queryView, type ViewTarget } from '../../views/query/index.js';
import { readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { etagMatches, joinRows, sendJson, sendRowBytes, sendText, streamRows } from '../respond.js';
import { dbOf } from './databases.js';

export const views = {
  show: (ctx: RequestContext) => answerView(ctx, undefined),

  async query(ctx: RequestContext): Promise<void> {
    return answerView(ctx, await objectBody(ctx, true));
  },

  /** Several queries of one view in one request. */
  async queries(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const body = await objectBody(ctx, true);
    const queries = body.queries;
    if (!Array.isArray(queries)) throw new CouchError('bad_request', '`queries` member must be an array.');
    const target = await open(ctx, db);
    const parsed = queries.map((query) => parseQuery(target.queryIndex, ctx.query, query, 'member'));
    const results: string[] = [];
    for (const q of parsed) {
      const answer = await queryView(target, { ...q, viewer: viewerOf(ctx) }, ctx.access?.reader);
      const { head, rows } = answer.rendered();
      results.push(`${head}${await joinRows(rows)}]}`);
      answer.finished();
    }
    sendText(ctx, 200, `{"results":[${results.join(',')}]}`, contentType(ctx));
  },

  async info(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const viewIndex = await ctx.server.views(db).info(DESIGN_PREFIX + param(ctx, 'docid'));
    sendJson(ctx, 200, { name: param(ctx, 'docid'), view_index: viewIndex });
  },

  async cleanup(ctx: RequestContext): Promise<void> {
    // DB admins too: authorized in dispatch (http/access.ts).
    await ctx.server.views(dbOf(ctx)).cleanup();
    sendJson(ctx, 202, { ok: true });
  },

  async activeTasks(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const tasks: object[] = [...compactionTasks()];
    for (const manager of ctx.server.allViews()) tasks.push(...(await manager.tasks()));
    tasks.push(...jobTasks(ctx.server.scheduler));
    sendJson(ctx, 200, tasks);
  },
};

async function objectBody(ctx: RequestContext, checkType: boolean): Promise<Record<string, unknown>> {
  const body = await readJson(ctx, checkType);
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return toPlain(body) as Record<string, unknown>;
}

function open(ctx: RequestContext, db: Database): Promise<ViewTarget> {
  return openView(db, ctx.server.views(db), param(ctx, 'docid'), param(ctx, 'view'));
}

async function answerView(ctx: RequestContext, body: Record<string, unknown> | undefined): Promise<void> {
  const db = dbOf(ctx);
  if (body?.queries !== undefined) {
    throw new CouchError('bad_request', 'The `queries` parameter is no longer supported at this endpoint');
  }
  const target = await open(ctx, db);
  const q = parseQuery(target.queryIndex, ctx.query, body);
  const answer = await queryView(target, { ...q, viewer: viewerOf(ctx) }, ctx.access?.reader);
  const headers = { ...contentType(ctx), ETag: answer.etag };
  try {
    if (etagMatches(ctx.req.headers['if-none-match'], answer.etag)) return sendText(ctx, 304, '', headers);
    const body = await answer.body();
    if ('bytes' in body) return sendRowBytes(ctx, 200, body.bytes, headers);
    await streamRows(ctx, 200, body.head, body.rows, () => ']}', headers);
  } finally {
    answer.finished();
  }
}

/**
 * `application/json`, unless the client's Accept asks for `text/plain` and takes no JSON (then
 * `text/plain; charset=utf-8`, CouchDB 1.x's answer; the body is JSON either way). No Accept, or
 * `*\/*` (curl and most HTTP libraries), gets JSON.
 */
function contentType(ctx: RequestContext): Record<string, string> {
  const accept = ctx.req.headers.accept;
  if (accept === undefined || acceptsType(accept, 'application/json')) return {};
  return acceptsType(accept, 'text/plain') ? { 'Content-Type': 'text/plain; charset=utf-8' } : {};
}

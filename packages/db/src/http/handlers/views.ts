/**
 * CouchDB's view query interface: `GET/POST /{db}/_design/{ddoc}/_view/{view}` (and
 * `/queries`), `_info`, `_view_cleanup`, `_active_tasks`. Rows stream as they are read; the ETag
 * hashes what the answer depends on (index signature and sequence, the parameters), so it
 * changes exactly when the answer can.
 */
import { acceptsType } from '../accept.js';
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import type { Database } from '../../documents/database.js';
import { compactionTasks } from '../../documents/compaction.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import type { ViewManager } from '../../views/view-manager.js';
import { openView, queryView, type ViewAnswer, type ViewTarget } from '../../views/view-query.js';
import { readJson } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { parseViewQuery } from '../../views/query-params.js';
import { joinRows, rowIterator, sendJson, sendRowBytes, sendText, streamRows, type Rows } from '../respond.js';
import { dbOf } from './databases.js';

export const views = {
  show: (ctx: RequestContext) => answerView(ctx, undefined),

  async query(ctx: RequestContext): Promise<void> {
    return answerView(ctx, await objectBody(ctx, true));
  },

  /** Several queries of one view in one request. */
  async queries(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    const body = await objectBody(ctx, true);
    const queries = body.queries;
    if (!Array.isArray(queries)) throw new CouchError('bad_request', '`queries` member must be an array.');
    const target = await open(ctx, db);
    const parsed = queries.map((query) => {
      if (query === null || typeof query !== 'object' || Array.isArray(query)) {
        throw new CouchError('bad_request', 'Each query must be a JSON object');
      }
      return parseViewQuery(ctx.query, query as Record<string, unknown>, target.view, target.group.options);
    });
    const results: string[] = [];
    for (const q of parsed) {
      const answer = await queryView(target, q);
      const { head, rows } = render(answer);
      results.push(`${head}${await joinRows(rows)}]}`);
      answer.finished();
    }
    sendText(ctx, 200, `{"results":[${results.join(',')}]}`, contentType(ctx));
  },

  async info(ctx: RequestContext): Promise<void> {
    const db = await dbOf(ctx);
    const ddocId = DESIGN_PREFIX + param(ctx, 'docid');
    const manager = ctx.server.views(db);
    const group = await manager.groupOf(ddocId);
    const state = await manager.state(group);
    const size = state.index.fileSize();
    sendJson(ctx, 200, {
      name: param(ctx, 'docid'),
      view_index: {
        signature: group.signature,
        language: group.language,
        sizes: { file: size, external: 0, active: size },
        update_seq: state.index.updateSeq,
        purge_seq: state.index.purgeSeq,
        updater_running: state.updating !== undefined,
        compact_running: false,
        waiting_clients: 0,
        waiting_commit: false,
        updates_pending: {
          minimum: 0,
          preferred: 0,
          total: Math.max(0, (await db.updateSeq()) - state.index.updateSeq),
        },
      },
    });
  },

  async cleanup(ctx: RequestContext): Promise<void> {
    // DB admins too: authorized in dispatch (http/access.ts).
    await ctx.server.views(await dbOf(ctx)).cleanup();
    sendJson(ctx, 202, { ok: true });
  },

  async activeTasks(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const tasks: object[] = [...compactionTasks()];
    for (const manager of ctx.server.allViews()) tasks.push(...(await manager.tasks()));
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
  const db = await dbOf(ctx);
  if (body?.queries !== undefined) {
    throw new CouchError('bad_request', 'The `queries` parameter is no longer supported at this endpoint');
  }
  const target = await open(ctx, db);
  const q = parseViewQuery(ctx.query, body, target.view, target.group.options);
  const answer = await queryView(target, q);
  const headers = { ...contentType(ctx), ETag: answer.etag };
  try {
    if (matches(ctx.req.headers['if-none-match'], answer.etag)) return sendText(ctx, 304, '', headers);
    // An answer with documents is streamed at once (its first byte does not wait for a cache
    // entry's worth of rows): the documents change with the database, so it is rarely asked again.
    if (q.includeDocs) {
      const { head, rows } = render(answer);
      await streamRows(ctx, 200, head, rows, () => ']}', headers);
    } else await sendAnswer(ctx, target.manager, answer.etag, headers, () => render(answer));
  } finally {
    answer.finished();
  }
}

/**
 * Sends a view answer: from the cache when this ETag was answered before; else rendered up to
 * CACHE_ENTRY bytes, and a complete answer is kept for the next identical query, while a longer
 * one streams on from where rendering stopped (nothing is held whole).
 */
async function sendAnswer(
  ctx: RequestContext,
  manager: ViewManager,
  etag: string,
  headers: Record<string, string>,
  render: () => { head: string; rows: Rows },
): Promise<void> {
  const cached = manager.answers.get(etag);
  if (cached !== undefined) return sendRowBytes(ctx, 200, cached, headers);
  const { head, rows } = render();
  const iterator = rowIterator(rows);
  let text = head;
  let count = 0;
  let next = await iterator.next();
  while (!next.done && text.length <= CACHE_ENTRY) {
    text += `${count++ === 0 ? '' : ','}\r\n${next.value}`;
    next = await iterator.next();
  }
  if (next.done) {
    // Kept as bytes: the text is a chain of concatenations (one per row), which held as a
    // string took ~3x its length of heap in ~2M pieces and slowed every major GC.
    const bytes = Buffer.from(`${text}${count > 0 ? '\r\n' : ''}]}\n`);
    manager.answers.set(etag, bytes);
    return sendRowBytes(ctx, 200, bytes, headers);
  }
  const pending = next.value;
  const rest = (async function* () {
    yield pending;
    for (let more = await iterator.next(); !more.done; more = await iterator.next()) yield more.value;
  })();
  await streamRows(ctx, 200, `${text}${count > 0 ? ',' : ''}`, rest, () => ']}', headers);
}

/** The largest answer kept by ETag (see ../../views/answer-cache.ts). */
const CACHE_ENTRY = 256 * 1024;

/** The head of the response object (everything before the rows) and the rows. */
function render(answer: ViewAnswer): { head: string; rows: Rows } {
  const { meta, rows } = answer.read();
  const members = JSON.stringify(meta);
  return { head: `${members.slice(0, -1)}${members.length > 2 ? ',' : ''}"rows":[`, rows };
}

/** If-None-Match may list several ETags (or `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === etag || t === '*' || t === `W/${etag}`;
  });
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

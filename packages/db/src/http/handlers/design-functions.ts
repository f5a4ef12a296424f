/**
 * `_show`, `_list`, `_update` and `_rewrite` of a design document: each action builds CouchDB's
 * request object, calls design-functions/ and answers; `_rewrite` hands the request it makes back
 * to the dispatcher.
 */
import { viewerOf } from '../viewer.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import type { Database } from '../../documents/database.js';
import {
  allDocsRows,
  type ExternalAnswer,
  type ListRows,
  openDesignDoc,
  openList,
  prepareShow,
  resolveRewritePath,
  rewriteByResult,
  rewriteByRules,
  rewriteWith,
  type Rewritten,
  runList,
  runUpdate,
  viewRows,
} from '../../design-functions/index.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import type { RenderRunnerOptions } from '../../sandbox/index.js';
import { ALL_DOCS, openView, parseQuery } from '../../views/query/index.js';
import { parseBody, readBody } from '../body.js';
import { param, type RequestContext } from '../context.js';
import { pathSegments, requestObject } from '../request-object.js';
import { etagMatches, write } from '../respond.js';
import { writerOf } from '../writer.js';
import { dbOf } from './databases.js';

/** CouchDB's `[httpd] rewrite_limit`: rewrites of rewrites stop here. */
const REWRITE_LIMIT = 100;

export const designFunctions = {
  async show(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const docId = docIdOf(ctx);
    const show = await prepareShow({
      db,
      ddocId: ddocIdOf(ctx),
      name: param(ctx, 'func'),
      docId,
      accept: ctx.req.headers.accept,
      user: ctx.user,
      viewer: viewerOf(ctx),
    });
    if (etagMatches(ctx.req.headers['if-none-match'], show.etag)) {
      ctx.res.writeHead(304, { ETag: show.etag, Vary: 'Accept' });
      ctx.res.end();
      return;
    }
    const req = await renderRequest(ctx, db, docId);
    send(ctx, await show.render(req, runnerOptions(ctx)));
  },

  async update(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const docId = docIdOf(ctx);
    const req = await renderRequest(ctx, db, docId);
    const target = {
      db,
      ddocId: ddocIdOf(ctx),
      name: param(ctx, 'func'),
      docId,
      writer: writerOf(ctx),
      viewer: viewerOf(ctx),
    };
    send(ctx, await runUpdate(target, req, runnerOptions(ctx)));
  },

  async list(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const other = ctx.params.viewddoc;
    const name = param(ctx, 'func');
    const viewName = param(ctx, 'view');
    const ddoc = await openList(db, ddocIdOf(ctx), name);
    let body: Record<string, unknown> | undefined;
    if (ctx.method === 'POST') {
      const parsed = parseBody(await bufferBody(ctx));
      if (!(parsed instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
      const { keys } = toPlain(parsed) as Record<string, unknown>;
      body = keys === undefined ? {} : { keys };
    }
    let source: ListRows;
    if (viewName === '_all_docs') source = await allDocsRows(db, parseQuery(ALL_DOCS, ctx.query, body));
    else {
      const viewDdoc = typeof other === 'string' ? other : param(ctx, 'docid');
      const view = await openView(db, ctx.server.views(db), viewDdoc, viewName);
      source = await viewRows(view, parseQuery(view.queryIndex, ctx.query, body));
    }
    const req = await renderRequest(ctx, db, null);
    await runList(db, ddoc, name, source, req, responseSink(ctx), runnerOptions(ctx));
  },

  async rewrite(ctx: RequestContext): Promise<void> {
    const db = dbOf(ctx);
    const rewrites = ctx.rewrites ?? 0;
    if (rewrites >= REWRITE_LIMIT) throw new CouchError('bad_request', 'Exceeded rewrite recursion limit');
    const ddocName = param(ctx, 'docid');
    const ddoc = await openDesignDoc(db, DESIGN_PREFIX + ddocName);
    const rules = ddoc.body.get('rewrites');
    let rewritten: Rewritten;
    if (Array.isArray(rules)) {
      rewritten = rewriteByRules(toPlain(rules) as unknown[], ctx.method, restOf(ctx), ctx.query);
    } else if (typeof rules === 'string') {
      const req = await requestObject(ctx, db, { ...(await bodyMembers(ctx)), id: null, forRewrite: true });
      const result = await rewriteWith(db, ddoc, req, runnerOptions(ctx));
      if (result === undefined) throw new CouchError('rewrite_error', 'Invalid path.', 404);
      const outcome = rewriteByResult(result, ctx.query);
      if ('code' in outcome) {
        const body = outcome.body ?? ctx.bufferedBody?.toString('utf8') ?? '';
        return send(ctx, { status: outcome.code, headers: Object.entries(outcome.headers), body: Buffer.from(body) });
      }
      rewritten = outcome;
    } else {
      throw new CouchError('rewrite_error', 'Invalid path.', 404);
    }
    const prefix = `/${encodeURIComponent(db.name)}/_design/${encodeURIComponent(ddocName)}`;
    await reroute(ctx, resolveRewritePath(prefix, rewritten.path), rewritten, rewrites + 1);
  },
};

/** Answers the request a rewrite made, as the dispatcher answers any request. */
async function reroute(ctx: RequestContext, path: string, rewritten: Rewritten, rewrites: number): Promise<void> {
  if (rewritten.body !== undefined) ctx.bufferedBody = Buffer.from(rewritten.body);
  for (const [name, value] of Object.entries(rewritten.headers ?? {})) ctx.req.headers[name.toLowerCase()] = value;
  const next: RequestContext = {
    ...ctx,
    params: {},
    query: new URLSearchParams(rewritten.query),
    rawPath: path,
    method: (rewritten.method ?? ctx.method).toUpperCase(),
    requestedPath: ctx.requestedPath ?? ctx.rawPath,
    rewrites,
  };
  delete next.access;
  await ctx.reroute!(next);
}

function ddocIdOf(ctx: RequestContext): string {
  return DESIGN_PREFIX + param(ctx, 'docid');
}

/** The document the path names after the function's name (its segments joined by `/`), or null. */
function docIdOf(ctx: RequestContext): string | null {
  const rest = ctx.params.rest;
  return typeof rest === 'string' && rest !== '' ? rest : null;
}

/** The segments after `_rewrite/`. */
function restOf(ctx: RequestContext): string[] {
  const parts = pathSegments(ctx.rawPath);
  const at = parts.indexOf('_rewrite', 3);
  return at < 0 ? [] : parts.slice(at + 1);
}

/** The body, read once and kept (a rewrite's new request reads it again). */
async function bufferBody(ctx: RequestContext): Promise<Buffer> {
  ctx.bufferedBody ??= await readBody(ctx);
  return ctx.bufferedBody;
}

/**
 * `req.body` as couchjs gets it: the body's text, `"undefined"` for a request that has none
 * (neither length nor chunks), and the text again for `req.form`.
 */
async function bodyMembers(ctx: RequestContext): Promise<{ body: string; formText?: string }> {
  const { headers } = ctx.req;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
    return { body: ctx.bufferedBody === undefined ? 'undefined' : ctx.bufferedBody.toString('utf8') };
  }
  const text = (await bufferBody(ctx)).toString('utf8');
  return { body: text, formText: text };
}

function renderRequest(ctx: RequestContext, db: Database, id: string | null): Promise<Record<string, unknown>> {
  return bodyMembers(ctx).then((members) => requestObject(ctx, db, { ...members, id }));
}

function runnerOptions(ctx: RequestContext): RenderRunnerOptions {
  return {
    log: (message, kind) => ctx.server.log?.(`${kind === 'user' ? 'Log' : 'Error'} :: ${message}`),
  };
}

/** A whole answer of a function (nothing for HEAD). */
function send(ctx: RequestContext, answer: ExternalAnswer): void {
  const { res } = ctx;
  res.statusCode = answer.status;
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.setHeader('Content-Length', answer.body.length);
  if (ctx.method === 'HEAD') res.end();
  else res.end(answer.body);
}

/** A list's answer: its head, then each chunk as the function sends it (chunked). */
function responseSink(ctx: RequestContext) {
  const { res } = ctx;
  return {
    start(status: number, headers: [string, string][]): void {
      res.statusCode = status;
      for (const [name, value] of headers) res.setHeader(name, value);
    },
    write: (chunk: string) => write(res, chunk),
    end(): void {
      res.end();
    },
  };
}

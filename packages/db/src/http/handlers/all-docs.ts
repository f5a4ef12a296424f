/** `_all_docs`, `_design_docs`, `_local_docs`: GET, POST and `/queries`. */
import { viewerOf } from '../viewer.js';
import { CouchError } from '../../errors.js';
import { JsonObject, toPlain } from '../../json/index.js';
import { allDocs, type AllDocsOptions, type IdSpace } from '../../documents/all-docs.js';
import type { Database } from '../../documents/database.js';
import type { AccessReader } from '../../documents/access-rules.js';
import { ALL_DOCS, PARTITIONED_ALL_DOCS, parseQuery, type QueryIndex } from '../../views/query/index.js';
import { readJson } from '../body.js';
import type { RequestContext } from '../context.js';
import { joinRows, sendText, streamRows } from '../respond.js';
import { dbOf } from './databases.js';

async function bodyParams(ctx: RequestContext, checkType: boolean): Promise<Record<string, unknown>> {
  const body = await readJson(ctx, checkType);
  if (!(body instanceof JsonObject)) throw new CouchError('bad_request', 'Request body must be a JSON object');
  return toPlain(body) as Record<string, unknown>;
}

async function head(
  db: Database,
  options: AllDocsOptions,
  totalRows: number | null,
  offset: number | null,
): Promise<string> {
  let out = `{"total_rows":${totalRows},"offset":${offset}`;
  // A keys query reports no sequence (CouchDB 3's fabric sends null there, as for offset).
  if (options.updateSeq) out += `,"update_seq":${options.keys === undefined ? await db.updateSeq() : null}`;
  return `${out},"rows":[`;
}

async function answer(ctx: RequestContext, space: IdSpace, options: AllDocsOptions): Promise<void> {
  const db = dbOf(ctx);
  const result = await allDocs(db, space, { ...options, viewer: viewerOf(ctx) }, ctx.access?.reader);
  await streamRows(ctx, 200, await head(db, options, result.totalRows, result.offset), result.rows, () => ']}');
}

async function collect(
  db: Database,
  space: IdSpace,
  options: AllDocsOptions,
  reader: AccessReader | undefined,
): Promise<string> {
  const result = await allDocs(db, space, options, reader);
  return `${await head(db, options, result.totalRows, result.offset)}${await joinRows(result.rows)}]}`;
}

/** `_all_docs` and `_design_docs` of a partitioned database take a `partition` (CouchDB's validate_all_docs_args). */
function indexOf(db: Database, space: IdSpace): QueryIndex {
  return space !== 'local' && db.partitioned ? PARTITIONED_ALL_DOCS : ALL_DOCS;
}

function handlersFor(space: IdSpace) {
  return {
    index: async (ctx: RequestContext) => answer(ctx, space, parseQuery(indexOf(dbOf(ctx), space), ctx.query)),
    async query(ctx: RequestContext) {
      const db = dbOf(ctx); // a missing database is a 404 before anything about the body
      return answer(ctx, space, parseQuery(indexOf(db, space), ctx.query, await bodyParams(ctx, true)));
    },
    queries: (ctx: RequestContext) => queriesIn(ctx, space),
  };
}

export const allDocsHandlers = handlersFor('all');
export const designDocsHandlers = handlersFor('design');
export const localDocsHandlers = handlersFor('local');

/**
 * `POST /db/_all_docs/queries` (and `_design_docs`, `_local_docs`): several queries, one answer.
 * The URL params are every query's defaults; CouchDB does not check the Content-Type here.
 */
async function queriesIn(ctx: RequestContext, space: IdSpace): Promise<void> {
  const db = dbOf(ctx);
  const body = await bodyParams(ctx, false);
  const queries = body.queries;
  if (queries === undefined) throw new CouchError('bad_request', 'POST body must include `queries` parameter.');
  if (!Array.isArray(queries)) throw new CouchError('bad_request', '`queries` member must be an array.');
  // Every query is parsed (and may fail) before any is answered.
  const parsed = queries.map((query) => parseQuery(indexOf(db, space), ctx.query, query, 'member'));
  const results: string[] = [];
  const viewer = viewerOf(ctx);
  for (const options of parsed) results.push(await collect(db, space, { ...options, viewer }, ctx.access?.reader));
  sendText(ctx, 200, `{"results":[${results.join(',')}]}`);
}

/**
 * The `filter` of a `_changes` request (couch_changes:configure_filter), turned into the feed's
 * filter options: `_doc_ids` and `_design` as record predicates, `_selector` with the Mango
 * matcher, `_view` with the view's map function and `ddoc/name` with the design document's
 * `filters` function, both in the sandbox. Where CouchDB answers 500 (a bad `view` parameter,
 * a filter or map function that throws, a Mango index as `_view`), the answer is a 400 that
 * says what is wrong.
 */
import type { ChangesOptions, DocFilter } from '../documents/changes.js';
import type { Database } from '../documents/database.js';
import { isDesignId } from '../documents/doc-id.js';
import { CouchError, notFound } from '../errors.js';
import { type JsonValue, JsonObject, parseJson, stringifyJson, toPlain } from '../json/index.js';
import { matches } from '../mango/match.js';
import { isAllFields, parseFields, project } from '../mango/projection.js';
import { parseSelector } from '../mango/selector.js';
import { parseJsonParam } from '../support/query-values.js';
import { selectorParser, storedBodyParser } from '../mango/selector-parser.js';
import { createChangesFilter, createMapper } from '../sandbox/index.js';
import type { RequestContext } from './context.js';
import { requestObject } from './request-object.js';
import { openDesignDoc, refuseLanguageOf } from '../design-functions/index.js';

/** The filter options of a feed, and what to release when the request ends (sandboxes). */
export interface FeedFilter {
  options: Pick<ChangesOptions, 'filter' | 'docIds' | 'docFilter'>;
  /** `_doc_ids` and `_design`: CouchDB looks the documents up instead of scanning changes. */
  lookup: boolean;
  dispose(): void;
}

const NONE: FeedFilter = { options: {}, lookup: false, dispose: () => {} };

/** Builds the filter a `_changes` request names; `body` is the POST body (undefined for GET). */
export async function feedFilter(ctx: RequestContext, db: Database, body: JsonObject | undefined): Promise<FeedFilter> {
  const name = ctx.query.get('filter');
  if (name === null || name === '') return NONE;
  switch (name) {
    case '_design':
      return { options: { filter: (record) => isDesignId(record.id) }, lookup: true, dispose: () => {} };
    case '_doc_ids':
      return { options: { docIds: docIdsOf(ctx, body) }, lookup: true, dispose: () => {} };
    case '_selector':
      return selectorFilter(ctx, body);
    case '_view':
      return viewFilter(ctx, db);
    default:
      if (name.startsWith('_')) throw new CouchError('bad_request', 'unknown builtin filter name');
      return designFilter(ctx, db, name, body);
  }
}

/** `doc_ids` from the JSON query parameter (GET) or the body member (POST), counted. */
function docIdsOf(ctx: RequestContext, body: JsonObject | undefined): Map<string, number> {
  const raw = ctx.query.get('doc_ids');
  const ids = body !== undefined ? toPlain(body.get('doc_ids') ?? null) : raw === null ? null : parseJsonParam(raw);
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new CouchError('bad_request', '`doc_ids` filter parameter is not a list of doc ids.');
  }
  const docIds = new Map<string, number>();
  for (const id of ids as string[]) docIds.set(id, (docIds.get(id) ?? 0) + 1);
  return docIds;
}

/** `_selector`: the POST body's `selector` (and `fields`), Mango rules, deleted and design docs included. */
function selectorFilter(ctx: RequestContext, body: JsonObject | undefined): FeedFilter {
  if (ctx.method !== 'POST') throw new CouchError('bad_request', 'Selector must be specified in POST payload');
  const selectorJson = body?.get('selector');
  if (!(selectorJson instanceof JsonObject)) {
    throw new CouchError('bad_request', 'Selector error: expected a JSON object');
  }
  const selector = asBadRequest(() => parseSelector(selectorJson));
  const fieldsJson = body!.get('fields');
  if (fieldsJson !== undefined && !Array.isArray(fieldsJson)) {
    throw new CouchError('bad_request', 'Selector error: fields must be JSON array');
  }
  const fields = asBadRequest(() => parseFields(fieldsJson));
  // The filter judges each change on the members its selector names only (the doc sent is the text).
  const parse = selectorParser(selector);
  const parseStored = storedBodyParser(selector);
  const docFilter: DocFilter = {
    test: async (docs) => docs.map((doc) => matches(selector, parse(doc))),
    ...(parseStored === undefined
      ? {}
      : { testStored: (docs) => docs.map(({ id, rev, body }) => matches(selector, parseStored(body, id, rev))) }),
    ...(isAllFields(fields)
      ? {}
      : { projectDoc: (doc: string) => stringifyJson(project(parseJson(doc) as JsonObject, fields)) }),
  };
  return { options: { docFilter }, lookup: false, dispose: () => {} };
}

/** Mango's 400s (`invalid_operator`, `bad_arg`, …) come out as `bad_request` with the same reason. */
function asBadRequest<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof CouchError && err.status === 400) throw new CouchError('bad_request', err.reason);
    throw err;
  }
}

/** Splits `ddoc/name` (exactly two non-empty segments). */
function twoSegments(value: string): [string, string] | undefined {
  const parts = value.split('/');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? [parts[0]!, parts[1]!] : undefined;
}

/** `_view&view=ddoc/view`: the change passes when the view's map function emits for it. */
async function viewFilter(ctx: RequestContext, db: Database): Promise<FeedFilter> {
  const viewParam = ctx.query.get('view');
  if (viewParam === null || viewParam === '') {
    throw new CouchError('bad_request', '`view` filter parameter is not provided.');
  }
  const parts = twoSegments(viewParam);
  // CouchDB crashes (500) on anything but two segments.
  if (parts === undefined) throw new CouchError('bad_request', '`view` must be of the form `designname/viewname`');
  const ddoc = (await openDesignDoc(db, `_design/${parts[0]}`)).body;
  const views = ddoc.get('views');
  const view = views instanceof JsonObject ? views.get(parts[1]) : undefined;
  const map = view instanceof JsonObject ? view.get('map') : undefined;
  if (map === undefined) throw notFound(`missing json key: ${parts[1]}`);
  if (typeof map !== 'string') {
    // A Mango index: its "map" is an index definition (CouchDB: 500).
    throw new CouchError('bad_request', `The view ${viewParam} has no JavaScript map function to filter with.`);
  }
  const lib = views instanceof JsonObject ? views.get('lib') : undefined;
  const mapper = await createMapper(
    {
      views: [{ name: parts[1], map }],
      ...(lib instanceof JsonObject ? { lib: toPlain(lib) } : {}),
    },
    { log: sandboxLog(ctx) },
  );
  const docFilter: DocFilter = {
    async test(docs) {
      if (docs.length === 0) return [];
      const { rows, errors } = await mapper.mapBatch(docs);
      const error = errors[0];
      // CouchDB: 500. The filter cannot decide for this document.
      if (error !== undefined)
        throw new CouchError('filter_error', `The map function of ${viewParam} ${error.message}`, 400);
      return rows.map((perView) => (perView[0]?.length ?? 0) > 0);
    },
  };
  return { options: { docFilter }, lookup: false, dispose: () => mapper.dispose() };
}

/** `ddoc/name`: the design document's `filters.name` called as `(doc, req)` in the sandbox. */
async function designFilter(
  ctx: RequestContext,
  db: Database,
  name: string,
  body: JsonObject | undefined,
): Promise<FeedFilter> {
  const parts = twoSegments(name);
  if (parts === undefined) throw new CouchError('bad_request', '`filter` must be of the form `designname/filtername`');
  const ddocId = `_design/${parts[0]}`;
  const ddoc = (await openDesignDoc(db, ddocId)).body;
  refuseLanguageOf(ddoc);
  const filters = ddoc.get('filters');
  const source = filters instanceof JsonObject ? filters.get(parts[1]) : undefined;
  if (source === undefined) throw notFound(`missing json key: ${parts[1]}`);
  if (typeof source !== 'string') {
    throw new CouchError('compilation_error', `The filter ${name} is not a JavaScript function source.`, 400);
  }
  const runner = await createChangesFilter({ name, source, ddocJson: stringifyJson(ddoc) }, { log: sandboxLog(ctx) });
  const req = JSON.stringify(
    await requestObject(ctx, db, {
      id: null,
      body: body === undefined ? 'undefined' : toPlain(body as JsonValue),
      path: [db.name, '_changes'],
    }),
  );
  const docFilter: DocFilter = { test: (docs) => runner.filterBatch(docs, req) };
  return { options: { docFilter }, lookup: false, dispose: () => runner.dispose() };
}

function sandboxLog(ctx: RequestContext): (message: string, kind: 'user' | 'error') => void {
  return (message, kind) => ctx.server.log?.(`${kind === 'user' ? 'Log' : 'Error'} :: ${message}`);
}

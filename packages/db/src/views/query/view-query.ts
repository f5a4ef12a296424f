/**
 * The one way a view is queried, over HTTP and in process (the embedded API): the caller parses
 * its parameters into a typed query (./query-params.ts); this brings the index as fresh as the
 * query's `update` asks, names the answer by what it depends on (its ETag, which also keys the
 * answer cache), renders it as a response body (through the answer cache when it is small), and
 * once the answer has been read starts the update `update=lazy` asks for. Callers never touch
 * the manager's answer cache or index state themselves.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../documents/database.js';
import type { AccessReader } from '../../documents/access-rules.js';
import { DESIGN_PREFIX } from '../../documents/doc-id.js';
import type { Rows } from '../../support/rows.js';
import { type AnswerBody, bodyThroughCache } from './answer-cache.js';
import { viewOf, type ViewDef, type ViewGroup } from '../design.js';
import { answerQuery, type ViewMeta } from './read-view.js';
import { readerView } from './reader-rows.js';
import type { ViewQuery } from './query-options.js';
import { type QueryIndex, viewIndex } from './query-params.js';
import type { GroupState } from '../group-state.js';
import type { ViewManager } from '../view-manager.js';

/** A view of a design document, opened for queries. */
export interface ViewTarget {
  db: Database;
  manager: ViewManager;
  group: ViewGroup;
  view: ViewDef;
  viewNo: number;
  state: GroupState;
  /** What its query parameters are parsed against (`parseQuery`): the view and its design document's defaults. */
  queryIndex: QueryIndex;
}

export interface ViewAnswer {
  /** Quoted, as an HTTP ETag: equal ETags, equal answers. */
  etag: string;
  /** The answer's members before its rows, and its rows as JSON text (read lazily). */
  read(): { meta: ViewMeta; rows: Rows };
  /** The response object's text before the rows (`{...,"rows":[`), and the rows. */
  rendered(): { head: string; rows: Rows };
  /**
   * The response body: through the answer cache, except with documents (streamed at once, its
   * first byte not waiting for a cache entry's worth of rows: the documents change with the
   * database, so such an answer is rarely asked again).
   */
  body(): Promise<AnswerBody>;
  /** To be called once the answer has been read (or not needed): starts a lazy update. */
  finished(): void;
}

/** Opens `_design/{ddoc}`'s view `name`: 404 for a missing design document or view. */
export async function openView(db: Database, manager: ViewManager, ddoc: string, name: string): Promise<ViewTarget> {
  const group = await manager.groupOf(DESIGN_PREFIX + ddoc);
  const { index: viewNo, view } = viewOf(group, name);
  const queryIndex = viewIndex(view, group.options, group.partitioned);
  return { db, manager, group, view, viewNo, state: await manager.state(group), queryIndex };
}

/**
 * `reader`: a non-admin of an access-enabled database, who sees only rows of documents they may
 * read (./reader-rows.ts); their answer depends on the database's writes and is never cached.
 */
export async function queryView(target: ViewTarget, q: ViewQuery, reader?: AccessReader): Promise<ViewAnswer> {
  const { db, manager, state, viewNo } = target;
  if (q.update === 'true') await manager.refresh(state);
  else await manager.catchUp(state);
  const readerRows = reader === undefined ? undefined : await readerView(db, state.index, viewNo, reader);
  // What the answer depends on: the view's rows (its signature, the sequence at which it last
  // changed, purges), the query, and with include_docs the documents (the database's sequence).
  const docs = q.includeDocs || reader !== undefined ? `:${await db.updateSeq()}` : '';
  const who = reader === undefined ? '' : `:${JSON.stringify(reader.principals)}`;
  const etag = `"${createHash('md5')
    .update(
      `${state.group.signature}:${viewNo}:${state.index.changedSeq(viewNo)}:${state.index.purgeSeq}${docs}${who}:${JSON.stringify(q)}`,
    )
    .digest('hex')}"`;
  const read = () => answerQuery(db, state, viewNo, q, readerRows);
  const rendered = () => render(read());
  return {
    etag,
    read,
    rendered,
    body: async () =>
      q.includeDocs || reader !== undefined ? rendered() : bodyThroughCache(manager.answers, etag, rendered),
    finished: () => {
      if (q.update === 'lazy') void manager.refresh(state).catch(() => {});
    },
  };
}

/** The head of the response object (everything before the rows) and the rows. */
function render({ meta, rows }: { meta: ViewMeta; rows: Rows }): { head: string; rows: Rows } {
  const members = JSON.stringify(meta);
  return { head: `${members.slice(0, -1)}${members.length > 2 ? ',' : ''}"rows":[`, rows };
}

/**
 * List functions (`_list/{name}/{view}` and `_list/{name}/{ddoc}/{view}`, couch_mrview_show's
 * list callbacks): the function reads the view's rows one `getRow()` at a time and what it sends
 * goes out as it asks for the next row. Rows come from the view engine's query entry point (or
 * `_all_docs`, the view name CouchDB reads as the database's documents), lazily; nothing is
 * buffered beyond one row and the chunks sent since the last one.
 */
import { allDocs, type AllDocsOptions } from '../documents/all-docs.js';
import { rowIterator, type Rows } from '../support/rows.js';
import type { ListFlush, RenderRunnerOptions } from '../sandbox/index.js';
import { queryView, type ViewQuery, type ViewTarget } from '../views/query/index.js';
import type { Database } from '../documents/database.js';
import { type DesignDoc, openDesignDoc, requireFunction } from './design-doc.js';
import { externalHead } from './external-response.js';
import { withRunner } from './runner-pool.js';

/** Where a list's answer goes: its head once, then chunks (false: the client has gone). */
export interface ListSink {
  start(status: number, headers: [string, string][]): void;
  write(chunk: string): Promise<boolean>;
  end(): void;
}

/** The rows a list reads: the head it is called with, the rows (JSON text), and what to do once read. */
export interface ListRows {
  head: Record<string, unknown>;
  rows: Rows;
  finished(): void;
}

/** A view's rows (possibly another design document's view), as its query asks. */
export async function viewRows(view: ViewTarget, query: ViewQuery): Promise<ListRows> {
  const answer = await queryView(view, query);
  const { meta, rows } = answer.read();
  return {
    head: { total_rows: meta.total_rows, offset: meta.offset, update_seq: meta.update_seq },
    rows,
    finished: () => answer.finished(),
  };
}

/** The database's documents (`_list/{name}/_all_docs`). */
export async function allDocsRows(db: Database, options: AllDocsOptions): Promise<ListRows> {
  const result = await allDocs(db, 'all', options);
  const head: Record<string, unknown> = { total_rows: result.totalRows, offset: result.offset };
  if (options.updateSeq) head.update_seq = options.keys === undefined ? await db.updateSeq() : null;
  return { head, rows: result.rows, finished: () => {} };
}

/** The design document holding the list function: 404 when either is missing, before anything is answered. */
export async function openList(db: Database, ddocId: string, name: string): Promise<DesignDoc> {
  const ddoc = await openDesignDoc(db, ddocId);
  requireFunction(ddoc, 'lists', name);
  return ddoc;
}

/** Runs `lists.{name}` of the design document over the rows, into the sink. */
export async function runList(
  db: Database,
  ddoc: DesignDoc,
  name: string,
  source: ListRows,
  req: Record<string, unknown>,
  sink: ListSink,
  options: RenderRunnerOptions,
): Promise<void> {
  const iterator = rowIterator(source.rows);
  let started = false;
  let gone = false;
  const flush = async ({ chunks, start }: ListFlush): Promise<void> => {
    if (!started) {
      const head = externalHead(start ?? {});
      sink.start(head.status, head.headers);
      started = true;
    }
    const text = chunks.join('');
    if (text !== '' && !gone && !(await sink.write(text))) gone = true;
  };
  try {
    const last = await withRunner(db, ddoc, options, (runner) =>
      runner.list(name, source.head, req, async (message) => {
        await flush(message);
        if (gone) return null;
        const next = await iterator.next();
        return next.done ? null : next.value;
      }),
    );
    await flush({ chunks: last });
    sink.end();
  } finally {
    await iterator.return?.();
    source.finished();
  }
}

/**
 * List functions (`_list/{name}/{view}` and `_list/{name}/{ddoc}/{view}`, couch_mrview_show's
 * list callbacks): the function reads the view's rows one `getRow()` at a time and what it sends
 * goes out as it asks for the next row. Rows come from the view engine's query entry point,
 * lazily; nothing is buffered beyond one row and the chunks sent since the last one.
 */
import { rowIterator } from '../support/rows.js';
import { createRenderRunner, type ListFlush, type RenderRunnerOptions } from '../sandbox/index.js';
import { queryView, type ViewQuery, type ViewTarget } from '../views/query/index.js';
import type { Database } from '../documents/database.js';
import { type DesignDoc, openDesignDoc, requireFunction } from './design-doc.js';
import { externalHead } from './external-response.js';

/** Where a list's answer goes: its head once, then chunks (false: the client has gone). */
export interface ListSink {
  start(status: number, headers: [string, string][]): void;
  write(chunk: string): Promise<boolean>;
  end(): void;
}

export interface ListTarget {
  name: string;
  /** The view, possibly of another design document. */
  view: ViewTarget;
  query: ViewQuery;
}

/** The design document holding the list function: 404 when either is missing, before anything is answered. */
export async function openList(db: Database, ddocId: string, name: string): Promise<DesignDoc> {
  const ddoc = await openDesignDoc(db, ddocId);
  requireFunction(ddoc, 'lists', name);
  return ddoc;
}

export async function runList(
  target: ListTarget,
  ddoc: { json: string },
  req: Record<string, unknown>,
  sink: ListSink,
  options: RenderRunnerOptions,
): Promise<void> {
  const answer = await queryView(target.view, target.query);
  const { meta, rows } = answer.read();
  const iterator = rowIterator(rows);
  const runner = await createRenderRunner(ddoc.json, options);
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
    const head = { total_rows: meta.total_rows, offset: meta.offset, update_seq: meta.update_seq };
    const last = await runner.list(target.name, head, req, async (message) => {
      await flush(message);
      if (gone) return null;
      const next = await iterator.next();
      return next.done ? null : next.value;
    });
    await flush({ chunks: last });
    sink.end();
  } finally {
    runner.dispose();
    await iterator.return?.();
    answer.finished();
  }
}

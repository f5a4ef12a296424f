/**
 * Update functions (`_update/{name}[/{docid}]`, couch_mrview_show:send_doc_update_response): the
 * function gets the document (null when the path names none, or a missing one) and returns
 * `[doc, response]`; a document is written through the database's write rules with the request's
 * writer (validate functions, `_security`, conflicts), and the answer is 201 with
 * `X-Couch-Update-NewRev` and `X-Couch-Id` unless the response sets its own code.
 */
import type { Viewer } from '../documents/replicator-reads.js';
import type { Database, Writer } from '../documents/database.js';
import { readDocInput } from '../documents/doc-input.js';
import { parseJson } from '../json/index.js';
import type { RenderRunnerOptions } from '../sandbox/index.js';
import { openDesignDoc, requireUpdateFunction } from './design-doc.js';
import { applyHeaders, type ExternalAnswer, externalAnswer } from './external-response.js';
import { withRunner } from './runner-pool.js';
import { openOrNull } from './show.js';

export interface UpdateTarget {
  db: Database;
  ddocId: string;
  name: string;
  docId: string | null;
  writer: Writer;
  /** Who reads the document (documents/replicator-reads.ts). */
  viewer?: Viewer;
}

export async function runUpdate(
  target: UpdateTarget,
  req: Record<string, unknown>,
  options: RenderRunnerOptions,
): Promise<ExternalAnswer> {
  const { db } = target;
  const ddoc = await openDesignDoc(db, target.ddocId);
  requireUpdateFunction(ddoc, target.name);
  const doc = target.docId === null ? null : await openOrNull(db, target.docId, target.viewer);
  const [docJson, resp] = await withRunner(db, ddoc, options, (runner) =>
    runner.update(target.name, doc?.json ?? null, req),
  );
  if (docJson === null) return externalAnswer({ code: 200, ...resp });
  const input = readDocInput(parseJson(docJson));
  const written = await db.putDoc(input.id ?? '', input, true, undefined, target.writer);
  const headers = { 'X-Couch-Update-NewRev': written.rev, 'X-Couch-Id': encodeURIComponent(written.id) };
  return externalAnswer({ code: 201, ...applyHeaders(resp, headers) });
}

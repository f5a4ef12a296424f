/**
 * Show functions (`_show/{name}[/{docid}]`, couch_mrview_show/chttpd_show): the function renders a
 * document, or null when the path names none or a missing one; the answer carries an ETag made of
 * what it depends on (design document, document, Accept, user) and `Vary: Accept`.
 */
import type { Viewer } from '../documents/replicator-reads.js';
import { createHash } from 'node:crypto';
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import type { RenderRunnerOptions } from '../sandbox/index.js';
import { openDesignDoc, requireFunction } from './design-doc.js';
import { withRunner } from './runner-pool.js';
import { applyHeaders, type ExternalAnswer, externalAnswer } from './external-response.js';

export interface ShowTarget {
  db: Database;
  ddocId: string;
  name: string;
  /** The document the path names, null when it names none. */
  docId: string | null;
  accept: string | undefined;
  user: { name: string | null; roles: readonly string[] };
  /** Who reads the document (documents/replicator-reads.ts). */
  viewer?: Viewer;
}

export interface PreparedShow {
  /** Quoted: equal ETags, equal answers. */
  etag: string;
  /** Runs the function with the request object (`req.id` is the path's document id). */
  render(req: Record<string, unknown>, options: RenderRunnerOptions): Promise<ExternalAnswer>;
}

/** Opens the design document and the document: 404 when the design document or the function is missing. */
export async function prepareShow(target: ShowTarget): Promise<PreparedShow> {
  const ddoc = await openDesignDoc(target.db, target.ddocId);
  requireFunction(ddoc, 'shows', target.name);
  const doc = target.docId === null ? null : await openOrNull(target.db, target.docId, target.viewer);
  const etag = `"${createHash('md5')
    .update(JSON.stringify([ddoc.rev, doc?.rev ?? null, target.accept ?? null, target.user.name, target.user.roles]))
    .digest('hex')}"`;
  return {
    etag,
    async render(req, options) {
      const resp = await withRunner(target.db, ddoc, options, (runner) =>
        runner.show(target.name, doc?.json ?? null, req),
      );
      return externalAnswer(applyHeaders(resp, { ETag: etag, Vary: 'Accept' }));
    },
  };
}

/** A document's winner with its conflicts, or null when missing or deleted (chttpd_show:maybe_open_doc). */
export async function openOrNull(
  db: Database,
  id: string,
  viewer?: Viewer,
): Promise<{ rev: string; json: string } | null> {
  try {
    const opened = await db.openDoc(id, { conflicts: true, ...(viewer && { viewer }) });
    return { rev: opened.rev, json: opened.json };
  } catch (error) {
    if (error instanceof CouchError && error.error === 'not_found') return null;
    throw error;
  }
}

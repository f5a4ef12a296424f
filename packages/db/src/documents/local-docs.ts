/**
 * `_local/` documents: never replicated, so no revision tree and no conflict checks. Revisions are
 * `0-N`: a write without a rev (over)writes `0-1`, a write naming `0-K` gives `0-(K+1)`, whatever
 * is stored (CouchDB 3 behaves so). Not in `_all_docs`, `_changes`, counts or views.
 */
import { CouchError, notFound } from '../errors.js';
import { stringifyJson } from '../json/index.js';
import type { DocumentStore } from '../storage/contract.js';
import type { IdRange, LocalDoc, Page } from '../storage/records.js';
import type { DocInput } from './doc-input.js';
import { renderDoc } from './render.js';

export class LocalDocs {
  constructor(private readonly store: DocumentStore) {}

  async put(id: string, input: DocInput): Promise<{ ok: true; id: string; rev: string }> {
    const rev = `0-${nextLocalRev(input)}`;
    if (input.deleted) {
      await this.store.deleteLocal(id);
      return { ok: true, id, rev: '0-0' };
    }
    await this.store.putLocal({ id, rev, body: stringifyJson(input.body) });
    return { ok: true, id, rev };
  }

  async get(id: string): Promise<LocalDoc> {
    const doc = await this.store.getLocal(id);
    if (doc === undefined) throw notFound('missing');
    return doc;
  }

  /** The `_local` document, or undefined when there is none. */
  find(id: string): Promise<LocalDoc | undefined> {
    return this.store.getLocal(id);
  }

  render(doc: LocalDoc, revs = false): string {
    const extras = revs ? [['_revisions', { start: 0, ids: [doc.rev.slice(2)] }] as const] : undefined;
    return renderDoc(doc.id, doc.rev, doc.body, false, extras);
  }

  async delete(id: string): Promise<{ ok: true; id: string; rev: string }> {
    if (!(await this.store.deleteLocal(id))) throw notFound('missing');
    return { ok: true, id, rev: '0-0' };
  }

  fold(range: IdRange): AsyncIterable<Page<LocalDoc>> {
    return this.store.foldLocal(range);
  }
}

function nextLocalRev(input: DocInput): number {
  if (input.rev === undefined) return 1;
  // CouchDB crashes (500) on a local rev that is not 0-N; a client's mistake is a 400 here.
  if (input.rev.pos !== 0 || !/^\d+$/.test(input.rev.id)) {
    throw new CouchError('bad_request', "Invalid rev format: a _local document's rev is 0-N");
  }
  return Number(input.rev.id) + 1;
}

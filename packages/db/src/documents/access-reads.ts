/**
 * What a reader of an access-enabled database (./access-rules.ts) may open: a document they
 * cannot read is answered exactly as an absent one (404 `not_found`/`missing`), so no read shows
 * that it exists. They read leaves only: an older revision's body is as if compacted away.
 */
import { findRev, formatRev, parseTree, type Rev } from '../revisions/index.js';
import { type AccessReader, accessOfText, overlaps } from './access-rules.js';
import type { ChangedDoc, IdRange } from '../storage/records.js';
import type { DocumentReader, OpenRevsResult } from './document-reader.js';
import { isLocalId } from './doc-id.js';

/** Whether the reader must see the document (or, given `rev`, that revision) as absent. */
export async function hiddenFrom(
  db: DocumentReader,
  reader: AccessReader | undefined,
  id: string,
  rev?: Rev,
): Promise<boolean> {
  if (reader === undefined) return false;
  if (isLocalId(id)) {
    const local = await db.store.getLocal(id);
    return local !== undefined && !overlaps(reader.principals, accessOfText(local.body));
  }
  const [readers] = await db.store.readersOf([id]);
  if (!overlaps(reader.principals, readers ?? [])) return true;
  if (rev === undefined) return false;
  const record = await db.store.getDoc(id);
  const found = record === undefined ? undefined : findRev(parseTree(record.tree), rev);
  if (found === undefined) return false;
  if (!found.isLeaf) return true;
  return (
    found.deleted && !overlaps(reader.principals, accessOfText((await db.store.getBody(id, formatRev(rev))) ?? '{}'))
  );
}

/**
 * Leaves opened for a reader (`open_revs`, `_bulk_get`, a replication's reads): a deleted leaf
 * whose own `_access` does not name them (another user's branch, ended) is missing for them and
 * left out of `open_revs=all`, so its `_access` never shows them other users' names. Live leaves
 * all name every reader of the document (its access is their intersection).
 */
export function readableRevs(
  results: readonly OpenRevsResult[],
  reader: AccessReader | undefined,
  all: boolean,
): OpenRevsResult[] {
  if (reader === undefined) return [...results];
  const out: OpenRevsResult[] = [];
  for (const result of results) {
    if (!('ok' in result) || !result.doc.deleted || overlaps(reader.principals, accessOfText(result.doc.json))) {
      out.push(result);
    } else if (!all) out.push({ missing: result.doc.rev });
  }
  return out;
}

/** For each id, whether the reader may read it (all true without a reader). */
export async function readableOf(
  db: DocumentReader,
  reader: AccessReader | undefined,
  ids: readonly string[],
): Promise<boolean[]> {
  if (reader === undefined) return ids.map(() => true);
  const readers = await db.store.readersOf(ids);
  return readers.map((list) => overlaps(reader.principals, list));
}

/**
 * The reader's live documents with their winners' bodies, by id in `range` (as
 * `DocumentStore.foldDocBodies` gives every document): a range scan of their access rows joined
 * with the documents a page at a time, so a scan for a reader costs their documents, not the
 * database's (Mango without an index).
 */
export async function* foldReadableBodies(
  db: DocumentReader,
  reader: AccessReader,
  range: IdRange,
): AsyncGenerator<ChangedDoc[]> {
  for await (const page of db.store.foldReadable(reader.principals, range)) {
    const found = await db.store.getDocsWithBodies(page.map((record) => record.id));
    const docs = found.filter((doc): doc is ChangedDoc => doc !== undefined);
    if (docs.length > 0) yield docs;
  }
}

/** The ids of every live document the reader may read (what per-user views and indexed Mango filter rows by). */
export async function readableIdSet(db: DocumentReader, reader: AccessReader): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const page of db.store.foldReadable(reader.principals, {})) for (const record of page) ids.add(record.id);
  return ids;
}

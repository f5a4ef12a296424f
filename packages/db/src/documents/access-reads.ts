/**
 * What a reader of an access-enabled database (./access-rules.ts) may open: a document they
 * cannot read is answered exactly as an absent one (404 `not_found`/`missing`), so no read shows
 * that it exists. They read leaves only: an older revision's body is as if compacted away.
 */
import { findRev, parseTree, type Rev } from '../revisions/index.js';
import { type AccessReader, accessOfText, overlaps } from './access-rules.js';
import type { DocumentReader } from './document-reader.js';
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
  return found !== undefined && !found.isLeaf;
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

/** The ids of every live document the reader may read (what per-user views and Mango filter rows by). */
export async function readableIdSet(db: DocumentReader, reader: AccessReader): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const page of db.store.foldReadable(reader.principals, {})) for (const record of page) ids.add(record.id);
  return ids;
}

import type { Database } from '../../documents/database.js';
import { purgedSince } from '../../documents/purge.js';
import type { ViewIndex } from '../index/view-index.js';

/**
 * Brings an index up to the database's purge sequence, in one synchronous step: the documents
 * purged since (from the purge log; when the log no longer reaches back that far, every
 * document of the index) that are gone lose their rows. A document a purge left revisions of
 * has a new sequence: the changes map it again. So a purge of a revision a document does not
 * have changes nothing here (CouchDB removes such a document from its views until its next
 * change).
 */
export async function catchUpPurges(db: Database, index: ViewIndex): Promise<void> {
  const { purgeSeq, ids: purged } = await purgedSince(db, index.purgeSeq);
  if (index.purgeSeq >= purgeSeq) return;
  if (index.updateSeq === 0) {
    // Nothing indexed yet: the build reads only documents that are there.
    index.purge([], purgeSeq);
    return;
  }
  let ids = purged;
  if (ids === undefined) {
    // The log no longer reaches back to the index: every document of the index is a candidate.
    ids = new Set();
    for await (const id of index.backIds()) ids.add(id);
  }
  // A document written again since is no loss: its new sequence is after the index's, so
  // the changes below map it again.
  const list = [...ids];
  const records = await db.records(list);
  index.purge(
    list.filter((_, i) => records[i] === undefined),
    purgeSeq,
  );
}

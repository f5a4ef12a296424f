/**
 * The first stage of an update: the database's changes since the index's sequence, read in
 * batches, each document to map as storage holds it (rendered as the JSON text the map
 * functions get only where the mapper needs that text: `renderStored`).
 */
import { isDesignId } from '../../documents/doc-id.js';
import { renderDoc } from '../../documents/render.js';
import {
  conflicts as conflictsOf,
  deletedConflicts as deletedConflictsOf,
  isOneLineTree,
  parseTree,
} from '../../revisions/index.js';
import type { ChangedDoc, Page } from '../../storage/records.js';
import type { ViewGroup } from '../design.js';
import type { MappedDoc } from '../index/index-rows.js';
import type { StoredDoc } from '../native-map/native-js-mapper.js';

/** Documents per sandbox call. */
const BATCH = 1000;
/**
 * The first batches of an update are smaller (FIRST_BATCHES, then BATCH): the sandbox starts
 * mapping sooner, and a small update (a few hundred docs) is mostly mapped while it is read.
 */
const FIRST_BATCHES = [250, 500];

/** One batch of the updater: changed docs, and those to map. */
export interface Batch {
  records: number;
  lastSeq: number;
  docs: MappedDoc[];
  /** Index in `docs` of each document in `toMapDocs`. */
  toMap: number[];
  toMapDocs: StoredDoc[];
  /** Set once the sandbox has mapped it. */
  mapped?: boolean;
}

/** The changes an update reads, one at a time out of the pages storage hands out. */
export class ChangeReader {
  private readonly pages: AsyncIterator<Page<ChangedDoc>>;
  private page: Page<ChangedDoc> = [];
  private at = 0;
  private done = false;
  private batches = 0;

  constructor(
    pages: AsyncIterable<Page<ChangedDoc>>,
    private readonly group: ViewGroup,
    /** The database's sequence when the update started: changes past it wait for the next one. */
    private readonly target: number,
  ) {
    this.pages = pages[Symbol.asyncIterator]();
  }

  async next(): Promise<ChangedDoc | undefined> {
    while (this.at >= this.page.length) {
      if (this.done) return undefined;
      const next = await this.pages.next();
      if (next.done === true) {
        this.done = true;
        return undefined;
      }
      this.page = next.value;
      this.at = 0;
    }
    return this.page[this.at++];
  }

  /**
   * The next changes after `since` (up to the target, at most a batch), with the JSON text of
   * each document to map; deleted docs (and design docs unless include_design) are only removed.
   */
  async readBatch(since: number): Promise<Batch> {
    const size = FIRST_BATCHES[this.batches++] ?? BATCH;
    const group = this.group;
    const batch: Batch = { records: 0, lastSeq: since, docs: [], toMap: [], toMapDocs: [] };
    while (batch.records < size) {
      // The page in hand is read without an await per record (a build reads 100k of them).
      const record = this.at < this.page.length ? this.page[this.at++] : await this.next();
      if (record === undefined) break;
      if (record.seq > this.target) {
        // Past the target: the changes end here for this update.
        await this.close();
        break;
      }
      batch.records++;
      batch.lastSeq = record.seq;
      batch.docs.push({ id: record.id, rows: undefined, seq: record.seq });
      if (isMapped(record, group)) {
        batch.toMap.push(batch.docs.length - 1);
        batch.toMapDocs.push({
          id: record.id,
          rev: record.rev,
          body: record.body,
          extras: mapExtras(record, group.localSeq),
        });
      }
    }
    return batch;
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.pages.return?.();
  }
}

/**
 * Whether a change is mapped: a live document with its body (design documents only when the group
 * includes them); the others' rows are only removed.
 */
export function isMapped(record: ChangedDoc, group: ViewGroup): record is ChangedDoc & { body: string } {
  return !record.deleted && record.body !== undefined && (group.includeDesign || !isDesignId(record.id));
}

/** The JSON text a map function gets of a document. */
export function renderStored(doc: StoredDoc): string {
  return renderDoc(doc.id, doc.rev, doc.body, false, doc.extras);
}

/**
 * The meta members CouchDB gives a map function (couch_index_updater opens each document with
 * `[conflicts, deleted_conflicts]`, plus `local_seq` when the group asks): `_conflicts` and
 * `_deleted_conflicts` only when there are some, then `_local_seq`. A one-line tree has one leaf:
 * no conflicts, and nothing to parse.
 */
export function mapExtras(record: ChangedDoc, localSeq: boolean): [string, unknown][] | undefined {
  let extras: [string, unknown][] | undefined;
  const { tree } = record;
  if (!isOneLineTree(tree)) {
    const parsed = parseTree(tree);
    const live = conflictsOf(parsed);
    const deleted = deletedConflictsOf(parsed);
    if (live.length > 0) (extras ??= []).push(['_conflicts', live]);
    if (deleted.length > 0) (extras ??= []).push(['_deleted_conflicts', deleted]);
  }
  if (localSeq) (extras ??= []).push(['_local_seq', record.seq]);
  return extras;
}

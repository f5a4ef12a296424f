/**
 * The way every document write goes, in order: the write rules (./write-rules.ts) for its writer,
 * then attachment stubs and bytes (stored before the revisions that refer to them), then `_local`
 * documents as they come and the rest through the group commit (./group-commit.ts), planned
 * together with concurrent requests (./write-plan.ts). Each stage may settle some items with a
 * row of their own (a refusal, a conflict) and passes the rest on (./settle.ts).
 */
import { formatRev } from '../revisions/index.js';
import type { DocumentStore } from '../storage/contract.js';
import type { AccessWriter } from './access-rules.js';
import type { Attachment } from './attachment.js';
import { checkSizes, checkStubs, hasAttachments, storeAttachments, type FollowingParts } from './attachment-resolve.js';
import type { Database } from './database.js';
import type { DocInput } from './doc-input.js';
import { isLocalId } from './doc-id.js';
import { DesignsChanged, type GroupCommit } from './group-commit.js';
import type { LocalDocs } from './local-docs.js';
import { settle } from './settle.js';
import type { WriteResult } from './write-plan.js';
import { validatePartitionedDocId } from './partition.js';
import { checkWrites, validatorsStillCurrent, type Writer, type WriteRuleSettings } from './write-rules.js';

/**
 * `following`: the bytes of this document's `follows` attachments, when they are its own (a
 * replicated batch of documents with attachments); else the write's, if any.
 */
export type WriteItem = { id: string; input: DocInput; following?: FollowingParts };

export class WritePipeline {
  constructor(
    private readonly db: Database,
    private readonly store: DocumentStore,
    private readonly local: LocalDocs,
    private readonly commits: GroupCommit,
    private readonly rules: WriteRuleSettings,
  ) {}

  /**
   * Writes items whose attachments may still need their bytes stored (`following` gives the bytes
   * of those that follow the JSON, in the order they come). `single`: a one-document write, which
   * answers its refusal by throwing it (its status, its reason as thrown).
   */
  write(
    items: readonly WriteItem[],
    newEdits: boolean,
    following: FollowingParts | undefined,
    writer: Writer,
    single = false,
  ): Promise<WriteResult[]> {
    return this.checked(items, newEdits, writer, single, (passed, designsAt) =>
      this.withAttachments(passed, newEdits, following, writer, designsAt),
    );
  }

  /** Writes one document whose attachments are already resolved (`input.atts`, bytes stored). */
  writePrepared(item: WriteItem, writer: Writer): Promise<WriteResult[]> {
    return this.checked([item], true, writer, false, (passed, designsAt) =>
      this.commit(passed, true, writer, designsAt),
    );
  }

  /**
   * Runs the write rules for this writer: refused documents become error rows, the others go to
   * `run`. On an engine that tells the plan the design sequence (PostgreSQL), a write that goes
   * through the group commit alone (no attachment bytes, no `_local` document: nothing of it
   * stored on its way) is checked with the design documents this node kept, without reading the
   * counters, and `run` is given their sequence: the plan sends it back (DesignsChanged) when a
   * design document changed after it, and the rules run again with the current ones. So do they
   * when the kept ones refused something and are not the database's any more (a design document
   * may have gone since); when they still are, the refusal stands.
   */
  private async checked(
    items: readonly WriteItem[],
    newEdits: boolean,
    writer: Writer,
    single: boolean,
    run: (items: readonly WriteItem[], designsAt: number | undefined) => Promise<WriteResult[]>,
  ): Promise<WriteResult[]> {
    // The partition id rule fails the whole request, as CouchDB checks it reading the documents.
    if (this.db.partitioned) for (const item of items) validatePartitionedDocId(item.id);
    const checkedAtPlan = this.store.tellsDesignSeq === true && !items.some(storedOnTheWay);
    for (let kept = checkedAtPlan; ; kept = false) {
      try {
        return await this.ruled(items, newEdits, writer, single, kept, checkedAtPlan, run);
      } catch (error) {
        if (!(error instanceof DesignsChanged)) throw error;
      }
    }
  }

  /** `checked`'s one pass: the rules with the design documents kept (`kept`) or current. */
  private async ruled(
    items: readonly WriteItem[],
    newEdits: boolean,
    writer: Writer,
    single: boolean,
    kept: boolean,
    checkedAtPlan: boolean,
    run: (items: readonly WriteItem[], designsAt: number | undefined) => Promise<WriteResult[]>,
  ): Promise<WriteResult[]> {
    const checked = await checkWrites(this.db, items, newEdits, writer, this.rules, kept);
    const refusals = checked.refusals;
    // A refusal by the kept design documents stands if they are still the database's (one counters
    // read); otherwise the rules run again (a refusal counted twice would also skew `_stats`).
    if (checked.kept && refusals.some((refusal) => refusal !== undefined)) {
      if (!(await validatorsStillCurrent(this.db, checked.runner))) throw new DesignsChanged();
    }
    const designsAt = checkedAtPlan ? checked.designsAt : undefined;
    if (refusals.every((refusal) => refusal === undefined)) return run(items, designsAt);
    if (single) throw refusals[0]!;
    return settle(
      items,
      (item, k) => {
        const refusal = refusals[k];
        if (refusal === undefined) return undefined;
        // Replicated writes name the revision refused, as CouchDB's rows do.
        const rev = !newEdits && item.input.rev !== undefined ? { rev: formatRev(item.input.rev) } : {};
        return { id: item.id, ...rev, ...refusal.toJSON() };
      },
      (passed) => run(passed, designsAt),
    );
  }

  /** Stores the items' attachments first where they have any (not async: the usual write adds no promise here). */
  private withAttachments(
    items: readonly WriteItem[],
    newEdits: boolean,
    following: FollowingParts | undefined,
    writer: Writer,
    designsAt: number | undefined,
  ): Promise<WriteResult[]> {
    if (!items.some(storesAttachments)) return this.commit(items, newEdits, writer, designsAt);
    return this.attachmentsThenCommit(items, newEdits, following, writer);
  }

  private async attachmentsThenCommit(
    items: readonly WriteItem[],
    newEdits: boolean,
    following: FollowingParts | undefined,
    writer: Writer,
  ): Promise<WriteResult[]> {
    // Attachment bytes are stored before the revisions that refer to them commit; compaction
    // leaves bytes alone while such a write is under way (see attachment-sweep.ts).
    return this.store.attachmentWrite(async () => {
      // Every stub first (one bad stub fails the request before any byte is stored), then the bytes.
      const kept: (Map<string, Attachment> | 'conflict' | undefined)[] = [];
      for (const item of items) {
        kept.push(storesAttachments(item) ? await checkStubs(this.store, item.id, item.input, newEdits) : undefined);
      }
      for (const { id, input } of items) if (!isLocalId(id)) checkSizes(input, this.db.maxAttachmentBytes);
      const options = {
        newEdits,
        maxAttachmentBytes: this.db.maxAttachmentBytes,
        compressionLevel: this.db.attachmentCompressionLevel(),
        following,
      };
      // An edit of a revision that is not a live leaf is a conflict row, before its bytes are stored.
      return settle(
        items,
        (item, k) =>
          kept[k] === 'conflict' ? { id: item.id, error: 'conflict', reason: 'Document update conflict.' } : undefined,
        async (writing, at) => {
          // The documents' inline bytes are stored together (one storage commit for a whole batch).
          const atts = await Promise.all(
            writing.map((item, j) => {
              const stubs = kept[at[j]!];
              if (!storesAttachments(item) || stubs === 'conflict') return undefined;
              const own = item.following === undefined ? options : { ...options, following: item.following };
              return storeAttachments(this.store, item.input, stubs, own);
            }),
          );
          writing.forEach(({ input }, j) => {
            if (atts[j] !== undefined) input.atts = atts[j];
          });
          return this.commit(writing, newEdits, writer);
        },
      );
    });
  }

  /**
   * `_local/` documents have no revision tree: written as they come; the rest go to the group
   * commit. In an access-enabled database the plan checks the writer against the stored `_access`.
   */
  private commit(
    items: readonly WriteItem[],
    newEdits: boolean,
    writer: Writer,
    designsAt?: number,
  ): Promise<WriteResult[]> {
    if (this.db.accessKnownOff) return this.commitAs(items, newEdits, undefined, designsAt);
    const known = this.db.knownAccessWriterOf(writer);
    if (known !== undefined) return this.commitAs(items, newEdits, known, designsAt);
    return this.db.accessWriterOf(writer).then((access) => this.commitAs(items, newEdits, access, designsAt));
  }

  private commitAs(
    items: readonly WriteItem[],
    newEdits: boolean,
    access: AccessWriter | undefined,
    designsAt: number | undefined,
  ): Promise<WriteResult[]> {
    // No `_local` document among them (a PUT): straight to the group commit, no settling.
    if (!items.some((item) => isLocalId(item.id))) {
      const request = access === undefined ? { items, newEdits } : { items, newEdits, access };
      return this.commits.submit(designsAt === undefined ? request : { ...request, designsAt });
    }
    return settle(
      items,
      (item) => (isLocalId(item.id) ? this.local.put(item.id, item.input) : undefined),
      (docs) => this.commits.submit({ items: docs, newEdits, ...(access === undefined ? {} : { access }) }),
    );
  }
}

/** Whether writing this item stores something before the group commit (attachment bytes, a `_local` document). */
function storedOnTheWay(item: WriteItem): boolean {
  return isLocalId(item.id) || storesAttachments(item);
}

/** Whether storing this item means storing attachment bytes first. */
function storesAttachments({ id, input }: WriteItem): boolean {
  return !isLocalId(id) && hasAttachments(input);
}

/**
 * One database: documents with revision trees over a `DatabaseStore`. Everything here is
 * synchronous (the store is), so one call is one atomic step for the whole process: the single
 * writer CouchDB has per database comes for free.
 */
import { CouchError, conflict, notFound } from '../errors.js';
import { parseJson, stringifyJson, type JsonValue } from '../json/index.js';
import {
  compareRevs,
  conflicts as conflictsOf,
  deletedConflicts as deletedConflictsOf,
  findRev,
  formatRev,
  latest as latestLeaves,
  leaves as leavesOf,
  missingRevs,
  parseRev,
  parseTree,
  possibleAncestors,
  revisions as revisionsOf,
  revsInfo as revsInfoOf,
  serializeTree,
  sortedLeaves,
  compareLeaves,
  winner,
  type Rev,
  type RevTree,
} from '../revisions/index.js';
import type { DatabaseStore, DbMeta, DocRecord, DocWrite } from '../storage/engine.js';
import { checkDocBody, readDocInput, type DocInput } from './doc-input.js';
import { isLocalId, validateDocId } from './doc-id.js';
import { compareIds } from './id-order.js';
import { interactiveEdit, replicatedEdit, revRequired, type Edit } from './edit.js';
import { LocalDocs } from './local-docs.js';
import { renderDoc } from './render.js';

export const DEFAULT_REVS_LIMIT = 1000;

/** One row of a `_bulk_docs` answer. */
export type WriteResult = { ok: true; id: string; rev: string } | { id: string; error: string; reason: string };

export interface OpenOptions {
  rev?: Rev;
  revs?: boolean;
  revsInfo?: boolean;
  conflicts?: boolean;
  deletedConflicts?: boolean;
  latest?: boolean;
  localSeq?: boolean;
}

/** A document read for a client: its JSON text, and whether it may carry an ETag (no meta members). */
export interface OpenedDoc {
  json: string;
  rev: string;
  deleted: boolean;
  hasMeta: boolean;
}

export type OpenRevsResult = { ok: string } | { missing: string };

export type ChangeListener = (updateSeq: number) => void;

export class Database {
  readonly local: LocalDocs;
  private revsLimitCache: number | undefined;
  private readonly listeners = new Set<ChangeListener>();

  constructor(
    readonly name: string,
    readonly store: DatabaseStore,
  ) {
    this.local = new LocalDocs(store);
  }

  meta(): DbMeta {
    return this.store.meta();
  }

  /** The latest sequence (cheap: no file sizes). */
  get updateSeq(): number {
    return this.store.counters().updateSeq;
  }

  get revsLimit(): number {
    if (this.revsLimitCache === undefined) {
      const stored = this.store.getProp('revs_limit');
      this.revsLimitCache = stored === undefined ? DEFAULT_REVS_LIMIT : Number(stored);
    }
    return this.revsLimitCache;
  }

  setRevsLimit(limit: number): void {
    this.store.setProp('revs_limit', String(limit));
    this.revsLimitCache = limit;
  }

  /** Called with the new update sequence after every write that changed documents. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the change listeners about a write made outside `bulkDocs`/`putDoc` (a purge). */
  notifyChanged(updateSeq: number): void {
    for (const listener of this.listeners) listener(updateSeq);
  }

  // ---- writes ----

  /**
   * Writes documents as `_bulk_docs` does: every input is validated first (one invalid document
   * fails the whole request, nothing written), then each gets its own result: conflicts are
   * values, not throws. All accepted edits commit in one transaction.
   */
  bulkDocs(docs: readonly JsonValue[], newEdits: boolean): WriteResult[] {
    const inputs = docs.map((doc) => {
      const input = readDocInput(doc);
      if (!newEdits && input.rev === undefined && input.revisions === undefined) {
        throw revRequired();
      }
      const id = input.id === undefined && newEdits ? undefined : validateDocId(input.id);
      return { id, input };
    });
    return this.write(
      inputs.map(({ id, input }) => ({ id: id ?? randomId(), input })),
      newEdits,
    );
  }

  /** Writes one document under the given id (`PUT /db/id`); throws on conflict. */
  putDoc(rawId: unknown, input: DocInput, newEdits = true): { ok: true; id: string; rev: string } {
    const id = validateDocId(rawId);
    const [result] = this.write([{ id, input }], newEdits) as [WriteResult];
    if ('error' in result) throw new CouchError(result.error, result.reason);
    return result;
  }

  private write(items: readonly { id: string; input: DocInput }[], newEdits: boolean): WriteResult[] {
    const results: WriteResult[] = new Array(items.length);
    // The latest tree of each id touched by this batch: a second edit of the same id in one
    // request sees the first (replication) or conflicts (interactive, as CouchDB).
    const pending = new Map<string, { record: DocRecord | undefined; tree: RevTree | undefined; write?: DocWrite }>();
    const order: string[] = [];
    const ids = [...new Set(items.filter((item) => !isLocalId(item.id)).map((item) => item.id))];
    const records = this.store.getDocs(ids);
    const recordOf = new Map<string, DocRecord | undefined>();
    ids.forEach((id, i) => {
      recordOf.set(id, records[i]);
    });
    const limit = this.revsLimit;

    items.forEach(({ id, input }, index) => {
      if (isLocalId(id)) {
        results[index] = this.local.put(id, input);
        return;
      }
      let state = pending.get(id);
      if (state === undefined) {
        const record = recordOf.get(id);
        state = { record, tree: record === undefined ? undefined : parseTree(record.tree) };
        pending.set(id, state);
      } else if (newEdits && state.write !== undefined) {
        results[index] = { id, error: 'conflict', reason: 'Document update conflict.' };
        return;
      }
      let edit: Edit;
      try {
        // Design documents are checked one by one: a bad one is its own error row (CouchDB's
        // per-document validation), not a failed request.
        checkDocBody(id, input);
        edit = newEdits ? interactiveEdit(state.tree, input, limit) : replicatedEdit(state.tree, input, limit);
      } catch (error) {
        if (!(error instanceof CouchError)) throw error;
        results[index] = { id, error: error.error, reason: error.reason };
        return;
      }
      const rev = formatRev(edit.rev);
      results[index] = { ok: true, id, rev };
      if (!edit.changed) return;
      const top = winner(edit.tree)!;
      const record = { id, rev: formatRev(top), deleted: top.deleted, tree: serializeTree(edit.tree) };
      const write: DocWrite = state.write ?? { record, bodies: [], isNew: state.record === undefined };
      write.record = record;
      write.bodies.push({ rev, body: input.json ?? stringifyJson(input.body) });
      if (edit.stemmed.length > 0) (write.dropBodies ??= []).push(...edit.stemmed.map(formatRev));
      if (state.write === undefined) order.push(id);
      state.write = write;
      state.tree = edit.tree;
    });

    if (order.length > 0) {
      // CouchDB gives a batch's sequences in id order (UTF-8 bytes), not in request order.
      order.sort(compareIds);
      const seqs = this.store.writeDocs(order.map((id) => pending.get(id)!.write!));
      const updateSeq = seqs[seqs.length - 1]!;
      for (const listener of this.listeners) listener(updateSeq);
    }
    return results;
  }

  // ---- reads ----

  /** The record of a document, or undefined when it never existed. */
  record(id: string): DocRecord | undefined {
    return this.store.getDoc(id);
  }

  /**
   * `GET /db/id` with its options. Throws 404 `missing` (never existed, or an unknown rev),
   * `deleted` (the winner is a tombstone and no rev was asked for).
   */
  openDoc(id: string, options: OpenOptions = {}): OpenedDoc {
    const record = this.store.getDoc(id);
    if (record === undefined) throw notFound('missing');
    // The tree is parsed only when an option needs it: a plain GET reads the record's winner.
    let parsed: RevTree | undefined;
    const tree = () => (parsed ??= parseTree(record.tree));
    if (options.rev === undefined) {
      if (record.deleted) throw notFound('deleted');
      return this.renderRevision(record, tree, parseRev(record.rev), false, options);
    }
    let target = options.rev;
    if (options.latest) {
      // The best of the leaves below the rev (winner order), where it has several.
      const below = latestLeaves(tree(), target).sort(compareLeaves);
      if (below.length > 0) target = below[0]!;
    }
    const found = findRev(tree(), target);
    if (found === undefined || !found.stored) throw notFound('missing');
    return this.renderRevision(record, tree, target, found.deleted, options);
  }

  /** `?open_revs=all` or a list: every requested leaf (or revision), `{ok: doc}` or `{missing: rev}`. */
  openRevs(id: string, revs: 'all' | Rev[], options: OpenOptions = {}): OpenRevsResult[] {
    const record = this.store.getDoc(id);
    if (record === undefined) {
      if (revs === 'all') throw notFound('missing');
      return revs.map((rev) => ({ missing: formatRev(rev) }));
    }
    const parsed = parseTree(record.tree);
    const tree = () => parsed;
    if (revs === 'all') {
      // Ascending rev order, as CouchDB lists them.
      return leavesOf(parsed)
        .filter((leaf) => leaf.stored)
        .sort(compareRevs)
        .map((leaf) => ({ ok: this.renderRevision(record, tree, leaf, leaf.deleted, options).json }));
    }
    const out: OpenRevsResult[] = [];
    // With `latest`, two requested revs on one branch reach the same leaf: it is listed once.
    const seen = new Set<string>();
    for (const requested of revs) {
      const targets = options.latest ? latestLeaves(parsed, requested) : [requested];
      if (targets.length === 0) {
        out.push({ missing: formatRev(requested) });
        continue;
      }
      for (const target of targets) {
        if (options.latest) {
          const key = formatRev(target);
          if (seen.has(key)) continue;
          seen.add(key);
        }
        const found = findRev(parsed, target);
        if (found === undefined || !found.stored) out.push({ missing: formatRev(target) });
        else out.push({ ok: this.renderRevision(record, tree, target, found.deleted, options).json });
      }
    }
    return out;
  }

  private renderRevision(
    record: DocRecord,
    tree: () => RevTree,
    rev: Rev,
    deleted: boolean,
    options: OpenOptions,
  ): OpenedDoc {
    const revText = formatRev(rev);
    const body = this.store.getBody(record.id, revText);
    if (body === undefined) throw notFound('missing');
    const extras: [string, unknown][] = [];
    let hasMeta = false;
    if (options.revs) extras.push(['_revisions', revisionsOf(tree(), rev)]);
    if (options.revsInfo) {
      extras.push(['_revs_info', revsInfoOf(tree(), rev)]);
      hasMeta = true;
    }
    if (options.conflicts) {
      const list = conflictsOf(tree());
      if (list.length > 0) {
        extras.push(['_conflicts', list]);
        hasMeta = true;
      }
    }
    if (options.deletedConflicts) {
      const list = deletedConflictsOf(tree());
      if (list.length > 0) {
        extras.push(['_deleted_conflicts', list]);
        hasMeta = true;
      }
    }
    if (options.localSeq) {
      extras.push(['_local_seq', record.seq]);
      hasMeta = true;
    }
    return { json: renderDoc(record.id, revText, body, deleted, extras), rev: revText, deleted, hasMeta };
  }

  /** The winning revision's document text for `include_docs` (null when missing or deleted). */
  winningDoc(record: DocRecord, withConflicts = false): string | null {
    if (record.deleted) return null;
    const body = this.store.getBody(record.id, record.rev);
    if (body === undefined) return null;
    if (!withConflicts) return renderDoc(record.id, record.rev, body, false);
    const list = conflictsOf(parseTree(record.tree));
    return renderDoc(record.id, record.rev, body, false, list.length > 0 ? [['_conflicts', list]] : undefined);
  }

  /** A document's current body as a value (for design documents and linked docs). */
  winningBody(id: string): { rev: string; body: JsonValue } | undefined {
    const record = this.store.getDoc(id);
    if (record === undefined || record.deleted) return undefined;
    const body = this.store.getBody(id, record.rev);
    return body === undefined ? undefined : { rev: record.rev, body: parseJson(body) };
  }

  /** The leaves of a document for `_changes?style=all_docs`: the winner first, the rest descending. */
  changeRevs(record: DocRecord, allLeaves: boolean): { rev: string }[] {
    if (!allLeaves) return [{ rev: record.rev }];
    return sortedLeaves(parseTree(record.tree)).map((leaf) => ({ rev: formatRev(leaf) }));
  }

  /** `_revs_diff`: for each id, the revisions this database lacks and the leaves that may be their ancestors. */
  revsDiff(request: ReadonlyMap<string, Rev[]>): Record<string, { missing: string[]; possible_ancestors?: string[] }> {
    const out: Record<string, { missing: string[]; possible_ancestors?: string[] }> = {};
    const ids = [...request.keys()];
    const records = this.store.getDocs(ids);
    ids.forEach((id, i) => {
      const revs = request.get(id)!;
      const record = records[i];
      if (record === undefined) {
        if (revs.length > 0) out[id] = { missing: revs.map(formatRev) };
        return;
      }
      const tree = parseTree(record.tree);
      const missing = missingRevs(tree, revs);
      if (missing.length === 0) return;
      const ancestors = possibleAncestors(tree, missing);
      out[id] = { missing: missing.map(formatRev) };
      if (ancestors.length > 0) out[id].possible_ancestors = ancestors.map(formatRev);
    });
    return out;
  }

  /** Leaves of a document (for `_bulk_get` without a rev), highest first. */
  leafRevs(id: string): Rev[] {
    const record = this.store.getDoc(id);
    return record === undefined ? [] : sortedLeaves(parseTree(record.tree));
  }

  /** Throws 409 unless `rev` is the current winner of a live document (used by DELETE and COPY checks). */
  requireCurrent(id: string, rev: Rev | undefined): DocRecord {
    const record = this.store.getDoc(id);
    if (record === undefined) throw notFound('missing');
    if (record.deleted) throw notFound('deleted');
    if (rev !== undefined && findRev(parseTree(record.tree), rev) === undefined) throw conflict();
    return record;
  }
}

/** A new document id: 32 lower-case hex digits, as CouchDB's default uuid algorithm (random). */
export function randomId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

/**
 * A database's reads: documents and their revisions as a client asks for them (`GET` with its
 * options, `open_revs`, `_bulk_get`'s read-ahead), winners for `include_docs` and scans, attachment
 * bytes, `_revs_diff`. Everything here only reads the `DocumentStore`; the writes and the
 * database's lifecycle are in ./database.ts, which extends this class.
 */
import { conflict, notFound } from '../errors.js';
import { parseJson, type JsonValue } from '../json/index.js';
import {
  compareLeaves,
  compareRevs,
  conflicts as conflictsOf,
  deletedConflicts as deletedConflictsOf,
  findRev,
  formatRev,
  keyTreeLeaves,
  latest as latestLeaves,
  isOneLineTree,
  leaves as leavesOf,
  missingRevs,
  parseRev,
  parseTree,
  possibleAncestors,
  revisions as revisionsOf,
  revsInfo as revsInfoOf,
  sortedLeaves,
  type Rev,
  type RevTree,
} from '../revisions/index.js';
import type { DocumentStore } from '../storage/contract.js';
import type { ChangedDoc, DocRecord, IdRange, NumberBound, Page } from '../storage/records.js';
import type { ViewIndexStore } from '../storage/view-index-store.js';
import { gcPacedUpTo } from '../support/gc-pacer.js';
import { attachmentsOf, splitStoredBody, type Attachment } from './attachment.js';
import {
  changesStubs,
  identityStream,
  renderAttachments,
  storedBytes,
  type AttachmentView,
} from './attachment-read.js';
import { inIdRange } from './id-order.js';
import { ReadAhead } from './read-ahead.js';
import { type AccessReader, overlaps } from './access-rules.js';
import { renderDoc } from './render.js';
import { readRuleOf, type ReadRule, type Viewer } from './replicator-reads.js';

export interface OpenOptions {
  rev?: Rev;
  revs?: boolean;
  revsInfo?: boolean;
  conflicts?: boolean;
  deletedConflicts?: boolean;
  latest?: boolean;
  localSeq?: boolean;
  /** Inline data of every attachment (`attachments=true`). */
  attachments?: boolean;
  /** Inline data only of attachments newer than the nearest of these ancestors (`atts_since`). */
  attsSince?: Rev[];
  /** `att_encoding_info=true`. */
  attEncodingInfo?: boolean;
  /** Attachments as `follows` entries whose bytes the caller sends as parts (multipart answers). */
  follows?: boolean;
  /**
   * How `openRevs` orders what it finds. `sorted` (GET `open_revs`, fabric_doc_open_revs): found
   * revisions by (generation, id), then missing ones likewise. `keyTree` (`_bulk_get`, whose
   * batched fabric_open_revs merges the answers into a tree): couch_key_tree's leaf order.
   */
  revsOrder?: 'sorted' | 'keyTree';
  /** Who reads (a replication document is shown whole only to its owner and admins: ./replicator-reads.ts). */
  viewer?: Viewer;
}

/** A document read for a client: its JSON text, and whether it may carry an ETag (no meta members). */
export interface OpenedDoc {
  json: string;
  rev: string;
  deleted: boolean;
  hasMeta: boolean;
  /** The attachments whose bytes follow the JSON (`follows` and data reads; empty otherwise). */
  following: Attachment[];
}

export type OpenRevsResult = { ok: string; doc: OpenedDoc } | { missing: string };

export class DocumentReader {
  /** What readers are shown of a document (replication documents' credentials: ./replicator-reads.ts). */
  private readonly readRule: ReadRule | undefined;

  constructor(readonly store: DocumentStore) {
    this.readRule = readRuleOf(store.name);
  }

  /** Whether readers may be shown less than the stored documents (./replicator-reads.ts). */
  get hasReadRule(): boolean {
    return this.readRule !== undefined;
  }

  /**
   * The first `count` of `ids`' winners as `winningDocsWithSeqsOf` renders them (without
   * `_conflicts`), joined by commas, when each is live at a sequence at most `maxSeq`; undefined
   * when some is not, where readers may be shown less (a read rule), or where storage does not
   * write such text (the caller reads the page document by document then).
   */
  async plainWinnersText(ids: readonly string[], maxSeq: number, count: number): Promise<string | undefined> {
    if (this.readRule !== undefined || this.store.plainWinnersText === undefined) return undefined;
    return this.store.plainWinnersText(ids, maxSeq, count);
  }

  /** The record of a document, or undefined when it never existed. */
  record(id: string): Promise<DocRecord | undefined> {
    return this.store.getDoc(id);
  }

  /** The records of many documents, in the order asked (undefined where one never existed). */
  records(ids: readonly string[]): Promise<(DocRecord | undefined)[]> {
    return this.store.getDocs(ids);
  }

  /**
   * The changes after `since`, a page of records at a time, in sequence order (newest first when
   * `descending`): what a follower of the database reads to learn which documents changed.
   */
  foldChanges(since: number, descending = false): AsyncIterable<Page<DocRecord>> {
    return this.store.foldChanges(since, descending);
  }

  /** The changes after `since` with their winning bodies, a page at a time (what view indexes map, what the replicator copies). */
  foldChangedBodies(since: number): AsyncIterable<Page<ChangedDoc>> {
    return this.store.foldChangedBodies(since);
  }

  /** Revisions' stored body texts as stored (undefined where one is not held), in the order asked. */
  storedBodies(wanted: readonly { id: string; rev: string }[]): Promise<(string | undefined)[]> {
    return this.store.getBodies(wanted);
  }

  /** How many documents changed after `since` (`_changes`' `pending`). */
  countChanges(since: number): Promise<number> {
    return this.store.countChanges(since);
  }

  /** Where this database's view indexes are kept (the view engine's storage). */
  viewIndexes(): ViewIndexStore {
    return this.store.viewIndexes();
  }

  /**
   * `GET /db/id` with its options. Throws 404 `missing` (never existed, or an unknown rev),
   * `deleted` (the winner is a tombstone and no rev was asked for).
   */
  async openDoc(id: string, options: OpenOptions = {}): Promise<OpenedDoc> {
    // Without a rev, the winner: its record and body in one read.
    const winner = options.rev === undefined ? await this.store.getDocWithBody(id) : undefined;
    const record = winner?.record ?? (options.rev === undefined ? undefined : await this.store.getDoc(id));
    if (record === undefined) throw notFound('missing');
    // The tree is parsed only when an option needs it: a plain GET reads the record's winner.
    let parsed: RevTree | undefined;
    const tree = () => (parsed ??= parseTree(record.tree));
    if (options.rev === undefined) {
      if (record.deleted) throw notFound('deleted');
      return this.renderRevision(record, tree, parseRev(record.rev), false, options, winner?.body);
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

  /** Documents' records and winning bodies read together, for openRevs and leafRevs of many. */
  readAhead(ids: readonly string[]): Promise<ReadAhead> {
    return ReadAhead.of(this.store, ids);
  }

  private async recordOf(id: string, ahead: ReadAhead | undefined): Promise<DocRecord | undefined> {
    return ahead?.has(id) ? ahead.record(id) : this.store.getDoc(id);
  }

  /** `?open_revs=all` or a list: every requested leaf (or revision), `{ok: doc}` or `{missing: rev}`. */
  async openRevs(
    id: string,
    revs: 'all' | Rev[],
    options: OpenOptions = {},
    ahead?: ReadAhead,
  ): Promise<OpenRevsResult[]> {
    const record = await this.recordOf(id, ahead);
    if (record === undefined) {
      if (revs === 'all') throw notFound('missing');
      return revs.map((rev) => ({ missing: formatRev(rev) }));
    }
    const parsed = parseTree(record.tree);
    const tree = () => parsed;
    const keyTree = options.revsOrder === 'keyTree';
    if (revs === 'all') {
      const stored = (keyTree ? keyTreeLeaves(parsed) : leavesOf(parsed).sort(compareRevs)).filter(
        (leaf) => leaf.stored,
      );
      const out: OpenRevsResult[] = [];
      for (const leaf of stored) {
        const read = ahead?.bodyOf(record, formatRev(leaf));
        out.push(okResult(await this.renderRevision(record, tree, leaf, leaf.deleted, options, read)));
      }
      return out;
    }
    // Found and missing revisions, each once (CouchDB collects the answers in a dict or a tree).
    const found: Rev[] = [];
    const missing: Rev[] = [];
    const seen = new Set<string>();
    for (const requested of revs) {
      const targets = options.latest ? latestLeaves(parsed, requested) : [requested];
      if (targets.length === 0) targets.push(requested);
      for (const target of targets) {
        const key = formatRev(target);
        if (seen.has(key)) continue;
        seen.add(key);
        const node = findRev(parsed, target);
        if (node === undefined || !node.stored) missing.push(target);
        else found.push(target);
      }
    }
    if (keyTree) {
      const position = new Map(keyTreeLeaves(parsed).map((leaf, i) => [formatRev(leaf), i]));
      const at = (rev: Rev) => position.get(formatRev(rev)) ?? -1;
      found.sort((a, b) => at(a) - at(b));
    } else {
      found.sort(compareRevs);
      missing.sort(compareRevs);
    }
    const out: OpenRevsResult[] = [];
    for (const target of found) {
      const read = ahead?.bodyOf(record, formatRev(target));
      const deleted = findRev(parsed, target)!.deleted;
      out.push(okResult(await this.renderRevision(record, tree, target, deleted, options, read)));
    }
    for (const target of missing) out.push({ missing: formatRev(target) });
    return out;
  }

  private async renderRevision(
    record: DocRecord,
    tree: () => RevTree,
    rev: Rev,
    deleted: boolean,
    options: OpenOptions,
    /** The revision's body when it was read with the record. */
    read?: string,
  ): Promise<OpenedDoc> {
    const storedRev = formatRev(rev);
    const storedBody = read ?? (await this.store.getBody(record.id, storedRev));
    if (storedBody === undefined) throw notFound('missing');
    const shown = this.readRule?.(
      record.id,
      storedRev,
      storedBody,
      deleted,
      () => revisionsOf(tree(), rev),
      options.viewer,
    );
    const revText = shown?.rev ?? storedRev;
    const body = shown?.body ?? storedBody;
    const extras: [string, unknown][] = [];
    let hasMeta = false;
    if (options.revs) extras.push(['_revisions', shownRevisions(revisionsOf(tree(), rev), revText)]);
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
    const view = attachmentView(options, () => revisionsOf(tree(), rev) ?? { start: rev.pos, ids: [rev.id] });
    if (changesStubs(view) && body.startsWith('{"_attachments"')) {
      const rendered = await renderAttachments(this.store, attachmentsOf(body), view);
      const json = renderDoc(record.id, revText, body, deleted, extras, rendered.text);
      return { json, rev: revText, deleted, hasMeta, following: rendered.following };
    }
    return {
      json: renderDoc(record.id, revText, body, deleted, extras),
      rev: revText,
      deleted,
      hasMeta,
      following: [],
    };
  }

  /** An attachment's stored bytes (a gzip stream for compressed ones), from `start` to `end` (exclusive). */
  attachmentBytes(att: Attachment, start?: number, end?: number): AsyncIterable<Uint8Array> {
    return gcPacedUpTo(storedBytes(this.store, att, start, end), att.encodedLength ?? att.length);
  }

  /** An attachment's identity bytes (decoded as they are read when stored gzipped). */
  attachmentIdentity(att: Attachment): AsyncIterable<Uint8Array> {
    // An upload sent gzipped has no known identity length (its `length` is the stored one).
    const known = att.encodedLength === undefined || att.length !== att.encodedLength;
    return gcPacedUpTo(identityStream(this.store, att), known ? att.length : Number.POSITIVE_INFINITY);
  }

  /** A revision's attachments (empty when it has none; undefined when the revision or its body is not held). */
  async revisionAttachments(id: string, rev: Rev): Promise<Attachment[] | undefined> {
    const body = await this.store.getBody(id, formatRev(rev));
    return body === undefined ? undefined : attachmentsOf(body);
  }

  /**
   * The winning revision's document text for `include_docs` (null when missing or deleted);
   * `atts` asks for inline attachment data or encoding info (`attachments=true`, `att_encoding_info=true`).
   */
  async winningDoc(
    record: DocRecord,
    withConflicts = false,
    atts?: AttachmentView,
    viewer?: Viewer,
  ): Promise<string | null> {
    if (record.deleted) return null;
    const body = await this.store.getBody(record.id, record.rev);
    return this.renderWinner(record, body, withConflicts, viewer, await this.attachmentsText(body, atts));
  }

  /** `winningDoc` of many records, their bodies read together (a page of `include_docs` rows). */
  async winningDocs(
    records: readonly (DocRecord | undefined)[],
    withConflicts = false,
    atts?: AttachmentView,
    viewer?: Viewer,
  ): Promise<(string | null)[]> {
    const live = records.filter((r): r is DocRecord => r !== undefined && !r.deleted);
    const bodies = await this.store.getBodies(live.map((r) => ({ id: r.id, rev: r.rev })));
    const bodyOf = new Map<DocRecord, string | undefined>(live.map((r, i) => [r, bodies[i]]));
    const out: (string | null)[] = [];
    for (const r of records) {
      if (r === undefined || r.deleted) out.push(null);
      else {
        const body = bodyOf.get(r);
        out.push(this.renderWinner(r, body, withConflicts, viewer, await this.attachmentsText(body, atts)));
      }
    }
    return out;
  }

  /**
   * The winning documents' texts of `ids` (null where missing or deleted), records and bodies in
   * one read: a page of Mango results or of `include_docs` rows (`atts` as in `winningDoc`).
   */
  async winningDocsOf(
    ids: readonly string[],
    withConflicts = false,
    viewer?: Viewer,
    atts?: AttachmentView,
  ): Promise<(string | null)[]> {
    const found = await this.store.getDocsWithBodies(ids);
    if (atts === undefined || !changesStubs(atts)) {
      return found.map((doc) =>
        doc === undefined || doc.deleted ? null : this.renderWinner(doc, doc.body, withConflicts, viewer),
      );
    }
    const out: (string | null)[] = [];
    for (const doc of found) {
      if (doc === undefined || doc.deleted) out.push(null);
      else {
        const attachments = await this.attachmentsText(doc.body, atts);
        out.push(this.renderWinner(doc, doc.body, withConflicts, viewer, attachments));
      }
    }
    return out;
  }

  /**
   * `winningDocsOf` with each winner's update sequence: a Mango query whose index was current at
   * a later sequence knows such a document matches its range without reading it (mango/find.ts).
   */
  async winningDocsWithSeqsOf(
    ids: readonly string[],
    withConflicts = false,
    viewer?: Viewer,
  ): Promise<({ text: string; seq: number } | null)[]> {
    const found = await this.store.getDocsWithBodies(ids);
    return found.map((doc) => {
      const text = doc === undefined || doc.deleted ? null : this.renderWinner(doc, doc.body, withConflicts, viewer);
      return text === null || doc === undefined ? null : { text, seq: doc.seq };
    });
  }

  /** The `_attachments` text a read with inline data or encoding info gives (undefined: the stored stubs). */
  private async attachmentsText(
    body: string | undefined,
    view: AttachmentView | undefined,
  ): Promise<string | undefined> {
    if (view === undefined || body === undefined || !changesStubs(view) || !body.startsWith('{"_attachments"')) {
      return undefined;
    }
    return (await renderAttachments(this.store, attachmentsOf(body), { ...view, follows: false })).text;
  }

  /**
   * Live documents in id order with their winning revision's text, a page at a time (a scan of
   * every document: records and bodies read together).
   */
  async *foldWinningDocs(
    range: IdRange,
    withConflicts = false,
    /** Where the documents come from (a reader's: documents/access-reads.ts); every document by default. */
    bodies: AsyncIterable<Page<ChangedDoc>> = this.store.foldDocBodies(range),
    viewer?: Viewer,
  ): AsyncGenerator<{ id: string; text: string }[]> {
    for await (const page of bodies) {
      const out: { id: string; text: string }[] = [];
      for (const doc of page) {
        const text = doc.deleted ? null : this.renderWinner(doc, doc.body, withConflicts, viewer);
        if (text !== null) out.push({ id: doc.id, text });
      }
      if (out.length > 0) yield out;
    }
  }

  /**
   * Documents and bodies in id order with `bounds` judged by storage: a document whose member is
   * an integer out of a bound is passed over unread (a Mango scan, ../mango/number-bounds.ts).
   */
  foldBoundedBodies(range: IdRange, bounds: readonly NumberBound[]): AsyncIterable<Page<ChangedDoc>> {
    return this.store.foldDocBodies(range, bounds);
  }

  /** The documents in a range of ids, design documents left out (what a scan of it examines). */
  async countDocsButDesigns(range: IdRange): Promise<number> {
    let designs = 0;
    for await (const page of this.store.foldDocs(DESIGN_IDS)) {
      for (const { id } of page) if (inIdRange(id, range)) designs++;
    }
    return (await this.store.countDocs(range)) - designs;
  }

  /** Live winners by id with their stored bodies, not rendered (`winningDocFromBody` renders one). */
  async *foldWinningBodies(
    range: IdRange,
    bodies: AsyncIterable<Page<ChangedDoc>> = this.store.foldDocBodies(range),
    /** Who reads: the bodies are those they are shown (a Mango selector judges no more than that). */
    viewer?: Viewer,
  ): AsyncGenerator<ChangedDoc[]> {
    for await (const page of bodies) {
      const live = page.filter((doc) => !doc.deleted && doc.body !== undefined);
      if (live.length > 0) yield this.readRule === undefined ? live : live.map((doc) => this.shownDoc(doc, viewer));
    }
  }

  /** `winningDoc` from a body already read (a fold that returns bodies with the changes). */
  winningDocFromBody(
    record: DocRecord,
    body: string | undefined,
    withConflicts = false,
    viewer?: Viewer,
  ): string | null {
    return record.deleted ? null : this.renderWinner(record, body, withConflicts, viewer);
  }

  /** A winner with its body as `viewer` is shown it (./replicator-reads.ts). */
  private shownDoc(doc: ChangedDoc, viewer: Viewer | undefined): ChangedDoc {
    if (this.readRule === undefined || doc.body === undefined) return doc;
    const shown = this.readRule(doc.id, doc.rev, doc.body, doc.deleted, () => winnerPath(doc), viewer);
    return shown.body === doc.body ? doc : { ...doc, rev: shown.rev, body: shown.body };
  }

  /** A winning revision's document text (null without its body), with `_conflicts` when asked and any. */
  private renderWinner(
    record: DocRecord,
    body: string | undefined,
    withConflicts: boolean,
    viewer: Viewer | undefined,
    attachments?: string,
  ): string | null {
    if (body === undefined || this.readRule === undefined)
      return renderWinner(record, body, withConflicts, attachments);
    const shown = this.readRule(record.id, record.rev, body, false, () => winnerPath(record), viewer);
    if (shown.body === body) return renderWinner(record, body, withConflicts, attachments);
    return renderWinner({ ...record, rev: shown.rev }, shown.body, withConflicts, attachments);
  }

  /** A document's current body as a value (for design documents and linked docs). */
  async winningBody(id: string): Promise<{ rev: string; body: JsonValue } | undefined> {
    const record = await this.store.getDoc(id);
    if (record === undefined || record.deleted) return undefined;
    const body = await this.store.getBody(id, record.rev);
    return body === undefined ? undefined : { rev: record.rev, body: parseJson(splitStoredBody(body).body) };
  }

  /** The leaves of a document for `_changes?style=all_docs`: the winner first, the rest descending. */
  changeRevs(record: DocRecord, allLeaves: boolean): { rev: string }[] {
    if (!allLeaves) return [{ rev: record.rev }];
    if (isOneLineTree(record.tree)) return [{ rev: record.rev }];
    return sortedLeaves(parseTree(record.tree)).map((leaf) => ({ rev: formatRev(leaf) }));
  }

  /** `_revs_diff`: for each id, the revisions this database lacks and the leaves that may be their ancestors. */
  async revsDiff(
    request: ReadonlyMap<string, Rev[]>,
    /** A reader of an access-enabled database: documents they may not read answer as absent. */
    reader?: AccessReader,
  ): Promise<Record<string, { missing: string[]; possible_ancestors?: string[] }>> {
    const out: Record<string, { missing: string[]; possible_ancestors?: string[] }> = {};
    for (const [id, { missing, possibleAncestors }] of await this.missingRevs(request, reader)) {
      out[id] = possibleAncestors.length > 0 ? { missing, possible_ancestors: possibleAncestors } : { missing };
    }
    return out;
  }

  /**
   * `revsDiff` as a map, only the ids with revisions missing (what the replicator reads: no
   * object keyed by 500 ids built and walked again).
   */
  async missingRevs(
    request: ReadonlyMap<string, Rev[]>,
    reader?: AccessReader,
  ): Promise<Map<string, { missing: string[]; possibleAncestors: string[] }>> {
    const out = new Map<string, { missing: string[]; possibleAncestors: string[] }>();
    const ids = [...request.keys()];
    const records = await this.store.getDocs(ids);
    if (reader !== undefined) {
      const readers = await this.store.readersOf(ids);
      readers.forEach((list, i) => {
        if (!overlaps(reader.principals, list)) records[i] = undefined;
      });
    }
    ids.forEach((id, i) => {
      const revs = request.get(id)!;
      const record = records[i];
      if (record === undefined) {
        if (revs.length > 0) out.set(id, { missing: revs.map(formatRev), possibleAncestors: [] });
        return;
      }
      const tree = parseTree(record.tree);
      const missing = missingRevs(tree, revs);
      if (missing.length === 0) return;
      const ancestors = possibleAncestors(tree, missing);
      out.set(id, { missing: missing.map(formatRev), possibleAncestors: ancestors.map(formatRev) });
    });
    return out;
  }

  /** Leaves of a document (for `_bulk_get` without a rev), highest first. */
  async leafRevs(id: string, ahead?: ReadAhead): Promise<Rev[]> {
    const record = await this.recordOf(id, ahead);
    return record === undefined ? [] : sortedLeaves(parseTree(record.tree));
  }

  /** Throws 409 unless `rev` is the current winner of a live document (used by DELETE and COPY checks). */
  async requireCurrent(id: string, rev: Rev | undefined): Promise<DocRecord> {
    const record = await this.store.getDoc(id);
    if (record === undefined) throw notFound('missing');
    if (record.deleted) throw notFound('deleted');
    if (rev !== undefined && findRev(parseTree(record.tree), rev) === undefined) throw conflict();
    return record;
  }
}

/** A winning revision's document text (null without its body), with `_conflicts` when asked and any. */
function renderWinner(
  record: DocRecord,
  body: string | undefined,
  withConflicts: boolean,
  attachments?: string,
): string | null {
  if (body === undefined) return null;
  if (!withConflicts) return renderDoc(record.id, record.rev, body, false, undefined, attachments);
  const list = conflictsOf(parseTree(record.tree));
  const extras: [string, unknown][] | undefined = list.length > 0 ? [['_conflicts', list]] : undefined;
  return renderDoc(record.id, record.rev, body, false, extras, attachments);
}

/** The revision path of a record's winner (`_revisions`). */
function winnerPath(record: DocRecord): { start: number; ids: string[] } | undefined {
  return revisionsOf(parseTree(record.tree), parseRev(record.rev));
}

/** `_revisions` of a revision shown under another rev id (./replicator-reads.ts): that id first. */
function shownRevisions(
  path: { start: number; ids: string[] } | undefined,
  rev: string,
): { start: number; ids: string[] } | undefined {
  if (path === undefined) return undefined;
  const id = rev.slice(rev.indexOf('-') + 1);
  return path.ids[0] === id ? path : { start: path.start, ids: [id, ...path.ids.slice(1)] };
}

function okResult(doc: OpenedDoc): OpenRevsResult {
  return { ok: doc.json, doc };
}

/**
 * How a read shows attachments: `atts_since` gives data only for attachments newer than the
 * highest generation among the listed revs that are ancestors of (or are) the revision read.
 */
function attachmentView(options: OpenOptions, path: () => { start: number; ids: string[] }): AttachmentView {
  let since = 0;
  if (options.attsSince !== undefined) {
    const { start, ids } = path();
    for (const rev of options.attsSince) {
      if (rev.pos <= start && rev.pos > since && ids[start - rev.pos] === rev.id) since = rev.pos;
    }
  }
  return {
    data: options.attachments === true || options.attsSince !== undefined,
    follows: options.follows,
    since,
    encodingInfo: options.attEncodingInfo,
  };
}

/** Every design document's id. */
const DESIGN_IDS: IdRange = { start: '_design/', end: '_design0', inclusiveEnd: false };

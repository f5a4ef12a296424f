/**
 * What a batch of write requests does to the documents it touches, computed from their current
 * records: pure, so it runs inside the storage engine's transaction (see storage/contract.ts).
 * Requests are applied in order, each seeing the ones before it; conflicts are result rows.
 */
import { CouchError } from '../errors.js';
import { stringifyJson } from '../json/index.js';
import { formatRev, parseTree, serializeTree, winner, type RevTree } from '../revisions/index.js';
import type { DocRecord, DocWrite } from '../storage/records.js';
import type { JsonObject } from '../json/index.js';
import { ACCESS_MEMBER, type AccessPlanner, type AccessWriter } from './access-rules.js';
import { storedBody } from './attachment.js';
import type { DocInput } from './doc-input.js';
import { interactiveAppend, interactiveEdit, replicatedEdit, type Edit } from './edit.js';
import { compareIds } from './id-order.js';
import { isDesignId } from './doc-id.js';
import { addAppendedParent, addUnleafed } from './stale-bodies.js';

/** One row of a `_bulk_docs` answer. */
export type WriteResult =
  | { ok: true; id: string; rev: string }
  | { id: string; rev?: string; error: string; reason: string };

/** One request's documents (none of them `_local/`), with their ids already validated. */
export interface WriteRequest {
  items: readonly { id: string; input: DocInput }[];
  newEdits: boolean;
  /** In an access-enabled database: who writes (./access-rules.ts). */
  access?: AccessWriter;
  /**
   * The update sequence the design documents its rules ran with are current at, when the engine
   * tells its plan the design sequence: a later one sends the request back (./group-commit.ts).
   */
  designsAt?: number;
}

export interface PlannedWrites {
  /** One write per document, in commit (sequence) order. */
  writes: DocWrite[];
  /** Each request's rows, in its items' order. */
  results: WriteResult[][];
}

/** The ids a batch of requests touches (what the engine reads and locks). */
export function idsOf(requests: readonly WriteRequest[]): string[] {
  // A one-document request (every PUT) needs no set to tell its ids apart.
  if (requests.length === 1 && requests[0]!.items.length === 1) return [requests[0]!.items[0]!.id];
  const ids = new Set<string>();
  for (const request of requests) for (const item of request.items) ids.add(item.id);
  return [...ids];
}

/**
 * A check a design document must pass before it is written (the view engine's design document
 * rules): it throws a CouchError, which becomes that document's error row. Other documents' bodies
 * are not read here (a replicated revision's may be text not parsed yet).
 */
export type DocCheck = (id: string, body: JsonObject, deleted: boolean) => void;

/** The stored text of a new revision: its body, its attachments in front (./attachment.ts). */
function bodyText(input: DocInput, generation: number): string {
  const json = input.json ?? stringifyJson(input.body);
  if (input.atts === undefined || input.atts.length === 0) return json;
  return storedBody(
    json,
    input.atts.map((att) => ({ ...att, revpos: att.revpos ?? generation })),
  );
}

export function planWrites(
  requests: readonly WriteRequest[],
  records: ReadonlyMap<string, DocRecord>,
  revsLimit: number,
  check?: DocCheck,
  access?: AccessPlanner,
): PlannedWrites {
  // The latest tree of each id touched so far (its stored text, parsed when an edit needs the
  // tree), and its write once it has one.
  const state = new Map<
    string,
    { record: DocRecord | undefined; text: string | undefined; tree: RevTree | undefined; write?: DocWrite }
  >();
  const writes: DocWrite[] = [];
  const results = requests.map(({ items, newEdits, access: writer }) => {
    const rows: WriteResult[] = new Array(items.length);
    // Within one request a second interactive edit of an id conflicts, as CouchDB answers it; a
    // replicated one merges in. Across requests each simply sees the one before.
    const editedHere = new Set<string>();
    const firstWrites: string[] = [];
    items.forEach(({ id, input: given }, index) => {
      let input = given;
      let doc = state.get(id);
      if (doc === undefined) {
        const record = records.get(id);
        doc = { record, text: record?.tree, tree: undefined };
        state.set(id, doc);
      } else if (newEdits && editedHere.has(id)) {
        rows[index] = { id, error: 'conflict', reason: 'Document update conflict.' };
        return;
      }
      let edit: Edit | undefined;
      let appended: ReturnType<typeof interactiveAppend>;
      let revAccess: readonly string[] | undefined;
      // An access-enabled database's revision ids do not hash `_access` (./access-rules.ts).
      let hashOmits: string | undefined;
      try {
        if (access !== undefined && writer !== undefined) {
          // The access rules read the tree (each leaf's readers), unless every leaf has the same.
          if (doc.tree === undefined && doc.text !== undefined && access.needsTree(id, doc.record)) {
            doc.tree = parseTree(doc.text);
          }
          try {
            ({ input, access: revAccess } = access.admit(id, input, doc.record, doc.tree, writer));
            hashOmits = ACCESS_MEMBER;
          } catch (error) {
            // A refused replicated write names its revision, as the write rules' rows do.
            if (error instanceof CouchError && !newEdits && input.rev !== undefined) {
              rows[index] = { id, rev: formatRev(input.rev), error: error.error, reason: error.reason };
              return;
            }
            throw error;
          }
        }
        // Design documents are checked one by one: a bad one is its own error row (CouchDB's
        // per-document validation), not a failed request.
        if (check !== undefined && isDesignId(id)) check(id, input.body, input.deleted);
        // An update of a one-line history is done on the stored text; anything else on the tree.
        if (newEdits && doc.tree === undefined && doc.text !== undefined) {
          appended = interactiveAppend(doc.text, input, revsLimit, hashOmits);
        }
        if (appended === undefined) {
          if (doc.tree === undefined && doc.text !== undefined) doc.tree = parseTree(doc.text);
          edit = newEdits
            ? interactiveEdit(doc.tree, input, revsLimit, hashOmits)
            : replicatedEdit(doc.tree, input, revsLimit);
        }
      } catch (error) {
        if (!(error instanceof CouchError)) throw error;
        rows[index] = { id, error: error.error, reason: error.reason };
        return;
      }
      // A document with no tree before this edit has one leaf after it, as an appended one has.
      const oneLeaf = appended !== undefined || doc.text === undefined;
      const written = appended ?? edit!;
      const rev = formatRev(written.rev);
      rows[index] = { ok: true, id, rev };
      editedHere.add(id);
      let record: DocWrite['record'];
      // Revisions this edit makes non-leaves (DocWrite.unleafed; ./stale-bodies.ts).
      const unleafed: string[] = [];
      if (appended !== undefined) {
        record = { id, rev, deleted: input.deleted, tree: appended.text };
        doc.text = appended.text;
        addAppendedParent(unleafed, input.rev!);
      } else {
        if (!edit!.changed) return;
        const top = winner(edit!.tree)!;
        record = { id, rev: formatRev(top), deleted: top.deleted, tree: serializeTree(edit!.tree) };
        addUnleafed(unleafed, doc.tree, edit!.tree, written.rev);
        doc.tree = edit!.tree;
        doc.text = record.tree;
      }
      if (doc.write === undefined) {
        doc.write = { record, bodies: [], isNew: doc.record === undefined };
        // The stored tree grown by one revision (an engine may append it); a second write of
        // the id in the batch says nothing, as its growth is not from the stored tree.
        if (appended !== undefined) doc.write.treeGrowth = { dropped: appended.stemmed.length, added: 1 };
        firstWrites.push(id);
      } else delete doc.write.treeGrowth;
      doc.write.record = record;
      doc.write.bodies.push({ rev, body: bodyText(input, written.rev.pos) });
      if (written.stemmed.length > 0) (doc.write.dropBodies ??= []).push(...written.stemmed.map(formatRev));
      if (unleafed.length > 0) {
        const all = (doc.write.unleafed ??= []);
        for (const r of unleafed) if (!all.includes(r)) all.push(r);
      }
      if (revAccess !== undefined) {
        doc.write.access = oneLeaf
          ? access!.writtenAppended(id, rev, revAccess)
          : access!.written(id, edit!.tree, rev, revAccess);
      }
    });
    // CouchDB gives a request's sequences in id order (UTF-8 bytes), not in the order sent.
    firstWrites.sort(compareIds);
    for (const id of firstWrites) writes.push(state.get(id)!.write!);
    return rows;
  });
  return { writes, results };
}

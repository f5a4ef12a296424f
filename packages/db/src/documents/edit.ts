/**
 * How one document edit changes a revision tree: the conflict decision of CouchDB's updater,
 * pure (no I/O). Interactive edits (`new_edits=true`) must name the leaf they replace; replicated
 * edits (`new_edits=false`) bring their own revisions and merge in, conflicts and all.
 */
import { CouchError, conflict } from '../errors.js';
import {
  appendToLinear,
  findRev,
  mergePath,
  newRevId,
  normalizeRevId,
  winner,
  type HashedAttachment,
  type Rev,
  type RevTree,
} from '../revisions/index.js';
import { digestBytes } from './attachment.js';
import type { DocInput } from './doc-input.js';

export interface Edit {
  tree: RevTree;
  /** The revision the edit wrote. */
  rev: Rev;
  /** Whether the tree changed at all (a replicated edit of a known revision changes nothing). */
  changed: boolean;
  /** Revisions stemmed away (their bodies can go). */
  stemmed: Rev[];
}

/**
 * A `new_edits=true` edit: a new revision on top of the leaf the input names (or the tombstone).
 * `hashOmits`: a body member the new revision id does not hash (an access-enabled database's `_access`).
 */
export function interactiveEdit(
  tree: RevTree | undefined,
  input: DocInput,
  revsLimit: number,
  hashOmits?: string,
): Edit {
  let parent: Rev | null = null;
  let path: string[] = [];
  if (input.rev === undefined) {
    if (tree !== undefined) {
      // Without a rev only a deleted document can be written again; the new revision continues
      // the winning tombstone's branch.
      const top = winner(tree)!;
      if (!top.deleted) throw conflict();
      parent = { pos: top.pos, id: top.id };
      path = top.path;
    }
  } else if (tree === undefined && input.rev.pos === 0 && input.rev.id === '') {
    // `"_rev": "0-"` on a new document is accepted; CouchDB then hashes that empty parent id.
    parent = input.rev;
  } else {
    const found = tree === undefined ? undefined : findRev(tree, input.rev);
    // Only a live leaf can be edited: an old revision or a tombstone is a conflict.
    if (found === undefined || !found.isLeaf || found.deleted) throw conflict();
    parent = input.rev;
    path = found.path;
  }
  const id = newRevId(input.deleted, parent, input.body, hashedAttachments(input), hashOmits);
  if (tree === undefined) {
    // A new document (so no parent): the tree is its one revision, as mergePath would build it
    // without the work. The id is lower-case hex (normalizeRevId keeps it); one rev never stems.
    if (!(revsLimit >= 1)) throw new RangeError('revsLimit must be at least 1');
    return {
      tree: [{ pos: 1, node: { id, deleted: input.deleted, stored: true, children: [] } }],
      rev: { pos: 1, id },
      changed: true,
      stemmed: [],
    };
  }
  const pos = (parent?.pos ?? 0) + 1;
  const merged = mergePath(tree, { pos, ids: [id, ...path], deleted: input.deleted, stored: true }, revsLimit);
  return { tree: merged.tree, rev: { pos, id }, changed: true, stemmed: merged.stemmed };
}

/**
 * `interactiveEdit` done on the stored text of a tree whose history is one line of revisions
 * (../revisions/linear-append.ts): the new text, revision and stemmed revisions; undefined
 * where that does not apply (then the parsed tree decides, conflicts included).
 */
export function interactiveAppend(
  text: string,
  input: DocInput,
  revsLimit: number,
  hashOmits?: string,
): { text: string; rev: Rev; stemmed: Rev[] } | undefined {
  const parent = input.rev;
  if (parent === undefined) return undefined;
  const id = () => newRevId(input.deleted, parent, input.body, hashedAttachments(input), hashOmits);
  const appended = appendToLinear(text, parent, id, input.deleted, revsLimit);
  return appended && { text: appended.text, rev: appended.leaf, stemmed: appended.stemmed };
}

/** What the rev id hashes of the new revision's attachments. */
function hashedAttachments(input: DocInput): HashedAttachment[] {
  if (input.atts === undefined) return [];
  return input.atts.map((att) => ({ name: att.name, contentType: att.contentType, md5: digestBytes(att.digest) }));
}

/** A `new_edits=false` edit: the input's revision path merged in as given (replication). */
export function replicatedEdit(tree: RevTree | undefined, input: DocInput, revsLimit: number): Edit {
  let pos: number;
  let ids: string[];
  if (input.revisions !== undefined) {
    pos = input.revisions.start;
    ids = input.revisions.ids.map(normalizeRevId);
    if (pos < ids.length) throw new CouchError('bad_request', 'Invalid rev format');
  } else if (input.rev !== undefined) {
    pos = input.rev.pos;
    ids = [normalizeRevId(input.rev.id)];
  } else {
    throw revRequired();
  }
  const merged = mergePath(tree ?? [], { pos, ids, deleted: input.deleted, stored: true }, revsLimit);
  return { tree: merged.tree, rev: { pos, id: ids[0]! }, changed: merged.changed, stemmed: merged.stemmed };
}

/** CouchDB's text for a replicated write without a revision. */
export const revRequired = (): CouchError =>
  new CouchError('bad_request', 'When `new_edits: false`, the document needs `_rev` or `_revisions` specified');

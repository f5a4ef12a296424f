/**
 * Stale bodies: bodies of revisions that are no longer leaves, kept until compaction drops them
 * (CouchDB's file holds them too, and leaves them out of `sizes.active`). Storage keeps their
 * bytes exact from what the document layer tells it here: each write names the revisions it
 * makes non-leaves (`DocWrite.unleafed`), each purge the stale bodies it removes or makes leaves
 * again (`PurgeWrite.staleGone`); compaction drops stale bodies only. A database stored before
 * the count was kept is counted once from its documents' leaves (`leafRevsOf`).
 */
import {
  findRev,
  formatRev,
  isOneLineTree,
  leafNodes,
  parseTree,
  type Rev,
  type RevTree,
  walk,
} from '../revisions/index.js';
import type { DocRecord } from '../storage/records.js';

/** The leaf revisions of a tree, formatted (`storedOnly`: those with a body). */
function leafRevs(tree: RevTree, storedOnly: boolean): Set<string> {
  const out = new Set<string>();
  for (const { pos, node } of leafNodes(tree)) {
    if (!storedOnly || node.stored) out.add(formatRev({ pos, id: node.id }));
  }
  return out;
}

function addOnce(into: string[], rev: string): void {
  if (!into.includes(rev)) into.push(rev);
}

/**
 * Adds to `into` what an edit on the parsed tree (`before`: undefined for a new document) made
 * non-leaves: leaves with a body before that are not leaves after (stemmed ones included), and
 * the written revision if it is not a leaf after and had no body before (a replicated ancestor).
 */
export function addUnleafed(into: string[], before: RevTree | undefined, after: RevTree, written: Rev): void {
  // A new document's written revision is the leaf of its one path.
  if (before === undefined) return;
  const now = leafRevs(after, false);
  for (const rev of leafRevs(before, true)) if (!now.has(rev)) addOnce(into, rev);
  const rev = formatRev(written);
  if (!now.has(rev) && findRev(before, written)?.stored !== true) addOnce(into, rev);
}

/** Adds to `into` the leaf an append on a one-line history (../revisions/linear-append.ts) extended. */
export function addAppendedParent(into: string[], parent: Rev): void {
  addOnce(into, formatRev(parent));
}

/**
 * `PurgeWrite.staleGone`: the revisions with a body that are not leaves of `before` and are not
 * in `kept` (gone with the purge) or are leaves of it again.
 */
export function staleGoneByPurge(before: RevTree, kept: RevTree): string[] {
  const wasLeaf = leafRevs(before, false);
  const leafNow = new Map<string, boolean>();
  for (const { pos, node } of walk(kept)) leafNow.set(formatRev({ pos, id: node.id }), node.children.length === 0);
  const gone: string[] = [];
  for (const { pos, node } of walk(before)) {
    if (!node.stored || node.children.length === 0) continue;
    const rev = formatRev({ pos, id: node.id });
    if (!wasLeaf.has(rev) && leafNow.get(rev) !== false) gone.push(rev);
  }
  return gone;
}

/**
 * A record's leaf revisions (for `DocumentStore.countStaleBodies`). A one-line history (no
 * branch, no second root) has one leaf, its winner; it is not parsed.
 */
export function leafRevsOf(record: DocRecord): readonly string[] {
  if (isOneLineTree(record.tree)) return [record.rev];
  return [...leafRevs(parseTree(record.tree), false)];
}

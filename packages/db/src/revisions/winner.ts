import { compareRevIds, formatRev } from './rev.js';
import { leaves, type Leaf } from './leaves.js';
import type { RevTree } from './tree.js';

/**
 * CouchDB's leaf order, best first: live before deleted, then higher generation, then larger
 * rev id bytes. The winner is the first; `_conflicts` etc. follow the same order.
 */
export function compareLeaves(
  a: Pick<Leaf, 'pos' | 'id' | 'deleted'>,
  b: Pick<Leaf, 'pos' | 'id' | 'deleted'>,
): number {
  if (a.deleted !== b.deleted) return a.deleted ? 1 : -1;
  return b.pos - a.pos || compareRevIds(b.id, a.id);
}

/** The leaves in winner order (best first). */
export function sortedLeaves(tree: RevTree): Leaf[] {
  return leaves(tree).sort(compareLeaves);
}

/** The winning leaf; undefined only for an empty tree. */
export function winner(tree: RevTree): Leaf | undefined {
  if (tree.length === 1 && tree[0]!.node.children.length === 0) {
    // One rev (every new document): it is the winner.
    const { pos, node } = tree[0]!;
    return { pos, id: node.id, deleted: node.deleted, stored: node.stored, path: [node.id] };
  }
  let best: Leaf | undefined;
  for (const leaf of leaves(tree)) if (best === undefined || compareLeaves(leaf, best) < 0) best = leaf;
  return best;
}

/** `_conflicts`: the live leaves other than the winner, as rev strings, best first. */
export function conflicts(tree: RevTree): string[] {
  return sortedLeaves(tree)
    .slice(1)
    .filter((leaf) => !leaf.deleted)
    .map(formatRev);
}

/** `_deleted_conflicts`: the deleted leaves other than the winner, as rev strings, best first. */
export function deletedConflicts(tree: RevTree): string[] {
  return sortedLeaves(tree)
    .slice(1)
    .filter((leaf) => leaf.deleted)
    .map(formatRev);
}

import { normalizeRevId, type Rev } from './rev.js';
import type { RevNode, RevTree } from './tree.js';
import { sortedLeaves } from './winner.js';

/** The given revs the tree does not have, in the order given. */
export function missingRevs(tree: RevTree, revs: readonly Rev[]): Rev[] {
  const known = new Set<string>();
  for (const root of tree) {
    const stack: [RevNode, number][] = [[root.node, root.pos]];
    while (stack.length > 0) {
      const [node, pos] = stack.pop()!;
      known.add(`${pos}-${node.id}`);
      for (const child of node.children) stack.push([child, pos + 1]);
    }
  }
  return revs.filter((rev) => !known.has(`${rev.pos}-${normalizeRevId(rev.id)}`));
}

/**
 * `_revs_diff`'s `possible_ancestors`: the tree's leaves whose generation is below that of at
 * least one missing rev. In CouchDB's order, which is the winner order reversed.
 */
export function possibleAncestors(tree: RevTree, missing: readonly Rev[]): Rev[] {
  if (missing.length === 0) return [];
  const highest = missing.reduce((max, rev) => Math.max(max, rev.pos), -Infinity);
  return sortedLeaves(tree)
    .reverse()
    .filter((leaf) => leaf.pos < highest)
    .map((leaf) => ({ pos: leaf.pos, id: leaf.id }));
}

import { normalizeRevId, type Rev } from './rev.js';
import type { RevNode, RevTree } from './tree.js';
import { sortedLeaves } from './winner.js';

interface Key {
  pos: number;
  id: string;
  rev: Rev;
}

/**
 * The given revs the tree does not have, in the order CouchDB's `couch_key_tree:find_missing`
 * leaves them: walking each root, the revs of a lower generation than the node it reaches move
 * ahead of the rest. (A tree too deep for that walk's recursion keeps the order given.)
 */
export function missingRevs(tree: RevTree, revs: readonly Rev[]): Rev[] {
  try {
    let keys: Key[] = revs.map((rev) => ({ pos: rev.pos, id: normalizeRevId(rev.id), rev }));
    for (const root of tree) {
      if (keys.length === 0) return [];
      const impossible = keys.filter((k) => k.pos < root.pos);
      const missing = findMissing(
        root.pos,
        [root.node],
        keys.filter((k) => k.pos >= root.pos),
      );
      keys = [...impossible, ...missing];
    }
    return keys.map((k) => k.rev);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return missingInOrderGiven(tree, revs);
  }
}

function findMissing(pos: number, nodes: readonly RevNode[], keys: readonly Key[]): Key[] {
  if (keys.length === 0) return [];
  if (nodes.length === 0) return [...keys];
  const [node, ...siblings] = nodes as [RevNode, ...RevNode[]];
  const impossible = keys.filter((k) => k.pos < pos);
  const possible = keys.filter((k) => k.pos >= pos);
  // Erlang's `--` removes the first occurrence only.
  const hit = possible.findIndex((k) => k.pos === pos && k.id === node.id);
  if (hit >= 0) possible.splice(hit, 1);
  const below = findMissing(pos + 1, node.children, possible);
  return [...impossible, ...findMissing(pos, siblings, below)];
}

function missingInOrderGiven(tree: RevTree, revs: readonly Rev[]): Rev[] {
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
 * least one missing rev, in winner order (couch_db:possible_ancestors filters the doc_info's
 * leaves since CouchDB 3.3; older releases listed them reversed).
 */
export function possibleAncestors(tree: RevTree, missing: readonly Rev[]): Rev[] {
  if (missing.length === 0) return [];
  const highest = missing.reduce((max, rev) => Math.max(max, rev.pos), -Infinity);
  return sortedLeaves(tree)
    .filter((leaf) => leaf.pos < highest)
    .map((leaf) => ({ pos: leaf.pos, id: leaf.id }));
}

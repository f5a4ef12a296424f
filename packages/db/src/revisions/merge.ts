import { compareRevIds, normalizeRevId, type Rev } from './rev.js';
import { stemInPlace } from './stem.js';
import { cloneTree, compareRoots, type RevNode, type RevPath, type RevRoot, type RevTree } from './tree.js';

/**
 * What merging a path did (couch_key_tree's result):
 * - `internal_node`: the newest rev was already there (nothing new);
 * - `new_leaf`: the path extended an existing leaf;
 * - `new_branch`: it branched off an inner node (a conflict) or started a disjoint tree
 *   (but the first path merged into an empty tree is a `new_leaf`).
 */
export type MergeOutcome = 'new_leaf' | 'new_branch' | 'internal_node';

export interface MergeResult {
  tree: RevTree;
  outcome: MergeOutcome;
  /** Revs removed by stemming to the revs limit. */
  stemmed: Rev[];
  /**
   * A stored path landed on a rev that existed without a body (an ancestor only named in
   * `_revisions`), which now has one. The outcome is then `internal_node`.
   */
  filled: boolean;
  /**
   * Whether the tree differs from the one given. Usually `outcome !== 'internal_node'`, but an
   * `internal_node` merge can still fill a body or bring back revs older than a stemmed root,
   * and stemming can change a tree on its own.
   */
  changed: boolean;
}

/** What a merge found out on its way, beyond the outcome. */
export interface MergeState {
  filled: boolean;
  changed: boolean;
}

export const DEFAULT_REVS_LIMIT = 1000;

/**
 * Merges a linear history into the tree like couch_key_tree:merge, then stems the result to
 * `revsLimit` revs per branch. The path may overlap the tree partially at either end (older
 * revs the tree has stemmed away come back; a path that starts below a stemmed root joins it)
 * or not at all (a new disjoint tree). Where both know a rev, a stored one beats one without
 * a body; otherwise the tree's version is kept.
 */
export function mergePath(tree: RevTree, path: RevPath, revsLimit = DEFAULT_REVS_LIMIT): MergeResult {
  const { ids } = path;
  if (ids.length === 0) throw new RangeError('a rev path needs at least one id');
  const rootPos = path.pos - ids.length + 1;
  if (!Number.isSafeInteger(rootPos) || rootPos < 0) throw new RangeError('a rev path cannot start below generation 0');
  if (!(revsLimit >= 1)) throw new RangeError('revsLimit must be at least 1');

  // The path as a chain of nodes, oldest first.
  const newest: RevNode = { id: normalizeRevId(ids[0]!), deleted: path.deleted, stored: path.stored, children: [] };
  let chain = newest;
  for (let i = 1; i < ids.length; i++) {
    chain = { id: normalizeRevId(ids[i]!), deleted: false, stored: false, children: [chain] };
  }

  const forest = cloneTree(tree);
  const state: MergeState = { filled: false, changed: false };
  const outcome = mergeChain(forest, { pos: rootPos, node: chain }, state);
  const stemmed = stemInPlace(forest, revsLimit);
  return { tree: forest, outcome, stemmed, filled: state.filled, changed: state.changed || stemmed.length > 0 };
}

/**
 * Merges a chain (a tree whose nodes have at most one child) into the forest, in place.
 * Like couch_key_tree it joins the first tree (in root order) the chain overlaps; if it
 * overlaps none, it becomes a tree of its own. Keeps the forest sorted.
 */
export function mergeChain(forest: RevTree, chain: RevRoot, state: MergeState): MergeOutcome {
  for (let i = 0; i < forest.length; i++) {
    const merged = mergeInto(forest[i]!, chain, state);
    if (merged !== null) {
      forest[i] = merged.root;
      forest.sort(compareRoots);
      return merged.outcome;
    }
  }
  // Like couch_key_tree, the first rev of a doc counts as a new leaf, a disjoint tree next to
  // existing ones as a new branch.
  const outcome = forest.length === 0 ? 'new_leaf' : 'new_branch';
  state.changed = true;
  forest.push(chain);
  forest.sort(compareRoots);
  return outcome;
}

function mergeInto(tree: RevRoot, chain: RevRoot, state: MergeState): { root: RevRoot; outcome: MergeOutcome } | null {
  const offset = chain.pos - tree.pos;
  if (offset >= 0) {
    // The chain starts at or below the tree's root: find its first rev at that depth
    // (depth first, children in order, as couch_key_tree searches).
    const match = findAtDepth(tree.node, offset, chain.node.id);
    if (match === null) return null;
    return { root: tree, outcome: mergeSimple(match, chain.node, state) };
  }
  // The chain starts above the tree's root (the tree was stemmed): walk down the chain to
  // the root's generation; the chain's older part becomes the new top.
  let above = chain.node;
  for (let k = -offset; k > 1; k--) {
    if (above.children.length === 0) return null;
    above = above.children[0]!;
  }
  const atRoot = above.children[0];
  if (atRoot === undefined || atRoot.id !== tree.node.id) return null;
  const outcome = mergeSimple(tree.node, atRoot, state);
  above.children = [tree.node];
  state.changed = true; // the chain's older revs are new above the old root
  return { root: chain, outcome };
}

function findAtDepth(node: RevNode, depth: number, id: string): RevNode | null {
  const stack: { node: RevNode; depth: number }[] = [{ node, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.depth === depth) {
      if (item.node.id === id) return item.node;
      continue;
    }
    const { children } = item.node;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, depth: item.depth + 1 });
  }
  return null;
}

/** Merges a chain into a node with the same rev id (couch_key_tree:merge_simple). */
function mergeSimple(ours: RevNode, theirs: RevNode, state: MergeState): MergeOutcome {
  for (;;) {
    if (!ours.stored && theirs.stored) {
      ours.stored = true;
      ours.deleted = theirs.deleted;
      state.filled = true;
      state.changed = true;
    }
    const next = theirs.children[0];
    if (next === undefined) return 'internal_node';
    const { children } = ours;
    if (children.length === 0) {
      state.changed = true;
      children.push(next);
      return 'new_leaf';
    }
    let i = 0;
    let cmp = 1;
    while (i < children.length && (cmp = compareRevIds(children[i]!.id, next.id)) < 0) i++;
    if (i < children.length && cmp === 0) {
      ours = children[i]!;
      theirs = next;
      continue;
    }
    state.changed = true;
    children.splice(i, 0, next);
    return 'new_branch';
  }
}

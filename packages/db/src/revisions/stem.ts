import { collectLeaves, type Leaf } from './leaves.js';
import { mergeChain } from './merge.js';
import { compareRevIds, type Rev } from './rev.js';
import { cloneTree, compareRoots, type RevNode, type RevTree } from './tree.js';

/**
 * Applies CouchDB's revs_limit the way couch_key_tree:stem does in 3.x: a rev survives when
 * some leaf below it is fewer than `limit` generations away, and survivors stay linked to
 * their surviving children. (So a branch point kept for a short branch can leave a longer
 * sibling branch with more than `limit` revs from leaf to root.) A rev whose parent is
 * dropped becomes a root, so a tree can fall apart into a forest.
 */
export function stemTree(tree: RevTree, limit: number): { tree: RevTree; stemmed: Rev[] } {
  const copy = cloneTree(tree);
  const stemmed = stemInPlace(copy, limit);
  return { tree: copy, stemmed };
}

/**
 * Stems a tree this module owns, in place; returns the removed revs. Like couch_key_tree it
 * first repairs a forest in which one rev sits in two trees (a path that overlapped two
 * disjoint trees was merged into only one of them) by merging all branches again.
 *
 * Unlike couch_key_tree's repair_tree, the branches are merged whole and the repaired forest
 * is then stemmed like any other. repair_tree cuts every branch to `limit` revs before merging,
 * so a rev that stays in the tree (through a branch with a nearby leaf) can have its stored
 * copy cut off another branch and come back without its body, though it is not reported
 * stemmed; and its result can keep revs no leaf is within `limit` of.
 */
export function stemInPlace(forest: RevTree, limit: number): Rev[] {
  if (forest.length > 1 && hasDuplicates(forest)) {
    const before = revKeys(forest);
    rebuild(forest);
    stemBranches(forest, limit);
    // Report what is gone; with inconsistent histories (one rev under two parents) a rev can
    // be cut from one tree yet stay in another.
    const after = revKeys(forest);
    return [...before].filter(([key]) => !after.has(key)).map(([, rev]) => rev);
  }
  return stemBranches(forest, limit);
}

/** couch_key_tree's stem of a forest without duplicate revs, in place; returns the removed revs. */
function stemBranches(forest: RevTree, limit: number): Rev[] {
  const stemmed: Rev[] = [];
  const roots: RevTree = [];
  let changed = false;
  for (const root of forest) {
    if (maxDepth(root.node) <= limit) {
      roots.push(root);
      continue;
    }
    changed = true;
    const height = minHeights(root.node);
    // Walk the tree; a kept node under a dropped parent starts a new root.
    const stack: { node: RevNode; pos: number; parentKept: boolean }[] = [
      { node: root.node, pos: root.pos, parentKept: false },
    ];
    while (stack.length > 0) {
      const { node, pos, parentKept } = stack.pop()!;
      const kept = height.get(node)! < limit;
      if (kept && !parentKept) roots.push({ pos, node });
      if (!kept) stemmed.push({ pos, id: node.id });
      const children = node.children;
      if (kept) node.children = children.filter((child) => height.get(child)! < limit);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, pos: pos + 1, parentKept: kept });
    }
  }
  if (changed) {
    roots.sort(compareRoots);
    forest.splice(0, forest.length, ...roots);
  }
  return stemmed;
}

/** Number of revs on the longest root-to-leaf branch. */
function maxDepth(node: RevNode): number {
  let max = 0;
  const stack: [RevNode, number][] = [[node, 1]];
  while (stack.length > 0) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    for (const child of n.children) stack.push([child, d + 1]);
  }
  return max;
}

/** For every node, the distance to its nearest leaf (0 for a leaf). */
function minHeights(node: RevNode): Map<RevNode, number> {
  const order: RevNode[] = [];
  const stack = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    order.push(n);
    for (const child of n.children) stack.push(child);
  }
  const height = new Map<RevNode, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    let h = Infinity;
    for (const child of n.children) h = Math.min(h, height.get(child)! + 1);
    height.set(n, n.children.length === 0 ? 0 : h);
  }
  return height;
}

function hasDuplicates(forest: RevTree): boolean {
  const seen = new Set<string>();
  for (const root of forest) {
    const stack: [RevNode, number][] = [[root.node, root.pos]];
    while (stack.length > 0) {
      const [node, pos] = stack.pop()!;
      const key = `${pos}-${node.id}`;
      if (seen.has(key)) return true;
      seen.add(key);
      for (const child of node.children) stack.push([child, pos + 1]);
    }
  }
  return false;
}

/** Every rev in the forest, by `pos-id`. */
function revKeys(forest: RevTree): Map<string, Rev> {
  const keys = new Map<string, Rev>();
  for (const root of forest) {
    const stack: [RevNode, number][] = [[root.node, root.pos]];
    while (stack.length > 0) {
      const [node, pos] = stack.pop()!;
      keys.set(`${pos}-${node.id}`, { pos, id: node.id });
      for (const child of node.children) stack.push([child, pos + 1]);
    }
  }
  return keys;
}

/**
 * Merges every branch, whole, into an empty forest again, oldest start first, and replaces the
 * forest's contents with the result. No rev is lost, and where a rev had a stored copy and one
 * without a body, the stored one wins (as in any merge).
 */
function rebuild(forest: RevTree): void {
  const branches: { start: number; nodes: RevNode[] }[] = [];
  for (const root of forest) {
    const found: Leaf[] = [];
    collectLeaves(root.node, root.pos, [], found);
    // collectLeaves gives ids; the node values are needed too, so walk the path again.
    for (const leaf of found) branches.push({ start: root.pos, nodes: nodesOnPath(root.node, leaf.path) });
  }
  branches.sort((a, b) => a.start - b.start || compareBranches(a.nodes, b.nodes));
  const result: RevTree = [];
  const state = { filled: false, changed: false };
  for (const branch of branches) {
    let chain: RevNode | undefined;
    for (const node of branch.nodes) {
      chain = { id: node.id, deleted: node.deleted, stored: node.stored, children: chain ? [chain] : [] };
    }
    mergeChain(result, { pos: branch.start, node: chain! }, state);
  }
  forest.splice(0, forest.length, ...result);
}

/** The nodes along a leaf's path (ids newest first), newest first. */
function nodesOnPath(root: RevNode, path: string[]): RevNode[] {
  const nodes: RevNode[] = [root];
  let node = root;
  for (let i = path.length - 2; i >= 0; i--) {
    node = node.children.find((child) => child.id === path[i])!;
    nodes.push(node);
  }
  return nodes.reverse();
}

function compareBranches(a: RevNode[], b: RevNode[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const cmp = compareRevIds(a[i]!.id, b[i]!.id);
    if (cmp !== 0) return cmp;
  }
  return a.length - b.length;
}

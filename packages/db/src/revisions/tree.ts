import { compareRevIds } from './rev.js';

/**
 * A revision tree (CouchDB's key tree): a forest, because stemming and replication can leave
 * disjoint pieces. Each root carries its generation; a node's generation is its root's plus
 * its depth. Children are kept sorted by rev id bytes and roots by (pos, id), so equal trees
 * have equal shapes.
 *
 * Trees are values: the functions of this module never modify a tree they are given.
 */
export interface RevNode {
  id: string;
  deleted: boolean;
  /** A body exists for this rev; false for ancestors only named in `_revisions`. */
  stored: boolean;
  children: RevNode[];
}

export interface RevRoot {
  /** Generation of `node`. */
  pos: number;
  node: RevNode;
}

export type RevTree = RevRoot[];

/** A linear history to merge in, as `_revisions` gives it: newest first. */
export interface RevPath {
  /** Generation of `ids[0]`. */
  pos: number;
  ids: string[];
  /** Of the newest rev; older ones are taken as live and not stored. */
  deleted: boolean;
  stored: boolean;
}

/** A deep copy (iterative: long linear histories are the normal case). */
export function cloneTree(tree: RevTree): RevTree {
  return tree.map((root) => ({ pos: root.pos, node: cloneNode(root.node) }));
}

function cloneNode(node: RevNode): RevNode {
  const top: RevNode = { id: node.id, deleted: node.deleted, stored: node.stored, children: [] };
  const work: [RevNode, RevNode][] = [[node, top]];
  while (work.length > 0) {
    const [from, to] = work.pop()!;
    for (const child of from.children) {
      const copy: RevNode = { id: child.id, deleted: child.deleted, stored: child.stored, children: [] };
      to.children.push(copy);
      work.push([child, copy]);
    }
  }
  return top;
}

/** Visits every node with its generation, depth first, children in order. */
export function* walk(tree: RevTree): Generator<{ pos: number; node: RevNode }> {
  for (const root of tree) {
    const stack: { pos: number; node: RevNode }[] = [{ pos: root.pos, node: root.node }];
    while (stack.length > 0) {
      const item = stack.pop()!;
      yield item;
      const { children } = item.node;
      for (let i = children.length - 1; i >= 0; i--) stack.push({ pos: item.pos + 1, node: children[i]! });
    }
  }
}

export function compareRoots(a: RevRoot, b: RevRoot): number {
  return a.pos - b.pos || compareRevIds(a.node.id, b.node.id);
}

/** Number of revs in the tree. */
export function treeSize(tree: RevTree): number {
  let n = 0;
  for (const _ of walk(tree)) n++;
  return n;
}

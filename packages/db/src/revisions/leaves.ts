import { type RevNode, type RevTree, walk } from './tree.js';

export interface Leaf {
  pos: number;
  id: string;
  deleted: boolean;
  stored: boolean;
  /** Rev ids from this leaf back to its root, newest first. */
  path: string[];
}

/** Every leaf, in tree order (roots by generation, children by id). */
export function leaves(tree: RevTree): Leaf[] {
  const out: Leaf[] = [];
  for (const root of tree) collectLeaves(root.node, root.pos, [], out);
  return out;
}

/** Every leaf node with its generation, without the paths {@link leaves} builds (cheaper for long histories). */
export function leafNodes(tree: RevTree): { pos: number; node: RevNode }[] {
  const out: { pos: number; node: RevNode }[] = [];
  for (const item of walk(tree)) if (item.node.children.length === 0) out.push(item);
  return out;
}

/**
 * Every leaf in the order `couch_key_tree:get_all_leafs` lists them (CouchDB 3.5's `_bulk_get`
 * answers in it): the last root's leaves first, each root depth first with children by id.
 */
export function keyTreeLeaves(tree: RevTree): Leaf[] {
  const out: Leaf[] = [];
  for (let i = tree.length - 1; i >= 0; i--) collectLeaves(tree[i]!.node, tree[i]!.pos, [], out);
  return out;
}

/**
 * Appends the leaves under `node` (at generation `pos`) to `out`; `above` holds the ids of
 * its ancestors, root first. Iterative, as histories can be thousands of revs deep.
 */
export function collectLeaves(node: RevNode, pos: number, above: readonly string[], out: Leaf[]): void {
  const trail = [...above]; // root first
  const stack: { node: RevNode; next: number }[] = [{ node, next: 0 }];
  trail.push(node.id);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const { children } = top.node;
    if (children.length === 0 && top.next === 0) {
      top.next = 1;
      out.push({
        pos: pos + stack.length - 1,
        id: top.node.id,
        deleted: top.node.deleted,
        stored: top.node.stored,
        path: trail.slice().reverse(),
      });
    }
    if (top.next < children.length) {
      const child = children[top.next++]!;
      stack.push({ node: child, next: 0 });
      trail.push(child.id);
    } else {
      stack.pop();
      trail.pop();
    }
  }
}

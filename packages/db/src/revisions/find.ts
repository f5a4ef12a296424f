import { collectLeaves, type Leaf } from './leaves.js';
import { formatRev, normalizeRevId, type Rev } from './rev.js';
import type { RevNode, RevTree } from './tree.js';

export interface FoundRev {
  deleted: boolean;
  stored: boolean;
  isLeaf: boolean;
  /** Rev ids from this rev back to its root, newest first. */
  path: string[];
}

/** Looks a rev up; undefined when the tree does not have it. */
export function findRev(tree: RevTree, rev: Rev): FoundRev | undefined {
  const hit = locate(tree, rev);
  if (hit === undefined) return undefined;
  const { node, trail } = hit;
  return {
    deleted: node.deleted,
    stored: node.stored,
    isLeaf: node.children.length === 0,
    path: trail.map((n) => n.id).reverse(),
  };
}

/** `_revisions` for a rev: its generation and the ids back to its root, newest first. */
export function revisions(tree: RevTree, rev: Rev): { start: number; ids: string[] } | undefined {
  const found = findRev(tree, rev);
  return found && { start: rev.pos, ids: found.path };
}

export type RevStatus = 'available' | 'deleted' | 'missing';

/**
 * `_revs_info` for a rev, newest first: `available` for a stored live body, `deleted` for a
 * stored tombstone, `missing` where no body is kept.
 */
export function revsInfo(tree: RevTree, rev: Rev): { rev: string; status: RevStatus }[] | undefined {
  const hit = locate(tree, rev);
  if (hit === undefined) return undefined;
  const out: { rev: string; status: RevStatus }[] = [];
  for (let i = hit.trail.length - 1, pos = rev.pos; i >= 0; i--, pos--) {
    const node = hit.trail[i]!;
    const status: RevStatus = !node.stored ? 'missing' : node.deleted ? 'deleted' : 'available';
    out.push({ rev: formatRev({ pos, id: node.id }), status });
  }
  return out;
}

/** The leaves at or below a rev (`latest=true`); empty when the tree does not have it. */
export function latest(tree: RevTree, rev: Rev): Leaf[] {
  const hit = locate(tree, rev);
  if (hit === undefined) return [];
  const out: Leaf[] = [];
  const above = hit.trail.slice(0, -1).map((n) => n.id);
  collectLeaves(hit.node, rev.pos, above, out);
  return out;
}

/** The node of a rev and the nodes from its root down to it. */
function locate(tree: RevTree, rev: Rev): { node: RevNode; trail: RevNode[] } | undefined {
  const id = normalizeRevId(rev.id);
  for (const root of tree) {
    const depth = rev.pos - root.pos;
    if (depth < 0) continue;
    // Depth-first with an explicit trail; branches are only followed down to the rev's depth.
    const trail: RevNode[] = [root.node];
    const next: number[] = [0];
    while (trail.length > 0) {
      const level = trail.length - 1;
      const node = trail[level]!;
      if (level === depth) {
        if (node.id === id) return { node, trail };
        trail.pop();
        next.pop();
        continue;
      }
      const i = next[level]!++;
      if (i < node.children.length) {
        trail.push(node.children[i]!);
        next.push(0);
      } else {
        trail.pop();
        next.pop();
      }
    }
  }
  return undefined;
}

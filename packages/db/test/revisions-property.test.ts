import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compareLeaves,
  conflicts,
  deletedConflicts,
  findRev,
  formatRev,
  isOneLineTree,
  leafNodes,
  leaves,
  mergePath,
  parseTree,
  serializeTree,
  stemTree,
  treeSize,
  walk,
  winner,
  type RevPath,
  type RevTree,
} from '../src/revisions/index.js';

/**
 * A consistent history: revs numbered 0..n-1, each with one parent (or none, for the roots
 * at generation 1), and a fixed deleted flag. Paths to merge are cut from it: a rev and up to
 * `length - 1` of its ancestors.
 */
interface History {
  parent: (number | null)[];
  deleted: boolean[];
  paths: { rev: number; length: number }[];
}

const ids = ['0', 'a', 'zz', 'b1', 'ffff', '9', 'é', 'q-q'];
/** Ids that mix hex and non-hex forms, so sibling order exercises byte comparison. */
const revId = (i: number): string => (i % 3 === 0 ? i.toString(16).padStart(32, '0') : `${ids[i % ids.length]}${i}`);

const history: fc.Arbitrary<History> = fc.integer({ min: 1, max: 25 }).chain((size) =>
  fc.record({
    parent: fc.tuple(
      ...Array.from({ length: size }, (_, i) => (i === 0 ? fc.constant(null) : fc.option(fc.nat(i - 1), { freq: 6 }))),
    ),
    deleted: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
    paths: fc.array(fc.record({ rev: fc.nat(size - 1), length: fc.integer({ min: 1, max: 30 }) }), {
      minLength: 1,
      maxLength: 12,
    }),
  }),
);

/** The parent of a rev in the history (`null` for a root); throws for a rev it does not have. */
function parentOf(h: History, rev: number): number | null {
  const p = h.parent[rev];
  if (p === undefined) throw new Error(`rev ${rev} is not in the history`);
  return p;
}

function generation(h: History, rev: number): number {
  let g = 1;
  for (let p = parentOf(h, rev); p !== null; p = parentOf(h, p)) g++;
  return g;
}

function toPath(h: History, { rev, length }: { rev: number; length: number }): RevPath {
  const chain: string[] = [];
  for (let r: number | null = rev; r !== null && chain.length < length; r = parentOf(h, r)) chain.push(revId(r));
  return { pos: generation(h, rev), ids: chain, deleted: h.deleted[rev]!, stored: true };
}

function mergeAll(paths: RevPath[], limit = 1000): { tree: RevTree; stemmed: Set<string> } {
  let tree: RevTree = [];
  const stemmed = new Set<string>();
  for (const p of paths) {
    const result = mergePath(tree, p, limit);
    tree = result.tree;
    for (const rev of result.stemmed) stemmed.add(formatRev(rev));
  }
  return { tree, stemmed };
}

function revSet(tree: RevTree): Set<string> {
  const out = new Set<string>();
  for (const { pos, node } of walk(tree)) out.add(`${pos}-${node.id}`);
  return out;
}

describe('revision tree properties', () => {
  test('a stored tree read as one line has one leaf, its winner; leafNodes lists the leaves leaves() does', () => {
    fc.assert(
      fc.property(history, (h) => {
        const { tree } = mergeAll(h.paths.map((p) => toPath(h, p)));
        const all = leaves(tree).map((l) => `${l.pos}-${l.id}`);
        assert.deepEqual(
          leafNodes(tree).map(({ pos, node }) => `${pos}-${node.id}`),
          all,
        );
        if (tree.length > 0 && isOneLineTree(serializeTree(tree))) {
          assert.equal(all.length, 1);
          assert.equal(formatRev(winner(tree)!), all[0]);
        }
        // One root without a branch is always read as one line (plain ids hold no `(` or `;`).
        if (tree.length === 1 && all.length === 1) assert.ok(isOneLineTree(serializeTree(tree)));
      }),
      { numRuns: 400 },
    );
  });

  test('merging the same paths in any order gives the same tree', () => {
    fc.assert(
      fc.property(history, fc.infiniteStream(fc.nat()), (h, seeds) => {
        const paths = h.paths.map((p) => toPath(h, p));
        const shuffled = paths
          .map((p) => ({ p, key: seeds.next().value as number }))
          .sort((x, y) => x.key - y.key)
          .map(({ p }) => p);
        assert.equal(serializeTree(mergeAll(shuffled).tree), serializeTree(mergeAll(paths).tree));
      }),
      { numRuns: 400 },
    );
  });

  test('no rev is lost unless reported stemmed; the tree only holds true parent links', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 8 }), (h, limit) => {
        const paths = h.paths.map((p) => toPath(h, p));
        const { tree, stemmed } = mergeAll(paths, limit);
        const present = revSet(tree);
        for (const p of paths) {
          p.ids.forEach((id, i) => {
            const rev = `${p.pos - i}-${id}`;
            assert.ok(present.has(rev) || stemmed.has(rev), `${rev} lost`);
          });
        }
        // Every edge is a real parent link, and no rev sits in the tree twice.
        let count = 0;
        const byId = new Map(h.parent.map((_, i) => [revId(i), i]));
        for (const { node } of walk(tree)) {
          count++;
          for (const child of node.children) assert.equal(h.parent[byId.get(child.id)!], byId.get(node.id));
        }
        assert.equal(count, present.size);
        // Stemming to the limit holds after every merge, even one that joined two trees: every
        // rev is fewer than `limit` generations above some leaf.
        const near = new Set<string>();
        for (const leaf of leaves(tree))
          leaf.path.slice(0, limit).forEach((id, i) => {
            near.add(`${leaf.pos - i}-${id}`);
          });
        for (const rev of present) assert.ok(near.has(rev), `${rev} is not near a leaf`);
        // Stored revs are the ones some path ended at; a stemmed rev that comes back as an
        // ancestor has lost its body.
        const ends = new Set(paths.map((p) => `${p.pos}-${p.ids[0]}`));
        for (const { pos, node } of walk(tree)) {
          const rev = `${pos}-${node.id}`;
          if (node.stored) assert.ok(ends.has(rev));
          else assert.ok(!ends.has(rev) || stemmed.has(rev));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('without stemming every merged rev is present', () => {
    fc.assert(
      fc.property(history, (h) => {
        const paths = h.paths.map((p) => toPath(h, p));
        const { tree, stemmed } = mergeAll(paths);
        assert.equal(stemmed.size, 0);
        const present = revSet(tree);
        for (const p of paths)
          p.ids.forEach((id, i) => {
            assert.ok(present.has(`${p.pos - i}-${id}`));
          });
      }),
      { numRuns: 200 },
    );
  });

  test('outcome: internal_node iff the newest rev was there; new_leaf iff it extended a leaf', () => {
    fc.assert(
      fc.property(history, (h) => {
        let tree: RevTree = [];
        for (const p of h.paths.map((x) => toPath(h, x))) {
          const existed = findRev(tree, { pos: p.pos, id: p.ids[0]! }) !== undefined;
          const parent = p.ids.length > 1 ? findRev(tree, { pos: p.pos - 1, id: p.ids[1]! }) : undefined;
          const result = mergePath(tree, p);
          assert.equal(result.changed, serializeTree(result.tree) !== serializeTree(tree));
          if (result.outcome !== 'internal_node') assert.ok(result.changed);
          // With several trees the path joins the first it overlaps, like couch_key_tree, and
          // may extend a leaf there while its newest rev sits in another tree.
          if (tree.length > 1) {
            if (existed) assert.ok(result.outcome === 'internal_node' || tree.length > result.tree.length);
            else assert.notEqual(result.outcome, 'internal_node');
          } else if (existed) assert.equal(result.outcome, 'internal_node');
          else if (tree.length === 0) assert.equal(result.outcome, 'new_leaf');
          else if (parent?.isLeaf) assert.equal(result.outcome, 'new_leaf');
          else if (parent !== undefined) assert.equal(result.outcome, 'new_branch');
          else assert.notEqual(result.outcome, 'internal_node');
          tree = result.tree;
        }
      }),
      { numRuns: 300 },
    );
  });

  test('stemming never grows the tree, keeps every leaf and only revs near a leaf', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 10 }), (h, limit) => {
        const { tree } = mergeAll(h.paths.map((p) => toPath(h, p)));
        const result = stemTree(tree, limit);
        assert.ok(treeSize(result.tree) <= treeSize(tree));
        assert.equal(treeSize(result.tree) + result.stemmed.length, treeSize(tree));
        const before = leaves(tree).map(formatRev).sort();
        assert.deepEqual(leaves(result.tree).map(formatRev).sort(), before);
        // Every kept rev is fewer than `limit` generations above some leaf.
        const near = new Set<string>();
        for (const leaf of leaves(result.tree))
          leaf.path.slice(0, limit).forEach((id, i) => {
            near.add(`${leaf.pos - i}-${id}`);
          });
        for (const { pos, node } of walk(result.tree)) assert.ok(near.has(`${pos}-${node.id}`));
        // Stemming is idempotent.
        assert.deepEqual(stemTree(result.tree, limit).tree, result.tree);
      }),
      { numRuns: 300 },
    );
  });

  test('winner is a leaf that beats every other; conflicts partition the rest', () => {
    fc.assert(
      fc.property(history, (h) => {
        const { tree } = mergeAll(h.paths.map((p) => toPath(h, p)));
        const all = leaves(tree);
        const best = winner(tree)!;
        assert.ok(all.some((leaf) => leaf.pos === best.pos && leaf.id === best.id));
        for (const leaf of all) assert.ok(compareLeaves(best, leaf) <= 0);
        if (best.deleted) assert.ok(all.every((leaf) => leaf.deleted));
        const rest = [...conflicts(tree), ...deletedConflicts(tree)].sort();
        assert.deepEqual(
          rest,
          all
            .filter((leaf) => leaf !== all.find((l) => l.pos === best.pos && l.id === best.id))
            .map(formatRev)
            .sort(),
        );
      }),
      { numRuns: 300 },
    );
  });

  test('serializeTree / parseTree round-trip', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 6 }), (h, limit) => {
        const { tree } = mergeAll(
          h.paths.map((p) => toPath(h, p)),
          limit,
        );
        assert.deepEqual(parseTree(serializeTree(tree)), tree);
      }),
      { numRuns: 300 },
    );
  });
});

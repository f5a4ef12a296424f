import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  conflicts,
  deletedConflicts,
  findRev,
  latest,
  leaves,
  mergePath,
  missingRevs,
  parseTree,
  possibleAncestors,
  revisions,
  revsInfo,
  serializeTree,
  stemTree,
  winner,
  type RevNode,
  type RevPath,
  type RevTree,
} from '../src/revisions/index.js';

// Literal trees, written like couch_key_tree's {Pos, {Key, Value, Children}}.
const n = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: false, stored: true, children });
const stub = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: false, stored: false, children });
const del = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: true, stored: true, children });
const path = (pos: number, ids: string[], options: Partial<RevPath> = {}): RevPath => ({
  pos,
  ids,
  deleted: false,
  stored: true,
  ...options,
});

/** Merges the paths one after another into an empty tree. */
function build(paths: RevPath[], limit?: number): RevTree {
  let tree: RevTree = [];
  for (const p of paths) tree = mergePath(tree, p, limit).tree;
  return tree;
}

// 1 ── 1a ── 1aa
//   └─ 1b
const oneChildTwoSibs: RevTree = [{ pos: 1, node: n('1', n('1a', n('1aa')), n('1b')) }];

describe('mergePath (couch_key_tree cases, in our own words)', () => {
  test('into an empty tree: a new leaf', () => {
    const result = mergePath([], path(1, ['1']));
    assert.equal(result.outcome, 'new_leaf');
    assert.deepEqual(result.tree, [{ pos: 1, node: n('1') }]);
    assert.deepEqual(result.stemmed, []);
    assert.equal(result.filled, false);
  });

  test('a path into itself changes nothing', () => {
    const tree = build([path(3, ['c', 'b', 'a'])]);
    const result = mergePath(tree, path(3, ['c', 'b', 'a']));
    assert.equal(result.outcome, 'internal_node');
    assert.deepEqual(result.tree, tree);
  });

  test('a prefix of the tree is an internal node', () => {
    const result = mergePath(oneChildTwoSibs, path(2, ['1a', '1']));
    assert.equal(result.outcome, 'internal_node');
    assert.deepEqual(result.tree, oneChildTwoSibs);
  });

  test('extending a leaf is a new leaf', () => {
    const result = mergePath(oneChildTwoSibs, path(3, ['1ba', '1b', '1']));
    assert.equal(result.outcome, 'new_leaf');
    assert.deepEqual(result.tree, [{ pos: 1, node: n('1', n('1a', n('1aa')), n('1b', n('1ba'))) }]);
  });

  test('branching off an inner rev is a new branch; siblings stay sorted', () => {
    const result = mergePath(oneChildTwoSibs, path(2, ['1ab', '1']));
    assert.equal(result.outcome, 'new_branch');
    assert.deepEqual(result.tree, [{ pos: 1, node: n('1', n('1a', n('1aa')), n('1ab'), n('1b')) }]);
  });

  test('an unrelated root at the same generation is a new tree', () => {
    const result = mergePath(oneChildTwoSibs, path(2, ['2a', '2']));
    assert.equal(result.outcome, 'new_branch');
    assert.deepEqual(result.tree, [...oneChildTwoSibs, { pos: 1, node: stub('2', n('2a')) }]);
  });

  test('a stemmed path (starting below the root) merges where its first rev is', () => {
    const result = mergePath(oneChildTwoSibs, path(4, ['1aaa', '1aa', '1a']));
    assert.equal(result.outcome, 'new_leaf');
    assert.deepEqual(result.tree, [{ pos: 1, node: n('1', n('1a', n('1aa', n('1aaa'))), n('1b')) }]);
    const inner = mergePath(oneChildTwoSibs, path(3, ['1aa']));
    assert.equal(inner.outcome, 'internal_node');
    assert.deepEqual(inner.tree, oneChildTwoSibs);
  });

  test('a stemmed path whose first rev is not in the tree is a disjoint tree', () => {
    const result = mergePath(oneChildTwoSibs, path(3, ['x', 'y']));
    assert.equal(result.outcome, 'new_branch');
    assert.deepEqual(result.tree, [...oneChildTwoSibs, { pos: 2, node: stub('y', n('x')) }]);
  });

  test('a full path joins a stemmed tree from above, bringing back older revs', () => {
    const stemmed: RevTree = [{ pos: 3, node: n('c', n('d')) }];
    const result = mergePath(stemmed, path(5, ['e', 'd', 'c', 'b', 'a']));
    assert.equal(result.outcome, 'new_leaf');
    assert.deepEqual(result.tree, [{ pos: 1, node: stub('a', stub('b', n('c', n('d', n('e'))))) }]);
    const conflict = mergePath(stemmed, path(4, ['x', 'c', 'b']));
    assert.equal(conflict.outcome, 'new_branch');
    assert.deepEqual(conflict.tree, [{ pos: 2, node: stub('b', n('c', n('d'), n('x'))) }]);
    const same = mergePath(stemmed, path(4, ['d', 'c', 'b']));
    assert.equal(same.outcome, 'internal_node');
  });

  test('stems merge with each other', () => {
    const result = mergePath([{ pos: 2, node: n('1a', n('1aa')) }], path(3, ['1aa']));
    assert.equal(result.outcome, 'internal_node');
    assert.deepEqual(result.tree, [{ pos: 2, node: n('1a', n('1aa')) }]);
  });

  test('a path overlapping two disjoint trees joins them into one', () => {
    // Revs 1-a and 3-c exist as separate trees; a full history connects them.
    const forest = build([path(1, ['a']), path(3, ['c'], { deleted: true })]);
    assert.equal(forest.length, 2);
    const result = mergePath(forest, path(4, ['d', 'c', 'b', 'a']));
    assert.equal(result.outcome, 'new_leaf');
    assert.deepEqual(result.tree, [{ pos: 1, node: n('a', stub('b', del('c', n('d')))) }]);
  });

  test('a body for a rev known only by name fills it in', () => {
    const tree = build([path(3, ['c', 'b', 'a'])]);
    assert.equal(findRev(tree, { pos: 2, id: 'b' })!.stored, false);
    const result = mergePath(tree, path(2, ['b', 'a'], { deleted: true }));
    assert.equal(result.outcome, 'internal_node');
    assert.equal(result.filled, true);
    assert.deepEqual(findRev(result.tree, { pos: 2, id: 'b' }), {
      deleted: true,
      stored: true,
      isLeaf: false,
      path: ['b', 'a'],
    });
    // A stored rev keeps its body (and deleted flag) when posted again.
    const again = mergePath(result.tree, path(2, ['b', 'a']));
    assert.equal(again.filled, false);
    assert.equal(findRev(again.tree, { pos: 2, id: 'b' })!.deleted, true);
  });

  test('ids are normalized on the way in', () => {
    const upper = '967A00DFF5E02ADD41819138ABB3284D';
    const tree = build([path(1, [upper])]);
    assert.equal(tree[0]!.node.id, upper.toLowerCase());
    assert.equal(mergePath(tree, path(1, [upper.toLowerCase()])).outcome, 'internal_node');
  });

  test('the input tree is never modified', () => {
    const tree = build([path(2, ['b', 'a'])]);
    const before = serializeTree(tree);
    mergePath(tree, path(3, ['c', 'b', 'a']));
    mergePath(tree, path(2, ['x', 'a']));
    mergePath(tree, path(1, ['a']), 1);
    assert.equal(serializeTree(tree), before);
  });

  test('bad paths are refused', () => {
    assert.throws(() => mergePath([], path(1, [])), RangeError);
    assert.throws(() => mergePath([], path(1, ['b', 'a', 'z'])), RangeError);
    assert.throws(() => mergePath([], path(1, ['a']), 0), RangeError);
  });
});

describe('stemming', () => {
  test('keeps the newest revs of each branch and reports the rest', () => {
    const result = mergePath(build([path(4, ['d', 'c', 'b', 'a'])]), path(5, ['e', 'd', 'c', 'b', 'a']), 3);
    assert.deepEqual(result.tree, [{ pos: 3, node: stub('c', n('d', n('e'))) }]);
    assert.deepEqual(
      result.stemmed.sort((x, y) => x.pos - y.pos),
      [
        { pos: 1, id: 'a' },
        { pos: 2, id: 'b' },
      ],
    );
  });

  test('a branch point survives while one branch needs it; a long branch can split off', () => {
    // a ─ b ─ c ─ d ─ e
    //      └─ x
    const tree = build([path(5, ['e', 'd', 'c', 'b', 'a']), path(3, ['x', 'b', 'a'])]);
    const { tree: stemmed, stemmed: removed } = stemTree(tree, 2);
    assert.deepEqual(stemmed, [
      { pos: 2, node: stub('b', n('x')) },
      { pos: 4, node: stub('d', n('e')) },
    ]);
    assert.deepEqual(removed.map((r) => `${r.pos}-${r.id}`).sort(), ['1-a', '3-c']);
    assert.deepEqual(stemTree(tree, 1).tree, [
      { pos: 3, node: n('x') },
      { pos: 5, node: n('e') },
    ]);
    assert.deepEqual(stemTree(tree, 5).tree, tree);
  });

  test('a rev in two trees keeps its body through the repair (fast-check counterexample)', () => {
    // a ─ b ─ c ─ d ─ e, revs_limit 3. Merging c←b puts 3-c in two trees; merging d←c←b←a
    // puts 2-b (stored) there twice. Cutting each branch to 3 revs before re-merging (as
    // couch_key_tree's repair_tree does) dropped the stored copy of 2-b but kept a stub of it
    // from the other branch: its body was gone, yet it was not reported stemmed.
    const paths = [
      path(5, ['e', 'd', 'c']),
      path(2, ['b']),
      path(1, ['a']),
      path(3, ['c', 'b']),
      path(4, ['d', 'c', 'b', 'a']),
    ];
    let tree: RevTree = [];
    const stemmed = new Set<string>();
    for (const p of paths) {
      const result = mergePath(tree, p, 3);
      tree = result.tree;
      for (const rev of result.stemmed) stemmed.add(`${rev.pos}-${rev.id}`);
    }
    assert.deepEqual(tree, [{ pos: 3, node: n('c', n('d', n('e'))) }]);
    assert.deepEqual([...stemmed].sort(), ['1-a', '2-b']);
    for (const p of paths) {
      const found = findRev(tree, { pos: p.pos, id: p.ids[0]! });
      assert.ok(found?.stored || stemmed.has(`${p.pos}-${p.ids[0]}`), `${p.pos}-${p.ids[0]} lost its body`);
    }
  });

  test('repairing a rev in two trees: the stored copy wins, then stemming as usual', () => {
    // x is stored in the second tree, far from its leaf r; the first tree names it only as
    // the parent of y, a leaf close by.
    const forest: RevTree = [
      { pos: 1, node: stub('a', stub('x', n('y'))) },
      { pos: 2, node: n('x', stub('p', stub('q', n('r')))) },
    ];
    assert.deepEqual(stemTree(forest, 3), {
      tree: [{ pos: 1, node: stub('a', n('x', stub('p', stub('q', n('r'))), n('y'))) }],
      stemmed: [],
    });
    const two = stemTree(forest, 2);
    assert.deepEqual(two.tree, [
      { pos: 2, node: n('x', n('y')) },
      { pos: 4, node: stub('q', n('r')) },
    ]);
    assert.deepEqual(two.stemmed.map((r) => `${r.pos}-${r.id}`).sort(), ['1-a', '3-p']);
  });

  test('merging an old stemmed path again after stemming re-adds a disjoint tree, like CouchDB', () => {
    const tree = build([path(3, ['c', 'b', 'a'])], 2);
    assert.deepEqual(tree, [{ pos: 2, node: stub('b', n('c')) }]);
    const result = mergePath(tree, path(1, ['a']), 2);
    assert.equal(result.outcome, 'new_branch');
    assert.equal(result.tree.length, 2);
  });
});

describe('winner, conflicts, deleted conflicts', () => {
  test('live beats deleted, then generation, then id bytes', () => {
    const hex6 = `6ebc${'0'.repeat(28)}`;
    const hex8 = `8ff0${'0'.repeat(28)}`;
    assert.equal(winner(build([path(1, [hex6]), path(1, ['zzz'])]))!.id, 'zzz');
    assert.equal(winner(build([path(1, [hex8]), path(1, ['zzz'])]))!.id, hex8);
    // deleted 3-x loses to live 2-y
    const tree = build([path(2, ['y', 'a']), path(3, ['x', 'b', 'a'], { deleted: true })]);
    assert.equal(winner(tree)!.id, 'y');
    assert.deepEqual(deletedConflicts(tree), ['3-x']);
    assert.deepEqual(conflicts(tree), []);
    assert.equal(winner([]), undefined);
  });

  test('conflicts are sorted by the same order', () => {
    const tree = build([
      path(2, ['b', 'r']),
      path(2, ['d', 'r']),
      path(3, ['c', 'x', 'r']),
      path(2, ['e', 'r'], { deleted: true }),
      path(4, ['f', 'c', 'x', 'r'], { deleted: true }),
      path(5, ['y', 'w', 'v', 'u']),
    ]);
    assert.equal(winner(tree)!.id, 'y');
    assert.deepEqual(conflicts(tree), ['2-d', '2-b']);
    assert.deepEqual(deletedConflicts(tree), ['4-f', '2-e']);
  });

  test('all leaves deleted: the best tombstone wins', () => {
    const tree = build([path(2, ['b', 'a'], { deleted: true }), path(3, ['c', 'x', 'a'], { deleted: true })]);
    assert.deepEqual(winner(tree), { pos: 3, id: 'c', deleted: true, stored: true, path: ['c', 'x', 'a'] });
    assert.deepEqual(deletedConflicts(tree), ['2-b']);
  });
});

describe('lookups', () => {
  // a ─ b ─ c(deleted) ─ d
  //      └─ x
  const tree = build([path(2, ['b', 'a'], { stored: true }), path(4, ['d', 'c', 'b', 'a']), path(3, ['x', 'b', 'a'])]);
  const withTombstone = mergePath(tree, path(3, ['c', 'b', 'a'], { deleted: true })).tree;

  test('leaves', () => {
    assert.deepEqual(leaves(withTombstone), [
      { pos: 4, id: 'd', deleted: false, stored: true, path: ['d', 'c', 'b', 'a'] },
      { pos: 3, id: 'x', deleted: false, stored: true, path: ['x', 'b', 'a'] },
    ]);
  });

  test('findRev', () => {
    assert.deepEqual(findRev(withTombstone, { pos: 3, id: 'c' }), {
      deleted: true,
      stored: true,
      isLeaf: false,
      path: ['c', 'b', 'a'],
    });
    assert.deepEqual(findRev(withTombstone, { pos: 1, id: 'a' }), {
      deleted: false,
      stored: false,
      isLeaf: false,
      path: ['a'],
    });
    assert.equal(findRev(withTombstone, { pos: 2, id: 'a' }), undefined);
    assert.equal(findRev(withTombstone, { pos: 9, id: 'd' }), undefined);
  });

  test('revisions', () => {
    assert.deepEqual(revisions(withTombstone, { pos: 4, id: 'd' }), { start: 4, ids: ['d', 'c', 'b', 'a'] });
    assert.deepEqual(revisions(withTombstone, { pos: 3, id: 'x' }), { start: 3, ids: ['x', 'b', 'a'] });
    assert.equal(revisions(withTombstone, { pos: 3, id: 'q' }), undefined);
  });

  test('revsInfo', () => {
    assert.deepEqual(revsInfo(withTombstone, { pos: 4, id: 'd' }), [
      { rev: '4-d', status: 'available' },
      { rev: '3-c', status: 'deleted' },
      { rev: '2-b', status: 'available' },
      { rev: '1-a', status: 'missing' },
    ]);
  });

  test('latest', () => {
    assert.deepEqual(
      latest(withTombstone, { pos: 2, id: 'b' }).map((leaf) => `${leaf.pos}-${leaf.id}`),
      ['4-d', '3-x'],
    );
    assert.deepEqual(latest(withTombstone, { pos: 3, id: 'c' })[0]!.path, ['d', 'c', 'b', 'a']);
    assert.deepEqual(
      latest(withTombstone, { pos: 3, id: 'x' }).map((leaf) => leaf.id),
      ['x'],
    );
    assert.deepEqual(latest(withTombstone, { pos: 3, id: 'nope' }), []);
  });

  test('missingRevs and possibleAncestors (_revs_diff)', () => {
    const asked = [
      { pos: 4, id: 'd' },
      { pos: 5, id: 'e' },
      { pos: 3, id: 'y' },
      { pos: 1, id: 'a' },
    ];
    const missing = missingRevs(withTombstone, asked);
    // couch_key_tree:find_missing's order: walking down to 4-d, the asked 3-y (lower than the
    // node reached) moves ahead of 5-e.
    assert.deepEqual(missing, [
      { pos: 3, id: 'y' },
      { pos: 5, id: 'e' },
    ]);
    // Winner order: the live 4-d before the deleted 3-x.
    assert.deepEqual(possibleAncestors(withTombstone, missing), [
      { pos: 4, id: 'd' },
      { pos: 3, id: 'x' },
    ]);
    assert.deepEqual(possibleAncestors(withTombstone, [{ pos: 4, id: 'q' }]), [{ pos: 3, id: 'x' }]);
    assert.deepEqual(possibleAncestors(withTombstone, [{ pos: 1, id: 'q' }]), []);
  });
});

describe('serializeTree / parseTree', () => {
  test('a one-rev doc takes a few dozen bytes', () => {
    const text = serializeTree([{ pos: 1, node: n('967a00dff5e02add41819138abb3284d') }]);
    assert.equal(text, '1:967a00dff5e02add41819138abb3284d');
  });

  test('flags, branches, odd ids, forests', () => {
    const tree: RevTree = [
      { pos: 1, node: stub('a', n('b', del('c'), n('d', n('e')), n('f,(")'))) },
      { pos: 7, node: n('0123456789abcdef0123456789abcdef', del('é😀')) },
    ];
    const text = serializeTree(tree);
    assert.equal(text, '1:"a"m."b"("c"d,"d"."e","f,(\\")");7:0123456789abcdef0123456789abcdef."é😀"d');
    assert.deepEqual(parseTree(text), tree);
    assert.deepEqual(parseTree(''), []);
    assert.equal(serializeTree([]), '');
  });

  test('deep linear histories do not nest', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => i.toString(16).padStart(32, '0')).reverse();
    const tree = build([path(5000, ids)], 5000);
    const text = serializeTree(tree);
    assert.equal(text.length, 2 + 5000 * 32 + 4999 + 4999); // ids, dots, "m" on every stub ancestor
    // (deepEqual itself would recurse 5000 levels deep)
    const back = parseTree(text);
    assert.equal(serializeTree(back), text);
    assert.deepEqual(revisions(back, { pos: 5000, id: ids[0]! }), { start: 5000, ids });
  });

  test('garbage is refused', () => {
    for (const bad of [
      'x',
      '1:',
      '1:"a"(',
      '1:"a"("b")',
      '1:"a".',
      '1:"a")',
      '1:"a"("b","c"))',
      '1:"a";',
      'a:"b"',
      '1:"a"x',
      '1:"a"("b","c")."d"',
    ]) {
      assert.throws(() => parseTree(bad), SyntaxError, bad);
    }
  });
});

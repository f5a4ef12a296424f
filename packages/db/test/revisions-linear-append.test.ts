import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  appendToLinear,
  findRev,
  formatRev,
  mergePath,
  parseTree,
  serializeTree,
  winner,
  type Rev,
  type RevNode,
  type RevTree,
} from '../src/revisions/index.js';

/**
 * `appendToLinear` (a new leaf written on the stored text of a one-line history) against the
 * general path it stands for: parse the text, merge the new revision's path as an interactive
 * edit does, stem to the revs limit, serialize. Same text, same leaf (the winner), same
 * stemmed revisions; and it declines exactly where that path does not extend a live leaf.
 */

const hexId = fc
  .array(fc.constantFrom(...'0123456789abcdef'), { minLength: 32, maxLength: 32 })
  .map((chars) => chars.join(''));

/** A one-line history: root generation, and per revision its id and marks. */
const line = fc.record({
  rootPos: fc.integer({ min: 1, max: 6 }),
  nodes: fc.array(fc.record({ id: hexId, deleted: fc.boolean(), stored: fc.boolean() }), {
    minLength: 1,
    maxLength: 40,
  }),
});

function treeOf(rootPos: number, nodes: readonly { id: string; deleted: boolean; stored: boolean }[]): RevTree {
  let child: RevNode | undefined;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i]!;
    child = { id: n.id, deleted: n.deleted, stored: n.stored, children: child === undefined ? [] : [child] };
  }
  return [{ pos: rootPos, node: child! }];
}

/** What an interactive edit on `parent` does to the parsed tree; undefined where it conflicts. */
function generalPath(
  text: string,
  parent: Rev,
  id: string,
  deleted: boolean,
  revsLimit: number,
): { text: string; leaf: Rev; stemmed: Rev[] } | undefined {
  const tree = parseTree(text);
  const found = findRev(tree, parent);
  if (found === undefined || !found.isLeaf || found.deleted) return undefined;
  const merged = mergePath(tree, { pos: parent.pos + 1, ids: [id, ...found.path], deleted, stored: true }, revsLimit);
  const top = winner(merged.tree)!;
  assert.equal(top.deleted, deleted);
  return { text: serializeTree(merged.tree), leaf: { pos: top.pos, id: top.id }, stemmed: merged.stemmed };
}

describe('appendToLinear', () => {
  test('gives what parse, merge, stem and serialize give, and declines where they conflict', () => {
    fc.assert(
      fc.property(
        line,
        hexId,
        fc.boolean(),
        fc.integer({ min: 1, max: 45 }),
        fc.option(fc.record({ back: fc.nat(45), other: fc.option(hexId) }), { freq: 2 }),
        ({ rootPos, nodes }, id, deleted, revsLimit, parentChoice) => {
          const text = serializeTree(treeOf(rootPos, nodes));
          const leafPos = rootPos + nodes.length - 1;
          // Mostly the leaf; sometimes an inner revision or an unknown one (conflicts).
          let parent: Rev = { pos: leafPos, id: nodes[nodes.length - 1]!.id };
          if (parentChoice !== null) {
            const at = Math.max(0, nodes.length - 1 - parentChoice.back);
            parent = { pos: rootPos + at, id: parentChoice.other ?? nodes[at]!.id };
          }
          const fast = appendToLinear(text, parent, id, deleted, revsLimit);
          const general = generalPath(text, parent, id, deleted, revsLimit);
          if (general === undefined) {
            assert.equal(fast, undefined);
            return;
          }
          // The new id may repeat an old one by chance: the general path then merges, not appends.
          if (nodes.some((n) => n.id === id)) return;
          assert.ok(fast !== undefined, 'a live leaf of a one-line history is appended to');
          assert.equal(fast.text, general.text);
          assert.deepEqual(fast.leaf, general.leaf);
          assert.deepEqual(fast.stemmed.map(formatRev), general.stemmed.map(formatRev));
          assert.deepEqual(parseTree(fast.text), parseTree(general.text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('declines trees that are not one line of plain ids', () => {
    const a = 'a'.repeat(32);
    const b = 'b'.repeat(32);
    const c = 'c'.repeat(32);
    const leaf = { pos: 2, id: b };
    for (const text of [
      `1:${a}(${b},${c})`, // a conflict
      `1:${a}.${b};3:${c}`, // a forest
      `1:"x".${b}`, // a non-hex id
      '',
    ]) {
      assert.equal(appendToLinear(text, leaf, c, false, 1000), undefined, text);
    }
    assert.equal(appendToLinear(`1:${a}.${b}d`, leaf, c, false, 1000), undefined, 'a deleted leaf is not edited');
    assert.equal(appendToLinear(`1:${a}.${b}`, leaf, 'not-hex', false, 1000), undefined);
    assert.deepEqual(appendToLinear(`1:${a}.${b}m`, leaf, c, true, 2), {
      text: `2:${b}m.${c}d`,
      leaf: { pos: 3, id: c },
      stemmed: [{ pos: 1, id: a }],
    });
    assert.deepEqual(appendToLinear(`7:${b}`, { pos: 7, id: b }, c, false, 1), {
      text: `8:${c}`,
      leaf: { pos: 8, id: c },
      stemmed: [{ pos: 7, id: b }],
    });
  });
});

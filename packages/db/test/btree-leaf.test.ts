import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { LeafItems, LeafNode } from '../src/btree/leaf.js';
import { compareKeys, encodeLeafOf, entryBytes, NODE_HEADER_BYTES } from '../src/btree/node.js';

const text = (b: Buffer): string => b.toString('latin1');

function encode(keys: Buffer[], raws: Buffer[]): Buffer {
  let size = NODE_HEADER_BYTES;
  for (let i = 0; i < keys.length; i++) size += entryBytes(keys[i]!, raws[i]!);
  return Buffer.from(encodeLeafOf(keys, raws, 0, keys.length, size));
}

const bytesArb = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
// Sorted distinct keys (some past 127 bytes: two-byte length prefixes) with values of any size.
const leafArb = fc
  .uniqueArray(bytesArb(200), { maxLength: 140, selector: text })
  .chain((keys) =>
    fc.tuple(
      fc.constant(keys.sort(compareKeys)),
      fc.array(bytesArb(300), { minLength: keys.length, maxLength: keys.length }),
    ),
  );

describe('B-tree leaf as bytes', () => {
  test('decodes what the encoder wrote: keys, values, in-place comparisons', () => {
    fc.assert(
      fc.property(leafArb, bytesArb(210), ([keys, raws], probe) => {
        const leaf = LeafNode.decode(encode(keys, raws), (raw) => text(raw));
        assert.equal(leaf.length, keys.length);
        for (let i = 0; i < keys.length; i++) {
          assert.ok(leaf.keyAt(i).equals(keys[i]!));
          assert.ok(leaf.rawAt(i).equals(raws[i]!));
          assert.equal(leaf.valueAt(i), text(raws[i]!));
          assert.equal(Math.sign(leaf.compareKeyAt(i, probe)), Math.sign(compareKeys(keys[i]!, probe)));
          assert.equal(leaf.rawEqualsAt(i, raws[i]!), true);
          assert.equal(leaf.rawEqualsAt(i, Buffer.concat([raws[i]!, Buffer.from([0])])), false);
          const e = leaf.entry(i);
          assert.ok(e.key.equals(keys[i]!));
          assert.equal(e.value, text(raws[i]!));
        }
        assert.deepEqual(
          leaf.entries().map((e) => text(e.key)),
          keys.map(text),
        );
      }),
    );
  });

  test('a leaf of more than 127 entries (a two-byte count)', () => {
    const keys = Array.from({ length: 300 }, (_, i) => Buffer.from(`k${String(i).padStart(4, '0')}`));
    const leaf = LeafNode.decode(
      encode(
        keys,
        keys.map(() => Buffer.alloc(0)),
      ),
      text,
    );
    assert.equal(leaf.length, 300);
    assert.equal(text(leaf.keyAt(299)), 'k0299');
    assert.equal(leaf.valueAt(299), '');
  });

  test('a truncated leaf is an error, not garbage', () => {
    const bytes = encode([Buffer.from('key')], [Buffer.from('value')]);
    assert.throws(() => LeafNode.decode(bytes.subarray(0, bytes.length - 2), text), /truncated/);
    assert.throws(() => LeafNode.decode(Buffer.from([0x01, 0x00]), text), /not a leaf/);
  });

  test('items written in any chunks: old runs copied, new items between them, in order', () => {
    fc.assert(
      fc.property(leafArb, leafArb, fc.array(fc.nat(), { maxLength: 6 }), ([k1, r1], [k2, r2], cutsAt) => {
        const a = LeafNode.decode(encode(k1, r1), text);
        const b = LeafNode.decode(encode(k2, r2), text);
        // Runs of a, a new item, runs of b (key order does not matter to the writer).
        const items = new LeafItems<string>();
        const expected: [Buffer, Buffer][] = [];
        const half = Math.floor(a.length / 2);
        items.pushRun(a, 0, half);
        items.pushRun(a, half, a.length); // joins the run before
        for (let i = 0; i < a.length; i++) expected.push([k1[i]!, r1[i]!]);
        const fresh = { key: Buffer.from('new key'), raw: Buffer.alloc(150, 7) };
        items.pushNew(fresh);
        expected.push([fresh.key, fresh.raw]);
        const more = LeafItems.of(b);
        for (let i = 0; i < b.length; i++) expected.push([k2[i]!, r2[i]!]);
        const all = items.concat(more);
        assert.equal(all.length, expected.length);
        const sizes = all.sizes();
        assert.deepEqual(
          sizes,
          expected.map(([k, r]) => entryBytes(k, r)),
        );
        assert.equal(
          all.bytes,
          sizes.reduce((s, n) => s + n, 0),
        );
        // Cut into chunks at arbitrary places; each chunk is a leaf of exactly its items.
        const ends = [...new Set(cutsAt.map((c) => c % (expected.length + 1)))].sort((x, y) => x - y);
        let from = 0;
        for (const to of [...ends, expected.length]) {
          if (to < from) continue;
          let size = NODE_HEADER_BYTES;
          for (let i = from; i < to; i++) size += sizes[i]!;
          const leaf = all.write(from, to, size, text);
          assert.equal(leaf.length, to - from);
          for (let i = from; i < to; i++) {
            assert.ok(leaf.keyAt(i - from).equals(expected[i]![0]));
            assert.ok(leaf.rawAt(i - from).equals(expected[i]![1]));
          }
          // What was written reads back the same from its bytes.
          assert.deepEqual(
            LeafNode.decode(Buffer.from(leaf.bytes), text)
              .entries()
              .map((e) => text(e.key)),
            leaf.entries().map((e) => text(e.key)),
          );
          from = to;
        }
      }),
      { numRuns: 150 },
    );
  });
});

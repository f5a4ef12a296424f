import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFieldPostings, type FieldPostings, readFieldPostings } from '../src/search/postings-codec.js';
import { Postings } from '../src/search/postings.js';
import { seededRandom } from './support/seeded-random.js';

/** What readFieldPostings gives: per term in order, its positions. */
function read(list: FieldPostings): [string, number[]][] {
  const out: [string, number[]][] = [];
  readFieldPostings(list, (term, positions, frequency) =>
    out.push([term, Array.from(positions.subarray(0, frequency))]),
  );
  return out;
}

/** The first format of a field's postings: `[norm, term, position, ..., term, position, ...]`. */
function firstFormat(norm: number, terms: [string, number[]][]): FieldPostings {
  return [norm, ...terms.flatMap(([term, positions]) => [term, ...positions])];
}

describe("search rows' packed postings", () => {
  it('read back what was written: any terms, any positions, any order', () => {
    const next = seededRandom(32);
    const words = ['the', 'quick', 'brown fox', '', 'ünïcode', '日本', 'a"b\\c', 'x'.repeat(300)];
    for (let round = 0; round < 500; round++) {
      const map = new Map<string, number[]>();
      const count = Math.floor(next() * 12);
      for (let i = 0; i < count; i++) {
        const term = next() < 0.3 ? words[Math.floor(next() * words.length)]! : `w${Math.floor(next() * 50)}`;
        const positions = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
          Math.floor(next() * (next() < 0.1 ? 5_000_000 : 300)),
        ).sort((a, b) => a - b);
        map.set(term, positions);
      }
      const encoded = encodeFieldPostings(7, map);
      // Through JSON, as a row keeps it.
      const decoded = read(JSON.parse(JSON.stringify(encoded)) as FieldPostings);
      assert.deepEqual(decoded, [...map], `round ${round}`);
    }
  });

  it('are smaller than the first format for English text', () => {
    const map = new Map<string, number[]>();
    const text = 'the cat sat on the mat and the dog sat by the door of the house near the cat'.split(' ');
    text.forEach((word, i) => {
      if (!map.has(word)) map.set(word, []);
      map.get(word)!.push(i + 40);
    });
    const packed = JSON.stringify(encodeFieldPostings(3, map)).length;
    const first = JSON.stringify(firstFormat(3, [...map])).length;
    assert.ok(packed < first * 0.8, `${packed} vs ${first}`);
  });

  it('a bad codes string is refused, not read as numbers', () => {
    assert.throws(() => read([1, 'a', '\u00e9']), /bad postings codes/);
  });

  it('an index whose rows are in the first format opens, and takes updates in the new one', () => {
    const docs: [string, [string, number[]][]][] = [
      [
        'a',
        [
          ['cat', [0, 4]],
          ['sat', [1]],
          ['mat', [3]],
        ],
      ],
      [
        'b',
        [
          ['dog', [0]],
          ['cat', [2]],
        ],
      ],
      [
        'c',
        [
          ['cat', [1, 2, 9]],
          ['hat', [5]],
        ],
      ],
    ];
    const row = (terms: [string, number[]][], packed: boolean) =>
      JSON.stringify({
        s: {},
        n: {},
        t: {},
        p: { f: packed ? encodeFieldPostings(9, new Map(terms)) : firstFormat(9, terms) },
      });
    const old = new Postings();
    const fresh = new Postings();
    for (const [id, terms] of docs) {
      old.put(Buffer.from(id), id, row(terms, false));
      fresh.put(Buffer.from(id), id, row(terms, true));
    }
    old.loaded();
    fresh.loaded();
    const listing = (postings: Postings, term: string) => {
      const t = postings.term('f', term);
      if (t === undefined) return undefined;
      return { docs: [...t.docs].map((doc) => postings.idOf(doc)), ends: [...t.ends], positions: [...t.positions] };
    };
    for (const term of ['cat', 'sat', 'mat', 'dog', 'hat']) assert.deepEqual(listing(old, term), listing(fresh, term));
    assert.deepEqual(old.fieldStats('f'), { docCount: 3, sumTotalTermFreq: 10 });
    assert.deepEqual(old.norms('f').subarray(0, 3), new Uint8Array([9, 9, 9]));
    // Document b changes: its new row is in the packed format, beside rows of the first.
    old.put(
      Buffer.from('b'),
      'b',
      row(
        [
          ['cat', [0, 1]],
          ['bird', [7]],
        ],
        true,
      ),
    );
    const live = (postings: Postings, term: string) => {
      const t = postings.term('f', term)!;
      const out: [string, number[]][] = [];
      for (let i = 0; i < t.docs.length; i++) {
        const doc = t.docs[i]!;
        if (postings.alive(doc))
          out.push([postings.idOf(doc), [...t.positions.subarray(i === 0 ? 0 : t.ends[i - 1], t.ends[i])]]);
      }
      return out;
    };
    assert.deepEqual(live(old, 'cat'), [
      ['a', [0, 4]],
      ['c', [1, 2, 9]],
      ['b', [0, 1]],
    ]);
    assert.equal(old.docFreq('f', 'cat'), 3);
    assert.equal(old.docFreq('f', 'dog'), 0);
    assert.equal(old.docFreq('f', 'bird'), 1);
    assert.deepEqual(old.fieldStats('f'), { docCount: 3, sumTotalTermFreq: 11 });
  });
});

// The in-memory postings' delta (src/search/postings.ts): documents put after the load wait
// uninverted beside the main postings, a term's are moved in when it is read, and the whole delta
// is merged in (at once, or a slice at a time). Whatever the order of puts, removals, reads and
// merges, every read answers as postings made afresh of the final rows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Postings } from '../src/search/postings.js';
import { encodeFieldPostings } from '../src/search/postings-codec.js';

const WORDS = ['fox', 'dog', 'the', 'a b', '', 'run', 'quick', 'zebra', 'é'];
/** Document ids: their keys' bytes in another order than their first letters' ('é' is 0xe9 in latin1). */
const IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'ab', 'é', 'B'];

/** A row's JSON for a document of `fields`: per field, its tokens (a term per position). */
function rowJson(fields: Record<string, string[]>): string {
  const p: Record<string, unknown> = {};
  for (const [field, tokens] of Object.entries(fields)) {
    const positions = new Map<string, number[]>();
    tokens.forEach((token, i) => {
      let list = positions.get(token);
      if (list === undefined) positions.set(token, (list = []));
      list.push(i);
    });
    p[field] = encodeFieldPostings(tokens.length, positions);
  }
  return JSON.stringify({ s: {}, n: {}, t: {}, p });
}

/** Everything a query reads of the postings, by document id (numbers differ between the two). */
function reads(postings: Postings, fields: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const terms = postings.sortedTerms(field).filter((term) => postings.docFreq(field, term) > 0);
    const lists: Record<string, [string, number[]][]> = {};
    for (const term of terms) {
      const list = postings.term(field, term)!;
      const rows: [string, number[]][] = [];
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i]!;
        if (!postings.alive(doc)) continue;
        const from = i === 0 ? 0 : list.ends[i - 1]!;
        rows.push([postings.idOf(doc), Array.from(list.positions.subarray(from, list.ends[i]!))]);
      }
      // Documents ascend in every list (index order of their numbers).
      for (let i = 1; i < list.docs.length; i++) assert.ok(list.docs[i - 1]! < list.docs[i]!);
      lists[term] = rows.sort((x, y) => (x[0] < y[0] ? -1 : 1));
    }
    // A term read before the delta moved in, and one asked that no document has.
    out[field] = {
      terms,
      lists,
      docFreqs: terms.map((term) => postings.docFreq(field, term)),
      stats: postings.fieldStats(field),
      missing: postings.docFreq(field, 'nowhere'),
    };
  }
  // Each live document's place in index order (a hit's `order`), and how many there are.
  const ranks: Record<string, number> = {};
  for (const id of IDS) {
    const doc = postings.docOf(id);
    if (doc !== undefined) ranks[id] = postings.rankOf(doc);
  }
  out.ranks = ranks;
  out.live = postings.liveCount;
  return out;
}

type Op =
  | { kind: 'put'; id: string; fields: Record<string, string[]> }
  | { kind: 'remove'; id: string }
  | { kind: 'read'; field: string; term: string }
  | { kind: 'merge'; whole: boolean };

const fieldsOf = fc.dictionary(
  fc.constantFrom('default', 'title'),
  fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
  { maxKeys: 2 },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      id: fc.constantFrom(...IDS),
      fields: fieldsOf,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.constantFrom('a', 'b', 'c', 'g', 'é') }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      field: fc.constantFrom('default', 'title'),
      term: fc.constantFrom(...WORDS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), whole: fc.boolean() }) },
);

const key = (id: string) => Buffer.from(id, 'latin1');

describe('the postings delta answers as postings made afresh', () => {
  test('puts, removals, reads and merges in any order after a load', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'ab', 'é'), fields: fieldsOf }), { maxLength: 6 }),
        fc.array(op, { maxLength: 40 }),
        (loaded, ops) => {
          const rows = new Map<string, string>();
          const postings = new Postings();
          // The load: rows in id order, then loaded() (later puts go to the delta).
          for (const { id, fields } of loaded) rows.set(id, rowJson(fields));
          for (const id of [...rows.keys()].sort()) postings.put(key(id), id, rows.get(id)!);
          postings.loaded();
          for (const o of ops) {
            if (o.kind === 'put') {
              rows.set(o.id, rowJson(o.fields));
              postings.put(key(o.id), o.id, rows.get(o.id)!);
            } else if (o.kind === 'remove') {
              rows.delete(o.id);
              postings.remove(key(o.id).toString('latin1'));
            } else if (o.kind === 'read') {
              postings.docFreq(o.field, o.term);
            } else {
              // A slice whose deadline has passed stops at its first check.
              while (postings.mergeSome(o.whole ? Number.POSITIVE_INFINITY : 0));
            }
          }
          const fresh = new Postings();
          for (const id of [...rows.keys()].sort()) fresh.put(key(id), id, rows.get(id)!);
          fresh.loaded();
          assert.deepEqual(reads(postings, ['default', 'title']), reads(fresh, ['default', 'title']));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a merge is due past a twentieth of the main postings, and leaves nothing behind', () => {
    const postings = new Postings();
    for (let i = 0; i < 3000; i++) {
      const id = `d${String(i).padStart(5, '0')}`;
      postings.put(key(id), id, rowJson({ default: ['common', `w${i % 7}`] }));
    }
    postings.loaded();
    let puts = 0;
    while (!postings.mergeDue) {
      const id = `n${String(puts++).padStart(5, '0')}`;
      postings.put(key(id), id, rowJson({ default: ['common', 'late'] }));
    }
    // MERGE_MIN (2,000) is past 5% of 3,000.
    assert.equal(puts, 2001);
    while (postings.mergeSome(0));
    assert.equal(postings.mergeDue, false);
    assert.equal(postings.docFreq('default', 'late'), 2001);
    assert.equal(postings.docFreq('default', 'common'), 5001);
    assert.deepEqual(postings.fieldStats('default'), { docCount: 5001, sumTotalTermFreq: 10002 });
  });
});

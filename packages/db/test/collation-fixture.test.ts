import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson, toPlain } from '../src/json/index.js';
import {
  collateRows,
  compareUtf8,
  encodeDocId,
  encodeKey,
  encodeRawKey,
  encodeRowKey,
  exactKeyRange,
  isFcd,
  rowKeyRange,
  type RowKeyRange,
} from '../src/collation/index.js';
import { excuses, hex, loadFixture, unmoved, type Excuse, type FixtureRow } from './support/collation-allowances.js';

// Conformance against rows recorded from a real CouchDB 3.5.0 (libicu 72.1), see
// test/fixtures/README.md. Raw collation must match exactly. ICU collation may differ
// only in the three classes the README documents for ICU 72 → this node's ICU; every row that
// falls in one is named below, the rest must match exactly (order, ties and group=true groups),
// and the excused rows must still be in the order of Intl.Collator('en'), which runs the same
// ICU as we do: the difference is the ICU version, not the encoding.

type Row = FixtureRow;
const fixture = loadFixture();

function sortRows<T extends { id: string; key: unknown }>(rows: readonly T[], raw: boolean): T[] {
  return rows
    .map((row) => ({ row, bytes: encodeRowKey(row.key, row.id, raw) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ row }) => row);
}

/** group=true over rows in scan order: [first row's key, count] per run of byte-equal keys. */
function groups(rows: readonly Row[], raw: boolean): { key: string; value: number }[] {
  const out: { key: string; value: number; bytes: Buffer }[] = [];
  for (const row of rows) {
    const bytes = raw ? encodeRawKey(row.key) : encodeKey(row.key);
    const last = out[out.length - 1];
    if (last?.bytes.equals(bytes)) last.value++;
    else out.push({ key: row.key, value: 1, bytes });
  }
  return out.map(({ key, value }) => ({ key, value }));
}

function inRange(bytes: Buffer, range: RowKeyRange): boolean {
  return (!range.gte || Buffer.compare(bytes, range.gte) >= 0) && (!range.lt || Buffer.compare(bytes, range.lt) < 0);
}

/**
 * Checks our order of `expected` rows: exact, or for ICU exact once the excused rows are left
 * out. Returns the excused rows that actually moved, for the report.
 */
function checkOrder(expected: readonly Row[], raw: boolean, report: (msg: string) => void): Row[] {
  const ours = sortRows(expected, raw);
  if (raw) {
    assert.deepEqual(
      ours.map((r) => r.id),
      expected.map((r) => r.id),
    );
    return [];
  }
  const excused = (r: Row): boolean => excuses(r.key).length > 0;
  assert.deepEqual(
    ours.filter((r) => !excused(r)).map((r) => r.id),
    expected.filter((r) => !excused(r)).map((r) => r.id),
    'rows outside the documented ICU 72 differences are in CouchDB order',
  );
  // The excused rows sit where the current ICU puts them (Intl.Collator runs the same ICU; it
  // normalizes, so only FCD neighbours are comparable).
  const intl = new Intl.Collator('en');
  const fcd = ours.filter((r) => isFcd(r.key));
  for (let i = 1; i < fcd.length; i++) {
    assert.ok(
      intl.compare(fcd[i - 1]!.key, fcd[i]!.key) <= 0,
      `${hex(fcd[i - 1]!.key)} <= ${hex(fcd[i]!.key)} under Intl`,
    );
  }
  const position = new Map(expected.map((r, i) => [r.id, i]));
  const keep = unmoved(ours.map((r) => position.get(r.id)!));
  const moved = expected.filter((_, i) => !keep.has(i));
  for (const r of moved) assert.ok(excused(r), `${r.id} ${hex(r.key)} moved without a documented reason`);
  const byClass = new Map<Excuse, { candidates: number; moved: string[] }>();
  for (const r of expected) {
    for (const e of excuses(r.key)) {
      const entry = byClass.get(e) ?? { candidates: 0, moved: [] };
      entry.candidates++;
      if (moved.includes(r)) entry.moved.push(hex(r.key));
      byClass.set(e, entry);
    }
  }
  report(`${expected.length} rows, ${moved.length} moved, all in documented classes`);
  for (const [e, { candidates, moved: m }] of byClass) {
    report(`  ${e}: ${candidates} rows in class, ${m.length} moved${m.length ? `: ${m.join(', ')}` : ''}`);
  }
  return moved;
}

for (const mode of ['icu', 'raw'] as const) {
  const raw = mode === 'raw';
  describe(`CouchDB 3.5.0 fixture, ${mode} collation`, () => {
    const section = fixture[mode];

    test('fixture is the one the allowances were written for', () => {
      assert.equal(fixture.server.library_version, '72.1');
      assert.equal(section.strings.length, 3097);
    });

    test('3,097 strings: row order (key, then doc id)', (t) => {
      const moved = checkOrder(section.strings, raw, (m) => t.diagnostic(m));
      if (raw) assert.equal(moved.length, 0);
      // Measured with node's ICU 78: the 12 changed code points and 75 strings of post-15.0
      // characters move; no non-FCD string does. Another ICU must be looked at again.
      if (!raw && process.versions.icu?.startsWith('78.')) {
        const count = (e: Excuse): number => moved.filter((r) => excuses(r.key).includes(e)).length;
        assert.deepEqual(
          {
            total: moved.length,
            changed: count('root-order-changed'),
            newer: count('newer-than-unicode-15.0'),
            nonFcd: count('non-fcd'),
          },
          { total: 87, changed: 12, newer: 75, nonFcd: 0 },
        );
      }
    });

    test('group=true: the same strings merge into one group', () => {
      const rows = section.strings;
      const groupOf = section.groupCounts.flatMap((count, g) => Array<number>(count).fill(g));
      assert.equal(groupOf.length, rows.length);
      const encode = raw ? encodeRawKey : encodeKey;
      // Adjacent rows in CouchDB's order are in one group iff our encodings are byte-equal.
      for (let i = 1; i < rows.length; i++) {
        const same = encode(rows[i - 1]!.key).equals(encode(rows[i]!.key));
        assert.equal(same, groupOf[i - 1] === groupOf[i], `${hex(rows[i - 1]!.key)} / ${hex(rows[i]!.key)}`);
      }
    });

    test('ties: equal keys (ignorables, canonical equivalents) ordered by doc id', (t) => {
      const moved = checkOrder(section.ties, raw, (m) => t.diagnostic(m));
      // Only the 4 post-15.0 keys (2 rows each side of a tie pair) move.
      if (!raw && process.versions.icu?.startsWith('78.')) assert.equal(moved.length, 8);
    });

    test('ties: group=true groups and their reported keys', () => {
      const keep = (key: string): boolean => raw || excuses(key).length === 0;
      const ours = groups(sortRows(section.ties, raw), raw).filter((g) => keep(g.key));
      assert.deepEqual(
        ours,
        section.tieGroups.filter((g) => keep(g.key)),
      );
    });

    test('key= lookups and the empty startkey=endkey, inclusive_end=false range', () => {
      const rows = sortRows(section.ties, raw).map((r) => ({ ...r, bytes: encodeRowKey(r.key, r.id, raw) }));
      let lookups = 0;
      for (const lookup of section.keyLookups) {
        if (lookup.rows) {
          const range = exactKeyRange(lookup.key, raw);
          const found = rows.filter((r) => inRange(r.bytes, range)).map(({ id, key }) => ({ id, key }));
          assert.deepEqual(found, lookup.rows, `key=${JSON.stringify(lookup.key)}`);
          lookups++;
        } else {
          const range = rowKeyRange({ startkey: lookup.key, endkey: lookup.key, inclusiveEnd: false }, raw);
          assert.equal(rows.filter((r) => inRange(r.bytes, range)).length, lookup.exclusiveSelfRange);
        }
      }
      assert.ok(lookups >= 10);
    });

    test('mixed JSON keys (numbers, arrays, objects) in CouchDB order', () => {
      const expected = (parseJson(section.mixedText) as { get(k: string): unknown }).get('rows') as {
        get(k: string): unknown;
      }[];
      const rows = expected.map((r) => ({ id: r.get('id') as string, key: r.get('key') }));
      assert.equal(rows.length, 61);
      const ids = rows.map((r) => r.id);
      // Shuffle deterministically so the sort has work to do.
      const shuffled = rows
        .map((r, i) => ({ r, k: (i * 7919) % rows.length }))
        .sort((a, b) => a.k - b.k)
        .map(({ r }) => r);
      assert.deepEqual(
        sortRows(shuffled, raw).map((r) => r.id),
        ids,
        'JsonObject keys (member order kept)',
      );
      const plain = shuffled.map((r) => ({ id: r.id, key: toPlain(r.key as never) }));
      assert.deepEqual(
        sortRows(plain, raw).map((r) => r.id),
        ids,
        'as JSON.parse gives them',
      );
      const byComparator = [...plain].sort((a, b) => collateRows(a.key, a.id, b.key, b.id, raw));
      assert.deepEqual(
        byComparator.map((r) => r.id),
        ids,
        'JS comparator',
      );
    });
  });
}

describe('CouchDB 3.5.0 fixture, _all_docs id order (raw bytes)', () => {
  for (const name of ['allDocsIds', 'allDocsUnicode'] as const) {
    test(name, () => {
      const ids = fixture[name];
      const reversed = [...ids].reverse();
      assert.deepEqual([...reversed].sort(compareUtf8), ids);
      assert.deepEqual(
        reversed
          .map((id) => ({ id, bytes: encodeDocId(id) }))
          .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
          .map((r) => r.id),
        ids,
      );
    });
  }
});

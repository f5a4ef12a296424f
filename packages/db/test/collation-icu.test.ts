import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collatorVersion, icuCollator, isFcd, sameCollation } from '../src/collation/index.js';

// The native ICU collator: CouchDB's root collator (tertiary, normalization off) from the ICU
// inside the node binary.

const icu = icuCollator();
const sign = (n: number): number => Math.sign(n);
const keyCmp = (a: string, b: string): number => sign(Buffer.compare(icu.sortKey(a), icu.sortKey(b)));

describe('icu addon', () => {
  test('versions are reported for the index header', () => {
    const v = collatorVersion();
    assert.match(v.collator, /^\d+\.\d+/);
    assert.equal(v.icu.split('.')[0], process.versions.icu?.split('.')[0]);
    assert.match(v.uca, /^\d+\.\d+/);
    assert.equal(sameCollation(v), true);
    assert.equal(sameCollation({ ...v, collator: '0.0' }), false);
    assert.equal(sameCollation({ ...v, icu: '72.1' }), false);
  });

  test('sort keys: no 0x00 byte, no trailing terminator; known bytes for "a"', () => {
    assert.deepEqual([...icu.sortKey('a')], [0x2b, 0x01, 0x05, 0x01, 0x05]);
    for (const s of ['', 'a', 'A', '\u0000', 'a\u0000b', 'привет', '😀', '\uffff', '\u{10ffff}', 'x'.repeat(1000)]) {
      assert.equal(icu.sortKey(s).includes(0), false, JSON.stringify(s));
    }
  });

  test('sortKeyInto writes in place or reports the length it needs', () => {
    const target = new Uint8Array(8).fill(0xee);
    assert.equal(icu.sortKeyInto('a', target, 2), 5);
    assert.deepEqual([...target], [0xee, 0xee, 0x2b, 0x01, 0x05, 0x01, 0x05, 0xee]);
    assert.equal(icu.sortKeyInto('abcdef', target, 0), -icu.sortKey('abcdef').length);
    assert.throws(() => icu.sortKeyInto('a', target, 9), RangeError);
  });

  test('bad arguments are TypeErrors, not crashes', () => {
    assert.throws(() => icu.sortKey(1 as unknown as string), TypeError);
    assert.throws(() => icu.compare('a', null as unknown as string), TypeError);
    assert.throws(() => icu.sortKeyInto('a', [1, 2] as unknown as Uint8Array, 0), TypeError);
  });

  test('lone surrogates collate as U+FFFD (what their UTF-8 form holds)', () => {
    assert.deepEqual(icu.sortKey('x\ud800'), icu.sortKey('x\ufffd'));
    assert.deepEqual(icu.sortKey('\udc00y'), icu.sortKey('\ufffdy'));
    assert.equal(icu.compare('\ud83d\ude00', '\ufffd') === 0, false); // a real pair is not replaced
  });

  test('charAge tells which characters are newer than an ICU', () => {
    assert.equal(icu.charAge(0x41), '1.1');
    assert.equal(icu.charAge(0x2ebf0), '15.1');
    assert.equal(icu.charAge(0x50000), '0.0');
  });
});

describe('failing loudly instead of ordering differently', () => {
  test('an unbuilt addon is a clear IcuCollatorError naming the fix', async () => {
    // A copy of the compiled loader in a fake package root whose addon was never built.
    const root = mkdtempSync(join(tmpdir(), 'divan-icu-'));
    try {
      mkdirSync(join(root, 'native', 'icu-collate'), { recursive: true });
      writeFileSync(join(root, 'native', 'icu-collate', 'binding.gyp'), '{}');
      mkdirSync(join(root, 'lib'));
      copyFileSync(fileURLToPath(new URL('../src/collation/icu.js', import.meta.url)), join(root, 'lib', 'icu.js'));
      const loader = (await import(join(root, 'lib', 'icu.js'))) as typeof import('../src/collation/icu.js');
      assert.throws(
        () => loader.icuCollator(),
        (e: Error) => e.name === 'IcuCollatorError' && /not built.*node-gyp rebuild/.test(e.message),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('an ICU whose versioned functions are missing refuses to load', () => {
    const addon = fileURLToPath(new URL('../../native/icu-collate/build/Release/icu_collate.node', import.meta.url));
    const script = `Object.defineProperty(process.versions, 'icu', { value: '99.1' }); require(${JSON.stringify(addon)});`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.notEqual(child.status, 0);
    assert.match(child.stderr, /ucol_open_99 not found/);
  });
});

describe('CouchDB string order', () => {
  const ordered = (list: string[]): void => {
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      assert.equal(icu.compare(a, b), -1, `${JSON.stringify(a)} < ${JSON.stringify(b)}`);
      assert.equal(keyCmp(a, b), -1, `sort key ${JSON.stringify(a)} < ${JSON.stringify(b)}`);
    }
  };

  test('a < A < aa < b < B, and the docs examples', () => {
    ordered(['a', 'A', 'aa', 'b', 'B', 'ba', 'bb']);
    ordered(['abc', 'Abc', 'ABC', 'abc1', 'AbcZZZZZ']);
    ordered(['10', '9', 'hello', 'Hello', 'привет']);
  });

  test('ASCII: space, punctuation and symbols, digits, letters (modern ICU root order)', () => {
    const expected =
      ' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ';
    const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
    assert.equal([...ascii].sort(icu.compare).join(''), expected);
    assert.equal([...ascii].sort(keyCmp).join(''), expected);
  });

  test('ignorable code points are ignored; canonical equivalents (FCD) are equal', () => {
    for (const [a, b] of [
      ['a', 'a\u200b'],
      ['ab', 'a\u00adb'],
      ['ab', 'a\ufeffb'],
      ['ab', 'a\u0000b'],
      ['\u00e9', 'e\u0301'],
      ['\u00c5', '\u212b'],
      ['\u1ec7', 'e\u0323\u0302'],
    ] as [string, string][]) {
      assert.equal(icu.compare(a, b), 0, `${JSON.stringify(a)} == ${JSON.stringify(b)}`);
      assert.deepEqual(icu.sortKey(a), icu.sortKey(b));
    }
  });

  test('normalization is off, as in CouchDB: a non-FCD mark order is not its canonical form', () => {
    // U+0302 (ccc 230) before U+0323 (ccc 220) is not canonically ordered.
    assert.notEqual(icu.compare('e\u0302\u0323', 'e\u0323\u0302'), 0);
    assert.equal(new Intl.Collator('en').compare('e\u0302\u0323', 'e\u0323\u0302'), 0); // V8 normalizes
  });
});

// ICU with normalization off is exact on FCD text (see isFcd); only non-FCD text may differ from
// the normalizing Intl.Collator, so the properties below are restricted to FCD strings.
describe('sort keys agree with Intl.Collator("en") (same ICU, root order) on FCD strings', () => {
  // Characters where collation is interesting: ASCII, Latin-1, combining marks, ignorables,
  // Hangul jamo and syllables, CJK, astral (emoji, CJK ext B), and the private use area.
  const char = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0xa0, max: 0x24f }),
    fc.integer({ min: 0x300, max: 0x36f }),
    fc.constantFrom(0x200b, 0x200d, 0x00ad, 0xfeff, 0x034f, 0x0000, 0x0001, 0xfe0f),
    fc.integer({ min: 0x1100, max: 0x11ff }),
    fc.integer({ min: 0xac00, max: 0xac20 }),
    fc.integer({ min: 0x4e00, max: 0x4e40 }),
    fc.integer({ min: 0x1f600, max: 0x1f640 }),
    fc.integer({ min: 0x20000, max: 0x20010 }),
    fc.integer({ min: 0xe000, max: 0xe010 }),
    fc.integer({ min: 0x370, max: 0x3ff }),
  );
  const str = fc.array(char, { maxLength: 6 }).map((cps) => String.fromCodePoint(...cps));
  const intl = new Intl.Collator('en');

  test('sign(compare(sortKey(a), sortKey(b))) == sign(Intl compare) for FCD a, b', () => {
    let fcdPairs = 0;
    fc.assert(
      fc.property(str, str, (a, b) => {
        if (!isFcd(a) || !isFcd(b)) return true; // normalization-off territory
        fcdPairs++;
        const expected = sign(intl.compare(a, b));
        assert.equal(keyCmp(a, b), expected, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        assert.equal(icu.compare(a, b), expected);
        return true;
      }),
      { numRuns: 3000 },
    );
    assert.ok(fcdPairs > 1500, `only ${fcdPairs} FCD pairs were generated`);
  });

  test('sorting by sort key bytes equals sorting with Intl on FCD strings', () => {
    fc.assert(
      fc.property(fc.array(str, { maxLength: 40 }), (list) => {
        const fcd = list.filter(isFcd);
        const byKey = fcd.map((s) => [icu.sortKey(s), s] as const).sort((x, y) => Buffer.compare(x[0], y[0]));
        const byIntl = [...fcd].sort(intl.compare);
        // Equal strings may come in either order; compare the sort keys in sequence instead.
        assert.deepEqual(
          byKey.map(([k]) => k.toString('hex')),
          byIntl.map((s) => icu.sortKey(s).toString('hex')),
        );
      }),
      { numRuns: 200 },
    );
  });
});

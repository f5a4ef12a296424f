/**
 * `$regex` (spec §4): PCRE without the UTF-8 flag, translated to JavaScript. Byte semantics,
 * ASCII-only case folding and classes, PCRE's class and anchor rules, CouchDB's 400 for patterns
 * that do not compile and a 400 for constructs Divan cannot match faithfully.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CouchError } from '../src/errors.js';
import { compileRegex } from '../src/mango/regex.js';

const test = (pattern: string, value: string): boolean => compileRegex(pattern).test(value);

/** The 400 a pattern gets, if any. */
function refusal(pattern: string): string | undefined {
  try {
    compileRegex(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof CouchError) return err.error;
    throw err;
  }
}

function refused(pattern: string, error: 'bad_arg' | 'not_supported'): void {
  assert.throws(
    () => compileRegex(pattern),
    (err: unknown) => err instanceof CouchError && err.status === 400 && err.error === error,
    pattern,
  );
}

describe('mango $regex', () => {
  it('matches anywhere (unanchored); anchors as PCRE has them', () => {
    assert.equal(test('lic', 'alice'), true);
    assert.equal(test('^lic', 'alice'), false);
    assert.equal(test('ice$', 'alice'), true);
    assert.equal(test('ice$', 'alice\n'), true); // $ also before a final newline
    assert.equal(test('ice$', 'alice\n\n'), false);
    assert.equal(test('ice\\z', 'alice\n'), false);
    assert.equal(test('ice\\Z', 'alice\n'), true);
    assert.equal(test('\\Aal', 'alice'), true);
    assert.equal(test('', 'anything'), true);
  });

  it('. is one byte: ^.$ does not match "é", ^..$ does; . does not match a newline', () => {
    assert.equal(test('^.$', 'é'), false);
    assert.equal(test('^..$', 'é'), true);
    assert.equal(test('^.$', 'a'), true);
    assert.equal(test('a.b', 'a\nb'), false);
    assert.equal(test('a.b', 'a\rb'), true);
    assert.equal(test('(?s)a.b', 'a\nb'), true);
    assert.equal(test('^....$', '👍'), true);
  });

  it('(?i) and \\w, \\d, \\s are ASCII-only', () => {
    assert.equal(test('(?i)über', 'ÜBER'), false);
    assert.equal(test('(?i)über', 'üBER'), true);
    assert.equal(test('(?i)ALICE', 'alice'), true);
    assert.equal(test('^\\w+$', 'über'), false);
    assert.equal(test('^\\w+$', 'a_1'), true);
    assert.equal(test('^\\d$', '٣'), false);
    assert.equal(test('\\s', '\u00a0'), false);
    assert.equal(test('\\s', '\t'), true);
    assert.equal(test('^\\S+$', 'a\u00a0b'), true);
    assert.equal(test('(?i)[a-c]', 'B'), true);
    assert.equal(test('(?i)[^a-c]', 'B'), false);
    assert.equal(test('(?i)é', 'É'), false);
  });

  it('scoped options: (?i:…), (?-i), options end with their group', () => {
    assert.equal(test('a(?i:b)c', 'aBc'), true);
    assert.equal(test('a(?i:b)c', 'aBC'), false);
    assert.equal(test('(a(?i)b)c', 'aBc'), true);
    assert.equal(test('(a(?i)b)c', 'aBC'), false);
    assert.equal(test('(?i)a(?-i)b', 'Ab'), true);
    assert.equal(test('(?i)a(?-i)b', 'AB'), false);
    assert.equal(test('(?x) a b # comment', 'ab'), true);
    assert.equal(test('(?m)^b$', 'a\nb\nc'), true);
    assert.equal(test('^b$', 'a\nb\nc'), false);
  });

  it('classes: ] first is literal, POSIX classes, escapes, byte ranges', () => {
    assert.equal(test('[]a]', ']'), true);
    assert.equal(test('[^]a]', ']'), false);
    assert.equal(test('[^]a]', 'b'), true);
    assert.equal(test('^[[:alpha:]]+$', 'abcXYZ'), true);
    assert.equal(test('^[[:alpha:]]+$', 'abé'), false);
    assert.equal(test('^[[:^digit:]]+$', 'abc'), true);
    assert.equal(test('[\\d-]', '-'), true);
    assert.equal(test('[a-]', '-'), true);
    assert.equal(test('^[é]$', 'é'), false); // a class of two bytes matches one byte
    assert.equal(test('^[é]{2}$', 'é'), true);
    assert.equal(test('[\\]]', ']'), true);
  });

  it('literal characters and escapes mean what they mean to PCRE', () => {
    assert.equal(test('a.c', 'abc'), true);
    assert.equal(test('a\\.c', 'abc'), false);
    assert.equal(test('\\x41', 'A'), true);
    assert.equal(test('\\041', '!'), true); // octal: \0 and up to two more digits
    assert.equal(test('\\cA', '\u0001'), true);
    assert.equal(test('a\\yb', 'ayb'), true); // an unknown letter escape is the letter
    refused('\\101', 'not_supported'); // octal or backreference 101: depends on the group count
  });

  it('quantifiers, alternation, lookarounds, backreferences that always take part', () => {
    assert.equal(test('^(ab)+$', 'abab'), true);
    assert.equal(test('^a{2,3}$', 'aaa'), true);
    assert.equal(test('^a{2,3}$', 'aaaa'), false);
    assert.equal(test('a{,2}', 'a{,2}'), true); // not a quantifier in PCRE: literal
    assert.equal(test('^(cat|dog)$', 'dog'), true);
    assert.equal(test('foo(?=bar)', 'foobar'), true);
    assert.equal(test('foo(?!bar)', 'foobar'), false);
    assert.equal(test('(?<=a)b', 'ab'), true);
    assert.equal(test('^(a+)-\\1$', 'aa-aa'), true);
    assert.equal(test('^(?<x>a)\\k<x>$', 'aa'), true);
    assert.equal(test('^(?P<x>a)(?P=x)$', 'aa'), true);
    assert.equal(test('\\Qa.b\\E', 'a.b'), true);
    assert.equal(test('\\Qa.b\\E', 'axb'), false);
  });

  it('patterns PCRE does not compile are bad_arg, printed as Erlang bytes', () => {
    assert.throws(
      () => compileRegex('('),
      (err: unknown) => err instanceof CouchError && err.reason === 'Bad argument for operator $regex: <<40>>',
    );
    for (const pattern of [
      '(',
      ')',
      '[a',
      'a**',
      '*a',
      '\\',
      'a{3,2}',
      '[b-a]',
      '(?<=a+)b',
      '\\1',
      '(?z)',
      '[[:foo:]]',
      '\\L',
    ]) {
      refused(pattern, 'bad_arg');
    }
  });

  it('constructs without a faithful translation are not_supported', () => {
    for (const pattern of [
      '(?>a)',
      'a++',
      '(?R)',
      '\\X',
      '(?i)[\\p{Lu}]',
      '(?(1)a|b)',
      '(a)?\\1',
      '(a)|\\1',
      '(*CR)a',
      '(?U)a',
    ]) {
      refused(pattern, 'not_supported');
    }
  });

  it('Unicode properties \\p / \\P as PCRE matches them: on bytes (0..255 as code points) without UTF, code points with it', () => {
    // Without UTF: "É" is the bytes C3 89, and C3 is "Ã", an upper-case letter; "ñ" is C3 B1.
    assert.equal(test('^\\p{Lu}', 'Alice'), true);
    assert.equal(test('^\\p{Lu}', 'bob'), false);
    assert.equal(test('^\\p{Lu}', 'Émile'), true);
    assert.equal(test('^\\p{Lu}', 'ñandu'), true);
    assert.equal(test('^\\p{Lu}\\p{Lu}$', 'ñ'), false, 'B1 is ± (Sm)');
    assert.equal(test('^\\p{Ll}', 'ñandu'), false);
    assert.equal(test('^\\pL+$', 'abc'), true);
    assert.equal(test('^\\P{L}+$', '123'), true);
    assert.equal(test('^\\p{^N}', 'x'), true);
    assert.equal(test('^[\\p{Nd}x]+$', '12x3'), true);
    assert.equal(test('\\p{Greek}', 'αβγ'), false, 'Greek letters are above 0xFF: never one byte');
    // With UTF: code points.
    assert.equal(test('(*UTF8)^\\p{Lu}', 'Émile'), true);
    assert.equal(test('(*UTF8)^\\p{Lu}', 'ñandu'), false);
    assert.equal(test('(*UTF8)^\\p{Ll}', 'ñandu'), true);
    assert.equal(test('(*UTF8)^\\p{Greek}+$', 'αβγ'), true);
    assert.equal(test('(*UTF8)^\\p{L&}+$', 'Ωmega'), true);
    assert.equal(test('(*UTF8)^[^\\p{L}]+$', '१२३'), true);
    // PCRE does not compile an unknown property name or a lower-case category.
    for (const pattern of ['\\p{Nope}', '\\p{lu}', '\\p{Lu', '\\p']) refused(pattern, 'bad_arg');
  });

  it('an unbounded repetition of a group that repeats is refused (no match limit here to stop it)', () => {
    for (const pattern of ['(a+)+$', '(a*)*', '(ab+)*', '((a+))+', '(a{2,})+', '^(\\w+\\s?)*$']) {
      refused(pattern, 'not_supported');
    }
    for (const pattern of ['(a|b)+', 'a+b*', '(ab)+', '(a+){2}', '(a+)?', '(?:(a)+$)?$']) {
      assert.equal(test(pattern, 'aab'), true, pattern);
    }
  });

  it('(*UTF8) switches to code points', () => {
    assert.equal(test('(*UTF8)^.$', 'é'), true);
    assert.equal(test('(*UTF)^.$', '👍'), true);
    assert.equal(test('(*UTF8)(?i)über', 'ÜBER'), true);
  });

  it('property: a literal string (escaped) matches exactly the values that contain it', () => {
    const quote = (s: string): string => s.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), fc.string({ maxLength: 12 }), (needle, hay) => {
        assert.equal(test(quote(needle), hay), Buffer.from(hay).includes(Buffer.from(needle)));
      }),
      { numRuns: 300 },
    );
  });

  it('property: on ASCII values without newlines, patterns whose meaning JS shares match as JS RegExp does', () => {
    // Random patterns from the syntax both engines read alike: the translation must keep their
    // structure (what a quantifier applies to, groups, alternation, anchors).
    const { pattern } = fc.letrec((tie) => ({
      atom: fc.oneof(
        fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '[a-c]', '\\d', '\\w', '\\s', '\\.', 'x'),
        tie('pattern').map((p) => `(${p})`),
        tie('pattern').map((p) => `(?:${p})`),
      ),
      piece: fc.tuple(tie('atom'), fc.constantFrom('', '', '*', '+', '?', '{1,2}', '*?', '{2}')).map(([a, q]) => a + q),
      pattern: fc.oneof(
        { depthSize: 'small' },
        fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map((pieces) => pieces.join('')),
        fc.tuple(tie('pattern'), tie('pattern')).map(([l, r]) => `${l}|${r}`),
        tie('pattern').map((p) => `^${p}`),
        tie('pattern').map((p) => `${p}$`),
      ),
    }));
    const value = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '1', ' ', '.', '_'), maxLength: 8 });
    fc.assert(
      fc.property(pattern as fc.Arbitrary<string>, value, (p, v) => {
        // Nested unbounded repetitions are refused (tested above), not translated.
        fc.pre(refusal(p) !== 'not_supported');
        assert.equal(test(p, v), new RegExp(p).test(v), `${p} on ${JSON.stringify(v)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: (?i) on ASCII letters equals comparing ASCII-lowercased values', () => {
    const ascii = fc.string({ unit: fc.constantFrom('a', 'B', 'c', 'D', 'é', 'É', '1'), maxLength: 5 });
    const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
    fc.assert(
      fc.property(ascii, ascii, (needle, hay) => {
        assert.equal(test(`(?i)${needle}`, hay), lower(hay).includes(lower(needle)));
      }),
      { numRuns: 300 },
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzerNamed, type Analyzer } from '../src/search/analyzers.js';
import { FieldTerms, TermGrouper } from '../src/search/field-terms.js';
import { encodeFieldPostings, encodeGroupedPostings, postingsLength } from '../src/search/postings-codec.js';
import { TermDictionary } from '../src/search/term-dictionary.js';
import { seededRandom } from './support/seeded-random.js';

/** The terms of the analyzer's ASCII path, as [term, position] (undefined when it declines the text). */
function interned(analyzer: Analyzer, text: string, dictionary: TermDictionary): [string, number][] | undefined {
  const out: [string, number][] = [];
  const taken = analyzer.interning?.(text, dictionary, {
    add: (id, position) => out.push([dictionary.terms[id]!, position]),
  });
  return taken ? out : undefined;
}

function tokens(analyzer: Analyzer, text: string): [string, number][] {
  return analyzer(text).map((t) => [t.text, t.position]);
}

const EDGES = [
  "can't U.S.A 3.14 foo_bar ___ _a a_ __1 x:y 1:2 1,2 a,b a;b 1;2 a.b. 'quoted' it's IT'S John's x'S",
  `${'A'.repeat(300)} b ${'c'.repeat(255)} d ${'e'.repeat(256)}_ f`,
  "Hello, WORLD! The quick brown fox's jumps; 12.5.6 a..b a''b ab'_cd 1_a a_1 _ __ 9:a a:9 1.a a.1",
  'MiXeD CaSe running runs ran Runner\'s generalizations CONNECTED "quoted" (paren) [x] {y}',
  '',
  '   \t\n ',
  'a',
  "x' 'x x'' ''x .x x. ,1 1, 1,,2 1.,2 a:.b",
];

/** Random ASCII text over the characters the standard tokenizer's rules name. */
function randomText(next: () => number): string {
  const pieces = [
    'a',
    'B',
    'z',
    'Q',
    '1',
    '9',
    '_',
    '.',
    "'",
    ':',
    ',',
    ';',
    ' ',
    ' ',
    '-',
    '!',
    's',
    'S',
    'the',
    'IS',
  ];
  let out = '';
  const length = Math.floor(next() * 40);
  for (let i = 0; i < length; i++) out += pieces[Math.floor(next() * pieces.length)]!;
  return out;
}

describe('the ASCII path of the standard and english analyzers', () => {
  const analyzers: [string, Analyzer][] = [
    ['standard', analyzerNamed('standard')],
    ['english', analyzerNamed('english')],
    ['standard, own stop words', analyzerNamed('standard', new Set(['hello', 'quick', 'a']))],
    ['english, no stop words', analyzerNamed('english', new Set())],
  ];

  it('gives the tokens of the analyzer itself, term for term and position for position', () => {
    const next = seededRandom(32);
    const texts = [...EDGES];
    for (let i = 0; i < 3000; i++) texts.push(randomText(next));
    for (const [name, analyzer] of analyzers) {
      // A small limit: the dictionary starts again many times over the texts.
      const dictionary = new TermDictionary();
      for (const text of texts) {
        assert.deepEqual(
          interned(analyzer, text, dictionary),
          tokens(analyzer, text),
          `${name}: ${JSON.stringify(text)}`,
        );
        dictionary.trimmed(64);
      }
    }
  });

  it('declines a text that is not ASCII (the analyzer then makes its tokens)', () => {
    const dictionary = new TermDictionary();
    for (const [, analyzer] of analyzers) {
      assert.equal(interned(analyzer, 'naïve café', dictionary), undefined);
      assert.equal(interned(analyzer, '中国人', dictionary), undefined);
      assert.equal(interned(analyzer, 'a \u{1f600} b', dictionary), undefined);
    }
  });

  it('is not on analyzers whose terms are not a function of the lowercased standard words', () => {
    for (const name of ['simple', 'whitespace', 'keyword', 'classic', 'email', 'cjk', 'french']) {
      assert.equal(analyzerNamed(name).interning, undefined, name);
    }
  });
});

describe('a term dictionary', () => {
  it('gives one id per term, from a lowered ASCII range or the term itself, across rehashes', () => {
    const dictionary = new TermDictionary();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    const ids = words.map((word) => dictionary.idOf(word));
    assert.equal(new Set(ids).size, words.length);
    for (let i = 0; i < words.length; i++) {
      const text = ` ${words[i]!.toUpperCase()} `;
      assert.equal(dictionary.idOfLoweredAscii(text, 1, text.length - 1), ids[i]);
      assert.equal(dictionary.terms[ids[i]!], words[i]);
    }
    dictionary.trimmed(10);
    assert.equal(dictionary.terms.length, 0);
    assert.equal(dictionary.generation, 1);
    assert.equal(dictionary.idOf('again'), 0);
  });
});

describe("a field's terms", () => {
  it('say whether they hold a term, few or many, and again after a reset', () => {
    const field = new FieldTerms();
    for (let round = 0; round < 2; round++) {
      field.reset();
      for (let id = 0; id < 100; id += 2) {
        assert.equal(field.has(id), false);
        field.add(id, id);
        assert.equal(field.has(id), true);
        assert.equal(field.has(id + 1), false);
      }
      assert.equal(field.count, 50);
      assert.equal(field.next, 99);
    }
  });
});

describe('a term dictionary of long terms', () => {
  it('starts again past its characters, however few its terms', () => {
    const dictionary = new TermDictionary();
    dictionary.idOf('x'.repeat(3_000_000));
    dictionary.trimmed();
    assert.equal(dictionary.terms.length, 1);
    dictionary.idOf('y'.repeat(3_000_000));
    dictionary.trimmed();
    assert.equal(dictionary.terms.length, 0);
  });
});

describe('grouped row postings', () => {
  it('are the same row as encodeFieldPostings makes, and their length is counted without reading them', () => {
    const next = seededRandom(7);
    const dictionary = new TermDictionary();
    const grouper = new TermGrouper();
    for (let round = 0; round < 500; round++) {
      const field = new FieldTerms();
      const byTerm = new Map<string, number[]>();
      const count = Math.floor(next() * 400);
      let position = Math.floor(next() * 3);
      for (let i = 0; i < count; i++) {
        // Some terms repeat, some have a space or are empty (the row keeps an array then), positions jump.
        const term = next() < 0.02 ? (next() < 0.5 ? '' : 'a b') : `t${Math.floor(next() * next() * 300)}`;
        field.add(dictionary.idOf(term), position);
        const list = byTerm.get(term);
        if (list === undefined) byTerm.set(term, [position]);
        else list.push(position);
        position += 1 + (next() < 0.1 ? Math.floor(next() * 5000) : 0);
      }
      const grouped = grouper.group(field, dictionary);
      const row = encodeGroupedPostings(42, grouped.terms, grouped.count, grouped.frequencies, grouped.positions);
      assert.deepEqual(row, encodeFieldPostings(42, byTerm));
      assert.equal(postingsLength(row[1] as string | string[], row[2] as string), count);
      const largest = [...byTerm.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).at(-1);
      assert.equal(grouped.largest, largest);
    }
  });
});

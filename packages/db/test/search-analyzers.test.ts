/**
 * The analyzers of `_search` against the tokens Lucene 4's analyzers give for the same texts
 * (the outputs Lucene's own tests and docs record), and Porter's stemmer against the examples
 * of Porter's paper.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'node:test';
import { analyzerNamed, fieldAnalyzers } from '../src/search/analyzers.js';
import { porterStem } from '../src/search/porter-stemmer.js';

const terms = (name: string, text: string) => analyzerNamed(name)(text).map((t) => t.text);

describe('search analyzers', () => {
  test("lowercasing is Lucene's, one code point at a time: a final Σ is σ, İ is i", () => {
    assert.deepEqual(terms('standard', 'ΟΔΟΣ ΣΟΦΙΑ İstanbul ǅabłko STRASSE'), [
      'οδοσ',
      'σοφια',
      'istanbul',
      'ǆabłko',
      'strasse',
    ]);
    assert.deepEqual(terms('simple', 'ΟΔΟΣ İ'), ['οδοσ', 'i']);
    assert.deepEqual(terms('danish', 'ΟΔΟΣ'), ['οδοσ']);
  });

  test('standard: UAX#29 words, lowercased, English stop words out (positions keep the gap)', () => {
    assert.deepEqual(terms('standard', 'The Quick Brown-Fox jumped over the lazy dogs.'), [
      'quick',
      'brown',
      'fox',
      'jumped',
      'over',
      'lazy',
      'dogs',
    ]);
    assert.deepEqual(terms('standard', "can't won't O'Reilly's"), ["can't", "won't", "o'reilly's"]);
    assert.deepEqual(terms('standard', 'U.S.A. 3.14 1,000 foo_bar wi-fi'), [
      'u.s.a',
      '3.14',
      '1,000',
      'foo_bar',
      'wi',
      'fi',
    ]);
    assert.deepEqual(terms('standard', 'abc123 123abc'), ['abc123', '123abc']);
    assert.deepEqual(terms('standard', '東京都 カタカナ'), ['東', '京', '都', 'カタカナ']);
    assert.deepEqual(terms('standard', 'john@example.com http://x.org'), ['john', 'example.com', 'http', 'x.org']);
    const tokens = analyzerNamed('standard')('quick and the dead');
    assert.deepEqual(
      tokens.map((t) => [t.text, t.position]),
      [
        ['quick', 0],
        ['dead', 3],
      ],
    );
  });

  test('simple, whitespace, keyword', () => {
    assert.deepEqual(terms('simple', "The quick-brown fox's 42 X1"), ['the', 'quick', 'brown', 'fox', 's', 'x']);
    assert.deepEqual(terms('whitespace', ' The  quick-brown\tFox '), ['The', 'quick-brown', 'Fox']);
    assert.deepEqual(terms('keyword', 'The Quick Brown'), ['The Quick Brown']);
  });

  test('email: addresses and URLs whole, the rest as standard', () => {
    assert.deepEqual(terms('email', 'Mail John.Smith@Example.com or see https://couchdb.apache.org/docs now'), [
      'mail',
      'john.smith@example.com',
      'see',
      'https://couchdb.apache.org/docs',
      'now',
    ]);
  });

  test('classic: acronyms lose their dots, possessives their s, companies and hosts stay whole', () => {
    assert.deepEqual(terms('classic', "I.B.M. AT&T O'Neil's www.apache.org jdoe@mail.com 10-25"), [
      'ibm',
      'at&t',
      "o'neil",
      'www.apache.org',
      'jdoe@mail.com',
      '10-25',
    ]);
  });

  test('english: possessives, stop words, Porter stems', () => {
    assert.deepEqual(terms('english', "The dog's running quickly through the generalizations"), [
      'dog',
      'run',
      'quickli',
      'through',
      'gener',
    ]);
  });

  test('cjk: runs of Han, Kana and Hangul as bigrams, width folded, the rest as standard', () => {
    assert.deepEqual(terms('cjk', '我是中国人'), ['我是', '是中', '中国', '国人']);
    assert.deepEqual(terms('cjk', 'カタカナ and 한국어'), ['カタ', 'タカ', 'カナ', '한국', '국어']);
    assert.deepEqual(terms('cjk', '東 Ｔｏｋｙｏ 京'), ['東', 'tokyo', '京']);
    assert.deepEqual(terms('cjk', 'ｶﾀｶﾅ'), ['カタ', 'タカ', 'カナ']);
  });

  test('Porter: the examples of the paper', () => {
    const cases: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      ties: 'ti',
      caress: 'caress',
      cats: 'cat',
      feed: 'feed',
      agreed: 'agre',
      plastered: 'plaster',
      bled: 'bled',
      motoring: 'motor',
      sing: 'sing',
      conflated: 'conflat',
      troubled: 'troubl',
      sized: 'size',
      hopping: 'hop',
      tanned: 'tan',
      falling: 'fall',
      hissing: 'hiss',
      fizzed: 'fizz',
      failing: 'fail',
      filing: 'file',
      happy: 'happi',
      sky: 'sky',
      relational: 'relat',
      conditional: 'condit',
      rational: 'ration',
      valenci: 'valenc',
      hesitanci: 'hesit',
      digitizer: 'digit',
      conformabli: 'conform',
      radicalli: 'radic',
      differentli: 'differ',
      vileli: 'vile',
      analogousli: 'analog',
      vietnamization: 'vietnam',
      predication: 'predic',
      operator: 'oper',
      feudalism: 'feudal',
      decisiveness: 'decis',
      hopefulness: 'hope',
      callousness: 'callous',
      formaliti: 'formal',
      sensitiviti: 'sensit',
      sensibiliti: 'sensibl',
      triplicate: 'triplic',
      formative: 'form',
      formalize: 'formal',
      electriciti: 'electr',
      electrical: 'electr',
      hopeful: 'hope',
      goodness: 'good',
      revival: 'reviv',
      allowance: 'allow',
      inference: 'infer',
      airliner: 'airlin',
      gyroscopic: 'gyroscop',
      adjustable: 'adjust',
      defensible: 'defens',
      irritant: 'irrit',
      replacement: 'replac',
      adjustment: 'adjust',
      dependent: 'depend',
      adoption: 'adopt',
      homologou: 'homolog',
      communism: 'commun',
      activate: 'activ',
      angulariti: 'angular',
      homologous: 'homolog',
      effective: 'effect',
      bowdlerize: 'bowdler',
      probate: 'probat',
      rate: 'rate',
      cease: 'ceas',
      controll: 'control',
      roll: 'roll',
      generalizations: 'gener',
      oscillators: 'oscil',
      is: 'is',
    };
    for (const [word, stem] of Object.entries(cases)) assert.equal(porterStem(word), stem, word);
  });

  test('perfield and custom stop words', () => {
    const fields = fieldAnalyzers({ name: 'perfield', default: 'english', fields: { tag: 'keyword' } });
    assert.deepEqual(
      fields
        .forField('tag')('Big Cats')
        .map((t) => t.text),
      ['Big Cats'],
    );
    assert.deepEqual(
      fields
        .forField('body')('Big Cats')
        .map((t) => t.text),
      ['big', 'cat'],
    );
    const custom = fieldAnalyzers({ name: 'standard', stopwords: ['big'] });
    assert.deepEqual(
      custom
        .forField('x')('the big cat')
        .map((t) => t.text),
      ['the', 'cat'],
    );
  });

  test('an unknown analyzer is a 400 naming it', () => {
    assert.throws(
      () => analyzerNamed('klingon'),
      (e: { status: number; reason: string }) => e.status === 400 && e.reason.includes('klingon'),
    );
  });

  test('property: every analyzer takes any text; positions strictly increase; no empty term but keyword', () => {
    for (const name of ['standard', 'simple', 'whitespace', 'email', 'classic', 'english', 'cjk']) {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
          const tokens = analyzerNamed(name)(text);
          for (let i = 0; i < tokens.length; i++) {
            assert.ok(tokens[i]!.text.length > 0);
            if (i > 0) assert.ok(tokens[i]!.position > tokens[i - 1]!.position);
          }
        }),
        { numRuns: 100 },
      );
    }
  });
});

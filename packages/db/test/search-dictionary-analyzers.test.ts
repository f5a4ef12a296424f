import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fieldAnalyzers } from '../src/search/analyzers.js';

/**
 * The analyzers that need Lucene's dictionaries, against what Lucene itself made of the same
 * texts: test/fixtures/lucene-<language>.json, recorded by scripts/lucene/record.sh
 * (a real Lucene 8 run once; these tests need no Java). Each case is a text and its terms as
 * `term@position`.
 */
interface Recording {
  lucene: string;
  analyzer: string;
  cases: [string, string[]][];
}

const recording = (language: string): Recording =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/lucene-${language}.json`, import.meta.url), 'utf8'));

const placed = (analyzer: unknown, text: string) =>
  fieldAnalyzers(analyzer)
    .forField('f')(text)
    .map((t) => `${t.text}@${t.position}`);

function matchesLucene(language: string, minimumTokens: number) {
  const { cases, analyzer } = recording(language);
  assert.equal(analyzer, language);
  let tokens = 0;
  for (const [text, expected] of cases) {
    assert.deepEqual(placed(language, text), expected, text);
    tokens += expected.length;
  }
  assert.ok(tokens >= minimumTokens, `${tokens} recorded tokens`);
}

describe('analyzers on Lucene dictionaries, against recorded Lucene output', () => {
  it("polish: Lucene's PolishAnalyzer (Stempel's table), token for token", () => {
    matchesLucene('polish', 400);
  });

  it('polish: own stop words replace the list; the stemmer still runs', () => {
    assert.deepEqual(placed({ name: 'polish', stopwords: ['kobiety'] }, 'kobiety i kobietami'), ['i@1', 'kobieta@2']);
  });

  it("chinese: Lucene's SmartChineseAnalyzer (SmartCN's HMM segmenter and dictionaries), token for token", () => {
    matchesLucene('chinese', 500);
  });

  it("japanese: Lucene's JapaneseAnalyzer (Kuromoji's search mode over IPADIC), token for token", () => {
    matchesLucene('japanese', 6500);
  });

  it('japanese: any UTF-16 text, lone surrogates and controls included, gives terms in position order', () => {
    let seed = 32;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const analyze = fieldAnalyzers('japanese').forField('f');
    for (let n = 0; n < 200; n++) {
      let text = '';
      for (let length = Math.floor(random() * 300); text.length < length; ) {
        text += String.fromCharCode(
          random() < 0.5 ? 0x3000 + Math.floor(random() * 0x7000) : Math.floor(random() * 65536),
        );
      }
      let last = -1;
      for (const token of analyze(text)) {
        assert.ok(token.text.length > 0 && token.position >= last && token.position <= text.length, text);
        last = token.position;
      }
    }
  });

  it("japanese: a compound sits at its first part's position; own stop words replace the list, stop tags stay", () => {
    assert.deepEqual(placed('japanese', '関西国際空港'), ['関西@0', '関西国際空港@0', '国際@1', '空港@2']);
    assert.deepEqual(placed({ name: 'japanese', stopwords: ['学生'] }, '多くの学生が試験に落ちた。'), [
      '多く@0',
      '試験@4',
      '落ちる@6',
    ]);
  });
});

/**
 * A term query's score of one posting, under either similarity, as data: the loop over every
 * posting of a term (./query-eval.ts `termScores`) takes it as its one parameter for scoring,
 * written once for TF-IDF and BM25.
 *
 * Why data and not a function `(freq, byte) => score`: with a closure, the loop's call of it saw
 * both similarities' closures once both had run, and V8 stopped inlining it. Measured (100k
 * documents of ~1 KB English text, 200 term queries, interleaved A/B of CPU time, load ~19–22):
 * a closure made every BM25 posting scored 3.9× slower than a loop per similarity; this form
 * costs nothing (0.47× and 0.82× the two loops' median time, within this machine's noise).
 * The block-max loops of ./query-top.ts stay two: there even this form cost (their comment).
 */
import { bm25Score } from './bm25.js';

export interface TermScoring {
  /** Lucene 9's BM25 (`_nouveau`): `bm25Score(factor, freq, table[byte])`; else Lucene 4's TF-IDF: `sqrt(freq) · factor · table[byte]`. */
  bm25: boolean;
  /** TF-IDF's value of the term (idf² · boost · query norm); BM25's weight (boost · idf). */
  factor: number;
  /** Per norm byte: TF-IDF's norm value; BM25's length-norm cache. */
  table: Float64Array;
}

/**
 * The score of a posting of frequency `freq` in a document of norm byte `byte`: never falls as
 * the frequency grows or the byte gets better (a higher TF-IDF norm byte, a lower BM25 length
 * byte), so a block's best pair bounds its scores (./postings.ts `impacts`).
 */
export function postingScore(scoring: TermScoring, freq: number, byte: number): number {
  return scoring.bm25
    ? bm25Score(scoring.factor, freq, scoring.table[byte]!)
    : Math.sqrt(freq) * scoring.factor * scoring.table[byte]!;
}

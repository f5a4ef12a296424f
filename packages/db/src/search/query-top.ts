/**
 * The page of a query by relevance and its total, without scoring every hit when it can: a term
 * query reads its postings by blocks (./postings.ts `impacts`), and a block whose best possible
 * score cannot enter the page (block-max, as Lucene's impacts do) is counted but not scored.
 * Scores, order and total are the ones scoring every hit gives (./query-eval.ts): a block's bound
 * is the query's own score of one of its postings, so a skipped block holds no hit of the page.
 * A term of a BM25 index (./query-bm25.ts) the same, with its own bound. A phrase's matches go
 * to the page as they are found. Other queries are scored whole and offered to the page one by
 * one.
 */
import { BLOCK } from './postings.js';
import type { RunQuery } from './query-build.js';
import { bm25Score } from './bm25.js';
import { bm25PhraseScorer, bm25TermWeight, scoreBm25 } from './query-bm25.js';
import {
  type IndexReader,
  NORM_VALUES,
  phraseMatches,
  phraseValue,
  type Scored,
  scoreQuery,
  termValue,
} from './query-eval.js';
import { normValue } from './search-rows.js';
import type { TopHits } from './top-hits.js';

/** Every hit of the query scored, by the index's similarity. */
export function scoreHits(reader: IndexReader, query: RunQuery): Scored {
  return reader.similarity === 'bm25' ? scoreBm25(reader, query) : scoreQuery(reader, query);
}

/** Offers the query's hits to `top` (the skippable ones not at all); the number of hits. */
export function topOfQuery(reader: IndexReader, query: RunQuery, top: TopHits): number {
  if (query.type === 'term') {
    return reader.similarity === 'bm25' ? topOfTermBm25(reader, query, top) : topOfTerm(reader, query, top);
  }
  if (query.type === 'phrase') return topOfPhrase(reader, query, top);
  const { docs, scores, length } = scoreHits(reader, query);
  for (let i = 0; i < length; i++) top.offer(docs[i]!, scores[i]!);
  return length;
}

/**
 * A term over a TF-IDF index by blocks. This loop and topOfTermBm25's are the same but for their
 * scoring expression, and are kept two on purpose: one loop taking the scoring as a parameter
 * (a closure, or ./term-scoring.ts's data form that the all-postings loop of ./query-eval.ts
 * uses at no cost) was slower here. Measured on 100k documents of ~1 KB English text, 200 term
 * queries of a page of 25, interleaved A/B of CPU time (31 pairs, load ~22): with a closure
 * 1.27× (TF-IDF) and 8.4× (BM25) the two loops' time; with the data form 1.17× and 1.85×.
 */
function topOfTerm(reader: IndexReader, q: Extract<RunQuery, { type: 'term' }>, top: TopHits): number {
  const index = reader.index;
  const postings = index.term(q.field, q.term);
  if (postings === undefined) return 0;
  const total = postings.live(index);
  const value = termValue(reader, q);
  const norms = index.norms(q.field);
  const impacts = postings.impacts(norms);
  const alive = index.liveness;
  const { docs, ends } = postings;
  let pair = 0;
  for (let block = 0, from = 0; from < docs.length; block++, from += BLOCK) {
    const to = Math.min(from + BLOCK, docs.length);
    // The block's best score: the same expression as each posting's below.
    const pairsEnd = impacts.ends[block]!;
    let bound = 0;
    for (; pair < pairsEnd; pair++) {
      const score = Math.sqrt(impacts.freqs[pair]!) * value * NORM_VALUES[impacts.bytes[pair]!]!;
      if (score > bound) bound = score;
    }
    if (!top.reaches(bound, docs[from]!, docs[to - 1]!)) continue;
    let start = from === 0 ? 0 : ends[from - 1]!;
    for (let i = from; i < to; i++) {
      const doc = docs[i]!;
      const end = ends[i]!;
      if (alive[doc] === 1) top.offer(doc, Math.sqrt(end - start) * value * NORM_VALUES[norms[doc]!]!);
      start = end;
    }
  }
  return total;
}

/**
 * A phrase's hits are offered as they are found (every match is counted for the total: no
 * array of every hit's score, which was a tenth of a phrase query over 100,000 documents).
 */
function topOfPhrase(reader: IndexReader, q: Extract<RunQuery, { type: 'phrase' }>, top: TopHits): number {
  const index = reader.index;
  let total = 0;
  if (reader.similarity === 'bm25') {
    const scoreOf = bm25PhraseScorer(reader, q, Math.fround(q.boost));
    phraseMatches(index, q, (doc, freq) => {
      total++;
      top.offer(doc, scoreOf(doc, freq));
    });
    return total;
  }
  const value = phraseValue(reader, q);
  const norms = index.norms(q.field);
  phraseMatches(index, q, (doc, freq) => {
    total++;
    top.offer(doc, Math.sqrt(freq) * value * normValue(norms[doc]!));
  });
  return total;
}

/**
 * The same over a BM25 index: a posting scores `bm25Score(weight, freq, cache[length byte])`,
 * which never falls as the frequency grows or the length byte falls (every step of it, float
 * rounding included, is monotonic), so a block's bound is its score of one of the block's
 * (frequency, shortest length) pairs.
 */
function topOfTermBm25(reader: IndexReader, q: Extract<RunQuery, { type: 'term' }>, top: TopHits): number {
  const index = reader.index;
  const postings = index.term(q.field, q.term);
  if (postings === undefined) return 0;
  const total = postings.live(index);
  const { weight, cache } = bm25TermWeight(reader, q.field, Math.fround(q.boost), total);
  const lengths = index.lengthBytes(q.field);
  const impacts = postings.impacts(lengths, true);
  const alive = index.liveness;
  const { docs, ends } = postings;
  let pair = 0;
  for (let block = 0, from = 0; from < docs.length; block++, from += BLOCK) {
    const to = Math.min(from + BLOCK, docs.length);
    const pairsEnd = impacts.ends[block]!;
    let bound = 0;
    for (; pair < pairsEnd; pair++) {
      const score = bm25Score(weight, impacts.freqs[pair]!, cache[impacts.bytes[pair]!]!);
      if (score > bound) bound = score;
    }
    if (!top.reaches(bound, docs[from]!, docs[to - 1]!)) continue;
    let start = from === 0 ? 0 : ends[from - 1]!;
    for (let i = from; i < to; i++) {
      const doc = docs[i]!;
      const end = ends[i]!;
      if (alive[doc] === 1) top.offer(doc, bm25Score(weight, end - start, cache[lengths[doc]!]!));
      start = end;
    }
  }
  return total;
}

/**
 * A query scored as Lucene 9 scores it for Nouveau (BM25Similarity: ./bm25.ts), over the same
 * postings and matching as ./query-eval.ts (Lucene 4's TF-IDF for `_search`). What differs:
 * no query norm and no coord; a term scores `weight - weight / (1 + freq · cache[norm])`
 * with `weight = boosts · idf`; a phrase the same with its terms' idfs summed and its match
 * frequency; boolean queries sum their matching clauses (in doubles, then a float, as Lucene's
 * scorers do); prefix, wildcard, range and match-all queries score their boost (constant-score
 * rewrites); a fuzzy query is its nearest 50 terms, each boosted by its similarity and scored
 * with the highest document frequency among them (TopTermsBlendedFreqScoringRewrite). Boosts
 * multiply down the query tree as floats, as BoostQuery's createWeight does.
 */
import { inPartition } from '../documents/partition.js';
import { bm25Idf, bm25Score, normCache } from './bm25.js';
import type { RunQuery } from './query-build.js';
import {
  combine,
  constantScoreDocs,
  fuzzyExpansion,
  type IndexReader,
  phraseMatches,
  type Scored,
  scoredOf,
  termScores,
} from './query-eval.js';

const f = Math.fround;

/** The query's hits and their BM25 scores, documents ascending. */
export function scoreBm25(reader: IndexReader, query: RunQuery): Scored {
  return score(reader, query, 1);
}

function score(reader: IndexReader, q: RunQuery, outer: number): Scored {
  const index = reader.index;
  const boost = f(q.boost * outer);
  switch (q.type) {
    case 'term':
      return scoreTerm(reader, q.field, q.term, boost, index.docFreq(q.field, q.term));
    case 'phrase': {
      const scoreOf = bm25PhraseScorer(reader, q, boost);
      const first = index.term(q.field, q.terms[0]!.term);
      const out = scoredOf(first?.docs.length ?? 0);
      phraseMatches(index, q, (doc, freq) => {
        out.docs[out.length] = doc;
        out.scores[out.length++] = scoreOf(doc, freq);
      });
      return out;
    }
    case 'prefix':
    case 'wildcard':
    case 'termRange':
    case 'numberRange':
    case 'all': {
      const docs = constantScoreDocs(reader, q);
      return { docs, scores: new Float64Array(docs.length).fill(boost), length: docs.length };
    }
    case 'fuzzy': {
      const expanded = fuzzyExpansion(reader, q);
      if (expanded.type !== 'bool') return score(reader, expanded, outer);
      let docFreq = 0;
      for (const c of expanded.clauses) {
        const t = c.query as Extract<RunQuery, { type: 'term' }>;
        docFreq = Math.max(docFreq, index.docFreq(t.field, t.term));
      }
      return sumOf(
        reader,
        expanded.clauses.map((c) => {
          const t = c.query as Extract<RunQuery, { type: 'term' }>;
          return { occur: 'should', hits: scoreTerm(reader, t.field, t.term, f(f(t.boost) * boost), docFreq) };
        }),
      );
    }
    case 'bool':
      return sumOf(
        reader,
        q.clauses.map((c) => ({ occur: c.occur, hits: score(reader, c.query, boost) })),
      );
  }
}

/** A boolean query's hits: its matching clauses' scores summed, as a float. */
function sumOf(reader: IndexReader, clauses: { occur: string; hits: Scored }[]): Scored {
  const out = combine(reader.index, clauses, false);
  for (let i = 0; i < out.length; i++) out.scores[i] = f(out.scores[i]!);
  return out;
}

function scoreTerm(reader: IndexReader, field: string, term: string, boost: number, docFreq: number): Scored {
  const index = reader.index;
  const postings = index.term(field, term);
  if (postings === undefined) return scoredOf(0);
  const { weight, cache } = bm25TermWeight(reader, field, boost, docFreq);
  return termScores(index, postings, index.lengthBytes(field), { bm25: true, factor: weight, table: cache });
}

/** A phrase's BM25 score of a document where it occurs `freq` times (its terms' idfs summed). */
export function bm25PhraseScorer(
  reader: IndexReader,
  q: Extract<RunQuery, { type: 'phrase' }>,
  boost: number,
): (doc: number, freq: number) => number {
  const index = reader.index;
  const stats = index.fieldStats(q.field);
  let idf = 0;
  for (const t of q.terms) idf += bm25Idf(index.docFreq(q.field, t.term), stats.docCount);
  const weight = f(boost * f(idf));
  const cache = normCache(stats.sumTotalTermFreq, stats.docCount);
  const lengths = index.lengthBytes(q.field);
  return (doc, freq) => bm25Score(weight, f(freq), cache[lengths[doc]!]!);
}

/** A term's BM25 weight (its boost times its idf) and the field's length-norm cache. */
export function bm25TermWeight(
  reader: IndexReader,
  field: string,
  boost: number,
  docFreq: number,
): { weight: number; cache: Float64Array } {
  const stats = reader.index.fieldStats(field);
  return {
    weight: f(boost * bm25Idf(docFreq, stats.docCount)),
    cache: normCache(stats.sumTotalTermFreq, stats.docCount),
  };
}

/**
 * A partition's query in a Nouveau index: Nouveau adds a required `_partition:{p}` term to the
 * query, whose BM25 score every hit carries (a one-term field without norms, in every document).
 * The hits kept are the partition's, each score that term's plus the query's. (CouchDB's shards
 * each score with their own statistics; here the index is one shard.)
 */
export function inPartitionBm25(reader: IndexReader, scored: Scored, partition: string, partitioned: boolean): void {
  // Only a partitioned database's documents have a `_partition` term: elsewhere nothing matches.
  if (!partitioned) {
    scored.length = 0;
    return;
  }
  const index = reader.index;
  const all = index.allDocs();
  let inside = 0;
  for (const doc of all) if (inPartition(index.idOf(doc), partition)) inside++;
  // docCount = sumTotalTermFreq = every document (one term each), length 1.
  const weight = bm25Idf(inside, all.length);
  const partitionScore = bm25Score(weight, 1, normCache(all.length, all.length)[1]!);
  let kept = 0;
  for (let i = 0; i < scored.length; i++) {
    const doc = scored.docs[i]!;
    if (!inPartition(index.idOf(doc), partition)) continue;
    scored.docs[kept] = doc;
    scored.scores[kept++] = f(partitionScore + scored.scores[i]!);
  }
  scored.length = kept;
}

/**
 * A query run over a search index's postings (in memory: ./postings.ts; numeric ranges over the
 * numbers tree), scored as Lucene 4's DefaultSimilarity scores
 * (Clouseau's): for a term, `sqrt(freq) · idf² · boost · queryNorm · norm(field in doc)` with
 * `idf = 1 + ln(maxDoc / (docFreq + 1))` and `queryNorm = 1 / sqrt(sum of squared weights)`;
 * a phrase the same with its terms' idfs summed and its match frequency (`1 / (distance + 1)`
 * per sloppy match); boolean queries sum their matching clauses times `coord` (matching /
 * scoring clauses); prefix, wildcard and range queries score a constant `boost · queryNorm`,
 * as Lucene's constant-score rewrite does; a fuzzy query is its nearest 50 terms, each boosted
 * by its similarity. Every clause's hits are its documents' numbers in ascending order with
 * their scores (`Scored`): boolean queries merge them in one pass, without a map of ids.
 */
import type { RowTree } from '../views/index/row-tree.js';
import { compareUtf8 } from '../collation/index.js';
import type { Postings, TermPostings } from './postings.js';
import type { RunQuery } from './query-build.js';
import { SearchDocsTree } from './search-docs-tree.js';
import { DOCS, NUMBERS } from './search-design.js';
import { compareTerms } from './search-mapper.js';
import { boundedRange, normValue } from './search-rows.js';
import { postingScore, type TermScoring } from './term-scoring.js';

/** Doc id → score. */
export type Hits = Map<string, number>;

/**
 * Matching documents (their numbers in ./postings.ts, ascending) and their scores: the first
 * `length` entries of two typed arrays (one allocation each per clause, sized beforehand).
 */
export interface Scored {
  docs: Int32Array;
  scores: Float64Array;
  length: number;
}

/** Room for `capacity` hits. */
export function scoredOf(capacity: number): Scored {
  return { docs: new Int32Array(capacity), scores: new Float64Array(capacity), length: 0 };
}

function add(out: Scored, doc: number, score: number): void {
  out.docs[out.length] = doc;
  out.scores[out.length++] = score;
}

/** What each norm byte is worth, as normValue says, in a typed array for the scoring loops. */
export const NORM_VALUES = Float64Array.from({ length: 256 }, (_, byte) => normValue(byte));

/**
 * Every live posting of a term scored by `scoring` (./term-scoring.ts) of its frequency and its
 * document's norm byte in `bytes` (TF-IDF's norms here, BM25's length bytes in ./query-bm25.ts). The one
 * loop every posting of a term goes through: locals and typed arrays only.
 */
export function termScores(index: Postings, postings: TermPostings, bytes: Uint8Array, scoring: TermScoring): Scored {
  const alive = index.liveness;
  const { docs, ends } = postings;
  const out = scoredOf(docs.length);
  const outDocs = out.docs;
  const outScores = out.scores;
  let found = 0;
  let start = 0;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    const end = ends[i]!;
    if (alive[doc] === 1) {
      outDocs[found] = doc;
      outScores[found++] = postingScore(scoring, end - start, bytes[doc]!);
    }
    start = end;
  }
  out.length = found;
  return out;
}

/** Lucene's FuzzyQuery.defaultMaxExpansions. */
const MAX_EXPANSIONS = 50;

export class IndexReader {
  readonly maxDoc: number;
  /** The index's postings (./postings.ts), as of now. */
  readonly index: Postings;

  private constructor(
    private readonly trees: readonly RowTree[],
    index: Postings,
    maxDoc: number,
    /** How its hits are scored: Lucene 4's TF-IDF (here), or Lucene 9's BM25 (./query-bm25.ts). */
    readonly similarity: 'classic' | 'bm25',
  ) {
    this.index = index;
    this.maxDoc = maxDoc;
  }

  /** The reader of a search index's trees, once its postings are in memory. */
  static async open(trees: readonly RowTree[], similarity: 'classic' | 'bm25' = 'classic'): Promise<IndexReader> {
    const docs = trees[DOCS];
    if (!(docs instanceof SearchDocsTree)) throw new TypeError('IndexReader: not the trees of a search index');
    const index = await docs.postings();
    return new IndexReader(trees, index, docs.total(), similarity);
  }

  docFreq(field: string, term: string): number {
    return this.index.docFreq(field, term);
  }

  idf(field: string, term: string): number {
    return 1 + Math.log(this.maxDoc / (this.docFreq(field, term) + 1));
  }

  /** The terms of a field (with a live document) from a prefix on, in UTF-8 order. */
  terms(field: string, prefix: string): Generator<string> {
    return this.liveTerms(field, prefix, true, (term) => term.startsWith(prefix));
  }

  /** The terms of a field between two bounds (Lucene's TermRangeQuery). */
  termsBetween(
    field: string,
    lower: string | null,
    upper: string | null,
    includeLower: boolean,
    includeUpper: boolean,
  ): Generator<string> {
    return this.liveTerms(field, lower ?? '', lower === null || includeLower, (term) => {
      if (upper === null) return true;
      const c = compareUtf8(term, upper);
      return c < 0 || (c === 0 && includeUpper);
    });
  }

  /**
   * A field's terms with a live document, in UTF-8 order, from `from` on (`from` itself only
   * when `inclusive`), while `within` holds: the one walk of the term dictionary that prefix,
   * wildcard, fuzzy and range queries share.
   */
  private *liveTerms(
    field: string,
    from: string,
    inclusive: boolean,
    within: (term: string) => boolean,
  ): Generator<string> {
    const sorted = this.index.sortedTerms(field);
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = compareUtf8(sorted[mid]!, from);
      if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length; i++) {
      const term = sorted[i]!;
      if (!within(term)) return;
      if (this.index.docFreq(field, term) > 0) yield term;
    }
  }

  *numbers(
    field: string,
    lower: number | null,
    upper: number | null,
    includeLower: boolean,
    includeUpper: boolean,
  ): Generator<string> {
    for (const row of this.trees[NUMBERS]!.rows(boundedRange(field, lower, upper, includeLower, includeUpper), false)) {
      yield row.value[1];
    }
  }

  *allDocs(): Generator<string> {
    for (const doc of this.index.allDocs()) yield this.index.idOf(doc);
  }
}

/** The matching documents of a query with their scores. */
export function runQuery(reader: IndexReader, query: RunQuery): Hits {
  const { docs, scores, length } = scoreQuery(reader, query);
  const hits: Hits = new Map();
  for (let i = 0; i < length; i++) hits.set(reader.index.idOf(docs[i]!), scores[i]!);
  return hits;
}

/** runQuery by document numbers (ascending), without a map of ids. */
export function scoreQuery(reader: IndexReader, query: RunQuery): Scored {
  const weighted = weigh(reader, query);
  return weighted.score(queryNormOf(weighted.sumOfSquares));
}

/** Lucene's queryNorm: 1 / sqrt(sum of squared weights), 1 when that is no number. */
function queryNormOf(sum: number): number {
  return sum > 0 && Number.isFinite(sum) ? 1 / Math.sqrt(sum) : 1;
}

/**
 * A term query run alone: its score of a posting is `sqrt(freq) · value · NORM_VALUES[norm byte]`
 * (the term case of weigh, for the top-k scoring of ./query-top.ts).
 */
export function termValue(reader: IndexReader, q: Extract<RunQuery, { type: 'term' }>): number {
  const idf = reader.idf(q.field, q.term);
  return termFactor(idf, q.boost, queryNormOf((idf * q.boost) ** 2));
}

/**
 * A phrase query run alone: its score of a document is `sqrt(freq) · value · normValue(norm byte)`
 * (the phrase case of weigh, for the page by relevance of ./query-top.ts).
 */
export function phraseValue(reader: IndexReader, q: Extract<RunQuery, { type: 'phrase' }>): number {
  const idf = q.terms.reduce((sum, t) => sum + reader.idf(q.field, t.term), 0);
  return phraseFactor(idf, q.boost, queryNormOf((idf * q.boost) ** 2));
}

function phraseFactor(idf: number, boost: number, norm: number): number {
  return idf * boost * norm * idf;
}

function termFactor(idf: number, boost: number, norm: number): number {
  return idf * boost * norm * idf;
}

interface Weighted {
  /** Lucene's getValueForNormalization. */
  sumOfSquares: number;
  /** The hits, given the query norm times the boosts of the enclosing queries. */
  score(norm: number): Scored;
}

function weigh(reader: IndexReader, q: RunQuery): Weighted {
  const index = reader.index;
  switch (q.type) {
    case 'term': {
      const idf = reader.idf(q.field, q.term);
      return {
        sumOfSquares: (idf * q.boost) ** 2,
        score(norm) {
          const value = termFactor(idf, q.boost, norm);
          const postings = index.term(q.field, q.term);
          if (postings === undefined) return scoredOf(0);
          return termScores(index, postings, index.norms(q.field), { bm25: false, factor: value, table: NORM_VALUES });
        },
      };
    }
    case 'phrase': {
      const idf = q.terms.reduce((sum, t) => sum + reader.idf(q.field, t.term), 0);
      return {
        sumOfSquares: (idf * q.boost) ** 2,
        score(norm) {
          const value = phraseFactor(idf, q.boost, norm);
          const norms = index.norms(q.field);
          const first = index.term(q.field, q.terms[0]!.term);
          const out = scoredOf(first?.docs.length ?? 0);
          phraseMatches(index, q, (doc, freq) => add(out, doc, Math.sqrt(freq) * value * normValue(norms[doc]!)));
          return out;
        },
      };
    }
    case 'prefix':
    case 'wildcard':
    case 'termRange':
    case 'numberRange':
    case 'all':
      return {
        sumOfSquares: q.boost ** 2,
        score(norm) {
          const score = q.boost * norm;
          const docs = constantScoreDocs(reader, q);
          return { docs, scores: new Float64Array(docs.length).fill(score), length: docs.length };
        },
      };
    case 'fuzzy':
      return weigh(reader, fuzzyExpansion(reader, q));
    case 'bool': {
      const clauses = q.clauses.map((c) => ({ occur: c.occur, weighted: weigh(reader, c.query) }));
      let sum = 0;
      for (const c of clauses) if (c.occur !== 'must_not') sum += c.weighted.sumOfSquares;
      return {
        sumOfSquares: sum * q.boost ** 2,
        score(norm) {
          return combine(
            index,
            clauses.map((c) => ({ occur: c.occur, hits: c.weighted.score(norm * q.boost) })),
            q.coord,
          );
        },
      };
    }
  }
}

/** A clause's hits read in ascending document order. */
interface Cursor {
  hits: Scored;
  at: number;
}

/** The place of `doc` in a cursor's hits (moving forward to it), or -1 when it is not there. */
function seek(cursor: Cursor, doc: number): number {
  const { docs, length } = cursor.hits;
  let at = cursor.at;
  while (at < length && docs[at]! < doc) at++;
  cursor.at = at;
  return at < length && docs[at] === doc ? at : -1;
}

/**
 * A boolean query's hits: every required clause, at least one optional one when none is
 * required, no prohibited one; the clauses' hits are merged in document order.
 */
export function combine(index: Postings, clauses: { occur: string; hits: Scored }[], coord: boolean): Scored {
  const cursor = (c: { hits: Scored }): Cursor => ({ hits: c.hits, at: 0 });
  const required = clauses.filter((c) => c.occur === 'must').map(cursor);
  const optional = clauses.filter((c) => c.occur === 'should').map(cursor);
  const prohibited = clauses.filter((c) => c.occur === 'must_not').map(cursor);
  const maxCoord = required.length + optional.length;
  if (maxCoord === 0) return scoredOf(0);
  const candidates = required.length > 0 ? fewest(required) : union(index, optional);
  const out = scoredOf(candidates.length);
  next: for (const doc of candidates) {
    for (const c of prohibited) if (seek(c, doc) >= 0) continue next;
    let score = 0;
    let overlap = 0;
    for (const c of required) {
      const at = seek(c, doc);
      if (at < 0) continue next;
      score += c.hits.scores[at]!;
      overlap++;
    }
    for (const c of optional) {
      const at = seek(c, doc);
      if (at >= 0) {
        score += c.hits.scores[at]!;
        overlap++;
      }
    }
    add(out, doc, coord ? (score * overlap) / maxCoord : score);
  }
  return out;
}

function fewest(cursors: readonly Cursor[]): Int32Array {
  let best = cursors[0]!.hits;
  for (const c of cursors) if (c.hits.length < best.length) best = c.hits;
  return best.docs.subarray(0, best.length);
}

/** The documents of any of the cursors, ascending, each once. */
function union(index: Postings, cursors: readonly Cursor[]): Int32Array {
  if (cursors.length === 1) return fewest(cursors);
  const seen = new Uint8Array(index.size);
  for (const { hits } of cursors) for (let i = 0; i < hits.length; i++) seen[hits.docs[i]!] = 1;
  return ascending(seen);
}

/** The numbers marked in `seen`, ascending. */
function ascending(seen: Uint8Array): Int32Array {
  let count = 0;
  for (let doc = 0; doc < seen.length; doc++) count += seen[doc]!;
  const out = new Int32Array(count);
  let at = 0;
  for (let doc = 0; doc < seen.length; doc++) if (seen[doc] === 1) out[at++] = doc;
  return out;
}

/** The live documents of a constant-score query, ascending. */
export function constantScoreDocs(reader: IndexReader, q: RunQuery): Int32Array {
  const index = reader.index;
  const seen = new Uint8Array(index.size);
  const addTerm = (field: string, term: string) => {
    const postings = index.term(field, term);
    if (postings !== undefined) for (const doc of postings.docs) if (index.alive(doc)) seen[doc] = 1;
  };
  switch (q.type) {
    case 'all':
      return Int32Array.from(index.allDocs());
    case 'numberRange':
      for (const id of reader.numbers(q.field, q.lower, q.upper, q.includeLower, q.includeUpper)) {
        const doc = index.docOf(id);
        if (doc !== undefined) seen[doc] = 1;
      }
      break;
    case 'prefix':
      for (const term of reader.terms(q.field, q.prefix)) addTerm(q.field, term);
      break;
    case 'wildcard': {
      const { prefix, regex } = wildcardPattern(q.pattern);
      for (const term of reader.terms(q.field, prefix)) if (regex.test(term)) addTerm(q.field, term);
      break;
    }
    case 'termRange':
      for (const term of reader.termsBetween(q.field, q.lower, q.upper, q.includeLower, q.includeUpper)) {
        addTerm(q.field, term);
      }
      break;
    default:
      return new Int32Array(0);
  }
  return ascending(seen);
}

/** Lucene's wildcard: `*` any run, `?` one character, `\` escapes; the literal text before the first wildcard narrows the scan. */
export function wildcardPattern(pattern: string): { prefix: string; regex: RegExp } {
  let prefix = '';
  let source = '';
  let literal = true;
  for (let i = 0; i < pattern.length; i++) {
    let ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      ch = pattern[++i]!;
      if (literal) prefix += ch;
      source += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    if (ch === '*' || ch === '?') {
      literal = false;
      source += ch === '*' ? '[\\s\\S]*' : '[\\s\\S]';
      continue;
    }
    if (literal) prefix += ch;
    source += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return { prefix, regex: new RegExp(`^${source}$`, 'u') };
}

/** A fuzzy query as the optional terms it expands to (Lucene's top-terms rewrite, no coord). */
export function fuzzyExpansion(reader: IndexReader, q: Extract<RunQuery, { type: 'fuzzy' }>): RunQuery {
  const target = [...q.term];
  const found: { term: string; similarity: number }[] = [];
  for (const term of reader.terms(q.field, '')) {
    const chars = [...term];
    if (Math.abs(chars.length - target.length) > q.maxEdits) continue;
    const distance = editDistance(target, chars, q.maxEdits);
    if (distance > q.maxEdits) continue;
    const shorter = Math.min(chars.length, target.length);
    found.push({ term, similarity: shorter === 0 ? 0 : 1 - distance / shorter });
  }
  found.sort((a, b) => b.similarity - a.similarity || compareTerms(a.term, b.term));
  return {
    type: 'bool',
    boost: q.boost,
    coord: false,
    clauses: found.slice(0, MAX_EXPANSIONS).map((f) => ({
      occur: 'should' as const,
      query: { type: 'term' as const, field: q.field, term: f.term, boost: f.similarity },
    })),
  };
}

/** Damerau–Levenshtein distance (adjacent transpositions count one, as Lucene 4's FuzzyQuery), cut off above `max`. */
export function editDistance(a: readonly string[], b: readonly string[], max: number): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    let rowMin = Infinity;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
  }
  return d[a.length]![b.length]!;
}

/**
 * The documents where a phrase occurs, with its frequency: exact (slop 0) a count of the places
 * every term is where the phrase puts it; sloppy, `1 / (distance + 1)` per place, the distance
 * being how far the terms had to move (Lucene's sloppy frequency). The terms' postings are in
 * document order: they are intersected in one pass.
 */
export function phraseMatches(
  index: Postings,
  q: Extract<RunQuery, { type: 'phrase' }>,
  found: (doc: number, freq: number) => void,
): void {
  const lists: PhraseList[] = [];
  for (const t of q.terms) {
    const postings = index.term(q.field, t.term);
    if (postings === undefined || postings.live(index) === 0) return;
    lists.push({ offset: t.position, postings, at: 0, start: 0, end: 0 });
  }
  const first = lists[0]!;
  const { docs, ends } = first.postings;
  next: for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    if (!index.alive(doc)) continue;
    first.start = i === 0 ? 0 : ends[i - 1]!;
    first.end = ends[i]!;
    for (let k = 1; k < lists.length; k++) {
      const list = lists[k]!;
      const other = list.postings.docs;
      let at = list.at;
      while (at < other.length && other[at]! < doc) at++;
      list.at = at;
      if (other[at] !== doc) continue next;
      list.start = at === 0 ? 0 : list.postings.ends[at - 1]!;
      list.end = list.postings.ends[at]!;
    }
    const freq = phraseFreq(lists, q.slop);
    if (freq > 0) found(doc, freq);
  }
}

/** One term of a phrase: its postings, where the intersection is, that document's positions. */
interface PhraseList {
  offset: number;
  postings: TermPostings;
  at: number;
  start: number;
  end: number;
}

/** The phrase's frequency in one document, given each term's offset in the phrase and positions there. */
function phraseFreq(lists: readonly PhraseList[], slop: number): number {
  if (slop === 0) return exactPhraseFreq(lists);
  let freq = 0;
  const anchor = lists[0]!;
  const anchorPositions = anchor.postings.positions;
  for (let a = anchor.start; a < anchor.end; a++) {
    const base = anchorPositions[a]! - anchor.offset;
    let lo = base;
    let hi = base;
    for (let i = 1; i < lists.length; i++) {
      const list = lists[i]!;
      const positions = list.postings.positions;
      let best = positions[list.start]! - list.offset;
      for (let p = list.start; p < list.end; p++) {
        const at = positions[p]! - list.offset;
        if (Math.abs(at - base) < Math.abs(best - base)) best = at;
      }
      lo = Math.min(lo, best);
      hi = Math.max(hi, best);
    }
    const distance = hi - lo;
    if (distance <= slop) freq += 1 / (distance + 1);
  }
  return freq;
}

/**
 * phraseFreq without slop: an anchor position counts 1 when every other term is exactly where
 * the phrase puts it (the nearest position at distance 0), else nothing.
 */
function exactPhraseFreq(lists: readonly PhraseList[]): number {
  let freq = 0;
  const anchor = lists[0]!;
  const anchorPositions = anchor.postings.positions;
  next: for (let a = anchor.start; a < anchor.end; a++) {
    const base = anchorPositions[a]! - anchor.offset;
    for (let i = 1; i < lists.length; i++) {
      const list = lists[i]!;
      const positions = list.postings.positions;
      const want = base + list.offset;
      let p = list.start;
      while (p < list.end && positions[p] !== want) p++;
      if (p === list.end) continue next;
    }
    freq++;
  }
  return freq;
}

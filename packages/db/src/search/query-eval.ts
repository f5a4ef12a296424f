/**
 * A query run over a search index's rows, scored as Lucene 4's DefaultSimilarity scores
 * (Clouseau's): for a term, `sqrt(freq) · idf² · boost · queryNorm · norm(field in doc)` with
 * `idf = 1 + ln(maxDoc / (docFreq + 1))` and `queryNorm = 1 / sqrt(sum of squared weights)`;
 * a phrase the same with its terms' idfs summed and its match frequency (`1 / (distance + 1)`
 * per sloppy match); boolean queries sum their matching clauses times `coord` (matching /
 * scoring clauses); prefix, wildcard and range queries score a constant `boost · queryNorm`,
 * as Lucene's constant-score rewrite does; a fuzzy query is its nearest 50 terms, each boosted
 * by its similarity.
 */
import type { RowTree } from '../views/index/row-tree.js';
import type { RunQuery } from './query-build.js';
import { DOCS, NUMBERS, TERMS } from './search-design.js';
import { compareTerms } from './search-mapper.js';
import { boundedRange, exactRange, normValue, prefixRange } from './search-rows.js';

/** Doc id → score. */
export type Hits = Map<string, number>;

/** Lucene's FuzzyQuery.defaultMaxExpansions. */
const MAX_EXPANSIONS = 50;

export class IndexReader {
  readonly maxDoc: number;

  constructor(private readonly trees: readonly RowTree[]) {
    this.maxDoc = trees[DOCS]!.total();
  }

  docFreq(field: string, term: string): number {
    const { gte, lt } = exactRange([field, term]);
    const tree = this.trees[TERMS]!;
    return tree.countBelow(lt!) - tree.countBelow(gte!);
  }

  idf(field: string, term: string): number {
    return 1 + Math.log(this.maxDoc / (this.docFreq(field, term) + 1));
  }

  *postings(field: string, term: string): Generator<{ id: string; norm: number; positions: number[] }> {
    for (const row of this.trees[TERMS]!.rows(exactRange([field, term]), false)) {
      const [norm, ...positions] = JSON.parse(row.value[2]) as number[];
      yield { id: row.value[1], norm: normValue(norm!), positions };
    }
  }

  /**
   * A term's documents with its frequency and the field's norm there, read without parsing the
   * positions (`[norm,p1,p2,...]`: the frequency is the number of commas).
   */
  *frequencies(field: string, term: string): Generator<{ id: string; norm: number; freq: number }> {
    for (const row of this.trees[TERMS]!.rows(exactRange([field, term]), false)) {
      const value = row.value[2];
      const comma = value.indexOf(',');
      let freq = 0;
      for (let i = comma; i !== -1; i = value.indexOf(',', i + 1)) freq++;
      yield { id: row.value[1], norm: normValue(Number(value.slice(1, comma))), freq };
    }
  }

  /** The distinct terms of a field from a prefix on (each term once: the scan skips its postings). */
  *terms(field: string, prefix: string): Generator<string> {
    const range = prefixRange(field, prefix);
    let gte = range.gte;
    for (;;) {
      const next = this.trees[TERMS]!.rows({ gte, lt: range.lt }, false).next();
      if (next.done) return;
      const [, term] = JSON.parse(next.value.value[0]) as [string, string];
      yield term;
      gte = Buffer.concat([exactRange([field, term]).lt!]);
    }
  }

  /** The terms of a field between two bounds (Lucene's TermRangeQuery). */
  *termsBetween(
    field: string,
    lower: string | null,
    upper: string | null,
    includeLower: boolean,
    includeUpper: boolean,
  ): Generator<string> {
    const range = boundedRange(field, lower, upper, includeLower, includeUpper);
    let gte = range.gte;
    for (;;) {
      const next = this.trees[TERMS]!.rows({ gte, lt: range.lt }, false).next();
      if (next.done) return;
      const [, term] = JSON.parse(next.value.value[0]) as [string, string];
      yield term;
      gte = exactRange([field, term]).lt!;
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
    for (const row of this.trees[DOCS]!.rows({}, false)) yield row.value[1];
  }
}

/** The matching documents of a query with their scores. */
export function runQuery(reader: IndexReader, query: RunQuery): Hits {
  const weighted = weigh(reader, query);
  const sum = weighted.sumOfSquares;
  const queryNorm = sum > 0 && Number.isFinite(sum) ? 1 / Math.sqrt(sum) : 1;
  return weighted.score(queryNorm);
}

interface Weighted {
  /** Lucene's getValueForNormalization. */
  sumOfSquares: number;
  /** The hits, given the query norm times the boosts of the enclosing queries. */
  score(norm: number): Hits;
}

function weigh(reader: IndexReader, q: RunQuery): Weighted {
  switch (q.type) {
    case 'term': {
      const idf = reader.idf(q.field, q.term);
      return {
        sumOfSquares: (idf * q.boost) ** 2,
        score(norm) {
          const value = idf * q.boost * norm * idf;
          const hits: Hits = new Map();
          for (const p of reader.postings(q.field, q.term))
            hits.set(p.id, Math.sqrt(p.positions.length) * value * p.norm);
          return hits;
        },
      };
    }
    case 'phrase': {
      const idf = q.terms.reduce((sum, t) => sum + reader.idf(q.field, t.term), 0);
      return {
        sumOfSquares: (idf * q.boost) ** 2,
        score(norm) {
          const value = idf * q.boost * norm * idf;
          const hits: Hits = new Map();
          for (const [id, { freq, norm: fieldNorm }] of phraseMatches(reader, q)) {
            hits.set(id, Math.sqrt(freq) * value * fieldNorm);
          }
          return hits;
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
          const hits: Hits = new Map();
          const score = q.boost * norm;
          for (const id of constantScoreDocs(reader, q)) hits.set(id, score);
          return hits;
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
            clauses.map((c) => ({ occur: c.occur, hits: c.weighted.score(norm * q.boost) })),
            q.coord,
          );
        },
      };
    }
  }
}

/** A boolean query's hits: every required clause, at least one optional one when none is required, no prohibited one. */
function combine(clauses: { occur: string; hits: Hits }[], coord: boolean): Hits {
  const required = clauses.filter((c) => c.occur === 'must');
  const optional = clauses.filter((c) => c.occur === 'should');
  const prohibited = clauses.filter((c) => c.occur === 'must_not');
  const maxCoord = required.length + optional.length;
  const out: Hits = new Map();
  if (maxCoord === 0) return out;
  const candidates = required.length > 0 ? smallest(required) : union(optional);
  for (const id of candidates) {
    if (prohibited.some((c) => c.hits.has(id))) continue;
    let score = 0;
    let overlap = 0;
    let ok = true;
    for (const c of required) {
      const s = c.hits.get(id);
      if (s === undefined) {
        ok = false;
        break;
      }
      score += s;
      overlap++;
    }
    if (!ok) continue;
    for (const c of optional) {
      const s = c.hits.get(id);
      if (s !== undefined) {
        score += s;
        overlap++;
      }
    }
    out.set(id, coord ? (score * overlap) / maxCoord : score);
  }
  return out;
}

function smallest(clauses: { hits: Hits }[]): Iterable<string> {
  let best = clauses[0]!.hits;
  for (const c of clauses) if (c.hits.size < best.size) best = c.hits;
  return best.keys();
}

function union(clauses: { hits: Hits }[]): Iterable<string> {
  const ids = new Set<string>();
  for (const c of clauses) for (const id of c.hits.keys()) ids.add(id);
  return ids;
}

function* constantScoreDocs(reader: IndexReader, q: RunQuery): Generator<string> {
  switch (q.type) {
    case 'all':
      yield* reader.allDocs();
      return;
    case 'numberRange':
      yield* reader.numbers(q.field, q.lower, q.upper, q.includeLower, q.includeUpper);
      return;
    case 'prefix':
      for (const term of reader.terms(q.field, q.prefix)) for (const p of reader.postings(q.field, term)) yield p.id;
      return;
    case 'wildcard': {
      const { prefix, regex } = wildcardPattern(q.pattern);
      for (const term of reader.terms(q.field, prefix)) {
        if (regex.test(term)) for (const p of reader.postings(q.field, term)) yield p.id;
      }
      return;
    }
    case 'termRange':
      for (const term of reader.termsBetween(q.field, q.lower, q.upper, q.includeLower, q.includeUpper)) {
        for (const p of reader.postings(q.field, term)) yield p.id;
      }
      return;
    default:
      return;
  }
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
 * being how far the terms had to move (Lucene's sloppy frequency). The terms' postings come in
 * document order: they are intersected in one pass.
 */
function phraseMatches(
  reader: IndexReader,
  q: Extract<RunQuery, { type: 'phrase' }>,
): Map<string, { freq: number; norm: number }> {
  const out = new Map<string, { freq: number; norm: number }>();
  const lists = q.terms.map((t) => ({ offset: t.position, postings: [...reader.postings(q.field, t.term)], at: 0 }));
  if (lists.some((l) => l.postings.length === 0)) return out;
  const first = lists[0]!;
  for (const posting of first.postings) {
    const id = posting.id;
    const found: { offset: number; positions: number[] }[] = [];
    for (const list of lists) {
      while (list.at < list.postings.length && compareTerms(list.postings[list.at]!.id, id) < 0) list.at++;
      const p = list.postings[list.at];
      if (p === undefined || p.id !== id) break;
      found.push({ offset: list.offset, positions: p.positions });
    }
    if (found.length !== lists.length) continue;
    const freq = phraseFreq(found, q.slop);
    if (freq > 0) out.set(id, { freq, norm: posting.norm });
  }
  return out;
}

/** The phrase's frequency in one document, given each term's offset in the phrase and positions there. */
function phraseFreq(lists: readonly { offset: number; positions: number[] }[], slop: number): number {
  let freq = 0;
  const anchor = lists[0]!;
  for (const start of anchor.positions) {
    const base = start - anchor.offset;
    let lo = base;
    let hi = base;
    for (let i = 1; i < lists.length; i++) {
      const list = lists[i]!;
      let best = list.positions[0]! - list.offset;
      for (const p of list.positions)
        if (Math.abs(p - list.offset - base) < Math.abs(best - base)) best = p - list.offset;
      lo = Math.min(lo, best);
      hi = Math.max(hi, best);
    }
    const distance = hi - lo;
    if (distance <= slop) freq += 1 / (distance + 1);
  }
  return freq;
}

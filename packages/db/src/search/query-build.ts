/**
 * A parsed query (./query-syntax.ts) made into the query to run, as Lucene 4's QueryParser with
 * Clouseau's overrides makes it: term texts through the field's analyzer (no term left: the
 * clause goes; several: optional terms, or a phrase when quoted), prefix, wildcard, fuzzy and
 * range texts lowercased instead (`lowercaseExpandedTerms`, off for keyword-analyzed fields), a
 * number where an unquoted term or both range bounds are numbers (Clouseau's numeric fields).
 */
import type { FieldAnalyzers } from './analyzers.js';
import type { Occur, SyntaxQuery } from './query-syntax.js';
import { keywordTokens } from './tokenizers.js';

export type RunQuery =
  | { type: 'term'; field: string; term: string; boost: number }
  | { type: 'phrase'; field: string; terms: { term: string; position: number }[]; slop: number; boost: number }
  | { type: 'prefix'; field: string; prefix: string; boost: number }
  | { type: 'wildcard'; field: string; pattern: string; boost: number }
  | { type: 'fuzzy'; field: string; term: string; maxEdits: number; boost: number }
  | {
      type: 'termRange';
      field: string;
      lower: string | null;
      upper: string | null;
      includeLower: boolean;
      includeUpper: boolean;
      boost: number;
    }
  | {
      type: 'numberRange';
      field: string;
      lower: number | null;
      upper: number | null;
      includeLower: boolean;
      includeUpper: boolean;
      boost: number;
    }
  | { type: 'all'; boost: number }
  | { type: 'bool'; clauses: { occur: Occur; query: RunQuery }[]; boost: number; coord: boolean };

/** java.lang.Double's number syntax, as Clouseau tests a term or a bound with it (after Java's trim). */
const NUMBER = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*(?:[eE][+-]?\d+)?)|(?:\.\d+(?:[eE][+-]?\d+)?))[fFdD]?$/;

/** String.trim in Java: every character up to U+0020 off both ends. */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

function numberOf(text: string): number | undefined {
  const trimmed = javaTrim(text);
  if (!NUMBER.test(trimmed)) return undefined;
  return Number(trimmed.replace(/[fFdD]$/, ''));
}

/**
 * A prefix, wildcard, fuzzy or range text: lowercased (Lucene's lowercaseExpandedTerms) unless the
 * field's analyzer is the keyword one, as ClouseauQueryParser sets it per field.
 */
function expanded(text: string, field: string, analyzers: FieldAnalyzers): string {
  return analyzers.forField(field) === keywordTokens ? text : text.toLowerCase();
}

/** The query to run; undefined when nothing is left of it (every term analyzed away). */
export function buildQuery(q: SyntaxQuery, analyzers: FieldAnalyzers): RunQuery | undefined {
  const boost = q.boost ?? 1;
  switch (q.type) {
    case 'all':
      return { type: 'all', boost };
    case 'term':
    case 'phrase': {
      // Quoted, a number is text (ClouseauQueryParser.getFieldQuery).
      const number = q.type === 'term' ? numberOf(q.text) : undefined;
      if (number !== undefined) {
        return {
          type: 'numberRange',
          field: q.field,
          lower: number,
          upper: number,
          includeLower: true,
          includeUpper: true,
          boost,
        };
      }
      const tokens = analyzers.forField(q.field)(q.text);
      if (tokens.length === 0) return undefined;
      if (tokens.length === 1) return { type: 'term', field: q.field, term: tokens[0]!.text, boost };
      if (q.type === 'phrase') {
        const first = tokens[0]!.position;
        return {
          type: 'phrase',
          field: q.field,
          terms: tokens.map((t) => ({ term: t.text, position: t.position - first })),
          slop: q.slop,
          boost,
        };
      }
      return {
        type: 'bool',
        boost,
        coord: true,
        clauses: tokens.map((t) => ({
          occur: 'should',
          query: { type: 'term', field: q.field, term: t.text, boost: 1 },
        })),
      };
    }
    case 'prefix':
      return { type: 'prefix', field: q.field, prefix: expanded(q.prefix, q.field, analyzers), boost };
    case 'wildcard':
      return { type: 'wildcard', field: q.field, pattern: expanded(q.pattern, q.field, analyzers), boost };
    case 'fuzzy':
      return { type: 'fuzzy', field: q.field, term: expanded(q.text, q.field, analyzers), maxEdits: q.maxEdits, boost };
    case 'range': {
      const lower = q.lower === null ? null : numberOf(q.lower);
      const upper = q.upper === null ? null : numberOf(q.upper);
      const numeric = lower !== undefined && upper !== undefined && (q.lower !== null || q.upper !== null);
      if (numeric) {
        return {
          type: 'numberRange',
          field: q.field,
          // An infinite bound is an open one (JSON holds no infinite number to include or not).
          lower: lower === -Infinity ? null : lower,
          upper: upper === Infinity ? null : upper,
          includeLower: q.includeLower,
          includeUpper: q.includeUpper,
          boost,
        };
      }
      return {
        type: 'termRange',
        field: q.field,
        lower: q.lower === null ? null : expanded(q.lower, q.field, analyzers),
        upper: q.upper === null ? null : expanded(q.upper, q.field, analyzers),
        includeLower: q.includeLower,
        includeUpper: q.includeUpper,
        boost,
      };
    }
    case 'bool': {
      const clauses: { occur: Occur; query: RunQuery }[] = [];
      for (const clause of q.clauses) {
        const built = buildQuery(clause.query, analyzers);
        if (built !== undefined) clauses.push({ occur: clause.occur, query: built });
      }
      if (clauses.length === 0) return undefined;
      return { type: 'bool', clauses, boost, coord: true };
    }
  }
}

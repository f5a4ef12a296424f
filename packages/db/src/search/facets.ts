/**
 * Faceted search as Clouseau answers it: `drilldown` narrows the hits to documents with one of
 * the given facet values of a field (values of one field: either; several fields: all),
 * `counts` counts the hits per string facet value of each named field (most frequent first),
 * `ranges` counts the hits whose numeric facet value falls in each named range (written in the
 * query syntax, `[0 TO 100]`, `{100 TO Infinity}`).
 */
import { CouchError } from '../errors.js';
import { parseQuerySyntax } from './query-syntax.js';
import type { DocValue } from './search-rows.js';

export interface NamedRange {
  label: string;
  lower: number;
  upper: number;
  includeLower: boolean;
  includeUpper: boolean;
}

export interface FacetParams {
  counts: string[] | undefined;
  ranges: { field: string; ranges: NamedRange[] }[] | undefined;
  drilldown: string[][] | undefined;
}

export function parseCounts(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new CouchError('bad_request', '`counts` must be an array of field names');
  }
  return value as string[];
}

export function parseRanges(value: unknown): { field: string; ranges: NamedRange[] }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CouchError('bad_request', '`ranges` must be an object of fields, each an object of named ranges');
  }
  return Object.entries(value as Record<string, unknown>).map(([field, named]) => {
    if (typeof named !== 'object' || named === null || Array.isArray(named)) {
      throw new CouchError('bad_request', `\`ranges.${field}\` must be an object of named ranges`);
    }
    return {
      field,
      ranges: Object.entries(named as Record<string, unknown>).map(([label, text]) => namedRange(field, label, text)),
    };
  });
}

function namedRange(field: string, label: string, text: unknown): NamedRange {
  if (typeof text !== 'string') throw new CouchError('bad_request', `range ${label} of ${field} must be a string`);
  const q = parseQuerySyntax(text);
  const bound = (b: string | null, open: number) => (b === null ? open : Number(b));
  if (q.type !== 'range' || ![q.lower, q.upper].every((b) => b === null || !Number.isNaN(Number(b)))) {
    throw new CouchError('bad_request', `range ${label} of ${field} is not a numeric range: ${text}`);
  }
  return {
    label,
    lower: bound(q.lower, -Infinity),
    upper: bound(q.upper, Infinity),
    includeLower: q.includeLower,
    includeUpper: q.includeUpper,
  };
}

/** One drilldown: `[field, value, ...]`. */
export function parseDrilldown(value: unknown): string[] {
  if (!Array.isArray(value) || value.length < 2 || value.some((v) => typeof v !== 'string')) {
    throw new CouchError('bad_request', '`drilldown` must be an array of a field name and its values');
  }
  return value as string[];
}

/** The hits left once every drilldown field has one of its values. */
export function drillDown(
  ids: readonly string[],
  docs: (id: string) => DocValue | undefined,
  drilldown: string[][],
): string[] {
  const wanted = new Map<string, Set<string>>();
  for (const [field, ...values] of drilldown) {
    let set = wanted.get(field!);
    if (set === undefined) wanted.set(field!, (set = new Set()));
    for (const v of values) set.add(v);
  }
  return ids.filter((id) => {
    const facets = docs(id)?.f ?? {};
    for (const [field, values] of wanted) if (!(facets[field] ?? []).some((v) => values.has(v))) return false;
    return true;
  });
}

export function facetCounts(
  ids: readonly string[],
  docs: (id: string) => DocValue | undefined,
  fields: readonly string[],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const field of fields) {
    const counts = new Map<string, number>();
    for (const id of ids) {
      for (const value of new Set(docs(id)?.f?.[field] ?? [])) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out[field] = Object.fromEntries(sorted);
  }
  return out;
}

export function facetRanges(
  ids: readonly string[],
  docs: (id: string) => DocValue | undefined,
  ranges: readonly { field: string; ranges: NamedRange[] }[],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const { field, ranges: named } of ranges) {
    const counts: Record<string, number> = {};
    for (const range of named) counts[range.label] = 0;
    for (const id of ids) {
      const values = docs(id)?.fn?.[field] ?? [];
      for (const range of named) {
        const inside = values.some(
          (v) =>
            (range.includeLower ? v >= range.lower : v > range.lower) &&
            (range.includeUpper ? v <= range.upper : v < range.upper),
        );
        if (inside) counts[range.label]!++;
      }
    }
    out[field] = counts;
  }
  return out;
}

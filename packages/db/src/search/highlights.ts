/**
 * `highlight_fields`: fragments of a hit's stored text with the words the query matched wrapped
 * in `highlight_pre_tag` / `highlight_post_tag` (`<em>` / `</em>`), as Lucene's Highlighter gives
 * Clouseau: at most `highlight_number` fragments of about `highlight_size` characters, the ones
 * with the most matches first. A word matches when the field's analyzer makes of it a term the
 * query looks up (a term, a phrase's terms, a prefix, a wildcard, a fuzzy query's terms).
 */
import type { Analyzer } from './analyzers.js';
import type { RunQuery } from './query-build.js';
import { wildcardPattern } from './query-eval.js';

export interface HighlightParams {
  fields: string[];
  pre: string;
  post: string;
  number: number;
  size: number;
}

/** What a query looks up in one field: exact terms, and tests for the multi-term queries. */
export interface FieldMatchers {
  terms: Set<string>;
  tests: ((term: string) => boolean)[];
}

export function queryMatchers(
  query: RunQuery | undefined,
  expanded: (q: RunQuery) => string[],
): Map<string, FieldMatchers> {
  const out = new Map<string, FieldMatchers>();
  const of = (field: string): FieldMatchers => {
    let m = out.get(field);
    if (m === undefined) out.set(field, (m = { terms: new Set(), tests: [] }));
    return m;
  };
  const walk = (q: RunQuery, prohibited: boolean): void => {
    if (prohibited) return;
    switch (q.type) {
      case 'term':
        of(q.field).terms.add(q.term);
        return;
      case 'phrase':
        for (const t of q.terms) of(q.field).terms.add(t.term);
        return;
      case 'prefix':
        of(q.field).tests.push((term) => term.startsWith(q.prefix));
        return;
      case 'wildcard': {
        const { regex } = wildcardPattern(q.pattern);
        of(q.field).tests.push((term) => regex.test(term));
        return;
      }
      case 'fuzzy':
        for (const term of expanded(q)) of(q.field).terms.add(term);
        return;
      case 'bool':
        for (const c of q.clauses) walk(c.query, c.occur === 'must_not');
        return;
      default:
        return;
    }
  };
  if (query !== undefined) walk(query, false);
  return out;
}

/** The highlighted fragments of one stored text. */
export function highlight(
  text: string,
  analyzer: Analyzer,
  matchers: FieldMatchers | undefined,
  params: HighlightParams,
): string[] {
  if (matchers === undefined) return [];
  // Words as the text shows them, each analyzed alone: its place in the text is known.
  const marks: { start: number; end: number }[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}_'’.@-]+/gu)) {
    const word = match[0].replace(/^[.'’@-]+|[.'’@-]+$/gu, '');
    if (word === '') continue;
    const start = match.index + match[0].indexOf(word);
    const hit = analyzer(word).some((t) => matchers.terms.has(t.text) || matchers.tests.some((test) => test(t.text)));
    if (hit) marks.push({ start, end: start + word.length });
  }
  if (marks.length === 0) return [];
  // Fragments of about `size` characters, cut at word boundaries, scored by their matches.
  const fragments: { start: number; end: number; marks: typeof marks }[] = [];
  for (const mark of marks) {
    const current = fragments[fragments.length - 1];
    if (current !== undefined && mark.end - current.start <= params.size) {
      current.marks.push(mark);
      current.end = mark.end;
      continue;
    }
    fragments.push({ start: mark.start, end: mark.end, marks: [mark] });
  }
  const best = [...fragments]
    .sort((a, b) => b.marks.length - a.marks.length || a.start - b.start)
    .slice(0, params.number)
    .sort((a, b) => a.start - b.start);
  return best.map((f) => {
    // Widen the fragment to about `size` characters around its matches, at spaces.
    const room = Math.max(0, params.size - (f.end - f.start));
    let from = Math.max(0, f.start - Math.floor(room / 2));
    let to = Math.min(text.length, f.end + Math.ceil(room / 2));
    while (from > 0 && from < f.start && !/\s/u.test(text[from - 1]!)) from++;
    while (to < text.length && to > f.end && !/\s/u.test(text[to]!)) to--;
    let out = '';
    let at = from;
    for (const m of f.marks) {
      out += text.slice(at, m.start) + params.pre + text.slice(m.start, m.end) + params.post;
      at = m.end;
    }
    return (out + text.slice(at, to)).trim();
  });
}

/**
 * How much of a document a selector needs parsed: the top-level members its conditions name (and
 * `_id`), the rest skipped unparsed (./flat-members.ts); the whole document when
 * a condition has no path (it tests the document itself). A scan of many documents spends most
 * of its time parsing them.
 */
import { type JsonValue, parseJson } from '../json/index.js';
import { membersReader } from './flat-members.js';
import type { Selector } from './selector.js';

/** A parser of document texts for `selector` that also keeps the members named in `also`. */
export function selectorParser(selector: Selector, also: Iterable<string> = []): (text: string) => JsonValue {
  const names = new Set(['_id', ...also]);
  return topLevelNames(selector, names) ? membersReader(names) : parseJson;
}

/**
 * A parser of stored bodies (the document without `_id` and `_rev`, see documents/render.ts) for
 * `selector` and `also`, which adds `_id` and `_rev` itself where they are named: a scan then
 * renders only the documents it keeps. Undefined when the selector needs what only the rendered
 * document has (another `_` member, or the document itself).
 */
export function storedBodyParser(
  selector: Selector,
  also: Iterable<string> = [],
): ((body: string, id: string, rev: string) => JsonValue) | undefined {
  const names = new Set<string>(also);
  if (!topLevelNames(selector, names)) return undefined;
  const wantsRev = names.delete('_rev');
  // Only what the query names: setting `_id` on each of a scan's documents was a tenth of its matching.
  const wantsId = names.delete('_id');
  for (const name of names) if (name.startsWith('_')) return undefined;
  const read = membersReader(names);
  return (body, id, rev) => {
    const doc = read(body);
    if (wantsId) doc.set('_id', id);
    if (wantsRev) doc.set('_rev', rev);
    return doc;
  };
}

/** Adds the first segment of each condition's path; false when one has none. */
export function topLevelNames(selector: Selector, out: Set<string>): boolean {
  switch (selector.kind) {
    case 'field': {
      const first = selector.path?.[0];
      if (first === undefined) return false;
      out.add(first);
      return true;
    }
    case 'and':
    case 'or':
      return selector.items.every((item) => topLevelNames(item, out));
    case 'not':
      return topLevelNames(selector.item, out);
    default:
      return true;
  }
}

/**
 * The view engine's mapper for a Mango text index (./text-index.ts): each document's entries
 * computed here, natively (./text-entries.ts; none when the partial filter selector does not
 * match), then handed to the search mapper, whose index function only emits them. Undefined for
 * any other group.
 */
import { type JsonObject, parseJson } from '../json/index.js';
import type { MapBatchResult } from '../sandbox/index.js';
import { SEARCH_LANGUAGE } from '../search/search-design.js';
import { searchMapper } from '../search/search-mapper.js';
import type { ViewGroup } from '../views/design.js';
import type { NativeMapper } from '../views/view-manager.js';
import { matches } from './match.js';
import { parseSelector } from './selector.js';
import { textEntries } from './text-entries.js';
import { entryOptionsOf, TEXT_INDEX_MARKER } from './text-index.js';

export function textIndexMapper(group: ViewGroup): NativeMapper | undefined {
  const source = (group.options.search as { index?: unknown } | undefined)?.index;
  if (group.language !== SEARCH_LANGUAGE || typeof source !== 'string' || !source.startsWith(TEXT_INDEX_MARKER)) {
    return undefined;
  }
  const def = parseJson(source.slice(TEXT_INDEX_MARKER.length, source.indexOf(' */'))) as JsonObject;
  const options = entryOptionsOf(def);
  const filter = options.filter.size > 0 ? parseSelector(options.filter) : undefined;
  const inner = searchMapper(group)!;
  return {
    viewNames: inner.viewNames,
    async mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
      const prepared = docsJson.map((text) => {
        const doc = parseJson(text);
        const kept = filter === undefined || matches(filter, doc);
        return JSON.stringify({ entries: kept ? textEntries(doc, options) : [] });
      });
      return inner.mapBatch(prepared);
    },
    // The search index's documents tree is the search mapper's own (../search/search-docs-tree.ts).
    wrapTree: (tree, view) => inner.wrapTree?.(tree, view) ?? tree,
    dispose(): void {
      inner.dispose();
    },
  };
}

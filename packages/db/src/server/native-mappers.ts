/**
 * The view engine's mappers that are not JavaScript: Mango's JSON indexes (`"language":
 * "query"` design docs) are mapped natively; so are full-text indexes (their index functions run
 * in the sandbox, their analyzers here; a Mango text index's fields are computed natively too).
 * Search's and Mango's modules load on the first such index (or design document with one): a
 * server that has none never holds their code (issue #31, a fresh idle server's memory).
 */
import type { ViewGroup } from '../views/design.js';
import type { NativeMapper } from '../views/view-manager.js';

export async function nativeMappers(group: ViewGroup): Promise<NativeMapper | undefined> {
  if (group.language !== 'query') {
    const [{ textIndexMapper }, { searchMapper }] = await Promise.all([
      import('../mango/text-mapper.js'),
      import('../search/search-mapper.js'),
    ]);
    return textIndexMapper(group) ?? searchMapper(group);
  }
  const [{ jsonIndexMapper }, { matches }, { parseSelector }] = await Promise.all([
    import('../mango/json-index.js'),
    import('../mango/match.js'),
    import('../mango/selector.js'),
  ]);
  return jsonIndexMapper(group, (json) => {
    const selector = parseSelector(json);
    return (doc) => matches(selector, doc);
  });
}

/** The full-text indexes a design document defines (`_search`'s, Nouveau's, Mango's text): in use while it is. */
export async function fullTextSignatures(ddocId: string, body: Record<string, unknown>): Promise<string[]> {
  const [{ searchSignatures }, { nouveauSignatures }, { textIndexSignatures }] = await Promise.all([
    import('../search/search-design.js'),
    import('../search/nouveau-design.js'),
    import('../mango/text-index.js'),
  ]);
  return [...searchSignatures(ddocId, body), ...nouveauSignatures(ddocId, body), ...textIndexSignatures(ddocId, body)];
}

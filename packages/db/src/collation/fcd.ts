/**
 * FCD ("fast C or D", Unicode TN #5): the concatenation of each character's canonical
 * decomposition is already in canonical order. ICU with normalization off, as CouchDB runs it,
 * collates FCD text exactly like normalized text; only non-FCD text (unusual combining-mark
 * orders) may sort apart from its canonical equivalents, and may differ between ICU versions.
 * Used by tests and diagnostics to tell those strings apart.
 */
export function isFcd(s: string): boolean {
  let decomposed = '';
  for (const ch of s) decomposed += ch.normalize('NFD');
  return decomposed === decomposed.normalize('NFD');
}

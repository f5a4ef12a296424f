/** More documents examined than this per result is worth a warning (CouchDB's `index_scan_warning_threshold`). */
const SCAN_WARNING_RATIO = 10;

/**
 * A plan's warnings, and CouchDB's warning that the documents examined were many for the results
 * returned (mango_cursor's `index_scan_warning`) when they were.
 */
export function withScanWarning(planned: readonly string[], examined: number, returned: number): string[] {
  const warnings = [...planned];
  if ((returned === 0 && examined > SCAN_WARNING_RATIO) || (returned > 0 && examined / returned > SCAN_WARNING_RATIO)) {
    warnings.push(
      'The number of documents examined is high in proportion to the number of results returned. Consider adding a more specific index to improve this.',
    );
  }
  return warnings;
}

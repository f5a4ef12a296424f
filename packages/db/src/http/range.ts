/**
 * `Range` headers on attachments, read as CouchDB reads them (mochiweb's parse_range_request and
 * chttpd's resolution), except that a suffix range longer than the attachment gives all of it,
 * as HTTP says (CouchDB drops the first byte there).
 */

/** A requested range: `a-b`, `a-` (end undefined) or `-n` (start undefined, end = n). */
export type RangeSpec = { start: number; end: number | undefined } | { start: undefined; end: number };

/** The ranges of a header in request order, or undefined when it is to be ignored (whole body). */
export function parseRange(header: string | undefined): RangeSpec[] | undefined {
  if (header === undefined || !header.startsWith('bytes=')) return undefined;
  const pieces = header
    .slice(6)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const out: RangeSpec[] = [];
  for (const piece of pieces) {
    const m = /^(\d*)-(\d*)$/.exec(piece);
    if (m === null || (m[1] === '' && m[2] === '')) return undefined;
    if (m[1] === '') out.push({ start: undefined, end: Number(m[2]) });
    else out.push({ start: Number(m[1]), end: m[2] === '' ? undefined : Number(m[2]) });
  }
  return out.length === 0 ? undefined : out;
}

/** Byte offsets, both inclusive. */
export interface ByteRange {
  first: number;
  last: number;
}

/**
 * The ranges resolved against a length: `'whole'` (200: no ranges, `0-` alone, 10 or more),
 * `'unsatisfiable'` (416) or the byte ranges to send (206).
 */
export function resolveRanges(specs: RangeSpec[] | undefined, length: number): 'whole' | 'unsatisfiable' | ByteRange[] {
  if (specs === undefined || specs.length >= 10) return 'whole';
  if (specs.length === 1 && specs[0]!.start === 0 && specs[0]!.end === undefined) return 'whole';
  const out: ByteRange[] = [];
  for (const spec of specs) {
    let first: number;
    let last: number;
    if (spec.start === undefined) {
      if (spec.end === 0) return 'unsatisfiable';
      first = Math.max(0, length - spec.end);
      last = length - 1;
    } else {
      first = spec.start;
      last = spec.end === undefined ? length - 1 : Math.min(spec.end, length - 1);
      if (spec.end !== undefined && spec.end < spec.start) return 'unsatisfiable';
    }
    if (first > last || first >= length) return 'unsatisfiable';
    out.push({ first, last });
  }
  return out;
}

/**
 * The rows of a search index (see ./search-design.ts), and the byte ranges that read them back.
 * Keys are in the raw collation (../collation: Erlang term order, strings by UTF-8 bytes):
 *
 * - numbers (NUMBERS): key `[field, number]`, value null (numeric queries and ranges);
 * - documents (DOCS): key the doc id, value `{"s": stored fields, "n": numeric sort values,
 *   "t": string sort values, "f"/"fn": facet values, "k": fields without norms, "p": postings}`: one row per indexed
 *   document, whatever its fields. `p` is, per field, the field's length norm in the document
 *   (Lucene's one byte, normByte) and then each term followed by its positions:
 *   `[norm, term, position, ..., term, position, ...]` (the term frequency is the number of
 *   positions). The inverted postings are made of these in memory (./postings.ts).
 *
 * Why one row per document and no row per (term, document): the view engine keeps a row's key,
 * document id and value, and a back-index entry per row; a row per posting made the index 19
 * times the documents' JSON and its build and updates as many rows as there are postings.
 */
import { encodeRawKey } from '../collation/index.js';
import type { RowRange } from '../views/index/row-tree.js';
import type { FieldPostings } from './postings-codec.js';

export interface DocValue {
  /** Stored fields: one value, or an array for a field stored more than once. */
  s: Record<string, unknown>;
  /** The numeric sort value per field (the largest, as Lucene's field cache reads it). */
  n: Record<string, number>;
  /** The string sort value per field (the largest term). */
  t: Record<string, string>;
  /** Facet values (`facet: true`): strings for `counts` and `drilldown`... */
  f?: Record<string, string[]>;
  /** ...numbers for `ranges`. */
  fn?: Record<string, number[]>;
  /** The fields indexed without norms (Nouveau's `string`: one term per value, scored as one term long). */
  k?: string[];
  /** Per searchable field, its postings in this document (./postings-codec.ts). */
  p?: Record<string, FieldPostings>;
}

const HIGH = Buffer.from([0xff]);

/** The row key prefix of every row of `key` (the encoding without the array's terminator). */
function openKey(key: unknown[]): Buffer {
  const bytes = encodeRawKey(key);
  return bytes.subarray(0, bytes.length - 1);
}

/**
 * The rows of `field` between two bounds (numbers in the numbers tree); null: open on that side.
 */
export function boundedRange(
  field: string,
  lower: number | null,
  upper: number | null,
  includeLower: boolean,
  includeUpper: boolean,
): RowRange {
  const whole = openKey([field]);
  const gte =
    lower === null ? whole : includeLower ? openKey([field, lower]) : Buffer.concat([openKey([field, lower]), HIGH]);
  const lt =
    upper === null
      ? Buffer.concat([whole, HIGH])
      : includeUpper
        ? Buffer.concat([openKey([field, upper]), HIGH])
        : openKey([field, upper]);
  return { gte, lt };
}

/** normByte's scratch: a float and its bits (an ArrayBuffer per call was ~1% of a 1% update). */
const FLOAT = new Float32Array(1);
const FLOAT_BITS = new Int32Array(FLOAT.buffer);

/** Lucene 4's one-byte norm (SmallFloat.floatToByte315): the byte a posting keeps. */
export function normByte(value: number): number {
  FLOAT[0] = value;
  const bits = FLOAT_BITS[0]!;
  const small = bits >> (24 - 3);
  if (small <= (63 - 15) << 3) return bits <= 0 ? 0 : 1;
  if (small >= ((63 - 15) << 3) + 0x100) return 255;
  return small - ((63 - 15) << 3);
}

/** What each norm byte is worth (SmallFloat.byte315ToFloat). */
const NORMS: readonly number[] = Array.from({ length: 256 }, (_, byte) => {
  if (byte === 0) return 0;
  const ints = new Int32Array([(byte << (24 - 3)) + ((63 - 15) << 24)]);
  return new Float32Array(ints.buffer)[0]!;
});

export function normValue(byte: number): number {
  return NORMS[byte] ?? 0;
}

/**
 * CouchDB view-key collation: the ICU root collator via the native addon (`icu.ts`), the two
 * orders as comparators (`compare.ts`), and byte-comparable encodings of keys, row keys and query
 * bounds for memcmp-ordered storage (`encode.ts`).
 */
export {
  type IcuCollator,
  type CollatorVersion,
  IcuCollatorError,
  icuCollator,
  collatorVersion,
  sameCollation,
} from './icu.js';
export { isFcd } from './fcd.js';
export { collate, collateRaw, collateRows, compareUtf8, compareNumbers, type NumberLike } from './compare.js';
export {
  encodeKey,
  encodeRawKey,
  encodeRowKey,
  encodeRowKeyScratch,
  encodeDocId,
  rowKeyRange,
  exactKeyRange,
  rowKeyBound,
  type RowKeyRange,
  type RowRangeQuery,
} from './encode.js';

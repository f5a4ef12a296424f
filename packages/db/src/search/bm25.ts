/**
 * Lucene 9's BM25Similarity (k1 = 1.2, b = 0.75), the scoring of Nouveau's indexes (its
 * IndexSearcher keeps Lucene's default similarity; Clouseau's `_search` keeps Lucene 4's TF-IDF:
 * ./query-eval.ts). As Lucene computes it, in 32-bit floats step by step:
 *
 *   idf    = (float) ln(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))
 *   weight = boost · idf
 *   score  = weight - weight / (1 + freq · cache[norm byte])
 *   cache[byte] = 1 / (k1 · ((1 - b) + b · length(byte) / avgdl)),  avgdl = sumTotalTermFreq / docCount
 *
 * where the norm byte is the field's length in the document, lossy-encoded (SmallFloat's
 * intToByte4: exact below 24, then 4 significant bits), `docCount` the documents with the field
 * and `sumTotalTermFreq` their lengths summed. A field without norms (Nouveau's `string`) reads
 * as length 1.
 */
const K1 = Math.fround(1.2);
const B = Math.fround(0.75);

/** SmallFloat.longToInt4: 4 significant bits of a positive integer, the shift above them. */
function longToInt4(i: number): number {
  const bits = 32 - Math.clz32(i);
  if (bits < 4) return i;
  const shift = bits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** Values below this one are their own byte (255 - longToInt4(2^31 - 1) = 24). */
const FREE_VALUES = 255 - longToInt4(0x7fffffff);

/** SmallFloat.intToByte4: a field's length as its norm byte. */
export function lengthByte(length: number): number {
  return length < FREE_VALUES ? length : FREE_VALUES + longToInt4(length - FREE_VALUES);
}

/** SmallFloat.byte4ToInt: the length a norm byte stands for. */
export function byteLength(byte: number): number {
  return byte < FREE_VALUES ? byte : FREE_VALUES + int4ToLong(byte - FREE_VALUES);
}

export function bm25Idf(docFreq: number, docCount: number): number {
  return Math.fround(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** The 256 inverse length norms of a field whose average length is `avgdl`. */
export function normCache(sumTotalTermFreq: number, docCount: number): Float64Array {
  const avgdl = Math.fround(sumTotalTermFreq / docCount);
  const cache = new Float64Array(256);
  const f = Math.fround;
  for (let byte = 0; byte < 256; byte++) {
    cache[byte] = f(1 / f(K1 * f(f(1 - B) + f(f(B * byteLength(byte)) / avgdl))));
  }
  return cache;
}

/** One posting's score: `weight - weight / (1 + freq · normInverse)` in floats. */
export function bm25Score(weight: number, freq: number, normInverse: number): number {
  const f = Math.fround;
  return f(weight - f(weight / f(1 + f(freq * normInverse))));
}

/**
 * A float's shortest decimal (as Java prints a float), as a number: `0.2876821` rather than
 * the double `0.28768208622932434` the float is.
 */
export function shortestFloat(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let digits = 1; digits < 10; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

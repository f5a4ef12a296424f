/**
 * Where a node's content is cut into nodes, shared by updates (./update.ts) and bulk loads
 * (./bulk-load.ts).
 *
 * Node size: by encoded bytes, not entry count, because view values range from nothing to whole
 * documents. Chunks are cut near 85% of `nodeBytes` so a freshly built node absorbs a few inserts
 * before it splits. Default 2048 bytes: ≈ 25 rows of ~35-byte keys and short values per leaf,
 * ≈ 25 pointers per inner node, 4 levels for 175k rows, 5 for 1M. Small nodes make cheaper
 * updates, because random changes touch about as many leaves either way and bigger leaves mean
 * more bytes rewritten and re-reduced per touched leaf (and 4 KB+ blobs spill into SQLite
 * overflow pages, while two 2 KB nodes share a 4 KB page); grouped queries favour big nodes
 * (fewer pointers to visit). 2048 is about as cheap to update as CouchDB's 1279 (the sweep of
 * sizes: docs/benchmarks.md, "Measurements behind design choices"). Bulk builds are alike.
 */
import { NODE_HEADER_BYTES } from './node.js';

/** The fill a cut aims at, as a share of the node size limit. */
export const FILL = 0.85;

/**
 * Chunk ends for items of the given sizes: k = ⌈total / (85% of nodeBytes)⌉ chunks of about
 * equal size, each at most `nodeBytes` (unless it has fewer than `minItems` items), a small
 * last chunk (below `minBytes`) evened out with the one before.
 */
export function chunkEnds(
  sizes: number[],
  total: number,
  minItems: number,
  nodeBytes: number,
  minBytes: number,
): number[] {
  const n = sizes.length;
  const max = nodeBytes;
  if (total <= max || n <= minItems) return [n];
  const k = Math.ceil(total / (max * FILL));
  const target = total / k;
  const ends: number[] = [];
  let start = 0;
  let cur = NODE_HEADER_BYTES;
  for (let i = 0; i < n; i++) {
    const s = sizes[i]!;
    if (i - start >= minItems && (cur + s > max || (ends.length < k - 1 && cur + s / 2 > target))) {
      ends.push(i);
      start = i;
      cur = NODE_HEADER_BYTES;
    }
    cur += s;
  }
  ends.push(n);
  const m = ends.length;
  if (m >= 2 && (cur < minBytes || n - start < minItems)) {
    // Even out the last two chunks.
    const from = m >= 3 ? ends[m - 3]! : 0;
    let both = 0;
    for (let i = from; i < n; i++) both += sizes[i]!;
    let acc = 0;
    let split = from;
    while (split < n - minItems && (split - from < minItems || acc + sizes[split]! / 2 < both / 2))
      acc += sizes[split++]!;
    if (split - from >= minItems && n - split >= minItems) ends[m - 2] = split;
    else ends.splice(m - 2, 1);
  }
  return ends;
}

/** Encoded bytes of the chunk [from, to) of items of the given sizes. */
export function chunkBytes(sizes: readonly number[], from: number, to: number): number {
  let bytes = NODE_HEADER_BYTES;
  for (let i = from; i < to; i++) bytes += sizes[i]!;
  return bytes;
}

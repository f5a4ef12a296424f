/**
 * Group keys for reduce queries, read straight off index row keys (no decoding of JSON): the
 * bytes of the encoded key (`group=true`), of its first N array elements (`group_level=N`), or
 * nothing (no grouping). Rows of one group are contiguous in row-key order, and a group key is a
 * prefix of each of its rows' keys, so the B-tree can use a subtree's stored reduction whenever
 * the subtree's first and last rows share the group key.
 *
 * Layouts are those of ../../collation/encode.ts: ICU tags 0x10 null, 0x20/0x21 booleans, 0x30
 * number (8 bytes), 0x40 string (sort key, 0x00), 0x50 array (values, 0x00), 0x60 object
 * (key sort key 0x00 value..., 0x00); raw tags 0x10 number, 0x20-0x22 atoms, 0x30 object (0x01
 * key-body value..., 0x00), 0x40 array, 0x50 string body (escaped so its only 0x00 ends it).
 */

export type Grouping = 'none' | 'exact' | number;

const EMPTY = Buffer.alloc(0);

export function groupKeyOf(rowKey: Buffer, grouping: Grouping, raw: boolean): Buffer {
  if (grouping === 'none') return EMPTY;
  const skip = raw ? skipRaw : skipIcu;
  if (grouping === 'exact' || rowKey[0] !== (raw ? 0x40 : 0x50)) return rowKey.subarray(0, skip(rowKey, 0));
  // An array: the tag and its first N elements; an array with N or fewer elements is its own group.
  let at = 1;
  for (let n = 0; n < grouping; n++) {
    if (rowKey[at] === 0x00) return rowKey.subarray(0, at + 1);
    at = skip(rowKey, at);
  }
  return rowKey.subarray(0, at);
}

/** Offset just past the ICU-encoded value starting at `at`. */
function skipIcu(b: Buffer, at: number): number {
  const tag = b[at];
  if (tag === 0x30) return at + 9;
  if (tag === 0x40) return b.indexOf(0, at + 1) + 1;
  if (tag === 0x50) {
    let i = at + 1;
    while (b[i] !== 0x00) i = skipIcu(b, i);
    return i + 1;
  }
  if (tag === 0x60) {
    let i = at + 1;
    while (b[i] !== 0x00) i = skipIcu(b, b.indexOf(0, i) + 1);
    return i + 1;
  }
  return at + 1; // null, false, true
}

/** Offset just past the raw-encoded value starting at `at`. */
function skipRaw(b: Buffer, at: number): number {
  const tag = b[at];
  if (tag === 0x10) return at + 9;
  if (tag === 0x50) return b.indexOf(0, at + 1) + 1;
  if (tag === 0x40) {
    let i = at + 1;
    while (b[i] !== 0x00) i = skipRaw(b, i);
    return i + 1;
  }
  if (tag === 0x30) {
    let i = at + 1;
    while (b[i] !== 0x00) i = skipRaw(b, b.indexOf(0, i + 1) + 1);
    return i + 1;
  }
  return at + 1; // false, null, true
}

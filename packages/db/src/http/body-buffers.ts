/**
 * Reusable buffers for request bodies that are decoded and dropped at once (JSON bodies). A body
 * of a few hundred KB in a fresh buffer costs a fresh memory mapping each time (glibc maps
 * allocations of 128 KB and more on their own, and unmaps them when the buffer is collected);
 * on a virtual machine whose first touch of a page is slow (tens of µs a page) that was a large
 * part of a `_bulk_docs` request. A buffer given back is kept for the next body instead.
 */

/** Bodies smaller than this come from Node's own pools (or the malloc heap): nothing to gain. */
export const POOLED_MIN_BYTES = 64 * 1024;
/** Larger buffers are not kept: a rare huge body should not pin its memory. */
const POOLED_MAX_BYTES = 4 * 1024 * 1024;
/** Buffers kept at most (one per concurrent large body, bulk loaders send a few at a time). */
const POOLED_COUNT = 4;

const free: Buffer[] = [];

/** A buffer of exactly `size` bytes (a view of a kept one when one is large enough); give it back with `giveBack`. */
export function takeBuffer(size: number): Buffer {
  for (let i = 0; i < free.length; i++) {
    const kept = free[i]!;
    if (kept.length >= size) {
      free.splice(i, 1);
      return kept.subarray(0, size);
    }
  }
  // Rounded up so that a body slightly larger than the last one still fits the kept buffer.
  const capacity = size <= POOLED_MAX_BYTES ? Math.min(POOLED_MAX_BYTES, Math.ceil((size * 5) / 4)) : size;
  return Buffer.allocUnsafe(capacity).subarray(0, size);
}

/** Returns a buffer of `takeBuffer` once nothing reads it any more. */
export function giveBack(view: Buffer): void {
  // The whole allocation: buffers this large never come from Node's shared pool, so the
  // ArrayBuffer behind `view` is this buffer's alone.
  const whole = Buffer.from(view.buffer);
  if (whole.length > POOLED_MAX_BYTES || free.length >= POOLED_COUNT) return;
  free.push(whole);
}

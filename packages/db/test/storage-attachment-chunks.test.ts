// Both engines store attachment bytes in fixed-size chunk rows cut by fixedChunks and serve
// ranges of them with chunkRange: whatever pieces the bytes arrive in, the chunks join back to the
// same bytes, every chunk but the last is exactly the chunk size, and a range read gives exactly
// the slice asked for while reading only the chunks it overlaps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkRange, fixedChunks } from '../src/storage/attachment-chunks.js';

async function* arriving(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield piece;
}

test('fixedChunks: same bytes, full chunks but the last', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }),
      fc.integer({ min: 1, max: 128 }),
      async (pieces, size) => {
        const out: Buffer[] = [];
        for await (const chunk of fixedChunks(arriving(pieces), size)) out.push(Buffer.from(chunk));
        assert.deepEqual(Buffer.concat(out), Buffer.concat(pieces));
        out.forEach((chunk, i) => {
          if (i < out.length - 1) assert.equal(chunk.length, size);
          else assert.ok(chunk.length > 0 && chunk.length <= size);
        });
      },
    ),
  );
});

test('chunkRange: exactly the slice, from the chunks it overlaps only', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 1000 }),
      fc.integer({ min: 1, max: 128 }),
      fc.integer({ min: -5, max: 1010 }),
      fc.option(fc.integer({ min: -5, max: 1010 }), { nil: undefined }),
      async (bytes, size, start, end) => {
        const chunks: Buffer[] = [];
        for await (const chunk of fixedChunks(arriving([bytes]), size)) chunks.push(Buffer.from(chunk));
        const read: number[] = [];
        const out: Uint8Array[] = [];
        const readChunk = (n: number) => {
          read.push(n);
          return chunks[n];
        };
        for await (const piece of chunkRange(bytes.length, readChunk, start, end, size)) out.push(piece);
        const from = Math.max(0, start);
        const to = Math.min(end ?? bytes.length, bytes.length);
        assert.deepEqual(Buffer.concat(out), Buffer.from(bytes.subarray(from, Math.max(from, to))));
        const wanted = [];
        for (let n = Math.floor(from / size); from < to && n * size < to; n++) wanted.push(n);
        assert.deepEqual(read, wanted);
      },
    ),
  );
});

test('chunkRange: stops where a chunk is gone', async () => {
  const out: Uint8Array[] = [];
  for await (const piece of chunkRange(10, (n) => (n === 0 ? Buffer.from('abcd') : undefined), 0, undefined, 4)) {
    out.push(piece);
  }
  assert.deepEqual(Buffer.concat(out).toString(), 'abcd');
});

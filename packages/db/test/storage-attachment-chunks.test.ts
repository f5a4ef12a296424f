// Both engines store attachment bytes in fixed-size chunk rows cut by fixedChunks: whatever
// pieces the bytes arrive in, the chunks join back to the same bytes and every chunk but the
// last is exactly the chunk size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fixedChunks } from '../src/storage/attachment-chunks.js';

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

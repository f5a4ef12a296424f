/**
 * `gathered`: a multipart answer's many small pieces written as few large ones, the same bytes in
 * the same order (small pieces joined, a large one passed on as it is).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gathered } from '../src/http/multipart-write.js';

async function collect(pieces: Uint8Array[], size: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const piece of gathered(
    (async function* () {
      yield* pieces;
    })(),
    size,
  ))
    out.push(piece);
  return out;
}

describe('gathered', () => {
  it('joins small pieces up to the size, keeps the bytes and their order', async () => {
    const pieces = Array.from({ length: 10 }, (_, k) => Buffer.from(`piece ${k};`));
    const out = await collect(pieces, 20);
    assert.deepEqual(Buffer.concat(out), Buffer.concat(pieces));
    for (const piece of out.slice(0, -1)) assert.ok(piece.length >= 20);
    assert.ok(out.length < pieces.length);
  });

  it('passes a large piece on without copying it, and ends with what is left', async () => {
    const large = Buffer.alloc(100, 1);
    const out = await collect([large, Buffer.from('tail')], 64);
    assert.equal(out[0], large);
    assert.deepEqual(out[1], Buffer.from('tail'));
    assert.equal(out.length, 2);
  });

  it('yields nothing for no pieces', async () => {
    assert.deepEqual(await collect([], 64), []);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseSplitBody } from '../src/http/split-body.js';
import { JsonObject, parseJson, stringifyJson } from '../src/json/index.js';

const decode = (bytes: Buffer): string => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);

/** The whole parse of `bytes`: its value, or the error it throws. */
function whole(bytes: Buffer): { value: unknown } | { error: unknown } {
  try {
    return { value: parseJson(decode(bytes)) };
  } catch (error) {
    return { error };
  }
}

/** The split parse agrees with the whole one: the same value, or it gives up (the caller then parses whole). */
function agrees(bytes: Buffer): void {
  const split = parseSplitBody(bytes, decode);
  const full = whole(bytes);
  if ('error' in full) {
    assert.equal(
      split,
      undefined,
      `split parse accepted what the whole parse refuses: ${bytes.toString().slice(0, 200)}`,
    );
    return;
  }
  if (split === undefined) return;
  assert.equal(stringifyJson(split as never), stringifyJson(full.value as never));
  // Each document keeps the canonical text the whole parse finds for it.
  const [splitDocs, fullDocs] = [split, full.value].map((v) => (v as JsonObject).get('docs'));
  if (Array.isArray(splitDocs) && Array.isArray(fullDocs)) {
    splitDocs.forEach((doc, i) => {
      if (doc instanceof JsonObject) assert.equal(doc.canonicalText(), (fullDocs[i] as JsonObject).canonicalText());
    });
  }
}

const doc = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({
    _id: fc.string(),
    text: fc.string({ unit: 'binary' }),
    n: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
);
/** A _bulk_docs body of at least 32 KB of docs, written with or without spaces. */
const body = fc
  .record({
    docs: fc.array(doc, { minLength: 1, maxLength: 40 }),
    padding: fc.integer({ min: 0, max: 3 }),
    newEdits: fc.option(fc.boolean()),
    spaced: fc.boolean(),
  })
  .map(({ docs, padding, newEdits, spaced }) => {
    const filler = { _id: 'filler', blob: 'x'.repeat(33_000 + padding) };
    const value: Record<string, unknown> = { docs: [...docs, filler] };
    if (newEdits !== null) value.new_edits = newEdits;
    return Buffer.from(JSON.stringify(value, null, spaced ? 1 : undefined));
  });

describe('a large JSON body parsed in pieces', () => {
  test('gives what the whole parse gives, documents and their canonical texts alike', () => {
    fc.assert(
      fc.property(body, (bytes) => agrees(bytes)),
      { numRuns: 150 },
    );
  });

  test('gives up, or agrees, on any damaged body (bytes dropped, changed or added)', () => {
    const structural = fc.constantFrom(...'{}[],:"\\ \n0a'.split('').map((c) => c.charCodeAt(0)), 0xe2, 0x80);
    const damaged = fc
      .tuple(
        body,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 }), structural), { minLength: 1, maxLength: 3 }),
      )
      .map(([bytes, edits]) => {
        const out = [...bytes];
        for (const [at, kind, byte] of edits) {
          const i = at % out.length;
          if (kind === 0) out.splice(i, 1);
          else if (kind === 1) out[i] = byte;
          else out.splice(i, 0, byte);
        }
        return Buffer.from(out);
      });
    fc.assert(
      fc.property(damaged, (bytes) => agrees(bytes)),
      { numRuns: 400 },
    );
  });

  test('a duplicate member is left to the whole parse (the last one wins there)', () => {
    const big = JSON.stringify([{ _id: 'a', blob: 'y'.repeat(40_000) }]);
    const bytes = Buffer.from(`{"docs":${big},"docs":[{"_id":"b"}]}`);
    assert.equal(parseSplitBody(bytes, decode), undefined);
  });

  test("elements sit two levels deep: the depth limit is the whole parse's", () => {
    const deep = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
    const pad = JSON.stringify({ blob: 'z'.repeat(40_000) });
    // 998 levels inside the array are 1,000 with the object and the array: allowed; 999 are not.
    assert.notEqual(parseSplitBody(Buffer.from(`{"docs":[${pad},${deep(998)}]}`), decode), undefined);
    assert.equal(parseSplitBody(Buffer.from(`{"docs":[${pad},${deep(999)}]}`), decode), undefined);
    assert.throws(() => parseJson(`{"docs":[${pad},${deep(999)}]}`));
  });

  test('a mismatched closing bracket of the split array is not taken for its end', () => {
    const pad = JSON.stringify({ blob: 'w'.repeat(40_000) });
    assert.equal(parseSplitBody(Buffer.from(`{"docs":[${pad},2}}`), decode), undefined);
  });
});

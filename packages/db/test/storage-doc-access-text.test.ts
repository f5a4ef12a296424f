/**
 * A document's stored access text read and made without JSON (storage/doc-access.ts
 * `usualDocAccess`, `leavesOfStoredText`, `nextDocAccessText`) answers exactly as the parsing path
 * (`decodeDocAccess`, `nextDocAccess`, `encodeDocAccess`): a misread text would give a document's
 * rows to the wrong readers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type DocAccess,
  decodeDocAccess,
  encodeDocAccess,
  leavesOfDocAccess,
  leavesOfStoredText,
  nextDocAccess,
  nextDocAccessText,
  usualDocAccess,
} from '../src/storage/doc-access.js';
import { type AccessWrite, uniformLeaves } from '../src/storage/records.js';
import { seededRandom } from './support/seeded-random.js';

/** Names that look like parts of the stored text, quotes, escapes, astral and high-BMP characters. */
const NAMES = [
  'alice',
  'bob',
  '_users',
  ',[],null,',
  ',[],null,7]',
  '"],[],null,3]',
  'a\\"b',
  '[]',
  'null',
  '12',
  '\u{1f600}',
  '\uffff',
  'é',
];

/** UTF-8 byte order, as the stored readers are kept. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function pick(random: () => number, max: number): string[] {
  const out: string[] = [];
  const n = Math.floor(random() * (max + 1));
  for (let i = 0; i < n; i++) out.push(NAMES[Math.floor(random() * NAMES.length)]!);
  return out;
}

/** A stored access as writes leave it: readers in byte order once each, the lost ones apart. */
function storedAccess(random: () => number): DocAccess {
  const readers = [...new Set(pick(random, 3))].sort(byBytes);
  const gone = [...new Set(pick(random, 2))].filter((p) => !readers.includes(p));
  const access: DocAccess = { readers, at: Math.floor(random() * 1000), gone, goneAt: gone.map((_, i) => i + 1) };
  if (random() < 0.2) access.leaves = JSON.stringify({ '1-a': pick(random, 2) });
  return access;
}

/** A write as the planner makes one: usually uniform leaves of ordered readers, sometimes not. */
function accessWrite(random: () => number, before: DocAccess): AccessWrite {
  const roll = random();
  const readers =
    roll < 0.4 ? [...before.readers] : roll < 0.8 ? [...new Set(pick(random, 3))].sort(byBytes) : pick(random, 3);
  const leaves = random() < 0.8 ? uniformLeaves(readers) : JSON.stringify({ '2-b': readers });
  return { leaves, readers };
}

describe('stored access text without JSON', () => {
  it('reads the usual text and nothing else', () => {
    assert.deepEqual(usualDocAccess('[["alice"],[],null,12]'), { readersJson: '["alice"]', at: 12 });
    assert.deepEqual(usualDocAccess('[[",[],null,"],[],null,3]'), { readersJson: '[",[],null,"]', at: 3 });
    for (const text of [
      '[["alice"],["bob"],null,12,[4]]',
      '[["alice"],[],"{\\"1-a\\":[\\",[],null,\\"]}",12]',
      '[[",[],null,3"],["x"],null,5,[2]]',
      '[["alice"],[],null,]',
      '[["alice"],[],null,1x]',
    ]) {
      assert.equal(usualDocAccess(text), undefined, text);
    }
  });

  it('answers as the parsing path for every stored text and write (seeded)', () => {
    const random = seededRandom(42);
    for (let i = 0; i < 5000; i++) {
      const before = storedAccess(random);
      const isNew = random() < 0.2;
      const stored = isNew ? null : encodeDocAccess(before);
      const write = accessWrite(random, before);
      if (write.readers.length === 0 && write.leaves === uniformLeaves([])) continue;
      const seq = 2000 + i;
      const expected = nextDocAccess(decodeDocAccess(stored), write, seq);
      const got = nextDocAccessText(stored, write, seq);
      const context = JSON.stringify({ stored, write });
      assert.deepEqual([...got.readers], expected.next.readers, context);
      assert.deepEqual([...got.removed], expected.removed, context);
      assert.deepEqual([...got.stale], expected.stale, context);
      assert.equal(got.text, encodeDocAccess(expected.next), context);
      assert.equal(leavesOfStoredText(got.text), leavesOfDocAccess(decodeDocAccess(got.text)), context);
      assert.equal(leavesOfStoredText(stored), leavesOfDocAccess(decodeDocAccess(stored)), context);
    }
  });
});

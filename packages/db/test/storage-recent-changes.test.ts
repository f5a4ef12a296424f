import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ChangedDoc, DocWrite } from '../src/storage/records.js';
import { RecentChanges } from '../src/storage/recent-changes.js';
import { SqliteDatabase } from '../src/storage/sqlite/sqlite-database.js';
import { makeTempDir } from './support/tmp-dir.js';

const tmp = makeTempDir('divan-recent-');
after(() => tmp.cleanup());
let files = 0;

/** Every change after `since`, through `next` (what foldChangedBodies does from memory). */
function all(
  recent: RecentChanges,
  since: number,
  bodyOf: (id: string, rev: string) => string | undefined = () => undefined,
): ChangedDoc[] | undefined {
  const out: ChangedDoc[] = [];
  for (;;) {
    const next = recent.next(since, bodyOf);
    if (next === undefined) return undefined;
    if (next === null) return out;
    out.push(next);
    since = next.seq;
  }
}

describe('RecentChanges', () => {
  it('covers the sequences recorded since it was made, each document at its last write', () => {
    const recent = new RecentChanges(10, 1 << 20);
    assert.equal(recent.covers(9), false);
    assert.equal(recent.covers(10), true);
    assert.deepEqual(all(recent, 10), []);
    recent.record([
      { seq: 11, id: 'a', rev: '1-a', deleted: false, body: '{"n":1}', tree: 't' },
      { seq: 12, id: 'b', rev: '1-b', deleted: false, body: '{"n":2}', tree: 't' },
      { seq: 13, id: 'a', rev: '2-a', deleted: true, body: '{}', tree: 't' },
    ]);
    assert.equal(all(recent, 9), undefined, 'seq 10 is not known');
    assert.deepEqual(all(recent, 10), [
      { id: 'b', seq: 12, rev: '1-b', deleted: false, body: '{"n":2}', tree: 't' },
      { id: 'a', seq: 13, rev: '2-a', deleted: true, body: undefined, tree: 't' },
    ]);
    assert.deepEqual(
      all(recent, 12)?.map((c) => c.seq),
      [13],
    );
    assert.deepEqual(all(recent, 13), []);
  });

  it('asks for the winner body a write did not carry', () => {
    const recent = new RecentChanges(0, 1 << 20);
    recent.record([{ seq: 1, id: 'a', rev: '2-w', deleted: false, body: undefined, tree: 't' }]);
    const asked: string[] = [];
    const bodyOf = (id: string, rev: string): string => {
      asked.push(`${id} ${rev}`);
      return '{"w":true}';
    };
    const changes = all(recent, 0, bodyOf);
    assert.deepEqual(asked, ['a 2-w']);
    assert.equal(changes?.[0]?.body, '{"w":true}');
  });

  it('forgets the oldest writes read beyond its byte budget, and never has gaps', () => {
    const recent = new RecentChanges(0, 110);
    const body = `{"pad":"${'x'.repeat(40)}"}`; // 50 bytes, and a tree of 1
    const write = (seq: number) => ({ seq, id: `d${seq}`, rev: '1-x', deleted: false, body, tree: 't' });
    recent.record([write(1), write(2)]);
    assert.deepEqual(
      all(recent, 0)?.map((c) => c.id),
      ['d1', 'd2'],
    );
    recent.record([write(3)]);
    assert.equal(recent.covers(0), false, 'three bodies are over budget: the first (read) went');
    assert.equal(recent.covers(1), true);
    assert.deepEqual(
      all(recent, 1)?.map((c) => c.id),
      ['d2', 'd3'],
    );
    // A gap (a write this cache did not see) starts it over.
    recent.record([{ seq: 9, id: 'z', rev: '1-z', deleted: false, body: '{}', tree: 't' }]);
    assert.equal(recent.covers(3), false);
    assert.deepEqual(
      all(recent, 8)?.map((c) => c.id),
      ['z'],
    );
  });

  it('stops keeping writes nobody reads, and starts again at the next read', () => {
    const recent = new RecentChanges(0, 110);
    const body = `{"pad":"${'x'.repeat(40)}"}`;
    const write = (seq: number) => ({ seq, id: `d${seq}`, rev: '1-x', deleted: false, body, tree: 't' });
    recent.record([write(1), write(2), write(3)]);
    // d1 would be forgotten unread: everything goes, and nothing before the next write is covered.
    assert.equal(recent.covers(2), false);
    recent.record([write(4)]);
    assert.equal(recent.covers(3), false, 'not kept: nobody read since');
    assert.deepEqual(all(recent, 4), [], 'up to date: nothing after 4');
    recent.record([write(5), write(6)]);
    assert.deepEqual(
      all(recent, 4)?.map((c) => c.id),
      ['d5', 'd6'],
      'kept again after a read',
    );
  });
});

describe('RecentChanges with long trees', () => {
  it("counts each write's tree against the budget: a long history's writes do not pile up", () => {
    const recent = new RecentChanges(0, 100_000);
    const tree = `1:${Array.from({ length: 1000 }, () => 'f'.repeat(32)).join('.')}`; // ~33 KB
    const write = (seq: number) => ({ seq, id: 'long', rev: `${seq}-x`, deleted: false, body: '{}', tree });
    recent.record([write(1), write(2)]);
    assert.deepEqual(
      all(recent, 0)?.map((c) => c.seq),
      [2],
      'two fit; the document at its last write',
    );
    recent.record([write(3), write(4)]);
    assert.equal(recent.covers(0), false, 'four trees are over budget: the oldest (read) went');
    assert.equal(recent.covers(1), true);
    recent.record([write(5), write(6), write(7)]);
    assert.equal(recent.covers(4), false, 'unread writes beyond the budget: it stops keeping them');
  });
});

describe('foldChangedBodies from memory', () => {
  // Writes as the documents layer makes them: a new winner with its body, a deletion, or a
  // losing revision (the winner and its body stay; the write carries only the loser's body).
  const writeArb = fc.record({
    doc: fc.integer({ min: 0, max: 7 }),
    kind: fc.constantFrom('live', 'live', 'deleted', 'loser'),
    size: fc.integer({ min: 0, max: 120 }),
  });

  it('lists what the tables list, for every starting sequence, with a budget that forgets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(writeArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 200, max: 2000 }),
        (batches, budget) => {
          const path = join(tmp.dir, `r${++files}.sqlite`);
          const store = new SqliteDatabase('db', path, { durability: 'normal', recentBytes: budget });
          const revs = new Map<string, { gen: number; rev: string; deleted: boolean }>();
          try {
            for (const [b, batch] of batches.entries()) {
              // Some batches have an index following right behind (it reads what came before).
              if (b % 2 === 1) [...store.foldChangedBodies(Math.max(0, store.meta().updateSeq - 3))];
              const writes = new Map<string, DocWrite>();
              for (const { doc, kind, size } of batch) {
                const id = `doc${doc}`;
                const prev = revs.get(id);
                const gen = (prev?.gen ?? 0) + 1;
                const rev = `${gen}-${kind}${size}`;
                const body = JSON.stringify({ id, gen, pad: 'p'.repeat(size) });
                let record;
                if (kind === 'loser' && prev !== undefined)
                  record = { id, rev: prev.rev, deleted: prev.deleted, tree: `t${gen}` };
                else record = { id, rev, deleted: kind === 'deleted', tree: `t${gen}` };
                revs.set(id, { gen, rev: record.rev, deleted: record.deleted });
                const write = writes.get(id) ?? { record, bodies: [] };
                write.record = record;
                write.bodies.push({ rev, body });
                writes.set(id, write);
              }
              store.writeDocs([...writes.values()]);
            }
            const top = store.meta().updateSeq;
            // A second handle on the file has no recent writes: it reads the tables.
            const fromTables = new SqliteDatabase('db', path, { durability: 'normal' });
            try {
              for (let since = 0; since <= top; since++) {
                assert.deepEqual(
                  [...store.foldChangedBodies(since)],
                  [...fromTables.foldChangedBodies(since)],
                  `since ${since}`,
                );
              }
            } finally {
              fromTables.close();
            }
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('goes on from the tables when writes made during a fold forget where it was', () => {
    const path = join(tmp.dir, `r${++files}.sqlite`);
    const store = new SqliteDatabase('db', path, { durability: 'normal', recentBytes: 300 });
    const write = (id: string, n: number): DocWrite => ({
      record: { id, rev: `${n}-r`, deleted: false, tree: 't' },
      bodies: [{ rev: `${n}-r`, body: JSON.stringify({ n, pad: 'x'.repeat(40) }) }],
    });
    try {
      store.writeDocs(['a', 'b', 'c', 'd'].map((id) => write(id, 1)));
      const fold = store.foldChangedBodies(0);
      const first = [fold.next().value as ChangedDoc, fold.next().value as ChangedDoc];
      assert.deepEqual(
        first.map((c) => c.id),
        ['a', 'b'],
      );
      // Enough writes to push every earlier one out of memory; 'c' changes again meanwhile.
      store.writeDocs(['c', 'e', 'f', 'g', 'h', 'i'].map((id) => write(id, 2)));
      const rest = [...fold];
      const fromTables = new SqliteDatabase('db', path, { durability: 'normal' });
      try {
        assert.deepEqual(rest, [...fromTables.foldChangedBodies(first[1]!.seq)]);
        assert.deepEqual(
          rest.map((c) => c.id),
          ['d', 'c', 'e', 'f', 'g', 'h', 'i'],
        );
      } finally {
        fromTables.close();
      }
    } finally {
      store.close();
    }
  });
});

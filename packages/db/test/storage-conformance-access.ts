/**
 * The storage conformance suite's part for access rows (per-document `_access`: `DocWrite.access`,
 * `readersOf`, `foldReadable`, `foldAccessChanges`), run against every engine by the
 * storage-conformance-*.test.ts files beside the rest of the suite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage } from '../src/storage/contract.js';
import type { AccessChange, DocRecord, DocWrite } from '../src/storage/records.js';
import { all, type EngineUnderTest } from './storage-conformance.js';

function write(id: string, rev: string, readers: string[], deleted = false): DocWrite {
  return {
    record: { id, rev, deleted, tree: `tree:${rev}` },
    bodies: [{ rev, body: '{}' }],
    access: { leaves: `leaves:${rev}`, readers },
  };
}

const writing = (writes: DocWrite[]) => (records: ReadonlyMap<string, DocRecord>) => ({
  writes,
  result: [...records.values()].map((r) => [r.id, r.access]),
});

const changesOf = (rows: AccessChange[]) => rows.map((c) => [c.seq, c.record.id, c.removed]);

export function accessRowsConformance(label: string, engine: EngineUnderTest): void {
  describe(`storage conformance, access rows: ${label}`, () => {
    let opened: Storage;
    before(async () => {
      opened = await engine.open();
    });
    after(async () => {
      await opened.close();
      await engine.cleanup();
    });
    let n = 0;
    // `storage.close()` below is the suite's `after`: each test leaves the storage open.
    const fresh = async () => {
      const storage = {
        close: async () => {},
        destroy: (name: string) => opened.destroy(name),
        create: (name: string) => opened.create(name),
      };
      return { storage, db: await opened.create(`access-${++n}`) };
    };

    it('keeps readers with each write, in its transaction, and gives the planner its text back', async () => {
      const { storage, db } = await fresh();
      await db.update(['a', 'b'], writing([write('a', '1-a', ['alice', 'team']), write('b', '1-b', ['bob'])]));
      assert.deepEqual(await db.readersOf(['a', 'b', 'none']), [['alice', 'team'], ['bob'], []]);
      // Without `access: true` the records carry no text; with it, the text of the last write.
      const plain = await db.update(['a'], writing([]));
      assert.deepEqual(plain.result, [['a', undefined]]);
      const asked = await db.update(['a', 'b'], writing([]), { access: true });
      assert.deepEqual(asked.result, [
        ['a', 'leaves:1-a'],
        ['b', 'leaves:1-b'],
      ]);
      // A plan that throws leaves no access row behind.
      await assert.rejects(
        db.update(['c'], () => {
          throw new Error('planner refused');
        }),
      );
      assert.deepEqual(await db.readersOf(['c']), [[]]);
      await storage.close();
    });

    it("folds a principal set's readable documents by id, each once, without tombstones", async () => {
      const { storage, db } = await fresh();
      await db.update(
        ['a', 'b', 'c', 'd', 'e'],
        writing([
          write('a', '1-a', ['alice']),
          write('b', '1-b', ['alice', 'team']),
          write('c', '1-c', ['bob']),
          write('d', '1-d', ['team']),
          write('e', '1-e', ['alice'], true),
        ]),
      );
      const ids = async (principals: string[], range = {}) =>
        (await all(db.foldReadable(principals, range))).map((r) => r.id);
      assert.deepEqual(await ids(['alice', 'team']), ['a', 'b', 'd']);
      assert.deepEqual(await ids(['alice']), ['a', 'b']);
      assert.deepEqual(await ids(['alice'], { includeDeleted: true }), ['a', 'b', 'e']);
      assert.deepEqual(await ids(['alice', 'team'], { descending: true }), ['d', 'b', 'a']);
      assert.deepEqual(await ids(['alice', 'team'], { start: 'b', end: 'd', inclusiveEnd: false }), ['b']);
      assert.deepEqual(await ids(['nobody']), []);
      assert.equal(await db.countReadable(['alice', 'team'], {}), 3);
      assert.equal(await db.countReadable(['alice', 'team'], { end: 'b', inclusiveEnd: false }), 1);
      await storage.close();
    });

    it('reports changes by the newest row of any principal, and removals once', async () => {
      const { storage, db } = await fresh();
      await db.update(['a', 'b'], writing([write('a', '1-a', ['alice', 'team']), write('b', '1-b', ['bob'])])); // 1, 2
      await db.update(['a'], writing([write('a', '2-a', ['team'])])); // 3: alice loses it, team keeps it
      await db.update(['b'], writing([write('b', '2-b', ['alice'])])); // 4: bob loses it, alice gains it
      const feed = async (principals: string[], since: number, withRemoved: boolean, descending = false) =>
        changesOf(await all(db.foldAccessChanges(principals, since, { withRemoved, descending })));
      assert.deepEqual(await feed(['alice'], 0, false), [[4, 'b', false]]);
      assert.deepEqual(await feed(['alice'], 0, true), [
        [3, 'a', true],
        [4, 'b', false],
      ]);
      // alice in team reads `a` still: its row at 3 is a change, not a removal.
      assert.deepEqual(await feed(['alice', 'team'], 0, true), [
        [3, 'a', false],
        [4, 'b', false],
      ]);
      assert.deepEqual(await feed(['alice', 'team'], 3, true), [[4, 'b', false]]);
      assert.deepEqual(await feed(['bob'], 0, true), [[4, 'b', true]]);
      assert.deepEqual(await feed(['bob'], 0, false), []);
      assert.deepEqual(await feed(['alice', 'team'], 0, true, true), [
        [4, 'b', false],
        [3, 'a', false],
      ]);
      assert.equal(await db.countAccessChanges(['alice'], 0, false), 1);
      assert.equal(await db.countAccessChanges(['alice'], 0, true), 2);
      assert.equal(await db.countAccessChanges(['alice', 'team'], 3, true), 1);
      await storage.close();
    });

    it('a purge that leaves a record rewrites its access rows at its new sequence, in one step', async () => {
      const { storage, db } = await fresh();
      await db.update(['a'], writing([write('a', '1-a', ['alice'])])); // 1
      // The planner sees the stored text; the purge's new record carries the rows of what is left.
      let seen: string | undefined;
      const done = await db.purge(['a'], 100, (records) => {
        seen = records.get('a')?.access;
        return {
          purges: [
            {
              id: 'a',
              revs: ['2-x'],
              record: { id: 'a', rev: '1-a', deleted: false, tree: 'tree:1-a' },
              access: { leaves: 'leaves:after', readers: ['alice', 'bob'] },
            },
          ],
          result: null,
        };
      });
      assert.equal(seen, 'leaves:1-a');
      assert.equal(done.updateSeq, 2);
      assert.deepEqual(await db.readersOf(['a']), [['alice', 'bob']]);
      assert.deepEqual(changesOf(await all(db.foldAccessChanges(['bob'], 1, {}))), [[2, 'a', false]]);
      const asked = await db.update(['a'], writing([]), { access: true });
      assert.deepEqual(asked.result, [['a', 'leaves:after']]);
      // Narrowed by a purge: the principal who lost it gets a removed row at that sequence.
      await db.purge(['a'], 100, () => ({
        purges: [
          {
            id: 'a',
            revs: ['2-y'],
            record: { id: 'a', rev: '1-a', deleted: false, tree: 'tree:1-a' },
            access: { leaves: 'leaves:narrow', readers: ['alice'] },
          },
        ],
        result: null,
      }));
      assert.deepEqual(changesOf(await all(db.foldAccessChanges(['bob'], 0, { withRemoved: true }))), [[3, 'a', true]]);
      await storage.close();
    });

    it('records a role log: the first roles as they are, then each document a change gives or takes', async () => {
      const { storage, db } = await fresh();
      await db.update(
        ['a', 'b', 'c'],
        writing([write('a', '1-a', ['team']), write('b', '1-b', ['team', 'alice']), write('c', '1-c', ['bob'])]),
      ); // 1, 2, 3
      const rows = async (since: number) =>
        (await all(db.foldRoleRows('alice', since))).map((row) => [row.id, row.seq, row.removed]);
      const first = await db.recordRoles('alice', ['team'], ['alice', '_users', 'team'], 1);
      assert.deepEqual(first, { log: [{ role: 'team', seq: 0, removed: false }] });
      assert.deepEqual(await db.recordRoles('alice', ['team'], ['alice', '_users', 'team'], 1), first);
      assert.equal((await db.counters()).updateSeq, 3);
      await db.update(['d'], writing([write('d', '1-d', ['team'])])); // 4
      await db.update(['a'], writing([write('a', '2-a', ['bob'])])); // 5: team loses `a`
      // Team taken away: what team read while alice held it and she does not read now, one sequence each.
      // An older account than the one recorded changes nothing (a late reader cannot undo a newer one).
      assert.deepEqual(await db.recordRoles('alice', [], ['alice', '_users'], 0), first);
      assert.equal((await db.counters()).updateSeq, 5);
      const lost = await db.recordRoles('alice', [], ['alice', '_users'], 2);
      assert.deepEqual(lost, { log: [{ role: 'team', seq: 6, removed: true }], seq: 7 });
      assert.deepEqual(await rows(0), [
        ['a', 6, true],
        ['d', 7, true],
      ]);
      assert.equal((await db.counters()).updateSeq, 7);
      // Given back: what team reads now and alice did not read already (`b` is hers by name).
      const gained = await db.recordRoles('alice', ['team'], ['alice', '_users', 'team'], 3);
      assert.deepEqual(gained, { log: [{ role: 'team', seq: 8, removed: false }], seq: 8 });
      assert.deepEqual(await rows(7), [['d', 8, false]]);
      // A role that reads nothing still moves the sequence once; other users are apart.
      const empty = await db.recordRoles('alice', ['team', 'nobody'], ['alice', '_users', 'team', 'nobody'], 4);
      assert.equal(empty.seq, 9);
      assert.deepEqual(await rows(8), []);
      assert.deepEqual(await all(db.foldRoleRows('bob', 0)), []);
      assert.equal((await db.counters()).updateSeq, 9);
      await storage.close();
    });

    it('forgets a document purged away, and a deleted database', async () => {
      const { storage, db } = await fresh();
      await db.update(['a', 'b'], writing([write('a', '1-a', ['alice']), write('b', '1-b', ['alice'])]));
      await db.purge(['a'], 100, () => ({ purges: [{ id: 'a', revs: ['1-a'], record: null }], result: null }));
      assert.deepEqual(await db.readersOf(['a', 'b']), [[], ['alice']]);
      assert.deepEqual(
        (await all(db.foldAccessChanges(['alice'], 0, { withRemoved: true }))).map((c) => c.record.id),
        ['b'],
      );
      await storage.destroy(db.name);
      const again = await storage.create(db.name);
      assert.deepEqual(await again.readersOf(['b']), [[]]);
      assert.deepEqual(await all(again.foldReadable(['alice'], {})), []);
      await storage.close();
    });
  });
}

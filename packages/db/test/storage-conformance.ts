/**
 * The storage conformance suite: written once against the contract (src/storage/contract.ts),
 * run against every engine (storage-conformance-*.test.ts). An engine is given as a factory that
 * opens storage on one backing place (a folder, a PostgreSQL schema): called twice, the second
 * storage sees what the first one committed (after it closed, at least).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DocRecord, DocWrite, Page } from '../src/storage/records.js';
import type { DocumentStore, Storage } from '../src/storage/contract.js';
import type { IndexMeta, StoredIndex } from '../src/storage/view-index-store.js';
import { StorageExistsError } from '../src/storage/contract.js';

export interface EngineUnderTest {
  /** Opens storage on the engine's backing place (the same place every call). */
  open(): Promise<Storage>;
  /**
   * For engines shared by several server nodes: opens storage as another node would (its own
   * local copies), while the first one stays open.
   */
  openOtherNode?(): Promise<Storage>;
  /** For shared engines: ends the connection holding an index's lock, as its node's death would. */
  killLockHolder?(db: string, signature: string): Promise<void>;
  /** Removes the backing place, after every storage opened on it is closed. */
  cleanup(): Promise<void>;
  /**
   * Makes a database (its storage closed) look as an older schema left it, with no count of its
   * stale bodies (the engine's upgrade is then `countStaleBodies`).
   */
  forgetStaleCount?(db: string): Promise<void>;
}

/** Collects every row of a fold. */
export async function all<T>(pages: AsyncIterable<Page<T>>): Promise<T[]> {
  const rows: T[] = [];
  for await (const page of pages) rows.push(...page);
  return rows;
}

/** A write of a document whose one revision is `rev` (tree text is opaque to storage). */
function write(id: string, rev: string, body: string | undefined, deleted = false, tree = `tree:${rev}`): DocWrite {
  return {
    record: { id, rev, deleted, tree },
    bodies: body === undefined ? [] : [{ rev, body }],
  };
}

/** A plan that writes the given documents and reports which ids it found. */
const writing = (writes: DocWrite[]) => (records: ReadonlyMap<string, DocRecord>) => ({
  writes,
  result: [...records.keys()],
});

const generation = (rev: string): number => Number(rev.slice(0, rev.indexOf('-')));

export function storageConformance(label: string, engine: EngineUnderTest): void {
  describe(`storage conformance: ${label}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await engine.open();
    });
    after(async () => {
      await storage.close();
      await engine.cleanup();
    });

    let dbCount = 0;
    const fresh = async (): Promise<DocumentStore> => storage.create(`db${++dbCount}`);

    describe('databases', () => {
      it('are created, listed in code point order, opened and destroyed', async () => {
        await storage.create('zeta');
        await storage.create('alpha/beta');
        await storage.create('alpha');
        const names = await storage.listDatabases();
        const ours = names.filter((n) => ['zeta', 'alpha/beta', 'alpha'].includes(n));
        assert.deepEqual(ours, ['alpha', 'alpha/beta', 'zeta']);
        assert.equal((await storage.open('alpha'))?.name, 'alpha');
        assert.equal(await storage.open('nope'), undefined);
        await assert.rejects(storage.create('alpha'), StorageExistsError);
        assert.equal(await storage.destroy('alpha'), true);
        assert.equal(await storage.destroy('alpha'), false);
        assert.equal(await storage.open('alpha'), undefined);
        assert.ok(!(await storage.listDatabases()).includes('alpha'));
      });

      it('a database created again after destroy is empty', async () => {
        const db = await storage.create('again');
        await db.update(['a'], writing([write('a', '1-a', '{"x":1}')]));
        await db.putLocal({ id: '_local/l', rev: '0-1', body: '{}' });
        await db.setProp('revs_limit', '5');
        await storage.destroy('again');
        const back = await storage.create('again');
        assert.deepEqual(await back.counters(), { updateSeq: 0, docCount: 0, docDelCount: 0 });
        assert.equal(await back.getDoc('a'), undefined);
        assert.equal(await back.getLocal('_local/l'), undefined);
        assert.equal(await back.getProp('revs_limit'), undefined);
      });

      it('keep their documents apart', async () => {
        const one = await fresh();
        const two = await fresh();
        await one.update(['same'], writing([write('same', '1-a', '{"in":1}')]));
        await two.update(['same'], writing([write('same', '1-b', '{"in":2}')]));
        assert.equal((await one.getDoc('same'))?.rev, '1-a');
        assert.equal(await two.getBody('same', '1-b'), '{"in":2}');
        assert.equal(await two.getBody('same', '1-a'), undefined);
        assert.equal((await one.counters()).updateSeq, 1);
      });
    });

    describe('the write path', () => {
      it('gives a batch consecutive sequences in the order of its writes, and keeps counters', async () => {
        const db = await fresh();
        const { result, seqs } = await db.update(
          ['b', 'a', 'c'],
          writing([write('b', '1-b', '{"n":"b"}'), write('a', '1-a', '{"n":"a"}'), write('c', '1-c', undefined, true)]),
        );
        assert.deepEqual(result, [], 'the plan saw no records');
        assert.deepEqual(seqs, [1, 2, 3]);
        assert.deepEqual(await db.counters(), { updateSeq: 3, docCount: 2, docDelCount: 1 });
        const meta = await db.meta();
        assert.equal(meta.updateSeq, 3);
        assert.ok(meta.sizes.external >= '{"n":"b"}'.length * 2);
        assert.equal(typeof meta.createdAt, 'number');
        const [b, missing, a] = await db.getDocs(['b', 'missing', 'a']);
        assert.deepEqual(b, { id: 'b', seq: 1, rev: '1-b', deleted: false, tree: 'tree:1-b' });
        assert.equal(missing, undefined);
        assert.equal(a?.seq, 2);
        assert.equal(await db.getBody('a', '1-a'), '{"n":"a"}');
        assert.equal(await db.getBody('a', '2-x'), undefined);
        // The record with its winner's body in one read; a tombstone's body as stored, if any.
        assert.deepEqual(await db.getDocWithBody('b'), {
          record: { id: 'b', seq: 1, rev: '1-b', deleted: false, tree: 'tree:1-b' },
          body: '{"n":"b"}',
        });
        const tombstone = await db.getDocWithBody('c');
        assert.deepEqual([tombstone?.record.deleted, tombstone?.body], [true, await db.getBody('c', '1-c')]);
        assert.equal(await db.getDocWithBody('missing'), undefined);
        assert.deepEqual(
          await db.getBodies([
            { id: 'b', rev: '1-b' },
            { id: 'a', rev: '2-x' },
            { id: 'a', rev: '1-a' },
            { id: 'nope', rev: '1-a' },
            { id: 'b', rev: '1-b' },
          ]),
          ['{"n":"b"}', undefined, '{"n":"a"}', undefined, '{"n":"b"}'],
        );
        assert.deepEqual(await db.getBodies([]), []);
      });

      it('shows the plan the current records, moves an updated document to the newest sequence', async () => {
        const db = await fresh();
        await db.update(['a', 'b'], writing([write('a', '1-a', '{"v":1}'), write('b', '1-b', '{}')]));
        // An engine may run a plan more than once (contract.ts `Planner`): the run it commits is the last.
        let seen: string[] = [];
        await db.update(['a', 'zz'], (records) => {
          seen = [...records.values()].map((r) => `${r.id}@${r.seq}:${r.rev}`);
          return {
            writes: [
              {
                record: { id: 'a', rev: '2-a', deleted: false, tree: 'tree:2-a' },
                bodies: [{ rev: '2-a', body: '{"v":2}' }],
                dropBodies: ['1-a'],
              },
            ],
            result: null,
          };
        });
        assert.deepEqual(seen, ['a@1:1-a']);
        const changes = await all(db.foldChanges(0));
        assert.deepEqual(
          changes.map((r) => `${r.id}@${r.seq}`),
          ['b@2', 'a@3'],
        );
        assert.equal(await db.getBody('a', '1-a'), undefined, 'dropped body');
        assert.equal(await db.getBody('a', '2-a'), '{"v":2}');
        // Deleting moves it from the live to the deleted count.
        await db.update(['a'], writing([write('a', '3-a', '{}', true)]));
        assert.deepEqual(await db.counters(), { updateSeq: 4, docCount: 1, docDelCount: 1 });
      });

      it('is all or nothing: a plan that throws, or a bad write, leaves everything as it was', async () => {
        const db = await fresh();
        await db.update(['a'], writing([write('a', '1-a', '{}')]));
        await assert.rejects(
          db.update(['a', 'b'], () => {
            throw new Error('planned failure');
          }),
          /planned failure/,
        );
        const bad = { record: { id: 'c', rev: '1-c', deleted: false, tree: 't' }, bodies: [{ rev: '1-c', body: 5 }] };
        await assert.rejects(
          db.update(['b', 'c'], writing([write('b', '1-b', '{}'), bad as unknown as DocWrite])),
          'a body that is not text fails the whole batch',
        );
        assert.deepEqual(await db.counters(), { updateSeq: 1, docCount: 1, docDelCount: 0 });
        assert.equal(await db.getDoc('b'), undefined);
        assert.deepEqual(
          (await all(db.foldChanges(0))).map((r) => r.id),
          ['a'],
        );
      });

      it('loses no revision under concurrent writers: each plan sees the previous commit', async () => {
        const db = await fresh();
        await db.update(['n'], writing([write('n', '0-start', '{}')]));
        const bump = () =>
          db.update(['n'], (records) => {
            const rev = `${generation(records.get('n')!.rev) + 1}-x`;
            return { writes: [write('n', rev, `{"rev":"${rev}"}`)], result: rev };
          });
        const results = await Promise.all(Array.from({ length: 25 }, bump));
        assert.deepEqual(
          results.map((r) => r.result).sort((x, y) => generation(x) - generation(y)),
          Array.from({ length: 25 }, (_, i) => `${i + 1}-x`),
        );
        assert.equal((await db.getDoc('n'))?.rev, '25-x');
        // Sequence order is commit order: the higher generation always has the higher sequence.
        const bySeq = [...results].sort((x, y) => x.seqs[0]! - y.seqs[0]!);
        assert.deepEqual(
          bySeq.map((r) => generation(r.result)),
          Array.from({ length: 25 }, (_, i) => i + 1),
        );
        assert.equal((await db.counters()).updateSeq, 26);
      });

      it('concurrent batches on different documents all commit, with distinct increasing sequences', async () => {
        const db = await fresh();
        const batches = Array.from({ length: 20 }, (_, b) =>
          db.update([`b${b}-1`, `b${b}-2`], writing([write(`b${b}-1`, '1-a', '{}'), write(`b${b}-2`, '1-a', '{}')])),
        );
        const done = await Promise.all(batches);
        const seqs = done.flatMap((d) => d.seqs);
        assert.equal(new Set(seqs).size, 40);
        for (const d of done) assert.equal(d.seqs[1], d.seqs[0]! + 1, 'a batch takes consecutive sequences');
        const changes = await all(db.foldChanges(0));
        assert.equal(changes.length, 40);
        assert.deepEqual(
          changes.map((c) => c.seq),
          [...seqs].sort((x, y) => x - y),
        );
      });
    });

    describe('long one-line histories (a write that says how it grew the tree)', () => {
      /** A one-line history of plain ids from generation `from` to `to` (revisions/serialize.ts's form). */
      const hexId = (n: number): string => createHash('md5').update(`rev${n}`).digest('hex');
      const line = (from: number, to: number, deletedLeaf = false): string => {
        const ids: string[] = [];
        for (let n = from; n <= to; n++) ids.push(hexId(n));
        return `${from}:${ids.join('.')}${deletedLeaf ? 'd' : ''}`;
      };
      /** Every read of a record gives `tree`. */
      const readsBack = async (db: DocumentStore, id: string, tree: string, others: string[] = []): Promise<void> => {
        assert.equal((await db.getDoc(id))?.tree, tree, 'getDoc');
        assert.equal((await db.getDocWithBody(id))?.record.tree, tree, 'getDocWithBody');
        // Eight ids or more take the engines' batched lookups.
        const many = [id, ...others, ...Array.from({ length: 8 }, (_, i) => `missing${i}`)];
        assert.equal((await db.getDocs(many))[0]?.tree, tree, 'getDocs');
        assert.equal((await db.getDocsWithBodies(many))[0]?.tree, tree, 'getDocsWithBodies');
        const folded = (await all(db.foldDocs({ includeDeleted: true }))).find((r) => r.id === id);
        assert.equal(folded?.tree, tree, 'foldDocs');
        assert.equal((await all(db.foldDocBodies({ includeDeleted: true }))).find((r) => r.id === id)?.tree, tree);
        assert.equal((await all(db.foldChanges(0))).find((r) => r.id === id)?.tree, tree, 'foldChanges');
        assert.equal((await all(db.foldChangedBodies(0))).find((r) => r.id === id)?.tree, tree, 'foldChangedBodies');
      };
      /** Grows `id` from generation `at` one revision at a time to `to`, `limit` revisions kept, as the planner says it did. */
      const grow = async (db: DocumentStore, id: string, at: number, to: number, limit: number): Promise<void> => {
        for (let n = at + 1; n <= to; n++) {
          await db.update([id], (records) => {
            const stored = records.get(id)!.tree;
            const start = Number(stored.slice(0, stored.indexOf(':')));
            const from = Math.max(start, n - limit + 1);
            assert.equal(stored, line(start, n - 1), `the plan sees the stored tree at ${n - 1}`);
            return {
              writes: [
                {
                  record: { id, rev: `${n}-${hexId(n)}`, deleted: false, tree: line(from, n) },
                  bodies: [{ rev: `${n}-${hexId(n)}`, body: `{"n":${n}}` }],
                  treeGrowth: { dropped: from - start, added: 1 },
                },
              ],
              result: null,
            };
          });
        }
      };

      it('reads back exactly as written while it grows past the revs limit, and after other writes', async () => {
        const db = await fresh();
        await db.update(['other'], writing([write('other', '1-o', '{}', false, line(1, 1))]));
        await db.update(['h'], writing([write('h', `1-${hexId(1)}`, '{"n":1}', false, line(1, 1))]));
        // Past any engine's threshold, then stemmed at 150 revisions for a while.
        await grow(db, 'h', 1, 400, 150);
        await readsBack(db, 'h', line(251, 400), ['other']);
        assert.equal(await db.getBody('h', `400-${hexId(400)}`), '{"n":400}');
        // A revs limit cut down to 3: the tree is rewritten, not grown.
        await grow(db, 'h', 400, 401, 3);
        await readsBack(db, 'h', line(399, 401));
        await grow(db, 'h', 401, 700, 1000);
        await readsBack(db, 'h', line(399, 700));
        // A write that says nothing of the tree (a branch, say) stores what it is given.
        const branched = `${line(399, 700)}(${hexId(701)},${hexId(702)})`;
        await db.update(['h'], writing([write('h', `701-${hexId(701)}`, '{}', false, branched)]));
        await readsBack(db, 'h', branched);
        // A long line written whole (replicated), then grown; a tombstone on its leaf.
        await db.update(['h'], writing([write('h', `900-${hexId(900)}`, '{}', false, line(1, 900))]));
        await readsBack(db, 'h', line(1, 900));
        await grow(db, 'h', 900, 960, 1000);
        await db.update(['h'], (records) => ({
          writes: [
            {
              record: { id: 'h', rev: `961-${hexId(961)}`, deleted: true, tree: line(2, 961, true) },
              bodies: [{ rev: `961-${hexId(961)}`, body: '{}' }],
              treeGrowth: { dropped: 1, added: 1 },
            },
          ],
          result: records.size,
        }));
        await readsBack(db, 'h', line(2, 961, true));
        assert.deepEqual(await db.counters(), { updateSeq: 764, docCount: 1, docDelCount: 1 });
        // Compaction rewrites the tree; a purge that removes the document leaves nothing of it.
        await db.compact(['h'], () => [{ id: 'h', tree: line(3, 961, true), dropBodies: [] }]);
        await readsBack(db, 'h', line(3, 961, true));
        await db.purge(['h'], 1000, () => ({
          purges: [{ id: 'h', revs: [`961-${hexId(961)}`], record: null }],
          result: null,
        }));
        assert.equal(await db.getDoc('h'), undefined);
        // A new document (maybe under the purged one's storage key) starts afresh.
        await db.update(['h2'], writing([write('h2', `1-${hexId(1)}`, '{}', false, line(1, 1))]));
        await grow(db, 'h2', 1, 200, 1000);
        await readsBack(db, 'h2', line(1, 200), ['other']);
        assert.equal((await db.getDoc('other'))?.tree, line(1, 1));
      });

      it('survives closing and opening the storage again', async () => {
        const name = `db${++dbCount}`;
        const db = await storage.create(name);
        await db.update(['h'], writing([write('h', `1-${hexId(1)}`, '{}', false, line(1, 1))]));
        await grow(db, 'h', 1, 300, 120);
        await storage.close();
        storage = await engine.open();
        const again = (await storage.open(name))!;
        await readsBack(again, 'h', line(181, 300));
        await grow(again, 'h', 300, 330, 120);
        await readsBack(again, 'h', line(211, 330));
      });
    });

    describe('folds', () => {
      let db: DocumentStore;
      // Code point order: 'B' < 'Z' < '_design/…' < 'a' < U+E000 < U+1F600 (JS's UTF-16 sort puts the emoji first).
      const ids = ['a', 'B', '\u{1F600}', '_design/x', 'Z', '\uE000', 'b', 'ab', 'deleted'];
      const ordered = ['B', 'Z', '_design/x', 'a', 'ab', 'b', 'deleted', '\uE000', '\u{1F600}'];
      before(async () => {
        db = await fresh();
        await db.update(
          ids,
          writing(
            ids.map((id) =>
              write(id, '1-r', id === 'deleted' ? undefined : `{"id":${JSON.stringify(id)}}`, id === 'deleted'),
            ),
          ),
        );
        for (let i = 0; i < 600; i++) {
          const id = `m${String(i).padStart(4, '0')}`;
          await db.update([id], writing([write(id, '1-m', '{}')]));
        }
      });
      const idsOf = async (pages: AsyncIterable<Page<{ id: string }>>) => (await all(pages)).map((r) => r.id);

      it('foldDocs walks ids in code point order, live documents unless asked', async () => {
        const small = (await idsOf(db.foldDocs({}))).filter((id) => !id.startsWith('m'));
        assert.deepEqual(
          small,
          ordered.filter((id) => id !== 'deleted'),
        );
        const withDeleted = (await idsOf(db.foldDocs({ includeDeleted: true }))).filter((id) => !id.startsWith('m'));
        assert.deepEqual(withDeleted, ordered);
      });

      it('foldDocs honours start, end, inclusiveEnd and descending; countDocs agrees', async () => {
        const cases = [
          { start: 'Z', end: 'ab' },
          { start: 'Z', end: 'ab', inclusiveEnd: false },
          { start: 'b', end: 'Z', descending: true },
          { start: 'b', end: 'Z', descending: true, inclusiveEnd: false },
          { start: 'm0100', end: 'm0399' },
          { start: 'zz' },
          { end: 'B' },
          { start: '\uE000', includeDeleted: true },
        ];
        const expected = [
          ['Z', '_design/x', 'a', 'ab'],
          ['Z', '_design/x', 'a'],
          ['b', 'ab', 'a', '_design/x', 'Z'],
          ['b', 'ab', 'a', '_design/x'],
        ];
        for (const [i, range] of cases.entries()) {
          const got = await idsOf(db.foldDocs(range));
          if (expected[i] !== undefined) assert.deepEqual(got, expected[i], JSON.stringify(range));
          if (i === 4) assert.equal(got.length, 300);
          assert.equal(await db.countDocs(range), got.length, `count ${JSON.stringify(range)}`);
        }
      });

      it('rangeStats counts live and deleted documents and sums live bodies in [start, end) alone', async () => {
        const bytes = (id: string) => Buffer.byteLength(`{"id":${JSON.stringify(id)}}`);
        // active: every stored revision body (one each here; this tombstone was written without one).
        assert.deepEqual(await db.rangeStats('a', 'b'), {
          docCount: 2,
          docDelCount: 0,
          external: bytes('a') + bytes('ab'),
          active: bytes('a') + bytes('ab'),
        });
        assert.deepEqual(await db.rangeStats('d', 'e'), { docCount: 0, docDelCount: 1, external: 0, active: 0 });
        assert.deepEqual(await db.rangeStats('b', 'b'), { docCount: 0, docDelCount: 0, external: 0, active: 0 });
        assert.equal((await db.rangeStats('m', 'n')).docCount, 600);
        assert.equal((await db.rangeStats('m', 'n')).active, 600 * 2);
        assert.deepEqual(await db.rangeStats('x', 'y'), { docCount: 0, docDelCount: 0, external: 0, active: 0 });
      });

      it("foldDocBodies is foldDocs with each live winner's body", async () => {
        for (const range of [
          {},
          { includeDeleted: true },
          { start: 'b', end: 'Z', descending: true },
          { start: 'm0100' },
        ]) {
          const records = await all(db.foldDocs(range));
          const withBodies = await all(db.foldDocBodies(range));
          assert.deepEqual(
            withBodies.map(({ id, seq, rev, deleted, tree }) => ({ id, seq, rev, deleted, tree })),
            records,
            JSON.stringify(range),
          );
          const bodies = await db.getBodies(records.map(({ id, rev }) => ({ id, rev })));
          assert.deepEqual(
            withBodies.map((doc) => doc.body),
            records.map((record, i) => (record.deleted ? undefined : bodies[i])),
          );
        }
      });

      it("getDocsWithBodies is getDocs with each live winner's body, in the order asked", async () => {
        const records = await all(db.foldDocs({ includeDeleted: true }));
        const deleted = records.filter((r) => r.deleted).map((r) => r.id);
        assert.ok(deleted.length > 0, 'the data set has tombstones');
        // Few ids (one lookup each), a page, more than a page; missing ids and repeats among them.
        for (const wanted of [
          [records[0]!.id, 'missing', deleted[0]!],
          [...records.slice(0, 40).map((r) => r.id), 'zz-missing', records[3]!.id, ...deleted.slice(0, 5)],
          records.map((r) => r.id).reverse(),
          [],
        ]) {
          const found = await db.getDocsWithBodies(wanted);
          const expected = await db.getDocs(wanted);
          assert.deepEqual(
            found.map((doc) => (doc === undefined ? undefined : { ...doc, body: undefined })),
            expected.map((record) => (record === undefined ? undefined : { ...record, body: undefined })),
          );
          const bodies = await db.getBodies(expected.map((r) => ({ id: r?.id ?? '', rev: r?.rev ?? '' })));
          assert.deepEqual(
            found.map((doc) => doc?.body),
            expected.map((record, i) => (record === undefined || record.deleted ? undefined : bodies[i])),
          );
        }
      });

      it('foldChanges and countChanges by sequence, both directions; foldChangedBodies carries bodies', async () => {
        const asc = await all(db.foldChanges(0));
        assert.equal(asc.length, ids.length + 600);
        assert.deepEqual(
          asc.map((r) => r.seq),
          Array.from({ length: asc.length }, (_, i) => i + 1),
        );
        const desc = await all(db.foldChanges(0, true));
        assert.deepEqual(
          desc.map((r) => r.seq),
          asc.map((r) => r.seq).reverse(),
        );
        assert.equal((await all(db.foldChanges(300))).length, asc.length - 300);
        assert.equal(await db.countChanges(300), asc.length - 300);
        assert.equal(await db.countChanges(0), asc.length);
        const bodies = await all(db.foldChangedBodies(0));
        assert.equal(bodies.length, asc.length);
        const byId = new Map(bodies.map((b) => [b.id, b]));
        assert.equal(byId.get('a')?.body, '{"id":"a"}');
        assert.equal(byId.get('deleted')?.body, undefined);
        assert.equal(byId.get('deleted')?.deleted, true);
      });

      it('pages do not miss or repeat a row while writes go on between them', async () => {
        const seen: string[] = [];
        let written = 0;
        for await (const page of db.foldDocs({ start: 'm', end: 'n' })) {
          seen.push(...page.map((r) => r.id));
          // New ids both behind and ahead of the walk, and an update of one already seen.
          await db.update([`m${written}-new`, 'm0000'], (records) => ({
            writes: [
              write(`m${written}-new`, '1-n', '{}'),
              write('m0000', `${generation(records.get('m0000')!.rev) + 1}-m`, '{}'),
            ],
            result: null,
          }));
          written++;
        }
        const original = seen.filter((id) => /^m\d{4}$/.test(id));
        assert.equal(original.length, 600, 'every document there before the walk, once');
        assert.equal(new Set(original).size, 600);
        assert.deepEqual(original, [...original].sort());
      });

      it('countChanges stays exact page after page while writes and purges come between (a kept count is reused only for an unchanged database)', async () => {
        const counted = await fresh();
        const ids = Array.from({ length: 120 }, (_, i) => `c${String(i).padStart(3, '0')}`);
        await counted.update(ids, writing(ids.map((id) => write(id, '1-a', '{}'))));
        const exact = async (since: number) => (await all(counted.foldChanges(since))).length;
        for (let since = 0, step = 0; since <= 130; since += 7, step++) {
          assert.equal(await counted.countChanges(since), await exact(since), `since ${since}`);
          // The same sequence asked again, then going on past writes of every kind.
          assert.equal(await counted.countChanges(since), await exact(since));
          if (step % 3 === 1) {
            // An update moves a document counted before `since` past it; a new one adds a change.
            const old = ids[step]!;
            await counted.update([old, `n${step}`], (records) => ({
              writes: [write(old, `${generation(records.get(old)!.rev) + 1}-b`, '{}'), write(`n${step}`, '1-n', '{}')],
              result: null,
            }));
          } else if (step % 3 === 2) {
            const gone = ids[ids.length - step]!;
            await counted.purge([gone], 1000, (records) => ({
              purges: [{ id: gone, revs: [records.get(gone)!.rev], record: null }],
              result: null,
            }));
          }
        }
      });

      it('local documents: stored, replaced, folded, deleted; never counted or in changes', async () => {
        const local = await fresh();
        await local.putLocal({ id: '_local/b', rev: '0-1', body: '{"v":1}' });
        await local.putLocal({ id: '_local/a', rev: '0-1', body: '{}' });
        await local.putLocal({ id: '_local/b', rev: '0-2', body: '{"v":2}' });
        assert.deepEqual(await local.getLocal('_local/b'), { id: '_local/b', rev: '0-2', body: '{"v":2}' });
        assert.deepEqual(await idsOf(local.foldLocal({})), ['_local/a', '_local/b']);
        assert.deepEqual(await idsOf(local.foldLocal({ descending: true })), ['_local/b', '_local/a']);
        assert.equal(await local.deleteLocal('_local/a'), true);
        assert.equal(await local.deleteLocal('_local/a'), false);
        assert.deepEqual(await local.counters(), { updateSeq: 0, docCount: 0, docDelCount: 0 });
        assert.deepEqual(await all(local.foldChanges(0)), []);
      });

      it('properties are kept per database', async () => {
        const one = await fresh();
        const two = await fresh();
        assert.equal(await one.getProp('security'), undefined);
        await one.setProp('security', '{"admins":{}}');
        await one.setProp('security', '{"members":{}}');
        assert.equal(await one.getProp('security'), '{"members":{}}');
        assert.equal(await two.getProp('security'), undefined);
      });
    });

    describe('purge and compaction', () => {
      it('purge: logs every document, removes or re-sequences what its plan says, moves the sequences; all or nothing', async () => {
        const db = await fresh();
        await db.update(
          ['a', 'b', 'c'],
          writing([
            {
              record: { id: 'a', rev: '2-a', deleted: false, tree: 't:a' },
              bodies: [
                { rev: '1-a', body: '{"old":1}' },
                { rev: '2-a', body: '{"a":2}' },
              ],
            },
            write('b', '1-b', '{"b":1}'),
            write('c', '1-c', '{"c":1}'),
          ]),
        );
        assert.equal(await db.purgeSeq(), 0);
        assert.equal(await db.oldestPurge(), 1);
        const seen: string[][] = [];
        const out = await db.purge(['a', 'b', 'nope'], 1000, (records) => {
          seen.push([...records.keys()]);
          return {
            purges: [
              // a keeps 1-a (say its other leaf was purged): a new record, the next sequence.
              {
                id: 'a',
                revs: ['2-a'],
                record: { id: 'a', rev: '1-a', deleted: false, tree: 't:a1' },
                dropBodies: ['2-a'],
              },
              { id: 'b', revs: ['1-b'], record: null },
              { id: 'nope', revs: ['1-x'] },
            ],
            result: 'planned',
          };
        });
        assert.deepEqual(seen, [['a', 'b']]);
        assert.deepEqual(out, { result: 'planned', purgeSeq: 3, updateSeq: 4 });
        assert.equal(await db.purgeSeq(), 3);
        assert.deepEqual(await db.counters(), { updateSeq: 4, docCount: 2, docDelCount: 0 });
        assert.equal((await db.meta()).purgeSeq, 3);
        assert.deepEqual(await db.getDoc('a'), { id: 'a', seq: 4, rev: '1-a', deleted: false, tree: 't:a1' });
        assert.equal(await db.getBody('a', '2-a'), undefined);
        assert.equal(await db.getBody('a', '1-a'), '{"old":1}');
        assert.equal(await db.getDoc('b'), undefined);
        assert.equal(await db.getBody('b', '1-b'), undefined);
        assert.deepEqual(
          (await all(db.foldChanges(0))).map((r) => r.id),
          ['c', 'a'],
        );
        assert.deepEqual(await all(db.foldPurges(1)), [
          { purgeSeq: 2, id: 'b', revs: ['1-b'] },
          { purgeSeq: 3, id: 'nope', revs: ['1-x'] },
        ]);
        // Nothing re-sequenced: the update sequence moves on anyway; the log keeps 2 entries.
        const bare = await db.purge(['c'], 2, () => ({ purges: [{ id: 'c', revs: ['9-z'] }], result: null }));
        assert.deepEqual([bare.purgeSeq, bare.updateSeq], [4, 5]);
        assert.equal(await db.oldestPurge(), 3);
        // A plan that throws leaves everything as it was.
        await assert.rejects(
          db.purge(['c'], 1000, () => {
            throw new Error('no');
          }),
        );
        assert.equal(await db.purgeSeq(), 4);
        assert.equal((await db.getDoc('c'))?.rev, '1-c');
      });

      it('compact: rewrites trees and drops bodies without a new sequence', async () => {
        const db = await fresh();
        await db.update(
          ['a'],
          writing([
            {
              record: { id: 'a', rev: '2-a', deleted: false, tree: 't:2' },
              bodies: [
                { rev: '1-a', body: '{"n":1}' },
                { rev: '2-a', body: '{"n":2}' },
              ],
            },
          ]),
        );
        const before = await db.counters();
        const seen: string[][] = [];
        await db.compact(['a', 'gone'], (records) => {
          seen.push([...records.keys()]);
          return [{ id: 'a', tree: 't:2c', dropBodies: ['1-a'] }];
        });
        assert.deepEqual(seen, [['a']]);
        assert.deepEqual(await db.counters(), before);
        assert.deepEqual(await db.getDoc('a'), { id: 'a', seq: 1, rev: '2-a', deleted: false, tree: 't:2c' });
        assert.equal(await db.getBody('a', '1-a'), undefined);
        assert.equal(await db.getBody('a', '2-a'), '{"n":2}');
        // The space step ends (at once where the space is not the engine's to give).
        let steps = 0;
        while (await db.reclaimSpace(1024)) assert.ok(++steps < 1000);
      });

      /*
       * Stale bodies (`DocWrite.unleafed`): once the space step has nothing left to give (free
       * pages and journals), `file - active` is their bytes. Trees are opaque here: this one
       * lists its leaves.
       */
      const tree = (...leaves: string[]): string => `leaves:${leaves.join(',')}`;
      const leavesOf = (record: DocRecord): string[] => record.tree.slice('leaves:'.length).split(',');
      const stale = async (db: DocumentStore): Promise<number> => {
        while (await db.reclaimSpace(1 << 20)) {
          /* steps */
        }
        const { sizes } = await db.meta();
        assert.ok(sizes.active <= sizes.file && sizes.active >= sizes.external, JSON.stringify(sizes));
        return sizes.file - sizes.active;
      };
      const body = JSON.stringify({ pad: 'q'.repeat(3000) });
      const bytes = Buffer.byteLength(body);
      const edit = (id: string, rev: string, fields: Partial<DocWrite> = {}): DocWrite => ({
        record: { id, rev, deleted: false, tree: tree(rev) },
        bodies: [{ rev, body }],
        ...fields,
      });

      it('sizes: bodies a write makes non-leaves leave active until compaction drops them; the count is kept', async () => {
        const name = `db${++dbCount}`;
        const db = await storage.create(name);
        await db.update(['a'], writing([edit('a', '1-a')]));
        assert.equal(await stale(db), 0);
        await db.update(['a'], writing([edit('a', '2-a', { unleafed: ['1-a'] })]));
        await db.update(['a'], writing([edit('a', '3-a', { unleafed: ['2-a'] })]));
        // A history written at once (a replicated one can carry an ancestor's body): 1-b no leaf.
        await db.update(
          ['b'],
          writing([
            {
              record: { id: 'b', rev: '2-b', deleted: false, tree: tree('2-b') },
              bodies: [
                { rev: '1-b', body },
                { rev: '2-b', body },
              ],
              unleafed: ['1-b'],
            },
          ]),
        );
        assert.equal(await stale(db), 3 * bytes);
        // A revision named that has no body stored counts nothing.
        await db.update(['c'], writing([edit('c', '1-c')]));
        await db.update(['c'], writing([edit('c', '2-c', { unleafed: ['1-c', '1-nobody'] })]));
        assert.equal(await stale(db), 4 * bytes);

        await storage.close();
        storage = await engine.open();
        const again = (await storage.open(name))!;
        assert.equal(await stale(again), 4 * bytes, 'the count is kept');
        // Counted already: nothing to do.
        await again.countStaleBodies(() => assert.fail('no scan where the count is kept'));
        // Stemmed in a write: 1-a (stale) goes. Purged: b, taking its stale 1-b; c's leaf alone,
        // its stale 1-c going with the document.
        await again.update(['a'], writing([edit('a', '4-a', { unleafed: ['3-a'], dropBodies: ['1-a'] })]));
        assert.equal(await stale(again), 4 * bytes);
        await again.purge(['b', 'c'], 1000, () => ({
          purges: [
            { id: 'b', revs: ['2-b'], record: null, staleGone: ['1-b'] },
            { id: 'c', revs: ['2-c'], record: null, staleGone: ['1-c'] },
          ],
          result: null,
        }));
        assert.equal(await stale(again), 2 * bytes);
        await again.compact(['a'], () => [{ id: 'a', tree: tree('4-a'), dropBodies: ['2-a', '3-a'] }]);
        assert.equal(await stale(again), 0, 'nothing left for compaction: active is file');
        assert.equal((await again.meta()).sizes.external, bytes);
      });

      it('sizes: a database from before the count is counted once from its leaves', async () => {
        const name = `db${++dbCount}`;
        const db = await storage.create(name);
        await db.update(['a'], writing([edit('a', '1-a')]));
        await db.update(['a'], writing([edit('a', '2-a', { unleafed: ['1-a'] })]));
        // A conflict: two leaves over 1-x, whose body is stale; a deleted winner's body is a leaf's.
        await db.update(
          ['x'],
          writing([
            {
              record: { id: 'x', rev: '2-y', deleted: false, tree: tree('2-y', '2-z') },
              bodies: ['1-x', '2-y', '2-z'].map((rev) => ({ rev, body })),
              unleafed: ['1-x'],
            },
          ]),
        );
        await db.update(['d'], writing([edit('d', '1-d')]));
        await db.update(
          ['d'],
          writing([
            {
              record: { id: 'd', rev: '2-d', deleted: true, tree: tree('2-d') },
              bodies: [{ rev: '2-d', body: '{}' }],
              unleafed: ['1-d'],
            },
          ]),
        );
        const known = await stale(db);
        assert.equal(known, 3 * bytes);
        await storage.close();
        assert.ok(engine.forgetStaleCount !== undefined, 'the engine under test says how its older schema looked');
        await engine.forgetStaleCount(name);
        storage = await engine.open();
        const old = (await storage.open(name))!;
        let scanned = 0;
        await old.countStaleBodies((record) => {
          scanned++;
          return leavesOf(record);
        });
        assert.equal(scanned, 3, 'every document once');
        assert.equal(await stale(old), known, 'the same count as kept by the writes');
        // Kept from then on.
        await old.update(['a'], writing([edit('a', '3-a', { unleafed: ['2-a'] })]));
        assert.equal(await stale(old), known + bytes);
        await storage.close();
        storage = await engine.open();
        const reopened = (await storage.open(name))!;
        await reopened.countStaleBodies(() => assert.fail('counted once'));
        assert.equal(await stale(reopened), known + bytes);
      });

      it("foldChangedBodies carries each document's tree", async () => {
        const db = await fresh();
        await db.update(['a'], writing([write('a', '1-a', '{}', false, 'tree-of-a')]));
        assert.deepEqual(
          (await all(db.foldChangedBodies(0))).map((c) => c.tree),
          ['tree-of-a'],
        );
      });
    });

    describe('attachment streams', () => {
      const md5 = (bytes: Uint8Array) => `md5-${createHash('md5').update(bytes).digest('base64')}`;
      /** `size` bytes of a pattern that shows any misplaced byte. */
      const bytesOf = (size: number, seed = 7) => {
        const out = Buffer.alloc(size);
        for (let i = 0; i < size; i++) out[i] = (i * 31 + seed + (i >> 8)) & 0xff;
        return out;
      };
      /** The bytes handed over in uneven pieces, as a request body arrives. */
      async function* pieces(bytes: Uint8Array, size = 70_001): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
      }
      const read = async (db: DocumentStore, digest: string, start?: number, end?: number) => {
        const parts: Uint8Array[] = [];
        for await (const part of db.readAttachment(digest, start, end)) parts.push(part);
        return Buffer.concat(parts);
      };

      it('stores bytes as they stream in, named by their MD5, and reads them back whole and by range', async () => {
        const db = await fresh();
        const big = bytesOf(700_000); // several chunks of any engine's size
        const info = await db.putAttachment(pieces(big));
        assert.deepEqual(info, { digest: md5(big), length: big.length });
        assert.deepEqual(await db.attachmentInfo(info.digest), info);
        assert.ok((await read(db, info.digest)).equals(big));
        for (const [start, end] of [
          [0, 1],
          [262_143, 262_145],
          [100, 600_000],
          [699_999, 700_000],
          [500_000, undefined],
          [0, 10_000_000],
        ] as const) {
          const got = await read(db, info.digest, start, end);
          assert.ok(got.equals(big.subarray(start, end)), `bytes ${start}-${end}`);
        }
        assert.equal((await read(db, info.digest, 800_000)).length, 0);
        assert.equal(await db.attachmentInfo('md5-nothing'), undefined);
        assert.equal((await read(db, 'md5-nothing')).length, 0);
      });

      it('keeps one copy of the same bytes; an empty attachment is one too', async () => {
        const db = await fresh();
        const bytes = bytesOf(1000, 3);
        const first = await db.putAttachment([bytes]);
        const second = await db.putAttachment(pieces(bytes, 7));
        assert.deepEqual(first, second);
        const empty = await db.putAttachment([]);
        assert.deepEqual(empty, { digest: 'md5-1B2M2Y8AsgTpgAmY7PhCfg==', length: 0 });
        const all = await all_(db);
        assert.deepEqual(
          all.map((a) => a.digest),
          [first.digest, empty.digest].sort(),
        );
      });

      it('a source that fails stores nothing; deleted attachments are gone', async () => {
        const db = await fresh();
        const kept = await db.putAttachment([bytesOf(300_000, 1)]);
        async function* failing(): AsyncGenerator<Uint8Array> {
          yield bytesOf(300_000, 2);
          throw new Error('the client went away');
        }
        await assert.rejects(db.putAttachment(failing()), /went away/);
        assert.deepEqual(
          (await all_(db)).map((a) => a.digest),
          [kept.digest],
        );
        await db.deleteAttachments([kept.digest, 'md5-not-there']);
        assert.equal(await db.attachmentInfo(kept.digest), undefined);
        assert.deepEqual(await all_(db), []);
        assert.equal((await read(db, kept.digest)).length, 0);
      });

      it('attachments are per database, and go with it', async () => {
        const one = await storage.create('atts-one');
        const two = await fresh();
        const info = await one.putAttachment([bytesOf(10)]);
        assert.equal(await two.attachmentInfo(info.digest), undefined);
        await storage.destroy('atts-one');
        const again = await storage.create('atts-one');
        assert.equal(await again.attachmentInfo(info.digest), undefined);
      });

      /** A write whose bytes are stored but not yet referenced, under way until `finish`. */
      const writeUnderWay = async (db: DocumentStore) => {
        let finish!: () => void;
        let started!: () => void;
        const gate = new Promise<void>((resolve) => (finish = resolve));
        const inside = new Promise<void>((resolve) => (started = resolve));
        const done = db.attachmentWrite(async () => {
          started();
          await gate;
          return 'written';
        });
        await inside;
        return { done, finish };
      };

      it('a sweep frees nothing while an attachment write is under way, or when one began since its mark', async () => {
        const db = await fresh();
        const unreferenced = await db.putAttachment([bytesOf(1000, 5)]);
        const writing = await writeUnderWay(db);
        assert.equal(await db.attachmentSweepMark(), undefined, 'no mark while a write is under way');
        writing.finish();
        assert.equal(await writing.done, 'written');
        const mark = await db.attachmentSweepMark();
        assert.notEqual(mark, undefined);
        await db.attachmentWrite(async () => {});
        assert.equal(await db.sweepAttachments([unreferenced.digest], mark!), false, 'a write began since the mark');
        assert.deepEqual(await db.attachmentInfo(unreferenced.digest), unreferenced);
        const refused = db.attachmentWrite(async () => {
          throw new Error('refused');
        });
        await assert.rejects(refused, /refused/);
        const quiet = await db.attachmentSweepMark();
        assert.notEqual(quiet, undefined, 'a write that failed is over too');
        assert.equal(await db.sweepAttachments([unreferenced.digest, 'md5-not-there'], quiet!), true);
        assert.equal(await db.attachmentInfo(unreferenced.digest), undefined);
      });

      if (engine.openOtherNode !== undefined) {
        const openOther = engine.openOtherNode;
        it("shared: a sweep sees the other nodes' attachment writes", async () => {
          const other = await openOther();
          try {
            const db = await fresh();
            const theirs = (await other.open(db.name))!;
            const unreferenced = await db.putAttachment([bytesOf(1000, 6)]);
            const writing = await writeUnderWay(theirs);
            assert.equal(await db.attachmentSweepMark(), undefined, 'their write is under way');
            const busy = await writeUnderWay(theirs); // a second one of theirs, while the first goes on
            writing.finish();
            await writing.done;
            assert.equal(await db.attachmentSweepMark(), undefined, 'their second write is under way');
            busy.finish();
            await busy.done;
            const mark = await db.attachmentSweepMark();
            assert.notEqual(mark, undefined);
            await theirs.attachmentWrite(async () => {});
            assert.equal(await db.sweepAttachments([unreferenced.digest], mark!), false, 'theirs began since the mark');
            assert.deepEqual(await theirs.attachmentInfo(unreferenced.digest), unreferenced);
            assert.equal(await db.sweepAttachments([unreferenced.digest], (await db.attachmentSweepMark())!), true);
            assert.equal(await theirs.attachmentInfo(unreferenced.digest), undefined);
          } finally {
            await other.close();
          }
        });
      }

      const all_ = (db: DocumentStore) => all(db.foldAttachments());
    });

    describe('view indexes', () => {
      const meta = (updateSeq: number, views = 2): IndexMeta => ({
        updateSeq,
        purgeSeq: 0,
        changedSeqs: Array.from({ length: views }, () => updateSeq),
        backFormat: 2,
      });
      const bytes = (text: string) => Buffer.from(text);
      const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString());
      /** Writes under the index's lock (shared engines write only so). */
      const locked = async <T>(index: StoredIndex, fn: Parameters<StoredIndex['write']>[0]): Promise<T> => {
        const lock = await index.lock();
        try {
          return (await index.write(fn)) as T;
        } finally {
          await lock.release();
        }
      };
      const snapshot = (index: StoredIndex) => ({
        meta: index.meta(),
        roots: index.nodes.map((n) => n.getRoot()),
        nodes: index.nodes.map((n) => [1, 2, 3].map((id) => text(n.get(id)))),
        back: Object.fromEntries([...index.readBack(['a', 'b', 'c'])].map(([id, b]) => [id, text(b)])),
      });
      const writeSome = (index: StoredIndex, seq: number) =>
        locked(index, (w) => {
          const [one, two] = index.nodes;
          one!.put(1, bytes(`n1@${seq}`));
          one!.put(2, bytes(`n2@${seq}`));
          one!.setRoot(1);
          two!.put(1, bytes(`m1@${seq}`));
          two!.setRoot(1);
          w.putBack('a', bytes(`a@${seq}`));
          w.putBack('b', bytes(`b@${seq}`));
          w.setMeta(meta(seq));
        });

      it('a new index is empty; a write stores nodes, back-index and checkpoint together', async () => {
        const db = await fresh();
        const index = await db.viewIndexes().open('sig-a', 2);
        assert.deepEqual(index.meta(), { updateSeq: 0, purgeSeq: 0, changedSeqs: [0, 0], backFormat: 2 });
        assert.equal(index.nodes.length, 2);
        assert.equal(index.nodes[0]!.getRoot(), undefined);
        assert.equal(index.readBack(['a']).size, 0);
        await writeSome(index, 5);
        const expected = snapshot(index);
        assert.deepEqual(expected.meta, meta(5));
        assert.deepEqual(expected.nodes, [
          ['n1@5', 'n2@5', undefined],
          ['m1@5', undefined, undefined],
        ]);
        assert.deepEqual(expected.back, { a: 'a@5', b: 'b@5' });
        index.close();
        const again = await db.viewIndexes().open('sig-a', 2);
        assert.deepEqual(snapshot(again), expected, 'reopened');
        assert.deepEqual(await db.viewIndexes().signatures(), ['sig-a']);
        again.close();
      });

      it('a write that throws, even after pausing, stores nothing of itself', async () => {
        const db = await fresh();
        const index = await db.viewIndexes().open('sig-b', 2);
        await writeSome(index, 1);
        const before = snapshot(index);
        await assert.rejects(
          locked(index, async (w) => {
            index.nodes[0]!.put(1, bytes('changed'));
            index.nodes[0]!.delete(2);
            index.nodes[1]!.clear?.();
            w.deleteBack('a');
            w.putBack('c', bytes('c'));
            await w.pause();
            w.setMeta(meta(2));
            throw new Error('map function crashed');
          }),
          /map function crashed/,
        );
        assert.deepEqual(snapshot(index), before);
        index.close();
        const again = await db.viewIndexes().open('sig-b', 2);
        assert.deepEqual(snapshot(again), before, 'nothing of it stored');
        again.close();
      });

      it('deletes, clears, pages of back-index ids, and removal', async () => {
        const db = await fresh();
        const index = await db.viewIndexes().open('sig-c', 1);
        const ids = Array.from({ length: 2500 }, (_, i) => `doc${String(i).padStart(5, '0')}`);
        await locked(index, (w) => {
          for (const id of ids) w.putBack(id, bytes(id));
          index.nodes[0]!.put(7, bytes('seven'));
          index.nodes[0]!.setRoot(7);
          w.setMeta(meta(3, 1));
        });
        assert.deepEqual(await all(index.foldBackIds()), ids);
        await locked(index, (w) => {
          w.deleteBack('doc00001');
          index.nodes[0]!.delete(7);
          index.nodes[0]!.setRoot(undefined);
          w.setMeta(meta(4, 1));
        });
        assert.equal(index.readBack(['doc00001', 'doc00002']).size, 1);
        assert.equal(index.nodes[0]!.get(7), undefined);
        await locked(index, (w) => {
          w.clearBack();
          index.nodes[0]!.clear?.();
          w.setMeta(meta(5, 1));
        });
        assert.deepEqual(await all(index.foldBackIds()), []);
        index.close();
        await db.viewIndexes().remove('sig-c');
        assert.deepEqual(await db.viewIndexes().signatures(), []);
        const empty = await db.viewIndexes().open('sig-c', 1);
        assert.equal(empty.meta().updateSeq, 0);
        assert.equal(empty.readBack(['doc00002']).size, 0);
        empty.close();
      });

      if (engine.openOtherNode !== undefined) {
        const openOther = engine.openOtherNode;
        it('shared: another node takes in each write (deletions too, and all of it when far behind)', async () => {
          const other = await openOther();
          try {
            const db = await fresh();
            const mine = await db.viewIndexes().open('sig-s', 2);
            const theirs = await (await other.open(db.name))!.viewIndexes().open('sig-s', 2);
            assert.equal(mine.shared, true);
            assert.equal(await theirs.sync(), false, 'nothing stored yet');
            await writeSome(mine, 1);
            assert.equal(await theirs.sync(), true);
            assert.deepEqual(snapshot(theirs), snapshot(mine));
            assert.equal(await theirs.sync(), false, 'nothing new');
            // Their write, then ours: each node writes on top of the other's.
            await locked(theirs, (w) => {
              theirs.nodes[0]!.delete(2);
              w.deleteBack('b');
              w.setMeta(meta(2));
            });
            await assert.rejects(writeSome(mine, 3), /version/, 'a copy behind the store cannot write');
            assert.equal(await mine.sync(), true);
            assert.equal(mine.nodes[0]!.get(2), undefined);
            assert.equal(mine.readBack(['b']).size, 0);
            assert.deepEqual(snapshot(mine), snapshot(theirs));
            // Far behind (past the kept deletions): the whole index.
            for (let seq = 10; seq < 80; seq++) {
              await locked(mine, (w) => {
                mine.nodes[1]!.put(seq, bytes(`v${seq}`));
                mine.nodes[1]!.delete(seq - 1);
                w.setMeta(meta(seq));
              });
            }
            assert.equal(await theirs.sync(), true);
            assert.deepEqual(snapshot(theirs), snapshot(mine));
            assert.equal(text(theirs.nodes[1]!.get(79)), 'v79');
            assert.equal(theirs.nodes[1]!.get(78), undefined);
            mine.close();
            theirs.close();
          } finally {
            await other.close();
          }
        });

        it('shared: one lock holder at a time, and a dead holder lets go', async () => {
          const other = await openOther();
          try {
            const db = await fresh();
            const mine = await db.viewIndexes().open('sig-l', 1);
            const theirs = await (await other.open(db.name))!.viewIndexes().open('sig-l', 1);
            const held = await mine.lock();
            let got = false;
            const waiting = theirs.lock().then((lock) => {
              got = true;
              return lock;
            });
            await new Promise((resolve) => setTimeout(resolve, 200));
            assert.equal(got, false, 'waits while the other node holds it');
            await held.release();
            await (await waiting).release();
            // A holder whose connection dies (its node was killed) lets go.
            const dead = await mine.lock();
            await engine.killLockHolder?.(db.name, 'sig-l');
            const after = await theirs.lock();
            await after.release();
            await dead.release(); // on a connection that is gone: it only gives it back
            theirs.close();
            mine.close();
          } finally {
            await other.close();
          }
        });
      }
    });

    describe('database events', () => {
      const eventsAfter = async (s: Storage, since: number, descending = false) =>
        (await all(s.foldDbEvents(since, descending))).map((e) => [e.dbName, e.type]);

      it('record created, updated (once per batch of writes close together) and deleted, in order', async () => {
        const since = await storage.dbEventSeq();
        const db = await storage.create('evented');
        await db.update(['a'], writing([write('a', '1-a', '{}')]));
        await Promise.all([
          db.update(['b'], writing([write('b', '1-b', '{}')])),
          db.update(['c'], writing([write('c', '1-c', '{}')])),
        ]);
        // A plan that writes nothing is no update.
        const quiet = await storage.create('quiet');
        await quiet.update(['x'], writing([]));
        assert.equal(await storage.destroy('evented'), true);
        assert.equal(await storage.destroy('evented'), false);
        const events = await all(storage.foldDbEvents(since));
        assert.deepEqual(
          events.map((e) => [e.dbName, e.type]),
          [
            ['evented', 'created'],
            ['evented', 'updated'],
            ['quiet', 'created'],
            ['evented', 'deleted'],
          ],
        );
        const seqs = events.map((e) => e.seq);
        assert.deepEqual(
          seqs,
          [...seqs].sort((a, b) => a - b),
        );
        assert.ok(seqs[0]! > since);
        assert.equal(await storage.dbEventSeq(), seqs[seqs.length - 1]);
        assert.deepEqual(await eventsAfter(storage, seqs[2]!), [['evented', 'deleted']]);
        assert.deepEqual((await eventsAfter(storage, since, true)).slice(0, 2), [
          ['evented', 'deleted'],
          ['quiet', 'created'],
        ]);
        await storage.destroy('quiet');
      });

      it('keep each database at its latest event of each type, also a purge', async () => {
        const db = await storage.create('evented-twice');
        await db.update(['a'], writing([write('a', '1-a', '{}')]));
        const mid = await storage.dbEventSeq();
        await db.purge(['a'], 10, () => ({ purges: [{ id: 'a', revs: ['1-a'], record: null }], result: null }));
        assert.deepEqual(await eventsAfter(storage, mid), [['evented-twice', 'updated']]);
        await storage.destroy('evented-twice');
        await storage.create('evented-twice');
        const mine = (await all(storage.foldDbEvents(0))).filter((e) => e.dbName === 'evented-twice');
        assert.deepEqual(
          mine.map((e) => e.type),
          ['updated', 'deleted', 'created'],
        );
        await storage.destroy('evented-twice');
      });

      it('are there for the next storage opened on the same place, and for other nodes', async () => {
        const db = await storage.create('lasting');
        await db.update(['a'], writing([write('a', '1-a', '{}')]));
        const seq = await storage.dbEventSeq();
        await storage.close();
        storage = await engine.open();
        assert.equal(await storage.dbEventSeq(), seq);
        const lasting = (await all(storage.foldDbEvents(0))).filter((e) => e.dbName === 'lasting');
        assert.deepEqual(
          lasting.map((e) => e.type),
          ['created', 'updated'],
        );
        if (engine.openOtherNode !== undefined) {
          const other = await engine.openOtherNode();
          try {
            const db2 = await other.open('lasting');
            await db2!.update(['b'], writing([write('b', '1-b', '{}')]));
            await other.create('elsewhere');
            // The other node's events, in the order it made them, with sequences after ours.
            assert.deepEqual(await eventsAfter(storage, seq), [
              ['lasting', 'updated'],
              ['elsewhere', 'created'],
            ]);
            await other.destroy('elsewhere');
          } finally {
            await other.close();
          }
        }
        await storage.destroy('lasting');
      });
    });

    describe('durability', () => {
      it('what was committed is there for the next storage opened on the same place', async () => {
        const db = await storage.create('kept');
        await db.update(['k'], writing([write('k', '1-k', '{"kept":true}')]));
        await db.putLocal({ id: '_local/k', rev: '0-3', body: '{}' });
        await db.setProp('revs_limit', '7');
        const att = await db.putAttachment([Buffer.from('kept bytes')]);
        await storage.setServerValue('secret', 'abc');
        await storage.setServerValue('secret', 'def');
        assert.equal(await storage.addServerValue('added', 'first'), 'first');
        assert.equal(await storage.addServerValue('added', 'second'), 'first', 'a value stored stays');
        assert.equal(await storage.addServerValue('secret', 'ghi'), 'def');
        await storage.setServerValue('gone', 'soon');
        await storage.deleteServerValue('gone');
        await storage.deleteServerValue('never-stored');
        assert.equal(await storage.getServerValue('gone'), undefined);
        assert.equal(await storage.addServerValue('gone', 'again'), 'again', 'a deleted value may be added again');
        await storage.setServerValue('gone-for-good', 'x');
        await storage.deleteServerValue('gone-for-good');
        await storage.setServerValue('listed-b', '');
        await storage.addServerValue('listed-a', 'x');
        await storage.setServerValue('listed_c', 'y');
        assert.deepEqual(await storage.serverValueKeys('listed-'), ['listed-a', 'listed-b']);
        assert.deepEqual(await storage.serverValueKeys('listed'), ['listed-a', 'listed-b', 'listed_c']);
        assert.deepEqual(await storage.serverValueKeys('gone'), ['gone'], 'a deleted key is not listed');
        assert.deepEqual(await storage.serverValueKeys('nothing-'), []);
        await storage.close();
        storage = await engine.open();
        assert.deepEqual(await storage.serverValueKeys('listed-'), ['listed-a', 'listed-b']);
        const again = await storage.open('kept');
        assert.ok(again !== undefined);
        assert.deepEqual(await again.counters(), { updateSeq: 1, docCount: 1, docDelCount: 0 });
        assert.equal(await again.getBody('k', '1-k'), '{"kept":true}');
        assert.equal((await again.getLocal('_local/k'))?.rev, '0-3');
        assert.equal(await again.getProp('revs_limit'), '7');
        assert.deepEqual(await again.attachmentInfo(att.digest), att);
        const bytes: Uint8Array[] = [];
        for await (const part of again.readAttachment(att.digest)) bytes.push(part);
        assert.equal(Buffer.concat(bytes).toString(), 'kept bytes');
        assert.equal(await storage.getServerValue('secret'), 'def');
        assert.equal(await storage.getServerValue('other'), undefined);
        assert.equal(await storage.getServerValue('added'), 'first');
        assert.equal(await storage.getServerValue('gone'), 'again');
        assert.equal(await storage.getServerValue('gone-for-good'), undefined, 'a deletion is durable');
        const next = await again.update(['k2'], writing([write('k2', '1-k', '{}')]));
        assert.deepEqual(next.seqs, [2], 'sequences continue after a reopen');
      });
    });
  });
}

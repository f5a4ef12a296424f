import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openDivan } from '../src/index.js';
import { makeTempDir } from './support/tmp-dir.js';

/** The view engine in-process (no HTTP): queries, persistence across reopen, incremental updates. */
describe('views in-process', () => {
  const tmp = makeTempDir('divan-embedded-');
  after(() => tmp.cleanup());

  it('answers map and reduce queries and keeps its index across a reopen', async () => {
    let divan = openDivan(tmp.dir);
    let db = await divan.createDb('posts');
    await db.put({
      _id: '_design/app',
      views: {
        by_author: { map: 'function(d){ if (d.author) emit(d.author, d.n); }', reduce: '_stats' },
        raw: { map: 'function(d){ if (d.author) emit(d.author, null); }', options: { collation: 'raw' } },
      },
    });
    await db.bulkDocs([
      { _id: 'a', author: 'bob', n: 2 },
      { _id: 'b', author: 'Bob', n: 3 },
      { _id: 'c', author: 'al', n: 5 },
    ]);
    const map = await db.view('app', 'by_author', { reduce: false });
    assert.deepEqual(
      map.rows.map((r: any) => r.key),
      ['al', 'bob', 'Bob'],
    );
    assert.equal(map.total_rows, 3);
    const raw = await db.view('app', 'raw');
    assert.deepEqual(
      raw.rows.map((r: any) => r.key),
      ['Bob', 'al', 'bob'],
    );
    const stats = await db.view('app', 'by_author', {});
    assert.deepEqual(stats.rows, [{ key: null, value: { sum: 10, count: 3, min: 2, max: 5, sumsqr: 38 } }]);
    await divan.close();

    divan = openDivan(tmp.dir);
    db = await divan.db('posts');
    const info = await db.database.meta();
    assert.equal(info.updateSeq, 4);
    await db.put({ _id: 'd', author: 'al', n: 1 });
    const grouped = await db.view('app', 'by_author', { group: true });
    assert.deepEqual(
      grouped.rows.map((r: any) => [r.key, r.value.count]),
      [
        ['al', 2],
        ['bob', 1],
        ['Bob', 1],
      ],
    );
    const stale = await db.view('app', 'by_author', { reduce: false, update: 'false', update_seq: true });
    assert.equal(stale.update_seq, 5);
    await divan.close();
  });

  it('builds from empty when document ids do not come in order, and updates then replace the built rows', async () => {
    const divan = openDivan(tmp.dir);
    const db = await divan.createDb('unordered');
    // m1, m2 ascend (their back-index entries are written as they come); a1 stops that, so the
    // rest are sorted at the end (checked against those written already).
    const ids = ['m1', 'm2', 'a1', 'z1', 'a2', 'm0', 'm3'];
    for (const id of ids) await db.put({ _id: id, author: `old-${id}` });
    await db.put({
      _id: '_design/app',
      views: { by_author: { map: 'function(d){ if (d.author) emit(d.author, d._id); }', reduce: '_count' } },
    });
    const built = await db.view('app', 'by_author', { reduce: false });
    assert.deepEqual(
      built.rows.map((r: any) => r.id),
      [...ids].sort(),
    );
    for (const id of ids) {
      const doc = (await db.get(id)) as { _rev: string };
      await db.put({ _id: id, _rev: doc._rev, author: `new-${id}` });
    }
    const updated = await db.view('app', 'by_author', { reduce: false });
    assert.deepEqual(
      updated.rows.map((r: any) => r.key),
      [...ids].sort().map((id) => `new-${id}`),
    );
    assert.deepEqual((await db.view('app', 'by_author', {})).rows, [{ key: null, value: ids.length }]);
    await divan.close();
  });
});

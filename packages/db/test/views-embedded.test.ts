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
});

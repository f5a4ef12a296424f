import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CouchError } from '../src/errors.js';
import { openDivan } from '../src/index.js';
import { makeTempDir } from './support/tmp-dir.js';

/** A partitioned database in-process (no HTTP): the id rule, kept across a reopen, a partition's view. */
describe('partitioned databases in-process', () => {
  const tmp = makeTempDir('divan-embedded-partitioned-');
  after(() => tmp.cleanup());

  it('refuses ids without a partition, keeps the setting across a reopen, queries one partition', async () => {
    let divan = openDivan(tmp.dir);
    let db = await divan.createDb('sensors', { partitioned: true });
    await assert.rejects(
      db.put({ _id: 'reading' }),
      (e: unknown) => e instanceof CouchError && e.reason === 'Doc id must be of form partition:id',
    );
    await db.bulkDocs([
      { _id: 's1:a', t: 3 },
      { _id: 's1:b', t: 1 },
      { _id: 's2:a', t: 2 },
    ]);
    await db.put({ _id: '_design/app', views: { by_t: { map: 'function(d){ emit(d.t, null); }', reduce: '_count' } } });
    await divan.close();

    divan = openDivan(tmp.dir);
    db = await divan.db('sensors');
    assert.equal(db.database.partitioned, true);
    const s1 = await db.view('app', 'by_t', { partition: 's1', reduce: false });
    assert.deepEqual(
      s1.rows.map((r: any) => r.id),
      ['s1:b', 's1:a'],
    );
    assert.equal(s1.total_rows, 2);
    assert.deepEqual((await db.view('app', 'by_t', { partition: 's2' })).rows, [{ key: null, value: 1 }]);
    await assert.rejects(
      db.view('app', 'by_t', {}),
      (e: unknown) => e instanceof CouchError && e.error === 'query_parse_error',
    );
    await divan.close();
  });
});

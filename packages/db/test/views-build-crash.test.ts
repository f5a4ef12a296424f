import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startChildServer } from './support/child-server.js';
import { request } from './support/server.js';

/**
 * An index build from empty holds one write open from its start (its back-index entries go in
 * as they come) and writes through a rollback journal: a process killed mid-build leaves no
 * half index. Restarted, the view answers what the same view built from scratch answers.
 */
describe('views: a build killed mid-way (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-build-crash-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data', dataDir, '--admin', 'admin:secret'];
  // Slow enough (to the next millisecond a document) that the build is still running when the kill comes.
  const ddoc = (pad: string) => ({
    views: {
      by_n: {
        map: `function (d) { var t = Date.now(); while (Date.now() - t < 0.1) {} emit(d.n % 7, d.n);${pad}}`,
        reduce: '_sum',
      },
    },
  });

  it('leaves an index that, brought up to date, equals a rebuild', async () => {
    const first = await startChildServer(args);
    assert.equal((await request(first.url, 'PUT', '/load')).status, 201);
    for (let from = 0; from < 4000; from += 1000) {
      const docs = Array.from({ length: 1000 }, (_, i) => ({
        _id: `d${String(from + i).padStart(6, '0')}`,
        n: from + i,
      }));
      assert.equal((await request(first.url, 'POST', '/load/_bulk_docs', { body: { docs } })).status, 201);
    }
    assert.equal((await request(first.url, 'PUT', '/load/_design/v', { body: ddoc('') })).status, 201);
    const query = request(first.url, 'GET', '/load/_design/v/_view/by_n?group=true').catch(() => undefined);
    // Killed once the build has taken in some documents (its write is open by then).
    for (let tries = 0; tries < 2000; tries++) {
      const tasks = await request(first.url, 'GET', '/_active_tasks');
      if (tasks.json.some((t: any) => t.type === 'indexer' && t.changes_done > 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, 'SIGKILL');
    assert.equal(await query, undefined, 'the build had ended before the kill');

    const second = await startChildServer(args);
    try {
      const survived = await request(second.url, 'GET', '/load/_design/v/_view/by_n?group=true');
      assert.equal(survived.status, 200);
      assert.equal((await request(second.url, 'PUT', '/load/_design/fresh', { body: ddoc(' ') })).status, 201);
      const rebuilt = await request(second.url, 'GET', '/load/_design/fresh/_view/by_n?group=true');
      assert.deepEqual(survived.json.rows, rebuilt.json.rows);
      const mapRows = (name: string) =>
        request(second.url, 'GET', `/load/_design/${name}/_view/by_n?reduce=false`).then((r) => r.json.rows);
      assert.deepEqual(await mapRows('v'), await mapRows('fresh'));
      assert.equal((await mapRows('v')).length, 4000);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});

// A search index whose postings' delta is being merged (src/search/postings.ts: a merge is
// memory only, the rows on disk are the view engine's transaction's) loses nothing when the
// process is killed: a real `divan serve` is killed with SIGKILL while updates are taken in
// and merged, restarted on the same data, and the index answers as one built afresh.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startChildServer } from './support/child-server.js';
import { request } from './support/server.js';

const INDEX = 'function (doc) { if (doc.text) index("default", doc.text, {store: true}); }';
const WORDS = ['fox', 'dog', 'river', 'stone', 'quick', 'lazy', 'brown'];
const text = (i: number, round: number) =>
  `${Array.from({ length: 6 }, (_, k) => WORDS[(i * 7 + k * 3 + round) % WORDS.length]).join(' ')} r${round}`;

describe('search crash safety (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-search-crash-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a kill while the postings delta is merged loses nothing', async () => {
    const args = ['--data', dataDir, '--admin', 'admin:secret'];
    const first = await startChildServer(args);
    const call = (method: string, path: string, body?: unknown) =>
      request(first.url, method, path, body === undefined ? {} : { body });
    assert.equal((await call('PUT', '/c')).status, 201);
    const docs = Array.from({ length: 3000 }, (_, i) => ({ _id: `d${String(i).padStart(4, '0')}`, text: text(i, 0) }));
    const written = (await call('POST', '/c/_bulk_docs', { docs })).json as { id: string; rev: string }[];
    assert.equal((await call('PUT', '/c/_design/s', { indexes: { kept: { index: INDEX } } })).status, 201);
    // Built, then its postings loaded: later updates go to the delta.
    assert.equal((await call('GET', '/c/_design/s/_search/kept?q=fox')).status, 200);
    // 2,500 changed documents: past the delta's 2,000, so taking them in starts a merge.
    const changed = written.slice(0, 2500).map((row, i) => ({ _id: row.id, _rev: row.rev, text: text(i, 1) }));
    await call('POST', '/c/_bulk_docs', { docs: changed });
    assert.equal((await call('GET', '/c/_design/s/_search/kept?q=r1&limit=1')).json.total_rows, 2500);
    // Killed while the merge's slices run (or just after): nothing on disk depends on it.
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startChildServer(args);
    try {
      const again = (method: string, path: string, body?: unknown) =>
        request(second.url, method, path, body === undefined ? {} : { body });
      const ddoc = (await again('GET', '/c/_design/s')).json;
      ddoc.indexes.fresh = { index: INDEX };
      const put = await again('PUT', '/c/_design/s', ddoc);
      assert.equal(put.status, 201, put.text);
      for (const q of ['fox', 'r1', 'r0', 'quick AND river', '"lazy brown"']) {
        const kept = await again('GET', `/c/_design/s/_search/kept?${new URLSearchParams({ q, limit: '200' })}`);
        const fresh = await again('GET', `/c/_design/s/_search/fresh?${new URLSearchParams({ q, limit: '200' })}`);
        assert.equal(kept.status, 200, kept.text);
        assert.deepEqual(kept.json, fresh.json, q);
      }
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  });

  it('a kill just after a query answered before its rows were written loses nothing', async () => {
    // src/search/search-docs-tree.ts: the query that takes an update in is answered from the
    // postings, the documents' tree takes the rows at the index's next flush. Killed at once,
    // the index on disk is that of before the update, taken up again from there.
    const dir = mkdtempSync(join(tmpdir(), 'divan-search-crash-'));
    const args = ['--data', dir, '--admin', 'admin:secret'];
    const first = await startChildServer(args);
    const second = { server: undefined as Awaited<ReturnType<typeof startChildServer>> | undefined };
    try {
      const call = (method: string, path: string, body?: unknown) =>
        request(first.url, method, path, body === undefined ? {} : { body });
      assert.equal((await call('PUT', '/c')).status, 201);
      const docs = Array.from({ length: 400 }, (_, i) => ({
        _id: `d${String(i * 2).padStart(4, '0')}`,
        text: text(i, 0),
      }));
      const written = (await call('POST', '/c/_bulk_docs', { docs })).json as { id: string; rev: string }[];
      assert.equal((await call('PUT', '/c/_design/s', { indexes: { kept: { index: INDEX } } })).status, 201);
      assert.equal((await call('GET', '/c/_design/s/_search/kept?q=fox')).status, 200);
      // Changed, deleted and new documents (new ids between the old ones: their ranks move).
      const changes = [
        ...written.slice(0, 20).map((row, i) => ({ _id: row.id, _rev: row.rev, text: text(i, 1) })),
        ...written.slice(20, 30).map((row) => ({ _id: row.id, _rev: row.rev, _deleted: true })),
        ...Array.from({ length: 20 }, (_, i) => ({ _id: `d${String(i * 20 + 1).padStart(4, '0')}`, text: text(i, 1) })),
      ];
      await call('POST', '/c/_bulk_docs', { docs: changes });
      const answered = await call('GET', '/c/_design/s/_search/kept?q=r1&limit=200');
      first.child.kill('SIGKILL');
      assert.equal(answered.json.total_rows, 40);
      await first.exited;

      second.server = await startChildServer(args);
      const again = (method: string, path: string, body?: unknown) =>
        request(second.server!.url, method, path, body === undefined ? {} : { body });
      const ddoc = (await again('GET', '/c/_design/s')).json;
      ddoc.indexes.fresh = { index: INDEX };
      assert.equal((await again('PUT', '/c/_design/s', ddoc)).status, 201);
      const fresh = await again('GET', '/c/_design/s/_search/fresh?q=r1&limit=200');
      // What the query answered before the kill is what an index built afresh answers.
      assert.deepEqual(answered.json, fresh.json);
      for (const q of ['fox', 'r1', 'r0', 'quick AND river', '"lazy brown"']) {
        const kept = await again('GET', `/c/_design/s/_search/kept?${new URLSearchParams({ q, limit: '200' })}`);
        const built = await again('GET', `/c/_design/s/_search/fresh?${new URLSearchParams({ q, limit: '200' })}`);
        assert.equal(kept.status, 200, kept.text);
        assert.deepEqual(kept.json, built.json, q);
      }
    } finally {
      first.child.kill('SIGKILL');
      second.server?.child.kill('SIGKILL');
      await first.exited;
      await second.server?.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

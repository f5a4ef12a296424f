/**
 * A replication document's job keeps lease keys in the storage (replication/job-leases.ts). When
 * its document goes away while no node runs — here its whole replicator database is deleted
 * through the storage while the server is stopped — a node started afterwards never knows the
 * job, yet deletes its keys once it has read every replicator database; the keys of a job whose
 * document is still there stay, and that job runs on. Both storage engines. On SQLite, which one
 * process holds alone, the leases stay in memory: no lease key is stored while jobs run, and the
 * keys an earlier version stored are all deleted at start.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { jobKey } from '../src/replication/job-leases.js';
import type { Storage } from '../src/storage/contract.js';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const FAST = { intervalMs: 200, crashBackoffMs: 300, stallTimeoutMs: 5_000 };

describe('lease keys of jobs whose documents went away while no node ran', () => {
  let t: TestServer | undefined;
  after(() => t?.close());

  it('are deleted by the next node that starts; a live document keeps its own', async () => {
    t = await startTestServer({ settings: { replicator: FAST } });
    const admin = t.url.replace('://', `://${ADMIN.name}:${ADMIN.password}@`);
    for (const db of ['src', '_replicator', 'team%2F_replicator']) {
      assert.equal((await t.request('PUT', `/${db}`)).status, 201);
    }
    assert.equal((await t.request('PUT', '/src/a', { body: {} })).status, 201);
    const job = (target: string) => ({
      source: `${admin}/src`,
      target: `${admin}/${target}`,
      create_target: true,
      continuous: true,
    });
    assert.equal((await t.request('PUT', '/team%2F_replicator/gone', { body: job('gone_copy') })).status, 201);
    assert.equal((await t.request('PUT', '/_replicator/kept', { body: job('kept_copy') })).status, 201);
    const jobIdOf = async (path: string) => {
      let id: string | undefined;
      await until(async () => {
        const doc = (await t!.request('GET', `/_scheduler/docs/${path}`)).json;
        id = doc.state === 'running' ? doc.id : undefined;
        return id !== undefined;
      }, `${path} running`);
      return id!;
    };
    const gone = jobKey(await jobIdOf('team%2F_replicator/gone'));
    const kept = jobKey(await jobIdOf('_replicator/kept'));
    const keysOf = (storage: Storage, job: string) =>
      storage
        .serverValueKeys(`${job}-`)
        .then((keys) => keys.filter((key) => /^-(\d+|head)$/.test(key.slice(job.length))));
    const { dataDir, storage: where } = t;
    const sqlite = where === undefined;
    if (sqlite) {
      const stored = await t.server.couch.storage.serverValueKeys('replicator_');
      assert.deepEqual(
        stored.filter((key) => /^replicator_(lease|nodes|node_|job_lease-)/.test(key)),
        [],
        'no lease, heartbeat or publication stored',
      );
    } else {
      await until(async () => (await keysOf(t!.server.couch.storage, gone)).length > 0, "the job's lease");
      assert.ok((await keysOf(t.server.couch.storage, kept)).length > 0);
    }

    // Stopped; the replicator database of one document deleted with no node running.
    const port = Number(new URL(t.url).port);
    await t.server.close();
    const storage =
      where === undefined
        ? openSqliteStorage({ dir: dataDir })
        : await openPostgresStorage({ ...where, cacheDir: join(dataDir, 'views') });
    assert.ok(await storage.destroy('team/_replicator'));
    if (sqlite) {
      // The keys an earlier version stored in the data folder.
      for (const key of [`${gone}-1`, `${gone}-head`, `${kept}-2`, `${kept}-head`]) {
        await storage.setServerValue(key, '{}');
      }
      await storage.setServerValue('replicator_node_heartbeat-old', '{"until":0}');
      await storage.setServerValue('replicator_lease', '{}');
    }
    assert.ok((await keysOf(storage, gone)).length > 0, 'its keys stayed');
    await storage.close();

    // Let this process's HTTP client see the closed server's keep-alive connections end.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // On its port again: the jobs' endpoints are URLs of this server.
    t = await startTestServer({
      port,
      dataDir,
      ...(where === undefined ? {} : { storage: where }),
      settings: { replicator: FAST },
    });
    await until(async () => (await keysOf(t!.server.couch.storage, gone)).length === 0, 'its keys deleted', 30_000);
    if (sqlite) {
      await until(async () => (await t!.server.couch.storage.serverValueKeys('replicator_l')).length === 0, 'lease');
      assert.deepEqual(await keysOf(t.server.couch.storage, kept), [], "an earlier version's keys are all deleted");
      assert.deepEqual(await t.server.couch.storage.serverValueKeys('replicator_node_'), []);
    } else {
      assert.ok((await keysOf(t.server.couch.storage, kept)).length > 0, 'a job with a document keeps its keys');
    }
    assert.equal(jobKey(await jobIdOf('_replicator/kept')), kept, 'the same job');
    assert.equal((await t.request('PUT', '/src/b', { body: {} })).status, 201);
    await until(async () => (await t!.request('GET', '/kept_copy/b')).status === 200, 'the kept job runs on');
  });
});

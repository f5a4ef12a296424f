/**
 * The replication scheduler against real servers: `[replicator]` settings through the config API
 * (a bad value is a 400), `max_jobs` with `max_churn` rotation of continuous jobs, a job whose
 * source server stops crashing with CouchDB's backoff and catching up once the server is back,
 * and `_replicator` jobs running again after a restart of the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const FAST = { intervalMs: 200, crashBackoffMs: 300, stallTimeoutMs: 5_000 };
const AS_ADMIN = { user_ctx: { roles: ['_admin'] } };

async function docState(t: TestServer, id: string): Promise<Record<string, any>> {
  return (await t.request('GET', `/_scheduler/docs/_replicator/${id}`)).json;
}

describe('the replication scheduler', () => {
  let t: TestServer;
  let peer: TestServer | undefined;
  const log: string[] = [];
  before(async () => {
    t = await startTestServer({ log: (line) => log.push(line), settings: { replicator: FAST } });
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
  });
  after(async () => {
    for (const line of log) assert.doesNotMatch(line, new RegExp(ADMIN.password), line);
    await peer?.close();
    await t.close();
  });

  it('takes [replicator] settings through the config API; a bad value is a 400 and changes nothing', async () => {
    const bad = await t.request('PUT', '/_node/_local/_config/replicator/max_jobs', { body: '"many"' });
    assert.equal(bad.status, 400);
    assert.equal((await t.request('PUT', '/_node/_local/_config/replicator/max_churn', { body: '"0"' })).status, 400);
    assert.equal(t.server.couch.scheduler.settings.maxJobs, 500);
    const ok = await t.request('PUT', '/_node/_local/_config/replicator/max_jobs', { body: '"2"' });
    assert.equal(ok.status, 200);
    assert.equal((await t.request('PUT', '/_node/_local/_config/replicator/max_churn', { body: '"3"' })).status, 200);
    assert.deepEqual([t.server.couch.scheduler.settings.maxJobs, t.server.couch.scheduler.settings.maxChurn], [2, 3]);
  });

  it('runs at most max_jobs at once and rotates continuous jobs by max_churn', async () => {
    // A server of its own, set at start: one job at a time, one rotated per round.
    const one = await startTestServer({
      log: (line) => log.push(line),
      settings: { replicator: { ...FAST, maxJobs: 1, maxChurn: 1 } },
    });
    const t = one;
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
    for (const name of ['rot-a', 'rot-b']) {
      assert.equal((await t.request('PUT', `/${name}`)).status, 201);
      assert.equal((await t.request('PUT', `/${name}/doc`, { body: { name } })).status, 201);
      const doc = { source: name, target: `${name}-copy`, create_target: true, continuous: true, ...AS_ADMIN };
      assert.equal((await t.request('PUT', `/_replicator/${name}`, { body: doc })).status, 201);
    }
    // Both copies made: the rotation gave each a turn.
    await until(
      async () =>
        (await t.request('GET', '/rot-a-copy/doc')).status === 200 &&
        (await t.request('GET', '/rot-b-copy/doc')).status === 200,
      'both jobs ran',
    );
    for (let i = 0; i < 10; i++) {
      const jobs = (await t.request('GET', '/_scheduler/jobs')).json.jobs as { pid: string | null }[];
      assert.equal(jobs.length, 2);
      assert.ok(jobs.filter((job) => job.pid !== null).length <= 1, JSON.stringify(jobs));
      // One answer for both: two would see a rotation between them.
      const docs = (await t.request('GET', '/_scheduler/docs/_replicator')).json.docs as { state: string }[];
      const states = docs.map((doc) => doc.state).sort();
      assert.ok(['pending,running', 'pending,pending'].includes(states.join()), states.join());
      await sleep(50);
    }
    const history = (await t.request('GET', '/_scheduler/jobs')).json.jobs.flatMap(
      (job: { history: { type: string }[] }) => job.history.map((event) => event.type),
    );
    assert.ok(history.includes('stopped'), history.join());
    // Back to many through the config API: both run.
    assert.equal((await t.request('PUT', '/_node/_local/_config/replicator/max_jobs', { body: '"500"' })).status, 200);
    await until(
      async () => (await docState(t, 'rot-a')).state === 'running' && (await docState(t, 'rot-b')).state === 'running',
      'both running',
    );
    await one.close();
  });

  it('a job whose source server stops crashes with backoff, and catches up when the server is back', async () => {
    peer = await startTestServer({ log: (line) => log.push(line) });
    assert.equal((await peer.request('PUT', '/far')).status, 201);
    assert.equal((await peer.request('PUT', '/far/one', { body: {} })).status, 201);
    const source = { url: `${peer.url}/far`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } };
    const doc = { source, target: 'near', create_target: true, continuous: true, ...AS_ADMIN };
    assert.equal((await t.request('PUT', '/_replicator/far', { body: doc })).status, 201);
    await until(async () => (await t.request('GET', '/near/one')).status === 200, 'copied');
    // The source server goes away (its data kept): the job crashes, and says why.
    const { port, dataDir, storage } = {
      port: Number(new URL(peer.url).port),
      dataDir: peer.dataDir,
      storage: peer.storage,
    };
    await peer.server.close();
    // Kept from the answer that said so: the job starts again after its backoff.
    let crashing: Record<string, any> = {};
    await until(
      async () => {
        crashing = await docState(t, 'far');
        return crashing.state === 'crashing';
      },
      'crashing',
      30_000,
    );
    assert.ok(crashing.error_count >= 1);
    assert.equal(typeof crashing.info.error, 'string');
    // Back on its port: the job starts again after its backoff and carries a new write.
    peer = await startTestServer({ port, dataDir, ...(storage === undefined ? {} : { storage }) });
    assert.equal((await peer.request('PUT', '/far/two', { body: {} })).status, 201);
    await until(
      async () => (await t.request('GET', '/near/two')).status === 200,
      'caught up after the restart',
      30_000,
    );
    assert.equal((await docState(t, 'far')).state, 'running');
    const rev = (await t.request('GET', '/_replicator/far')).json._rev;
    assert.equal((await t.request('DELETE', `/_replicator/far?rev=${rev}`)).status, 200);
  });

  it('_replicator jobs and continuous _replicate jobs run again after the server restarts', async () => {
    assert.equal((await t.request('PUT', '/kept')).status, 201);
    const doc = { source: 'kept', target: 'kept-copy', create_target: true, continuous: true, ...AS_ADMIN };
    assert.equal((await t.request('PUT', '/_replicator/kept', { body: doc })).status, 201);
    // A continuous `_replicate` job over HTTP, with credentials (kept encrypted while it waits for the restart).
    const source = { url: `${t.url}/kept`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } };
    const body = { source, target: 'kept-copy2', create_target: true, continuous: true };
    const started = await t.request('POST', '/_replicate', { body });
    assert.equal(started.status, 202);
    const stored = await t.server.couch.storage.getServerValue('replicator_replicate_jobs');
    assert.ok(stored?.includes(started.json._local_id));
    assert.doesNotMatch(String(stored), new RegExp(ADMIN.password));
    assert.equal((await t.request('PUT', '/kept/before', { body: {} })).status, 201);
    await until(async () => (await t.request('GET', '/kept-copy/before')).status === 200, 'copied');
    await until(async () => (await t.request('GET', '/kept-copy2/before')).status === 200, 'copied by _replicate');
    const { dataDir, storage } = t;
    const port = Number(new URL(t.url).port);
    await t.server.close();
    // On its port again: the `_replicate` job's source is a URL of this server.
    t = await startTestServer({
      port,
      dataDir,
      ...(storage === undefined ? {} : { storage }),
      log: (line) => log.push(line),
      settings: { replicator: FAST },
    });
    assert.equal((await t.request('PUT', '/kept/after', { body: {} })).status, 201);
    await until(async () => (await t.request('GET', '/kept-copy/after')).status === 200, 'copied after the restart');
    assert.equal((await docState(t, 'kept')).state, 'running');
    await until(
      async () => (await t.request('GET', '/kept-copy2/after')).status === 200,
      '_replicate after the restart',
    );
    const jobs = (await t.request('GET', '/_scheduler/jobs')).json.jobs as { id: string }[];
    assert.ok(jobs.some((job) => job.id === started.json._local_id));
    // Cancelled, it is forgotten.
    const cancel = await t.request('POST', '/_replicate', {
      body: { replication_id: started.json._local_id, cancel: true },
    });
    assert.equal(cancel.status, 200);
    assert.doesNotMatch(String(await t.server.couch.storage.getServerValue('replicator_replicate_jobs')), /kept/);
  });
});

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
  /** Servers of single tests, closed at the end even when their test failed. */
  const others: TestServer[] = [];
  before(async () => {
    t = await startTestServer({ log: (line) => log.push(line), settings: { replicator: FAST } });
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
  });
  after(async () => {
    for (const line of log) assert.doesNotMatch(line, new RegExp(ADMIN.password), line);
    await peer?.close();
    for (const other of others) await other.close();
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

  it("_replicate jobs count toward max_jobs with the documents' jobs, rotate, and are listed with their states", async () => {
    const one = await startTestServer({
      log: (line) => log.push(line),
      settings: { replicator: { ...FAST, maxJobs: 1, maxChurn: 1 } },
    });
    others.push(one);
    const t = one;
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
    const ids: string[] = [];
    for (const name of ['post-a', 'post-b']) {
      assert.equal((await t.request('PUT', `/${name}`)).status, 201);
      assert.equal((await t.request('PUT', `/${name}/doc`, { body: { name } })).status, 201);
      const body = { source: name, target: `${name}-copy`, create_target: true, continuous: true };
      const started = await t.request('POST', '/_replicate', { body });
      assert.equal(started.status, 202, started.text);
      ids.push(started.json._local_id);
    }
    // A document's job shares the one slot.
    assert.equal((await t.request('PUT', '/post-c')).status, 201);
    assert.equal((await t.request('PUT', '/post-c/doc', { body: {} })).status, 201);
    const doc = { source: 'post-c', target: 'post-c-copy', create_target: true, continuous: true, ...AS_ADMIN };
    assert.equal((await t.request('PUT', '/_replicator/post-c', { body: doc })).status, 201);
    await until(async () => {
      const copies = await Promise.all(
        ['post-a-copy', 'post-b-copy', 'post-c-copy'].map(async (db) => (await t.request('GET', `/${db}/doc`)).status),
      );
      return copies.every((status) => status === 200);
    }, 'the rotation gave each job a turn');
    for (let i = 0; i < 10; i++) {
      const jobs = (await t.request('GET', '/_scheduler/jobs')).json.jobs as Record<string, any>[];
      assert.equal(jobs.length, 3, JSON.stringify(jobs));
      assert.ok(jobs.filter((job) => job.pid !== null).length <= 1, JSON.stringify(jobs));
      assert.equal(t.server.couch.scheduler.runningCount() <= 1, true);
      for (const id of ids) {
        const job = jobs.find((entry) => entry.id === id)!;
        assert.deepEqual([job.database, job.doc_id, job.user], [null, null, ADMIN.name]);
        assert.equal(job.source, `post-${id === ids[0] ? 'a' : 'b'}`);
      }
      await sleep(50);
    }
    const history = (await t.request('GET', `/_scheduler/jobs/${encodeURIComponent(ids[0]!)}`)).json.history as {
      type: string;
      timestamp: string;
    }[];
    const types = history.map((event) => event.type);
    // Newest first, as CouchDB lists them (`max_history` long: `added` may have scrolled out).
    const times = history.map((event) => Date.parse(event.timestamp));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.ok(types.includes('started') && types.includes('stopped'), types.join());
    // A one-shot waits for a slot and answers when done; `_active_tasks` lists only what runs.
    const once = await t.request('POST', '/_replicate', {
      body: { source: 'post-a', target: 'post-once', create_target: true },
    });
    assert.equal(once.status, 200, once.text);
    assert.equal(once.json.history[0].docs_written, 1);
    const tasks = (await t.request('GET', '/_active_tasks')).json as Record<string, unknown>[];
    assert.ok(tasks.filter((task) => task.type === 'replication').length <= 1, JSON.stringify(tasks));
    // Cancelled by body and by id, running or waiting.
    const byBody = await t.request('POST', '/_replicate', {
      body: { source: 'post-a', target: 'post-a-copy', create_target: true, continuous: true, cancel: true },
    });
    assert.deepEqual([byBody.status, byBody.json], [200, { ok: true, _local_id: ids[0] }]);
    const byId = await t.request('POST', '/_replicate', { body: { replication_id: ids[1], cancel: true } });
    assert.deepEqual([byId.status, byId.json], [200, { ok: true, _local_id: ids[1] }]);
    const left = (await t.request('GET', '/_scheduler/jobs')).json.jobs as { doc_id: string | null }[];
    assert.deepEqual(
      left.map((job) => job.doc_id),
      ['post-c'],
    );
    await until(async () => (await docState(t, 'post-c')).state === 'running', 'the document job has the slot');
  });

  it("a continuous _replicate job whose source stops crashes with CouchDB's backoff, then catches up", async () => {
    const far = await startTestServer({ log: (line) => log.push(line) });
    others.push(far);
    assert.equal((await far.request('PUT', '/away')).status, 201);
    assert.equal((await far.request('PUT', '/away/one', { body: {} })).status, 201);
    const source = { url: `${far.url}/away`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } };
    const started = await t.request('POST', '/_replicate', {
      body: { source, target: 'back', create_target: true, continuous: true },
    });
    assert.equal(started.status, 202, started.text);
    const id = started.json._local_id as string;
    await until(async () => (await t.request('GET', '/back/one')).status === 200, 'copied');
    const port = Number(new URL(far.url).port);
    const { dataDir, storage } = far;
    await far.server.close();
    others.splice(others.indexOf(far), 1); // its data stays for the server started on it below
    // Three crashes in a row: each start waits base × 2^(n − 1) after the crash before it.
    const job = t.server.couch.scheduler.get(id)!;
    await until(
      async () => job.history.filter((event) => event.type === 'crashed').length >= 3,
      'three crashes',
      30_000,
    );
    const events = [...job.history].reverse();
    let crashes = 0;
    for (let i = 1; i < events.length; i++) {
      const [before, event] = [events[i - 1]!, events[i]!];
      if (before.type === 'crashed') crashes++;
      if (event.type === 'started' && before.type === 'crashed') {
        const waited = event.at - before.at;
        assert.ok(waited >= FAST.crashBackoffMs * 2 ** (crashes - 1), `${waited} ms after crash ${crashes}`);
      }
    }
    const listed = (await t.request('GET', `/_scheduler/jobs/${encodeURIComponent(id)}`)).json;
    assert.ok(
      listed.history.filter((event: { type: string }) => event.type === 'crashed').length >= 3,
      JSON.stringify(listed),
    );
    assert.ok(log.some((line) => line.includes(id) && /crash \d+ in a row/.test(line)));
    // Back on its port: the job starts again after its backoff and carries a new write.
    const back = await startTestServer({ port, dataDir, ...(storage === undefined ? {} : { storage }) });
    others.push(back);
    assert.equal((await back.request('PUT', '/away/two', { body: {} })).status, 201);
    await until(async () => (await t.request('GET', '/back/two')).status === 200, 'caught up', 30_000);
    assert.equal((await t.request('POST', '/_replicate', { body: { replication_id: id, cancel: true } })).status, 200);
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
    // The closed server's keep-alive connections are gone on its side; a turn of the event loop lets
    // this process's HTTP client see them end, so the first request after the restart does not go
    // out on one of them (it failed with "other side closed" on a loaded machine).
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
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

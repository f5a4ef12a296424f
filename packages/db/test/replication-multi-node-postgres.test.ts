/**
 * Replication documents on two nodes of one PostgreSQL: the jobs run on exactly one node (the
 * holder of the replicator lease), `/_scheduler` answers the same on both and names that node, and
 * when that node goes away the other takes the jobs over within seconds and carries on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';
import { startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const FAST = { intervalMs: 200, crashBackoffMs: 200, stallTimeoutMs: 5_000 };

describe('replication jobs on two nodes of one PostgreSQL', () => {
  const url = testPostgresUrl();
  const schema = freshSchema('replnodes');
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    if (url instanceof Error) throw url;
    const storage = { url, schema };
    a = await startTestServer({ storage, settings: { replicator: FAST, nodeName: 'a@divan' } });
    b = await startTestServer({ storage, settings: { replicator: FAST, nodeName: 'b@divan' } });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });

  const running = () => [a, b].map((node) => node.server.couch.scheduler.runningCount());

  it('runs each job on one node; _scheduler answers the same on both, naming it; the other takes over', async () => {
    assert.equal((await a.request('PUT', '/_replicator')).status, 201);
    assert.equal((await a.request('PUT', '/src')).status, 201);
    assert.equal((await a.request('PUT', '/src/one', { body: {} })).status, 201);
    const doc = {
      source: 'src',
      target: 'dst',
      create_target: true,
      continuous: true,
      user_ctx: { roles: ['_admin'] },
    };
    assert.equal((await b.request('PUT', '/_replicator/job', { body: doc })).status, 201);
    await until(async () => (await a.request('GET', '/dst/one')).status === 200, 'copied');
    await until(async () => running().join() === '1,0' || running().join() === '0,1', 'running on one node');
    for (let i = 0; i < 10; i++) {
      assert.ok(running()[0]! + running()[1]! === 1, running().join());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [holder, other] = running()[0] === 1 ? [a, b] : [b, a];
    const name = holder === a ? 'a@divan' : 'b@divan';
    // Both nodes answer the same: the job running on its node.
    await until(async () => {
      const [x, y] = await Promise.all([a, b].map((node) => node.request('GET', '/_scheduler/docs/_replicator/job')));
      return (
        x!.json.state === 'running' && y!.json.state === 'running' && x!.json.node === name && y!.json.node === name
      );
    }, 'the same answer on both nodes');
    const jobs = (await other.request('GET', '/_scheduler/jobs')).json.jobs;
    assert.deepEqual(
      jobs.map((job: { doc_id: string; node: string }) => [job.doc_id, job.node]),
      [['job', name]],
    );
    // The node running it goes away: the other takes the job over and carries new writes.
    await holder.server.close();
    await until(async () => other.server.couch.scheduler.runningCount() === 1, 'taken over', 15_000);
    assert.equal((await other.request('PUT', '/src/two', { body: {} })).status, 201);
    await until(
      async () => (await other.request('GET', '/dst/two')).status === 200,
      'carried after the take-over',
      15_000,
    );
    const after = (await other.request('GET', '/_scheduler/docs/_replicator/job')).json;
    assert.deepEqual([after.state, after.node], ['running', other === a ? 'a@divan' : 'b@divan']);
  });
});

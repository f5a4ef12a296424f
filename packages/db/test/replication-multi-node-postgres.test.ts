/**
 * Replication documents on two nodes of one PostgreSQL: each job runs on exactly one node (the
 * holder of its lease), `/_scheduler` answers the same on both and names that node, and when that
 * node goes away the other takes the jobs over within seconds and carries on; a node that joins
 * takes its fair share of the jobs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';
import { startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const FAST = { intervalMs: 200, crashBackoffMs: 200, stallTimeoutMs: 5_000 };

/** The jobs' lease keys stored in `schema`, by job: each key's suffix (a tenure's number, or `head`) and value. */
async function leaseKeys(url: string, schema: string): Promise<Map<string, Map<string, string>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string; value: string }>(
      `SELECT key, value FROM "${schema}".server_values WHERE key LIKE 'replicator_job_lease-%'`,
    );
    const jobs = new Map<string, Map<string, string>>();
    for (const { key, value } of rows) {
      const at = key.lastIndexOf('-');
      const job = key.slice(0, at);
      if (!jobs.has(job)) jobs.set(job, new Map());
      jobs.get(job)!.set(key.slice(at + 1), value);
    }
    return jobs;
  } finally {
    await client.end();
  }
}

/** Whether every job keeps only its head and the tenure the head names (its older tenures deleted). */
function tidy(jobs: Map<string, Map<string, string>>): boolean {
  for (const keys of jobs.values()) {
    const head = keys.get('head');
    if (head === undefined || keys.size !== 2) return false;
    const { latest, floor } = JSON.parse(head) as { latest: number; floor: number };
    if (latest !== floor || !keys.has(String(latest))) return false;
  }
  return true;
}

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
    if (url instanceof Error) throw url;
    // The tenures before the take-over are deleted; the one held stays, naming the node running the job.
    await until(async () => tidy(await leaseKeys(url, schema)), 'older tenures deleted', 15_000);
    const [keys] = [...(await leaseKeys(url, schema)).values()];
    const latest = (JSON.parse(keys!.get('head')!) as { latest: number }).latest;
    assert.ok(latest >= 2, `a tenure after the take-over: ${latest}`);
    assert.equal(keys!.get(String(latest)), other.server.couch.nodeId);
    assert.equal(other.server.couch.scheduler.runningCount(), 1);
    // The job goes away with its document: its keys with it.
    const rev = (await other.request('GET', '/_replicator/job')).json._rev;
    assert.equal((await other.request('DELETE', `/_replicator/job?rev=${rev}`)).status, 200);
    await until(async () => (await leaseKeys(url, schema)).size === 0, 'the lease keys of a job gone deleted', 15_000);
    assert.equal(other.server.couch.scheduler.runningCount(), 0);
  });
});

/** Idle continuous jobs wait for changes 10 s at a time: not stalled within this test. */
const SHARED = { ...FAST, stallTimeoutMs: 60_000 };

describe('replication jobs shared fairly by two nodes of one PostgreSQL', () => {
  const url = testPostgresUrl();
  const schema = freshSchema('replshare');
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    if (url instanceof Error) throw url;
    a = await startTestServer({ storage: { url, schema }, settings: { replicator: SHARED, nodeName: 'a@divan' } });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });

  it('a node that joins takes its share of the jobs; _scheduler names each job’s node on both; a node that leaves gives its jobs back', async () => {
    assert.equal((await a.request('PUT', '/_replicator')).status, 201);
    assert.equal((await a.request('PUT', '/src')).status, 201);
    const ids = ['j1', 'j2', 'j3', 'j4'];
    for (const id of ids) {
      const doc = {
        source: 'src',
        target: `dst-${id}`,
        create_target: true,
        continuous: true,
        user_ctx: { roles: ['_admin'] },
      };
      assert.equal((await a.request('PUT', `/_replicator/${id}`, { body: doc })).status, 201);
    }
    const count = (node: TestServer) => node.server.couch.scheduler.runningCount();
    // Alone, the first node runs them all.
    await until(async () => count(a) === 4, 'all four on the only node');
    if (url instanceof Error) throw url;
    b = await startTestServer({ storage: { url, schema }, settings: { replicator: SHARED, nodeName: 'b@divan' } });
    await until(async () => count(a) === 2 && count(b) === 2, 'two on each node', 20_000);
    // Never more than one node runs a job: four in all, every time we look.
    for (let i = 0; i < 10; i++) {
      assert.equal(count(a) + count(b), 4, `${count(a)} + ${count(b)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Both nodes answer the same, each job with the node that runs it.
    await until(async () => {
      const [x, y] = await Promise.all([a, b].map((node) => node.request('GET', '/_scheduler/docs/_replicator')));
      const nodes = (reply: { json: { docs: { doc_id: string; node: string; state: string }[] } }) =>
        reply.json.docs.map((doc) => `${doc.doc_id}:${doc.state}:${doc.node}`).join();
      const shown = nodes(x!);
      return (
        shown === nodes(y!) &&
        x!.json.docs.every((doc: { state: string }) => doc.state === 'running') &&
        (shown.match(/a@divan/g) ?? []).length === 2 &&
        (shown.match(/b@divan/g) ?? []).length === 2
      );
    }, 'the same answer on both nodes, two jobs each');
    const jobs = (await b.request('GET', '/_scheduler/jobs')).json.jobs as { doc_id: string; node: string }[];
    assert.deepEqual(jobs.map((job) => job.doc_id).sort(), ids);
    assert.deepEqual(jobs.map((job) => job.node).sort(), ['a@divan', 'a@divan', 'b@divan', 'b@divan']);
    // Every job carries new writes, whichever node runs it.
    assert.equal((await a.request('PUT', '/src/new', { body: {} })).status, 201);
    for (const id of ids) await until(async () => (await a.request('GET', `/dst-${id}/new`)).status === 200, id);
    // The second node leaves: the first runs all four again.
    await b.server.close();
    await until(async () => count(a) === 4, 'all four back on the first node', 15_000);
    // Leases given up and taken again, each job keeps only its head and its latest tenure.
    await until(async () => tidy(await leaseKeys(url, schema)), 'older tenures deleted', 15_000);
    assert.equal((await leaseKeys(url, schema)).size, 4);
  });
});

/** Writes server values into `schema` as another process would, with no node of this test running. */
async function setValues(url: string, schema: string, values: Record<string, string>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [key, value] of Object.entries(values)) {
      await client.query(
        `INSERT INTO "${schema}".server_values (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2`,
        [key, value],
      );
    }
  } finally {
    await client.end();
  }
}

describe('lease keys of jobs whose documents went away while no node ran, on two nodes of one PostgreSQL', () => {
  const url = testPostgresUrl();
  const schema = freshSchema('replsweep');
  const nodes: TestServer[] = [];
  after(async () => {
    for (const node of nodes) await node.close();
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });

  it('are deleted by the nodes started after; the keys of a live job, and of a job a live node holds, stay', async () => {
    if (url instanceof Error) throw url;
    const storage = { url, schema };
    const first = await startTestServer({ storage, settings: { replicator: FAST, nodeName: 'a@divan' } });
    for (const db of ['_replicator', 'src']) assert.equal((await first.request('PUT', `/${db}`)).status, 201);
    const job = {
      source: 'src',
      target: 'dst',
      create_target: true,
      continuous: true,
      user_ctx: { roles: ['_admin'] },
    };
    assert.equal((await first.request('PUT', '/_replicator/live', { body: job })).status, 201);
    await until(async () => (await leaseKeys(url, schema)).size === 1, 'the live job leased', 15_000);
    const [live] = [...(await leaseKeys(url, schema)).keys()];
    await first.close();
    // While no node runs: keys of a job whose document went away (given up at a close), and of a
    // job a live node (c, whose document these nodes have not read) holds.
    await setValues(url, schema, {
      'replicator_job_lease-orphan-3': '',
      'replicator_job_lease-orphan-head': JSON.stringify({ latest: 3, floor: 2 }),
      'replicator_job_lease-elsewhere-1': 'c',
      'replicator_node_heartbeat-c': JSON.stringify({ name: 'c', until: Date.now() + 600_000 }),
    });
    nodes.push(await startTestServer({ storage, settings: { replicator: FAST, nodeName: 'a@divan' } }));
    nodes.push(await startTestServer({ storage, settings: { replicator: FAST, nodeName: 'b@divan' } }));
    await until(
      async () => !(await leaseKeys(url, schema)).has('replicator_job_lease-orphan'),
      'the orphan keys deleted',
      30_000,
    );
    const left = await leaseKeys(url, schema);
    assert.deepEqual([...left.keys()].sort(), [live!, 'replicator_job_lease-elsewhere'].sort());
    assert.equal(left.get('replicator_job_lease-elsewhere')!.get('1'), 'c');
    await until(
      async () => nodes.reduce((sum, node) => sum + node.server.couch.scheduler.runningCount(), 0) === 1,
      'the live job runs on one node',
      15_000,
    );
    assert.equal((await nodes[0]!.request('PUT', '/src/after', { body: {} })).status, 201);
    await until(
      async () => (await nodes[1]!.request('GET', '/dst/after')).status === 200,
      'the live job carries on',
      15_000,
    );
  });
});

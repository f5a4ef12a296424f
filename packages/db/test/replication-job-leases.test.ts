/**
 * Job leases' old tenures are deleted without ever letting two nodes hold a job: a node that
 * looked at a job's tenures while they were being deleted, and so creates a deleted tenure again,
 * finds the head past it and gives that tenure up (its key deleted) instead of running the job.
 * The node values are kept in memory here, as one storage shared by the nodes; what a node reads
 * can be made stale, as a read that raced a deletion sees it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JobLeases } from '../src/replication/job-leases.js';

const JOB = 'job1';
const KEY = 'replicator_job_lease-job1';

/** One storage's server values; `stale` answers a node's next read of a key as it was before. */
class Values {
  readonly stored = new Map<string, string>();

  for(stale: Map<string, string | undefined>) {
    return {
      getServerValue: async (key: string) => {
        if (stale.has(key)) {
          const value = stale.get(key);
          stale.delete(key);
          return value;
        }
        return this.stored.get(key);
      },
      setServerValue: async (key: string, value: string) => {
        this.stored.set(key, value);
      },
      addServerValue: async (key: string, value: string) => {
        const there = this.stored.get(key);
        if (there !== undefined) return there;
        this.stored.set(key, value);
        return value;
      },
      deleteServerValue: async (key: string) => {
        this.stored.delete(key);
      },
      serverValueKeys: async (prefix: string) => [...this.stored.keys()].filter((key) => key.startsWith(prefix)).sort(),
    };
  }
}

function node(values: Values, nodeId: string, stale = new Map<string, string | undefined>()) {
  const held = new Set<string>();
  const leases = new JobLeases({
    values: values.for(stale),
    nodeId,
    nodeName: () => nodeId,
    log: () => {},
    jobIds: () => [JOB],
    settled: () => true,
    changed: (id, holding) => (holding ? held.add(id) : held.delete(id)),
    snapshot: () => ({ node: nodeId, jobs: [], docs: [] }),
  });
  return { leases, held };
}

const beat = (until: number) => JSON.stringify({ name: 'n', until });

describe('job leases: old tenures deleted safely', () => {
  it('the holder deletes the tenures before its own a round after taking the lease, never its own', async () => {
    const values = new Values();
    // Tenures 1 and 2 of nodes that died; the head names tenure 2.
    values.stored.set(`${KEY}-1`, 'dead1');
    values.stored.set(`${KEY}-2`, 'dead2');
    values.stored.set(`${KEY}-head`, JSON.stringify({ latest: 2, floor: 1 }));
    values.stored.set('replicator_node_heartbeat-dead2', beat(0));
    const a = node(values, 'a');
    await a.leases.tick();
    assert.deepEqual([...a.held], [JOB]);
    assert.equal(values.stored.get(`${KEY}-3`), 'a');
    assert.deepEqual(JSON.parse(values.stored.get(`${KEY}-head`)!), { latest: 3, floor: 1 });
    // The round it took the lease in and the next keep the old tenures; the one after deletes them.
    await a.leases.tick();
    assert.ok(values.stored.has(`${KEY}-1`));
    await a.leases.tick();
    assert.deepEqual([...values.stored.keys()].filter((key) => key.startsWith(KEY)).sort(), [
      `${KEY}-3`,
      `${KEY}-head`,
    ]);
    assert.deepEqual(JSON.parse(values.stored.get(`${KEY}-head`)!), { latest: 3, floor: 3 });
    assert.deepEqual([...a.held], [JOB]);
    await a.leases.close();
  });

  it('a node that creates a deleted tenure again (it looked during the deletion) gives it up and does not run the job', async () => {
    const values = new Values();
    // Node a holds tenure 3, its predecessors deleted.
    values.stored.set(`${KEY}-3`, 'a');
    values.stored.set(`${KEY}-head`, JSON.stringify({ latest: 3, floor: 3 }));
    values.stored.set('replicator_node_heartbeat-a', beat(Date.now() + 60_000));
    values.stored.set('replicator_node_heartbeat-dead1', beat(0));
    // Node b read the head and tenure 1 before they changed, tenure 2 after its deletion.
    const stale = new Map<string, string | undefined>([
      [`${KEY}-head`, JSON.stringify({ latest: 1, floor: 1 })],
      [`${KEY}-1`, 'dead1'],
    ]);
    const b = node(values, 'b', stale);
    await b.leases.tick();
    assert.deepEqual([...b.held], [], 'b never holds the job');
    assert.equal(values.stored.get(`${KEY}-2`), undefined, 'the tenure created again is deleted');
    assert.equal(values.stored.get(`${KEY}-3`), 'a');
    assert.deepEqual(JSON.parse(values.stored.get(`${KEY}-head`)!), { latest: 3, floor: 3 });
    // Its next look starts from the head and finds a's tenure.
    await b.leases.tick();
    assert.deepEqual([...b.held], []);
    await b.leases.close();
  });

  it('a job gone: its holder deletes every key of it', async () => {
    const values = new Values();
    let jobs = [JOB];
    const held = new Set<string>();
    const leases = new JobLeases({
      values: values.for(new Map()),
      nodeId: 'a',
      nodeName: () => 'a',
      log: () => {},
      jobIds: () => jobs,
      settled: () => true,
      changed: (id, holding) => (holding ? held.add(id) : held.delete(id)),
      snapshot: () => ({ node: 'a', jobs: [], docs: [] }),
    });
    await leases.tick();
    assert.deepEqual([...held], [JOB]);
    jobs = [];
    await leases.tick();
    assert.deepEqual([...held], []);
    assert.deepEqual(
      [...values.stored.keys()].filter((key) => key.startsWith(KEY)),
      [],
    );
    await leases.close();
  });

  it('a job gone whose node died: another node that knew it deletes its keys; not while its node lives', async () => {
    const values = new Values();
    values.stored.set(`${KEY}-1`, 'a');
    values.stored.set(`${KEY}-head`, JSON.stringify({ latest: 1, floor: 1 }));
    values.stored.set('replicator_node_heartbeat-a', beat(Date.now() + 60_000));
    let jobs = [JOB];
    const held = new Set<string>();
    const leases = new JobLeases({
      values: values.for(new Map()),
      nodeId: 'b',
      nodeName: () => 'b',
      log: () => {},
      jobIds: () => jobs,
      settled: () => true,
      changed: (id, holding) => (holding ? held.add(id) : held.delete(id)),
      snapshot: () => ({ node: 'b', jobs: [], docs: [] }),
    });
    await leases.tick();
    assert.deepEqual([...held], [], 'a runs it');
    jobs = [];
    await leases.tick();
    assert.equal(values.stored.get(`${KEY}-1`), 'a', 'kept while its node runs it');
    // b knows the job again while a runs it; then a dies and the job goes away: b deletes its keys.
    jobs = [JOB];
    await leases.tick();
    assert.deepEqual([...held], []);
    values.stored.set('replicator_node_heartbeat-a', beat(0));
    jobs = [];
    await leases.tick();
    assert.deepEqual([...held], []);
    assert.deepEqual(
      [...values.stored.keys()].filter((key) => key.startsWith(KEY)),
      [],
    );
    await leases.close();
  });
});

describe('job leases: keys of jobs whose documents went away while no node ran', () => {
  const keysOf = (values: Values, prefix: string) =>
    [...values.stored.keys()].filter((key) => key.startsWith(prefix)).sort();
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('are deleted once the node has read every replicator database and seen them so for a while; no others', async () => {
    const values = new Values();
    const gone = 'replicator_job_lease-gone';
    const dead = 'replicator_job_lease-dead';
    const elsewhere = 'replicator_job_lease-elsewhere';
    const late = 'replicator_job_lease-late';
    // Given up by a node that closed; held by a node long dead; held by a live node; a job whose document is read late.
    values.stored.set(`${gone}-1`, '');
    values.stored.set(`${gone}-head`, JSON.stringify({ latest: 1, floor: 1 }));
    values.stored.set(`${dead}-2`, 'x');
    values.stored.set(`${dead}-head`, JSON.stringify({ latest: 2, floor: 1 }));
    values.stored.set('replicator_node_heartbeat-x', beat(Date.now() - 120_000));
    values.stored.set('replicator_node_snapshot-x', '{}');
    values.stored.set(`${elsewhere}-1`, 'c');
    values.stored.set('replicator_node_heartbeat-c', beat(Date.now() + 60_000));
    values.stored.set(`${late}-1`, '');
    let jobs = [JOB];
    let settled = false;
    const leases = new JobLeases(
      {
        values: values.for(new Map()),
        nodeId: 'a',
        nodeName: () => 'a',
        log: () => {},
        jobIds: () => jobs,
        settled: () => settled,
        changed: () => {},
        snapshot: () => ({ node: 'a', jobs: [], docs: [] }),
      },
      100,
      20,
    );
    // Not before every replicator database was read: a document not yet read may name them.
    await leases.tick();
    await wait(150);
    await leases.tick();
    assert.deepEqual(keysOf(values, `${gone}-`), [`${gone}-1`, `${gone}-head`]);
    assert.ok(values.stored.has('replicator_node_heartbeat-x'));
    settled = true;
    // Seen once: kept (a job taken or a document read meanwhile would keep them).
    await leases.tick();
    assert.deepEqual(keysOf(values, `${gone}-`), [`${gone}-1`, `${gone}-head`]);
    jobs = [JOB, 'late'];
    await wait(150);
    await leases.tick();
    assert.deepEqual(keysOf(values, `${gone}-`), []);
    assert.deepEqual(keysOf(values, `${dead}-`), []);
    assert.deepEqual(keysOf(values, 'replicator_node_heartbeat-'), [
      'replicator_node_heartbeat-a',
      'replicator_node_heartbeat-c',
    ]);
    assert.equal(values.stored.get('replicator_node_snapshot-x'), undefined);
    assert.deepEqual(keysOf(values, `${elsewhere}-`), [`${elsewhere}-1`], 'a live node holds it');
    assert.ok(keysOf(values, `${late}-`).length > 0, 'its document was read meanwhile');
    assert.ok(keysOf(values, `${KEY}-`).length > 0, 'a known job');
    await leases.close();
  });

  it('a job taken while it was seen without a document keeps its keys', async () => {
    const values = new Values();
    const taken = 'replicator_job_lease-taken';
    values.stored.set(`${taken}-1`, '');
    const leases = new JobLeases(
      {
        values: values.for(new Map()),
        nodeId: 'a',
        nodeName: () => 'a',
        log: () => {},
        jobIds: () => [],
        settled: () => true,
        changed: () => {},
        snapshot: () => ({ node: 'a', jobs: [], docs: [] }),
      },
      100,
      20,
    );
    await leases.tick();
    // Another node, whose document this node has not read, takes the job.
    values.stored.set(`${taken}-2`, 'c');
    values.stored.set('replicator_node_heartbeat-c', beat(Date.now() + 60_000));
    await wait(150);
    await leases.tick();
    assert.deepEqual(keysOf(values, `${taken}-`), [`${taken}-1`, `${taken}-2`]);
    await leases.close();
  });
});

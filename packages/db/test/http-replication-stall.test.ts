/**
 * `stall_timeout`: a job is abandoned as stalled only when its source stops answering. An idle
 * continuous job is not stalled (its changes longpoll answers well within the timeout, however
 * short), and a source that accepts the changes request but never answers it makes the job crash
 * with `replication_stalled`, then run again once the backoff ends.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const STALL = { intervalMs: 100, crashBackoffMs: 200, stallTimeoutMs: 1_000 };
const AS_ADMIN = { user_ctx: { roles: ['_admin'] } };

/** A CouchDB-shaped source whose `_changes` never answers (the connection stays open). */
function silentSource(): Promise<{ url: string; close(): Promise<void> }> {
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/') return json(200, { couchdb: 'Welcome', version: '3.5.0' });
    if (path === '/src') {
      return json(200, { db_name: 'src', update_seq: '1-x', instance_start_time: '0', doc_count: 1 });
    }
    if (path.startsWith('/src/_changes')) {
      hanging.push(res);
      return;
    }
    json(404, { error: 'not_found', reason: 'missing' });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/src`,
        close: () =>
          new Promise((done) => {
            for (const res of hanging) res.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('replication: stall_timeout', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ settings: { replicator: STALL } });
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
  });
  after(async () => {
    await t.close();
  });

  it('an idle continuous job stays running past several stall timeouts', async () => {
    assert.equal((await t.request('PUT', '/idle-src')).status, 201);
    assert.equal((await t.request('PUT', '/idle-src/one', { body: {} })).status, 201);
    const doc = { source: 'idle-src', target: 'idle-dst', create_target: true, continuous: true, ...AS_ADMIN };
    assert.equal((await t.request('PUT', '/_replicator/idle', { body: doc })).status, 201);
    await until(async () => (await t.request('GET', '/idle-dst/one')).status === 200, 'copied');
    // Three stall timeouts without a change: never crashed, never restarted.
    await sleep(3_000);
    const state = (await t.request('GET', '/_scheduler/docs/_replicator/idle')).json;
    assert.equal(state.state, 'running', JSON.stringify(state));
    assert.equal(state.error_count, 0, JSON.stringify(state));
    const job = (await t.request('GET', '/_scheduler/jobs')).json.jobs.find(
      (j: { doc_id: string }) => j.doc_id === 'idle',
    );
    assert.deepEqual(
      job.history.map((event: { type: string }) => event.type),
      ['started', 'added'],
    );
    // Still carrying writes.
    assert.equal((await t.request('PUT', '/idle-src/two', { body: {} })).status, 201);
    await until(async () => (await t.request('GET', '/idle-dst/two')).status === 200, 'carried');
  });

  it('a source that never answers its changes: the job crashes as stalled and runs again', async () => {
    const source = await silentSource();
    try {
      const doc = { source: source.url, target: 'stall-dst', create_target: true, continuous: true, ...AS_ADMIN };
      assert.equal((await t.request('PUT', '/_replicator/stalled', { body: doc })).status, 201);
      let seen: Record<string, any> = {};
      await until(async () => {
        seen = (await t.request('GET', '/_scheduler/jobs')).json.jobs.find(
          (j: { doc_id: string }) => j.doc_id === 'stalled',
        );
        return (seen?.history ?? []).some(
          (event: { type: string; reason?: string }) =>
            event.type === 'crashed' && /replication_stalled|no progress/.test(String(event.reason)),
        );
      }, 'crashed as stalled');
      // It is tried again after its backoff (a second start in its history).
      await until(async () => {
        const job = (await t.request('GET', '/_scheduler/jobs')).json.jobs.find(
          (j: { doc_id: string }) => j.doc_id === 'stalled',
        );
        return (job?.history ?? []).filter((event: { type: string }) => event.type === 'started').length >= 2;
      }, 'started again');
    } finally {
      await source.close();
    }
  });
});

/**
 * A replication survives `kill -9` of the server running it: the real `divan serve` as a child
 * process on a real data folder (or PostgreSQL schema in the second pass) runs a continuous
 * `_replicate` job and a continuous `_replicator` document's job over a large-ish source, is
 * killed with SIGKILL mid-run (no checkpoint at exit, no lease given up), and started again on the
 * same data: both jobs start again by themselves, resume from their checkpoints (not from 0: the
 * new session reads only what was not checkpointed) and their targets end identical to the source.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { request, testStorage } from './support/server.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { dropSchema, nodeArgs } from './support/postgres.js';
import { until } from './support/until.js';

const DOCS = 12_000;
/** Small batches and frequent checkpoints: the run lasts long enough to be killed in its middle. */
const JOB = { continuous: true, worker_batch_size: 25, checkpoint_interval: 100 };

describe('replication after kill -9 of the server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-kill-'));
  const storage = testStorage();
  const args =
    storage === undefined
      ? ['--data', dataDir, '--admin', 'admin:secret']
      : nodeArgs(storage.url, storage.schema, dataDir);
  const running: ChildServer[] = [];
  after(async () => {
    for (const server of running) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    if (storage !== undefined) await dropSchema(storage.url, storage.schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<ChildServer> {
    const server = await startChildServer(args, { DIVAN_REPLICATOR_INTERVAL: '500', DIVAN_LOG_LEVEL: 'warn' });
    running.push(server);
    return server;
  }

  it('both jobs resume from their checkpoints and their targets end identical', async () => {
    let server = await start();
    const call = (method: string, path: string, body?: unknown) =>
      request(server.url, method, path, body === undefined ? {} : { body });
    assert.equal((await call('PUT', '/big')).status, 201);
    for (let at = 0; at < DOCS; at += 2_000) {
      const docs = Array.from({ length: 2_000 }, (_, i) => ({ _id: `d${String(at + i).padStart(6, '0')}`, n: at + i }));
      assert.equal((await call('POST', '/big/_bulk_docs', { docs })).status, 201);
    }
    assert.equal((await call('PUT', '/_replicator')).status, 201);
    const posted = await call('POST', '/_replicate', { source: 'big', target: 'by-post', create_target: true, ...JOB });
    assert.equal(posted.status, 202, posted.text);
    const doc = { source: 'big', target: 'by-doc', create_target: true, ...JOB, user_ctx: { roles: ['_admin'] } };
    assert.equal((await call('PUT', '/_replicator/kill', doc)).status, 201);

    // Killed once both have checkpointed part of the source, and neither is through.
    const checkpointed = new Map<string, number>();
    await until(
      async () => {
        const jobs = (await call('GET', '/_scheduler/jobs')).json.jobs as Record<string, any>[];
        if (jobs.length !== 2) return false;
        for (const job of jobs)
          checkpointed.set(job.doc_id ?? '_replicate', Number(job.info?.checkpointed_source_seq ?? 0));
        return jobs.every((job) => Number(job.info?.checkpointed_source_seq ?? 0) >= 500);
      },
      'both jobs checkpointed part of the source',
      60_000,
    );
    server.child.kill('SIGKILL');
    assert.equal(await server.exited, 'SIGKILL');
    running.pop();
    for (const [job, seq] of checkpointed) assert.ok(seq < DOCS, `${job} was through (${seq}) before the kill`);

    // Started again on the same data: both jobs come back by themselves and catch up.
    server = await start();
    const copies = async (db: string) => (await call('GET', `/${db}`)).json?.doc_count;
    await until(
      async () => (await copies('by-post')) === DOCS && (await copies('by-doc')) === DOCS,
      'both targets caught up',
      120_000,
    );
    const jobs = (await call('GET', '/_scheduler/jobs')).json.jobs as Record<string, any>[];
    assert.equal(jobs.length, 2, JSON.stringify(jobs));
    for (const job of jobs) {
      const name = job.doc_id ?? '_replicate';
      // This session read only what the last checkpoint before the kill did not cover, and some
      // of what the kill cut off after it (at most what was read past it): never everything.
      await until(async () => {
        const info = (await call('GET', `/_scheduler/jobs/${encodeURIComponent(job.id)}`)).json.info;
        return Number(info?.checkpointed_source_seq) === DOCS;
      }, `${name} checkpointed the end`);
      const info = (await call('GET', `/_scheduler/jobs/${encodeURIComponent(job.id)}`)).json.info;
      assert.ok(info.docs_read > 0, `${name} read nothing: ${JSON.stringify(info)}`);
      assert.ok(info.docs_read <= DOCS - checkpointed.get(name)!, `${name} read ${info.docs_read} again`);
      // The target's checkpoint says where the session started: at a checkpoint, not at 0.
      const target = name === '_replicate' ? 'by-post' : 'by-doc';
      // Named by the id's base, as CouchDB names checkpoints.
      const log = (await call('GET', `/${target}/_local/${String(job.id).split('+')[0]}`)).json;
      assert.ok(Number(log.history[0].start_last_seq) >= checkpointed.get(name)!, JSON.stringify(log.history[0]));
      assert.ok(log.history.length >= 2, 'the sessions before the kill are in the history');
    }
    // Identical: every id at the same revision.
    const rows = async (db: string) =>
      ((await call('GET', `/${db}/_all_docs`)).json.rows as { id: string; value: { rev: string } }[]).map(
        (row) => `${row.id}@${row.value.rev}`,
      );
    const source = await rows('big');
    assert.equal(source.length, DOCS);
    assert.deepEqual(await rows('by-post'), source);
    assert.deepEqual(await rows('by-doc'), source);
  });
});

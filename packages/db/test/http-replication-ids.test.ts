/**
 * The ids of replications started over HTTP are CouchDB's for the same request and server uuid
 * (the algorithm's vectors are in replication-id.test.ts): a `_replicate` job's `_local_id`, its
 * `/_scheduler/jobs` entry, a `_replicator` document's job, and the checkpoints on both sides,
 * named `_local/<base>` as CouchDB names them. A replication whose checkpoints were written under
 * the id Divan gave it before resumes from them. Both storage engines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replicationId } from '../src/replication/replication-id.js';
import { legacyReplicationId } from '../src/replication/replication-id-legacy.js';
import { readReplicationRequest } from '../src/replication/request.js';
import { dropSchema } from './support/postgres.js';
import { ADMIN, AUTH, startTestServer, testStorage, type TestServer } from './support/server.js';
import { until } from './support/until.js';

/** The uuid a CouchDB server would have (`[couchdb] uuid`), given to this one (stored, then restarted). */
const UUID = '7e1b0a8ff2c24f1c9d5e3b6a4c8d2e10';

describe('replication ids over HTTP', () => {
  let t: TestServer;
  const storage = testStorage();

  before(async () => {
    const first = await startTestServer({
      dataDir: mkdtempSync(join(tmpdir(), 'divan-repids-')),
      ...(storage === undefined ? {} : { storage }),
    });
    await first.server.couch.storage.setServerValue('uuid', UUID);
    await first.stop();
    t = await startTestServer({ dataDir: first.dataDir, ...(storage === undefined ? {} : { storage }) });
    assert.equal((await t.request('GET', '/')).json.uuid, UUID);
    for (const db of ['_replicator', 'src', 'tgt', 'docsrc', 'doctgt', 'old_src', 'old_tgt']) {
      assert.equal((await t.request('PUT', `/${db}`)).status, 201);
    }
    const docs = [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }];
    for (const db of ['src', 'docsrc', 'old_src']) {
      assert.equal((await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } })).status, 201);
    }
  });

  after(async () => {
    await t.close();
    if (storage !== undefined) await dropSchema(storage.url, storage.schema);
  });

  it("a `_replicate` job: `_local_id`, `/_scheduler/jobs` and the checkpoints' names", async () => {
    const body = {
      source: { url: `${t.url}/src`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } },
      target: { url: `${t.url}/tgt`, headers: { Authorization: AUTH } },
      continuous: true,
    };
    const expected = replicationId(UUID, readReplicationRequest(body));
    assert.match(expected.full, /^[0-9a-f]{32}\+continuous$/);
    const started = await t.request('POST', '/_replicate', { body });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.json._local_id, expected.full);
    await until(async () => (await t.request('GET', '/tgt')).json.doc_count === 3, 'replicated');
    const job = await t.request('GET', `/_scheduler/jobs/${encodeURIComponent(expected.full)}`);
    assert.equal(job.status, 200, job.text);
    assert.equal(job.json.id, expected.full);
    const cancelled = await t.request('POST', '/_replicate', { body: { ...body, cancel: true } });
    assert.deepEqual(cancelled.json, { ok: true, _local_id: expected.full });
    for (const db of ['src', 'tgt']) {
      const checkpoint = await t.request('GET', `/${db}/_local/${expected.base}`);
      assert.equal(checkpoint.status, 200, `${db}: ${checkpoint.text}`);
      assert.equal(checkpoint.json.replication_id_version, 4);
    }
    // The same request with another password is the same replication (CouchDB leaves passwords out).
    const other = { ...body, source: { ...body.source, auth: { basic: { username: ADMIN.name, password: 'x' } } } };
    assert.equal(replicationId(UUID, readReplicationRequest(other)).full, expected.full);
  });

  it("a `_replicator` document's job", async () => {
    const doc = {
      source: `${t.url.replace('://', `://${ADMIN.name}:${ADMIN.password}@`)}/docsrc`,
      target: `${t.url}/doctgt`,
    };
    const withAuth = { ...doc, target: { url: doc.target, headers: { Authorization: AUTH } } };
    const expected = replicationId(UUID, readReplicationRequest(withAuth));
    assert.equal((await t.request('PUT', '/_replicator/by-doc', { body: withAuth })).status, 201);
    await until(async () => {
      const reply = await t.request('GET', '/_scheduler/docs/_replicator/by-doc');
      return reply.json.state === 'completed';
    }, 'the document completed');
    assert.equal((await t.request('GET', '/doctgt')).json.doc_count, 3);
    for (const db of ['docsrc', 'doctgt']) {
      assert.equal((await t.request('GET', `/${db}/_local/${expected.base}`)).status, 200, db);
    }
    await until(
      async () => (await t.request('GET', '/_replicator/by-doc')).json._replication_state === 'completed',
      'the state written back',
    );
    // No checkpoint under the old id: a new replication writes only CouchDB's.
    assert.equal((await t.request('GET', `/docsrc/_local/${expected.legacy}`)).status, 404);
  });

  it('resumes from checkpoints written under the id Divan gave the replication before', async () => {
    const body = { source: 'old_src', target: 'old_tgt' };
    const request = readReplicationRequest(body);
    const id = replicationId(UUID, request);
    const legacy = legacyReplicationId(UUID, request);
    assert.equal(id.legacy, legacy);
    // As a run under the old id left them: everything up to the source's sequence replicated.
    const seq = (await t.request('GET', '/old_src')).json.update_seq;
    const entry = {
      session_id: 'before',
      start_time: 'Sun, 29 Nov 2026 10:00:00 GMT',
      end_time: 'Sun, 29 Nov 2026 10:00:01 GMT',
      start_last_seq: 0,
      end_last_seq: seq,
      recorded_seq: seq,
      missing_checked: 3,
      missing_found: 3,
      docs_read: 3,
      docs_written: 3,
      doc_write_failures: 0,
    };
    const log = { session_id: 'before', source_last_seq: seq, replication_id_version: 4, history: [entry] };
    for (const db of ['old_src', 'old_tgt']) {
      assert.equal((await t.request('PUT', `/${db}/_local/${legacy}`, { body: log })).status, 201);
    }
    const resumed = await t.request('POST', '/_replicate', { body });
    assert.equal(resumed.status, 200, resumed.text);
    // Nothing after the old checkpoint: the three documents it counts as replicated are not read again.
    assert.deepEqual(resumed.json, { ok: true, no_changes: true });
    assert.equal((await t.request('GET', '/old_tgt')).json.doc_count, 0);
    for (const db of ['old_src', 'old_tgt']) {
      const carried = await t.request('GET', `/${db}/_local/${id.base}`);
      assert.equal(carried.status, 200, db);
      assert.equal(carried.json.session_id, 'before');
    }
    // And on from there: only the new document.
    assert.equal((await t.request('PUT', '/old_src/d', { body: {} })).status, 201);
    const next = await t.request('POST', '/_replicate', { body });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.history[0].docs_read, 1);
    const tgt = await t.request('GET', '/old_tgt/_all_docs');
    assert.deepEqual(
      tgt.json.rows.map((row: { id: string }) => row.id),
      ['d'],
    );
  });
});

/**
 * The server's uuid (`GET /`, `[couchdb] uuid`) is kept in the storage: the same after a restart,
 * as CouchDB's is, so a PouchDB replication (which names its checkpoints by it) resumes after one.
 * A storage whose replicator kept a uuid before the server had one adopts it, so replication ids
 * stay. Both storage engines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dropSchema } from './support/postgres.js';
import { startTestServer, testStorage } from './support/server.js';

describe('the server uuid', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-uuid-'));
  const storage = testStorage();
  const start = () => startTestServer({ dataDir, ...(storage === undefined ? {} : { storage }) });

  after(async () => {
    if (storage !== undefined) await dropSchema(storage.url, storage.schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is the same after a restart, in GET / and in [couchdb] uuid', async () => {
    const first = await start();
    const uuid = (await first.request('GET', '/')).json.uuid;
    assert.match(uuid, /^[0-9a-f]{32}$/);
    assert.equal((await first.request('GET', '/_node/_local/_config/couchdb/uuid')).json, uuid);
    await first.stop();
    const second = await start();
    try {
      assert.equal((await second.request('GET', '/')).json.uuid, uuid);
      assert.equal((await second.request('GET', '/_node/_local/_config/couchdb/uuid')).json, uuid);
    } finally {
      await second.stop();
    }
  });

  it('takes another uuid over the config API (a server taking over from CouchDB), kept after a restart', async () => {
    const first = await start();
    const before = (await first.request('GET', '/')).json.uuid;
    const couchdbs = 'fedcba9876543210fedcba9876543210';
    const put = await first.request('PUT', '/_node/_local/_config/couchdb/uuid', { body: JSON.stringify(couchdbs) });
    assert.deepEqual([put.status, put.json], [200, before]);
    assert.equal((await first.request('GET', '/')).json.uuid, couchdbs);
    await first.stop();
    const second = await start();
    try {
      assert.equal((await second.request('GET', '/')).json.uuid, couchdbs);
    } finally {
      await second.stop();
    }
  });

  it("adopts the uuid a storage's replicator kept before the server had one", async () => {
    const first = await start();
    const kept = '0123456789abcdef0123456789abcdef';
    await first.server.couch.storage.deleteServerValue('uuid');
    await first.server.couch.storage.setServerValue('replicator_uuid', kept);
    await first.stop();
    const second = await start();
    try {
      assert.equal((await second.request('GET', '/')).json.uuid, kept);
    } finally {
      await second.stop();
    }
  });
});

/**
 * The node and cluster endpoints Fauxton reads, as a single CouchDB node answers them:
 * `/_membership`, `/_cluster_setup`, `/_node/{node}/_config`, `_system`, `_stats`,
 * `/_scheduler/jobs` and `/_scheduler/docs`, and `GET /`'s features. All admin-only but `/`.
 * And what its replication pages write: `/_replicate` (server-side replication works) and
 * `_replicator` documents, refused with the reason that they are not available yet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UTILS_CSP } from '../src/server/config.js';
import { startTestServer, type TestServer } from './support/server.js';

describe('node and cluster endpoints', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ maxBodyBytes: 1_000_000 });
  });
  after(() => t.close());

  it('each needs a server admin: 401 for anonymous', async () => {
    for (const path of [
      '/_membership',
      '/_cluster_setup',
      '/_node/_local/_config',
      '/_node/_local/_config/couchdb',
      '/_node/_local/_config/couchdb/uuid',
      '/_node/_local/_system',
      '/_node/_local/_stats',
      '/_scheduler/jobs',
      '/_scheduler/docs',
    ]) {
      const r = await t.request('GET', path, { auth: false });
      assert.deepEqual([r.status, r.json.error], [401, 'unauthorized'], path);
    }
  });

  it('/_membership: this one node, in both lists', async () => {
    const r = await t.request('GET', '/_membership');
    assert.deepEqual([r.status, r.json], [200, { all_nodes: ['nonode@nohost'], cluster_nodes: ['nonode@nohost'] }]);
    assert.equal((await t.request('POST', '/_membership')).status, 405);
  });

  it('/_cluster_setup: a single node, set up', async () => {
    const r = await t.request('GET', '/_cluster_setup');
    assert.deepEqual([r.status, r.json], [200, { state: 'single_node_enabled' }]);
  });

  it('GET / lists the features Divan has and none it lacks (Fauxton offers partitions, hides search)', async () => {
    const r = await t.request('GET', '/', { auth: false });
    assert.deepEqual(r.json.features, ['partitioned']);
  });

  describe('/_node/{node}/_config', () => {
    it('the whole config: the settings this server has, as CouchDB names them', async () => {
      const r = await t.request('GET', '/_node/_local/_config');
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.json), ['admins', 'chttpd', 'chttpd_auth', 'cluster', 'couchdb', 'csp', 'httpd']);
      assert.match(r.json.admins.admin, /^-pbkdf2:sha256-/);
      assert.equal(r.json.chttpd.max_http_request_size, '1000000');
      assert.deepEqual(r.json.cluster, { n: '1', q: '1' });
      assert.equal(r.json.couchdb.single_node, 'true');
      assert.equal(r.json.couchdb.max_attachment_size, String(1024 ** 3));
      assert.equal(r.json.couchdb.uuid, (await t.request('GET', '/')).json.uuid);
      assert.deepEqual(r.json.csp, { utils_enable: 'true', utils_header_value: UTILS_CSP });
      const named = await t.request('GET', '/_node/nonode@nohost/_config');
      assert.deepEqual(named.json, r.json);
    });

    it('a section, a key; an unknown section is {}, an unknown key a 404', async () => {
      const section = await t.request('GET', '/_node/_local/_config/cluster');
      assert.deepEqual(section.json, { n: '1', q: '1' });
      const key = await t.request('GET', '/_node/_local/_config/couchdb/single_node');
      assert.deepEqual([key.status, key.text], [200, '"true"\n']);
      assert.deepEqual((await t.request('GET', '/_node/_local/_config/nosuch')).json, {});
      const missing = await t.request('GET', '/_node/_local/_config/couchdb/nosuch');
      assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'unknown_config_value' }]);
    });

    it('settings that come from flags are refused with a reason; they never change', async () => {
      // (max_attachment_size changes at run time, as in CouchDB: http-last-differences.test.ts.)
      const put = await t.request('PUT', '/_node/_local/_config/couchdb/database_dir', { body: '"/x"' });
      assert.equal(put.status, 403);
      assert.equal(put.json.error, 'forbidden');
      assert.match(put.json.reason, /\[couchdb\] database_dir cannot be changed over HTTP/);
      // The uuid changes (http-server-uuid.test.ts), but only to another uuid, and is never removed.
      const bad = await t.request('PUT', '/_node/_local/_config/couchdb/uuid', { body: '"1"' });
      assert.deepEqual([bad.status, bad.json.error], [400, 'bad_request']);
      assert.equal((await t.request('DELETE', '/_node/_local/_config/couchdb/uuid')).status, 403);
      const del = await t.request('DELETE', '/_node/_local/_config/admins/admin');
      assert.equal(del.status, 403, 'the last admin stays');
      assert.match((await t.request('GET', '/_node/_local/_config/admins')).json.admin, /^-pbkdf2/);
      assert.equal((await t.request('PUT', '/_node/_local/_config/couchdb/uuid', { auth: false })).status, 401);
      assert.equal((await t.request('PUT', '/_node/_local/_config')).status, 405);
    });

    it('another node is a 404', async () => {
      const r = await t.request('GET', '/_node/other@host/_config');
      assert.deepEqual([r.status, r.json.error], [404, 'not_found']);
    });
  });

  it('/_node/_local/_system: uptime and memory', async () => {
    const r = await t.request('GET', '/_node/_local/_system');
    assert.equal(r.status, 200);
    assert.ok(Number.isInteger(r.json.uptime) && r.json.uptime >= 0);
    for (const name of ['total', 'processes', 'processes_used', 'binary', 'other']) {
      assert.equal(typeof r.json.memory[name], 'number', name);
    }
    assert.ok(r.json.memory.total > r.json.memory.processes_used);
  });

  it('/_node/_local/_stats: requests by method and status, open databases, request time', async () => {
    await t.request('PUT', '/statsdb');
    await t.request('GET', '/statsdb/nosuch');
    const r = await t.request('GET', '/_node/_local/_stats');
    assert.equal(r.status, 200);
    const couchdb = r.json.couchdb;
    assert.equal(couchdb.httpd.requests.type, 'counter');
    assert.ok(couchdb.httpd.requests.value >= 2);
    assert.ok(couchdb.httpd_request_methods.PUT.value >= 1);
    assert.ok(couchdb.httpd_status_codes['404'].value >= 1);
    assert.ok(couchdb.httpd_status_codes['201'].value >= 1);
    assert.ok(couchdb.open_databases.value >= 1);
    assert.equal(couchdb.request_time.type, 'histogram');
    assert.ok(couchdb.request_time.value.n >= 2 && couchdb.request_time.value.max >= couchdb.request_time.value.min);
    const one = await t.request('GET', '/_node/_local/_stats/couchdb/httpd/requests');
    assert.deepEqual(Object.keys(one.json), ['value', 'type', 'desc']);
    assert.ok(one.json.value > couchdb.httpd.requests.value);
    const missing = await t.request('GET', '/_node/_local/_stats/couchdb/nosuch');
    assert.equal(missing.status, 404);
  });

  it('/_scheduler/jobs and /_scheduler/docs: empty lists (no server-side replication yet)', async () => {
    const jobs = await t.request('GET', '/_scheduler/jobs');
    assert.deepEqual([jobs.status, jobs.json], [200, { total_rows: 0, offset: 0, jobs: [] }]);
    const docs = await t.request('GET', '/_scheduler/docs?include_docs=true');
    assert.deepEqual([docs.status, docs.json], [200, { total_rows: 0, offset: 0, docs: [] }]);
    const inDb = await t.request('GET', '/_scheduler/docs/_replicator');
    assert.deepEqual(inDb.json, { total_rows: 0, offset: 0, docs: [] });
    const job = await t.request('GET', '/_scheduler/jobs/abc');
    assert.deepEqual([job.status, job.json.error], [404, 'not_found']);
    const doc = await t.request('GET', '/_scheduler/docs/_replicator/abc');
    assert.deepEqual([doc.status, doc.json.error], [404, 'not_found']);
    assert.equal((await t.request('GET', '/_scheduler/nosuch')).status, 404);
  });

  it('POST /_replicate: works now (clear 4xx for bad requests, anonymous refused); GET is 405', async () => {
    const missing = await t.request('POST', '/_replicate', { body: { source: 'nosuch_a', target: 'nosuch_b' } });
    assert.deepEqual([missing.status, missing.json.error], [404, 'db_not_found']);
    const cancel = await t.request('POST', '/_replicate', { body: { replication_id: 'x', cancel: true } });
    assert.deepEqual([cancel.status, cancel.json.error], [404, 'not_found']);
    const anonymous = await t.request('POST', '/_replicate', { body: {}, auth: false });
    assert.deepEqual([anonymous.status, anonymous.json.error], [401, 'unauthorized']);
    const get = await t.request('GET', '/_replicate');
    assert.deepEqual([get.status, get.json.error, get.headers.get('allow')], [405, 'method_not_allowed', 'POST']);
  });

  it('a replicator database takes well-formed replication documents, refuses malformed ones with CouchDB’s 403 reasons', async () => {
    const doc = { source: `${t.url}/a`, target: `${t.url}/b`, create_target: true, continuous: false };
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
    const bad = { ...doc, continuous: 'yes' };
    const refused = { error: 'forbidden', reason: "The `continuous' field must be a boolean." };
    const posted = await t.request('POST', '/_replicator', { body: bad });
    assert.deepEqual([posted.status, posted.json], [403, refused]);
    const put = await t.request('PUT', '/_replicator/r1', { body: bad });
    assert.deepEqual([put.status, put.json], [403, refused]);
    const bulk = await t.request('POST', '/_replicator/_bulk_docs', { body: { docs: [{ _id: 'r2', ...bad }] } });
    assert.deepEqual([bulk.status, bulk.json], [201, [{ id: 'r2', ...refused }]]);
    const attachment = await t.request('PUT', '/_replicator/r3/a.txt', {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.deepEqual([attachment.status, attachment.json.error], [403, 'forbidden']);
    assert.equal((await t.request('GET', '/_replicator')).json.doc_count, 0);
    // Any database named so, as in CouchDB.
    assert.equal((await t.request('PUT', '/team%2F_replicator')).status, 201);
    assert.deepEqual((await t.request('POST', '/team%2F_replicator', { body: bad })).json, refused);

    // Design and _local documents are not replication documents.
    assert.equal((await t.request('PUT', '/_replicator/_design/d', { body: { views: {} } })).status, 201);
    assert.equal((await t.request('PUT', '/_replicator/_local/l', { body: bad })).status, 201);
    // A well-formed document is taken, its `owner` the writer; deleting it passes.
    const taken = await t.request('PUT', '/_replicator/ok', { body: doc });
    assert.equal(taken.status, 201);
    assert.equal((await t.request('GET', '/_replicator/ok')).json.owner, 'admin');
    const deleted = await t.request('DELETE', `/_replicator/ok?rev=${taken.json.rev}`);
    assert.deepEqual([deleted.status, deleted.json.ok], [200, true]);
    // Other databases take such documents as any other.
    assert.equal((await t.request('PUT', '/notes')).status, 201);
    assert.equal((await t.request('POST', '/notes', { body: bad })).status, 201);
  });
});

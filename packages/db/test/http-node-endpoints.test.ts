/**
 * The node endpoints of a single CouchDB node that Divan answers: `/_node/_local` (its name),
 * `_versions`, `_restart` (POST only), `_smoosh/status` and `/_reload_query_servers`. Server admins only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

describe('node endpoints', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('/_node/_local names the node, as /_node/{its name} does', async () => {
    const r = await t.request('GET', '/_node/_local');
    assert.deepEqual([r.status, r.json], [200, { name: 'nonode@nohost' }]);
    assert.deepEqual((await t.request('GET', '/_node/nonode@nohost')).json, { name: 'nonode@nohost' });
    assert.equal((await t.request('GET', '/_node/other@host')).status, 404);
    assert.equal((await t.request('GET', '/_node/_local', { auth: false })).status, 401);
  });

  it('/_node/_local/_versions names the collator and the JavaScript engine', async () => {
    const r = await t.request('GET', '/_node/_local/_versions');
    assert.equal(r.status, 200);
    assert.equal(r.json.collation_driver.name, 'libicu');
    for (const key of ['library_version', 'collation_algorithm_version', 'collator_version']) {
      assert.match(r.json.collation_driver[key], /^\d+(\.\d+)+$/, key);
    }
    assert.deepEqual(Object.keys(r.json.javascript_engine), ['name', 'version']);
    assert.ok(Array.isArray(r.json.nodejs.supported_hashes));
    const post = await t.request('POST', '/_node/_local/_versions', { body: {} });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET']);
    assert.equal((await t.request('GET', '/_node/_local/_versions', { auth: false })).status, 401);
  });

  it('POST /_node/_local/_restart answers ok and the server goes on; other methods 405', async () => {
    const r = await t.request('POST', '/_node/_local/_restart', { headers: { 'content-type': 'application/json' } });
    assert.deepEqual([r.status, r.json], [200, { ok: true }]);
    assert.equal((await t.request('GET', '/')).status, 200);
    const get = await t.request('GET', '/_node/_local/_restart');
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
    assert.equal((await t.request('POST', '/_node/_local/_restart', { auth: false })).status, 401);
  });

  it('POST /_reload_query_servers: design and validate functions start in fresh sandboxes; admins only, POST with JSON', async () => {
    await t.request('PUT', '/reload');
    // Each function counts its calls in a global: a kept sandbox remembers, a fresh one does not.
    const ddoc = {
      shows: {
        count: 'function () { globalThis.calls = (globalThis.calls || 0) + 1; return String(globalThis.calls); }',
      },
      validate_doc_update:
        'function (doc) { globalThis.writes = (globalThis.writes || 0) + 1; if (doc.expect && doc.expect !== globalThis.writes) throw { forbidden: "write " + globalThis.writes }; }',
    };
    assert.equal((await t.request('PUT', '/reload/_design/r', { body: ddoc })).status, 201);
    const show = async () => (await t.request('GET', '/reload/_design/r/_show/count')).text;
    assert.deepEqual([await show(), await show()], ['1', '2']);
    assert.equal((await t.request('PUT', '/reload/a', { body: { expect: 1 } })).status, 201);
    assert.equal((await t.request('PUT', '/reload/b', { body: { expect: 2 } })).status, 201);
    const json = { 'content-type': 'application/json' };
    const r = await t.request('POST', '/_reload_query_servers', { headers: json });
    assert.deepEqual([r.status, r.json], [200, { ok: true }]);
    assert.equal(await show(), '1');
    assert.equal((await t.request('PUT', '/reload/c', { body: { expect: 1 } })).status, 201);
    // Authorized first, whatever the verb (CouchDB's order), then POST only, then the body type.
    const anonymous = await t.request('GET', '/_reload_query_servers', { auth: false });
    assert.deepEqual([anonymous.status, anonymous.json.error], [401, 'unauthorized']);
    const get = await t.request('GET', '/_reload_query_servers');
    assert.deepEqual([get.status, get.headers.get('allow'), get.json.reason], [405, 'POST', 'Only POST allowed']);
    const plain = await t.request('POST', '/_reload_query_servers', { headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([plain.status, plain.json.error], [415, 'bad_content_type']);
  });

  it('/_node/_local/_smoosh/status lists the compaction channels, all idle', async () => {
    const r = await t.request('GET', '/_node/_local/_smoosh/status');
    assert.equal(r.status, 200);
    const idle = { active: 0, starting: 0, waiting: { size: 0, min: 0, max: 0 } };
    assert.deepEqual(Object.keys(r.json), ['channels']);
    for (const name of ['ratio_dbs', 'slack_dbs', 'upgrade_dbs', 'ratio_views', 'slack_views', 'upgrade_views']) {
      assert.deepEqual(r.json.channels[name], idle, name);
    }
    assert.equal((await t.request('GET', '/_node/_local/_smoosh/other')).status, 404);
    assert.equal((await t.request('GET', '/_node/_local/_smoosh/status', { auth: false })).status, 401);
  });
});

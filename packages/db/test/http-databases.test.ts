import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

describe('databases', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('PUT creates (201), a second PUT is 412 file_exists', async () => {
    const r = await t.request('PUT', '/books');
    assert.deepEqual([r.status, r.json], [201, { ok: true }]);
    const again = await t.request('PUT', '/books');
    assert.equal(again.status, 412);
    assert.equal(again.json.error, 'file_exists');
  });

  it('accepts and ignores q and n', async () => {
    assert.equal((await t.request('PUT', '/sharded?q=8&n=3')).status, 201);
    assert.equal((await t.request('PUT', '/badq?q=abc')).status, 400);
  });

  it('refuses illegal names with the name in the reason', async () => {
    for (const name of ['Upper', '1digit', '_nosuchsystem', 'has%20space']) {
      const r = await t.request('PUT', `/${name}`);
      assert.equal(r.status, 400, name);
      assert.equal(r.json.error, 'illegal_database_name', name);
    }
    const long = await t.request('PUT', `/${'a'.repeat(239)}`);
    assert.deepEqual([long.status, long.json.error], [400, 'database_name_too_long']);
  });

  it('names may hold slashes (sent as %2F)', async () => {
    assert.equal((await t.request('PUT', '/a%2Fb')).status, 201);
    const info = await t.request('GET', '/a%2Fb');
    assert.equal(info.json.db_name, 'a/b');
    assert.ok((await t.request('GET', '/_all_dbs')).json.includes('a/b'));
  });

  it('GET gives the info CouchDB gives, update_seq as an integer', async () => {
    await t.request('PUT', '/info');
    await t.request('PUT', '/info/one', { body: { a: 1 } });
    await t.request('PUT', '/info/two', { body: { a: 2 } });
    const rev = (await t.request('GET', '/info/two')).json._rev;
    await t.request('DELETE', `/info/two?rev=${rev}`);
    const r = await t.request('GET', '/info');
    assert.equal(r.status, 200);
    assert.equal(r.json.db_name, 'info');
    assert.equal(r.json.doc_count, 1);
    assert.equal(r.json.doc_del_count, 1);
    assert.equal(r.json.update_seq, 3);
    assert.equal(typeof r.json.sizes.file, 'number');
    assert.ok(r.json.sizes.external > 0);
    assert.equal(typeof r.json.instance_start_time, 'string');
  });

  it('HEAD and DELETE; a missing database is 404 everywhere', async () => {
    await t.request('PUT', '/gone');
    assert.equal((await t.request('HEAD', '/gone')).status, 200);
    assert.deepEqual((await t.request('DELETE', '/gone')).json, { ok: true });
    const missing = { error: 'not_found', reason: 'Database does not exist.' };
    assert.deepEqual((await t.request('GET', '/gone')).json, missing);
    assert.equal((await t.request('HEAD', '/gone')).status, 404);
    assert.deepEqual((await t.request('DELETE', '/gone')).json, missing);
    assert.deepEqual((await t.request('GET', '/gone/doc')).json, missing);
    assert.deepEqual((await t.request('GET', '/gone/_all_docs')).json, missing);
    assert.deepEqual((await t.request('GET', '/Invalid')).json, missing);
  });

  it('DELETE with ?rev= is a 400 (a document delete was probably meant)', async () => {
    await t.request('PUT', '/keep');
    const r = await t.request('DELETE', '/keep?rev=1-abc');
    assert.equal(r.status, 400);
    assert.equal((await t.request('GET', '/keep')).status, 200);
  });

  it('PUT on /db is not in its Allow list (CouchDB lists DELETE,GET,HEAD,POST)', async () => {
    const r = await t.request('PATCH', '/books');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'DELETE,GET,HEAD,POST');
  });

  it('_revs_limit and _security round-trip', async () => {
    await t.request('PUT', '/settings');
    assert.equal((await t.request('GET', '/settings/_revs_limit')).json, 1000);
    assert.deepEqual((await t.request('PUT', '/settings/_revs_limit', { body: 5 })).json, { ok: true });
    assert.equal((await t.request('GET', '/settings/_revs_limit')).json, 5);
    assert.equal((await t.request('PUT', '/settings/_revs_limit', { body: 0 })).status, 400);
    const security = (await t.request('GET', '/settings/_security')).json;
    assert.deepEqual(security.members.roles, ['_admin']);
  });

  it('_ensure_full_commit answers 201', async () => {
    await t.request('PUT', '/commit');
    const r = await t.request('POST', '/commit/_ensure_full_commit');
    assert.equal(r.status, 201);
    assert.equal(r.json.ok, true);
    assert.equal(typeof r.json.instance_start_time, 'string');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

describe('server endpoints', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('GET / welcomes as CouchDB does, naming the vendor', async () => {
    const r = await t.request('GET', '/', { auth: false });
    assert.equal(r.status, 200);
    assert.equal(r.json.couchdb, 'Welcome');
    assert.equal(typeof r.json.version, 'string');
    assert.equal(r.json.vendor.name, 'Divan');
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('GET /_up answers ok without credentials', async () => {
    const r = await t.request('GET', '/_up', { auth: false });
    assert.deepEqual([r.status, r.json], [200, { status: 'ok', seeds: {} }]);
  });

  it('GET /_uuids gives count uuids and validates count', async () => {
    const r = await t.request('GET', '/_uuids?count=3', { auth: false });
    assert.equal(r.json.uuids.length, 3);
    assert.match(r.json.uuids[0], /^[0-9a-f]{32}$/);
    assert.deepEqual((await t.request('GET', '/_uuids?count=0')).json, { uuids: [] });
    const big = await t.request('GET', '/_uuids?count=1001');
    assert.deepEqual([big.status, big.json.reason], [400, 'count parameter too large']);
    const negative = await t.request('GET', '/_uuids?count=-1');
    assert.deepEqual([negative.status, negative.json.reason], [400, 'count must be a positive integer']);
  });

  it('GET /_all_dbs lists databases in order and needs an admin', async () => {
    await t.request('PUT', '/zeta');
    await t.request('PUT', '/alpha');
    const r = await t.request('GET', '/_all_dbs');
    assert.deepEqual(r.json, ['_users', 'alpha', 'zeta']); // _users exists from the first start
    const anon = await t.request('GET', '/_all_dbs', { auth: false });
    assert.deepEqual([anon.status, anon.json], [401, { error: 'unauthorized', reason: 'You are not a server admin.' }]);
  });

  it('answers other methods with 405 and the Allow list', async () => {
    const r = await t.request('POST', '/_all_dbs');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET,HEAD');
    assert.deepEqual(r.json, { error: 'method_not_allowed', reason: 'Only GET,HEAD allowed' });
  });

  it('HEAD carries the GET status and headers without a body', async () => {
    const r = await t.request('HEAD', '/');
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
  });
});

describe('authentication', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('databases are admin-only by default', async () => {
    const r = await t.request('GET', '/db', { auth: false });
    assert.deepEqual(
      [r.status, r.json],
      [401, { error: 'unauthorized', reason: 'You are not authorized to access this db.' }],
    );
    const create = await t.request('PUT', '/other', { auth: false });
    assert.deepEqual([create.status, create.json.reason], [401, 'You are not a server admin.']);
  });

  it('a wrong password is 401 on every endpoint, even /_up', async () => {
    const auth = `Basic ${Buffer.from('admin:wrong').toString('base64')}`;
    const r = await t.request('GET', '/_up', { auth });
    assert.deepEqual([r.status, r.json], [401, { error: 'unauthorized', reason: 'Name or password is incorrect.' }]);
  });

  it('invalid base64 is a 400', async () => {
    const r = await t.request('GET', '/', { auth: 'Basic !!!' });
    assert.deepEqual([r.status, r.json.reason], [400, 'Authorization header has invalid base64 value']);
  });

  it('five failures lock the user out for a while, even with the right password', async () => {
    const wrong = `Basic ${Buffer.from('locked:wrong').toString('base64')}`;
    for (let i = 0; i < 5; i++) assert.equal((await t.request('GET', '/', { auth: wrong })).status, 401);
    const r = await t.request('GET', '/', { auth: wrong });
    assert.equal(r.status, 403);
    assert.equal(r.json.error, 'forbidden');
    // Other users are not affected.
    assert.equal((await t.request('GET', '/db')).status, 200);
  });
});

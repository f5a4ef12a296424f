/**
 * What Fauxton's settings pages do through `/_node/_local/_config`: the CORS page reads and writes
 * `[httpd] enable_cors` and `[cors]` (and shows the state a start flag set), "Change password"
 * of a server admin is `PUT [admins] NAME`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { basic } from './support/users.js';

const CONFIG = '/_node/_local/_config';
const origin = 'http://page.example';

describe("Fauxton's CORS page", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ settings: { cors: { origins: [origin] } } });
  });
  after(() => t.close());

  const allowed = async (from: string) =>
    (await t.request('GET', '/', { auth: false, headers: { origin: from } })).headers.get(
      'access-control-allow-origin',
    );

  it('shows the state the start flag set', async () => {
    assert.equal((await t.request('GET', `${CONFIG}/httpd`)).json.enable_cors, 'true');
    assert.equal((await t.request('GET', `${CONFIG}/cors`)).json.origins, origin);
    assert.equal(await allowed(origin), origin);
  });

  it('turns CORS off and on and changes the origins at run time', async () => {
    assert.equal((await t.request('PUT', `${CONFIG}/httpd/enable_cors`, { body: '"false"' })).json, 'true');
    assert.equal(await allowed(origin), null);
    assert.equal((await t.request('GET', `${CONFIG}/httpd/enable_cors`)).json, 'false');
    assert.equal((await t.request('PUT', `${CONFIG}/httpd/enable_cors`, { body: '"true"' })).status, 200);
    assert.equal((await t.request('PUT', `${CONFIG}/cors/origins`, { body: '"*"' })).status, 200);
    assert.equal(await allowed('http://elsewhere.example'), '*');
    const bad = await t.request('PUT', `${CONFIG}/httpd/enable_cors`, { body: '"maybe"' });
    assert.equal(bad.status, 400);
  });
});

describe('Fauxton\'s "Change password" for a server admin', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('PUT [admins] NAME with a new password: the new one works at once, the old one no more', async () => {
    const old = (await t.request('GET', `${CONFIG}/admins/${ADMIN.name}`)).json as string;
    const put = await t.request('PUT', `${CONFIG}/admins/${ADMIN.name}`, { body: '"changed-pw"' });
    assert.deepEqual([put.status, put.json], [200, old], 'answers the old hash');
    const session = await t.request('GET', '/_session', { auth: basic(ADMIN.name, 'changed-pw') });
    assert.deepEqual(session.json.userCtx, { name: ADMIN.name, roles: ['_admin'] });
    assert.equal((await t.request('GET', '/_all_dbs', { auth: basic(ADMIN.name, ADMIN.password) })).status, 401);
    const login = await t.request('POST', '/_session', {
      auth: false,
      body: { name: ADMIN.name, password: 'changed-pw' },
    });
    assert.equal(login.status, 200);
    // Put it back for the server's close.
    const back = await t.request('PUT', `${CONFIG}/admins/${ADMIN.name}`, {
      body: JSON.stringify(ADMIN.password),
      auth: basic(ADMIN.name, 'changed-pw'),
    });
    assert.equal(back.status, 200);
  });
});

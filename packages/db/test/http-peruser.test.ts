/**
 * CouchDB 3's `couch_peruser`: `[couch_peruser] enable` gives every account a private database
 * `userdb-<hex of the name>` whose only admin and member is the user; `delete_dbs` deletes it
 * with the account; `database_prefix` names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';
import { basic, createUser } from './support/users.js';

describe('couch_peruser', () => {
  let t: TestServer;
  const setting = (key: string, value: string) =>
    t.request('PUT', `/_node/_local/_config/couch_peruser/${key}`, { body: JSON.stringify(value) });
  const exists = async (db: string) => (await t.request('GET', `/${db}`)).status === 200;

  before(async () => {
    t = await startTestServer();
    await createUser(t, 'before', 'b');
  });
  after(() => t.close());

  it('is off by default: an account gets no database', async () => {
    await createUser(t, 'nobody', 'n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await exists('userdb-6e6f626f6479'), false);
  });

  it('enabled, every account (those made before too) gets its private database', async () => {
    assert.equal((await setting('enable', 'true')).status, 200);
    await until(() => exists('userdb-6265666f7265'), 'the database of an account made before');
    await createUser(t, 'alice', 'a');
    const own = { admins: { names: ['alice'], roles: [] }, members: { names: ['alice'], roles: [] } };
    // Made, then given its `_security`: admin-only in between.
    await until(
      async () => JSON.stringify((await t.request('GET', '/userdb-616c696365/_security')).json) === JSON.stringify(own),
      "alice's database, hers",
    );
    const alice = basic('alice', 'a');
    assert.equal((await t.request('PUT', '/userdb-616c696365/note', { auth: alice, body: { x: 1 } })).status, 201);
    await createUser(t, 'bob', 'b');
    await until(
      async () => (await t.request('GET', '/userdb-626f62/_security')).json.members?.names?.[0] === 'bob',
      "bob's database",
    );
    assert.equal((await t.request('GET', '/userdb-616c696365/note', { auth: basic('bob', 'b') })).status, 403);
    // A name beyond ASCII: the hex of its UTF-8 bytes.
    await createUser(t, 'zoë', 'z');
    await until(() => exists(`userdb-${Buffer.from('zoë').toString('hex')}`), "zoë's database");
  });

  it('delete_dbs: deleting the account deletes its database; without it the database stays', async () => {
    const remove = async (name: string) => {
      const id = `/_users/${encodeURIComponent(`org.couchdb.user:${name}`)}`;
      const rev = (await t.request('GET', id)).json._rev;
      assert.equal((await t.request('DELETE', `${id}?rev=${rev}`)).status, 200);
    };
    await remove('bob');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await exists('userdb-626f62'), true);
    await setting('delete_dbs', 'true');
    await remove('alice');
    await until(async () => !(await exists('userdb-616c696365')), "alice's database deleted");
  });

  it('database_prefix names the databases', async () => {
    await setting('database_prefix', 'private-');
    await createUser(t, 'carol', 'c');
    await until(() => exists('private-6361726f6c'), "carol's database under the prefix");
    await setting('enable', 'false');
  });
});

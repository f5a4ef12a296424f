/**
 * A replication document read by anyone but its owner and the database's admins comes without
 * credentials, on every read path (CouchDB's couch_replicator_docs:after_doc_read): the user info
 * of `source`/`target` URLs is removed, endpoint objects lose `headers` and `auth`, and the
 * document is shown under a new rev id of the same generation. GET, `open_revs`, `_bulk_get`,
 * `_all_docs` and `_changes` with `include_docs`, a view's, `_search`'s and `_nouveau`'s
 * `include_docs`, `_find` (which judges its selector on what the reader is shown, and answers no
 * stored index keys), `_show`, and an in-process replication run by a non-owner. Its owner and
 * admins read it whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const bob = basic('bob', 'bobpass');
const carol = basic('carol', 'carolpass');

/** A replicator database where every read path is open to members, and the `_replicator` itself. */
const DBS = ['_replicator', 'team%2F_replicator'];

const BOB_JOB = {
  _id: 'bobjob',
  source: 'http://srcuser:srcpass@127.0.0.1:9/src',
  target: {
    url: 'http://tgtuser:tgtpass@127.0.0.1:9/tgt',
    headers: { 'X-Api-Key': 'k3y-of-bob' },
    auth: { basic: { username: 'u', password: 'basicpass' } },
  },
  user_ctx: { name: 'bob', roles: [] },
};

describe('replication documents read by others than their owner', () => {
  let t: TestServer;
  /** The rev bob's document is stored under, by database. */
  const stored = new Map<string, string>();

  async function as(auth: string, method: string, path: string, body?: unknown) {
    const headers = { Accept: 'application/json' };
    return t.request(method, path, { auth, headers, ...(body === undefined ? {} : { body }) });
  }

  /** Asserts a document as carol must see bob's: no credentials, a new rev of the same generation. */
  function assertStripped(doc: Record<string, any>, db: string): void {
    assert.equal(doc._id, 'bobjob');
    assert.equal(doc.source, 'http://127.0.0.1:9/src');
    assert.deepEqual(doc.target, { url: 'http://127.0.0.1:9/tgt' });
    assert.equal(doc.owner, 'bob');
    assert.deepEqual(doc.user_ctx, { name: 'bob', roles: [] });
    const rev = stored.get(db)!;
    assert.equal(doc._rev.split('-')[0], rev.split('-')[0]);
    assert.notEqual(doc._rev, rev);
    assert.doesNotMatch(JSON.stringify(doc), /srcuser|srcpass|tgtuser|tgtpass|k3y|basicpass|encrypted/);
  }

  function assertWhole(doc: Record<string, any>, db: string): void {
    assert.equal(doc._rev, stored.get(db));
    assert.match(doc.source, /^http:\/\/srcuser:divan-encrypted-v1-[A-Za-z0-9_-]+@127\.0\.0\.1:9\/src$/);
    assert.match(doc.target.url, /^http:\/\/tgtuser:divan-encrypted-v1-/);
    assert.deepEqual(doc.target.headers, { 'X-Api-Key': 'k3y-of-bob' });
    assert.equal(doc.target.auth.basic.username, 'u');
    assert.match(doc.target.auth.basic.password, /^divan-encrypted-v1-/);
  }

  before(async () => {
    // bob's jobs only crash (nothing answers on port 9): no state is written back to his documents.
    t = await startTestServer();
    await createUser(t, 'bob', 'bobpass');
    await createUser(t, 'carol', 'carolpass');
    const security = { admins: { names: [], roles: [] }, members: { names: ['bob', 'carol'], roles: [] } };
    for (const db of [...DBS, 'carolcopy']) {
      assert.equal((await t.request('PUT', `/${db}`)).status, 201);
      assert.equal((await t.request('PUT', `/${db}/_security`, { body: security })).status, 200);
    }
    for (const db of DBS) {
      const written = await as(bob, 'PUT', `/${db}/bobjob`, BOB_JOB);
      assert.equal(written.status, 201, written.text);
      stored.set(db, written.json.rev);
      // An admin's view and Mango index over the credentials (only admins write design documents).
      const ddoc = { views: { all: { map: 'function (doc) { emit(doc._id, null); }' } } };
      assert.equal((await t.request('PUT', `/${db}/_design/v`, { body: ddoc })).status, 201);
      const index = { index: { fields: ['source'] }, ddoc: 'bysource', name: 'bysource' };
      assert.equal((await t.request('POST', `/${db}/_index`, { body: index })).status, 200);
      const text = {
        indexes: { byid: { index: 'function (doc) { index("default", doc._id); }' } },
        nouveau: { byid: { index: 'function (doc) { index("string", "docid", doc._id); }' } },
      };
      assert.equal((await t.request('PUT', `/${db}/_design/t`, { body: text })).status, 201);
      const shows = { shows: { plain: 'function (doc) { return JSON.stringify(doc); }' } };
      assert.equal((await t.request('PUT', `/${db}/_design/s`, { body: shows })).status, 201);
    }
  });
  after(() => t.close());

  for (const db of DBS) {
    describe(decodeURIComponent(db), () => {
      it('GET: stripped for a non-owner (ETag and _revisions on the new rev), whole for the owner and admins', async () => {
        const read = await as(carol, 'GET', `/${db}/bobjob?revs=true`);
        assert.equal(read.status, 200);
        assertStripped(read.json, db);
        assert.equal(read.headers.get('etag'), `"${read.json._rev}"`);
        assert.deepEqual(read.json._revisions, { start: 1, ids: [read.json._rev.split('-')[1]] });
        // The same stripped revision on every read.
        assert.equal((await as(carol, 'GET', `/${db}/bobjob`)).json._rev, read.json._rev);
        assertWhole((await as(bob, 'GET', `/${db}/bobjob`)).json, db);
        assertWhole((await t.request('GET', `/${db}/bobjob`)).json, db);
        // The stripped rev is not the stored one: a write on it conflicts.
        const over = await as(carol, 'PUT', `/${db}/bobjob`, { ...read.json, owner: 'carol' });
        assert.ok(over.status === 409 || over.status === 403, over.text);
      });

      it('open_revs and _bulk_get: stripped for a non-owner', async () => {
        const all = await as(carol, 'GET', `/${db}/bobjob?open_revs=all`);
        assert.equal(all.status, 200);
        assertStripped(all.json[0].ok, db);
        const listed = await as(carol, 'GET', `/${db}/bobjob?open_revs=${JSON.stringify([stored.get(db)])}&revs=true`);
        assertStripped(listed.json[0].ok, db);
        const bulk = await as(carol, 'POST', `/${db}/_bulk_get?revs=true`, { docs: [{ id: 'bobjob' }] });
        assert.equal(bulk.status, 200);
        assertStripped(bulk.json.results[0].docs[0].ok, db);
        assertWhole(
          (await as(bob, 'POST', `/${db}/_bulk_get`, { docs: [{ id: 'bobjob' }] })).json.results[0].docs[0].ok,
          db,
        );
      });

      it('a view with include_docs: stripped for a non-owner', async () => {
        const rows = await as(carol, 'GET', `/${db}/_design/v/_view/all?include_docs=true`);
        assert.equal(rows.status, 200);
        assertStripped(rows.json.rows[0].doc, db);
        assertWhole((await as(bob, 'GET', `/${db}/_design/v/_view/all?include_docs=true`)).json.rows[0].doc, db);
      });

      it('_find judges and answers what a non-owner is shown, never index keys', async () => {
        const found = await as(carol, 'POST', `/${db}/_find`, { selector: { _id: 'bobjob' } });
        assert.equal(found.status, 200);
        assertStripped(found.json.docs[0], db);
        // A selector on a credential finds nothing for them (no probing), the owner's document for the owner.
        for (const selector of [{ 'target.headers.X-Api-Key': 'k3y-of-bob' }, { source: { $regex: 'srcuser' } }]) {
          assert.deepEqual((await as(carol, 'POST', `/${db}/_find`, { selector })).json.docs, []);
          assert.equal((await as(bob, 'POST', `/${db}/_find`, { selector })).json.docs.length, 1);
        }
        // Through the index on `source`, its fields alone (a covering index elsewhere): the shown value.
        const covered = await as(carol, 'POST', `/${db}/_find`, {
          selector: { source: { $gt: null } },
          fields: ['source'],
          use_index: 'bysource',
        });
        assert.deepEqual(covered.json.docs, [{ source: 'http://127.0.0.1:9/src' }]);
        const admin = await t.request('POST', `/${db}/_find`, { body: { selector: { _id: 'bobjob' } } });
        assertWhole(admin.json.docs[0], db);
      });

      it('_search and _nouveau with include_docs: stripped for a non-owner, whole for the owner and admins', async () => {
        const searched = (auth?: string) =>
          auth === undefined
            ? t.request('GET', `/${db}/_design/t/_search/byid?q=bobjob&include_docs=true`)
            : as(auth, 'GET', `/${db}/_design/t/_search/byid?q=bobjob&include_docs=true`);
        const forCarol = await searched(carol);
        assert.equal(forCarol.status, 200, forCarol.text);
        assertStripped(forCarol.json.rows[0].doc, db);
        assertWhole((await searched(bob)).json.rows[0].doc, db);
        assertWhole((await searched()).json.rows[0].doc, db);
        const hit = (auth?: string) =>
          auth === undefined
            ? t.request('GET', `/${db}/_design/t/_nouveau/byid?q=docid:bobjob&include_docs=true`)
            : as(auth, 'GET', `/${db}/_design/t/_nouveau/byid?q=docid:bobjob&include_docs=true`);
        const hitForCarol = await hit(carol);
        assert.equal(hitForCarol.status, 200, hitForCarol.text);
        assertStripped(hitForCarol.json.hits[0].doc, db);
        assertWhole((await hit(bob)).json.hits[0].doc, db);
        assertWhole((await hit()).json.hits[0].doc, db);
      });

      it('_show: the function gets what the reader is shown', async () => {
        const shown = await as(carol, 'GET', `/${db}/_design/s/_show/plain/bobjob`);
        assert.equal(shown.status, 200);
        assertStripped(JSON.parse(shown.text), db);
        assertWhole(JSON.parse((await as(bob, 'GET', `/${db}/_design/s/_show/plain/bobjob`)).text), db);
      });
    });
  }

  it('_all_docs and _changes with include_docs: stripped for a non-owner (a …/_replicator database)', async () => {
    const db = 'team%2F_replicator';
    const all = await as(carol, 'GET', `/${db}/_all_docs?include_docs=true&key="bobjob"`);
    assert.equal(all.status, 200);
    assertStripped(all.json.rows[0].doc, db);
    const posted = await as(carol, 'POST', `/${db}/_all_docs?include_docs=true`, { keys: ['bobjob'] });
    assertStripped(posted.json.rows[0].doc, db);
    assertWhole((await as(bob, 'GET', `/${db}/_all_docs?include_docs=true&key="bobjob"`)).json.rows[0].doc, db);
    const changes = await as(carol, 'GET', `/${db}/_changes?include_docs=true`);
    assert.equal(changes.status, 200);
    assertStripped(changes.json.results.find((row: { id: string }) => row.id === 'bobjob').doc, db);
    assert.equal(changes.headers.get('etag'), null);
    const mine = await as(bob, 'GET', `/${db}/_changes?include_docs=true`);
    assertWhole(mine.json.results.find((row: { id: string }) => row.id === 'bobjob').doc, db);
    // A selector on a credential passes nothing for them.
    const selector = { selector: { 'target.headers.X-Api-Key': 'k3y-of-bob' } };
    const probed = await as(carol, 'POST', `/${db}/_changes?filter=_selector`, selector);
    assert.deepEqual(probed.json.results, []);
    assert.equal((await as(bob, 'POST', `/${db}/_changes?filter=_selector`, selector)).json.results.length, 1);
  });

  it('a replication run by a non-owner copies what they are shown', async () => {
    const reply = await as(carol, 'POST', '/_replicate', {
      source: 'team/_replicator',
      target: 'carolcopy',
      doc_ids: ['bobjob'],
    });
    assert.equal(reply.status, 200, reply.text);
    const copy = await t.request('GET', '/carolcopy/bobjob');
    assert.equal(copy.status, 200);
    assertStripped(copy.json, 'team%2F_replicator');
    // An admin's replication copies it whole.
    const whole = await t.request('POST', '/_replicate', {
      body: { source: 'team/_replicator', target: 'admincopy', create_target: true, doc_ids: ['bobjob'] },
    });
    assert.equal(whole.status, 200, whole.text);
    assertWhole((await t.request('GET', '/admincopy/bobjob')).json, 'team%2F_replicator');
  });
});

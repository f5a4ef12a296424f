/**
 * Per-document access (`_access`) over HTTP: enabling it, the write rules, and what a non-admin
 * reads (documents, `_local` documents, attachments, `_bulk_get`, `_revs_diff`, `_all_docs`,
 * `_changes` with revocations). Facts from CouchDB's per-doc-access branch (its eunit cases),
 * with Divan's decided differences: an unreadable document is a 404 everywhere, feeds and
 * listings are per user, conflicting branches are readable only by the principals of every one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, testStorage } from './support/server.js';
import { dropSchema } from './support/postgres.js';
import { basic, createUser } from './support/users.js';

/** The security object every branch test uses: every signed-in user is a member. */
const USERS_MEMBERS = { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } };

describe('per-document access (_access)', () => {
  let t: TestServer;
  const alice = basic('alice', 'a');
  const bob = basic('bob', 'b');
  const carol = basic('carol', 'c'); // holds the role `team`
  let n = 0;
  /** A new access-enabled database open to every signed-in user. */
  const accessDb = async (): Promise<string> => {
    const name = `acc${++n}`;
    assert.equal((await t.request('PUT', `/${name}?access=true`)).status, 201);
    assert.equal((await t.request('PUT', `/${name}/_security`, { body: USERS_MEMBERS })).status, 200);
    return name;
  };
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

  before(async () => {
    t = await startTestServer();
    await createUser(t, 'alice', 'a');
    await createUser(t, 'bob', 'b');
    await createUser(t, 'carol', 'c', ['team']);
  });
  after(() => t.close());

  describe('enabling', () => {
    it('PUT /db?access=true makes an access-enabled database, and GET /db says so', async () => {
      assert.equal((await t.request('PUT', '/en1?access=true')).status, 201);
      assert.deepEqual((await t.request('GET', '/en1')).json.props, { access: true });
      assert.equal((await t.request('PUT', '/en2?access=false')).status, 201);
      assert.deepEqual((await t.request('GET', '/en2')).json.props, {});
      assert.equal((await t.request('PUT', '/en3')).status, 201);
      assert.deepEqual((await t.request('GET', '/en3')).json.props, {});
      const bad = await t.request('PUT', '/en4?access=yes');
      assert.deepEqual(
        [bad.status, bad.json],
        [400, { error: 'bad_request', reason: 'The `access` value should be a boolean.' }],
      );
      assert.equal((await t.request('GET', '/en4')).status, 404);
      // The option exists at creation only: an existing database is the usual 412.
      assert.equal((await t.request('PUT', '/en1?access=true')).status, 412);
    });

    it('[per_doc_access] enable false refuses the option; existing access databases keep working', async () => {
      const set = (value: string) =>
        t.request('PUT', '/_node/_local/_config/per_doc_access/enable', { body: JSON.stringify(value) });
      assert.equal((await set('false')).status, 200);
      try {
        const r = await t.request('PUT', '/en5?access=true');
        assert.deepEqual(
          [r.status, r.json],
          [400, { error: 'bad_request', reason: 'The `access` option is not available on this CouchDB installation.' }],
        );
        assert.equal((await t.request('PUT', '/en1/kept', { body: { _access: ['alice'] } })).status, 201);
        assert.deepEqual((await t.request('GET', '/en1')).json.props, { access: true });
      } finally {
        await set('true');
      }
      assert.equal((await t.request('PUT', '/en5?access=true')).status, 201);
    });

    it('the flag is kept by the storage: a restarted server still has it', async () => {
      const storage = testStorage();
      const first = await startTestServer(storage === undefined ? {} : { storage });
      try {
        await first.request('PUT', '/kept?access=true');
        await first.request('PUT', '/kept/_security', { body: USERS_MEMBERS });
        await createUser(first, 'alice', 'a');
        await first.request('PUT', '/kept/own', { body: { _access: ['alice'] } });
        await first.request('PUT', '/kept/other', { body: { _access: ['bob'] } });
      } finally {
        await first.stop();
      }
      const again = await startTestServer({ dataDir: first.dataDir, ...(storage === undefined ? {} : { storage }) });
      try {
        assert.deepEqual((await again.request('GET', '/kept')).json.props, { access: true });
        const rows = (await again.request('GET', '/kept/_all_docs', { auth: alice })).json.rows;
        assert.deepEqual(ids(rows), ['own']);
      } finally {
        await again.close();
        if (storage !== undefined) await dropSchema(storage.url, storage.schema);
      }
    });
  });

  describe('writes', () => {
    it('a user creates documents only with themselves (by name or role) in _access', async () => {
      const db = await accessDb();
      assert.equal((await t.request('PUT', `/${db}/a`, { auth: alice, body: { _access: ['alice'] } })).status, 201);
      assert.equal(
        (await t.request('PUT', `/${db}/b`, { auth: alice, body: { _access: ['alice', 'bob'] } })).status,
        201,
      );
      assert.equal((await t.request('PUT', `/${db}/c`, { auth: alice, body: { _access: ['_users'] } })).status, 201);
      assert.equal((await t.request('PUT', `/${db}/d`, { auth: carol, body: { _access: ['team'] } })).status, 201);
      for (const body of [{ _access: ['bob'] }, { x: 1 }, { _access: [] }, { _access: ['team'] }]) {
        const r = await t.request('PUT', `/${db}/e`, { auth: alice, body });
        assert.deepEqual([r.status, r.json], [403, { error: 'forbidden', reason: 'access' }], JSON.stringify(body));
      }
      const bad = await t.request('PUT', `/${db}/f`, { auth: alice, body: { _access: 'alice' } });
      assert.deepEqual([bad.status, bad.json.error], [400, 'doc_validation']);
      // Anonymous callers are not members: CouchDB's 401 before any access rule.
      assert.equal((await t.request('PUT', `/${db}/g`, { auth: false, body: { _access: ['alice'] } })).status, 401);
    });

    it('updates and deletions: only readers, who stay readers; the id of someone else is taken', async () => {
      const db = await accessDb();
      const created = await t.request('PUT', `/${db}/doc`, { auth: alice, body: { v: 1, _access: ['alice'] } });
      let rev = created.json.rev as string;
      const shared = await t.request('PUT', `/${db}/doc`, {
        auth: alice,
        body: { _rev: rev, v: 2, _access: ['alice', 'bob'] },
      });
      assert.equal(shared.status, 201);
      rev = shared.json.rev;
      for (const [auth, body] of [
        [carol, { _rev: rev, v: 3, _access: ['carol'] }],
        [alice, { _rev: rev, v: 3, _access: ['bob'] }],
        [alice, { _rev: rev, v: 3 }],
        // Access is checked before the conflict decision: a stale rev shows nothing more.
        [carol, { _rev: '1-0123456789abcdef0123456789abcdef', _access: ['carol'] }],
        [carol, { _access: ['carol'] }],
      ] as const) {
        const r = await t.request('PUT', `/${db}/doc`, { auth, body });
        assert.deepEqual([r.status, r.json], [403, { error: 'forbidden', reason: 'access' }], JSON.stringify(body));
      }
      const deniedDelete = await t.request('DELETE', `/${db}/doc?rev=${rev}`, { auth: carol });
      assert.deepEqual([deniedDelete.status, deniedDelete.json.error], [403, 'forbidden']);
      const bobEdit = await t.request('PUT', `/${db}/doc`, { auth: bob, body: { _rev: rev, v: 3, _access: ['bob'] } });
      assert.equal(bobEdit.status, 201, 'bob, a reader, narrows the list to himself');
      assert.equal((await t.request('GET', `/${db}/doc`, { auth: alice })).status, 404);
      const deleted = await t.request('DELETE', `/${db}/doc?rev=${bobEdit.json.rev}`, { auth: bob });
      assert.equal(deleted.status, 200);
      // The tombstone kept bob's `_access`: the id stays his.
      const tombstone = await t.request('GET', `/${db}/doc?rev=${deleted.json.rev}`, { auth: bob });
      assert.deepEqual(tombstone.json, { _id: 'doc', _rev: deleted.json.rev, _access: ['bob'], _deleted: true });
      const retake = await t.request('PUT', `/${db}/doc`, { auth: alice, body: { _access: ['alice'] } });
      assert.equal(retake.status, 403);
      assert.equal((await t.request('PUT', `/${db}/doc`, { auth: bob, body: { _access: ['bob'] } })).status, 201);
    });

    it('_access is not part of the revision id; _bulk_docs refuses per row, with new_edits=false too', async () => {
      const db = await accessDb();
      const r = await t.request('PUT', `/${db}/h`, { body: { a: 1, _access: ['x'] } });
      assert.equal(r.json.rev, '1-23202479633c2b380f79507a776743d5');
      const plain = await t.request('PUT', '/en3/h', { body: { a: 1 } });
      assert.equal(plain.json.rev, '1-23202479633c2b380f79507a776743d5');
      const bulk = await t.request('POST', `/${db}/_bulk_docs`, {
        auth: alice,
        body: { docs: [{ _id: 'm', _access: ['alice'] }, { _id: 'n', _access: ['bob'] }, { _id: 'h' }] },
      });
      assert.equal(bulk.status, 201);
      assert.equal(bulk.json[0].ok, true);
      assert.deepEqual(bulk.json.slice(1), [
        { id: 'n', error: 'forbidden', reason: 'access' },
        { id: 'h', error: 'forbidden', reason: 'access' },
      ]);
      const replicated = await t.request('POST', `/${db}/_bulk_docs`, {
        auth: alice,
        body: { new_edits: false, docs: [{ _id: 'o', _rev: '1-abc', _access: ['bob'] }] },
      });
      assert.deepEqual(replicated.json, [{ id: 'o', rev: '1-abc', error: 'forbidden', reason: 'access' }]);
    });

    it('design documents: admins only, never with _access', async () => {
      const db = await accessDb();
      const ddoc = { views: { v: { map: 'function (d) { emit(d._id) }' } } };
      for (const auth of [undefined, alice]) {
        const r = await t.request('PUT', `/${db}/_design/x`, {
          ...(auth === undefined ? {} : { auth }),
          body: { ...ddoc, _access: ['alice'] },
        });
        assert.deepEqual(
          [r.status, r.json],
          [403, { error: 'ddocs_with_access', reason: 'Design Docs with an _access property are not allowed' }],
        );
      }
      assert.equal((await t.request('PUT', `/${db}/_design/x`, { auth: alice, body: ddoc })).status, 403);
      assert.equal((await t.request('PUT', `/${db}/_design/x`, { body: ddoc })).status, 201);
      assert.equal((await t.request('GET', `/${db}/_design/x`, { auth: alice })).status, 404);
      const designDocs = await t.request('GET', `/${db}/_design_docs`, { auth: alice });
      assert.deepEqual([designDocs.json.total_rows, designDocs.json.rows], [0, []]);
    });

    it('autofill gives a non-admin write without _access the writer (create) or the current readers', async () => {
      const db = await accessDb();
      const setting = '/_node/_local/_config/per_doc_access/autofill';
      await t.request('PUT', setting, { body: '"true"' });
      try {
        const created = await t.request('PUT', `/${db}/auto`, { auth: alice, body: { v: 1 } });
        assert.equal(created.status, 201);
        const read = await t.request('GET', `/${db}/auto`, { auth: alice });
        assert.deepEqual(read.json, { _id: 'auto', _rev: created.json.rev, v: 1, _access: ['alice'] });
        // Filling `_access` leaves the rev the client computed alone.
        const plain = await t.request('PUT', '/en3/auto', { body: { v: 1 } });
        assert.equal(created.json.rev, plain.json.rev);
        await t.request('PUT', `/${db}/auto`, {
          auth: alice,
          body: { _rev: created.json.rev, _access: ['alice', 'bob'] },
        });
        const shared = await t.request('GET', `/${db}/auto`, { auth: bob });
        const updated = await t.request('PUT', `/${db}/auto`, { auth: bob, body: { _rev: shared.json._rev, v: 3 } });
        assert.equal(updated.status, 201);
        assert.deepEqual((await t.request('GET', `/${db}/auto`, { auth: alice })).json._access, ['alice', 'bob']);
        // Not into someone else's document, and never for admins.
        assert.equal((await t.request('PUT', `/${db}/auto`, { auth: carol, body: { v: 4 } })).status, 403);
        await t.request('PUT', `/${db}/byadmin`, { body: { v: 1 } });
        assert.equal((await t.request('GET', `/${db}/byadmin`)).json._access, undefined);
        const checkpoint = await t.request('PUT', `/${db}/_local/cp`, { auth: alice, body: { seq: 1 } });
        assert.equal(checkpoint.status, 201);
        assert.deepEqual((await t.request('GET', `/${db}/_local/cp`, { auth: alice })).json._access, ['alice']);
      } finally {
        await t.request('PUT', setting, { body: '"false"' });
      }
      assert.equal((await t.request('PUT', `/${db}/auto2`, { auth: alice, body: { v: 1 } })).status, 403);
    });

    it('_local documents follow the same rules, by the _access in their body', async () => {
      const db = await accessDb();
      const put = await t.request('PUT', `/${db}/_local/cp`, { auth: alice, body: { seq: 1, _access: ['alice'] } });
      assert.equal(put.status, 201);
      assert.equal((await t.request('GET', `/${db}/_local/cp`, { auth: alice })).json.seq, 1);
      const hidden = await t.request('GET', `/${db}/_local/cp`, { auth: bob });
      assert.deepEqual([hidden.status, hidden.json], [404, { error: 'not_found', reason: 'missing' }]);
      const over = await t.request('PUT', `/${db}/_local/cp`, { auth: bob, body: { seq: 9, _access: ['bob'] } });
      assert.deepEqual([over.status, over.json.reason], [403, 'access']);
      assert.equal((await t.request('PUT', `/${db}/_local/mine`, { auth: bob, body: { seq: 9 } })).status, 403);
      assert.equal((await t.request('DELETE', `/${db}/_local/cp`, { auth: bob })).status, 403);
      const local = await t.request('GET', `/${db}/_local_docs`, { auth: bob });
      assert.deepEqual(local.json.rows, []);
      assert.deepEqual(ids((await t.request('GET', `/${db}/_local_docs`, { auth: alice })).json.rows), ['_local/cp']);
      assert.equal((await t.request('DELETE', `/${db}/_local/cp`, { auth: alice })).status, 200);
    });
  });

  describe('reads of a non-admin', () => {
    let db: string;
    let aliceRev: string;
    before(async () => {
      db = await accessDb();
      aliceRev = (await t.request('PUT', `/${db}/a1`, { auth: alice, body: { v: 1, _access: ['alice'] } })).json.rev;
      await t.request('PUT', `/${db}/b1`, { auth: bob, body: { v: 2, _access: ['bob'] } });
      await t.request('PUT', `/${db}/s1`, { auth: alice, body: { v: 3, _access: ['alice', 'bob'] } });
      await t.request('PUT', `/${db}/t1`, { auth: carol, body: { v: 4, _access: ['team'] } });
      await t.request('PUT', `/${db}/z-admin`, { body: { v: 5 } });
      await t.request('PUT', `/${db}/a1/note.txt?rev=${aliceRev}`, {
        auth: alice,
        body: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      aliceRev = (await t.request('GET', `/${db}/a1`, { auth: alice })).json._rev;
    });

    it('a document the user cannot read is a 404 missing, however it is asked for', async () => {
      const missing = { error: 'not_found', reason: 'missing' };
      for (const path of [
        `/${db}/a1`,
        `/${db}/a1?rev=${aliceRev}`,
        `/${db}/a1?revs=true&conflicts=true`,
        `/${db}/a1?open_revs=all`,
        `/${db}/a1/note.txt`,
        `/${db}/z-admin`,
        `/${db}/nothing-here`,
      ]) {
        const r = await t.request('GET', path, { auth: bob });
        assert.deepEqual([r.status, r.json], [404, missing], path);
      }
      const listed = await t.request('GET', `/${db}/a1?open_revs=${encodeURIComponent(JSON.stringify([aliceRev]))}`, {
        auth: bob,
      });
      assert.deepEqual(listed.json, [{ missing: aliceRev }]);
      assert.equal((await t.request('GET', `/${db}/a1/note.txt`, { auth: alice })).text, 'hello');
      const own = await t.request('GET', `/${db}/a1`, { auth: alice });
      assert.deepEqual([own.status, own.json._access], [200, ['alice']]);
      assert.equal((await t.request('GET', `/${db}/t1`, { auth: carol })).status, 200, 'read by role');
      assert.equal((await t.request('GET', `/${db}/z-admin`)).status, 200, 'admins read everything');
    });

    it('an older revision is not served to a reader (as if compacted)', async () => {
      const first = (await t.request('GET', `/${db}/a1?revs=true`, { auth: alice })).json._revisions;
      const old = `1-${first.ids[1]}`;
      const r = await t.request('GET', `/${db}/a1?rev=${old}`, { auth: alice });
      assert.deepEqual([r.status, r.json.reason], [404, 'missing']);
      assert.equal((await t.request('GET', `/${db}/a1?rev=${old}`)).status, 200);
    });

    it('_bulk_get answers unreadable documents as missing ones', async () => {
      const r = await t.request('POST', `/${db}/_bulk_get`, {
        auth: bob,
        body: { docs: [{ id: 'a1' }, { id: 'a1', rev: aliceRev }, { id: 'b1' }] },
      });
      assert.deepEqual(r.json.results[0].docs, [
        { error: { id: 'a1', rev: 'undefined', error: 'not_found', reason: 'missing' } },
      ]);
      assert.deepEqual(r.json.results[1].docs, [
        { error: { id: 'a1', rev: aliceRev, error: 'not_found', reason: 'missing' } },
      ]);
      assert.equal(r.json.results[2].docs[0].ok._id, 'b1');
    });

    it('_revs_diff answers an unreadable document as absent: every rev missing, no ancestors', async () => {
      const body = { a1: [aliceRev, '9-abc'], b1: ['1-missing'] };
      const r = await t.request('POST', `/${db}/_revs_diff`, { auth: bob, body });
      assert.deepEqual(r.json, { a1: { missing: [aliceRev, '9-abc'] }, b1: { missing: ['1-missing'] } });
      const own = await t.request('POST', `/${db}/_revs_diff`, { auth: alice, body: { a1: [aliceRev] } });
      assert.deepEqual(own.json, {});
    });

    it("_all_docs lists the user's readable documents, counted per user", async () => {
      const r = await t.request('GET', `/${db}/_all_docs`, { auth: bob });
      assert.deepEqual([r.json.total_rows, r.json.offset, ids(r.json.rows)], [2, 0, ['b1', 's1']]);
      const carols = await t.request('GET', `/${db}/_all_docs?include_docs=true`, { auth: carol });
      assert.deepEqual(ids(carols.json.rows), ['t1']);
      assert.equal(carols.json.rows[0].doc.v, 4);
      const ranged = await t.request('GET', `/${db}/_all_docs?startkey="c"&limit=5`, { auth: alice });
      assert.deepEqual([ranged.json.total_rows, ranged.json.offset, ids(ranged.json.rows)], [2, 1, ['s1']]);
      const desc = await t.request('GET', `/${db}/_all_docs?descending=true`, { auth: alice });
      assert.deepEqual(ids(desc.json.rows), ['s1', 'a1']);
      const keys = await t.request('POST', `/${db}/_all_docs`, { auth: bob, body: { keys: ['a1', 'b1', 'zz'] } });
      assert.deepEqual(keys.json.rows[0], { key: 'a1', error: 'not_found' });
      assert.equal(keys.json.rows[1].id, 'b1');
      const admin = await t.request('GET', `/${db}/_all_docs`);
      assert.equal(admin.json.total_rows, 5);
      const queries = await t.request('POST', `/${db}/_all_docs/queries`, {
        auth: bob,
        body: { queries: [{}, { keys: ['a1'] }] },
      });
      assert.deepEqual(ids(queries.json.results[0].rows), ['b1', 's1']);
      assert.deepEqual(queries.json.results[1].rows, [{ key: 'a1', error: 'not_found' }]);
    });

    it("_changes gives the user's documents, with their own last_seq and pending", async () => {
      const r = await t.request('GET', `/${db}/_changes`, { auth: bob });
      assert.deepEqual(ids(r.json.results), ['b1', 's1']);
      assert.equal(r.json.last_seq, r.json.results[1].seq);
      assert.equal(r.json.pending, 0);
      const limited = await t.request('GET', `/${db}/_changes?limit=1&include_docs=true`, { auth: bob });
      assert.deepEqual([ids(limited.json.results), limited.json.pending], [['b1'], 1]);
      assert.equal(limited.json.results[0].doc.v, 2);
      const desc = await t.request('GET', `/${db}/_changes?descending=true`, { auth: alice });
      assert.deepEqual(ids(desc.json.results), ['a1', 's1']);
      const filtered = await t.request('POST', `/${db}/_changes?filter=_doc_ids`, {
        auth: alice,
        body: { doc_ids: ['b1', 's1'] },
      });
      assert.deepEqual(ids(filtered.json.results), ['s1']);
      const selector = await t.request('POST', `/${db}/_changes?filter=_selector`, {
        auth: bob,
        body: { selector: { v: { $gt: 0 } } },
      });
      assert.deepEqual(ids(selector.json.results), ['b1', 's1']);
      const continuous = await t.request('GET', `/${db}/_changes?feed=continuous&timeout=1`, { auth: carol });
      const lines = continuous.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(ids(lines.slice(0, -1)), ['t1']);
      assert.equal(lines[lines.length - 1].last_seq, lines[0].seq);
      const events = await t.request('GET', `/${db}/_changes?feed=eventsource&timeout=1`, { auth: carol });
      const data = events.text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice('data: '.length)));
      assert.deepEqual(ids(data), ['t1']);
      const allLeaves = await t.request('GET', `/${db}/_changes?style=all_docs&conflicts=true`, { auth: alice });
      assert.deepEqual(ids(allLeaves.json.results), ['s1', 'a1']);
      assert.equal(allLeaves.text.includes('b1'), false);
    });
  });

  describe('views and Mango for a non-admin', () => {
    let db: string;
    before(async () => {
      db = await accessDb();
      await t.request('PUT', `/${db}/_design/app`, {
        body: {
          views: {
            byV: { map: 'function (d) { emit(d.v, 1) }', reduce: '_sum' },
            linked: { map: 'function (d) { emit(d.v, { _id: d.link }) }' },
          },
        },
      });
      await t.request('PUT', `/${db}/a1`, { auth: alice, body: { v: 1, link: 'b1', _access: ['alice'] } });
      await t.request('PUT', `/${db}/a2`, { auth: alice, body: { v: 2, link: 'a1', _access: ['alice'] } });
      await t.request('PUT', `/${db}/b1`, { auth: bob, body: { v: 3, link: 'a1', _access: ['bob'] } });
      await t.request('PUT', `/${db}/s1`, { auth: alice, body: { v: 4, link: 'a1', _access: ['alice', 'bob'] } });
      await t.request('PUT', `/${db}/z1`, { body: { v: 5 } });
    });

    it('a view answers only rows of readable documents, counted and reduced over them', async () => {
      const map = await t.request('GET', `/${db}/_design/app/_view/byV?reduce=false`, { auth: alice });
      assert.deepEqual(
        [map.status, map.json.total_rows, map.json.offset, ids(map.json.rows)],
        [200, 3, 0, ['a1', 'a2', 's1']],
      );
      const ranged = await t.request('GET', `/${db}/_design/app/_view/byV?reduce=false&startkey=2&limit=1`, {
        auth: alice,
      });
      assert.deepEqual([ranged.json.offset, ids(ranged.json.rows)], [1, ['a2']]);
      const reduced = await t.request('GET', `/${db}/_design/app/_view/byV`, { auth: bob });
      assert.deepEqual(reduced.json.rows, [{ key: null, value: 2 }]);
      const grouped = await t.request('GET', `/${db}/_design/app/_view/byV?group=true`, { auth: bob });
      assert.deepEqual(grouped.json.rows, [
        { key: 3, value: 1 },
        { key: 4, value: 1 },
      ]);
      const admin = await t.request('GET', `/${db}/_design/app/_view/byV`);
      assert.deepEqual(admin.json.rows, [{ key: null, value: 5 }]);
      // A linked document the reader cannot read is null.
      const linked = await t.request('GET', `/${db}/_design/app/_view/linked?include_docs=true`, { auth: alice });
      assert.deepEqual(
        linked.json.rows.map((r: { id: string; doc: { _id: string } | null }) => [r.id, r.doc?._id ?? null]),
        [
          ['a1', null],
          ['a2', 'a1'],
          ['s1', 'a1'],
        ],
      );
      // A revocation applies at once, whatever `stale` says.
      const s1 = (await t.request('GET', `/${db}/s1`)).json;
      await t.request('PUT', `/${db}/s1`, { body: { ...s1, _access: ['alice'] } });
      const stale = await t.request('GET', `/${db}/_design/app/_view/byV?reduce=false&update=false`, { auth: bob });
      assert.deepEqual(ids(stale.json.rows), ['b1']);
      const narrowed = (await t.request('GET', `/${db}/s1`)).json;
      await t.request('PUT', `/${db}/s1`, { body: { ...narrowed, _access: ['alice', 'bob'] } });
      const regranted = await t.request('GET', `/${db}/_design/app/_view/byV?reduce=false&update=false`, { auth: bob });
      assert.deepEqual(ids(regranted.json.rows), ['b1', 's1']);
    });

    it('_find evaluates the selector over readable documents only', async () => {
      const r = await t.request('POST', `/${db}/_find`, {
        auth: bob,
        body: { selector: { v: { $gt: 0 } }, fields: ['_id'], execution_stats: true },
      });
      assert.deepEqual(r.json.docs, [{ _id: 'b1' }, { _id: 's1' }]);
      assert.equal(r.json.execution_stats.results_returned, 2);
      const admin = await t.request('POST', `/${db}/_find`, { body: { selector: { v: { $gt: 0 } }, fields: ['_id'] } });
      assert.equal(admin.json.docs.length, 5);
      // Read through the reader's access rows: pages by bookmark and descending order hold.
      const page = (bookmark?: string) =>
        t.request('POST', `/${db}/_find`, {
          auth: alice,
          body: { selector: { v: { $gt: 0 } }, fields: ['_id'], limit: 2, ...(bookmark ? { bookmark } : {}) },
        });
      const first = await page();
      const second = await page(first.json.bookmark);
      const third = await page(second.json.bookmark);
      assert.deepEqual(
        [...first.json.docs, ...second.json.docs, ...third.json.docs],
        [{ _id: 'a1' }, { _id: 'a2' }, { _id: 's1' }],
      );
      const descending = await t.request('POST', `/${db}/_find`, {
        auth: alice,
        body: { selector: { _id: { $gt: null } }, fields: ['_id'], sort: [{ _id: 'desc' }] },
      });
      assert.deepEqual(descending.json.docs, [{ _id: 's1' }, { _id: 'a2' }, { _id: 'a1' }]);
      assert.equal(
        (await t.request('POST', `/${db}/_explain`, { auth: bob, body: { selector: { v: 1 } } })).status,
        200,
      );
    });

    it('endpoints that do not filter by access are refused to a non-admin, design documents are absent', async () => {
      for (const [method, path, status] of [
        ['GET', `/${db}/_purged_infos`, 403],
        ['GET', `/${db}/_design/app/_show/x/a1`, 403],
        ['GET', `/${db}/_design/app/_list/x/byV`, 403],
        ['POST', `/${db}/_design/app/_update/x`, 403],
        ['GET', `/${db}/_design/app/_rewrite/x`, 403],
        ['GET', `/${db}/_design/app/_info`, 404],
        ['GET', `/${db}/_design/app`, 404],
      ] as const) {
        const r = await t.request(method, path, { auth: alice, ...(method === 'POST' ? { body: {} } : {}) });
        assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
      }
    });
  });

  describe('replication as a non-admin', () => {
    it('reads only the user’s documents from an access database, and writes only theirs into one', async () => {
      const source = await accessDb();
      await t.request('PUT', `/${source}/a1`, { auth: alice, body: { _access: ['alice'] } });
      await t.request('PUT', `/${source}/s1`, { auth: alice, body: { _access: ['alice', 'bob'] } });
      await t.request('PUT', `/${source}/b1`, { auth: bob, body: { _access: ['bob'] } });
      const plain = `plain${n}`;
      await t.request('PUT', `/${plain}`);
      await t.request('PUT', `/${plain}/_security`, { body: { members: { names: ['alice'] } } });
      const pull = await t.request('POST', '/_replicate', { auth: alice, body: { source, target: plain } });
      assert.equal(pull.status, 200, pull.text);
      const stats = pull.json.history[0];
      assert.deepEqual(
        [stats.missing_checked, stats.missing_found, stats.docs_read, stats.docs_written, stats.doc_write_failures],
        [2, 2, 2, 2, 0],
      );
      assert.deepEqual(ids((await t.request('GET', `/${plain}/_all_docs`)).json.rows), ['a1', 's1']);
      // Back into an access database: only the documents naming the user are written.
      await t.request('PUT', `/${plain}/other`, { body: { _access: ['bob'] } });
      const target = await accessDb();
      const push = await t.request('POST', '/_replicate', { auth: alice, body: { source: plain, target } });
      assert.equal(push.status, 200, push.text);
      const pushed = push.json.history[0];
      assert.deepEqual([pushed.docs_read, pushed.docs_written, pushed.doc_write_failures], [3, 2, 1]);
      assert.deepEqual(ids((await t.request('GET', `/${target}/_all_docs`)).json.rows), ['a1', 's1']);
    });
  });

  describe('replication checkpoints', () => {
    it("a user's job writes its checkpoints through the write rules, naming the user; each user has their own", async () => {
      const source = await accessDb();
      const target = await accessDb();
      await t.request('PUT', `/${source}/a1`, { auth: alice, body: { _access: ['alice'] } });
      await t.request('PUT', `/${source}/b1`, { auth: bob, body: { _access: ['bob'] } });
      const locals = async (db: string) =>
        (await t.request('GET', `/${db}/_local_docs?include_docs=true`)).json.rows.map(
          (row: { id: string; doc: { _access?: string[] } }) => [row.id, row.doc._access],
        );
      const byAlice = await t.request('POST', '/_replicate', { auth: alice, body: { source, target } });
      assert.equal(byAlice.status, 200, byAlice.text);
      const [[checkpoint, access]] = await locals(source);
      assert.deepEqual(access, ['alice']);
      assert.deepEqual(await locals(target), [[checkpoint, ['alice']]]);
      assert.equal((await t.request('GET', `/${source}/${checkpoint}`, { auth: alice })).status, 200);
      assert.equal((await t.request('GET', `/${source}/${checkpoint}`, { auth: bob })).status, 404);
      // Bob's job over the same databases keeps its own checkpoints: alice's are left as they were.
      const byBob = await t.request('POST', '/_replicate', { auth: bob, body: { source, target } });
      assert.equal(byBob.status, 200, byBob.text);
      assert.equal(byBob.json.history[0].docs_written, 1);
      const after = await locals(source);
      assert.equal(after.length, 2);
      assert.deepEqual(
        after.find(([id]: [string]) => id === checkpoint),
        [checkpoint, ['alice']],
      );
      assert.deepEqual(after.find(([id]: [string]) => id !== checkpoint)?.[1], ['bob']);
      // A checkpoint the rules refuse (here one an admin gave bob) is not overwritten: the job fails.
      await t.request('PUT', `/${target}/${checkpoint}`, { body: { _access: ['bob'] } });
      await t.request('PUT', `/${source}/a2`, { auth: alice, body: { _access: ['alice'] } });
      const refused = await t.request('POST', '/_replicate', { auth: alice, body: { source, target } });
      assert.deepEqual([refused.status, refused.json], [403, { error: 'forbidden', reason: 'access' }]);
      assert.deepEqual(await locals(target).then((rows) => rows.find(([id]: [string]) => id === checkpoint)), [
        checkpoint,
        ['bob'],
      ]);
    });
  });

  describe('revocation and conflicts', () => {
    it('removed=true reports a document the user lost; a regrant gives a normal row again', async () => {
      const db = await accessDb();
      const made = await t.request('PUT', `/${db}/d`, { auth: alice, body: { _access: ['alice', 'bob'] } });
      await t.request('PUT', `/${db}/keep`, { auth: bob, body: { _access: ['bob'] } });
      const narrowed = await t.request('PUT', `/${db}/d`, {
        auth: alice,
        body: { _rev: made.json.rev, _access: ['alice'] },
      });
      const plain = await t.request('GET', `/${db}/_changes`, { auth: bob });
      assert.deepEqual(ids(plain.json.results), ['keep']);
      const removed = await t.request('GET', `/${db}/_changes?removed=true`, { auth: bob });
      const seqOfNarrowing = (await t.request('GET', `/${db}/_changes`)).json.results.find(
        (row: { id: string }) => row.id === 'd',
      ).seq;
      assert.deepEqual(removed.json.results, [
        removed.json.results[0],
        { seq: seqOfNarrowing, id: 'd', changes: [], removed: true },
      ]);
      assert.equal(removed.json.results[0].id, 'keep');
      await t.request('PUT', `/${db}/d`, { auth: alice, body: { _rev: narrowed.json.rev, _access: ['alice', 'bob'] } });
      const regranted = await t.request('GET', `/${db}/_changes?removed=true`, { auth: bob });
      assert.deepEqual(ids(regranted.json.results), ['keep', 'd']);
      assert.equal(regranted.json.results[1].removed, undefined);
      // A deletion is an ordinary deleted row, never `removed`.
      const current = (await t.request('GET', `/${db}/d`, { auth: bob })).json._rev;
      await t.request('DELETE', `/${db}/d?rev=${current}`, { auth: bob });
      const afterDelete = await t.request('GET', `/${db}/_changes?removed=true`, { auth: bob });
      assert.equal(afterDelete.json.results[1].deleted, true);
    });

    it('conflicting branches: readable only by the principals of every live branch', async () => {
      const db = await accessDb();
      const branch = (rev: string, access: string[]) => ({
        body: { new_edits: false, docs: [{ _id: 'c', _rev: rev, _access: access, v: rev }] },
      });
      assert.equal((await t.request('POST', `/${db}/_bulk_docs`, branch('1-aaaa', ['alice', 'bob']))).status, 201);
      assert.equal((await t.request('GET', `/${db}/c`, { auth: alice })).status, 200);
      assert.equal((await t.request('POST', `/${db}/_bulk_docs`, branch('1-bbbb', ['bob']))).status, 201);
      assert.equal((await t.request('GET', `/${db}/c`, { auth: alice })).status, 404);
      const bobs = await t.request('GET', `/${db}/c?conflicts=true`, { auth: bob });
      assert.deepEqual([bobs.status, bobs.json._conflicts], [200, ['1-aaaa']]);
      assert.deepEqual(ids((await t.request('GET', `/${db}/_all_docs`, { auth: alice })).json.rows), []);
      const lost = await t.request('GET', `/${db}/_changes?removed=true`, { auth: alice });
      assert.deepEqual(
        lost.json.results.map((r: { removed?: boolean }) => r.removed),
        [true],
      );
      // Resolving the conflict gives alice the document back.
      await t.request('DELETE', `/${db}/c?rev=1-bbbb`);
      assert.equal((await t.request('GET', `/${db}/c`, { auth: alice })).status, 200);
    });

    it('open_revs, ?rev and _bulk_get never give a reader an ended branch whose _access names others', async () => {
      const db = await accessDb();
      const leaf = (rev: string, access: string[], deleted = false) => ({
        body: {
          new_edits: false,
          docs: [{ _id: 'o', _rev: rev, _access: access, ...(deleted ? { _deleted: true } : {}) }],
        },
      });
      await t.request('POST', `/${db}/_bulk_docs`, leaf('1-aaaa', ['alice', 'bob']));
      await t.request('POST', `/${db}/_bulk_docs`, leaf('1-bbbb', ['carol', 'secret-friend'], true));
      await t.request('POST', `/${db}/_bulk_docs`, leaf('1-cccc', ['alice'], true));
      const revsOf = (rows: { ok?: { _rev: string } }[]) => rows.map((row) => row.ok?._rev);
      const json = { accept: 'application/json' };
      const all = await t.request('GET', `/${db}/o?open_revs=all`, { auth: alice, headers: json });
      assert.deepEqual([all.status, revsOf(all.json)], [200, ['1-aaaa', '1-cccc']]);
      assert.ok(!all.text.includes('secret-friend'));
      const admins = await t.request('GET', `/${db}/o?open_revs=all`, { headers: json });
      assert.deepEqual(revsOf(admins.json), ['1-aaaa', '1-bbbb', '1-cccc']);
      const listed = await t.request('GET', `/${db}/o?open_revs=${encodeURIComponent('["1-bbbb","1-cccc"]')}`, {
        auth: alice,
        headers: json,
      });
      assert.deepEqual([listed.json[0], listed.json[1].ok?._rev], [{ missing: '1-bbbb' }, '1-cccc']);
      const multipart = await t.request('GET', `/${db}/o?open_revs=all`, {
        auth: alice,
        headers: { accept: 'multipart/mixed' },
      });
      assert.equal(multipart.status, 200);
      assert.ok(multipart.text.includes('1-cccc') && !multipart.text.includes('secret-friend'));
      const byRev = await t.request('GET', `/${db}/o?rev=1-bbbb`, { auth: alice });
      assert.deepEqual([byRev.status, byRev.json.reason], [404, 'missing']);
      assert.equal((await t.request('GET', `/${db}/o?rev=1-cccc`, { auth: alice })).status, 200);
      const bulk = await t.request('POST', `/${db}/_bulk_get`, {
        auth: alice,
        body: { docs: [{ id: 'o' }, { id: 'o', rev: '1-bbbb' }] },
      });
      // `_bulk_get` lists leaves in CouchDB 3.5's batched-read order (the last root first).
      assert.deepEqual(revsOf(bulk.json.results[0].docs), ['1-cccc', '1-aaaa']);
      assert.deepEqual(bulk.json.results[1].docs, [
        { error: { id: 'o', rev: '1-bbbb', error: 'not_found', reason: 'missing' } },
      ]);
      assert.ok(!bulk.text.includes('secret-friend'));
    });

    it('a purge of one conflicting leaf updates who reads the document at once', async () => {
      const db = await accessDb();
      const branch = (rev: string, access: string[]) => ({
        body: { new_edits: false, docs: [{ _id: 'p', _rev: rev, _access: access, v: rev }] },
      });
      await t.request('POST', `/${db}/_bulk_docs`, branch('1-aaaa', ['alice', 'bob']));
      await t.request('POST', `/${db}/_bulk_docs`, branch('1-bbbb', ['bob']));
      assert.equal((await t.request('GET', `/${db}/p`, { auth: alice })).status, 404);
      const since = (await t.request('GET', `/${db}/_changes?since=now`, { auth: alice })).json.last_seq;
      // Purging bob's branch leaves alice's: she reads the document with no further write.
      const purged = await t.request('POST', `/${db}/_purge`, { body: { p: ['1-bbbb'] } });
      assert.deepEqual(purged.json.purged, { p: ['1-bbbb'] });
      assert.equal((await t.request('GET', `/${db}/p`, { auth: alice })).status, 200);
      assert.deepEqual(ids((await t.request('GET', `/${db}/_all_docs`, { auth: alice })).json.rows), ['p']);
      const feed = await t.request('GET', `/${db}/_changes?since=${since}`, { auth: alice });
      assert.deepEqual(ids(feed.json.results), ['p']);
      assert.deepEqual(feed.json.results[0].changes, [{ rev: '1-aaaa' }]);
      // Purging alice's leaf instead (a fresh conflict) narrows the document to bob: alice's feed says so.
      await t.request('POST', `/${db}/_bulk_docs`, branch('1-cccc', ['alice', 'bob']));
      const mark = (await t.request('GET', `/${db}/_changes?since=now`, { auth: alice })).json.last_seq;
      await t.request('POST', `/${db}/_bulk_docs`, branch('1-dddd', ['bob']));
      await t.request('POST', `/${db}/_purge`, { body: { p: ['1-aaaa', '1-cccc'] } });
      assert.equal((await t.request('GET', `/${db}/p`, { auth: alice })).status, 404);
      assert.equal((await t.request('GET', `/${db}/p`, { auth: bob })).json._rev, '1-dddd');
      const lost = await t.request('GET', `/${db}/_changes?removed=true&since=${mark}`, { auth: alice });
      assert.deepEqual(
        lost.json.results.map((r: { id: string; removed?: boolean }) => [r.id, r.removed]),
        [['p', true]],
      );
    });

    it("a role given in _users back-fills the role's older documents into the user's feed, page by page", async () => {
      const db = await accessDb();
      const dave = basic('dave', 'd');
      await createUser(t, 'dave', 'd');
      await t.request('PUT', `/${db}/d1`, { auth: dave, body: { _access: ['dave'] } });
      for (const id of ['r1', 'r2', 'r3']) await t.request('PUT', `/${db}/${id}`, { body: { _access: ['crew'] } });
      await t.request('PUT', `/${db}/other`, { body: { _access: ['bob'] } });
      const synced = await t.request('GET', `/${db}/_changes`, { auth: dave });
      assert.deepEqual(ids(synced.json.results), ['d1']);
      const since = synced.json.last_seq;
      await createUser(t, 'dave', 'd', ['crew']);
      // From the checkpoint: the role's documents, each at a sequence of its own, so `limit` pages through them.
      const seen: string[] = [];
      let from = since;
      for (;;) {
        const page = await t.request('GET', `/${db}/_changes?since=${from}&limit=2`, { auth: dave });
        seen.push(...ids(page.json.results));
        if (page.json.results.length === 0) break;
        from = page.json.last_seq;
      }
      assert.deepEqual(seen, ['r1', 'r2', 'r3']);
      const again = await t.request('GET', `/${db}/_changes?since=${from}`, { auth: dave });
      assert.deepEqual(again.json.results, []);
      // From 0 the feed is the user's documents, once each.
      const all = await t.request('GET', `/${db}/_changes`, { auth: dave });
      assert.deepEqual(ids(all.json.results).sort(), ['d1', 'r1', 'r2', 'r3']);
      assert.equal((await t.request('GET', `/${db}/r1`, { auth: dave })).status, 200);
    });

    it('a longpoll waiting when a role is given wakes with the back-filled documents', async () => {
      const db = await accessDb();
      const erin = basic('erin', 'e');
      await createUser(t, 'erin', 'e');
      await t.request('PUT', `/${db}/e1`, { auth: erin, body: { _access: ['erin'] } });
      await t.request('PUT', `/${db}/g1`, { body: { _access: ['guild'] } });
      const since = (await t.request('GET', `/${db}/_changes`, { auth: erin })).json.last_seq;
      const polled = t.request('GET', `/${db}/_changes?feed=longpoll&since=${since}&timeout=10000`, { auth: erin });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await createUser(t, 'erin', 'e', ['guild']);
      const r = await polled;
      assert.deepEqual(ids(r.json.results), ['g1']);
      // A continuous feed does the same for a role given while it runs.
      const mark = r.json.last_seq;
      const continuous = t.request('GET', `/${db}/_changes?feed=continuous&since=${mark}&timeout=1500`, {
        auth: erin,
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await t.request('PUT', `/${db}/h1`, { body: { _access: ['hall'] } });
      await createUser(t, 'erin', 'e', ['guild', 'hall']);
      const lines = (await continuous).text
        .split('\n')
        .filter((line) => line.startsWith('{"seq"'))
        .map((line) => JSON.parse(line).id);
      assert.deepEqual(lines, ['h1']);
    });

    it('a role taken away in _users: removed=true reports what it gave, the plain feed leaves it out', async () => {
      const db = await accessDb();
      const fay = basic('fay', 'f');
      await createUser(t, 'fay', 'f', ['band']);
      await t.request('PUT', `/${db}/b1`, { body: { _access: ['band'] } });
      await t.request('PUT', `/${db}/b2`, { body: { _access: ['band', 'fay'] } });
      await t.request('PUT', `/${db}/f1`, { auth: fay, body: { _access: ['fay'] } });
      const synced = await t.request('GET', `/${db}/_changes`, { auth: fay });
      assert.deepEqual(ids(synced.json.results).sort(), ['b1', 'b2', 'f1']);
      const since = synced.json.last_seq;
      await createUser(t, 'fay', 'f', []);
      assert.equal((await t.request('GET', `/${db}/b1`, { auth: fay })).status, 404);
      const removed = await t.request('GET', `/${db}/_changes?removed=true&since=${since}`, { auth: fay });
      assert.deepEqual(
        removed.json.results.map((row: { id: string; removed?: boolean; changes: unknown[] }) => [
          row.id,
          row.removed,
          row.changes,
        ]),
        [['b1', true, []]],
      );
      const plain = await t.request('GET', `/${db}/_changes?since=${since}`, { auth: fay });
      assert.deepEqual(plain.json.results, []);
      // Given back: a normal row again.
      await createUser(t, 'fay', 'f', ['band']);
      const back = await t.request('GET', `/${db}/_changes?removed=true&since=${removed.json.last_seq}`, { auth: fay });
      assert.deepEqual(
        back.json.results.map((row: { id: string; removed?: boolean }) => [row.id, row.removed]),
        [['b1', undefined]],
      );
    });

    it("a longpoll waits for the user's own changes: another user's write does not end it", async () => {
      const db = await accessDb();
      const seq = (await t.request('GET', `/${db}/_changes?since=now`, { auth: alice })).json.last_seq;
      const polled = t.request('GET', `/${db}/_changes?feed=longpoll&since=${seq}&timeout=5000`, { auth: alice });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.request('PUT', `/${db}/others`, { auth: bob, body: { _access: ['bob'] } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await t.request('PUT', `/${db}/mine`, { auth: alice, body: { _access: ['alice'] } });
      const r = await polled;
      assert.deepEqual(ids(r.json.results), ['mine']);
    });
  });
});

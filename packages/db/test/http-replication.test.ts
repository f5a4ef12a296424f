import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

describe('replication endpoints', () => {
  let t: TestServer;
  let live: string;

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    await t.request('POST', '/db/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          // 'a': 1-x → 2-y
          { _id: 'a', _rev: '2-y', _revisions: { start: 2, ids: ['y', 'x'] }, v: 'y' },
          // 'cf': live leaves 1-aaa and 2-ccc (on 1-bbb), deleted leaf 1-ddd
          { _id: 'cf', _rev: '1-aaa', v: 'aaa' },
          { _id: 'cf', _rev: '2-ccc', _revisions: { start: 2, ids: ['ccc', 'bbb'] }, v: 'ccc' },
          { _id: 'cf', _rev: '1-ddd', _deleted: true },
        ],
      },
    });
    live = (await t.request('PUT', '/db/gone', { body: { k: 1 } })).json.rev;
    await t.request('DELETE', `/db/gone?rev=${live}`);
  });
  after(() => t.close());

  describe('_revs_diff', () => {
    it('lists missing revs and possible ancestors, only for docs with missing revs', async () => {
      const r = await t.request('POST', '/db/_revs_diff', {
        body: { a: ['2-y', '3-new', '2-other'], nodoc: ['1-abc', '2-def'], cf: ['1-aaa', '2-ccc'] },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, {
        a: { missing: ['3-new', '2-other'], possible_ancestors: ['2-y'] },
        nodoc: { missing: ['1-abc', '2-def'] },
      });
    });

    it('possible ancestors are the leaves of lower generation than a missing rev', async () => {
      const r = await t.request('POST', '/db/_revs_diff', { body: { cf: ['3-next'] } });
      assert.deepEqual(r.json, { cf: { missing: ['3-next'], possible_ancestors: ['2-ccc', '1-aaa', '1-ddd'] } });
      const low = await t.request('POST', '/db/_revs_diff', { body: { cf: ['1-eee'] } });
      assert.deepEqual(low.json, { cf: { missing: ['1-eee'] } });
    });

    it('an internal (non-leaf) rev is not missing', async () => {
      const r = await t.request('POST', '/db/_revs_diff', { body: { a: ['1-x'], cf: ['1-bbb'] } });
      assert.deepEqual(r.json, {});
    });

    it('a malformed rev fails the whole request; revs not a list is a 400 (CouchDB: 500); Content-Type is checked', async () => {
      const bad = await t.request('POST', '/db/_revs_diff', { body: { a: ['3-new'], b: ['bogus'] } });
      assert.deepEqual([bad.status, bad.json], [400, { error: 'bad_request', reason: 'Invalid rev format' }]);
      const notList = await t.request('POST', '/db/_revs_diff', { body: { a: '3-new' } });
      assert.deepEqual(
        [notList.status, notList.json],
        [400, { error: 'bad_request', reason: 'The revisions of "a" must be a list of revs.' }],
      );
      for (const body of ['[]', '"x"', '5']) {
        const r = await t.request('POST', '/db/_revs_diff', { body });
        assert.deepEqual([r.status, r.json.error], [400, 'bad_request'], body);
      }
      const typed = await t.request('POST', '/db/_revs_diff', {
        body: '{}',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(typed.status, 415);
      const array = await t.request('POST', '/db/_revs_diff', { body: '[]' });
      assert.deepEqual(
        [array.status, array.json],
        [400, { error: 'bad_request', reason: 'Request body must be a JSON object' }],
      );
    });
  });

  describe('_missing_revs', () => {
    it('answers {missing_revs: {id: [revs]}} for docs with missing revs', async () => {
      const r = await t.request('POST', '/db/_missing_revs', {
        body: { a: ['2-y', '3-new'], nodoc: ['1-abc'], cf: ['2-ccc'] },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { missing_revs: { a: ['3-new'], nodoc: ['1-abc'] } });
      const none = await t.request('POST', '/db/_missing_revs', { body: { a: ['2-y'] } });
      assert.deepEqual(none.json, { missing_revs: {} });
    });
  });

  describe('_bulk_get', () => {
    const bulkGet = async (docs: unknown, query = '') => t.request('POST', `/db/_bulk_get${query}`, { body: { docs } });

    it('with a rev: that revision', async () => {
      const r = await bulkGet([{ id: 'a', rev: '2-y' }]);
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { results: [{ id: 'a', docs: [{ ok: { _id: 'a', _rev: '2-y', v: 'y' } }] }] });
    });

    it('without a rev on a conflicted doc: every leaf, the deleted one included', async () => {
      const r = await bulkGet([{ id: 'cf' }]);
      assert.deepEqual(r.json, {
        results: [
          {
            id: 'cf',
            docs: [
              // CouchDB 3.5's order (couch_key_tree:get_all_leafs): the last root's leaves first.
              { ok: { _id: 'cf', _rev: '1-ddd', _deleted: true } },
              { ok: { _id: 'cf', _rev: '2-ccc', v: 'ccc' } },
              { ok: { _id: 'cf', _rev: '1-aaa', v: 'aaa' } },
            ],
          },
        ],
      });
    });

    it('a deleted doc without a rev: its tombstone as ok', async () => {
      const r = await bulkGet([{ id: 'gone' }]);
      assert.equal(r.json.results[0].id, 'gone');
      assert.equal(r.json.results[0].docs.length, 1);
      const doc = r.json.results[0].docs[0].ok;
      assert.equal(doc._id, 'gone');
      assert.equal(doc._deleted, true);
      assert.match(doc._rev, /^2-/);
    });

    it('errors: missing doc (rev "undefined"), missing rev, no id, malformed rev, illegal id', async () => {
      const r = await bulkGet([
        { id: 'nope' },
        { id: 'nope', rev: '1-abc' },
        { id: 'a', rev: '9-zzz' },
        { rev: '1-abc' },
        { id: 'a', rev: 'bogus' },
        { id: '_bad' },
      ]);
      assert.equal(r.status, 200);
      const error = (id: unknown, rev: unknown, name: string, reason: string) => ({
        error: { id, rev, error: name, reason },
      });
      assert.deepEqual(r.json.results, [
        { id: 'nope', docs: [error('nope', 'undefined', 'not_found', 'missing')] },
        { id: 'nope', docs: [error('nope', '1-abc', 'not_found', 'missing')] },
        { id: 'a', docs: [error('a', '9-zzz', 'not_found', 'missing')] },
        { id: null, docs: [error(null, null, 'bad_request', 'document id missed')] },
        { id: 'a', docs: [error('a', 'bogus', 'bad_request', 'Invalid rev format')] },
        {
          id: '_bad',
          docs: [error('_bad', null, 'illegal_docid', 'Only reserved document ids may start with underscore.')],
        },
      ]);
    });

    it('revs=true adds _revisions', async () => {
      const r = await bulkGet([{ id: 'a', rev: '2-y' }], '?revs=true');
      assert.deepEqual(r.json.results[0].docs[0].ok, {
        _id: 'a',
        _rev: '2-y',
        v: 'y',
        _revisions: { start: 2, ids: ['y', 'x'] },
      });
    });

    it('keeps the order of the request, one result per entry', async () => {
      const r = await bulkGet([{ id: 'a' }, { id: 'nope' }, { id: 'a', rev: '2-y' }]);
      assert.deepEqual(
        r.json.results.map((result: { id: string }) => result.id),
        ['a', 'nope', 'a'],
      );
    });

    it('a batch past one read-ahead window answers every entry as open_revs reads that document alone', async () => {
      // 130 documents: updated, conflicted (a branch written beside the winner) or deleted by turns.
      const writes = Array.from({ length: 130 }, (_, i) => ({ _id: `w${String(i).padStart(3, '0')}`, n: i }));
      const first = (await t.request('POST', '/db/_bulk_docs', { body: { docs: writes } })).json;
      const revOf = new Map<string, string>(first.map((r: { id: string; rev: string }) => [r.id, r.rev]));
      for (let i = 0; i < 130; i += 3) {
        const id = `w${String(i).padStart(3, '0')}`;
        const put = await t.request('PUT', `/db/${id}?rev=${revOf.get(id)}`, { body: { n: i, again: true } });
        revOf.set(`${id}:old`, revOf.get(id)!);
        revOf.set(id, put.json.rev);
      }
      for (let i = 1; i < 130; i += 7) {
        const id = `w${String(i).padStart(3, '0')}`;
        await t.request('POST', '/db/_bulk_docs', {
          body: { new_edits: false, docs: [{ _id: id, _rev: '1-0000000000000000000000000000000f', side: true }] },
        });
      }
      for (let i = 2; i < 130; i += 11) {
        const id = `w${String(i).padStart(3, '0')}`;
        revOf.set(id, (await t.request('DELETE', `/db/${id}?rev=${revOf.get(id)}`)).json.rev);
      }
      // 260 entries: the current rev, an older one, none, a missing rev, a missing doc, repeats.
      const entries: { id: string; rev?: string }[] = [];
      for (let k = 0; k < 260; k++) {
        const id = `w${String((k * 37) % 140).padStart(3, '0')}`;
        const kind = k % 5;
        if (kind === 0 || !revOf.has(id)) entries.push({ id });
        else if (kind === 1 && revOf.has(`${id}:old`)) entries.push({ id, rev: revOf.get(`${id}:old`)! });
        else if (kind === 2) entries.push({ id, rev: '1-0000000000000000000000000000000f' });
        else if (kind === 3) entries.push({ id, rev: '7-00000000000000000000000000000000' });
        else entries.push({ id, rev: revOf.get(id)! });
      }
      for (const query of ['?revs=true&latest=true', '']) {
        const batch = await bulkGet(entries, query);
        assert.equal(batch.json.results.length, entries.length);
        for (const [k, entry] of entries.entries()) {
          const alone = (await bulkGet([entry], query)).json.results[0];
          assert.deepEqual(batch.json.results[k], alone, `entry ${k}: ${JSON.stringify(entry)}`);
          const openRevs = entry.rev === undefined ? 'all' : encodeURIComponent(JSON.stringify([entry.rev]));
          const single = await t.request('GET', `/db/${entry.id}?open_revs=${openRevs}&${query.slice(1)}`, {
            headers: { accept: 'application/json' },
          });
          if (single.status !== 200) continue; // a missing document: bulk_get's own error entry
          const docs = single.json.map((r: { ok?: unknown; missing?: string }) => r.ok ?? r.missing);
          const fromBatch = alone.docs.map((d: { ok?: unknown; error?: { rev: string } }) => d.ok ?? d.error?.rev);
          // The same revisions; the order is each endpoint's own (open_revs sorts, _bulk_get keeps
          // the revision tree's leaf order), asserted where the order is tested.
          const byRev = (list: unknown[]) => [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
          assert.deepEqual(byRev(fromBatch), byRev(docs), `entry ${k} against open_revs`);
        }
      }
    });

    it('bad requests: docs missing → 400, docs not a list → 400 (CouchDB: 500), wrong Content-Type → 415', async () => {
      const missing = await t.request('POST', '/db/_bulk_get', { body: {} });
      assert.deepEqual(
        [missing.status, missing.json],
        [400, { error: 'bad_request', reason: "Missing JSON list of 'docs'." }],
      );
      const notList = await t.request('POST', '/db/_bulk_get', { body: { docs: 5 } });
      assert.deepEqual(
        [notList.status, notList.json],
        [400, { error: 'bad_request', reason: '`docs` must be a list of {"id", "rev"} objects.' }],
      );
      const typed = await t.request('POST', '/db/_bulk_get', {
        body: '{"docs":[]}',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(typed.status, 415);
      const empty = await t.request('POST', '/db/_bulk_get', { body: { docs: [] } });
      assert.deepEqual([empty.status, empty.json], [200, { results: [] }]);
    });
  });

  describe('a replication round trip', () => {
    it('revs_diff, bulk_get with revs, then bulk_docs new_edits:false into a second db reproduces the doc', async () => {
      await t.request('PUT', '/target');
      const diff = await t.request('POST', '/target/_revs_diff', {
        body: { a: ['2-y'], cf: ['1-aaa', '2-ccc', '1-ddd'] },
      });
      assert.deepEqual(diff.json, { a: { missing: ['2-y'] }, cf: { missing: ['1-aaa', '2-ccc', '1-ddd'] } });
      const docs = [{ id: 'a', rev: '2-y' }, ...['1-aaa', '2-ccc', '1-ddd'].map((rev) => ({ id: 'cf', rev }))];
      const got = await t.request('POST', '/db/_bulk_get?revs=true', { body: { docs } });
      const bodies = got.json.results.flatMap((result: { docs: { ok: unknown }[] }) =>
        result.docs.map((entry) => entry.ok),
      );
      const put = await t.request('POST', '/target/_bulk_docs', { body: { new_edits: false, docs: bodies } });
      assert.deepEqual([put.status, put.json], [201, []]);
      const again = await t.request('POST', '/target/_revs_diff', {
        body: { a: ['2-y'], cf: ['1-aaa', '2-ccc', '1-ddd'] },
      });
      assert.deepEqual(again.json, {});
      const source = await t.request('GET', '/db/cf?open_revs=all&revs=true', {
        headers: { accept: 'application/json' },
      });
      const target = await t.request('GET', '/target/cf?open_revs=all&revs=true', {
        headers: { accept: 'application/json' },
      });
      assert.deepEqual(target.json, source.json);
      const sourceA = await t.request('GET', '/db/a?revs=true');
      const targetA = await t.request('GET', '/target/a?revs=true');
      assert.deepEqual(targetA.json, sourceA.json);
    });
  });
});

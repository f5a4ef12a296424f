import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const EMPTY_REV = '1-967a00dff5e02add41819138abb3284d';
const CONFLICT = { error: 'conflict', reason: 'Document update conflict.' };

describe('_bulk_docs', () => {
  let t: TestServer;
  const updateSeq = async (): Promise<number> => (await t.request('GET', '/db')).json.update_seq;
  const allIds = async (): Promise<string[]> =>
    (await t.request('GET', '/db/_all_docs')).json.rows.map((row: { id: string }) => row.id);

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('answers 201 with one row per document, in order; a doc without _id gets a uuid', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [{ _id: 'a' }, { _id: 'b', x: 1 }, { y: 2 }] },
    });
    assert.equal(r.status, 201);
    assert.equal(r.json.length, 3);
    assert.deepEqual(r.json[0], { ok: true, id: 'a', rev: EMPTY_REV });
    assert.equal(r.json[1].id, 'b');
    assert.match(r.json[1].rev, /^1-[0-9a-f]{32}$/);
    assert.equal(r.json[2].ok, true);
    assert.match(r.json[2].id, /^[0-9a-f]{32}$/);
    assert.equal((await t.request('GET', `/db/${r.json[2].id}`)).json.y, 2);
  });

  it('conflicts are rows of a 201: no rev, unknown rev, second occurrence of an id', async () => {
    const b = (await t.request('GET', '/db/b')).json._rev;
    const before = await updateSeq();
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: {
        docs: [
          { _id: 'a' },
          { _id: 'n1' },
          { _id: 'n1', v: 2 },
          { _id: 'b', _rev: '5-abc' },
          { _id: 'b', _rev: b, x: 2 },
          { _id: 'b', _rev: b, x: 3 },
        ],
      },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json[0], { id: 'a', ...CONFLICT });
    assert.deepEqual(r.json[1], { ok: true, id: 'n1', rev: EMPTY_REV });
    assert.deepEqual(r.json[2], { id: 'n1', ...CONFLICT });
    assert.deepEqual(r.json[3], { id: 'b', ...CONFLICT });
    assert.equal(r.json[4].ok, true);
    assert.match(r.json[4].rev, /^2-/);
    assert.deepEqual(r.json[5], { id: 'b', ...CONFLICT });
    assert.equal(await updateSeq(), before + 2);
    assert.equal((await t.request('GET', '/db/b')).json.x, 2);
  });

  it('deletes with _deleted:true, and re-creates a deleted doc without rev', async () => {
    const rev = (await t.request('GET', '/db/n1')).json._rev;
    const del = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [{ _id: 'n1', _rev: rev, _deleted: true }] },
    });
    assert.equal(del.status, 201);
    assert.match(del.json[0].rev, /^2-/);
    assert.equal((await t.request('GET', '/db/n1')).json.reason, 'deleted');
    assert.ok(!(await allIds()).includes('n1'));
    const again = await t.request('POST', '/db/_bulk_docs', { body: { docs: [{ _id: 'n1', back: true }] } });
    assert.match(again.json[0].rev, /^3-/);
  });

  it('one invalid document fails the whole request with 400 and writes nothing', async () => {
    const before = await updateSeq();
    const cases: [unknown, number, { error: string; reason: string }][] = [
      [
        { _id: '_bad' },
        400,
        { error: 'illegal_docid', reason: 'Only reserved document ids may start with underscore.' },
      ],
      [{ _id: 'x1', _rev: 'bogus' }, 400, { error: 'bad_request', reason: 'Invalid rev format' }],
      ['not an object', 400, { error: 'bad_request', reason: 'Document must be a JSON object' }],
      [{ _id: 5 }, 400, { error: 'illegal_docid', reason: 'Document id must be a string' }],
      [{ _id: 'x2', _foo: 1 }, 400, { error: 'doc_validation', reason: 'Bad special document member: _foo' }],
    ];
    for (const [bad, status, body] of cases) {
      const r = await t.request('POST', '/db/_bulk_docs', {
        body: { docs: [{ _id: 'never1' }, bad, { _id: 'never2' }] },
      });
      assert.deepEqual([r.status, r.json], [status, body], JSON.stringify(bad));
    }
    assert.equal(await updateSeq(), before);
    const ids = await allIds();
    assert.ok(!ids.includes('never1') && !ids.includes('never2'));
    const keyed = await t.request('GET', '/db/_all_docs?keys=["never1","never2"]');
    assert.deepEqual(keyed.json.rows, [
      { key: 'never1', error: 'not_found' },
      { key: 'never2', error: 'not_found' },
    ]);
  });

  it('new_edits:false answers 201 [] and stores the revs as given', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { new_edits: false, docs: [{ _id: 'rep', _rev: '1-abc', v: 1 }] },
    });
    assert.deepEqual([r.status, r.json], [201, []]);
    assert.equal((await t.request('GET', '/db/rep')).text.trim(), '{"_id":"rep","_rev":"1-abc","v":1}');
  });

  it('new_edits:false re-posting an existing leaf is a no-op, even with another body', async () => {
    const before = await updateSeq();
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { new_edits: false, docs: [{ _id: 'rep', _rev: '1-abc', v: 999 }] },
    });
    assert.deepEqual([r.status, r.json], [201, []]);
    assert.equal(await updateSeq(), before);
    assert.equal((await t.request('GET', '/db/rep')).json.v, 1);
  });

  it('new_edits:false makes conflicts; the winner is the larger rev id', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { new_edits: false, docs: [{ _id: 'rep', _rev: '1-zzz', v: 2 }] },
    });
    assert.deepEqual(r.json, []);
    const doc = await t.request('GET', '/db/rep?conflicts=true');
    assert.equal(doc.json._rev, '1-zzz');
    assert.deepEqual(doc.json._conflicts, ['1-abc']);
  });

  it('new_edits:false with _revisions, then a stub ancestor filled in without changing the leaves', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [{ _id: 'hist', _rev: '3-c', _revisions: { start: 3, ids: ['c', 'b', 'a'] }, v: 3 }],
      },
    });
    assert.deepEqual([r.status, r.json], [201, []]);
    assert.equal((await t.request('GET', '/db/hist?rev=2-b')).status, 404);
    const fill = await t.request('POST', '/db/_bulk_docs', {
      body: { new_edits: false, docs: [{ _id: 'hist', _rev: '2-b', v: 2 }] },
    });
    assert.deepEqual([fill.status, fill.json], [201, []]);
    const old = await t.request('GET', '/db/hist?rev=2-b');
    assert.equal(old.status, 200);
    assert.equal(old.json.v, 2);
    const leaves = await t.request('GET', '/db/hist?open_revs=all', { headers: { accept: 'application/json' } });
    assert.deepEqual(
      leaves.json.map((entry: { ok: { _rev: string } }) => entry.ok._rev),
      ['3-c'],
    );
  });

  it('new_edits:false without a rev is a 400', async () => {
    const before = await updateSeq();
    const r = await t.request('POST', '/db/_bulk_docs', { body: { new_edits: false, docs: [{ _id: 'norev' }] } });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'bad_request');
    assert.equal(await updateSeq(), before);
  });

  it('new_edits that is not a boolean is a 400, with documents too (where CouchDB crashes with a 500)', async () => {
    const withDocs = await t.request('POST', '/db/_bulk_docs', { body: { new_edits: 'abc', docs: [{ _id: 'ne' }] } });
    assert.deepEqual(
      [withDocs.status, withDocs.json],
      [400, { error: 'bad_request', reason: '`new_edits` parameter must be a boolean.' }],
    );
    const badDoc = await t.request('POST', '/db/_bulk_docs', { body: { new_edits: 'abc', docs: [{ _id: '_bad' }] } });
    assert.deepEqual([badDoc.status, badDoc.json.error], [400, 'illegal_docid'], 'the documents are checked first');
    const empty = await t.request('POST', '/db/_bulk_docs', { body: { new_edits: 'abc', docs: [] } });
    assert.deepEqual(
      [empty.status, empty.json],
      [400, { error: 'bad_request', reason: '`new_edits` parameter must be a boolean.' }],
    );
    assert.equal((await t.request('GET', '/db/ne')).status, 404);
  });

  it('all_or_nothing:true is 417 with a not_implemented row per document, nothing written', async () => {
    const before = await updateSeq();
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { all_or_nothing: true, docs: [{ _id: 'aon1' }, { _id: 'aon2', v: 1 }] },
    });
    assert.equal(r.status, 417);
    const row = (id: string) => ({
      id,
      rev: '0-',
      error: 'not_implemented',
      reason: 'all_or_nothing is not supported',
    });
    assert.deepEqual(r.json, [row('aon1'), row('aon2')]);
    assert.equal(await updateSeq(), before);
  });

  it('bad requests: missing docs, docs not a list, not an object, bad JSON, wrong Content-Type', async () => {
    const missing = await t.request('POST', '/db/_bulk_docs', { body: {} });
    assert.deepEqual(
      [missing.status, missing.json],
      [400, { error: 'bad_request', reason: 'POST body must include `docs` parameter.' }],
    );
    const notList = await t.request('POST', '/db/_bulk_docs', { body: { docs: 5 } });
    assert.deepEqual(
      [notList.status, notList.json],
      [400, { error: 'bad_request', reason: '`docs` parameter must be an array.' }],
    );
    const array = await t.request('POST', '/db/_bulk_docs', { body: '[]' });
    assert.deepEqual(
      [array.status, array.json],
      [400, { error: 'bad_request', reason: 'Request body must be a JSON object' }],
    );
    const junk = await t.request('POST', '/db/_bulk_docs', { body: '{"docs":[' });
    assert.deepEqual([junk.status, junk.json], [400, { error: 'bad_request', reason: 'invalid UTF-8 JSON' }]);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await t.request('POST', '/db/_bulk_docs', {
        body: '{"docs":[{"_id":"typed"}]}',
        headers: { 'content-type': type },
      });
      assert.deepEqual(
        [r.status, r.json],
        [415, { error: 'bad_content_type', reason: 'Content-Type must be application/json' }],
      );
    }
    const charset = await t.request('POST', '/db/_bulk_docs', {
      body: '{"docs":[{"_id":"typed"}]}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(charset.status, 201);
  });

  it('_local docs in a batch get 0-1 (and no update_seq); _design docs are normal', async () => {
    const before = await updateSeq();
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: {
        docs: [
          { _id: '_local/l1', a: 1 },
          { _id: '_design/d1', views: {} },
          { _id: '_local/l1', a: 2 },
        ],
      },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json[0], { ok: true, id: '_local/l1', rev: '0-1' });
    assert.equal(r.json[1].id, '_design/d1');
    assert.match(r.json[1].rev, /^1-[0-9a-f]{32}$/);
    assert.deepEqual(r.json[2], { ok: true, id: '_local/l1', rev: '0-1' });
    assert.equal(await updateSeq(), before + 1);
    const ids = await allIds();
    assert.ok(ids.includes('_design/d1'));
    assert.ok(!ids.includes('_local/l1'));
    const local = await t.request('GET', '/db/_local/l1');
    assert.equal(local.text.trim(), '{"_id":"_local/l1","_rev":"0-1","a":2}');
  });

  it('an invalid design document is an error row (CouchDB validates it per document); the rest is written', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [{ _id: 'dd-ok' }, { _id: '_design/bad', views: 5 }] },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json[0], { ok: true, id: 'dd-ok', rev: EMPTY_REV });
    assert.deepEqual(r.json[1], {
      id: '_design/bad',
      error: 'invalid_design_doc',
      reason: '`views` field must have object type',
    });
    assert.equal((await t.request('GET', '/db/_design/bad')).status, 404);
  });

  it('a document nested deeper than the JSON limit is refused alone, as a replicated batch needs (the rest is written)', async () => {
    const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const reason = 'JSON nested deeper than 1000 levels is not accepted.';
    // A replicator's batch: new_edits=false, with histories; only the refused one is reported.
    const replicated = `{"new_edits":false,"docs":[
      {"_id":"rep-1","_rev":"1-aaa","v":1},
      {"_id":"rep-deep","_rev":"2-bbb","_revisions":{"start":2,"ids":["bbb","aaa"]},"x":${deep(1100)}},
      {"_id":"rep-2","_rev":"3-ccc","_revisions":{"start":3,"ids":["ccc","bbb","aaa"]},"v":2}]}`;
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: replicated,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json, [{ id: 'rep-deep', error: 'bad_request', reason }]);
    assert.equal((await t.request('GET', '/db/rep-1')).json._rev, '1-aaa');
    assert.equal((await t.request('GET', '/db/rep-2')).json._rev, '3-ccc');
    assert.equal((await t.request('GET', '/db/rep-deep')).status, 404);
    // Interactive edits: a row per document, in order.
    const interactive = await t.request('POST', '/db/_bulk_docs', {
      body: `{"docs":[{"_id":"i-1"},{"_id":"i-deep","x":${deep(1200)}},{"_id":"i-2"}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(interactive.status, 201);
    assert.deepEqual(
      interactive.json.map((row: { id: string; ok?: boolean; error?: string }) => [row.id, row.ok ?? row.error]),
      [
        ['i-1', true],
        ['i-deep', 'bad_request'],
        ['i-2', true],
      ],
    );
    // A document as deep as the limit allows is written; too deep anywhere else is the whole request's 400.
    const fits = await t.request('POST', '/db/_bulk_docs', {
      body: `{"docs":[{"_id":"fits","x":${deep(996)}}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(fits.json[0].ok, true);
    const elsewhere = await t.request('POST', '/db/_bulk_docs', {
      body: `{"docs":[{"_id":"e-1"}],"other":[${deep(1100)}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([elsewhere.status, elsewhere.json], [400, { error: 'bad_request', reason }]);
    assert.equal((await t.request('GET', '/db/e-1')).status, 404);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/** open_revs answers multipart/mixed to any Accept that takes it (fetch sends any-type), as CouchDB. */
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

describe('documents', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('PUT creates with CouchDB deterministic revs, ETag and an absolute Location', async () => {
    const r = await t.request('PUT', '/db/empty', { body: {} });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json, { ok: true, id: 'empty', rev: '1-967a00dff5e02add41819138abb3284d' });
    assert.equal(r.headers.get('etag'), '"1-967a00dff5e02add41819138abb3284d"');
    assert.equal(r.headers.get('location'), `${t.url}/db/empty`);
    const x = await t.request('PUT', '/db/x1', { body: { x: 1 } });
    assert.match(x.json.rev, /^1-0785e9eb/);
  });

  it('the same edit on the same parent gives the same rev, whatever the id', async () => {
    const a = await t.request('PUT', '/db/same-a', { body: { v: [1, 2.5, 'x', null, true] } });
    const b = await t.request('PUT', '/db/same-b', { body: { v: [1, 2.5, 'x', null, true] } });
    assert.equal(a.json.rev, b.json.rev);
    const a2 = await t.request('PUT', '/db/same-a', { body: { _rev: a.json.rev, v: 2 } });
    const b2 = await t.request('PUT', '/db/same-b', { body: { _rev: b.json.rev, v: 2 } });
    assert.equal(a2.json.rev, b2.json.rev);
    assert.match(a2.json.rev, /^2-[0-9a-f]{32}$/);
  });

  it('keeps numbers and member order exactly', async () => {
    const text = '{"z":1,"1":2,"a":1.0,"big":123456789012345678901234567890,"e":1E+2,"neg":-0}';
    await t.request('PUT', '/db/numbers', { body: text });
    const r = await t.request('GET', '/db/numbers');
    const body = r.text.replace(/^\{"_id":"numbers","_rev":"[^"]+",/, '{').trim();
    assert.equal(body, '{"z":1,"1":2,"a":1.0,"big":123456789012345678901234567890,"e":100.0,"neg":0}');
  });

  it('GET returns _id and _rev first, with an ETag; If-None-Match gives 304', async () => {
    const put = await t.request('PUT', '/db/g', { body: { a: 'b' } });
    const r = await t.request('GET', '/db/g');
    assert.equal(r.text.trim(), `{"_id":"g","_rev":"${put.json.rev}","a":"b"}`);
    assert.equal(r.headers.get('etag'), `"${put.json.rev}"`);
    const cached = await t.request('GET', '/db/g', { headers: { 'if-none-match': `"${put.json.rev}"` } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
  });

  it('updates need the current rev: 409 without it or with a stale one', async () => {
    const one = await t.request('PUT', '/db/u', { body: { n: 1 } });
    const noRev = await t.request('PUT', '/db/u', { body: { n: 2 } });
    assert.deepEqual([noRev.status, noRev.json], [409, { error: 'conflict', reason: 'Document update conflict.' }]);
    const two = await t.request('PUT', '/db/u', { body: { _rev: one.json.rev, n: 2 } });
    assert.equal(two.status, 201);
    const stale = await t.request('PUT', '/db/u', { body: { _rev: one.json.rev, n: 3 } });
    assert.equal(stale.status, 409);
    const viaQuery = await t.request('PUT', `/db/u?rev=${two.json.rev}`, { body: { n: 3 } });
    assert.equal(viaQuery.status, 201);
    const viaIfMatch = await t.request('PUT', '/db/u', {
      body: { n: 4 },
      headers: { 'if-match': `"${viaQuery.json.rev}"` },
    });
    assert.equal(viaIfMatch.status, 201);
  });

  it('rev sources that disagree, and malformed revs, are 400s', async () => {
    const one = await t.request('PUT', '/db/r', { body: {} });
    const mismatch = await t.request('PUT', '/db/r?rev=1-abc', { body: { _rev: one.json.rev } });
    assert.deepEqual(
      [mismatch.status, mismatch.json.reason],
      [400, 'Document rev from request body and query string have different values'],
    );
    const etag = await t.request('PUT', '/db/r', { body: { _rev: one.json.rev }, headers: { 'if-match': '"1-abc"' } });
    assert.deepEqual([etag.status, etag.json.reason], [400, 'Document rev and etag have different values']);
    const bad = await t.request('PUT', '/db/r', { body: { _rev: 'nonsense' } });
    assert.deepEqual([bad.status, bad.json], [400, { error: 'bad_request', reason: 'Invalid rev format' }]);
    const unknown = await t.request('GET', '/db/r?rev=1-abc');
    assert.deepEqual([unknown.status, unknown.json.reason], [404, 'missing']);
  });

  it('DELETE makes a tombstone; GET is then 404 deleted; re-creation continues the branch', async () => {
    const one = await t.request('PUT', '/db/d', { body: { keep: 1 } });
    const noRev = await t.request('DELETE', '/db/d');
    assert.equal(noRev.status, 409);
    const del = await t.request('DELETE', `/db/d?rev=${one.json.rev}`);
    assert.equal(del.status, 200);
    assert.match(del.json.rev, /^2-/);
    assert.equal(del.headers.get('location'), null);
    assert.deepEqual((await t.request('GET', '/db/d')).json, { error: 'not_found', reason: 'deleted' });
    assert.deepEqual((await t.request('GET', '/db/never')).json, { error: 'not_found', reason: 'missing' });
    const tomb = await t.request('GET', `/db/d?rev=${del.json.rev}`);
    assert.deepEqual(tomb.json, { _id: 'd', _rev: del.json.rev, _deleted: true });
    const again = await t.request('DELETE', `/db/d?rev=${del.json.rev}`);
    assert.deepEqual([again.status, again.json.reason], [404, 'deleted']);
    const withTombRev = await t.request('PUT', '/db/d', { body: { _rev: del.json.rev, back: true } });
    assert.equal(withTombRev.status, 409);
    const recreated = await t.request('PUT', '/db/d', { body: { back: true } });
    assert.equal(recreated.status, 201);
    assert.match(recreated.json.rev, /^3-/);
    const revs = await t.request('GET', '/db/d?revs=true');
    assert.equal(revs.json._revisions.start, 3);
    assert.equal(revs.json._revisions.ids.length, 3);
  });

  it('PUT with _deleted:true answers 200 and keeps the members in the tombstone', async () => {
    const one = await t.request('PUT', '/db/soft', { body: { a: 1 } });
    const r = await t.request('PUT', '/db/soft', { body: { _rev: one.json.rev, _deleted: true, why: 'gone' } });
    assert.equal(r.status, 200);
    const tomb = await t.request('GET', `/db/soft?rev=${r.json.rev}`);
    assert.deepEqual(tomb.json, { _id: 'soft', _rev: r.json.rev, why: 'gone', _deleted: true });
  });

  it('POST /db creates with a generated id (201, Location), and needs JSON', async () => {
    const r = await t.request('POST', '/db', { body: { made: 'by post' } });
    assert.equal(r.status, 201);
    assert.match(r.json.id, /^[0-9a-f]{32}$/);
    assert.ok(r.headers.get('location')?.endsWith(`/db/${r.json.id}`));
    const named = await t.request('POST', '/db', { body: { _id: 'named' } });
    assert.equal(named.json.id, 'named');
    const wrongType = await t.request('POST', '/db', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([wrongType.status, wrongType.json.error], [415, 'bad_content_type']);
  });

  it('?batch=ok answers 202 without a rev', async () => {
    const r = await t.request('PUT', '/db/batched?batch=ok', { body: { a: 1 } });
    assert.deepEqual([r.status, r.json], [202, { ok: true, id: 'batched' }]);
  });

  it('id rules on write; reads never validate', async () => {
    const underscore = await t.request('PUT', '/db/_foo', { body: {} });
    assert.deepEqual(
      [underscore.status, underscore.json],
      [400, { error: 'illegal_docid', reason: 'Only reserved document ids may start with underscore.' }],
    );
    assert.deepEqual((await t.request('GET', '/db/_foo')).json, { error: 'not_found', reason: 'missing' });
    const nonString = await t.request('POST', '/db', { body: { _id: 5 } });
    assert.deepEqual([nonString.status, nonString.json.reason], [400, 'Document id must be a string']);
    const empty = await t.request('POST', '/db', { body: { _id: '' } });
    assert.equal(empty.json.reason, 'Document id must not be empty');
  });

  it('the URL id wins over the body _id; ids with dots, slashes (%2F) and + (a plus) work', async () => {
    const r = await t.request('PUT', '/db/url-id', { body: { _id: 'body-id' } });
    assert.equal(r.json.id, 'url-id');
    assert.equal((await t.request('PUT', '/db/file.txt', { body: {} })).json.id, 'file.txt');
    assert.equal((await t.request('PUT', '/db/a%2Fb', { body: {} })).json.id, 'a/b');
    assert.equal((await t.request('GET', '/db/a%2fb')).json._id, 'a/b');
    assert.equal((await t.request('PUT', '/db/a+plus', { body: {} })).json.id, 'a+plus');
    assert.equal((await t.request('GET', '/db/a%20space')).status, 404);
    assert.equal((await t.request('GET', '/db/a%2Bplus')).json._id, 'a+plus');
  });

  it('Location escapes the id as CouchDB does', async () => {
    const r = await t.request('PUT', `/db/${encodeURIComponent("it's(x)*~:y")}`, { body: {} });
    assert.equal(r.headers.get('location'), `${t.url}/db/it%27s%28x%29%2A%7E:y`);
  });

  it('special members: unknown _x is doc_validation, _conflicts etc. are dropped', async () => {
    const bad = await t.request('PUT', '/db/special', { body: { _x: 1 } });
    assert.deepEqual(
      [bad.status, bad.json],
      [400, { error: 'doc_validation', reason: 'Bad special document member: _x' }],
    );
    const badDeleted = await t.request('PUT', '/db/special', { body: { _deleted: 'yes' } });
    assert.equal(badDeleted.status, 400);
    const ok = await t.request('PUT', '/db/special', { body: { _conflicts: [], _local_seq: 3, nested: { _x: 1 } } });
    assert.equal(ok.status, 201);
    assert.deepEqual((await t.request('GET', '/db/special')).json.nested, { _x: 1 });
    assert.equal((await t.request('GET', '/db/special')).json._conflicts, undefined);
  });

  it('design documents are stored like documents, validated on write, and %2F redirects', async () => {
    const r = await t.request('PUT', '/db/_design/app', {
      body: { views: { v: { map: 'function(doc){emit(doc._id)}' } } },
    });
    assert.equal(r.status, 201);
    assert.equal(r.json.id, '_design/app');
    assert.equal(r.headers.get('location'), `${t.url}/db/_design%2Fapp`);
    assert.equal((await t.request('GET', '/db/_design/app')).json._id, '_design/app');
    const redirect = await t.request('GET', '/db/_design%2Fapp');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/db/_design/app');
    const badMap = await t.request('PUT', '/db/_design/bad', { body: { views: { v: { map: 1 } } } });
    assert.deepEqual([badMap.status, badMap.json.error], [400, 'invalid_design_doc']);
    const badReduce = await t.request('PUT', '/db/_design/bad', {
      body: { views: { v: { map: 'x', reduce: '_nope' } } },
    });
    assert.deepEqual([badReduce.status, badReduce.json.reason], [400, '`_nope` is not a supported reduce function.']);
  });

  it('conflicts: new_edits=false writes branches; the winner follows the rule; ?conflicts lists losers', async () => {
    await t.request('PUT', '/db/c', { body: { _rev: '1-aaa', v: 'a' }, headers: {} }).catch(() => {});
    const a = await t.request('PUT', '/db/c?new_edits=false', { body: { _rev: '1-aaa', v: 'a' } });
    assert.equal(a.status, 201);
    const b = await t.request('PUT', '/db/c?new_edits=false', { body: { _rev: '1-bbb', v: 'b' } });
    assert.equal(b.status, 201);
    const r = await t.request('GET', '/db/c?conflicts=true');
    assert.equal(r.json._rev, '1-bbb');
    assert.deepEqual(r.json._conflicts, ['1-aaa']);
    assert.equal(r.headers.get('etag'), null);
    const all = await t.request('GET', '/db/c?open_revs=all', JSON_ACCEPT);
    assert.deepEqual(
      all.json.map((x: any) => x.ok._rev),
      ['1-aaa', '1-bbb'],
    );
    const some = await t.request('GET', `/db/c?open_revs=${encodeURIComponent('["1-aaa","1-zzz"]')}`, JSON_ACCEPT);
    assert.deepEqual(some.json, [{ ok: { _id: 'c', _rev: '1-aaa', v: 'a' } }, { missing: '1-zzz' }]);
  });

  it('the winner compares rev ids as bytes (1-zzz beats 1-6e..., loses to 1-8f...)', async () => {
    await t.request('PUT', '/db/w1?new_edits=false', { body: { _rev: '1-6ebc0000000000000000000000000000' } });
    await t.request('PUT', '/db/w1?new_edits=false', { body: { _rev: '1-zzz' } });
    assert.equal((await t.request('GET', '/db/w1')).json._rev, '1-zzz');
    await t.request('PUT', '/db/w2?new_edits=false', { body: { _rev: '1-8ff00000000000000000000000000000' } });
    await t.request('PUT', '/db/w2?new_edits=false', { body: { _rev: '1-zzz' } });
    assert.equal((await t.request('GET', '/db/w2')).json._rev, '1-8ff00000000000000000000000000000');
  });

  it('a live leaf beats a deleted one of higher generation; _deleted_conflicts lists it', async () => {
    await t.request('PUT', '/db/dl?new_edits=false', {
      body: { _revisions: { start: 3, ids: ['ccc', 'bbb', 'aaa'] }, _deleted: true },
    });
    await t.request('PUT', '/db/dl?new_edits=false', {
      body: { _revisions: { start: 2, ids: ['ddd', 'aaa'] }, live: true },
    });
    const r = await t.request('GET', '/db/dl?deleted_conflicts=true');
    assert.equal(r.json._rev, '2-ddd');
    assert.deepEqual(r.json._deleted_conflicts, ['3-ccc']);
  });

  it('revs_info, local_seq, latest and meta', async () => {
    const one = await t.request('PUT', '/db/info', { body: {} });
    const two = await t.request('PUT', '/db/info', { body: { _rev: one.json.rev, n: 2 } });
    const r = await t.request('GET', '/db/info?revs_info=true&local_seq=true');
    assert.deepEqual(r.json._revs_info, [
      { rev: two.json.rev, status: 'available' },
      { rev: one.json.rev, status: 'available' },
    ]);
    assert.equal(typeof r.json._local_seq, 'number');
    assert.equal(r.headers.get('etag'), null);
    const latest = await t.request('GET', `/db/info?rev=${one.json.rev}&latest=true`);
    assert.equal(latest.json._rev, two.json.rev);
    const old = await t.request('GET', `/db/info?rev=${one.json.rev}`);
    assert.equal(old.json._rev, one.json.rev);
    assert.ok(old.headers.get('etag'));
  });

  it('COPY copies to Destination (400 without it; ?rev= in it overwrites)', async () => {
    await t.request('PUT', '/db/src', { body: { copy: 'me' } });
    const noDest = await t.request('COPY', '/db/src');
    assert.equal(noDest.status, 400);
    const r = await t.request('COPY', '/db/src', { headers: { destination: 'dst' } });
    assert.equal(r.status, 201);
    assert.equal((await t.request('GET', '/db/dst')).json.copy, 'me');
    const conflict = await t.request('COPY', '/db/src', { headers: { destination: 'dst' } });
    assert.equal(conflict.status, 409);
    const over = await t.request('COPY', '/db/src', { headers: { destination: `dst?rev=${r.json.rev}` } });
    assert.equal(over.status, 201);
  });

  it('documents POSTed to need a Referer (form uploads: http-form-upload.test.ts)', async () => {
    await t.request('PUT', '/db/withatt', { body: {} });
    const att = await t.request('GET', '/db/withatt/file.txt');
    assert.deepEqual([att.status, att.json.reason], [404, 'Document is missing attachment']);
    const form = await t.request('POST', '/db/withatt', { body: {} });
    assert.deepEqual([form.status, form.json.reason], [400, 'Referer header required.']);
    const patch = await t.request('PATCH', '/db/withatt', { body: {} });
    assert.equal(patch.status, 405);
    assert.equal(patch.headers.get('allow'), 'DELETE,GET,HEAD,POST,PUT,COPY');
  });
});

describe('_local documents', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('0-N revs, overwrite without rev, never in _all_docs or _changes', async () => {
    const one = await t.request('PUT', '/db/_local/check', { body: { seq: 1 } });
    assert.deepEqual([one.status, one.json], [201, { ok: true, id: '_local/check', rev: '0-1' }]);
    const over = await t.request('PUT', '/db/_local/check', { body: { seq: 2 } });
    assert.equal(over.json.rev, '0-1');
    const next = await t.request('PUT', '/db/_local/check', { body: { _rev: '0-77', seq: 3 } });
    assert.equal(next.json.rev, '0-78');
    const got = await t.request('GET', '/db/_local/check');
    assert.deepEqual(got.json, { _id: '_local/check', _rev: '0-78', seq: 3 });
    assert.deepEqual((await t.request('GET', '/db/_local/check?revs=true')).json._revisions, { start: 0, ids: ['78'] });
    assert.equal((await t.request('GET', '/db/_all_docs')).json.total_rows, 0);
    assert.deepEqual((await t.request('GET', '/db/_changes')).json.results, []);
    assert.equal((await t.request('GET', '/db')).json.update_seq, 0);
    const listed = await t.request('GET', '/db/_local_docs');
    assert.deepEqual(listed.json, {
      total_rows: null,
      offset: null,
      rows: [{ id: '_local/check', key: '_local/check', value: { rev: '0-78' } }],
    });
    const del = await t.request('DELETE', '/db/_local/check');
    assert.deepEqual(del.json, { ok: true, id: '_local/check', rev: '0-0' });
    assert.equal((await t.request('GET', '/db/_local/check')).status, 404);
  });
});

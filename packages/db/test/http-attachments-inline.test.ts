/**
 * Attachments inside documents: inline base64 `data`, stubs, revpos, digests and encoding info;
 * the reads (`attachments=true`, `atts_since`, `att_encoding_info`, open_revs, `_bulk_get`,
 * include_docs); `_bulk_docs` and `new_edits=false` (replication) writes; COPY; rev ids.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const md5 = (text: string) => `md5-${createHash('md5').update(text).digest('base64')}`;
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

describe('inline attachments', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('PUT with data: stubs with revpos, digest, length; data ignores the given length/digest/revpos', async () => {
    const r = await t.request('PUT', '/db/a', {
      body: {
        x: 1,
        _attachments: {
          'b.bin': { content_type: 'image/png', data: b64('\u0000png'), length: 99, digest: 'md5-x', revpos: 7 },
          'a.txt': { content_type: 'text/plain', data: 'aGVs\nbG8=' },
          '': { data: '' },
        },
      },
    });
    assert.equal(r.status, 201);
    const doc = await t.request('GET', '/db/a');
    assert.deepEqual(Object.keys(doc.json), ['_id', '_rev', 'x', '_attachments']);
    assert.deepEqual(Object.keys(doc.json._attachments), ['b.bin', 'a.txt', '']);
    assert.deepEqual(doc.json._attachments['b.bin'], {
      content_type: 'image/png',
      revpos: 1,
      digest: md5('\u0000png'),
      length: 4,
      stub: true,
    });
    assert.deepEqual(doc.json._attachments[''].content_type, 'application/octet-stream');
    const info = await t.request('GET', '/db/a?att_encoding_info=true');
    assert.equal(info.json._attachments['a.txt'].encoding, 'gzip');
    assert.equal(info.json._attachments['a.txt'].length, 5);
    assert.equal(info.json._attachments['b.bin'].encoding, undefined);
    const data = await t.request('GET', '/db/a?attachments=true', JSON_ACCEPT);
    assert.deepEqual(data.json._attachments['a.txt'], {
      content_type: 'text/plain',
      revpos: 1,
      digest: info.json._attachments['a.txt'].digest,
      data: b64('hello'),
    });
    assert.equal((await t.request('GET', '/db/a?attachments=yes', JSON_ACCEPT)).json._attachments['a.txt'].stub, true);
  });

  it('stubs keep attachments (revpos and digest too); leaving one out drops it; a bad stub is a 412', async () => {
    const one = await t.request('PUT', '/db/s', {
      body: { _attachments: { a: { data: b64('A') }, b: { data: b64('B') } } },
    });
    const two = await t.request('PUT', '/db/s', {
      body: { _rev: one.json.rev, _attachments: { a: { stub: true, content_type: 'ignored', length: 5 } } },
    });
    assert.equal(two.status, 201);
    const doc = (await t.request('GET', '/db/s')).json;
    assert.deepEqual(Object.keys(doc._attachments), ['a']);
    assert.deepEqual([doc._attachments.a.revpos, doc._attachments.a.content_type], [1, 'application/octet-stream']);
    for (const stub of [{ b: { stub: true } }, { a: { stub: true, revpos: 2 } }]) {
      const bad = await t.request('PUT', '/db/s', { body: { _rev: two.json.rev, _attachments: stub } });
      assert.equal(bad.status, 412);
      assert.equal(bad.json.error, 'missing_stub');
      assert.match(bad.json.reason, /^Invalid attachment stub in s for (a|b)$/);
    }
    const missingDoc = await t.request('PUT', '/db/s-none', {
      body: { _rev: one.json.rev, _attachments: { a: { stub: true } } },
    });
    assert.equal(missingDoc.status, 409); // a rev of a document that does not exist: a conflict first
    const newDoc = await t.request('PUT', '/db/s-new', { body: { _attachments: { a: { stub: true } } } });
    assert.deepEqual(newDoc.json, { error: 'missing_stub', reason: 'Invalid attachment stub in s-new for a' });
    // Re-sending the same data counts as a new write: new revpos, same digest.
    const three = await t.request('PUT', '/db/s', {
      body: { _rev: two.json.rev, _attachments: { a: { data: b64('A') } } },
    });
    const after3 = (await t.request('GET', '/db/s')).json._attachments.a;
    assert.match(three.json.rev, /^3-/);
    assert.deepEqual([after3.revpos, after3.digest], [3, doc._attachments.a.digest]);
    const none = await t.request('PUT', '/db/s', { body: { _rev: three.json.rev } });
    assert.equal((await t.request('GET', `/db/s?rev=${none.json.rev}`)).json._attachments, undefined);
  });

  it('bad inline data is a 400 naming the attachment; a _ name is a 400; nothing is written', async () => {
    for (const data of ['aGVsbG8', 'aGV-bG8=', 12, null, '!!!!']) {
      const r = await t.request('PUT', '/db/bad', { body: { _attachments: { 'x.txt': { data } } } });
      assert.deepEqual([r.status, r.json.reason], [400, 'Invalid attachment data for x.txt'], String(data));
    }
    const noData = await t.request('PUT', '/db/bad', { body: { _attachments: { 'x.txt': { content_type: 'a/b' } } } });
    assert.equal(noData.status, 400);
    const under = await t.request('PUT', '/db/bad', { body: { _attachments: { _x: { data: '' } } } });
    assert.equal(under.json.reason, "Attachment name '_x' starts with prohibited character '_'");
    const follows = await t.request('PUT', '/db/bad', { body: { _attachments: { f: { follows: true, length: 1 } } } });
    assert.equal(follows.status, 400);
    assert.equal((await t.request('GET', '/db/bad')).status, 404);
    // An entry that is not an object is ignored, as CouchDB does.
    const ignored = await t.request('PUT', '/db/ignored', { body: { _attachments: { a: 'string' } } });
    assert.equal(ignored.status, 201);
    assert.equal((await t.request('GET', '/db/ignored')).json._attachments, undefined);
  });

  it('a _local document is written without its _attachments, which are read as any document reads them', async () => {
    const storedDigests = async () => {
      const out: string[] = [];
      for await (const page of (await t.server.couch.db('db')).store.foldAttachments()) {
        for (const info of page) out.push(info.digest);
      }
      return out.sort();
    };
    const before = await storedDigests();
    // Entries CouchDB takes without a look at what only storing would need: a follows without its
    // length, a content_type that is no string, a stub with nothing to keep.
    const attachments = {
      'a.txt': { content_type: 'text/plain', data: b64('local bytes') },
      'f.bin': { follows: true },
      typed: { content_type: 5, data: b64('x') },
      s: { stub: true, revpos: 9 },
    };
    const put = await t.request('PUT', '/db/_local/l', { body: { a: 1, _attachments: attachments } });
    assert.deepEqual([put.status, put.json], [201, { ok: true, id: '_local/l', rev: '0-1' }]);
    assert.deepEqual((await t.request('GET', '/db/_local/l')).json, { _id: '_local/l', _rev: '0-1', a: 1 });
    // `_id` after `_attachments` names it local all the same.
    const post = await t.request('POST', '/db', { body: { _attachments: attachments, _id: '_local/p', b: 2 } });
    assert.equal(post.status, 201);
    assert.deepEqual((await t.request('GET', '/db/_local/p')).json, { _id: '_local/p', _rev: '0-1', b: 2 });
    const bulk = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [{ _attachments: attachments, _id: '_local/b', c: 3 }] },
    });
    assert.deepEqual(bulk.json, [{ ok: true, id: '_local/b', rev: '0-1' }]);
    assert.deepEqual((await t.request('GET', '/db/_local/b')).json, { _id: '_local/b', _rev: '0-1', c: 3 });
    assert.deepEqual(await storedDigests(), before);
    // What CouchDB checks while reading the member still applies (couch_att:from_json, the names).
    const badData = await t.request('PUT', '/db/_local/bad', { body: { _attachments: { x: { data: '!!' } } } });
    assert.deepEqual([badData.status, badData.json.reason], [400, 'Invalid attachment data for x']);
    const badName = await t.request('PUT', '/db/_local/bad', { body: { _attachments: { _x: { stub: true } } } });
    assert.deepEqual(
      [badName.status, badName.json.reason],
      [400, "Attachment name '_x' starts with prohibited character '_'"],
    );
    const notObject = await t.request('PUT', '/db/_local/bad', { body: { _attachments: [] } });
    assert.deepEqual([notObject.status, notObject.json.error], [400, 'doc_validation']);
    assert.equal((await t.request('GET', '/db/_local/bad')).status, 404);
    // Its attachment paths stay a 400.
    const path = await t.request('PUT', '/db/_local/l/a.txt', { body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([path.status, path.json.reason], [400, '_local documents do not accept attachments.']);
  });

  it('_bulk_docs: inline data and stubs per document; one bad attachment fails the whole request', async () => {
    const r = await t.request('POST', '/db/_bulk_docs', {
      body: {
        docs: [
          { _id: 'b1', _attachments: { a: { data: b64('1') } } },
          { _id: 'b2', v: 2 },
        ],
      },
    });
    assert.equal(r.status, 201);
    assert.ok(r.json.every((row: any) => row.ok));
    const bad = await t.request('POST', '/db/_bulk_docs', {
      body: {
        docs: [
          { _id: 'b3', v: 3 },
          { _id: 'b1', _rev: r.json[0].rev, _attachments: { zz: { stub: true } } },
        ],
      },
    });
    assert.deepEqual([bad.status, bad.json.error], [412, 'missing_stub']);
    assert.equal((await t.request('GET', '/db/b3')).status, 404);
    const conflictRow = await t.request('POST', '/db/_bulk_docs', {
      body: { docs: [{ _id: 'b1', _attachments: { a: { data: b64('x') } } }] },
    });
    assert.equal(conflictRow.json[0].error, 'conflict');
    // A stale rev with stubs is a conflict row too (the stubs are not looked at), beside a good row.
    const stale = await t.request('POST', '/db/_bulk_docs', {
      body: {
        docs: [
          { _id: 'b1', _rev: '1-00000000000000000000000000000000', _attachments: { a: { stub: true } } },
          { _id: 'b4', _attachments: { a: { data: b64('4') } } },
        ],
      },
    });
    assert.deepEqual(
      stale.json.map((row: any) => row.error ?? 'ok'),
      ['conflict', 'ok'],
    );
  });

  it('_deleted with stubs keeps the attachments in the tombstone', async () => {
    const one = await t.request('PUT', '/db/tomb', { body: { _attachments: { a: { data: b64('A') } } } });
    const del = await t.request('PUT', '/db/tomb', {
      body: { _rev: one.json.rev, _deleted: true, _attachments: { a: { stub: true } } },
    });
    assert.equal(del.status, 200);
    const tomb = await t.request('GET', `/db/tomb?rev=${del.json.rev}`);
    assert.equal(tomb.json._attachments.a.revpos, 1);
    const bytes = await fetch(`${t.url}/db/tomb/a?rev=${del.json.rev}`, { headers: { authorization: authOf() } });
    assert.equal(await bytes.text(), 'A');
  });

  it('atts_since gives data only for attachments newer than the nearest listed ancestor', async () => {
    const one = await t.request('PUT', '/db/since', { body: { _attachments: { a: { data: b64('A') } } } });
    const two = await t.request('PUT', `/db/since/b?rev=${one.json.rev}`, {
      body: 'B',
      headers: { 'content-type': 'x/y' },
    });
    const three = await t.request('PUT', `/db/since/c?rev=${two.json.rev}`, {
      body: 'C',
      headers: { 'content-type': 'x/y' },
    });
    const since = async (revs: unknown) =>
      (await t.request('GET', `/db/since?atts_since=${encodeURIComponent(JSON.stringify(revs))}`, JSON_ACCEPT)).json;
    const withData = (doc: any) => Object.keys(doc._attachments).filter((name) => 'data' in doc._attachments[name]);
    assert.deepEqual(withData(await since([one.json.rev])).sort(), ['b', 'c']);
    assert.deepEqual(withData(await since([one.json.rev, two.json.rev])), ['c']);
    assert.deepEqual(withData(await since([three.json.rev])), []);
    assert.deepEqual(withData(await since(['9-unknown', '1-abc'])).sort(), ['a', 'b', 'c']);
    assert.deepEqual(withData(await since([])).sort(), ['a', 'b', 'c']);
    const errors = [
      ['notjson', 'invalid UTF-8 JSON'],
      ['"x"', 'Invalid list of revisions'],
      ['["garbage"]', 'Invalid rev format'],
    ];
    for (const [value, reason] of errors) {
      const r = await t.request('GET', `/db/since?atts_since=${encodeURIComponent(value!)}`, JSON_ACCEPT);
      assert.deepEqual([r.status, r.json.reason], [400, reason]);
    }
  });

  it('open_revs and _bulk_get (JSON) carry stubs, or data with attachments=true or atts_since', async () => {
    const one = await t.request('PUT', '/db/or', { body: { _attachments: { a: { data: b64('A') } } } });
    const revs = encodeURIComponent(JSON.stringify([one.json.rev]));
    const stubs = await t.request('GET', `/db/or?open_revs=${revs}`, JSON_ACCEPT);
    assert.equal(stubs.json[0].ok._attachments.a.stub, true);
    const data = await t.request('GET', `/db/or?open_revs=all&attachments=true`, JSON_ACCEPT);
    assert.equal(data.json[0].ok._attachments.a.data, b64('A'));
    const bulk = await t.request('POST', '/db/_bulk_get?revs=true', {
      body: { docs: [{ id: 'or' }, { id: 'or', atts_since: [] }, { id: 'or', atts_since: 'x' }] },
    });
    const [plain, since, bad] = bulk.json.results;
    assert.equal(plain.docs[0].ok._attachments.a.stub, true);
    assert.equal(since.docs[0].ok._attachments.a.data, b64('A'));
    assert.deepEqual(bad.docs[0].error, {
      id: 'or',
      rev: 'x',
      error: 'bad_request',
      reason: 'att_since value must be array of revs.',
    });
    const all = await t.request('POST', '/db/_bulk_get?attachments=true', { body: { docs: [{ id: 'or' }] } });
    assert.equal(all.json.results[0].docs[0].ok._attachments.a.data, b64('A'));
  });

  it('include_docs with attachments=true in _all_docs and _changes; stubs without it', async () => {
    await t.request('PUT', '/db/_design/inc', { body: {} });
    await t.request('PUT', '/db/inc', {
      body: { _attachments: { 'a.txt': { content_type: 'text/plain', data: b64('A') } } },
    });
    const keys = encodeURIComponent('["inc"]');
    const all = await t.request('GET', `/db/_all_docs?include_docs=true&attachments=true&keys=${keys}`);
    assert.equal(all.json.rows[0].doc._attachments['a.txt'].data, b64('A'));
    const posted = await t.request('POST', '/db/_all_docs?include_docs=true&attachments=true&att_encoding_info=true', {
      body: { keys: ['inc'] },
    });
    assert.equal(posted.json.rows[0].doc._attachments['a.txt'].encoding, 'gzip');
    const plain = await t.request('GET', `/db/_all_docs?attachments=true&keys=${keys}`);
    assert.equal(plain.json.rows[0].doc, undefined);
    const stub = await t.request('GET', `/db/_all_docs?include_docs=true&keys=${keys}`);
    assert.equal(stub.json.rows[0].doc._attachments['a.txt'].stub, true);
    const ddocRev = (await t.request('GET', '/db/_design/inc')).json._rev;
    await t.request('PUT', `/db/_design/inc/d.txt?rev=${ddocRev}`, {
      body: 'D',
      headers: { 'content-type': 'x/y' },
    });
    const design = await t.request('GET', '/db/_design_docs?include_docs=true&attachments=true&key="_design/inc"');
    assert.equal(design.json.rows[0].doc._attachments['d.txt'].data, b64('D'));
    const changes = await t.request('POST', '/db/_changes?filter=_doc_ids&include_docs=true&attachments=true', {
      body: { doc_ids: ['inc'] },
    });
    assert.equal(changes.json.results[0].doc._attachments['a.txt'].data, b64('A'));
  });

  it('map functions see the stubs, without encoding info', async () => {
    await t.request('PUT', '/db/mapped', {
      body: { _attachments: { 'a.txt': { content_type: 'text/plain', data: b64('A') } } },
    });
    await t.request('PUT', '/db/_design/maps', {
      body: {
        views: { atts: { map: "function (doc) { if (doc._id === 'mapped') emit(doc._id, doc._attachments); }" } },
      },
    });
    const r = await t.request('GET', '/db/_design/maps/_view/atts');
    const stub = (await t.request('GET', '/db/mapped')).json._attachments;
    assert.deepEqual(r.json.rows, [{ id: 'mapped', key: 'mapped', value: stub }]);
    // The rows' documents with include_docs carry data with attachments=true, as _all_docs does.
    const withData = await t.request('GET', '/db/_design/maps/_view/atts?include_docs=true&attachments=true');
    assert.equal(withData.json.rows[0].doc._attachments['a.txt'].data, b64('A'));
    const info = await t.request('GET', '/db/_design/maps/_view/atts?include_docs=true&att_encoding_info=true');
    assert.equal(info.json.rows[0].doc._attachments['a.txt'].encoding, 'gzip');
    assert.equal(info.json.rows[0].doc._attachments['a.txt'].stub, true);
  });

  it('new_edits=false: inline data keeps its revpos (0 when none); stubs come from the nearest ancestor held', async () => {
    const put = (body: unknown) => t.request('POST', '/db/_bulk_docs', { body: { new_edits: false, docs: [body] } });
    const r1 = await put({
      _id: 'rep',
      _revisions: { start: 2, ids: ['b2', 'a1'] },
      _attachments: { x: { data: b64('X'), revpos: 2 }, y: { data: b64('Y') } },
    });
    assert.deepEqual(r1.json, []);
    const two = (await t.request('GET', '/db/rep?rev=2-b2')).json._attachments;
    assert.deepEqual([two.x.revpos, two.y.revpos], [2, 0]);
    // Rev 4 over an unknown rev 3: the stubs are taken from rev 2.
    const r2 = await put({
      _id: 'rep',
      _revisions: { start: 4, ids: ['d4', 'c3', 'b2'] },
      _attachments: { x: { stub: true, revpos: 2 }, z: { data: b64('Z'), revpos: 4 } },
    });
    assert.deepEqual(r2.json, []);
    const four = (await t.request('GET', '/db/rep')).json;
    assert.equal(four._rev, '4-d4');
    assert.deepEqual(
      Object.entries<any>(four._attachments).map(([n, a]) => [n, a.revpos, a.digest]),
      [
        ['x', 2, md5('X')],
        ['z', 4, md5('Z')],
      ],
    );
    for (const bad of [
      { _id: 'rep', _revisions: { start: 5, ids: ['e5', 'd4'] }, _attachments: { x: { stub: true, revpos: 3 } } },
      { _id: 'rep', _revisions: { start: 5, ids: ['e5', 'd4'] }, _attachments: { nope: { stub: true } } },
      { _id: 'rep-none', _revisions: { start: 2, ids: ['b', 'a'] }, _attachments: { x: { stub: true } } },
    ]) {
      const r = await put(bad);
      assert.deepEqual([r.status, r.json.error], [412, 'missing_stub']);
    }
    // A conflicting branch keeps its own attachments.
    await put({ _id: 'rep', _revisions: { start: 2, ids: ['zz', 'a1'] }, _attachments: { w: { data: b64('W') } } });
    const leaf = await t.request('GET', '/db/rep/x?rev=2-zz');
    assert.equal(leaf.json.reason, 'Document is missing attachment');
    const w = await fetch(`${t.url}/db/rep/w?rev=2-zz`, { headers: { authorization: authOf() } });
    assert.equal(await w.text(), 'W');
  });

  it('COPY keeps the attachments with their revpos and reproduces revision 1 exactly', async () => {
    const one = await t.request('PUT', '/db/orig', { body: { n: 1, _attachments: { a: { data: b64('A') } } } });
    const two = await t.request('PUT', `/db/orig/b?rev=${one.json.rev}`, {
      body: 'B',
      headers: { 'content-type': 'x/y' },
    });
    const copy = await t.request('COPY', '/db/orig', { headers: { destination: 'copy' } });
    assert.equal(copy.status, 201);
    const doc = (await t.request('GET', '/db/copy')).json;
    assert.deepEqual([doc._attachments.a.revpos, doc._attachments.b.revpos, doc.n], [1, 2, 1]);
    const first = await t.request('COPY', `/db/orig?rev=${one.json.rev}`, { headers: { destination: 'copy1' } });
    assert.equal(first.json.rev, one.json.rev);
    assert.notEqual(two.json.rev, copy.json.rev);
  });

  it('rev ids hash the attachments: the same edit gives the same rev; other content or type another', async () => {
    const body = (data: string, type = 'application/octet-stream') => ({
      v: 1,
      _attachments: { a: { content_type: type, data: b64(data) }, b: { data: b64('b') } },
    });
    const a = await t.request('PUT', '/db/rev-a', { body: body('same') });
    const b = await t.request('PUT', '/db/rev-b', { body: body('same') });
    const c = await t.request('PUT', '/db/rev-c', { body: body('other') });
    const d = await t.request('PUT', '/db/rev-d', { body: body('same', 'image/png') });
    const plain = await t.request('PUT', '/db/rev-e', { body: { v: 1 } });
    assert.equal(a.json.rev, b.json.rev);
    assert.equal(new Set([a.json.rev, c.json.rev, d.json.rev, plain.json.rev]).size, 4);
  });
});

function authOf(): string {
  return `Basic ${Buffer.from('admin:secret').toString('base64')}`;
}

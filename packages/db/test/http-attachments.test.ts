/**
 * Standalone attachments, `PUT/GET/HEAD/DELETE /{db}/{doc}/{name}`, against CouchDB 3.5's
 * recorded behaviour: names, revs and their 409s, content types, ETags and 304, gzip storage and
 * Accept-Encoding, gzip uploads, and the errors.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { raw } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('base64');

describe('standalone attachments', () => {
  let t: TestServer;
  const put = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    raw(t.url, 'PUT', path, { body, headers });
  const get = (path: string, headers: Record<string, string> = {}) => raw(t.url, 'GET', path, { headers });
  before(async () => {
    t = await startTestServer({ maxAttachmentBytes: 1024 * 1024 });
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('PUT creates the document; GET gives the bytes with CouchDB headers', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const r = await put('/db/doc1/blob.bin', bytes, { 'content-type': 'image/png' });
    assert.equal(r.status, 201);
    assert.match(r.json.rev, /^1-[0-9a-f]{32}$/);
    assert.equal(r.headers.location, `${t.url}/db/doc1/blob.bin`);
    assert.equal(r.headers.etag, undefined);
    const g = await get('/db/doc1/blob.bin');
    assert.equal(g.status, 200);
    assert.deepEqual(g.body, bytes);
    assert.equal(g.headers['content-type'], 'image/png');
    assert.equal(g.headers.etag, `"${md5(bytes)}"`);
    assert.equal(g.headers['cache-control'], 'must-revalidate');
    assert.equal(g.headers['content-security-policy'], 'sandbox');
    assert.equal(g.headers['accept-ranges'], 'bytes');
    assert.equal(g.headers['content-length'], '5');
    const head = await raw(t.url, 'HEAD', '/db/doc1/blob.bin');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], '5');
    assert.equal(head.headers.etag, g.headers.etag);
    const doc = await t.request('GET', '/db/doc1');
    assert.deepEqual(doc.json._attachments, {
      'blob.bin': { content_type: 'image/png', revpos: 1, digest: `md5-${md5(bytes)}`, length: 5, stub: true },
    });
  });

  it('Content-Type is kept verbatim, application/octet-stream without one; a 0-byte body is an attachment', async () => {
    const a = await put('/db/types/x', 'x', { 'content-type': 'Text/HTML; Charset=UTF-8' });
    const b = await put(`/db/types/none?rev=${a.json.rev}`, Buffer.alloc(0));
    assert.equal(b.status, 201);
    const doc = await t.request('GET', '/db/types?att_encoding_info=true');
    assert.equal(doc.json._attachments.x.content_type, 'Text/HTML; Charset=UTF-8');
    assert.equal(doc.json._attachments.x.encoding, 'gzip');
    assert.deepEqual(doc.json._attachments.none, {
      content_type: 'application/octet-stream',
      revpos: 2,
      digest: 'md5-1B2M2Y8AsgTpgAmY7PhCfg==',
      length: 0,
      stub: true,
    });
    // The attachment written last comes first; the others keep their revpos.
    assert.deepEqual(Object.keys(doc.json._attachments), ['none', 'x']);
    assert.equal(doc.json._attachments.x.revpos, 1);
  });

  it('names with /, spaces, +, unicode; a raw + is a plus; design documents; _local is a 400', async () => {
    const r = await put('/db/names/dir/sub%20file+x.txt', 'a', { 'content-type': 'text/plain' });
    assert.equal(r.status, 201);
    assert.equal(r.headers.location, `${t.url}/db/names/dir%2Fsub%20file%2Bx.txt`);
    assert.equal((await get('/db/names/dir%2Fsub%20file%2Bx.txt')).body.toString(), 'a');
    assert.equal((await get('/db/names/dir/sub%20file%20x.txt')).status, 404);
    const uni = await put(`/db/names/${encodeURIComponent('café ☕.txt')}?rev=${r.json.rev}`, 'b');
    assert.equal(uni.status, 201);
    assert.equal((await get(`/db/names/${encodeURIComponent('café ☕.txt')}`)).body.toString(), 'b');
    const names = Object.keys((await t.request('GET', '/db/names')).json._attachments);
    assert.deepEqual(names.sort(), ['café ☕.txt', 'dir/sub file+x.txt']);
    const ddoc = await put('/db/_design/app/logo.txt', 'logo');
    assert.equal(ddoc.status, 201);
    assert.equal(ddoc.headers.location, `${t.url}/db/_design%2Fapp/logo.txt`);
    assert.equal((await get('/db/_design/app/logo.txt')).body.toString(), 'logo');
    const local = await get('/db/_local/x/a.txt');
    assert.deepEqual([local.status, local.json.reason], [400, '_local documents do not accept attachments.']);
  });

  it('a name that is not UTF-8 is a 400 saying so, for every method', async () => {
    const notUtf8 = { error: 'bad_request', reason: 'Attachment name is not UTF-8 encoded' };
    const doc = await put('/db/utf8/a.txt', 'a');
    for (const name of ['%FF%FE', '%C3%28', 'dir/%FF', 'ok%E9.txt']) {
      for (const path of [`/db/utf8/${name}`, `/db/_design/utf8/${name}`, `/db/nodoc/${name}`]) {
        const written = await put(`${path}?rev=${doc.json.rev}`, 'x');
        assert.deepEqual([written.status, written.json], [400, notUtf8], `PUT ${path}`);
        const read = await get(path);
        assert.deepEqual([read.status, read.json], [400, notUtf8], `GET ${path}`);
        assert.equal((await raw(t.url, 'HEAD', path)).status, 400, `HEAD ${path}`);
        const deleted = await raw(t.url, 'DELETE', `${path}?rev=${doc.json.rev}`);
        assert.deepEqual([deleted.status, deleted.json], [400, notUtf8], `DELETE ${path}`);
      }
    }
    assert.equal((await t.request('GET', '/db/utf8')).json._rev, doc.json.rev);
    // Elsewhere in the path it is the path's fault; under _local/ no attachment path is valid.
    const badId = await get('/db/%FF/a.txt');
    assert.deepEqual([badId.status, badId.json.error], [400, 'bad_request']);
    assert.notEqual(badId.json.reason, notUtf8.reason);
    const local = await get('/db/_local/x/%FF');
    assert.deepEqual([local.status, local.json.reason], [400, '_local documents do not accept attachments.']);
  });

  it('revs: ?rev= or If-Match; 409 conflict, 409 missing_rev, 400 for a bad or disagreeing rev', async () => {
    const one = await put('/db/revs/a', '1');
    const noRev = await put('/db/revs/b', '2');
    assert.deepEqual([noRev.status, noRev.json.error], [409, 'conflict']);
    const two = await put('/db/revs/b', '2', { 'if-match': `"${one.json.rev}"` });
    assert.equal(two.status, 201);
    const stale = await put(`/db/revs/c?rev=${one.json.rev}`, '3');
    assert.deepEqual([stale.status, stale.json.error], [409, 'conflict']);
    const unknown = await put('/db/revs/c?rev=1-00000000000000000000000000000000', '3');
    assert.deepEqual([unknown.status, unknown.json], [409, { error: 'not_found', reason: 'missing_rev' }]);
    const garbage = await put('/db/revs/c?rev=garbage', '3');
    assert.deepEqual([garbage.status, garbage.json.reason], [400, 'Invalid rev format']);
    const differ = await put(`/db/revs/c?rev=${two.json.rev}`, '3', { 'if-match': `"${one.json.rev}"` });
    assert.deepEqual([differ.status, differ.json.reason], [400, 'Document rev and etag have different values']);
    const other = await raw(t.url, 'POST', '/db/revs/a');
    assert.deepEqual([other.status, other.headers.allow], [405, 'DELETE,GET,HEAD,PUT']);
  });

  it('the new revision keeps the document body and the other attachments', async () => {
    const doc = await t.request('PUT', '/db/keep', { body: { title: 'kept' } });
    const r = await put(`/db/keep/a.txt?rev=${doc.json.rev}`, 'aaa', { 'content-type': 'text/plain' });
    const got = await t.request('GET', '/db/keep');
    assert.equal(got.json.title, 'kept');
    assert.equal(got.json._rev, r.json.rev);
    assert.equal(got.json._attachments['a.txt'].revpos, 2);
  });

  it('GET errors: missing doc, deleted doc, missing attachment, unknown rev, bad rev', async () => {
    assert.equal((await get('/db/nodoc/a')).json.reason, 'missing');
    const a = await put('/db/del/a.txt', 'x');
    assert.equal((await get('/db/del/b.txt')).json.reason, 'Document is missing attachment');
    const d = await t.request('DELETE', `/db/del?rev=${a.json.rev}`);
    assert.deepEqual([(await get('/db/del/a.txt')).status, (await get('/db/del/a.txt')).json.reason], [404, 'deleted']);
    // An earlier revision still has it; the tombstone does not.
    assert.equal((await get(`/db/del/a.txt?rev=${a.json.rev}`)).body.toString(), 'x');
    assert.equal((await get(`/db/del/a.txt?rev=${d.json.rev}`)).json.reason, 'Document is missing attachment');
    assert.equal((await get('/db/del/a.txt?rev=1-00000000000000000000000000000000')).json.reason, 'missing');
    assert.equal((await get('/db/del/a.txt?rev=garbage')).status, 400);
    // Without a rev a deleted document is written again over its tombstone, with only the new attachment.
    const again = await put('/db/del/c.txt', 'c');
    assert.match(again.json.rev, /^3-/);
    const doc = await t.request('GET', '/db/del');
    assert.deepEqual(Object.keys(doc.json._attachments), ['c.txt']);
    assert.equal(doc.json._attachments['c.txt'].revpos, 3);
  });

  it('DELETE needs the rev; earlier revisions keep the content; the last one leaves no _attachments', async () => {
    const one = await put('/db/rm/a', 'A');
    const two = await put(`/db/rm/b?rev=${one.json.rev}`, 'B');
    assert.deepEqual([(await raw(t.url, 'DELETE', '/db/rm/a')).status], [409]);
    assert.equal((await raw(t.url, 'DELETE', '/db/rm/zz')).json.reason, 'Document is missing attachment');
    assert.equal((await raw(t.url, 'DELETE', `/db/rm/zz?rev=${two.json.rev}`)).status, 404);
    assert.deepEqual((await raw(t.url, 'DELETE', '/db/rm/a?rev=1-00000000000000000000000000000000')).json, {
      error: 'not_found',
      reason: 'missing_rev',
    });
    assert.equal((await raw(t.url, 'DELETE', `/db/rm/a?rev=${one.json.rev}`)).status, 409);
    const three = await raw(t.url, 'DELETE', `/db/rm/a?rev=${two.json.rev}`);
    assert.equal(three.status, 200);
    assert.deepEqual(Object.keys(three.json), ['ok', 'id', 'rev']);
    const doc = await t.request('GET', '/db/rm');
    assert.deepEqual(Object.keys(doc.json._attachments), ['b']);
    assert.equal(doc.json._attachments.b.revpos, 2);
    assert.equal((await get(`/db/rm/a?rev=${two.json.rev}`)).body.toString(), 'A');
    const four = await raw(t.url, 'DELETE', '/db/rm/b', { headers: { 'if-match': `"${three.json.rev}"` } });
    assert.equal(four.status, 200);
    assert.equal((await t.request('GET', '/db/rm')).json._attachments, undefined);
  });

  it('ETag from the digest, kept across document updates; If-None-Match gives 304', async () => {
    const a = await put('/db/etag/a.bin', 'content');
    const etag = (await get('/db/etag/a.bin')).headers.etag!;
    const doc = await t.request('GET', '/db/etag');
    await t.request('PUT', '/db/etag', { body: { ...doc.json, more: 1 } });
    assert.equal((await get('/db/etag/a.bin')).headers.etag, etag);
    for (const match of [etag, `W/${etag}`, `"xyz", ${etag}`]) {
      const r = await get('/db/etag/a.bin', { 'if-none-match': match });
      assert.equal(r.status, 304, match);
      assert.equal(r.headers.etag, etag);
      assert.equal(r.body.length, 0);
    }
    for (const other of [etag.slice(1, -1), '*', `"${a.json.rev}"`]) {
      assert.equal((await get('/db/etag/a.bin', { 'if-none-match': other })).status, 200, other);
    }
  });

  it('compressible types are stored gzipped: served gzipped when accepted, decoded otherwise', async () => {
    const text = 'hello hello hello hello hello '.repeat(100);
    await put('/db/gz/t.txt', text, { 'content-type': 'text/plain;charset=utf-8' });
    const stub = (await t.request('GET', '/db/gz?att_encoding_info=true')).json._attachments['t.txt'];
    assert.equal(stub.encoding, 'gzip');
    assert.equal(stub.length, text.length);
    assert.ok(stub.encoded_length < text.length);
    const gz = await get('/db/gz/t.txt', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers['accept-ranges'], 'none');
    assert.equal(Number(gz.headers['content-length']), stub.encoded_length);
    assert.equal(stub.digest, `md5-${md5(gz.body)}`);
    assert.equal(gunzipSync(gz.body).toString(), text);
    for (const accept of [undefined, 'identity', 'deflate', 'gzip;q=0', 'x-gzip']) {
      const plain = await get('/db/gz/t.txt', accept === undefined ? {} : { 'accept-encoding': accept });
      assert.equal(plain.headers['content-encoding'], undefined, accept);
      assert.equal(plain.body.toString(), text, accept);
      assert.equal(Number(plain.headers['content-length']), text.length);
    }
    for (const refused of ['identity;q=0', '*;q=0', 'gzip;q=0, identity;q=0']) {
      assert.equal((await get('/db/gz/t.txt', { 'accept-encoding': refused })).status, 406, refused);
    }
    // A 0-byte text attachment is a 20-byte gzip stream with CouchDB's digest.
    await put(`/db/gz0/e.txt`, '', { 'content-type': 'text/plain' });
    const empty = (await t.request('GET', '/db/gz0?att_encoding_info=true')).json._attachments['e.txt'];
    assert.deepEqual([empty.digest, empty.length, empty.encoded_length], ['md5-cCkGbCesb17xjWYNV0GXmg==', 0, 20]);
    // Identity types are never compressed, whatever the client accepts.
    for (const type of ['application/octet-stream', 'image/svg+xml', 'application/vnd.api+json']) {
      await put(`/db/gz1/${encodeURIComponent(type)}`, text, { 'content-type': type });
    }
    const atts = (await t.request('GET', '/db/gz1?att_encoding_info=true')).json._attachments;
    for (const att of Object.values<any>(atts)) assert.equal(att.encoding, undefined);
  });

  it('Content-Encoding: gzip uploads are stored as sent; other encodings are a 415', async () => {
    const gz = gzipSync('packed text');
    const r = await put('/db/up/p.png', gz, { 'content-type': 'image/png', 'content-encoding': ' GZIP ' });
    assert.equal(r.status, 201);
    const stub = (await t.request('GET', '/db/up?att_encoding_info=true')).json._attachments['p.png'];
    assert.deepEqual(
      [stub.digest, stub.length, stub.encoding, stub.encoded_length],
      [`md5-${md5(gz)}`, gz.length, 'gzip', gz.length],
    );
    const asSent = await get('/db/up/p.png', { 'accept-encoding': 'gzip' });
    assert.deepEqual(asSent.body, gz);
    const decoded = await get('/db/up/p.png');
    assert.equal(decoded.body.toString(), 'packed text');
    assert.equal(decoded.headers['content-length'], undefined); // identity length unknown: chunked
    const bad = await put(`/db/up/q?rev=${r.json.rev}`, 'x', { 'content-encoding': 'br' });
    assert.deepEqual([bad.status, bad.json.error], [415, 'bad_content_type']);
  });

  it('names starting with _ are refused on PUT and simply missing on GET; over the size limit is a 413', async () => {
    const under = await put('/db/bad/_x', 'x');
    assert.deepEqual(
      [under.status, under.json.reason],
      [400, "Attachment name '_x' starts with prohibited character '_'"],
    );
    assert.equal((await put('/db/bad/%5Fy', 'x')).status, 400);
    assert.equal((await get('/db/bad/_x')).status, 404);
    const big = await put('/db/bad/big', Buffer.alloc(1024 * 1024 + 1));
    assert.deepEqual([big.status, big.json], [413, { error: 'attachment_too_large', reason: 'big' }]);
    assert.equal((await get('/db/bad')).json.reason, 'missing');
    // Streamed without a Content-Length, the limit is checked as the bytes come.
    const chunked = await raw(t.url, 'PUT', '/db/bad/big2', {
      body: (async function* () {
        for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024);
      })(),
    });
    assert.equal(chunked.status, 413);
    assert.equal((await get('/db/bad')).json.reason, 'missing');
  });

  it('chunked uploads stream in, whatever their size', async () => {
    const pieces = Array.from({ length: 10 }, (_, i) => Buffer.alloc(70_000, i));
    const r = await raw(t.url, 'PUT', '/db/chunked/x.bin', {
      body: (async function* () {
        yield* pieces;
      })(),
    });
    assert.equal(r.status, 201);
    assert.deepEqual((await get('/db/chunked/x.bin')).body, Buffer.concat(pieces));
  });
});

/**
 * View response headers (spec b.7 and g: Divan follows CouchDB 1.x for ETag + 304 and text/plain negotiation): Cache-Control must-revalidate,
 * Content-Type by Accept, Transfer-Encoding chunked, a quoted ETag that is stable for the same
 * answer and changes when the answer can (rows of this view changed, other params or keys,
 * include_docs and any write) and not otherwise (a write this view does not see),
 * If-None-Match → 304 with an empty body, HEAD.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { putDoc, rawRequest, seed, viewClient, type ViewClient } from './support/views-http.js';

const DB = 'hdrs';
const DDOC = {
  views: {
    as: { map: "function (doc) { if (doc.type === 'a') emit(doc.n, null); }" },
    bs: { map: "function (doc) { if (doc.type === 'b') emit(doc.n, null); }" },
    count: { map: "function (doc) { if (doc.type === 'a') emit(doc.n, 1); }", reduce: '_count' },
  },
};

describe('views over HTTP: headers and ETag', () => {
  let t: TestServer;
  let v: ViewClient;
  const etag = async (view: string, params?: Record<string, unknown>) => {
    const r = await v.get(view, params);
    assert.equal(r.status, 200, r.text);
    return r.headers.get('etag');
  };
  before(async () => {
    t = await startTestServer();
    await seed(
      t,
      DB,
      [
        { _id: 'a1', type: 'a', n: 1 },
        { _id: 'a2', type: 'a', n: 2 },
        { _id: 'b1', type: 'b', n: 1 },
      ],
      { h: DDOC },
    );
    v = viewClient(t, DB, 'h');
  });
  after(() => t.close());

  it('Cache-Control: must-revalidate on map, reduce, empty and error answers', async () => {
    for (const r of [
      await v.get('as'),
      await v.get('count'),
      await v.get('as', { key: 99 }),
      await v.get('as', { limit: 'x' }),
      await v.get('missing'),
    ]) {
      assert.equal(r.headers.get('cache-control'), 'must-revalidate', `${r.status} ${r.text}`);
    }
  });

  it('Content-Type: text/plain; charset=utf-8 when Accept asks for it and takes no JSON, else JSON; same body', async () => {
    const json = await v.get('as', {}, { headers: { accept: 'application/json' } });
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    for (const accept of ['text/html, application/json', 'text/plain, */*', '*/*', 'text/html', 'image/png']) {
      const listed = await v.get('as', {}, { headers: { accept } });
      assert.match(listed.headers.get('content-type') ?? '', /^application\/json/, accept);
    }
    for (const accept of ['text/plain', 'text/plain;q=0.9, text/html']) {
      const plain = await v.get('as', {}, { headers: { accept } });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get('content-type'), 'text/plain; charset=utf-8', accept);
      assert.equal(plain.text, json.text, 'the body does not depend on the content type');
    }
    const reduce = await v.get('count', {}, { headers: { accept: 'text/plain' } });
    assert.equal(reduce.headers.get('content-type'), 'text/plain; charset=utf-8');
    const post = await v.post('as', { keys: [1] }, {}, { headers: { accept: 'text/plain' } });
    assert.equal(post.headers.get('content-type'), 'text/plain; charset=utf-8');
  });

  it('Transfer-Encoding: chunked (no Content-Length) for map, reduce and empty answers; a Date header', async () => {
    for (const path of [v.path('as'), v.path('count'), v.path('as', { key: 99 }), v.path('count', { group: true })]) {
      const r = await rawRequest(t.url, 'GET', path, { accept: 'application/json' });
      assert.equal(r.status, 200, r.body);
      assert.equal(r.headers['transfer-encoding'], 'chunked', `${path}: ${JSON.stringify(r.headers)}`);
      assert.equal(r.headers['content-length'], undefined, path);
      assert.ok(r.headers.date, 'Date header');
    }
  });

  it('ETag: a quoted token, the same for the same answer; different for other params or keys', async () => {
    const e = await etag('as');
    assert.match(e ?? '', /^"[^"]+"$/);
    assert.equal(await etag('as'), e);
    assert.notEqual(await etag('as', { limit: 1 }), e);
    assert.notEqual(await etag('as', { descending: true }), e);
    assert.notEqual(await etag('bs'), e, 'another view');
    const k1 = (await v.post('as', { keys: [1] })).headers.get('etag');
    const k2 = (await v.post('as', { keys: [2] })).headers.get('etag');
    assert.ok(k1 && k2);
    assert.notEqual(k1, k2, 'different keys bodies');
    assert.equal((await v.post('as', { keys: [1] })).headers.get('etag'), k1);
    assert.match((await v.get('count')).headers.get('etag') ?? '', /^"[^"]+"$/, 'reduce answers have one too');
  });

  it('If-None-Match with the current ETag: 304, empty body; another ETag: 200', async () => {
    const e = (await etag('as'))!;
    const cached = await v.get('as', {}, { headers: { 'if-none-match': e } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    assert.equal(cached.headers.get('etag'), e);
    const other = await v.get('as', {}, { headers: { 'if-none-match': '"something-else"' } });
    assert.equal(other.status, 200);
    assert.equal(other.json.rows.length, 2);
    const k = (await v.post('as', { keys: [2] })).headers.get('etag')!;
    const postCached = await v.post('as', { keys: [2] }, {}, { headers: { 'if-none-match': k } });
    assert.equal(postCached.status, 304);
    assert.equal(postCached.text, '');
    const reduceTag = (await v.get('count')).headers.get('etag')!;
    assert.equal((await v.get('count', {}, { headers: { 'if-none-match': reduceTag } })).status, 304);
  });

  it('If-None-Match with a list of ETags including the current one: 304 (RFC 9110 §13.1.2; 1.x couch_httpd:etag_match)', async () => {
    const e = (await etag('as'))!;
    const listed = await v.get('as', {}, { headers: { 'if-none-match': `"older-one", ${e}` } });
    assert.equal(listed.status, 304, listed.text);
    assert.equal(listed.text, '');
  });

  it("a write that changes the view's rows changes its ETag; the old ETag then gets a 200", async () => {
    const e = (await etag('as'))!;
    const r = (await etag('count'))!;
    await putDoc(t, DB, { _id: 'a3', type: 'a', n: 3 });
    assert.notEqual(await etag('as'), e);
    assert.notEqual(await etag('count'), r);
    const stale = await v.get('as', {}, { headers: { 'if-none-match': e } });
    assert.equal(stale.status, 200);
    assert.equal(stale.json.rows.length, 3);
  });

  it("a write this view does not see keeps its ETag (b.7: the view's own last-changed seq)", async () => {
    const e = await etag('as');
    const r = await etag('count');
    await putDoc(t, DB, { _id: 'b2', type: 'b', n: 2 });
    await putDoc(t, DB, { _id: 'unrelated', type: 'c' });
    assert.equal(await etag('as'), e, 'view as: rows unchanged, ETag unchanged');
    assert.equal(await etag('count'), r, 'view count: unchanged too');
    const cached = await v.get('as', {}, { headers: { 'if-none-match': e! } });
    assert.equal(cached.status, 304);
  });

  it('stale=ok: writes do not change the ETag of a map answer (the answer cannot change)', async () => {
    await etag('as');
    const e = await etag('as', { stale: 'ok' });
    await putDoc(t, DB, { _id: 'a4', type: 'a', n: 4 });
    assert.equal(await etag('as', { stale: 'ok' }), e);
  });

  it('include_docs: any write changes the ETag, even for a stale read (the docs can change)', async () => {
    await etag('as');
    const fresh = await etag('as', { include_docs: true });
    await putDoc(t, DB, { _id: 'a1', type: 'a', n: 1, note: 'edited, same row' });
    assert.notEqual(await etag('as', { include_docs: true }), fresh, 'fresh read');
    const before = await v.get('as', { include_docs: true, stale: 'ok' });
    await putDoc(t, DB, { _id: 'a1', type: 'a', n: 1, note: 'edited again, same row' });
    const after = await v.get('as', { include_docs: true, stale: 'ok' });
    assert.notDeepEqual(after.json.rows[0].doc, before.json.rows[0].doc, 'fixture: the included doc changed');
    assert.notEqual(after.headers.get('etag'), before.headers.get('etag'), 'stale read with include_docs');
    const cached = await v.get(
      'as',
      { include_docs: true, stale: 'ok' },
      { headers: { 'if-none-match': before.headers.get('etag')! } },
    );
    assert.equal(cached.status, 200, 'a 304 here would hand the client an outdated doc');
  });

  it('HEAD: 200 with the GET headers and no body', async () => {
    const get = await v.get('as', {}, { headers: { accept: 'application/json' } });
    const head = await t.request('HEAD', v.path('as'), { headers: { accept: 'application/json' } });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('etag'), get.headers.get('etag'));
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
    assert.equal(head.headers.get('cache-control'), 'must-revalidate');
  });
});

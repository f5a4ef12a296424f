/**
 * HTML form posts to a document path (CouchDB's form upload): `multipart/form-data` with files in
 * `_attachments` adds them to the revision `_rev` names (or the document `_doc` holds), 201;
 * any other form is a 415; the Referer must name this host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, startTestServer, type TestServer } from './support/server.js';

describe('form uploads', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/forms');
  });
  after(() => t.close());

  const post = async (path: string, body: FormData | string, headers: Record<string, string> = {}) => {
    const host = new URL(t.url).host;
    const response = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { authorization: AUTH, referer: `http://${host}/_utils/`, ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: text === '' ? undefined : JSON.parse(text) };
  };

  it('adds the files of _attachments to the revision _rev names: one new revision, 201', async () => {
    const created = await t.request('PUT', '/forms/doc', { body: { title: 'x' } });
    const form = new FormData();
    form.append('_rev', created.json.rev);
    form.append('_attachments', new Blob(['hello form'], { type: 'text/plain' }), 'hello.txt');
    form.append('_attachments', new Blob([Buffer.from([1, 2, 3])], { type: 'application/octet-stream' }), 'b.bin');
    const r = await post('/forms/doc', form);
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.json.ok, true);
    assert.equal(r.json.id, 'doc');
    assert.match(r.json.rev, /^2-/);
    assert.equal(r.headers.get('etag'), `"${r.json.rev}"`);
    const doc = (await t.request('GET', '/forms/doc')).json;
    assert.equal(doc.title, 'x');
    assert.deepEqual(Object.keys(doc._attachments).sort(), ['b.bin', 'hello.txt']);
    assert.equal(doc._attachments['hello.txt'].content_type, 'text/plain');
    assert.equal((await t.request('GET', '/forms/doc/hello.txt')).text, 'hello form');

    // A second upload replaces the file of that name and keeps the others.
    const again = new FormData();
    again.append('_rev', r.json.rev);
    again.append('_attachments', new Blob(['new text'], { type: 'text/plain' }), 'hello.txt');
    const second = await post('/forms/doc', again);
    assert.equal(second.status, 201);
    const after = (await t.request('GET', '/forms/doc')).json;
    assert.deepEqual(Object.keys(after._attachments).sort(), ['b.bin', 'hello.txt']);
    assert.equal((await t.request('GET', '/forms/doc/hello.txt')).text, 'new text');
    assert.equal((await t.request('GET', '/forms/doc/b.bin')).text, '\u0001\u0002\u0003');
  });

  it('a _doc field gives the document itself (a new one too)', async () => {
    const form = new FormData();
    form.append('_doc', JSON.stringify({ kind: 'from-form' }));
    form.append('_attachments', new Blob(['a'], { type: 'text/plain' }), 'a.txt');
    const r = await post('/forms/fresh', form);
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const doc = (await t.request('GET', '/forms/fresh')).json;
    assert.equal(doc.kind, 'from-form');
    assert.deepEqual(Object.keys(doc._attachments), ['a.txt']);
  });

  it('other forms are 415; the Referer is required and must name this host; a stale _rev conflicts', async () => {
    const urlencoded = await post('/forms/doc', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.deepEqual(
      [urlencoded.status, urlencoded.json],
      [415, { error: 'bad_content_type', reason: 'Content-Type must be multipart/form-data' }],
    );
    const noReferer = await t.request('POST', '/forms/doc', { body: 'a=b', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([noReferer.status, noReferer.json.reason], [400, 'Referer header required.']);
    const elsewhere = await post('/forms/doc', 'a=b', { referer: 'http://evil.example/page' });
    assert.deepEqual([elsewhere.status, elsewhere.json.reason], [400, 'Referer header must match host.']);
    const stale = new FormData();
    stale.append('_rev', '1-00000000000000000000000000000000');
    stale.append('_attachments', new Blob(['x']), 'x.txt');
    assert.equal((await post('/forms/doc', stale)).status, 404);
    const anonymous = await fetch(`${t.url}/forms/doc`, { method: 'POST', body: new FormData() });
    assert.equal(anonymous.status, 401);
  });
});

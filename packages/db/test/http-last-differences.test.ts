/**
 * Answers that differed from recorded CouchDB 3.5 conversations (issue #29's "last differences"):
 * `_local` with no name is CouchDB's `bad_request` for every method; a document id that is not
 * UTF-8 is `illegal_docid` "Document id must be valid UTF-8"; a re-created document's new
 * attachment gets the new generation as its revpos. And from the rest of #29: `[couchdb]
 * max_attachment_size` changes at run time (the start flag gives the default), as in CouchDB;
 * `_stats` counts validate functions; a list's `Allow`; `$regex` with `\\p{…}`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raw } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

describe('the last differences from recorded CouchDB answers', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('`_local` and `_local/` with no name: 400 bad_request "Invalid _local document id." for every method', async () => {
    for (const path of ['/db/_local', '/db/_local/']) {
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'COPY']) {
        const r = await t.request(method, path, {
          ...(method === 'PUT' ? { body: {} } : {}),
          ...(method === 'COPY' ? { headers: { destination: 'x' } } : {}),
        });
        assert.equal(r.status, 400, `${method} ${path}`);
        if (method !== 'HEAD') {
          assert.deepEqual(
            r.json,
            { error: 'bad_request', reason: 'Invalid _local document id.' },
            `${method} ${path}`,
          );
        }
      }
    }
    // A named local document still works.
    assert.equal((await t.request('PUT', '/db/_local/x', { body: { a: 1 } })).status, 201);
  });

  it('a document id that is not UTF-8: illegal_docid "Document id must be valid UTF-8"', async () => {
    for (const path of ['/db/%C3%28', '/db/caf%E9', '/db/_local/%FF', '/db/_design/%C3%28']) {
      const r = await raw(t.url, 'PUT', path, { body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400, path);
      assert.deepEqual(r.json, { error: 'illegal_docid', reason: 'Document id must be valid UTF-8' }, path);
    }
    // The database name itself undecodable: the path's own 400, not a document's.
    const db = await raw(t.url, 'PUT', '/d%FF/doc', { body: '{}' });
    assert.equal(db.status, 400);
    assert.equal(db.json.error, 'bad_request');
  });

  it('an attachment written on a re-created document gets the new generation as revpos', async () => {
    const one = await t.request('PUT', '/db/again', {
      body: { _attachments: { 'a.txt': { content_type: 'text/plain', data: 'aGk=' } } },
    });
    const gone = await t.request('DELETE', `/db/again?rev=${one.json.rev}`);
    assert.match(gone.json.rev, /^2-/);
    const inline = await t.request('PUT', '/db/again', {
      body: { _attachments: { 'a.txt': { content_type: 'text/plain', data: 'aGk=' } } },
    });
    assert.match(inline.json.rev, /^3-/);
    assert.equal((await t.request('GET', '/db/again')).json._attachments['a.txt'].revpos, 3);
    const doc = await t.request('GET', '/db/again');
    await t.request('DELETE', `/db/again?rev=${doc.json._rev}`);
    const standalone = await raw(t.url, 'PUT', '/db/again/b.txt', {
      body: 'hi',
      headers: { 'content-type': 'text/plain' },
    });
    assert.match(standalone.json.rev, /^5-/);
    const atts = (await t.request('GET', '/db/again')).json._attachments;
    assert.deepEqual(Object.keys(atts), ['b.txt']);
    assert.equal(atts['b.txt'].revpos, 5);
  });

  it('[couchdb] max_attachment_size changes at run time; the start option is the default it goes back to', async () => {
    const config = '/_node/_local/_config/couchdb/max_attachment_size';
    assert.equal((await t.request('GET', config)).json, String(1024 ** 3));
    const put = await t.request('PUT', config, { body: '"10"' });
    assert.deepEqual([put.status, put.json], [200, String(1024 ** 3)]);
    const big = await raw(t.url, 'PUT', '/db/limited/a.bin', {
      body: 'eleven byte',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.deepEqual([big.status, big.json], [413, { error: 'attachment_too_large', reason: 'a.bin' }]);
    const inline = await t.request('PUT', '/db/limited', {
      body: {
        _attachments: { 'b.txt': { content_type: 'text/plain', data: Buffer.from('eleven byte').toString('base64') } },
      },
    });
    assert.equal(inline.status, 413);
    const small = await raw(t.url, 'PUT', '/db/limited/a.bin', {
      body: 'ten bytes!',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(small.status, 201);
    const bad = await t.request('PUT', config, { body: '"lots"' });
    assert.equal(bad.status, 400);
    assert.equal((await t.request('PUT', config, { body: '"infinity"' })).status, 200);
    assert.equal((await t.request('GET', config)).json, 'infinity');
    const any = await raw(t.url, 'PUT', `/db/limited/c.bin?rev=${small.json.rev}`, {
      body: Buffer.alloc(2000),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(any.status, 201);
    const removed = await t.request('DELETE', config);
    assert.deepEqual([removed.status, removed.json], [200, 'infinity']);
    assert.equal((await t.request('GET', config)).json, String(1024 ** 3));
  });

  it('_stats counts validate_doc_update runs and refusals (couchdb.query_server.vdu_*)', async () => {
    const stats = async () => (await t.request('GET', '/_node/_local/_stats/couchdb/query_server')).json;
    const before = await stats();
    assert.equal(before.vdu_rejects.type, 'counter');
    assert.equal(before.vdu_process_time.type, 'histogram');
    await t.request('PUT', '/db/_design/guard', {
      body: { validate_doc_update: "function (doc) { if (doc.bad) throw({ forbidden: 'no' }); }" },
    });
    assert.equal((await t.request('PUT', '/db/fine', { body: { bad: false } })).status, 201);
    assert.equal((await t.request('PUT', '/db/refused', { body: { bad: true } })).status, 403);
    const after = await stats();
    assert.equal(after.vdu_rejects.value, before.vdu_rejects.value + 1);
    assert.equal(after.vdu_process_time.value.n, before.vdu_process_time.value.n + 2);
  });

  it("a method a list does not take: 405 with CouchDB's Allow, GET,POST,HEAD (as a view)", async () => {
    await t.request('PUT', '/db/_design/lists', {
      body: {
        views: { v: { map: 'function (doc) { emit(doc._id, null); }' } },
        lists: { l: 'function () { send("x"); }' },
      },
    });
    for (const path of ['/db/_design/lists/_list/l/v', '/db/_design/lists/_view/v']) {
      const r = await t.request('DELETE', path);
      assert.equal(r.status, 405, path);
      assert.equal(r.headers.get('allow'), 'GET,POST,HEAD', path);
    }
  });

  it("$regex with Unicode properties matches as CouchDB's PCRE (bytes without UTF, code points with it)", async () => {
    await t.request('PUT', '/names');
    await t.request('POST', '/names/_bulk_docs', {
      body: { docs: ['Alice', 'bob', 'Émile', 'ñandu'].map((name, i) => ({ _id: `n${i}`, name })) },
    });
    const find = async (regex: string) => {
      const r = await t.request('POST', '/names/_find', {
        body: { selector: { name: { $regex: regex } }, fields: ['name'] },
      });
      assert.equal(r.status, 200, r.text);
      return r.json.docs.map((d: { name: string }) => d.name).sort();
    };
    // The lead byte C3 of "É" and "ñ" is "Ã" to a PCRE without UTF: an upper-case letter.
    assert.deepEqual(await find('^\\p{Lu}'), ['Alice', 'Émile', 'ñandu']);
    assert.deepEqual(await find('(*UTF8)^\\p{Lu}'), ['Alice', 'Émile']);
    assert.deepEqual(await find('(*UTF8)^\\p{Ll}'), ['bob', 'ñandu']);
  });

  it('a _find bookmark from another query continues after its key, skipping one row there as CouchDB does', async () => {
    for (const [db, ids] of [
      ['marks1', ['a', 'b', 'c', 'd', 'e']],
      ['marks2', ['aa', 'bb', 'cc']],
    ] as const) {
      await t.request('PUT', `/${db}`);
      await t.request('POST', `/${db}/_bulk_docs`, { body: { docs: ids.map((_id, n) => ({ _id, n })) } });
    }
    const find = (db: string, body: object) => t.request('POST', `/${db}/_find`, { body });
    const ids = (r: { json: { docs: { _id: string }[] } }) => r.json.docs.map((d) => d._id);
    // A page of marks2 ends at "bb": on marks1 the scan restarts at "bb" and skips the row there ("c").
    const other = await find('marks2', { selector: { _id: { $gt: null } }, limit: 2 });
    assert.deepEqual(ids(other), ['aa', 'bb']);
    const resumed = await find('marks1', { selector: { _id: { $gt: null } }, bookmark: other.json.bookmark });
    assert.deepEqual(ids(resumed), ['d', 'e']);
    // The same query's own bookmark: the next page, as always.
    const page1 = await find('marks1', { selector: { _id: { $gt: null } }, limit: 2 });
    const page2 = await find('marks1', { selector: { _id: { $gt: null } }, limit: 2, bookmark: page1.json.bookmark });
    assert.deepEqual(
      [ids(page1), ids(page2)],
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    );
    // A JSON index's bookmark (an array key) sorts after every id: nothing is left on _all_docs.
    await t.request('POST', '/marks1/_index', { body: { index: { fields: ['n'] }, name: 'by-n' } });
    const indexed = await find('marks1', { selector: { n: { $gte: 0 } }, sort: ['n'], limit: 1, use_index: 'by-n' });
    assert.deepEqual(ids(indexed), ['a']);
    const onAllDocs = await find('marks1', { selector: { _id: { $gt: null } }, bookmark: indexed.json.bookmark });
    assert.deepEqual(ids(onAllDocs), []);
  });
});

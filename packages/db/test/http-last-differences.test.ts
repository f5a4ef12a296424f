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

  it("_stats counts the query server's work under CouchDB 3.5's names: processes, prompts, calls and time by kind, JS filters", async () => {
    const stats = async () => (await t.request('GET', '/_node/_local/_stats/couchdb/query_server')).json;
    const before = await stats();
    const counters = [
      'acquired_processes',
      'process_starts',
      'process_exits',
      'process_error_exits',
      'process_errors',
      'process_prompts',
      'js_filter',
      'js_filterered',
      'js_filter_error',
    ];
    for (const name of counters) assert.equal(before[name].type, 'counter', name);
    const kinds = [
      'spawn_proc',
      'map',
      'reduce',
      'reset',
      'add_fun',
      'ddoc_new',
      'ddoc_vdu',
      'ddoc_filter',
      'ddoc_other',
      'other',
    ];
    assert.deepEqual(Object.keys(before.calls).sort(), [...kinds].sort());
    assert.deepEqual(Object.keys(before.time).sort(), [...kinds].sort());
    assert.equal(before.calls.map.desc, 'number of map_doc requests');
    assert.equal(before.time.map.desc, 'accumulated number of microseconds spent processing map_doc requests');
    await t.request('PUT', '/qs');
    await t.request('POST', '/qs/_bulk_docs', {
      body: {
        docs: [
          { _id: 'a', n: 1 },
          { _id: 'b', n: 2 },
          { _id: 'c', n: 3 },
        ],
      },
    });
    await t.request('PUT', '/qs/_design/d', {
      body: {
        // A call takes the map function out of the shape the server maps on its own thread
        // (views/native-map): this one runs in the sandbox, CouchDB's query server.
        views: {
          v: { map: 'function (doc) { emit(doc.n, Number(doc.n)); }', reduce: 'function (k, v) { return sum(v); }' },
        },
        filters: { odd: 'function (doc) { return doc.n % 2 === 1; }' },
        shows: { s: 'function (doc) { return "n=" + doc.n; }' },
      },
    });
    assert.equal((await t.request('GET', '/qs/_design/d/_view/v')).json.rows[0].value, 6);
    const changes = await t.request('GET', '/qs/_changes?filter=d/odd');
    assert.deepEqual(
      changes.json.results.map((row: { id: string }) => row.id),
      ['a', 'c'],
    );
    assert.equal((await t.request('GET', '/qs/_design/d/_show/s/b')).text, 'n=2');
    const after = await stats();
    const grew = (name: string) => after.calls[name].value - before.calls[name].value;
    assert.ok(grew('map') >= 1, 'map');
    assert.ok(grew('reduce') >= 1, 'reduce');
    assert.ok(grew('reset') >= 1 && grew('add_fun') >= 2, 'reset, add_fun');
    assert.ok(grew('ddoc_filter') >= 1 && grew('ddoc_other') >= 1 && grew('ddoc_new') >= 2, 'ddoc_*');
    assert.ok(grew('spawn_proc') >= 3, 'spawn_proc');
    assert.ok(after.time.map.value > before.time.map.value, 'time.map');
    assert.equal(after.process_starts.value - before.process_starts.value, grew('spawn_proc'));
    assert.ok(after.process_prompts.value - before.process_prompts.value >= grew('map') + grew('reduce'));
    assert.ok(after.acquired_processes.value > before.acquired_processes.value);
    assert.ok(after.js_filter.value - before.js_filter.value >= 1);
    assert.equal(
      after.js_filterered.value - before.js_filterered.value,
      4,
      'the three documents and the design document',
    );
    assert.equal(after.js_filter_error.value, before.js_filter_error.value);
    // A validate function runs as a vdu request.
    await t.request('PUT', '/qs/_design/guard', { body: { validate_doc_update: 'function () {}' } });
    const beforeVdu = (await stats()).calls.ddoc_vdu.value;
    await t.request('PUT', '/qs/d', { body: {} });
    assert.equal((await stats()).calls.ddoc_vdu.value, beforeVdu + 1);
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

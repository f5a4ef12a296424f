/**
 * View endpoints through nano (the official CouchDB client for Node, unchanged), and raw HTTP
 * checks that a large view answer is streamed (chunked, complete, in order) and that a client
 * that stops reading a streamed answer neither breaks nor stalls the view for others.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Nano from 'nano';
import { BLOG_DOCS } from './support/blog-docs.js';
import { adminUrl, AUTH, startTestServer, type TestServer } from './support/server.js';

const DDOC = {
  _id: '_design/app',
  views: {
    by_author: { map: "function (doc) { if (doc.type === 'post') emit(doc.author, doc.words); }", reduce: '_sum' },
    by_author_date: {
      map: "function (doc) { if (doc.type === 'post') emit([doc.author, doc.date], null); }",
      reduce: '_count',
    },
    by_title: { map: 'function (doc) { if (doc.title) emit(doc.title, null); }' },
    linked: { map: "function (doc) { if (doc.type === 'comment') emit(doc.post, { _id: doc.post }); }" },
  },
};

const DOCS = BLOG_DOCS;

interface Row<K = unknown, V = unknown, D = unknown> {
  id?: string;
  key: K;
  value: V;
  doc?: D;
}

describe('nano: views', () => {
  let t: TestServer;
  let db: Nano.DocumentScope<any>;
  let nano: Nano.ServerScope;
  before(async () => {
    t = await startTestServer();
    nano = Nano(adminUrl(t));
    await nano.db.create('nv');
    db = nano.use('nv');
    await db.bulk({ docs: [...DOCS, DDOC] });
  });
  after(() => t.close());

  it('map rows with reduce=false, ranges, descending, skip and limit', async () => {
    const all = await db.view('app', 'by_author_date', { reduce: false });
    assert.equal(all.total_rows, 4);
    assert.equal(all.offset, 0);
    assert.deepEqual(
      all.rows.map((r) => r.id),
      ['p2', 'p3', 'p1', 'p4'],
    );
    const alice = await db.view('app', 'by_author_date', { reduce: false, startkey: ['alice'], endkey: ['alice', {}] });
    assert.deepEqual(alice.rows, [
      { id: 'p2', key: ['alice', '2024-01-01'], value: null },
      { id: 'p3', key: ['alice', '2024-01-03'], value: null },
    ]);
    const desc = await db.view('app', 'by_title', { descending: true, skip: 1, limit: 2 });
    assert.deepEqual(
      desc.rows.map((r) => r.key),
      ['b', 'A'],
    );
    assert.equal(desc.offset, 1);
    const one = await db.view('app', 'by_title', { key: 'A' });
    assert.deepEqual(
      one.rows.map((r) => r.id),
      ['p2'],
    );
  });

  it('keys (sent as a POST body by nano) in the order given, with and without reduce', async () => {
    const map = await db.view('app', 'by_title', { keys: ['c', 'a', 'missing', 'A'] });
    assert.deepEqual(
      map.rows.map((r) => [r.key, r.id]),
      [
        ['c', 'p4'],
        ['a', 'p3'],
        ['A', 'p2'],
      ],
    );
    const rows = await db.view('app', 'by_author', { keys: ['carol', 'alice', 'nobody'], group: true });
    assert.deepEqual(rows.rows, [
      { key: 'carol', value: 1 },
      { key: 'alice', value: 12 },
    ]);
    const mapOfReduceView = await db.view('app', 'by_author', { keys: ['bob', 'alice'], reduce: false });
    assert.deepEqual(
      mapOfReduceView.rows.map((r) => [r.id, r.value]),
      [
        ['p1', 10],
        ['p2', 5],
        ['p3', 7],
      ],
    );
    // Multi-key fetches of a reduce view need group=true.
    await assert.rejects(db.view('app', 'by_author', { keys: ['bob', 'alice'] }), (e: any) => {
      assert.equal(e.statusCode, 400);
      assert.equal(e.error, 'query_parse_error');
      return true;
    });
  });

  it('reduce: total, group=true, group_level', async () => {
    assert.deepEqual((await db.view('app', 'by_author')).rows, [{ key: null, value: 23 }]);
    assert.deepEqual((await db.view('app', 'by_author', { group: true })).rows, [
      { key: 'alice', value: 12 },
      { key: 'bob', value: 10 },
      { key: 'carol', value: 1 },
    ]);
    assert.deepEqual((await db.view('app', 'by_author_date', { group_level: 1 })).rows, [
      { key: ['alice'], value: 2 },
      { key: ['bob'], value: 1 },
      { key: ['carol'], value: 1 },
    ]);
    const ranged = await db.view('app', 'by_author', { group: true, startkey: 'b', limit: 1 });
    assert.deepEqual(ranged.rows, [{ key: 'bob', value: 10 }]);
  });

  it('include_docs, including docs linked by {_id} values', async () => {
    const r = await db.view<null>('app', 'by_title', { include_docs: true, key: 'b' });
    assert.equal(r.rows.length, 1);
    const doc = r.rows[0]!.doc as any;
    assert.equal(doc._id, 'p1');
    assert.equal(doc.author, 'bob');
    assert.match(doc._rev, /^1-/);
    const linked = await db.view('app', 'linked', { include_docs: true });
    assert.deepEqual(
      linked.rows.map((row) => [row.id, (row.doc as any)?._id ?? null]),
      [
        ['c3', null],
        ['c1', 'p1'],
        ['c2', 'p3'],
      ],
    );
    await assert.rejects(db.view('app', 'by_author', { include_docs: true }), (e: any) => e.statusCode === 400);
  });

  it('errors come back as nano errors with CouchDB bodies', async () => {
    await assert.rejects(db.view('app', 'nope'), (e: any) => e.statusCode === 404 && e.reason === 'missing_named_view');
    await assert.rejects(db.view('nope', 'x'), (e: any) => e.statusCode === 404 && e.reason === 'missing');
    await assert.rejects(
      db.view('app', 'by_title', { group: true }),
      (e: any) => e.statusCode === 400 && e.error === 'query_parse_error',
    );
    await assert.rejects(
      db.view('app', 'by_title', { startkey: 'z', endkey: 'a' }),
      (e: any) => e.statusCode === 400 && /reverse your start_key/.test(e.reason),
    );
  });

  it('sees updates and deletions made through nano', async () => {
    const p4 = await db.get('p4');
    await db.insert({ ...p4, author: 'alice' });
    await db.destroy('p1', (await db.get('p1'))._rev);
    assert.deepEqual((await db.view('app', 'by_author', { group: true })).rows, [{ key: 'alice', value: 13 }]);
  });

  it('/queries: several queries of one view in one request (raw HTTP; nano has no helper)', async () => {
    const r = await t.request('POST', '/nv/_design/app/_view/by_title/queries', {
      body: { queries: [{ keys: ['c', 'a'] }, { descending: true, limit: 1 }, { startkey: 'b', include_docs: true }] },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.results.length, 3);
    assert.deepEqual(
      r.json.results[0].rows.map((row: Row) => row.key),
      ['c', 'a'],
    );
    assert.deepEqual(
      r.json.results[1].rows.map((row: Row) => row.key),
      ['c'],
    );
    // (p1, titled 'b', was deleted by the test before.)
    assert.deepEqual(
      r.json.results[2].rows.map((row: Row) => [row.key, (row.doc as any)._id]),
      [['c', 'p4']],
    );
    assert.equal(r.json.results[2].offset, 2);
  });

  it('viewAsStream gives the same complete answer', async () => {
    const stream = db.viewAsStream('app', 'by_author_date', { reduce: false });
    const chunks: Buffer[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    assert.deepEqual(parsed, await db.view('app', 'by_author_date', { reduce: false }));
  });
});

// --- Large answers over raw HTTP -----------------------------------------------------------------

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  chunks: number;
  body: string;
}

function rawGet(url: string, path: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.get(url + path, { headers: { authorization: AUTH } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          chunks: parts.length,
          body: Buffer.concat(parts).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const ROWS_PER_DOC = 20;
const DOCS_BIG = 1000; // 20,000 rows

describe('large view answers over HTTP', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/big');
    const docs = Array.from({ length: DOCS_BIG }, (_, i) => ({ _id: `d${String(i).padStart(5, '0')}`, n: i }));
    const r = await t.request('POST', '/big/_bulk_docs', { body: { docs } });
    assert.equal(r.status, 201);
    await t.request('PUT', '/big/_design/big', {
      body: {
        views: {
          rows: {
            // ~450 bytes a row: ~9 MB of rows, more than socket buffers hold.
            map: `function (doc) { var PAD = Array(400).join('x'); for (var i = 0; i < ${ROWS_PER_DOC}; i++) emit([i, doc.n], 'value of row ' + i + ' of ' + doc._id + ' ' + PAD); }`,
            reduce: '_count',
          },
        },
      },
    });
  });
  after(() => t.close());

  it('20,000 map rows: chunked, no Content-Length, complete and in order', async () => {
    const r = await rawGet(t.url, '/big/_design/big/_view/rows?reduce=false');
    assert.equal(r.status, 200);
    assert.equal(r.headers['transfer-encoding'], 'chunked');
    assert.equal(r.headers['content-length'], undefined);
    assert.ok(r.chunks > 1, `streamed in several chunks (got ${r.chunks})`);
    const body = JSON.parse(r.body);
    assert.equal(body.total_rows, DOCS_BIG * ROWS_PER_DOC);
    assert.equal(body.offset, 0);
    assert.equal(body.rows.length, DOCS_BIG * ROWS_PER_DOC);
    for (let i = 0; i < body.rows.length; i++) {
      const row = body.rows[i];
      const expectedKey = [Math.floor(i / DOCS_BIG), i % DOCS_BIG];
      if (row.key[0] !== expectedKey[0] || row.key[1] !== expectedKey[1])
        assert.fail(`row ${i}: ${JSON.stringify(row)}`);
    }
  });

  it('20,000 reduce groups (group=true) and include_docs are streamed and complete too', async () => {
    const r = await rawGet(t.url, '/big/_design/big/_view/rows?group=true');
    assert.equal(r.headers['transfer-encoding'], 'chunked');
    const body = JSON.parse(r.body);
    assert.equal(body.rows.length, DOCS_BIG * ROWS_PER_DOC);
    assert.ok(body.rows.every((row: { value: number }) => row.value === 1));
    const docs = await rawGet(
      t.url,
      '/big/_design/big/_view/rows?reduce=false&include_docs=true&startkey=[3]&endkey=[3,{}]',
    );
    const parsed = JSON.parse(docs.body);
    assert.equal(parsed.rows.length, DOCS_BIG);
    assert.equal(parsed.offset, 3 * DOCS_BIG);
    assert.ok(parsed.rows.every((row: any, i: number) => row.doc._id === row.id && row.doc.n === i));
  });

  it('a client that aborts mid-stream leaves the view usable', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(
        `${t.url}/big/_design/big/_view/rows?reduce=false`,
        { headers: { authorization: AUTH } },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => {});
      setTimeout(() => reject(new Error('no data')), 20_000).unref();
    });
    await t.request('PUT', '/big/after-abort', { body: { n: -1 } });
    const r = await withTimeout(
      t.request('GET', '/big/_design/big/_view/rows?reduce=false&limit=1'),
      10_000,
      'query after an aborted stream',
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.rows[0].key, [0, -1]);
    await t.request('DELETE', `/big/after-abort?rev=${(await t.request('GET', '/big/after-abort')).json._rev}`);
  });

  it('a client that stops reading (without closing) does not stall index updates for others', async () => {
    // Open a stream and read one chunk, then stop reading: the server fills the socket and
    // waits for 'drain'. CouchDB readers work on a snapshot; other clients are unaffected.
    let stalled: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;
    await new Promise<void>((resolve, reject) => {
      stalled = http.get(
        `${t.url}/big/_design/big/_view/rows?reduce=false&include_docs=true`,
        { headers: { authorization: AUTH } },
        (res) => {
          response = res;
          res.once('data', () => {
            res.pause();
            resolve();
          });
        },
      );
      stalled.on('error', () => {});
      setTimeout(() => reject(new Error('no data')), 20_000).unref();
    });
    try {
      // Give the server time to fill the socket buffers and block on 'drain'.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Reads of the current index still answer.
      const stale = await withTimeout(
        t.request('GET', '/big/_design/big/_view/rows?update=false&limit=1'),
        10_000,
        'update=false query',
      );
      assert.equal(stale.status, 200);
      // A write, then a query that needs the index updated.
      await t.request('PUT', '/big/while-stalled', { body: { n: -2 } });
      const fresh = await withTimeout(
        t.request('GET', '/big/_design/big/_view/rows?reduce=false&limit=1'),
        10_000,
        'a query needing an index update while another client has stopped reading a streamed answer',
      );
      assert.deepEqual(fresh.json.rows[0].key, [0, -2]);
    } finally {
      response?.destroy();
      stalled?.destroy();
    }
  });
});

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

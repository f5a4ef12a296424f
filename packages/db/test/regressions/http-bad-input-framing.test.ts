/**
 * A body followed, in the same write, by bytes that are no request (a Content-Length too short
 * for what was sent, bytes behind a chunked body's last chunk, behind the headers of a request
 * with no body): Node's parser fails on the extra bytes, answers a bare 400 and closes the
 * connection while the handler still has the body's end to come, or has only just started. The client was told the request failed, so it changes nothing: no document, no
 * revision, no attachment bytes, no `_local` document, no `_security`. Extra bytes that make a
 * request of their own are that request (pipelining), answered and applied.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { strayAttachmentChunks } from '../support/attachment-leftovers.js';
import { socketExchange, type SocketStep } from '../support/raw-http.js';
import { AUTH, startTestServer, type TestServer } from '../support/server.js';

/** Bytes a client sent past its body: they start with no method, so they are no request. */
const GARBAGE = ', "more": true}\r\n\r\n';
const B = 'b0undary';

/** A request as bytes: `body` framed by Content-Length, or by `chunked` with one chunk. */
function request(method: string, path: string, body: string | Buffer, type = 'application/json', chunked = false) {
  const bytes = Buffer.from(body);
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: ${type}\r\n` +
    (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${bytes.length}\r\n\r\n`);
  const framed = chunked
    ? [Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]
    : [bytes];
  return Buffer.concat([Buffer.from(head), ...framed]);
}

/** A request with no body. */
function bare(method: string, path: string, headers = '') {
  return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\n${headers}\r\n`);
}

/** A `multipart/related` document body: the JSON, then one part per attachment that follows. */
function multipart(doc: unknown, parts: string[]): string {
  let body = `--${B}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(doc)}`;
  for (const part of parts) body += `\r\n--${B}\r\n\r\n${part}`;
  return `${body}\r\n--${B}--`;
}

const MULTIPART = `multipart/related; boundary="${B}"`;

describe('a body followed by bytes that are no request', () => {
  let t: TestServer;

  /** Everything the requests below could change. */
  const state = async () => {
    const store = (await t.server.couch.db('db')).store;
    const digests: string[] = [];
    for await (const page of store.foldAttachments()) for (const info of page) digests.push(info.digest);
    return {
      seq: (await t.request('GET', '/db')).json.update_seq,
      docs: (await t.request('GET', '/db/_all_docs?include_docs=true&conflicts=true')).json.rows,
      local: (await t.request('GET', '/db/_local/l')).json,
      security: (await t.request('GET', '/db/_security')).json,
      dbs: (await t.request('GET', '/_all_dbs')).json,
      digests: digests.sort(),
    };
  };

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    await t.request('PUT', '/db/doc', { body: { v: 1, _attachments: { 'a.txt': { data: 'a2VwdA==' } } } });
    await t.request('PUT', '/db/_local/l', { body: { v: 1 } });
    await t.request('PUT', '/db/_security', { body: { admins: { names: ['a'], roles: [] } } });
  });
  after(() => t.close());

  const cases: [string, (rev: string) => Buffer][] = [
    ['a document PUT', (rev) => request('PUT', '/db/doc', JSON.stringify({ _rev: rev, v: 2 }))],
    [
      'a chunked document PUT',
      (rev) => request('PUT', '/db/doc', JSON.stringify({ _rev: rev, v: 2 }), 'application/json', true),
    ],
    [
      'a document PUT large enough to come in several reads',
      (rev) => request('PUT', '/db/doc', JSON.stringify({ _rev: rev, v: 2, text: 'x'.repeat(300_000) })),
    ],
    ['a document POST', () => request('POST', '/db', JSON.stringify({ _id: 'new1', v: 1 }))],
    [
      'a design document PUT',
      () => request('PUT', '/db/_design/d', JSON.stringify({ views: { v: { map: 'function(d){}' } } })),
    ],
    [
      'a _bulk_docs POST',
      (rev) =>
        request('POST', '/db/_bulk_docs', JSON.stringify({ docs: [{ _id: 'doc', _rev: rev, v: 2 }, { _id: 'new2' }] })),
    ],
    ['a _local document PUT', () => request('PUT', '/db/_local/l', JSON.stringify({ v: 2 }))],
    [
      'a _security PUT',
      () => request('PUT', '/db/_security', JSON.stringify({ members: { names: ['m'], roles: [] } })),
    ],
    ['an _index POST', () => request('POST', '/db/_index', JSON.stringify({ index: { fields: ['v'] }, ddoc: 'i' }))],
    [
      'a multipart document PUT with an attachment that follows',
      (rev) =>
        request(
          'PUT',
          '/db/doc',
          multipart({ _rev: rev, v: 2, _attachments: { 'b.txt': { follows: true, length: 5 } } }, ['hello']),
          MULTIPART,
        ),
    ],
    [
      'a multipart document PUT with a large part, a part nobody asked for and an epilogue',
      (rev) =>
        request(
          'PUT',
          '/db/doc',
          `${multipart({ _rev: rev, _attachments: { 'c.txt': { follows: true, length: 300_000 } } }, ['y'.repeat(300_000), 'extra'])}\r\nepilogue`,
          MULTIPART,
        ),
    ],
    [
      'a multipart document PUT with no part that follows',
      (rev) => request('PUT', '/db/doc', multipart({ _rev: rev, v: 2 }, []), MULTIPART),
    ],
    ['a document COPY (no body)', () => bare('COPY', '/db/doc', 'Destination: copy\r\n')],
    ['a database PUT (no body)', () => bare('PUT', '/db2')],
    ['a document DELETE (no body)', (rev) => bare('DELETE', `/db/doc?rev=${rev}`)],
  ];
  for (const [label, bytes] of cases) {
    it(`${label} changes nothing, and the connection is closed`, async () => {
      const before = await state();
      const started = Date.now();
      const answer = await socketExchange(
        t.url,
        [Buffer.concat([bytes((await t.request('GET', '/db/doc')).json._rev), Buffer.from(GARBAGE)])],
        10_000,
      );
      assert.ok(Date.now() - started < 10_000, 'the server closed the connection');
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.equal([...answer.matchAll(/^HTTP\/1\.1 /gm)].length, 1, answer);
      // The handler goes on after the connection is gone: give it time to write, if it would.
      await sleep(400);
      assert.deepEqual(await state(), before);
      assert.equal(await strayAttachmentChunks(t, 'db'), 0);
    });
  }

  it('bytes behind a body that make requests of their own are those requests, answered and applied', async () => {
    const bulk = JSON.stringify({ docs: [{ _id: 'p2', n: 2 }] });
    const att = multipart({ n: 4, _attachments: { 'p.txt': { follows: true, length: 5 } } }, ['hello']);
    const steps: SocketStep[] = [
      Buffer.concat([
        request('PUT', '/db/p1', JSON.stringify({ n: 1 })),
        request('POST', '/db/_bulk_docs', bulk),
        request('PUT', '/db/_local/p3', JSON.stringify({ n: 3 })),
        request('PUT', '/db/p4', att, MULTIPART),
        request('PUT', '/db/p5', JSON.stringify({ n: 5 }), 'application/json', true),
        Buffer.from('GET /_up HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
      { pauseMs: 500 },
      { end: true },
    ];
    const answer = await socketExchange(t.url, steps);
    assert.deepEqual(
      [...answer.matchAll(/^HTTP\/1\.1 (\d+)/gm)].map((m) => m[1]),
      ['201', '201', '201', '201', '201', '200'],
    );
    for (const [path, n] of [
      ['/db/p1', 1],
      ['/db/p2', 2],
      ['/db/_local/p3', 3],
      ['/db/p4', 4],
      ['/db/p5', 5],
    ] as const) {
      assert.equal((await t.request('GET', path)).json.n, n, path);
    }
    assert.equal((await t.request('GET', '/db/p4/p.txt')).text, 'hello');
  });
});

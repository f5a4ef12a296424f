/**
 * Attachment content in storage: the same bytes stored once, compaction freeing content that
 * only non-leaf revisions used, and nothing left behind by a client that disconnects mid-upload
 * or sends a truncated body.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { strayAttachmentChunks } from './support/attachment-leftovers.js';
import { raw, socketExchange, type SocketStep } from './support/raw-http.js';
import { AUTH, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

/** Waits for `done` (a server finishing a request the client gave up on), failing after 5 s. */
describe('attachment content in storage', () => {
  let t: TestServer;
  const stored = async (db = 'db'): Promise<string[]> => {
    const store = (await t.server.couch.db(db)).store;
    const out: string[] = [];
    for await (const page of store.foldAttachments()) for (const info of page) out.push(info.digest);
    return out.sort();
  };
  const compact = async (db = 'db') => {
    const r = await t.request('POST', `/${db}/_compact`, { body: {} });
    assert.equal(r.status, 202);
    for (let i = 0; i < 200 && (await t.request('GET', `/${db}`)).json.compact_running; i++) await sleep(20);
  };
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('the same content is stored once, however many documents and revisions refer to it', async () => {
    const before = (await stored()).length;
    const bytes = Buffer.alloc(300 * 1024, 7);
    const one = await raw(t.url, 'PUT', '/db/same1/a', { body: bytes });
    await raw(t.url, 'PUT', '/db/same2/b', { body: bytes });
    await raw(t.url, 'PUT', `/db/same1/c?rev=${one.json.rev}`, { body: bytes });
    await t.request('PUT', '/db/same3', { body: { _attachments: { d: { data: bytes.toString('base64') } } } });
    assert.equal((await stored()).length, before + 1);
  });

  it('compaction frees content only non-leaf revisions used, and keeps what a leaf or another doc uses', async () => {
    await t.request('PUT', '/cdb');
    const one = await raw(t.url, 'PUT', '/cdb/doc/a', { body: 'old content' });
    await raw(t.url, 'PUT', '/cdb/other/a', { body: 'shared content' });
    const two = await raw(t.url, 'PUT', `/cdb/doc/a?rev=${one.json.rev}`, { body: 'new content' });
    const three = await raw(t.url, 'PUT', `/cdb/doc/s?rev=${two.json.rev}`, { body: 'shared content' });
    assert.equal((await stored('cdb')).length, 3);
    assert.equal((await raw(t.url, 'GET', `/cdb/doc/a?rev=${one.json.rev}`)).body.toString(), 'old content');
    const stubsBefore = (await t.request('GET', '/cdb/doc')).json._attachments;
    await compact('cdb');
    assert.equal((await stored('cdb')).length, 2);
    const gone = await raw(t.url, 'GET', `/cdb/doc/a?rev=${one.json.rev}`);
    assert.deepEqual([gone.status, gone.json.reason], [404, 'missing']);
    assert.equal((await raw(t.url, 'GET', '/cdb/doc/a')).body.toString(), 'new content');
    assert.equal((await raw(t.url, 'GET', '/cdb/doc/s')).body.toString(), 'shared content');
    assert.equal((await raw(t.url, 'GET', '/cdb/other/a')).body.toString(), 'shared content');
    assert.deepEqual((await t.request('GET', '/cdb/doc')).json._attachments, stubsBefore);
    // Deleting the document leaves its tombstone without attachments: compaction frees the rest.
    await t.request('DELETE', `/cdb/doc?rev=${three.json.rev}`);
    await compact('cdb');
    assert.equal((await stored('cdb')).length, 1);
  });

  it('a client that disconnects mid-upload leaves nothing; so does a body shorter than its Content-Length', async () => {
    const before = await stored();
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT /db/cut/big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 2000000\r\n\r\n`,
    );
    socket.write(Buffer.alloc(700 * 1024, 1));
    await sleep(100);
    socket.destroy();
    const half = connect(Number(new URL(t.url).port), '127.0.0.1');
    await new Promise((resolve) => half.once('connect', resolve));
    half.write(`PUT /db/cut/short.bin HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 100\r\n\r\n`);
    half.end(Buffer.alloc(10));
    await sleep(300);
    half.destroy();
    assert.equal((await t.request('GET', '/db/cut')).status, 404);
    assert.deepEqual(await stored(), before);
  });

  it('a body shorter or longer than its framing says writes nothing: no revision, no bytes left', async () => {
    const first = await raw(t.url, 'PUT', '/db/framing/a.txt', {
      body: 'kept',
      headers: { 'content-type': 'text/plain' },
    });
    const before = await stored();
    // Bytes that do not compress, so whole chunks reach storage before the body breaks off.
    const big = randomBytes(700 * 1024);
    for (const type of ['application/octet-stream', 'text/plain']) {
      const head = (framing: string, name = 'b.bin') =>
        `PUT /db/framing/${name}?rev=${first.json.rev} HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\n` +
        `Content-Type: ${type}\r\n${framing}\r\n`;
      const cases: [string, SocketStep[]][] = [
        ['shorter, then half-closed', [head('Content-Length: 2000000\r\n'), big, { pauseMs: 100 }, { end: true }]],
        ['shorter, then cut', [head('Content-Length: 2000000\r\n'), big, { pauseMs: 100 }, { cut: true }]],
        [
          'chunked, cut off before its last chunk',
          [head('Transfer-Encoding: chunked\r\n'), `${big.length.toString(16)}\r\n`, big, '\r\n', { end: true }],
        ],
        ['longer: more bytes behind it in the same write', [`${head('Content-Length: 5\r\n')}helloEXTRA`]],
        [
          'chunked, with bytes behind its last chunk',
          [`${head('Transfer-Encoding: chunked\r\n')}5\r\nhello\r\n0\r\n\r\nEXTRA`],
        ],
      ];
      for (const [label, steps] of cases) {
        const answer = await socketExchange(t.url, steps);
        // No answer at all (CouchDB's, for a short body) or a 4xx: never a write, never a 5xx.
        assert.match(answer, /^$|^HTTP\/1\.1 4\d\d /, `${type}, ${label}: ${answer.slice(0, 80)}`);
        await until(async () => (await strayAttachmentChunks(t, 'db')) === 0, `${type}, ${label}: stray chunks`);
        const doc = (await t.request('GET', '/db/framing')).json;
        assert.deepEqual([doc._rev, Object.keys(doc._attachments)], [first.json.rev, ['a.txt']], `${type}, ${label}`);
      }
    }
    assert.deepEqual(await stored(), before);
    assert.equal((await raw(t.url, 'GET', '/db/framing/a.txt')).body.toString(), 'kept');
    // Bytes behind a body that make a request of their own are that request: the attachment is
    // the declared length, not a byte more.
    const pipelined = await socketExchange(t.url, [
      `PUT /db/exact/a.bin HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 5\r\n\r\nhello` +
        'GET /_up HTTP/1.1\r\nHost: x\r\n\r\n',
      { pauseMs: 300 },
      { end: true },
    ]);
    assert.deepEqual(
      [...pipelined.matchAll(/^HTTP\/1\.1 (\d+)/gm)].map((m) => m[1]),
      ['201', '200'],
    );
    assert.deepEqual((await raw(t.url, 'GET', '/db/exact/a.bin')).body, Buffer.from('hello'));
  });

  it('a refused upload stores nothing and leaves the previous revision as it was', async () => {
    const one = await raw(t.url, 'PUT', '/db/keep/a', { body: 'A' });
    const before = await stored();
    const bad = await t.request('PUT', '/db/keep', {
      body: { _rev: one.json.rev, _attachments: { a: { stub: true }, b: { data: 'not base64!' } } },
    });
    assert.equal(bad.status, 400);
    const stub = await t.request('PUT', '/db/keep', {
      body: { _rev: one.json.rev, _attachments: { b: { data: 'Qg==' }, missing: { stub: true } } },
    });
    assert.equal(stub.status, 412);
    assert.deepEqual(await stored(), before);
    assert.equal((await t.request('GET', '/db/keep')).json._rev, one.json.rev);
  });
});

/**
 * The same bytes, the same revision: a compressible attachment is stored as stock zlib's gzip
 * stream at CouchDB's level 8, so its digest, `encoded_length` and the document's revision id
 * are CouchDB 3.5's. The digests below are CouchDB's recorded answer (the example) and
 * stock zlib 1.2.13's output (the zlib CouchDB's Erlang runs on) for generated text; node's own
 * zlib gives other bytes for each of them, which is checked too so a build that bound node's
 * zlib by mistake cannot pass. Also: a replicated multipart part whose digest is over the bytes
 * sent (uncompressed) is accepted as CouchDB accepts it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { raw } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

const md5 = (bytes: Uint8Array) => `md5-${createHash('md5').update(bytes).digest('base64')}`;

/** 843,300 bytes of text that compresses as logs do: 20,000 numbered lines. */
function generatedText(): Buffer {
  let text = '';
  for (let i = 0; i < 20000; i++) {
    text += `row ${i}: value ${(i * 7919) % 10007} of ${(i * 104729) % 65521}, status ${i % 3 ? 'ok' : 'retry'}\n`;
  }
  return Buffer.from(text);
}

const SMALL_JSON = Buffer.from(
  '{"name":"Divan","tags":["couch","sqlite","postgres"],"note":"the same bytes, the same revision; the same bytes, the same revision"}',
);

describe('attachment digests as CouchDB computes them', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  const stubOf = async (id: string, name: string) =>
    (await t.request('GET', `/db/${id}?att_encoding_info=true`)).json._attachments[name];

  it("the issue's recorded write gives CouchDB 3.5's revision, digest and encoded_length", async () => {
    const body = {
      _attachments: { 'foo.txt': { content_type: 'text/plain', data: 'VGhpcyBpcyBhIGJhc2U2NCBlbmNvZGVkIHRleHQ=' } },
    };
    const r = await t.request('PUT', '/db/recorded', { body });
    assert.equal(r.status, 201);
    assert.match(r.json.rev, /^1-5b8d8a61[0-9a-f]{24}$/);
    const stub = await stubOf('recorded', 'foo.txt');
    assert.deepEqual(
      [stub.digest, stub.length, stub.encoding, stub.encoded_length],
      ['md5-qUUYqS41RhwF0TrCsTAxFg==', 29, 'gzip', 47],
    );
    // Node's own zlib (Chromium's) gives 49 bytes here: the stored stream is not node's.
    const identity = Buffer.from('This is a base64 encoded text');
    assert.notEqual(md5(gzipSync(identity, { level: 8 })), stub.digest);
    const gz = await raw(t.url, 'GET', '/db/recorded/foo.txt', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(md5(gz.body), stub.digest);
    assert.deepEqual(gunzipSync(gz.body), identity);
    // The same bytes through a standalone PUT: the same digest, and the same revision again on a new id
    // (CouchDB's rev hashes the body, which a standalone PUT leaves empty as the inline write did).
    const put = await raw(t.url, 'PUT', '/db/standalone/foo.txt', {
      body: identity,
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(put.status, 201);
    assert.equal(put.json.rev, r.json.rev);
    assert.equal((await stubOf('standalone', 'foo.txt')).digest, 'md5-qUUYqS41RhwF0TrCsTAxFg==');
  });

  it('JSON and large text streamed in chunks get stock zlib level 8 bytes, never node zlib ones', async () => {
    const small = await raw(t.url, 'PUT', '/db/json/a.json', {
      body: SMALL_JSON,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(small.status, 201);
    const json = await stubOf('json', 'a.json');
    assert.deepEqual([json.digest, json.encoded_length], ['md5-5/FYN54u734bu5/F1+vJuw==', 106]);
    assert.notEqual(md5(gzipSync(SMALL_JSON, { level: 8 })), json.digest);

    const text = generatedText();
    async function* chunks(): AsyncGenerator<Uint8Array> {
      // Uneven pieces: the stream must not depend on how the upload is cut.
      for (let at = 0, size = 1000; at < text.length; at += size, size = (size * 7) % 65536 || 1) {
        yield text.subarray(at, at + size);
      }
    }
    const big = await raw(t.url, 'PUT', '/db/big/log.txt', {
      body: chunks(),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(big.status, 201);
    const stub = await stubOf('big', 'log.txt');
    assert.deepEqual([stub.digest, stub.length, stub.encoded_length], ['md5-sfIwe0llFQFl6okMMbjrMQ==', 843300, 190130]);
    assert.notEqual(md5(gzipSync(text, { level: 8 })), stub.digest);
    const back = await raw(t.url, 'GET', '/db/big/log.txt');
    assert.ok(back.body.equals(text));
  });

  it('a multipart new_edits=false part with its digest over the bytes sent is stored compressed; a wrong digest is refused', async () => {
    const B = 'b0undary';
    const multipart = (doc: unknown, part: Buffer) =>
      Buffer.concat([
        Buffer.from(`--${B}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(doc)}\r\n--${B}\r\n\r\n`),
        part,
        Buffer.from(`\r\n--${B}--`),
      ]);
    const put = (id: string, digest: string) =>
      raw(t.url, 'PUT', `/db/${id}?new_edits=false`, {
        headers: { 'content-type': `multipart/related; boundary="${B}"` },
        body: multipart(
          {
            _id: id,
            _rev: '1-0123456789abcdef0123456789abcdef',
            _attachments: {
              'a.json': {
                content_type: 'application/json',
                revpos: 1,
                digest,
                length: SMALL_JSON.length,
                follows: true,
              },
            },
          },
          SMALL_JSON,
        ),
      });
    const ok = await put('replicated', md5(SMALL_JSON));
    assert.equal(ok.status, 201, ok.body.toString());
    assert.equal(ok.json.rev, '1-0123456789abcdef0123456789abcdef');
    const stub = await stubOf('replicated', 'a.json');
    assert.deepEqual(
      [stub.digest, stub.length, stub.encoding, stub.encoded_length, stub.revpos],
      ['md5-5/FYN54u734bu5/F1+vJuw==', SMALL_JSON.length, 'gzip', 106, 1],
    );
    // The stored digest (over the gzip stream) is taken too: it names the same bytes.
    assert.equal((await put('replicated-stored-digest', 'md5-5/FYN54u734bu5/F1+vJuw==')).status, 201);
    const wrong = await put('replicated-wrong', md5(Buffer.from('other bytes')));
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error, 'bad_request');
    assert.equal((await t.request('GET', '/db/replicated-wrong')).status, 404);
  });

  it('[attachments] compression_level is honoured at run time: 1..9 give stock zlib at that level, 0 stores as sent', async () => {
    // 10,341 bytes; the digests are the system zlib 1.2.13's gzip streams (windowBits 31, memLevel 8).
    const text = Buffer.from(
      Array.from({ length: 300 }, (_, i) => `line ${i} ${(i * i) % 97} of the quick brown fox\n`).join(''),
    );
    const config = '/_node/_local/_config/attachments/compression_level';
    const expected: [string, string, number | undefined][] = [
      ['1', 'md5-oT3bS/bX73XX8iLS4O6b2w==', 1304],
      ['5', 'md5-zIR0/DiBA9pfkS/mRhdkQg==', 1221],
      ['9', 'md5-JavWiC2PbC6Xs53RhQuZiw==', 1192],
      ['8', 'md5-aGE3JuSX80EkDTiOsf+XMQ==', 1192],
      ['0', 'md5-2AzBp/fnynGNQ1NVMmNqMg==', undefined],
    ];
    try {
      for (const [level, digest, encodedLength] of expected) {
        assert.equal((await t.request('PUT', config, { body: JSON.stringify(level) })).status, 200, level);
        const put = await raw(t.url, 'PUT', `/db/level${level}/t.txt`, {
          body: text,
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(put.status, 201, level);
        const stub = await stubOf(`level${level}`, 't.txt');
        assert.deepEqual(
          [stub.digest, stub.length, stub.encoding, stub.encoded_length],
          [digest, text.length, encodedLength === undefined ? undefined : 'gzip', encodedLength],
          `level ${level}`,
        );
        // Inline data takes the same path.
        const inline = await t.request('PUT', `/db/inline${level}`, {
          body: { _attachments: { 't.txt': { content_type: 'text/plain', data: text.toString('base64') } } },
        });
        assert.equal((await stubOf(`inline${level}`, 't.txt')).digest, digest, `inline at level ${level}`);
        assert.equal(inline.status, 201);
        const back = await raw(t.url, 'GET', `/db/level${level}/t.txt`);
        assert.deepEqual(back.body, text);
      }
      for (const bad of ['10', '-1', 'high', '']) {
        const r = await t.request('PUT', config, { body: JSON.stringify(bad) });
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.equal(r.json.error, 'bad_request');
      }
      assert.equal((await t.request('GET', config)).json, '0');
    } finally {
      await t.request('DELETE', config);
    }
    // Back to the default: level 8.
    await raw(t.url, 'PUT', '/db/default/t.txt', { body: text, headers: { 'content-type': 'text/plain' } });
    assert.equal((await stubOf('default', 't.txt')).digest, 'md5-aGE3JuSX80EkDTiOsf+XMQ==');
  });
});

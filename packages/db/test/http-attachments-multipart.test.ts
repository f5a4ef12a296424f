/**
 * Multipart attachments: the replicator's `multipart/related` document PUT (parts streamed in,
 * length and type checks), and the multipart answers: a document with `Accept:
 * multipart/related`, `open_revs` as `multipart/mixed`, `_bulk_get` as `multipart/mixed`. A
 * property: any attachments written as multipart read back byte for byte, however the body
 * is cut into TCP writes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import { boundaryIn, raw, splitMultipart } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

const B = 'b0undary';

function multipartBody(doc: unknown, parts: (Buffer | string)[], boundary = B): Buffer {
  const out: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(doc)}`)];
  for (const part of parts) out.push(Buffer.from(`\r\n--${boundary}\r\n\r\n`), Buffer.from(part));
  out.push(Buffer.from(`\r\n--${boundary}--`));
  return Buffer.concat(out);
}

describe('multipart attachments', () => {
  let t: TestServer;
  const putMultipart = (
    path: string,
    body: Buffer | AsyncIterable<Uint8Array>,
    type = `multipart/related; boundary="${B}"`,
  ) => raw(t.url, 'PUT', path, { body, headers: { 'content-type': type } });
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  it('PUT multipart/related writes the JSON and its following parts, with stubs and inline data mixed in', async () => {
    const one = await t.request('PUT', '/db/m', { body: { _attachments: { kept: { data: 'S0VQVA==' } } } });
    const doc = {
      _rev: one.json.rev,
      title: 'm',
      _attachments: {
        kept: { stub: true },
        'a.txt': { follows: true, length: 5, content_type: 'text/plain' },
        inline: { data: 'SU4=' },
        'b.bin': { follows: true, length: 4 },
      },
    };
    const r = await putMultipart('/db/m', multipartBody(doc, ['hello', Buffer.from([1, 2, 3, 4])]));
    assert.equal(r.status, 201);
    assert.equal(r.headers.etag, `"${r.json.rev}"`);
    assert.equal(r.headers.location, `${t.url}/db/m`);
    const got = (await t.request('GET', '/db/m?attachments=true', { headers: { accept: 'application/json' } })).json;
    assert.equal(got.title, 'm');
    assert.deepEqual(
      Object.entries<any>(got._attachments).map(([name, att]) => [
        name,
        Buffer.from(att.data, 'base64').toString('hex'),
      ]),
      [
        ['kept', Buffer.from('KEPT').toString('hex')],
        ['a.txt', Buffer.from('hello').toString('hex')],
        ['inline', Buffer.from('IN').toString('hex')],
        ['b.bin', '01020304'],
      ],
    );
    assert.equal(got._attachments.kept.revpos, 1);
    assert.equal(got._attachments['a.txt'].revpos, 2);
  });

  it('replicator form: new_edits=false with _revisions, a gzip part stored as sent with its declared lengths, stubs from the ancestor', async () => {
    const text = 'replicated text '.repeat(50);
    const gz = gzipSync(text);
    const first = multipartBody(
      {
        _id: 'rep',
        _revisions: { start: 1, ids: ['aaa'] },
        _attachments: {
          't.txt': {
            content_type: 'text/plain',
            revpos: 1,
            follows: true,
            length: text.length,
            encoding: 'gzip',
            encoded_length: gz.length,
          },
        },
      },
      [gz],
    );
    const r1 = await putMultipart('/db/rep?new_edits=false', first);
    assert.equal(r1.status, 201);
    const stub = (await t.request('GET', '/db/rep?att_encoding_info=true')).json._attachments['t.txt'];
    assert.deepEqual(
      [stub.revpos, stub.length, stub.encoding, stub.encoded_length, stub.digest],
      [1, text.length, 'gzip', gz.length, `md5-${createHash('md5').update(gz).digest('base64')}`],
    );
    assert.equal((await raw(t.url, 'GET', '/db/rep/t.txt')).body.toString(), text);
    const second = multipartBody(
      {
        _id: 'rep',
        _revisions: { start: 2, ids: ['bbb', 'aaa'] },
        _attachments: { 't.txt': { stub: true, revpos: 1 }, 'n.bin': { follows: true, length: 3, revpos: 2 } },
      },
      ['new'],
    );
    const r2 = await putMultipart('/db/rep?new_edits=false', second);
    assert.equal(r2.status, 201);
    const doc = (await t.request('GET', '/db/rep')).json;
    assert.equal(doc._rev, '2-bbb');
    assert.deepEqual([doc._attachments['t.txt'].revpos, doc._attachments['n.bin'].revpos], [1, 2]);
  });

  it('a preamble, an epilogue, part headers and extra parts are ignored; the boundary may be unquoted', async () => {
    const body = Buffer.concat([
      Buffer.from('preamble\r\n'),
      multipartBody({ _attachments: { a: { follows: true, length: 2 } } }, ['hi', 'extra']),
      Buffer.from('\r\nepilogue'),
    ]);
    const r = await putMultipart('/db/pre', body, `multipart/related; boundary=${B}`);
    assert.equal(r.status, 201);
    assert.equal((await raw(t.url, 'GET', '/db/pre/a')).body.toString(), 'hi');
  });

  it('errors: lengths that do not match, a first part not JSON, a wrong multipart type; nothing written', async () => {
    const cases: [Buffer, string, number, string?][] = [
      [
        multipartBody({ _attachments: { a: { follows: true, length: 9 } } }, ['hi']),
        'm1',
        400,
        'attachment shorter than expected',
      ],
      [
        multipartBody({ _attachments: { a: { follows: true, length: 1 } } }, ['hi']),
        'm2',
        400,
        'attachment longer than expected',
      ],
      [
        multipartBody({ _attachments: { a: { follows: true, length: 2 }, b: { follows: true, length: 2 } } }, ['hi']),
        'm3',
        400,
      ],
      [Buffer.from(`--${B}\r\nContent-Type: text/plain\r\n\r\n{}\r\n--${B}--`), 'm4', 415],
      [Buffer.from(`--${B}\r\nContent-Type: application/json\r\n\r\n{`), 'm5', 400],
    ];
    for (const [body, id, status, reason] of cases) {
      const r = await putMultipart(`/db/${id}`, body);
      assert.equal(r.status, status, id);
      if (reason !== undefined) assert.equal(r.json.reason, reason, id);
      assert.equal((await t.request('GET', `/db/${id}`)).status, 404, id);
    }
    // Declared 0 bytes with a part that has some: a 0-byte attachment (CouchDB's quirk); the next
    // entry still gets its own part.
    const zero = await putMultipart(
      '/db/m7',
      multipartBody({ _attachments: { z: { follows: true, length: 0 }, n: { follows: true, length: 2 } } }, [
        'xyz',
        'ok',
      ]),
    );
    assert.equal(zero.status, 201);
    assert.equal((await raw(t.url, 'GET', '/db/m7/z')).body.length, 0);
    assert.equal((await raw(t.url, 'GET', '/db/m7/n')).body.toString(), 'ok');
    // Only exactly `multipart/related;` is multipart: anything else is read as JSON.
    const mixed = await putMultipart('/db/m6', multipartBody({}, []), `multipart/mixed; boundary="${B}"`);
    assert.deepEqual([mixed.status, mixed.json.reason], [400, 'invalid UTF-8 JSON']);
    const post = await raw(t.url, 'POST', '/db', {
      body: multipartBody({}, []),
      headers: { 'content-type': `multipart/related; boundary=${B}` },
    });
    assert.equal(post.status, 415);
  });

  it('GET with attachments=true answers multipart/related when accepted, with Content-Length and gzip parts', async () => {
    await t.request('PUT', '/db/g', {
      body: {
        _attachments: {
          'a.txt': { content_type: 'text/plain', data: Buffer.from('text text text').toString('base64') },
          'b.bin': { data: 'AAE=' },
        },
      },
    });
    const r = await raw(t.url, 'GET', '/db/g?attachments=true');
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type']!, /^multipart\/related; boundary="[0-9a-f]{32}"$/);
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.ok(r.body.toString('latin1').endsWith('--'));
    const parts = splitMultipart(r.body, boundaryIn(r.headers['content-type']));
    assert.equal(parts.length, 3);
    const doc = JSON.parse(parts[0]!.body.toString());
    assert.equal(parts[0]!.headers['content-type'], 'application/json');
    assert.deepEqual(doc._attachments['a.txt'].follows, true);
    assert.equal(doc._attachments['a.txt'].encoding, 'gzip');
    assert.equal(parts[1]!.headers['content-disposition'], 'attachment; filename="a.txt"');
    assert.equal(parts[1]!.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(parts[1]!.body).toString(), 'text text text');
    assert.deepEqual(parts[2]!.body, Buffer.from([0, 1]));
    for (const accept of ['application/json', 'multipart/related;q=0']) {
      const json = await raw(t.url, 'GET', '/db/g?attachments=true', { headers: { accept } });
      assert.equal(json.headers['content-type'], 'application/json', accept);
    }
    const current = (await t.request('GET', '/db/g')).json._rev;
    const since = await raw(t.url, 'GET', `/db/g?atts_since=${encodeURIComponent(JSON.stringify([current]))}`);
    assert.equal(since.headers['content-type'], 'application/json'); // every attachment a stub: JSON
  });

  it('open_revs as multipart/mixed, missing revs as error parts; _bulk_get as multipart/mixed', async () => {
    const one = await t.request('PUT', '/db/o', { body: { _attachments: { a: { data: 'QQ==' } } } });
    const revs = encodeURIComponent(JSON.stringify([one.json.rev, '9-missing']));
    const r = await raw(t.url, 'GET', `/db/o?open_revs=${revs}`, { headers: { accept: 'multipart/mixed' } });
    assert.match(r.headers['content-type']!, /^multipart\/mixed; boundary="[0-9a-f]{32}"$/);
    const outer = splitMultipart(r.body, boundaryIn(r.headers['content-type']));
    assert.equal(outer.length, 2);
    const inner = splitMultipart(outer[0]!.body, boundaryIn(outer[0]!.headers['content-type']));
    assert.equal(JSON.parse(inner[0]!.body.toString())._attachments.a.follows, true);
    assert.equal(inner[1]!.body.toString(), 'A');
    assert.equal(outer[1]!.headers['content-type'], 'application/json; error="true"');
    assert.deepEqual(JSON.parse(outer[1]!.body.toString()), { missing: '9-missing' });

    const bulk = await raw(t.url, 'POST', '/db/_bulk_get?revs=true', {
      body: JSON.stringify({ docs: [{ id: 'o' }, { id: 'nope' }] }),
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
    });
    const boundary = boundaryIn(bulk.headers['content-type']);
    assert.ok(boundary.startsWith('--'));
    assert.ok(bulk.body.toString().endsWith(`--${boundary}--\r\n`));
    const parts = splitMultipart(bulk.body, boundary);
    assert.equal(parts[0]!.headers['x-doc-id'], 'o');
    assert.equal(parts[0]!.headers['x-rev-id'], one.json.rev);
    const doc = splitMultipart(parts[0]!.body, boundaryIn(parts[0]!.headers['content-type']));
    assert.deepEqual(JSON.parse(doc[0]!.body.toString())._revisions.start, 1);
    assert.equal(doc[1]!.body.toString(), 'A');
    assert.equal(JSON.parse(parts[1]!.body.toString()).error, 'not_found');
  });

  it('property: attachments written as multipart read back exactly, however the body is cut', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
        async (contents, cuts) => {
          const id = `prop${n++}`;
          const atts: Record<string, unknown> = {};
          contents.forEach((c, i) => {
            atts[`f${i}`] = { follows: true, length: c.length, content_type: i % 2 === 0 ? 'text/plain' : 'x/bin' };
          });
          const body = multipartBody(
            { _attachments: atts },
            contents.map((c) => Buffer.from(c)),
          );
          const pieces = async function* () {
            let at = 0;
            for (let k = 0; at < body.length; k++) {
              const size = cuts[k % cuts.length]!;
              yield body.subarray(at, at + size);
              at += size;
            }
          };
          const r = await putMultipart(`/db/${id}`, pieces());
          assert.equal(r.status, 201, JSON.stringify(r.json));
          for (const [i, c] of contents.entries()) {
            const got = await raw(t.url, 'GET', `/db/${id}/f${i}`);
            assert.deepEqual(got.body, Buffer.from(c));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

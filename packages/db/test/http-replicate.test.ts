/**
 * Server-side replication (`POST /_replicate`) against real servers on loopback: between two
 * databases of one server (in process), between two servers (remote both ways), with conflicts,
 * deletions, design documents and attachments carried and `_local` documents left behind;
 * `doc_ids`, `selector` and design filters; continuous jobs and their cancel; resuming from the
 * checkpoint; a target whose validate function refuses some documents; a non-admin's job acting
 * with that user's rights only. Credentials never appear in an answer or a log line.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';
import { basic, createUser } from './support/users.js';

const ATTACHMENT = Buffer.from('hello, attachment').toString('base64');

/** A source with plain docs, a conflict, a deletion, a design doc, an attachment and a `_local` doc. */
async function fill(t: TestServer, db: string): Promise<void> {
  assert.equal((await t.request('PUT', `/${db}`)).status, 201);
  const docs = [
    { _id: 'b', n: 2 },
    { _id: 'gone', n: 3 },
    { _id: 'att', _attachments: { 'a.txt': { content_type: 'text/plain', data: ATTACHMENT } } },
    { _id: '_design/d', views: { v: { map: 'function (doc) { emit(doc.n, null); }' } } },
  ];
  // Sent as text: `1.0` stays a float (JSON.stringify would write 1).
  assert.equal((await t.request('PUT', `/${db}/a`, { body: '{"n":1,"float":1.0}' })).status, 201);
  const written = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
  assert.equal(written.status, 201);
  const gone = written.json.find((row: { id: string }) => row.id === 'gone');
  assert.equal((await t.request('DELETE', `/${db}/gone?rev=${gone.rev}`)).status, 200);
  // A conflict on `b`: a second branch written as a replicator would.
  const branch = { _id: 'b', _rev: '1-ffffffffffffffffffffffffffffffff', n: 22 };
  assert.equal(
    (await t.request('POST', `/${db}/_bulk_docs`, { body: { docs: [branch], new_edits: false } })).status,
    201,
  );
  assert.equal((await t.request('PUT', `/${db}/_local/private`, { body: { secret: true } })).status, 201);
}

/** What must be the same on both sides after a full replication. */
async function assertCarried(source: TestServer, sourceDb: string, target: TestServer, targetDb: string) {
  for (const id of ['a', 'b', 'att', '_design/d']) {
    const path = `/${id.startsWith('_design/') ? id : encodeURIComponent(id)}?conflicts=true&revs=true`;
    const s = await source.request('GET', `/${sourceDb}${path}`);
    const t = await target.request('GET', `/${targetDb}${path}`);
    assert.equal(t.status, 200, `${id} on the target`);
    assert.deepEqual(t.json, s.json, id);
  }
  const gone = await target.request('GET', `/${targetDb}/gone`);
  assert.deepEqual([gone.status, gone.json.reason], [404, 'deleted']);
  const sourceGone = await source.request('GET', `/${sourceDb}/gone?open_revs=all`, {
    headers: { accept: 'application/json' },
  });
  const targetGone = await target.request('GET', `/${targetDb}/gone?open_revs=all`, {
    headers: { accept: 'application/json' },
  });
  assert.deepEqual(targetGone.json, sourceGone.json);
  // Exact JSON: the float stays a float.
  assert.match((await target.request('GET', `/${targetDb}/a`)).text, /"float":1\.0/);
  const att = await target.request('GET', `/${targetDb}/att/a.txt`);
  assert.deepEqual([att.status, att.text, att.headers.get('content-type')], [200, 'hello, attachment', 'text/plain']);
  assert.equal((await target.request('GET', `/${targetDb}/_local/private`)).status, 404);
}

/** A request the proxy passed on (or answered itself), with what was asked for and answered. */
interface Seen {
  method: string;
  url: string;
  accept: string;
  answered: string;
}

/**
 * A proxy in front of `peer` that records every request; `withoutBulkGet` answers `_bulk_get` as
 * a server from before it would, `busyChanges` answers the first `_changes` with a 503.
 */
async function proxyTo(
  peer: TestServer,
  options: { withoutBulkGet?: boolean; busyChanges?: boolean } = {},
): Promise<{ url: string; seen: Seen[]; busy: () => boolean; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let busy = options.busyChanges === true;
  const proxy: Server = createServer(async (req, res) => {
    const entry = { method: req.method!, url: req.url!, accept: req.headers.accept ?? '', answered: '' };
    seen.push(entry);
    if (req.url?.includes('/_changes') && busy) {
      busy = false;
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":"service_unavailable","reason":"busy"}');
      return;
    }
    if (req.url?.includes('/_bulk_get') && options.withoutBulkGet === true) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found","reason":"missing"}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
    ) as Record<string, string>;
    const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
    const reply = await fetch(`${peer.url}${req.url}`, {
      method: req.method!,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    entry.answered = reply.headers.get('content-type') ?? 'application/json';
    res.writeHead(reply.status, { 'content-type': entry.answered });
    res.end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    busy: () => busy,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

function replicate(t: TestServer, body: Record<string, unknown>, auth?: string) {
  return t.request('POST', '/_replicate', { body, ...(auth === undefined ? {} : { auth }) });
}

describe('POST /_replicate', () => {
  let t: TestServer;
  let peer: TestServer;
  const log: string[] = [];
  const answers: string[] = [];
  before(async () => {
    t = await startTestServer({ log: (line) => log.push(line) });
    peer = await startTestServer({ log: (line) => log.push(line) });
  });
  after(async () => {
    // No password of any endpoint in any answer or log line of the suite.
    for (const text of [...answers, ...log]) {
      assert.doesNotMatch(text, new RegExp(`${ADMIN.password}|bobpass`), text);
    }
    await t.close();
    await peer.close();
  });

  async function run(server: TestServer, body: Record<string, unknown>, auth?: string) {
    const r = await replicate(server, body, auth);
    answers.push(r.text);
    return r;
  }

  it('create_target_params for a local target: q, n and partitioned taken as PUT /db takes them, others refused by name', async () => {
    await fill(t, 'ctp-src');
    const refused = await replicate(t, {
      source: 'ctp-src',
      target: 'ctp-tgt1',
      create_target: true,
      create_target_params: { q: 8, placement: 'x' },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error, 'bad_request');
    assert.match(refused.json.reason, /create_target_params\.placement is not supported/);
    assert.equal((await t.request('GET', '/ctp-tgt1')).status, 404);
    const badQ = await replicate(t, {
      source: 'ctp-src',
      target: 'ctp-tgt1',
      create_target: true,
      create_target_params: { q: 0 },
    });
    assert.equal(badQ.status, 400, badQ.text);
    const ok = await replicate(t, {
      source: 'ctp-src',
      target: 'ctp-tgt2',
      create_target: true,
      create_target_params: { q: 8, n: 3 },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual((await t.request('GET', '/ctp-tgt2')).json.props, {});
  });

  it('between two local databases: everything but _local docs, a one-shot answer as CouchDB gives it', async () => {
    await fill(t, 'src');
    const r = await run(t, { source: 'src', target: 'tgt', create_target: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ok, true);
    assert.equal(r.json.replication_id_version, 4);
    assert.equal(typeof r.json.session_id, 'string');
    assert.equal(r.json.source_last_seq, (await t.request('GET', '/src')).json.update_seq);
    const [entry] = r.json.history;
    assert.equal(entry.session_id, r.json.session_id);
    assert.deepEqual(
      [entry.missing_checked, entry.missing_found, entry.docs_read, entry.docs_written, entry.doc_write_failures],
      [6, 6, 6, 6, 0],
    );
    for (const key of ['start_time', 'end_time', 'start_last_seq', 'end_last_seq', 'recorded_seq']) {
      assert.ok(key in entry, key);
    }
    await assertCarried(t, 'src', t, 'tgt');
    // The checkpoint on both sides, in CouchDB's shape, named by the id's base (no `+create_target`, as CouchDB's).
    const locals = await t.request('GET', '/tgt/_local_docs');
    const checkpointId = locals.json.rows
      .map((row: { id: string }) => row.id)
      .find((id: string) => id !== '_local/private');
    assert.match(checkpointId, /^_local\/[0-9a-f]{32}$/);
    for (const db of ['src', 'tgt']) {
      const doc = await t.request('GET', `/${db}/_local/${encodeURIComponent(checkpointId.slice(7))}`);
      assert.equal(doc.status, 200, `${db}: ${doc.text}`);
      assert.deepEqual(
        [doc.json.session_id, doc.json.source_last_seq, doc.json.replication_id_version, doc.json.history.length],
        [r.json.session_id, r.json.source_last_seq, 4, 1],
      );
    }
  });

  it('resumes from its checkpoint: nothing new reads nothing; one new doc reads one', async () => {
    const first = await run(t, { source: 'src', target: 'tgt', create_target: true });
    assert.deepEqual([first.status, first.json], [200, { ok: true, no_changes: true }]);
    const lastSeq = (await t.request('GET', '/src')).json.update_seq;
    assert.equal((await t.request('PUT', '/src/later', { body: { n: 4 } })).status, 201);
    const second = await run(t, { source: 'src', target: 'tgt', create_target: true });
    assert.equal(second.status, 200);
    const [entry, previous] = second.json.history;
    assert.deepEqual([entry.docs_read, entry.docs_written, entry.start_last_seq], [1, 1, lastSeq]);
    assert.equal(previous.docs_written, 6);
    // Without checkpoints the whole source is checked again (and nothing is missing).
    const again = await run(t, { source: 'src', target: 'tgt', create_target: true, use_checkpoints: false });
    assert.equal(again.status, 200);
    assert.deepEqual([again.json.history[0].missing_checked, again.json.history[0].missing_found], [7, 0]);
    assert.equal(again.json.history.length, 1);
    assert.equal((await t.request('GET', '/tgt/later')).json.n, 4);
  });

  it('attachments travel as stored: a gzip stream keeps its bytes and digest, in process and pushed (multipart PUT)', async () => {
    assert.equal((await t.request('PUT', '/stored')).status, 201);
    // Compressed at level 1: compressed again by the target (level 8), its bytes and digest would differ.
    const gz = gzipSync(Buffer.from('compress me, '.repeat(5000)), { level: 1 });
    const upload = await t.request('PUT', '/stored/doc/a.txt', {
      body: gz,
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.equal(upload.status, 201, upload.text);
    const more = await t.request('PUT', `/stored/doc/b.bin?rev=${upload.json.rev}`, {
      body: Buffer.from([0, 1, 2, 3, 255]),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(more.status, 201, more.text);
    const local = await run(t, { source: 'stored', target: 'stored_local', create_target: true });
    assert.equal(local.status, 200, local.text);
    const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
    const pushed = await run(t, {
      source: 'stored',
      target: { url: `${peer.url}/stored_pushed`, auth: peerAuth },
      create_target: true,
    });
    assert.equal(pushed.status, 200, pushed.text);
    assert.equal(pushed.json.history[0].docs_written, 1);
    const stubs = async (server: TestServer, db: string) =>
      (await server.request('GET', `/${db}/doc?att_encoding_info=true`)).json._attachments;
    const source = await stubs(t, 'stored');
    assert.equal(source['a.txt'].encoding, 'gzip');
    assert.deepEqual(await stubs(t, 'stored_local'), source);
    assert.deepEqual(await stubs(peer, 'stored_pushed'), source);
    const bytes = await peer.request('GET', '/stored_pushed/doc/b.bin');
    assert.deepEqual([...Buffer.from(bytes.text, 'latin1')].slice(0, 4), [0, 1, 2, 3]);
  });

  it('a push sends documents with small plain attachments inline in one _bulk_docs; large or gzip ones by multipart PUT', async () => {
    assert.equal((await t.request('PUT', '/inline_src')).status, 201);
    const data = (text: string) => Buffer.from(text).toString('base64');
    const small = (i: number) => ({
      _id: `s${i}`,
      n: i,
      _attachments: {
        // Not a compressible type: stored plain (a text/* one is stored gzip, and goes in a part).
        'a.txt': { content_type: 'application/x-small', data: data(`small ${i}`) },
        'b.bin': {
          content_type: 'application/octet-stream',
          data: Buffer.from([0, i, 255, 13, 10]).toString('base64'),
        },
      },
    });
    const large = Buffer.alloc(70 * 1024, 7);
    const docs = [
      small(0),
      small(1),
      small(2),
      { _id: 'plain', n: 9 },
      {
        _id: 'large',
        _attachments: { 'l.bin': { content_type: 'application/octet-stream', data: large.toString('base64') } },
      },
    ];
    assert.equal((await t.request('POST', '/inline_src/_bulk_docs', { body: { docs } })).status, 201);
    const gz = gzipSync(Buffer.from('zip me, '.repeat(2000)), { level: 1 });
    const upload = await t.request('PUT', '/inline_src/gz/a.txt', {
      body: gz,
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.equal(upload.status, 201, upload.text);
    // A later revision of s0: its kept attachment goes as a stub beside the new one's data.
    const s0 = (await t.request('GET', '/inline_src/s0')).json;
    const added = await t.request('PUT', `/inline_src/s0/c.txt?rev=${s0._rev}`, {
      body: 'third',
      headers: { 'content-type': 'application/x-small' },
    });
    assert.equal(added.status, 201, added.text);
    const proxy = await proxyTo(peer);
    try {
      const pushed = await run(t, {
        source: 'inline_src',
        target: { url: `${proxy.url}/inline_dst`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } },
        create_target: true,
      });
      assert.equal(pushed.status, 200, pushed.text);
      assert.deepEqual([pushed.json.history[0].docs_written, pushed.json.history[0].doc_write_failures], [6, 0]);
      const puts = proxy.seen
        .filter((entry) => entry.method === 'PUT' && !entry.url.includes('/_local/'))
        .map((entry) => entry.url.replace(/\?.*/, ''));
      assert.deepEqual(puts.sort(), ['/inline_dst', '/inline_dst/gz', '/inline_dst/large'], JSON.stringify(proxy.seen));
      const bulk = proxy.seen.filter((entry) => entry.url.startsWith('/inline_dst/_bulk_docs'));
      // One for `plain` (sent as stored), one for the three with their attachments inline.
      assert.equal(bulk.length, 2, JSON.stringify(proxy.seen));
    } finally {
      await proxy.close();
    }
    const stubs = async (server: TestServer, id: string, db: string) =>
      (await server.request('GET', `/${db}/${id}?att_encoding_info=true&revs=true`)).json;
    for (const id of ['s0', 's1', 's2', 'plain', 'large', 'gz']) {
      assert.deepEqual(await stubs(peer, id, 'inline_dst'), await stubs(t, id, 'inline_src'), id);
    }
    assert.equal((await peer.request('GET', '/inline_dst/s1/a.txt')).text, 'small 1');
    assert.equal((await peer.request('GET', '/inline_dst/s0/c.txt')).text, 'third');
    const bin = await fetch(`${peer.url}/inline_dst/s2/b.bin`, {
      headers: { authorization: basic(ADMIN.name, ADMIN.password) },
    });
    assert.deepEqual([...Buffer.from(await bin.arrayBuffer())], [0, 2, 255, 13, 10]);
    const big = await fetch(`${peer.url}/inline_dst/large/l.bin`, {
      headers: { authorization: basic(ADMIN.name, ADMIN.password) },
    });
    assert.deepEqual(Buffer.from(await big.arrayBuffer()), large);
  });

  it('a later revision of a document with attachments: kept ones travel as stubs, new ones with their data', async () => {
    const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
    const push = { source: 'src', target: { url: `${peer.url}/att_push`, auth: peerAuth }, create_target: true };
    assert.equal((await run(t, push)).status, 200);
    const att = (await t.request('GET', '/src/att')).json;
    att.note = 'edited';
    att._attachments['b.txt'] = { content_type: 'text/plain', data: Buffer.from('second').toString('base64') };
    assert.equal((await t.request('PUT', '/src/att', { body: att })).status, 201);
    for (const [server, db, body] of [
      [t, 'tgt', { source: 'src', target: 'tgt', create_target: true }],
      [peer, 'att_push', push],
    ] as const) {
      const r = await run(t, body);
      assert.equal(r.status, 200, r.text);
      const copy = await server.request('GET', `/${db}/att`);
      assert.deepEqual(copy.json, (await t.request('GET', '/src/att')).json);
      assert.equal((await server.request('GET', `/${db}/att/a.txt`)).text, 'hello, attachment');
      assert.equal((await server.request('GET', `/${db}/att/b.txt`)).text, 'second');
    }
  });

  it('doc_ids and selector replicate only what they name; together a 400', async () => {
    const ids = await run(t, { source: 'src', target: 'by_ids', create_target: true, doc_ids: ['a', 'att'] });
    assert.equal(ids.status, 200, ids.text);
    const idRows = (await t.request('GET', '/by_ids/_all_docs')).json.rows.map((row: { id: string }) => row.id);
    assert.deepEqual(idRows, ['a', 'att']);
    const selected = await run(t, {
      source: 'src',
      target: 'by_sel',
      create_target: true,
      selector: { n: { $gt: 1 } },
    });
    assert.equal(selected.status, 200, selected.text);
    const selRows = (await t.request('GET', '/by_sel/_all_docs')).json.rows.map((row: { id: string }) => row.id);
    assert.deepEqual(selRows, ['b', 'later']);
    const both = await run(t, { source: 'src', target: 'x', doc_ids: ['a'], selector: { n: 1 } });
    assert.deepEqual([both.status, both.json.error], [400, 'bad_request']);
    assert.match(both.json.reason, /mutually exclusive/);
  });

  it('a design filter with query_params, on a local and on a remote source', async () => {
    const filters = { only: 'function (doc, req) { return doc.n == Number(req.query.n); }' };
    assert.equal((await t.request('PUT', '/src/_design/f', { body: { filters } })).status, 201);
    const local = await run(t, {
      source: 'src',
      target: 'by_filter',
      create_target: true,
      filter: 'f/only',
      query_params: { n: '2' },
    });
    assert.equal(local.status, 200, local.text);
    assert.deepEqual(
      (await t.request('GET', '/by_filter/_all_docs')).json.rows.map((row: { id: string }) => row.id),
      ['b'],
    );
    const remote = await run(t, {
      source: { url: `${t.url}/src`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } },
      target: 'by_remote_filter',
      create_target: true,
      filter: 'f/only',
      query_params: { n: '4' },
    });
    assert.equal(remote.status, 200, remote.text);
    assert.deepEqual(
      (await t.request('GET', '/by_remote_filter/_all_docs')).json.rows.map((row: { id: string }) => row.id),
      ['later'],
    );
    const notStrings = await run(t, { source: 'src', target: 'x', filter: 'f/only', query_params: { n: 2 } });
    assert.deepEqual([notStrings.status, notStrings.json.error], [400, 'bad_request']);
  });

  it('between two servers, remote both ways (auth object and user:pass in the URL)', async () => {
    const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
    const push = await run(t, {
      source: 'src',
      target: { url: `${peer.url}/pushed`, auth: peerAuth },
      create_target: true,
    });
    assert.equal(push.status, 200, push.text);
    await assertCarried(t, 'src', peer, 'pushed');
    const withCreds = peer.url.replace('http://', `http://${ADMIN.name}:${ADMIN.password}@`);
    const pull = await run(t, { source: `${withCreds}/pushed`, target: 'pulled', create_target: true });
    assert.equal(pull.status, 200, pull.text);
    await assertCarried(peer, 'pushed', t, 'pulled');
    // Again: the remote checkpoints are found, nothing new is read.
    const again = await run(t, { source: `${withCreds}/pushed`, target: 'pulled', create_target: true });
    assert.deepEqual(again.json, { ok: true, no_changes: true });
    // CouchDB 3's precedence: `auth` over the URL's user info, that over an Authorization header.
    const wrongInUrl = peer.url.replace('http://', `http://${ADMIN.name}:wrong@`);
    const authWins = await run(t, {
      source: { url: `${wrongInUrl}/pushed`, auth: peerAuth },
      target: 'pulled-auth',
      create_target: true,
    });
    assert.equal(authWins.status, 200, authWins.text);
    const wrongHeader = `Basic ${Buffer.from(`${ADMIN.name}:wrong`).toString('base64')}`;
    const urlWins = await run(t, {
      source: { url: `${withCreds}/pushed`, headers: { Authorization: wrongHeader } },
      target: 'pulled-url',
      create_target: true,
    });
    assert.equal(urlWins.status, 200, urlWins.text);
    // Remote to remote, through this server.
    const both = await run(t, {
      source: { url: `${peer.url}/pushed`, auth: peerAuth },
      target: { url: `${peer.url}/copied`, auth: peerAuth },
      create_target: true,
    });
    assert.equal(both.status, 200, both.text);
    await assertCarried(peer, 'pushed', peer, 'copied');
  });

  it('bad requests get a clear 4xx', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ target: 'tgt' }, 400, 'bad_request'],
      [{ source: 'src' }, 400, 'bad_request'],
      [{ source: 'Not A Name!', target: 'tgt' }, 400, 'bad_request'],
      [{ source: 'nosuch', target: 'tgt' }, 404, 'db_not_found'],
      [{ source: 'src', target: 'nosuch' }, 404, 'db_not_found'],
      [{ source: `${peer.url}/nosuch`, target: 'tgt' }, 404, 'db_not_found'],
      [{ source: `${peer.url}/pushed`, target: 'tgt' }, 401, 'unauthorized'],
      [
        {
          source: { url: `${peer.url}/nosuch`, auth: { basic: { username: 'admin', password: 'secret' } } },
          target: 'tgt',
        },
        404,
        'db_not_found',
      ],
      [{ source: 'src', target: 'tgt', continuous: 'yes' }, 400, 'bad_request'],
      [{ source: 'src', target: 'tgt', retries_per_request: -1 }, 400, 'bad_request'],
      // Proxies are not built: refused by name rather than ignored.
      [{ source: 'src', target: 'tgt', proxy: 'http://127.0.0.1:3128' }, 400, 'bad_request'],
      [{ source: 'src', target: 'tgt', source_proxy: 'http://127.0.0.1:3128' }, 400, 'bad_request'],
      // Nothing listens there: said as a bad gateway, at once without retries.
      [{ source: 'http://127.0.0.1:1/db', target: 'tgt', retries_per_request: 0 }, 502, 'replication_failed'],
    ];
    for (const [body, status, error] of cases) {
      const r = await run(t, body);
      assert.deepEqual([r.status, r.json.error], [status, error], JSON.stringify(body));
    }
  });

  it('continuous: a write on the source appears on the target; listed as a task; cancelled by body or id', async () => {
    const body = { source: 'src', target: 'live', create_target: true, continuous: true };
    const started = await run(t, body);
    assert.equal(started.status, 202, started.text);
    assert.equal(started.json.ok, true);
    const localId = started.json._local_id as string;
    assert.match(localId, /^[0-9a-f]{32}\+continuous\+create_target$/);
    await until(async () => (await t.request('GET', '/live/later')).status === 200, 'the first catch-up');
    assert.equal((await t.request('PUT', '/src/fresh', { body: { n: 5 } })).status, 201);
    await until(async () => (await t.request('GET', '/live/fresh')).status === 200, 'a new write carried');
    const tasks = (await t.request('GET', '/_active_tasks')).json as Record<string, unknown>[];
    const task = tasks.find((entry) => entry.type === 'replication');
    assert.ok(task !== undefined, JSON.stringify(tasks));
    assert.deepEqual([task.replication_id, task.continuous, task.source, task.target], [localId, true, 'src', 'live']);
    assert.ok((task.docs_written as number) >= 8);
    const jobs = (await t.request('GET', '/_scheduler/jobs')).json;
    assert.deepEqual([jobs.total_rows, jobs.jobs[0].id], [1, localId]);
    assert.equal((await t.request('GET', `/_scheduler/jobs/${encodeURIComponent(localId)}`)).json.id, localId);
    // Starting it again is the same job.
    assert.deepEqual((await run(t, body)).json, { ok: true, _local_id: localId });
    const cancelled = await run(t, { ...body, cancel: true });
    assert.deepEqual([cancelled.status, cancelled.json], [200, { ok: true, _local_id: localId }]);
    assert.equal((await run(t, { replication_id: localId, cancel: true })).status, 404);
    assert.equal((await t.request('GET', '/_scheduler/jobs')).json.total_rows, 0);
    // Stopped: a later write stays on the source.
    assert.equal((await t.request('PUT', '/src/after_cancel', { body: {} })).status, 201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await t.request('GET', '/live/after_cancel')).status, 404);

    // A remote continuous job, cancelled by its id.
    const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
    const remote = await run(t, {
      source: { url: `${peer.url}/pushed`, auth: peerAuth },
      target: 'live_remote',
      create_target: true,
      continuous: true,
    });
    assert.equal(remote.status, 202);
    assert.equal((await peer.request('PUT', '/pushed/from_peer', { body: {} })).status, 201);
    await until(
      async () => (await t.request('GET', '/live_remote/from_peer')).status === 200,
      'a remote write carried',
    );
    // Shown without credentials wherever a job is listed.
    const listed = [await t.request('GET', '/_active_tasks'), await t.request('GET', '/_scheduler/jobs')];
    answers.push(...listed.map((reply) => reply.text));
    const remoteTask = listed[0]!.json.find((entry: { source: string }) => entry.source === `${peer.url}/pushed/`);
    assert.ok(remoteTask !== undefined, listed[0]!.text);
    const byId = await run(t, { replication_id: remote.json._local_id, cancel: true });
    assert.deepEqual(byId.json, { ok: true, _local_id: remote.json._local_id });
  });

  it("a target's validate function refuses some documents: counted and logged by id, the others written", async () => {
    assert.equal((await t.request('PUT', '/picky')).status, 201);
    const validate = 'function (doc) { if (doc.n === 2) throw({forbidden: "no twos"}); }';
    assert.equal((await t.request('PUT', '/picky/_design/v', { body: { validate_doc_update: validate } })).status, 201);
    const r = await run(t, { source: 'src', target: 'picky', doc_ids: ['a', 'b', 'later'] });
    assert.equal(r.status, 200, r.text);
    const [entry] = r.json.history;
    // `b` has two leaves: the validate function refuses both (n 2 and n 22 is let through).
    assert.deepEqual([entry.docs_read, entry.docs_written, entry.doc_write_failures], [4, 3, 1]);
    assert.equal((await t.request('GET', '/picky/a')).status, 200);
    assert.equal((await t.request('GET', '/picky/later')).status, 200);
    assert.ok(
      log.some((line) => line.includes("couldn't write document `b`") && line.includes('no twos')),
      log.join('\n'),
    );
  });

  it("a non-admin's job acts with the user's rights only", async () => {
    await createUser(t, 'bob', 'bobpass');
    const bob = basic('bob', 'bobpass');
    for (const db of ['bobs', 'bobs_copy']) {
      assert.equal((await t.request('PUT', `/${db}`)).status, 201);
      const security = { members: { names: ['bob'] }, admins: { names: [] } };
      assert.equal((await t.request('PUT', `/${db}/_security`, { body: security })).status, 200);
    }
    assert.equal((await t.request('PUT', '/bobs/mine', { body: { n: 1 }, auth: bob })).status, 201);
    // Not a member of `src` (admin-only): refused, nothing read.
    const notMember = await run(t, { source: 'src', target: 'bobs_copy' }, bob);
    assert.ok([401, 403].includes(notMember.status), notMember.text);
    // Not a member of the target.
    const notTarget = await run(t, { source: 'bobs', target: 'tgt' }, bob);
    assert.ok([401, 403].includes(notTarget.status), notTarget.text);
    // Creating a database is an admin's right.
    const create = await run(t, { source: 'bobs', target: 'bobs_new', create_target: true }, bob);
    assert.deepEqual([create.status, create.json.error], [401, 'unauthorized']);
    // A design document needs a DB admin: bob's job cannot write one; his own document goes.
    assert.equal((await t.request('PUT', '/bobs/_design/x', { body: { views: {} } })).status, 201);
    const r = await run(t, { source: 'bobs', target: 'bobs_copy' }, bob);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.history[0].docs_written, r.json.history[0].doc_write_failures], [1, 1]);
    assert.equal((await t.request('GET', '/bobs_copy/mine')).status, 200);
    assert.equal((await t.request('GET', '/bobs_copy/_design/x')).status, 404);
    // A continuous job of bob's stops writing when bob stops being a member of the target.
    const live = await run(t, { source: 'bobs', target: 'bobs_copy', continuous: true }, bob);
    assert.equal(live.status, 202, live.text);
    assert.equal((await t.request('PUT', '/bobs/while_member', { body: {}, auth: bob })).status, 201);
    await until(async () => (await t.request('GET', '/bobs_copy/while_member')).status === 200, 'a write carried');
    const adminOnly = { members: { roles: ['_admin'] }, admins: { names: [] } };
    assert.equal((await t.request('PUT', '/bobs_copy/_security', { body: adminOnly })).status, 200);
    // `bobs` stays his: a write there no longer reaches `bobs_copy`.
    const security = { members: { names: ['bob'] }, admins: { names: [] } };
    assert.equal((await t.request('PUT', '/bobs/_security', { body: security })).status, 200);
    assert.equal((await t.request('PUT', '/bobs/after_removal', { body: {}, auth: bob })).status, 201);
    // It crashes (logged, and in its history), backing off as the scheduler's jobs do.
    await until(
      async () => log.some((line) => line.includes(live.json._local_id) && line.includes('crashed')),
      'the job fails',
    );
    const crashed = await t.request('GET', `/_scheduler/jobs/${encodeURIComponent(live.json._local_id)}`);
    assert.ok(
      crashed.json.history.some((event: { type: string; reason?: string }) => event.type === 'crashed' && event.reason),
      crashed.text,
    );
    assert.equal((await t.request('GET', '/bobs_copy/after_removal')).status, 404);
    assert.equal((await run(t, { replication_id: live.json._local_id, cancel: true }, bob)).status, 200);
    // Bob cannot cancel an admin's job.
    const job = await run(t, { source: 'src', target: 'live', continuous: true });
    const cancel = await run(t, { replication_id: job.json._local_id, cancel: true }, bob);
    assert.deepEqual([cancel.status, cancel.json.error], [401, 'unauthorized']);
    assert.equal((await run(t, { replication_id: job.json._local_id, cancel: true })).status, 200);
  });

  it('winning_revs_only carries winners only; since_seq starts where it says', async () => {
    const winners = await run(t, { source: 'src', target: 'winners', create_target: true, winning_revs_only: true });
    assert.equal(winners.status, 200, winners.text);
    const b = await t.request('GET', '/winners/b?conflicts=true');
    assert.deepEqual([b.json._rev, b.json._conflicts], [(await t.request('GET', '/src/b')).json._rev, undefined]);
    const seq = (await t.request('GET', '/src')).json.update_seq;
    assert.equal((await t.request('PUT', '/src/newest', { body: {} })).status, 201);
    const since = await run(t, { source: 'src', target: 'since', create_target: true, since_seq: seq });
    assert.equal(since.status, 200, since.text);
    const rows = (await t.request('GET', '/since/_all_docs')).json.rows.map((row: { id: string }) => row.id);
    assert.deepEqual(rows, ['newest']);
  });

  it('a peer without _bulk_get is read with open_revs; a 503 is asked again', async () => {
    // A proxy to the peer that answers `_bulk_get` as a server from before it would.
    // It also answers the first `_changes` with a 503: the request is sent again.
    const proxy = await proxyTo(peer, { withoutBulkGet: true, busyChanges: true });
    try {
      const r = await run(t, {
        source: {
          url: `${proxy.url}/pushed`,
          auth: { basic: { username: ADMIN.name, password: ADMIN.password } },
        },
        target: 'from_old_peer',
        create_target: true,
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(proxy.busy(), false);
      await assertCarried(peer, 'pushed', t, 'from_old_peer');
    } finally {
      await proxy.close();
    }
  });

  it('attachments pulled from a remote source come as multipart parts, as stored (_bulk_get, or open_revs)', async () => {
    assert.equal((await peer.request('PUT', '/pull_parts')).status, 201);
    const gz = gzipSync(Buffer.from('pull me, '.repeat(5000)), { level: 1 });
    const upload = await peer.request('PUT', '/pull_parts/doc/a.txt', {
      body: gz,
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.equal(upload.status, 201, upload.text);
    const binary = Buffer.from([0, 1, 2, 3, 255, 13, 10, 45, 45]);
    const more = await peer.request('PUT', `/pull_parts/doc/b.bin?rev=${upload.json.rev}`, {
      body: binary,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(more.status, 201, more.text);
    assert.equal((await peer.request('PUT', '/pull_parts/plain', { body: { n: 1 } })).status, 201);
    const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
    const stubs = async (server: TestServer, db: string) =>
      (await server.request('GET', `/${db}/doc?att_encoding_info=true`)).json._attachments;
    const source = await stubs(peer, 'pull_parts');
    assert.equal(source['a.txt'].encoding, 'gzip');
    for (const withoutBulkGet of [false, true]) {
      const proxy = await proxyTo(peer, { withoutBulkGet });
      const target = withoutBulkGet ? 'pulled_parts_old' : 'pulled_parts';
      try {
        const r = await run(t, {
          source: { url: `${proxy.url}/pull_parts`, auth: peerAuth },
          target,
          create_target: true,
        });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.history[0].docs_written, 2);
        // The attachment bytes came as multipart parts, never as base64 inside JSON.
        const multipart = proxy.seen.filter((entry) => entry.answered.startsWith('multipart/mixed'));
        for (const entry of multipart) assert.equal(entry.accept, 'multipart/mixed');
        const urls = multipart.map((entry) => entry.url.replace(/\?.*/, ''));
        // With `_bulk_get`: one request for the document with attachments (the other came in the
        // first, JSON, `_bulk_get`); without: one `open_revs` read per document, as CouchDB's.
        assert.deepEqual(
          urls.sort(),
          withoutBulkGet ? ['/pull_parts/doc', '/pull_parts/plain'] : ['/pull_parts/_bulk_get'],
          JSON.stringify(proxy.seen),
        );
        for (const entry of multipart) assert.match(entry.url, withoutBulkGet ? /open_revs=/ : /attachments=true/);
        const inline = proxy.seen.filter(
          (entry) => entry.url.includes('attachments=true') && !entry.answered.startsWith('multipart/mixed'),
        );
        assert.deepEqual(inline, []);
      } finally {
        await proxy.close();
      }
      // As stored: the gzip stream with its digest and encoding, the binary byte for byte.
      assert.deepEqual(await stubs(t, target), source);
      const bytes = await fetch(`${t.url}/${target}/doc/b.bin`, {
        headers: { authorization: basic(ADMIN.name, ADMIN.password) },
      });
      assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), binary);
      assert.equal((await t.request('GET', `/${target}/doc/a.txt`)).text, 'pull me, '.repeat(5000));
      assert.equal((await t.request('GET', `/${target}/plain`)).json.n, 1);
    }
    // A later revision: the kept attachments travel as stubs (atts_since), the new one as a part.
    const doc = (await peer.request('GET', '/pull_parts/doc')).json;
    const added = await peer.request('PUT', `/pull_parts/doc/c.txt?rev=${doc._rev}`, {
      body: 'third',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(added.status, 201, added.text);
    const again = await run(t, { source: { url: `${peer.url}/pull_parts`, auth: peerAuth }, target: 'pulled_parts' });
    assert.equal(again.status, 200, again.text);
    assert.equal((await t.request('GET', '/pulled_parts/doc/c.txt')).text, 'third');
    assert.deepEqual(await stubs(t, 'pulled_parts'), await stubs(peer, 'pull_parts'));
  });

  it('a pull whose batches mostly have attachments asks for them in one multipart _bulk_get, not after a JSON one', async () => {
    assert.equal((await peer.request('PUT', '/pull_mostly')).status, 201);
    const attachment = (text: string) => ({
      'a.txt': { content_type: 'text/plain', data: Buffer.from(text).toString('base64') },
    });
    // Batches of 3 in this order: [p0 a0 a1] [a2 p1 p2] [p3 a3 p4].
    const ids = ['p0', 'a0', 'a1', 'a2', 'p1', 'p2', 'p3', 'a3', 'p4'];
    const docs = ids.map((id, n) =>
      id.startsWith('a') ? { _id: id, n, _attachments: attachment(id) } : { _id: id, n },
    );
    for (const doc of docs)
      assert.equal((await peer.request('PUT', `/pull_mostly/${doc._id}`, { body: doc })).status, 201);
    const proxy = await proxyTo(peer);
    try {
      const r = await run(t, {
        source: {
          url: `${proxy.url}/pull_mostly`,
          auth: { basic: { username: ADMIN.name, password: ADMIN.password } },
        },
        target: 'pulled_mostly',
        create_target: true,
        worker_batch_size: 3,
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.history[0].docs_written, 9);
      const bulkGets = proxy.seen
        .filter((entry) => entry.url.includes('/_bulk_get'))
        .map((entry) => [/attachments=true/.test(entry.url), entry.answered.startsWith('multipart/mixed')]);
      // The first batch: a JSON `_bulk_get`, then its two documents with attachments as parts.
      // Two of three had attachments, so the second batch is asked for as parts at once (its
      // plain documents come back as JSON parts); only one of its three had, so the third is
      // asked for as the first was.
      assert.deepEqual(
        bulkGets,
        [
          [false, false],
          [true, true],
          [true, true],
          [false, false],
          [true, true],
        ],
        JSON.stringify(proxy.seen),
      );
    } finally {
      await proxy.close();
    }
    for (const [n, id] of ids.entries()) {
      const doc = (await t.request('GET', `/pulled_mostly/${id}`)).json;
      const sourceDoc = (await peer.request('GET', `/pull_mostly/${id}`)).json;
      assert.deepEqual(doc, sourceDoc);
      assert.equal(doc.n, n);
      if (id.startsWith('a')) assert.equal((await t.request('GET', `/pulled_mostly/${id}/a.txt`)).text, id);
    }
  });

  it('documents with attachments pulled into a database of this server are written together, each through the write rules', async () => {
    const small = await startTestServer({ maxAttachmentBytes: 1_000, log: (line) => log.push(line) });
    try {
      assert.equal((await peer.request('PUT', '/pull_many')).status, 201);
      const attachment = (text: string) => ({
        'a.txt': { content_type: 'text/plain', data: Buffer.from(text).toString('base64') },
      });
      const docs = Array.from({ length: 6 }, (_, i) => ({ _id: `m${i}`, n: i, _attachments: attachment(`m${i}`) }));
      docs.push({ _id: 'big', n: 10, _attachments: attachment('z'.repeat(5_000)) });
      docs.push({ _id: 'plain', n: 11 } as (typeof docs)[number]);
      assert.equal((await peer.request('POST', '/pull_many/_bulk_docs', { body: { docs } })).status, 201);
      assert.equal((await small.request('PUT', '/many')).status, 201);
      const validate = 'function (doc) { if (doc.n === 2) throw({forbidden: "no twos"}); }';
      const ddoc = { validate_doc_update: validate };
      assert.equal((await small.request('PUT', '/many/_design/v', { body: ddoc })).status, 201);
      const peerAuth = { basic: { username: ADMIN.name, password: ADMIN.password } };
      const r = await run(small, { source: { url: `${peer.url}/pull_many`, auth: peerAuth }, target: 'many' });
      assert.equal(r.status, 200, r.text);
      const [entry] = r.json.history;
      // `m2` is refused by the validate function, `big` by the attachment limit (413): both
      // skipped, each reported by id; the other six written with their attachments.
      assert.deepEqual([entry.docs_read, entry.docs_written, entry.doc_write_failures], [8, 6, 2]);
      for (const i of [0, 1, 3, 4, 5]) assert.equal((await small.request('GET', `/many/m${i}/a.txt`)).text, `m${i}`);
      assert.equal((await small.request('GET', '/many/plain')).json.n, 11);
      for (const id of ['m2', 'big']) assert.equal((await small.request('GET', `/many/${id}`)).status, 404);
      assert.ok(log.some((line) => line.includes("couldn't write document `m2`") && line.includes('no twos')));
      assert.ok(log.some((line) => line.includes("couldn't write document `big`")));
    } finally {
      await small.close();
    }
  });

  it('a target answering 413 gets smaller batches; a document too large alone is skipped and reported', async () => {
    const small = await startTestServer({ maxBodyBytes: 4_000, log: (line) => log.push(line) });
    try {
      assert.equal((await t.request('PUT', '/sizes')).status, 201);
      const docs = Array.from({ length: 6 }, (_, i) => ({ _id: `d${i}`, text: 'x'.repeat(1_000) }));
      docs.push({ _id: 'huge', text: 'y'.repeat(10_000) });
      assert.equal((await t.request('POST', '/sizes/_bulk_docs', { body: { docs } })).status, 201);
      const r = await run(t, {
        source: 'sizes',
        target: { url: `${small.url}/sizes`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } },
        create_target: true,
      });
      assert.equal(r.status, 200, r.text);
      const [entry] = r.json.history;
      assert.deepEqual([entry.docs_read, entry.docs_written, entry.doc_write_failures], [7, 6, 1]);
      const rows = (await small.request('GET', '/sizes/_all_docs')).json.rows.map((row: { id: string }) => row.id);
      assert.deepEqual(rows, ['d0', 'd1', 'd2', 'd3', 'd4', 'd5']);
      assert.ok(log.some((line) => line.includes("couldn't write document `huge`")));
    } finally {
      await small.close();
    }
  });

  it('a document refused with another 4xx (CouchDB 3.3: not skipped) fails the job, naming the document', async () => {
    // The peer behind a proxy that takes document `bad` out of `_bulk_docs` and answers a 400 for it.
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      let body = chunks.length === 0 ? undefined : Buffer.concat(chunks).toString();
      const refused: unknown[] = [];
      if (req.url?.includes('/_bulk_docs') && body !== undefined) {
        const request = JSON.parse(body) as { docs: { _id: string }[] };
        const kept = request.docs.filter((doc) => doc._id !== 'bad');
        if (kept.length < request.docs.length) {
          refused.push({ id: 'bad', error: 'bad_request', reason: 'the proxy refuses it' });
        }
        body = JSON.stringify({ ...request, docs: kept });
      }
      const answer = await fetch(`${peer.url}${req.url}`, { method: req.method ?? 'GET', headers, body });
      let text = await answer.text();
      if (refused.length > 0) text = JSON.stringify([...(JSON.parse(text) as unknown[]), ...refused]);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(text);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      assert.equal((await t.request('PUT', '/with_bad')).status, 201);
      const docs = [
        { _id: 'good', n: 1 },
        { _id: 'bad', n: 2 },
      ];
      assert.equal((await t.request('POST', '/with_bad/_bulk_docs', { body: { docs } })).status, 201);
      const r = await run(t, {
        source: 'with_bad',
        target: {
          url: `http://127.0.0.1:${port}/with_bad`,
          auth: { basic: { username: ADMIN.name, password: ADMIN.password } },
        },
        create_target: true,
      });
      assert.deepEqual([r.status, r.json.error], [400, 'bad_request'], r.text);
      assert.match(r.json.reason, /"bad"/);
      assert.match(r.json.reason, /the proxy refuses it/);
      assert.ok(log.some((line) => line.includes("couldn't write document `bad`")));
      // The documents it could write are there.
      assert.equal((await peer.request('GET', '/with_bad/good')).status, 200);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

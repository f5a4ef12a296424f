/**
 * HTTP details CouchDB clients rely on: content types, `+` in paths, request ids, Location behind
 * a proxy, conditional requests, batch and quorum statuses, COPY's Destination, method override,
 * temporary views, `/_uuids`' ETag and algorithms.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:net';
import { AUTH, startTestServer, type TestServer } from './support/server.js';

describe('HTTP details', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/hd');
    await t.request('PUT', '/hd/doc', { body: { a: 1 } });
    await t.request('PUT', '/hd/_design/d', { body: { views: { v: { map: 'function (d) { emit(d._id, 1); }' } } } });
  });
  after(() => t.close());

  it('a view is JSON unless Accept asks for text/plain and takes no JSON', async () => {
    const type = async (accept?: string) =>
      (
        await t.request('GET', '/hd/_design/d/_view/v', accept === undefined ? {} : { headers: { accept } })
      ).headers.get('content-type');
    assert.equal(await type(), 'application/json');
    assert.equal(await type('*/*'), 'application/json');
    assert.equal(await type('text/plain, */*'), 'application/json');
    assert.equal(await type('application/json'), 'application/json');
    assert.equal(await type('text/html'), 'application/json');
    assert.equal(await type('text/plain'), 'text/plain; charset=utf-8');
  });

  it('+ in a path is a plus, in database names and document ids alike', async () => {
    const created = await t.request('PUT', '/random+db');
    assert.equal(created.status, 201, created.text);
    assert.equal((await t.request('GET', '/random+db')).json.db_name, 'random+db');
    assert.ok((await t.request('GET', '/_all_dbs')).json.includes('random+db'));
    const doc = await t.request('PUT', '/random+db/test+doc', { body: {} });
    assert.equal(doc.json.id, 'test+doc');
    assert.equal(doc.headers.get('location'), `${t.url}/random%2Bdb/test%2Bdoc`);
    assert.equal((await t.request('GET', '/random%2Bdb/test%2Bdoc')).json._id, 'test+doc');
    // A query string still reads + as a space.
    const keyed = await t.request('GET', '/random+db/_all_docs?key=%22test+doc%22');
    assert.deepEqual(keyed.json.rows, []);
  });

  it('every answer carries X-Couch-Request-ID; a client’s own is echoed', async () => {
    const ids = new Set<string>();
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/hd/nothere'],
      ['DELETE', '/_all_dbs'],
    ] as const) {
      const id = (await t.request(method, path)).headers.get('x-couch-request-id');
      assert.match(id ?? '', /^[0-9a-f]{10}$/, `${method} ${path}`);
      ids.add(id!);
    }
    assert.equal(ids.size, 3);
    const mine = await t.request('GET', '/', { headers: { 'x-couch-request-id': 'trace-42' } });
    assert.equal(mine.headers.get('x-couch-request-id'), 'trace-42');
  });

  it('sends the request id first and each header once, in the same order on every kind of answer', async () => {
    // The head as it goes on the wire (a raw socket: fetch would not show the order).
    const head = (request: string) =>
      new Promise<string[]>((resolve, reject) => {
        const url = new URL(t.url);
        const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n')));
      });
    const names = (lines: string[]) => lines.slice(1).map((line) => line.slice(0, line.indexOf(':')));
    const ask = (method: string, path: string, body?: string) =>
      head(
        `${method} ${path} HTTP/1.1\r\nHost: h\r\nAuthorization: ${AUTH}\r\nX-Couch-Request-ID: ordered\r\n` +
          (body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`) +
          `Connection: close\r\n\r\n${body ?? ''}`,
      );
    const put = await ask('PUT', '/hd/ordered', '{"a":1}');
    assert.equal(put[0], 'HTTP/1.1 201 Created');
    assert.ok(put.includes('X-Couch-Request-ID: ordered'));
    assert.deepEqual(names(put), [
      'X-Couch-Request-ID',
      'Content-Type',
      'Cache-Control',
      'ETag',
      'Location',
      'Content-Length',
      'Date',
      'Connection',
    ]);
    const missing = await ask('GET', '/hd/nothere');
    assert.equal(missing[0], 'HTTP/1.1 404 Not Found');
    assert.deepEqual(names(missing), [
      'X-Couch-Request-ID',
      'Content-Type',
      'Cache-Control',
      'Content-Length',
      'Date',
      'Connection',
    ]);
    const streamed = await ask('GET', '/hd/_all_docs?limit=1');
    assert.deepEqual(names(streamed).slice(0, 3), ['X-Couch-Request-ID', 'Content-Type', 'Cache-Control']);
    // A handler's own Content-Type replaces the JSON one in its place, once.
    const prometheus = await ask('GET', '/_node/_local/_prometheus');
    const wholeHead = ['X-Couch-Request-ID', 'Content-Type', 'Cache-Control', 'Content-Length'];
    assert.deepEqual(names(prometheus).slice(0, 4), wholeHead);
    assert.match(prometheus[2] ?? '', /^Content-Type: text\/plain/);
    const head404 = await ask('HEAD', '/hd/nothere');
    assert.deepEqual(names(head404).slice(0, 4), wholeHead);
  });

  it('Location honours X-Forwarded-Host (and the forwarded scheme)', async () => {
    const r = await t.request('PUT', '/hd/fwd', { body: {}, headers: { 'x-forwarded-host': 'couch.example:8443' } });
    assert.equal(r.headers.get('location'), 'http://couch.example:8443/hd/fwd');
    const https = await t.request('PUT', '/hd/fwd2', {
      body: {},
      headers: { 'x-forwarded-host': 'couch.example', 'x-forwarded-proto': 'https' },
    });
    assert.equal(https.headers.get('location'), 'https://couch.example/hd/fwd2');
  });

  it('[chttpd] x_forwarded_host, x_forwarded_proto and x_forwarded_ssl name the headers a proxy sends', async () => {
    const config = '/_node/_local/_config/chttpd';
    for (const [key, header] of [
      ['x_forwarded_host', 'X-Proxy-Host'],
      ['x_forwarded_proto', 'X-Proxy-Scheme'],
      ['x_forwarded_ssl', 'X-Proxy-Ssl'],
    ]) {
      const set = await t.request('PUT', `${config}/${key}`, { body: JSON.stringify(header) });
      assert.equal(set.status, 200, set.text);
    }
    try {
      const named = await t.request('PUT', '/hd/fwd3', {
        body: {},
        headers: { 'x-proxy-host': 'db.example', 'x-proxy-scheme': 'https', 'x-forwarded-host': 'ignored.example' },
      });
      assert.equal(named.headers.get('location'), 'https://db.example/hd/fwd3');
      const ssl = await t.request('PUT', '/hd/fwd4', {
        body: {},
        headers: { 'x-proxy-host': 'db.example', 'x-proxy-ssl': 'on' },
      });
      assert.equal(ssl.headers.get('location'), 'https://db.example/hd/fwd4');
      // The default header names are no longer read: the Host header names the host.
      const host = new URL(t.url).host;
      const defaults = await t.request('PUT', '/hd/fwd5', {
        body: {},
        headers: { 'x-forwarded-host': 'ignored.example', 'x-forwarded-proto': 'https' },
      });
      assert.equal(defaults.headers.get('location'), `http://${host}/hd/fwd5`);
      // A form post's Referer is checked against the same host.
      const form = await t.request('POST', '/hd/fwd3', {
        body: 'a=1',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          referer: 'http://elsewhere.example/page',
          'x-proxy-host': 'db.example',
        },
      });
      assert.deepEqual([form.status, form.json.reason], [400, 'Referer header must match host.']);
    } finally {
      for (const key of ['x_forwarded_host', 'x_forwarded_proto', 'x_forwarded_ssl']) {
        await t.request('DELETE', `${config}/${key}`);
      }
    }
    const back = await t.request('PUT', '/hd/fwd6', { body: {}, headers: { 'x-forwarded-host': 'couch.example' } });
    assert.equal(back.headers.get('location'), 'http://couch.example/hd/fwd6');
  });

  it('If-None-Match with the weak form of an ETag answers 304, with no body', async () => {
    const doc = await t.request('GET', '/hd/doc');
    const etag = doc.headers.get('etag')!;
    for (const tag of [etag, `W/${etag}`, `"other", W/${etag}`]) {
      const r = await t.request('GET', '/hd/doc', { headers: { 'if-none-match': tag } });
      assert.deepEqual([r.status, r.text], [304, ''], tag);
      assert.equal(r.headers.get('content-type'), null);
    }
    const changes = await t.request('GET', '/hd/_changes');
    const again = await t.request('GET', '/hd/_changes', {
      headers: { 'if-none-match': `W/${changes.headers.get('etag')}` },
    });
    assert.deepEqual([again.status, again.text], [304, '']);
  });

  it('PUT ?batch=ok answers 202; w above one copy answers 202, as a single CouchDB node does', async () => {
    const batch = await t.request('PUT', '/hd/batched?batch=ok', { body: {} });
    assert.deepEqual([batch.status, batch.json], [202, { ok: true, id: 'batched' }]);
    const w2 = await t.request('PUT', '/hd/quorum?w=2', { body: {} });
    assert.deepEqual([w2.status, w2.json.ok], [202, true]);
    assert.equal((await t.request('PUT', '/hd/quorum1?w=1', { body: {} })).status, 201);
    const del = await t.request('DELETE', `/hd/quorum?w=3&rev=${w2.json.rev}`);
    assert.equal(del.status, 202);
    const bulk = await t.request('POST', '/hd/_bulk_docs', { body: { docs: [{}], w: 2 } });
    assert.equal(bulk.status, 202);
    assert.equal((await t.request('POST', '/hd/_bulk_docs?w=2', { body: { docs: [{}] } })).status, 202);
    assert.equal((await t.request('POST', '/hd/_bulk_docs', { body: { docs: [{}] } })).status, 201);
    const att = await t.request('PUT', '/hd/withatt/a.txt?w=2', {
      body: 'hi',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(att.status, 202);
    assert.equal((await t.request('POST', '/hd?w=2', { body: {} })).status, 202);
  });

  it('COPY with an absolute Destination is a 400', async () => {
    for (const destination of ['http://elsewhere/hd/copy', 'https://x/hd/copy']) {
      const r = await t.request('COPY', '/hd/doc', { headers: { destination } });
      assert.deepEqual(
        [r.status, r.json],
        [400, { error: 'bad_request', reason: 'Destination URL must be relative.' }],
      );
    }
    assert.equal((await t.request('COPY', '/hd/doc', { headers: { destination: 'copied' } })).status, 201);
  });

  it('X-HTTP-Method-Override turns a POST into the method it names (only a POST)', async () => {
    const put = await t.request('POST', '/hd/overridden', { body: {}, headers: { 'x-http-method-override': 'PUT' } });
    assert.deepEqual([put.status, put.json.id], [201, 'overridden']);
    const get = await t.request('POST', '/hd/overridden', { headers: { 'x-http-method-override': 'GET' } });
    assert.deepEqual([get.status, get.json._id], [200, 'overridden']);
    // Another method ignores it.
    const ignored = await t.request('GET', '/hd/overridden', { headers: { 'x-http-method-override': 'DELETE' } });
    assert.equal(ignored.status, 200);
    assert.equal((await t.request('GET', '/hd/overridden')).status, 200);
  });

  it('POST /db/_temp_view is 410 gone', async () => {
    const r = await t.request('POST', '/hd/_temp_view', { body: { map: 'function (d) { emit(d._id); }' } });
    assert.deepEqual(
      [r.status, r.json],
      [410, { error: 'gone', reason: 'Temporary views are not supported in CouchDB' }],
    );
  });

  it('JSONP: ?callback= is ignored until [chttpd] allow_jsonp, then wraps JSON answers', async () => {
    const plain = await t.request('GET', '/hd/doc?callback=cb');
    assert.equal(plain.headers.get('content-type'), 'application/json');
    assert.equal(plain.json._id, 'doc');
    const set = await t.request('PUT', '/_node/_local/_config/chttpd/allow_jsonp', { body: '"true"' });
    assert.equal(set.status, 200, set.text);
    try {
      const unwrap = (text: string, name: string) => {
        const match = /^\/\* CouchDB \*\/(\w+)\(([\s\S]*)\);\n$/.exec(text);
        assert.ok(match, text);
        assert.equal(match[1], name);
        return JSON.parse(match[2]!);
      };
      const doc = await t.request('GET', '/hd/doc?callback=jsonp_no_chunk');
      assert.equal(doc.status, 200);
      assert.equal(doc.headers.get('content-type'), 'application/javascript');
      assert.equal(unwrap(doc.text, 'jsonp_no_chunk')._id, 'doc');
      const view = await t.request('GET', '/hd/_design/d/_view/v?callback=jsonp_chunk');
      assert.equal(view.headers.get('content-type'), 'application/javascript');
      assert.ok(unwrap(view.text, 'jsonp_chunk').total_rows >= 1);
      const again = await t.request('GET', '/hd/_design/d/_view/v?callback=jsonp_chunk');
      assert.equal(unwrap(again.text, 'jsonp_chunk').total_rows, unwrap(view.text, 'jsonp_chunk').total_rows);
      const changes = await t.request('GET', '/hd/_changes?callback=jsonp_chunk');
      assert.equal(changes.headers.get('content-type'), 'application/javascript');
      assert.ok(Array.isArray(unwrap(changes.text, 'jsonp_chunk').results));
      for (const bad of ['jsonp_no_chunk%22', "jsonp_chunk'", 'a(b)']) {
        const r = await t.request('GET', `/hd/doc?callback=${bad}`);
        assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason: 'invalid_callback' }], bad);
      }
    } finally {
      await t.request('DELETE', '/_node/_local/_config/chttpd/allow_jsonp');
    }
    assert.equal((await t.request('GET', '/hd/doc?callback=cb')).headers.get('content-type'), 'application/json');
  });

  it('/_uuids has an ETag and no-cache headers; sequential ids by default', async () => {
    const r = await t.request('GET', '/_uuids?count=5');
    assert.match(r.headers.get('etag') ?? '', /^"[0-9A-Z]+"$/);
    assert.equal(r.headers.get('expires'), 'Mon, 01 Jan 1990 00:00:00 GMT');
    assert.match(r.headers.get('cache-control') ?? '', /no-cache/);
    const uuids: string[] = r.json.uuids;
    assert.equal(new Set(uuids.map((u) => u.slice(0, 26))).size, 1, 'one prefix');
    assert.deepEqual([...uuids].sort(), uuids, 'increasing');
    for (const u of uuids) assert.match(u, /^[0-9a-f]{32}$/);
    const other = await t.request('GET', '/_uuids?count=5');
    assert.notEqual(other.headers.get('etag'), r.headers.get('etag'));
  });

  it('[uuids] algorithm: random, utc_random, utc_id (with utc_id_suffix), sequential', async () => {
    const set = async (key: string, value: string) => {
      const r = await t.request('PUT', `/_node/_local/_config/uuids/${key}`, { body: JSON.stringify(value) });
      assert.equal(r.status, 200, r.text);
    };
    const take = async (count = 3): Promise<string[]> => (await t.request('GET', `/_uuids?count=${count}`)).json.uuids;
    await set('algorithm', 'random');
    const random = await take();
    assert.ok(random.every((u) => /^[0-9a-f]{32}$/.test(u)));
    assert.equal(new Set(random.map((u) => u.slice(0, 26))).size, 3);
    await set('algorithm', 'utc_random');
    const before = Date.now() * 1000;
    const utc = await take();
    for (const u of utc) {
      assert.match(u, /^[0-9a-f]{32}$/);
      const micros = Number.parseInt(u.slice(0, 14), 16);
      assert.ok(Math.abs(micros - before) < 60_000_000, `${u}: its time`);
    }
    assert.deepEqual([...utc].sort(), utc, 'time ordered');
    await set('algorithm', 'utc_id');
    await set('utc_id_suffix', 'frog');
    const ids = await take();
    for (const u of ids) assert.match(u, /^[0-9a-f]{14}frog$/);
    assert.equal(new Set(ids).size, 3);
    await set('algorithm', 'sequential');
    const seq = await take(2);
    assert.equal(seq[0]!.slice(0, 26), seq[1]!.slice(0, 26));
  });
});

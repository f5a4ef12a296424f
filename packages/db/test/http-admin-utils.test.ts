/**
 * `/_utils/`: Fauxton's files as CouchDB serves them (public, CouchDB's CSP, a redirect from
 * `/_utils`), with gzip when accepted, ETags and a long cache life for fingerprinted assets; the
 * page as fetched (replication works, so no notice of Divan's is added to it).
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { UTILS_CSP } from '../src/server/config.js';
import { raw } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/server.js';

describe('/_utils (Fauxton)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  /** The asset paths index.html names (scripts, styles, the icon). */
  async function assets(): Promise<string[]> {
    const html = (await raw(t.url, 'GET', '/_utils/', { auth: false })).body.toString();
    return [...html.matchAll(/(?:src|href)="(dashboard\.assets\/[^"]+)"/g)].map((m) => `/_utils/${m[1]}`);
  }

  it('/_utils redirects to /_utils/, keeping the query', async () => {
    const r = await raw(t.url, 'GET', '/_utils', { auth: false });
    assert.deepEqual([r.status, r.headers.location], [301, '/_utils/']);
    const q = await raw(t.url, 'GET', '/_utils?x=1', { auth: false });
    assert.equal(q.headers.location, '/_utils/?x=1');
  });

  it('/_utils/ is Fauxton’s page, to anyone, with CouchDB’s Content-Security-Policy', async () => {
    const r = await raw(t.url, 'GET', '/_utils/', { auth: false });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.match(r.body.toString(), /<title>Project Fauxton<\/title>/);
    assert.equal(r.headers['content-security-policy'], UTILS_CSP);
    assert.match(UTILS_CSP, /script-src 'self' 'unsafe-eval'/);
    assert.equal(r.headers['cache-control'], 'private, must-revalidate');
    const same = await raw(t.url, 'GET', '/_utils/index.html', { auth: false });
    assert.deepEqual(same.body, r.body);
  });

  it('the page is Fauxton’s own: only its scripts, and no notice script of Divan’s', async () => {
    const html = (await raw(t.url, 'GET', '/_utils/', { auth: false })).body.toString();
    const scripts = [...html.matchAll(/<script [^>]*src="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(scripts.length > 0);
    assert.ok(
      scripts.every((src) => src?.startsWith('dashboard.assets/js/')),
      scripts.join(),
    );
    assert.equal((await raw(t.url, 'GET', '/_utils/divan-notice.js', { auth: false })).status, 404);
  });

  it('every asset index.html names is served with its type; fingerprinted ones cached for a year', async () => {
    const paths = await assets();
    assert.ok(paths.some((p) => p.endsWith('.js')) && paths.some((p) => p.endsWith('.css')), paths.join());
    for (const path of paths) {
      const r = await raw(t.url, 'GET', path, { auth: false });
      assert.equal(r.status, 200, path);
      const type = String(r.headers['content-type']);
      if (path.endsWith('.js')) assert.match(type, /^application\/javascript/);
      if (path.endsWith('.css')) assert.match(type, /^text\/css/);
      if (path.endsWith('.png')) assert.equal(type, 'image/png');
      const fingerprinted = /\.[0-9a-f]{16,}\.(js|css)$/.test(path);
      assert.equal(
        r.headers['cache-control'],
        fingerprinted ? 'public, max-age=31536000, immutable' : 'private, must-revalidate',
        path,
      );
      assert.equal(Number(r.headers['content-length']), r.body.length);
    }
  });

  it('gzip when accepted, the same bytes once decoded; identity otherwise', async () => {
    const js = (await assets()).find((p) => p.includes('/js/bundle.'))!;
    const plain = await raw(t.url, 'GET', js, { auth: false });
    assert.equal(plain.headers['content-encoding'], undefined);
    const gz = await raw(t.url, 'GET', js, { auth: false, headers: { 'accept-encoding': 'gzip, deflate' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'Accept-Encoding');
    assert.ok(gz.body.length < plain.body.length / 2, `${gz.body.length} vs ${plain.body.length}`);
    assert.deepEqual(gunzipSync(gz.body), plain.body);
  });

  it('ETag: a matching If-None-Match is a 304 without a body', async () => {
    const r = await raw(t.url, 'GET', '/_utils/', { auth: false });
    const etag = String(r.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    const again = await raw(t.url, 'GET', '/_utils/', { auth: false, headers: { 'if-none-match': `"x", ${etag}` } });
    assert.deepEqual([again.status, again.body.length], [304, 0]);
    const other = await raw(t.url, 'GET', '/_utils/', { auth: false, headers: { 'if-none-match': '"x"' } });
    assert.equal(other.status, 200);
  });

  it('HEAD has the headers and no body; other methods are 405', async () => {
    const head = await raw(t.url, 'HEAD', '/_utils/', { auth: false });
    assert.deepEqual([head.status, head.body.length], [200, 0]);
    assert.ok(Number(head.headers['content-length']) > 0);
    // Only GET and HEAD are open to anyone: another verb is a server admin's (CouchDB's
    // chttpd_auth_request), who gets the 405.
    const anonymous = await raw(t.url, 'POST', '/_utils/', { auth: false });
    assert.deepEqual([anonymous.status, anonymous.json.error], [401, 'unauthorized']);
    const post = await raw(t.url, 'POST', '/_utils/', {});
    assert.deepEqual([post.status, post.headers.allow], [405, 'GET,HEAD']);
  });

  it('a missing file is a 404; no path leaves the folder', async () => {
    for (const path of [
      '/_utils/nope.js',
      '/_utils/../package.json',
      '/_utils/%2E%2E/package.json',
      '/_utils/.version',
      '/_utils/index.html.gz',
    ]) {
      const r = await raw(t.url, 'GET', path, { auth: false });
      assert.equal(r.status, 404, path);
      assert.equal(r.json.error, 'not_found', path);
    }
  });

  it('the page and every asset it names are served, compressed to a client that takes gzip', async () => {
    // How fast the first load is: `npm run bench -w @divan/db -- --suite fauxton` (a timed
    // assertion here failed at random on a shared machine).
    const paths = ['/_utils/', ...(await assets())];
    assert.ok(paths.length >= 5, JSON.stringify(paths));
    for (const p of paths) {
      const r = await fetch(t.url + p, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(r.status, 200, p);
      if (/\.(js|css)$/.test(p)) assert.equal(r.headers.get('content-encoding'), 'gzip', p);
      assert.ok((await r.arrayBuffer()).byteLength > 0, p);
    }
  });
});

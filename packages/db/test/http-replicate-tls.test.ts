/**
 * Server-side replication with a peer over HTTPS: the peer's certificate is verified unless
 * `[replicator] verify_ssl_certificates` is false, `ssl_trusted_certificates_file` adds the
 * authorities to trust, and pull and push both run over TLS with the job's credentials.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { type RunningServer, startServer } from '../src/start-server.js';
import { ADMIN, AUTH, startTestServer, type TestServer } from './support/server.js';
import { makeTestCertificate } from './support/test-certificate.js';
import { makeTempDir } from './support/tmp-dir.js';

const certificate = makeTestCertificate();
const dir = makeTempDir('divan-replicate-tls-');

/** A request to the HTTPS peer, trusting its certificate. */
function secure(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: AUTH, 'content-type': 'application/json' };
    const req = httpsRequest(new URL(path, url), { method, ca: certificate.cert, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('replication with a peer over HTTPS', () => {
  let peer: RunningServer;
  let t: TestServer;
  const basic = { basic: { username: ADMIN.name, password: ADMIN.password } };
  const setting = (key: string, value: string) =>
    t.request('PUT', `/_node/_local/_config/replicator/${key}`, { body: JSON.stringify(value) });

  before(async () => {
    peer = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: dir.dir,
      admin: ADMIN,
      hashIterations: 10,
      log: () => {},
      tls: { cert: certificate.cert, key: certificate.key },
    });
    assert.match(peer.url, /^https:\/\//);
    assert.equal((await secure(peer.url, 'PUT', '/src')).status, 201);
    const docs = Array.from({ length: 30 }, (_, i) => ({ _id: `d${i}`, n: i }));
    assert.equal((await secure(peer.url, 'POST', '/src/_bulk_docs', { docs })).status, 201);
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
    await peer?.close();
    certificate.cleanup();
    dir.cleanup();
  });

  it('a peer whose certificate nothing trusts is refused, naming the certificate', async () => {
    const r = await t.request('POST', '/_replicate', {
      body: {
        source: { url: `${peer.url}/src`, auth: basic },
        target: 'refused',
        create_target: true,
        retries_per_request: 0,
      },
    });
    assert.deepEqual([r.status, r.json.error], [502, 'replication_failed'], r.text);
    assert.match(r.json.reason, /certificate/i);
    assert.doesNotMatch(r.text, new RegExp(ADMIN.password));
    assert.equal((await t.request('GET', '/refused/d0')).status, 404);
  });

  it('unusable TLS settings are a 400 naming the key, changing nothing', async () => {
    const maybe = await setting('verify_ssl_certificates', 'maybe');
    assert.deepEqual([maybe.status, maybe.json.error], [400, 'bad_request']);
    assert.match(maybe.json.reason, /verify_ssl_certificates/);
    const missing = await setting('ssl_trusted_certificates_file', `${dir.dir}/no-such.pem`);
    assert.deepEqual([missing.status, missing.json.error], [400, 'bad_request']);
    assert.match(missing.json.reason, /ssl_trusted_certificates_file/);
    const notPem = await setting('ssl_trusted_certificates_file', certificate.keyFile);
    assert.equal(notPem.status, 400);
    assert.equal((await t.request('GET', '/_node/_local/_config/replicator/verify_ssl_certificates')).status, 404);
  });

  it('with the certificate trusted: pull and push over TLS, with the credentials', async () => {
    assert.equal((await setting('ssl_trusted_certificates_file', certificate.certFile)).status, 200);
    const pulled = await t.request('POST', '/_replicate', {
      body: { source: { url: `${peer.url}/src`, auth: basic }, target: 'pulled', create_target: true },
    });
    assert.equal(pulled.status, 200, pulled.text);
    assert.equal(pulled.json.history[0].docs_written, 30);
    assert.equal((await t.request('GET', '/pulled/d29')).json.n, 29);
    assert.equal((await t.request('PUT', '/pulled/local-only', { body: { mine: true } })).status, 201);
    const pushed = await t.request('POST', '/_replicate', {
      body: { source: 'pulled', target: { url: `${peer.url}/pushed`, auth: basic }, create_target: true },
    });
    assert.equal(pushed.status, 200, pushed.text);
    assert.equal((await secure(peer.url, 'GET', '/pushed/local-only')).json.mine, true);
    assert.equal((await secure(peer.url, 'GET', '/pushed')).json.doc_count, 31);
    assert.equal(
      (await t.request('DELETE', '/_node/_local/_config/replicator/ssl_trusted_certificates_file')).status,
      200,
    );
  });

  it("verify_ssl_certificates = false: the peer is not verified (CouchDB's default)", async () => {
    const refused = await t.request('POST', '/_replicate', {
      body: {
        source: { url: `${peer.url}/src`, auth: basic },
        target: 'unverified',
        create_target: true,
        retries_per_request: 0,
      },
    });
    assert.equal(refused.status, 502, 'verified again once the trusted file is gone');
    assert.equal((await setting('verify_ssl_certificates', 'false')).status, 200);
    const r = await t.request('POST', '/_replicate', {
      body: { source: { url: `${peer.url}/src`, auth: basic }, target: 'unverified', create_target: true },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal((await t.request('GET', '/unverified')).json.doc_count, 30);
    assert.equal((await setting('verify_ssl_certificates', 'true')).status, 200);
  });
});

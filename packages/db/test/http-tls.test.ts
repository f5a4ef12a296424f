/**
 * TLS: `--tls-cert`/`--tls-key` serve HTTPS (with `--http-port`, plain HTTP too), and so does the
 * stored `[ssl]` section; session cookies get `Secure` over TLS and the configured `SameSite`.
 * The certificate is made at test time with openssl (support/test-certificate.ts).
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startServer } from '../src/start-server.js';
import { type ChildServer, startChildServer } from './support/child-server.js';
import { ADMIN, AUTH, startTestServer } from './support/server.js';
import { makeTestCertificate } from './support/test-certificate.js';
import { makeTempDir } from './support/tmp-dir.js';

const temp = makeTempDir('divan-tls-');
const certificate = makeTestCertificate();
const { certFile, keyFile } = certificate;
const ca = certificate.cert;
after(() => {
  certificate.cleanup();
  temp.cleanup();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request over HTTPS trusting the test certificate. */
function secure(url: string, method: string, path: string, body?: unknown, auth = AUTH): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = httpsRequest(new URL(path, url), { method, ca, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const login = JSON.stringify({ name: ADMIN.name, password: ADMIN.password });

describe('TLS from the command line', () => {
  let server: ChildServer;
  let plainUrl: string;
  before(async () => {
    server = await startChildServer([
      '--data',
      `${temp.dir}/cli`,
      '--admin',
      `${ADMIN.name}:${ADMIN.password}`,
      '--tls-cert',
      certFile,
      '--tls-key',
      keyFile,
      '--http-port',
      '0',
    ]);
    const match = /listening on https:\/\/\S+ and (http:\/\/\S+) /.exec(server.output());
    assert.ok(match !== null, server.output());
    plainUrl = match[1]!;
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('serves HTTPS on --port', async () => {
    assert.match(server.url, /^https:\/\//);
    const welcome = await secure(server.url, 'GET', '/');
    assert.equal(welcome.status, 200);
    assert.equal(JSON.parse(welcome.text).couchdb, 'Welcome');
    await assert.rejects(fetch(server.url.replace('https:', 'http:')), 'no plain HTTP on the TLS port');
  });

  it('a session cookie over TLS is Secure, over plain HTTP it is not', async () => {
    const overTls = await secure(server.url, 'POST', '/_session', JSON.parse(login));
    assert.equal(overTls.status, 200);
    assert.match(String(overTls.headers['set-cookie']), /; Max-Age=600; Secure; Path=\/; HttpOnly$/);
    const overHttp = await fetch(`${plainUrl}/_session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: login,
    });
    assert.equal(overHttp.status, 200);
    assert.doesNotMatch(overHttp.headers.get('set-cookie')!, /Secure/);
  });

  it('SameSite is configurable, so a page on another site can log in with a cookie', async () => {
    const put = await secure(server.url, 'PUT', '/_node/_local/_config/chttpd_auth/same_site', 'none');
    assert.equal(put.status, 200);
    const overTls = await secure(server.url, 'POST', '/_session', JSON.parse(login));
    assert.match(String(overTls.headers['set-cookie']), /; Secure; Path=\/; HttpOnly; SameSite=None$/);
  });
});

describe('TLS from the stored [ssl] section', () => {
  const dir = makeTempDir('divan-ssl-config-');
  after(() => dir.cleanup());

  it('[ssl] enable, cert_file and key_file serve HTTPS from the next start', async () => {
    const first = await startTestServer({ dataDir: dir.dir });
    for (const [key, value] of [
      ['cert_file', certFile],
      ['key_file', keyFile],
      ['enable', 'true'],
    ]) {
      assert.equal(
        (await first.request('PUT', `/_node/_local/_config/ssl/${key}`, { body: JSON.stringify(value) })).status,
        200,
      );
    }
    await first.stop();
    const again = await startServer({ port: 0, dataDir: dir.dir, admin: ADMIN, hashIterations: 10, log: () => {} });
    try {
      assert.match(again.url, /^https:\/\//);
      assert.equal((await secure(again.url, 'GET', '/_up')).status, 200);
    } finally {
      await again.close();
    }
  });
});

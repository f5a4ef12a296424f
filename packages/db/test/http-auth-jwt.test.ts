import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const HMAC_SECRET = Buffer.from('a shared hmac secret for tests');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function token(alg: string, claims: Record<string, unknown>, kid?: string, key?: KeyObject | Buffer): string {
  const head = `${b64({ alg, typ: 'JWT', ...(kid === undefined ? {} : { kid }) })}.${b64(claims)}`;
  let sig: Buffer;
  if (alg.startsWith('HS'))
    sig = createHmac(`sha${alg.slice(2)}`, (key as Buffer) ?? HMAC_SECRET)
      .update(head)
      .digest();
  else if (alg.startsWith('RS'))
    sig = sign(`sha${alg.slice(2)}`, Buffer.from(head), (key as KeyObject) ?? rsa.privateKey);
  else sig = sign('sha256', Buffer.from(head), { key: (key as KeyObject) ?? ec.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${head}.${sig.toString('base64url')}`;
}
const bearer = (t: string) => ({ auth: `Bearer ${t}` });
const now = () => Math.floor(Date.now() / 1000);

describe('JWT (Bearer tokens)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      settings: {
        jwt: {
          keys: {
            'hmac:_default': HMAC_SECRET.toString('base64'),
            'rsa:r1': pem(rsa.publicKey),
            'ec:e1': pem(ec.publicKey),
          },
          requiredClaims: ['exp'],
        },
      },
    });
    await t.request('PUT', '/jwtdb');
    await t.request('PUT', '/jwtdb/_security', { body: { members: { roles: ['readers'] } } });
    await createUser(t, 'plain', 'pw');
  });
  after(() => t.close());

  it('HS256, RS256 and ES256 tokens authenticate: sub is the name, _couchdb.roles the roles', async () => {
    const claims = { sub: 'jay', exp: now() + 60, '_couchdb.roles': ['readers'] };
    for (const tok of [token('HS256', claims), token('RS256', claims, 'r1'), token('ES256', claims, 'e1')]) {
      const r = await t.request('GET', '/_session', bearer(tok));
      assert.deepEqual(r.json, {
        ok: true,
        userCtx: { name: 'jay', roles: ['readers'] },
        info: { authentication_handlers: ['jwt', 'cookie', 'default'], authenticated: 'jwt' },
      });
      assert.equal((await t.request('GET', '/jwtdb', bearer(tok))).status, 200);
    }
  });

  it('refuses a bad signature, an unknown key, an expired or early token, a missing claim', async () => {
    const good = { sub: 'jay', exp: now() + 60 };
    const cases: [string, string][] = [
      [token('HS256', good, undefined, Buffer.from('other')), 'Signature verification failed'],
      [token('RS256', good, 'nope'), 'Key rsa:nope not found'],
      [
        token('RS256', good, 'r1', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
        'Signature verification failed',
      ],
      [token('HS256', { sub: 'jay', exp: now() - 1 }), 'Token expired'],
      [token('HS256', { ...good, nbf: now() + 60 }), 'Token is not yet valid'],
      [token('HS256', { sub: 'jay' }), 'Missing required claim: exp'],
      [token('HS256', { exp: now() + 60 }), 'Token has no sub claim'],
      [`${b64({ alg: 'none' })}.${b64(good)}.`, 'Invalid alg header parameter'],
      ['not-a-token', 'Malformed token'],
    ];
    for (const [tok, reason] of cases) {
      const r = await t.request('GET', '/', bearer(tok));
      assert.deepEqual([r.status, r.json], [401, { error: 'unauthorized', reason }], reason);
    }
  });

  it('Basic and cookie logins still work beside it', async () => {
    assert.equal((await t.request('GET', '/_session', { auth: basic('plain', 'pw') })).json.userCtx.name, 'plain');
  });
});

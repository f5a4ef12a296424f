import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CouchError } from '../src/errors.js';
import { cookieMacMatches, decodeCookie, encodeCookie, sessionCookieHeader } from '../src/auth/cookie.js';

const name = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes(':'));
const hex32 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex'));
const time = fc.integer({ min: 0, max: 2 ** 40 });

describe('AuthSession cookie values', () => {
  it('CouchDB format: base64url of name:HEXTIME:hmac-sha256(secret ++ salt)', () => {
    const value = encodeCookie('alice', 0x6b0739fa, 'sekrit', 'salty');
    const raw = Buffer.from(value, 'base64url');
    assert.equal(raw.subarray(0, 15).toString(), 'alice:6B0739FA:');
    const mac = createHmac('sha256', 'sekrit' + 'salty')
      .update('alice:6B0739FA')
      .digest();
    assert.deepEqual(raw.subarray(15), mac);
    assert.ok(!value.includes('='), 'no padding');
  });

  it('round trip: decode(encode(name, time)) verifies with the same secret and salt', () => {
    fc.assert(
      fc.property(name, time, hex32, hex32, (n, t, secret, salt) => {
        const decoded = decodeCookie(encodeCookie(n, t, secret, salt));
        assert.ok(decoded !== null);
        assert.equal(decoded.name, n);
        assert.equal(decoded.time, t);
        assert.ok(cookieMacMatches(decoded, secret, salt));
      }),
    );
  });

  it('tampering is always refused: another salt, secret, name, time or any flipped byte', () => {
    fc.assert(
      fc.property(name, time, hex32, hex32, hex32, fc.nat(), (n, t, secret, salt, other, at) => {
        const value = encodeCookie(n, t, secret, salt);
        const decoded = decodeCookie(value)!;
        assert.ok(!cookieMacMatches(decoded, secret, other));
        assert.ok(!cookieMacMatches(decoded, other, salt));
        const raw = Buffer.from(value, 'base64url');
        const i = at % raw.length;
        raw[i] = raw[i]! ^ 0x01;
        let flipped: ReturnType<typeof decodeCookie>;
        try {
          flipped = decodeCookie(raw.toString('base64url'));
        } catch {
          return; // no longer three parts: a 400, not a login
        }
        assert.ok(flipped === null || !cookieMacMatches(flipped, secret, salt));
      }),
    );
  });

  it('a value that is not base64url or has fewer than three parts is a 400', () => {
    for (const bad of ['!!!', Buffer.from('alice:123').toString('base64url'), Buffer.from('x').toString('base64url')]) {
      assert.throws(
        () => decodeCookie(bad),
        (e: unknown) => e instanceof CouchError && e.status === 400 && /Malformed AuthSession/.test(e.reason),
      );
    }
    assert.equal(decodeCookie(''), null);
  });

  it('Set-Cookie carries CouchDB attributes in its order, Expires with dashes', () => {
    const at = Date.UTC(2026, 10, 25, 19, 39, 24);
    assert.equal(
      sessionCookieHeader('abc', at, 600, { secure: false }),
      'AuthSession=abc; Version=1; Expires=Wed, 25-Nov-2026 19:49:24 GMT; Max-Age=600; Path=/; HttpOnly',
    );
    assert.equal(
      sessionCookieHeader('', at, 600, { secure: true, domain: 'example.org', sameSite: 'None' }),
      'AuthSession=; Version=1; Expires=Wed, 25-Nov-2026 19:49:24 GMT; Max-Age=600; Secure; Domain=example.org; Path=/; HttpOnly; SameSite=None',
    );
    // allow_persistent_cookies = false: a browser-session cookie.
    assert.equal(
      sessionCookieHeader('abc', at, 600, { secure: false, persistent: false }),
      'AuthSession=abc; Version=1; Path=/; HttpOnly',
    );
  });
});

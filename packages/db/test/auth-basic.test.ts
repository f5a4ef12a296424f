import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CouchError } from '../src/errors.js';
import { parseAuthorization } from '../src/auth/index.js';

const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

function assertBadBase64(header: string): void {
  assert.throws(
    () => parseAuthorization(header),
    (err: unknown) =>
      err instanceof CouchError &&
      err.status === 400 &&
      err.error === 'bad_request' &&
      err.reason === 'Authorization header has invalid base64 value',
    header,
  );
}

describe('parseAuthorization', () => {
  test('no header is anonymous', () => {
    assert.equal(parseAuthorization(undefined), null);
    assert.equal(parseAuthorization(''), null);
  });

  test('valid Basic credentials', () => {
    assert.deepEqual(parseAuthorization(basic('admin:pass')), { name: 'admin', password: 'pass' });
  });

  test('the password may contain ":"; the name ends at the first one', () => {
    assert.deepEqual(parseAuthorization(basic('admin:a:b::c')), { name: 'admin', password: 'a:b::c' });
    assert.deepEqual(parseAuthorization(basic('admin:')), { name: 'admin', password: '' });
  });

  test('UTF-8 names and passwords', () => {
    assert.deepEqual(parseAuthorization(basic('jürgen:pässwörd✓')), { name: 'jürgen', password: 'pässwörd✓' });
  });

  test('missing padding is accepted', () => {
    const header = basic('ab:c').replace(/=+$/, '');
    assert.deepEqual(parseAuthorization(header), { name: 'ab', password: 'c' });
  });

  test('other schemes (Bearer, Digest) are ignored: anonymous', () => {
    assert.equal(parseAuthorization('Bearer abc.def.ghi'), null);
    assert.equal(parseAuthorization('Digest username="x", realm="y"'), null);
    assert.equal(parseAuthorization('Negotiate !!!'), null);
  });

  test('Basic !!! is a 400', () => {
    assertBadBase64('Basic !!!');
    assertBadBase64('Basic YWRt*W46cGFzcw==');
    assertBadBase64('Basic a');
  });

  test('like CouchDB, a value without ":" and the logout pair "_:_" are anonymous', () => {
    assert.equal(parseAuthorization(basic('justaname')), null);
    assert.equal(parseAuthorization('Basic '), null);
    assert.equal(parseAuthorization(basic('_:_')), null);
  });
});

/**
 * `_attachments` input rules as unit properties: base64 as Erlang's decoder takes it, CouchDB's
 * compressible types, and the accepted encodings of a request.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'node:test';
import { decodeBase64 } from '../src/documents/attachment-input.js';
import { isCompressible } from '../src/documents/attachment-bytes.js';
import { acceptsGzip } from '../src/http/accept-encoding.js';

describe('inline attachment data', () => {
  test('property: any bytes round-trip through base64, whitespace anywhere skipped', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(400)),
        fc.constantFrom(' ', '\n', '\r\n', '\t'),
        (bytes, cuts, space) => {
          const text = Buffer.from(bytes).toString('base64');
          assert.deepEqual(decodeBase64(text), Buffer.from(bytes));
          let spaced = text;
          for (const cut of cuts) {
            const at = cut % (spaced.length + 1);
            spaced = spaced.slice(0, at) + space + spaced.slice(at);
          }
          assert.deepEqual(decodeBase64(spaced), Buffer.from(bytes));
        },
      ),
    );
  });

  test('property: missing padding, the url-safe alphabet and stray characters are refused', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.constantFrom('-', '_', '!', '.', '*'),
        (bytes, bad) => {
          const text = Buffer.from(bytes).toString('base64');
          if (text.endsWith('=')) assert.equal(decodeBase64(text.replace(/=+$/, '')), undefined);
          assert.equal(decodeBase64(`${bad}${text.slice(1)}`), undefined);
          assert.equal(decodeBase64(`${text.slice(0, -4)}=${text.slice(-3)}`), undefined);
        },
      ),
    );
    assert.deepEqual(decodeBase64(''), Buffer.alloc(0));
    assert.equal(decodeBase64('aGVsbG8'), undefined);
  });

  test('property: any text is taken or refused exactly as Erlang base64 rules say (a character-by-character reference)', () => {
    /** The rules spelled out: whitespace skipped, the standard alphabet, padding only at the end. */
    const reference = (text: string): Buffer | undefined => {
      const compact = text.replace(/[ \t\r\n]/g, '');
      if (/[^A-Za-z0-9+/=]/.test(compact) || compact.length % 4 !== 0) return undefined;
      const pad = compact.indexOf('=');
      if (pad >= 0 && (pad < compact.length - 2 || (pad === compact.length - 2 && compact[pad + 1] !== '='))) {
        return undefined;
      }
      return Buffer.from(compact, 'base64');
    };
    const char = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...'AQgwZz09+/'.split('')) },
      { weight: 2, arbitrary: fc.constant('=') },
      { weight: 1, arbitrary: fc.constantFrom('-', '_', '.', ' ', '\n', 'é', '\u2028', '\ud83d', '\u0000') },
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        assert.deepEqual(decodeBase64(text), reference(text), JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('compressible types', () => {
  test("CouchDB's defaults, case-insensitive, with parameters", () => {
    for (const type of [
      'text/plain',
      'Text/HTML',
      'TEXT/PLAIN',
      'text/plain;charset=utf-8',
      'text/x-custom; a=b',
      'application/json; charset=utf-8',
      'application/javascript',
      'application/xml',
      'text/csv',
    ]) {
      assert.ok(isCompressible(type), type);
    }
    for (const type of [
      'application/xhtml+xml',
      'application/vnd.api+json',
      'image/svg+xml',
      'application/octet-stream',
      'image/png',
      'font/woff2',
      'video/mp4',
      'application/pdf',
      'application/jsonx',
    ]) {
      assert.ok(!isCompressible(type), type);
    }
  });
});

describe('Accept-Encoding', () => {
  test('gzip when accepted by name or *, identity otherwise, 406 when nothing is', () => {
    for (const value of ['gzip', 'GZIP', '*', 'gzip, deflate, br', 'br, gzip;q=0.5'])
      assert.equal(acceptsGzip(value), true, value);
    for (const value of [undefined, '', 'deflate', 'x-gzip', 'gzip;q=0', 'identity'])
      assert.equal(acceptsGzip(value), false, value);
    for (const value of ['identity;q=0', '*;q=0', 'gzip;q=0, identity;q=0', 'compress, *;q=0', 'gzip;q=abc']) {
      assert.throws(() => acceptsGzip(value), { status: 406 }, value);
    }
  });
});

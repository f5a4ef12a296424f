import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CouchError } from '../src/errors.js';
import { fromPlain, stringifyJson } from '../src/json/index.js';
import { decodeBookmark, encodeBookmark } from '../src/mango/bookmark.js';

describe('Mango bookmarks', () => {
  it('round-trip a key and a doc id (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 }).map((v) => fromPlain(v));
    fc.assert(
      fc.property(json, fc.string(), (key, docId) => {
        const back = decodeBookmark(encodeBookmark({ key, docId }));
        assert.equal(back.docId, docId);
        assert.equal(stringifyJson(back.key), stringifyJson(key));
      }),
    );
  });

  it('read the compressed form term_to_binary(_, [compressed]) writes', () => {
    const plain = Buffer.from(encodeBookmark({ key: ['user', 3], docId: 'd1' }), 'base64url');
    const body = plain.subarray(1);
    const size = Buffer.alloc(4);
    size.writeUInt32BE(body.length);
    const compressed = Buffer.concat([Buffer.from([131, 80]), size, deflateSync(body)]).toString('base64url');
    assert.deepEqual(decodeBookmark(compressed).docId, 'd1');
    assert.equal(stringifyJson(decodeBookmark(compressed).key), '["user",3]');
  });

  it('answer anything else with 400 invalid_bookmark', () => {
    for (const text of ['abc', '!!!', 'nil', 'g1AAAAA', encodeBookmark({ key: 1, docId: 'x' }).slice(0, -3)]) {
      assert.throws(
        () => decodeBookmark(text),
        (error: unknown) =>
          error instanceof CouchError &&
          error.status === 400 &&
          error.error === 'invalid_bookmark' &&
          error.reason === `Invalid bookmark value: ${JSON.stringify(text)}`,
        text,
      );
    }
  });
});

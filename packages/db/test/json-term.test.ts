import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonNumber, TermWriter, encodeTerm, parseJson, type JsonValue } from '../src/json/index.js';

/** The term_to_binary body bytes (after 131) of a JSON text. */
const bytes = (value: JsonValue | string): number[] => [
  ...encodeTerm(typeof value === 'string' ? parseJson(value) : value),
];

describe('encodeTerm (term_to_binary, minor_version 1, as jiffy decodes JSON)', () => {
  test('atoms', () => {
    assert.deepEqual(bytes('true'), [100, 0, 4, ...Buffer.from('true')]);
    assert.deepEqual(bytes('false'), [100, 0, 5, ...Buffer.from('false')]);
    assert.deepEqual(bytes('null'), [100, 0, 4, ...Buffer.from('null')]);
  });

  test('integers of every size', () => {
    assert.deepEqual(bytes('0'), [97, 0]);
    assert.deepEqual(bytes('255'), [97, 255]);
    assert.deepEqual(bytes('256'), [98, 0, 0, 1, 0]);
    assert.deepEqual(bytes('-1'), [98, 255, 255, 255, 255]);
    assert.deepEqual(bytes('2147483647'), [98, 127, 255, 255, 255]);
    assert.deepEqual(bytes('-2147483648'), [98, 128, 0, 0, 0]);
    assert.deepEqual(bytes('2147483648'), [110, 4, 0, 0, 0, 0, 128]);
    assert.deepEqual(bytes('-2147483649'), [110, 4, 1, 1, 0, 0, 128]);
    assert.deepEqual(bytes('9007199254740991'), [110, 7, 0, 255, 255, 255, 255, 255, 255, 31]);
    assert.deepEqual(bytes('18446744073709551616'), [110, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(bytes('-18446744073709551615'), [110, 8, 1, 255, 255, 255, 255, 255, 255, 255, 255]);
  });

  test('integers past 255 bytes use LARGE_BIG_EXT', () => {
    const big = bytes(JsonNumber.integer((2n ** 2040n).toString()));
    assert.deepEqual(big.slice(0, 6), [111, 0, 0, 1, 0, 0]);
    assert.equal(big.length, 6 + 256);
    assert.equal(big.at(-1), 1);
    const small = bytes(JsonNumber.integer((2n ** 2032n).toString()));
    assert.deepEqual(small.slice(0, 3), [110, 255, 0]);
  });

  test('floats are NEW_FLOAT_EXT', () => {
    assert.deepEqual(bytes('1.0'), [70, 63, 240, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(bytes('-0.0'), [70, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(bytes('0.5'), [70, 63, 224, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(bytes('1e21'), [70, ...Buffer.from('444b1ae4d6e2ef50', 'hex')]);
  });

  test('strings are UTF-8 binaries', () => {
    assert.deepEqual(bytes('""'), [109, 0, 0, 0, 0]);
    assert.deepEqual(bytes('"é"'), [109, 0, 0, 0, 2, 0xc3, 0xa9]);
  });

  test('lists: STRING_EXT for small integers, LIST_EXT otherwise, NIL_EXT when empty', () => {
    assert.deepEqual(bytes('[]'), [106]);
    assert.deepEqual(bytes('[1,2,3]'), [107, 0, 3, 1, 2, 3]);
    assert.deepEqual(bytes('[0,255]'), [107, 0, 2, 0, 255]);
    assert.deepEqual(bytes('[1,256]'), [108, 0, 0, 0, 2, 97, 1, 98, 0, 0, 1, 0, 106]);
    assert.deepEqual(bytes('[1.0]'), [108, 0, 0, 0, 1, 70, 63, 240, 0, 0, 0, 0, 0, 0, 106]);
    assert.deepEqual(bytes('[[]]'), [108, 0, 0, 0, 1, 106, 106]);
    const long = bytes(JSON.stringify(new Array(65536).fill(1)));
    assert.deepEqual(long.slice(0, 7), [108, 0, 1, 0, 0, 97, 1]);
    const longest = bytes(JSON.stringify(new Array(65535).fill(1)));
    assert.deepEqual(longest.slice(0, 4), [107, 255, 255, 1]);
  });

  test('objects: a 1-tuple of a proplist of 2-tuples', () => {
    assert.deepEqual(bytes('{}'), [104, 1, 106]);
    assert.deepEqual(bytes('{"a":1}'), [104, 1, 108, 0, 0, 0, 1, 104, 2, 109, 0, 0, 0, 1, 97, 97, 1, 106]);
  });

  test('Erlang strings (lists of bytes, as binary_to_list makes them): STRING_EXT, NIL_EXT, LIST_EXT past 65,535', () => {
    const string = (data: Uint8Array) => [...new TermWriter().string(data).finish()];
    assert.deepEqual(string(Buffer.from('')), [106]);
    assert.deepEqual(string(Buffer.from('hü')), [107, 0, 3, 104, 195, 188]);
    const long = string(Buffer.alloc(65536, 200));
    assert.deepEqual(long.slice(0, 9), [108, 0, 1, 0, 0, 97, 200, 97, 200]);
    assert.equal(long.length, 5 + 65536 * 2 + 1);
    assert.equal(long.at(-1), 106);
  });
});

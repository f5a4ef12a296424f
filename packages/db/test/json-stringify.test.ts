import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  JsonNumber,
  JsonObject,
  fromPlain,
  isFloat,
  parseJson,
  stringifyJson,
  toPlain,
  type JsonValue,
} from '../src/json/index.js';

describe('stringifyJson', () => {
  test('no whitespace, order kept', () => {
    assert.equal(
      stringifyJson(parseJson(' { "b" : [ 1 , 2 ] , "a" : { } , "1" : [ ] } ')),
      '{"b":[1,2],"a":{},"1":[]}',
    );
  });

  test('strings are escaped like JSON.stringify', () => {
    const s = 'q"b\\s/\b\f\n\r\t\u0000\u001f\u007f é 😀 \u2028';
    assert.equal(stringifyJson(s), JSON.stringify(s));
    assert.equal(stringifyJson('\ud800'), '"\\ud800"');
  });

  test('numbers', () => {
    assert.equal(stringifyJson(1), '1');
    assert.equal(stringifyJson(-0), '0');
    assert.equal(stringifyJson(0.5), '0.5');
    assert.equal(stringifyJson(2 ** 53), '9007199254740992.0');
    assert.equal(stringifyJson(1e21), '1e+21');
    assert.equal(stringifyJson(-1e-7), '-1e-7');
    assert.equal(stringifyJson(JsonNumber.float(3)), '3.0');
    assert.equal(stringifyJson(JsonNumber.float(-0)), '0.0');
    assert.equal(stringifyJson(JsonNumber.integer('-0')), '0');
    assert.equal(stringifyJson(JsonNumber.integer('123456789012345678901234567890')), '123456789012345678901234567890');
    assert.throws(() => stringifyJson(Infinity), RangeError);
    assert.throws(() => stringifyJson(NaN), RangeError);
  });

  test('rejects what is not a JSON value', () => {
    assert.throws(() => stringifyJson(undefined as unknown as JsonValue), TypeError);
    assert.throws(() => stringifyJson({ a: 1 } as unknown as JsonValue), TypeError);
  });
});

describe('JsonObject', () => {
  test('set, delete, without, entries', () => {
    const object = JsonObject.from([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    object.set('b', 20).set('d', 4);
    assert.deepEqual(
      [...object.entries()],
      [
        ['a', 1],
        ['b', 20],
        ['c', 3],
        ['d', 4],
      ],
    );
    assert.equal(object.delete('a'), true);
    assert.equal(object.delete('a'), false);
    const smaller = object.without(new Set(['c', 'x']));
    assert.deepEqual(smaller.keys, ['b', 'd']);
    assert.deepEqual(object.keys, ['b', 'c', 'd']);
  });

  test('lookups in large objects', () => {
    const object = new JsonObject();
    for (let i = 0; i < 100; i++) object.set(`k${i}`, i);
    assert.equal(object.get('k77'), 77);
    object.delete('k10');
    assert.equal(object.get('k77'), 77);
    assert.equal(object.get('k10'), undefined);
    object.set('k10', 'back');
    assert.equal(object.keys.at(-1), 'k10');
    assert.equal(object.get('k10'), 'back');
  });
});

describe('toPlain / fromPlain', () => {
  test('toPlain gives what JSON.parse gives', () => {
    const text = '{"b":1,"2":[1.0,12345678901234567890,{"x":null}],"a":"s","__proto__":1}';
    assert.deepEqual(toPlain(parseJson(text)), JSON.parse(text));
  });

  test('fromPlain keeps insertion order and the number rule', () => {
    const value = fromPlain({
      b: 1,
      a: [1.5, 2 ** 60, -0, 10n ** 20n, 7n],
      c: new Date(0),
      u: undefined,
      n: NaN,
      f: () => 1,
    });
    assert.equal(
      stringifyJson(value),
      '{"b":1,"a":[1.5,1152921504606847000.0,0,100000000000000000000,7],"c":"1970-01-01T00:00:00.000Z","n":null}',
    );
    assert.deepEqual(stringifyJson(fromPlain([undefined, () => 1])), '[null,null]');
    assert.throws(() => fromPlain(undefined), TypeError);
  });

  test('isFloat', () => {
    assert.equal(isFloat(1), false);
    assert.equal(isFloat(1.5), true);
    assert.equal(isFloat(2 ** 53), true);
    assert.equal(isFloat(JsonNumber.float(1)), true);
    assert.equal(isFloat(JsonNumber.integer('99999999999999999999')), false);
  });
});

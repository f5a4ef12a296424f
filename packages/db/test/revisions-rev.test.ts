import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CouchError } from '../src/errors.js';
import { parseJson, type JsonObject } from '../src/json/index.js';
import { compareRevIds, formatRev, newRevId, normalizeRevId, parseRev, revIdBytes } from '../src/revisions/index.js';

const body = (text: string): JsonObject => parseJson(text) as JsonObject;

describe('parseRev / formatRev', () => {
  test('valid revs', () => {
    assert.deepEqual(parseRev('3-abc'), { pos: 3, id: 'abc' });
    assert.deepEqual(parseRev('0-1'), { pos: 0, id: '1' });
    assert.deepEqual(parseRev('12-a-b'), { pos: 12, id: 'a-b' });
    assert.deepEqual(parseRev('+2-x'), { pos: 2, id: 'x' });
    assert.deepEqual(parseRev('007-x'), { pos: 7, id: 'x' });
    assert.deepEqual(parseRev('1-967A00DFF5E02ADD41819138ABB3284D'), {
      pos: 1,
      id: '967a00dff5e02add41819138abb3284d',
    });
    assert.equal(formatRev({ pos: 4, id: 'zz' }), '4-zz');
  });

  test('an empty id is a rev, as CouchDB parses it (`0-` on new docs, `1-` replicated)', () => {
    assert.deepEqual(parseRev('1-'), { pos: 1, id: '' });
    assert.deepEqual(parseRev('0-'), { pos: 0, id: '' });
  });

  test('invalid revs are 400 "Invalid rev format"', () => {
    for (const bad of [
      '',
      'abc',
      '-abc',
      '1',
      'x-abc',
      '-1-abc',
      '1.5-abc',
      ' 1-abc',
      '1e3-abc',
      '99999999999999999999-a',
      1,
      null,
      undefined,
      {},
      ['1-a'],
    ]) {
      assert.throws(
        () => parseRev(bad),
        (error: unknown) =>
          error instanceof CouchError &&
          error.status === 400 &&
          error.error === 'bad_request' &&
          error.reason === 'Invalid rev format',
        String(bad),
      );
    }
  });
});

describe('rev id bytes', () => {
  test('normalizeRevId: hex ids lower case, 16-byte ids printed as hex (CouchDB revid_to_str)', () => {
    assert.equal(normalizeRevId('ABCDEF0123456789ABCDEF0123456789'), 'abcdef0123456789abcdef0123456789');
    assert.equal(normalizeRevId('zzz'), 'zzz');
    assert.equal(normalizeRevId('Z9'), 'Z9');
    assert.equal(normalizeRevId('abcdefghijklmnop'), '6162636465666768696a6b6c6d6e6f70');
    assert.equal(normalizeRevId('abcdefghijklmno'), 'abcdefghijklmno');
    assert.equal(normalizeRevId('ééééééé¢'), Buffer.from('ééééééé¢').toString('hex'));
    assert.equal(normalizeRevId('g'.repeat(32)), 'g'.repeat(32));
  });

  test('revIdBytes', () => {
    assert.equal(revIdBytes('967a00dff5e02add41819138abb3284d').length, 16);
    assert.deepEqual([...revIdBytes('zzz')], [0x7a, 0x7a, 0x7a]);
  });

  test('compareRevIds compares bytes', () => {
    const hex6 = '6ebc0000000000000000000000000000';
    const hex8 = '8ff00000000000000000000000000000';
    assert.ok(compareRevIds('zzz', hex6) > 0); // 0x7a > 0x6e
    assert.ok(compareRevIds('zzz', hex8) < 0); // 0x7a < 0x8f
    assert.ok(compareRevIds(hex6, hex8) < 0);
    assert.ok(compareRevIds('a', 'b') < 0);
    assert.ok(compareRevIds('b', 'ab') > 0);
    assert.ok(compareRevIds('abc', 'ab') > 0);
    assert.equal(compareRevIds('x', 'x'), 0);
    assert.equal(compareRevIds(hex8.toUpperCase(), hex8), 0);
    // UTF-8 byte order, not UTF-16 order: U+FF61 (EF BD A1) < U+1F600 (F0 9F 98 80)
    assert.ok(compareRevIds('\uff61', '😀') < 0);
    assert.ok('\uff61' > '😀');
  });
});

describe('newRevId reproduces CouchDB rev ids', () => {
  // Rev ids returned by real CouchDB servers for these bodies (docs, tutorials, client tests).
  const cases: [string, boolean, string | null, string, string][] = [
    ['{} (new doc)', false, null, '{}', '967a00dff5e02add41819138abb3284d'],
    ['{"x":1}', false, null, '{"x":1}', '0785e9eb543380151003dc452c3a001a'],
    ['{"y":2}', false, null, '{"y":2}', 'ef91d626f27dc5d224fd534e7b47da82'],
    ['{"z":3}', false, null, '{"z":3}', '178dbe6c7346ffc3af8811327d1336ff'],
    ['{"name":"Chas"}', false, null, '{"name":"Chas"}', '24ccfd9600c215e32ceefdd06b25f62d'],
    ['{"name":"Roger"}', false, null, '{"name":"Roger"}', '0c3db91854f26486d1c3922f1a651d86'],
    [
      'three members in sent order',
      false,
      null,
      '{"name": "Ferris Bueller", "actor": "Matthew Broderick", "dob": "1962-03-21"}',
      '974e44505640c47cd31db6d4949aaff5',
    ],
    [
      'a nested array',
      false,
      null,
      '{"description": "An Italian-American dish that usually consists of spaghetti, tomato sauce and meatballs.","ingredients": ["spaghetti","tomato sauce","meatballs"],"name": "Spaghetti with meatballs"}',
      '917fa2381192822767f010b95b45325b',
    ],
    ['an update', false, '1-0785e9eb543380151003dc452c3a001a', '{"x":2}', '8c49edca19d786e747fb5bea32c4cb91'],
    ['a DELETE', true, '2-8c49edca19d786e747fb5bea32c4cb91', '{}', 'fb567087695adb203ba116e130794a84'],
    ['a DELETE of {}', true, '1-967a00dff5e02add41819138abb3284d', '{}', 'eec205a9d413992850a6e32678485900'],
    ['a DELETE of {"z":3}', true, '1-178dbe6c7346ffc3af8811327d1336ff', '{}', '7a128852666329025f1fba1114628251'],
  ];
  for (const [name, deleted, parent, text, expected] of cases) {
    test(name, () => {
      assert.equal(newRevId(deleted, parent === null ? null : parseRev(parent), body(text)), expected);
    });
  }

  test('depends on member order and number type, not on whitespace or the doc id', () => {
    const id = (text: string) => newRevId(false, null, body(text));
    assert.notEqual(id('{"a":1,"b":2}'), id('{"b":2,"a":1}'));
    assert.notEqual(id('{"a":1}'), id('{"a":1.0}'));
    assert.equal(id('{"a":1E+2}'), id('{"a":100.0}'));
    assert.equal(id('{ "a" : [ 1 , 2 ] }'), id('{"a":[1,2]}'));
    assert.equal(id('{"a":1,"a":2}'), id('{"a":2}'));
  });

  test('attachments: {Name, Type, Md5} tuples, in reverse order, after the body', () => {
    // term_to_binary([false, 0, 0, {[]}, [{<<"b">>,<<"x/y">>,Md5b}, {<<"a">>,<<"t">>,Md5a}]]), byte by byte.
    const md5a = Buffer.alloc(16, 0xaa);
    const md5b = Buffer.alloc(16, 0xbb);
    const bin = (bytes: Buffer) => Buffer.concat([Buffer.from([109, 0, 0, 0, bytes.length]), bytes]);
    const tuple = (name: string, type: string, md5: Buffer) =>
      Buffer.concat([Buffer.from([104, 3]), bin(Buffer.from(name)), bin(Buffer.from(type)), bin(md5)]);
    const term = Buffer.concat([
      Buffer.from([131, 108, 0, 0, 0, 5]), // [ of 5
      Buffer.from([100, 0, 5]),
      Buffer.from('false'),
      Buffer.from([97, 0, 97, 0]), // 0, 0
      Buffer.from([104, 1, 106]), // {[]}: jiffy's empty object
      Buffer.from([108, 0, 0, 0, 2]),
      tuple('b', 'x/y', md5b),
      tuple('a', 't', md5a),
      Buffer.from([106, 106]), // the attachment list's tail, the outer list's tail
    ]);
    const expected = createHash('md5').update(term).digest('hex');
    const atts = [
      { name: 'a', contentType: 't', md5: md5a },
      { name: 'b', contentType: 'x/y', md5: md5b },
    ];
    assert.equal(newRevId(false, null, body('{}'), atts), expected);
    assert.equal(newRevId(false, null, body('{}'), []), '967a00dff5e02add41819138abb3284d');
  });

  test('a non-hex parent id is hashed as its UTF-8 bytes', () => {
    const a = newRevId(false, { pos: 1, id: 'zzz' }, body('{}'));
    const b = newRevId(false, { pos: 1, id: 'zzy' }, body('{}'));
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.notEqual(a, b);
  });
});

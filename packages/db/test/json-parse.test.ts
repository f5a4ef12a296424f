import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  JsonNumber,
  JsonObject,
  JsonSyntaxError,
  JsonTooDeepError,
  type JsonValue,
  MAX_DEPTH,
  parseJson,
  parseJsonIsolatingDeep,
  stringifyJson,
  toPlain,
} from '../src/json/index.js';

const roundTrip = (text: string): string => stringifyJson(parseJson(text));

describe('parseJson: accepted input', () => {
  test('scalars', () => {
    assert.equal(parseJson('null'), null);
    assert.equal(parseJson('true'), true);
    assert.equal(parseJson('false'), false);
    assert.equal(parseJson(' \t\r\n"x" \n'), 'x');
    assert.equal(parseJson('0'), 0);
    assert.equal(parseJson('-12'), -12);
    assert.equal(parseJson('1.5'), 1.5);
  });

  test('objects keep member order, integer-like keys included', () => {
    const value = parseJson('{"b":1,"1":2,"a":3,"0":4}');
    assert.ok(value instanceof JsonObject);
    assert.deepEqual(value.keys, ['b', '1', 'a', '0']);
    assert.deepEqual(value.values, [1, 2, 3, 4]);
    assert.equal(value.get('1'), 2);
    assert.equal(value.has('z'), false);
    assert.equal(value.size, 4);
  });

  test('duplicate keys: the last value, at the position of the last occurrence (like jiffy dedupe_keys)', () => {
    assert.equal(roundTrip('{"a":1,"b":2,"a":3}'), '{"b":2,"a":3}');
    assert.equal(roundTrip('{"bar":1,"foo":2,"baz":3,"foo":4}'), '{"bar":1,"baz":3,"foo":4}');
    assert.equal(roundTrip('{"foo":1,"foo":2,"foo":3}'), '{"foo":3}');
    assert.equal(roundTrip('[{"x":{"y":1,"y":2}}]'), '[{"x":{"y":2}}]');
  });

  test('duplicate keys in large objects (the indexed path)', () => {
    const members = Array.from({ length: 40 }, (_, i) => `"k${i % 25}":${i}`);
    const expected = Array.from({ length: 25 }, (_, k) => k)
      .map((k) => (k < 15 ? { key: `k${k}`, value: k + 25, at: k + 25 } : { key: `k${k}`, value: k, at: k }))
      .sort((x, y) => x.at - y.at)
      .map(({ key, value }) => `"${key}":${value}`);
    assert.equal(roundTrip(`{${members.join(',')}}`), `{${expected.join(',')}}`);
  });

  test('"__proto__" is an ordinary member', () => {
    const value = parseJson('{"__proto__":{"x":1},"a":2}');
    assert.ok(value instanceof JsonObject);
    assert.deepEqual(value.keys, ['__proto__', 'a']);
    const plain = toPlain(value) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(plain), Object.prototype);
    assert.deepEqual(Object.keys(plain), ['__proto__', 'a']);
  });

  test('string escapes', () => {
    assert.equal(parseJson('"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"'), 'a"b\\c/d\b\f\n\r\t');
    assert.equal(parseJson('"\\u00e9\\u4E2D"'), 'é中');
    assert.equal(parseJson('"\\ud83d\\ude00"'), '😀');
    assert.equal(parseJson('"x\\u0000y"'), 'x\u0000y');
    assert.equal(parseJson('"plain 😀 é"'), 'plain 😀 é');
  });

  test('integers beyond 2^53 are kept exactly', () => {
    for (const text of ['9007199254740993', '-98765432109876543210', '123456789012345678901234567890']) {
      const value = parseJson(text);
      assert.ok(value instanceof JsonNumber);
      assert.equal(value.isFloat, false);
      assert.equal(value.text, text);
      assert.equal(value.toBigInt(), BigInt(text));
    }
    assert.equal(parseJson('9007199254740991'), 9007199254740991);
    assert.equal(parseJson('-9007199254740991'), -9007199254740991);
    assert.ok(parseJson('9007199254740992') instanceof JsonNumber);
  });

  test('floats with integral values stay floats', () => {
    for (const [text, out] of [
      ['1.0', '1.0'],
      ['1e2', '100.0'],
      ['1E+2', '100.0'],
      ['-0.0', '0.0'],
      ['0.0', '0.0'],
      ['-5.0', '-5.0'],
      ['2.5e1', '25.0'],
    ] as [string, string][]) {
      const value = parseJson(text);
      assert.ok(value instanceof JsonNumber, text);
      assert.equal(value.isFloat, true);
      assert.equal(value.text, out);
    }
  });

  test('number spelling as CouchDB returns it', () => {
    const cases: [string, string][] = [
      ['-0', '0'],
      ['3.14159265358979323846', '3.141592653589793'],
      ['1e21', '1e+21'],
      ['1e20', '100000000000000000000.0'],
      ['0.1', '0.1'],
      ['1e-7', '1e-7'],
      ['-98765432109876543210', '-98765432109876543210'],
      ['5e-324', '0.0'],
      ['-5e-324', '0.0'],
      ['4.9e-324', '5e-324'],
      ['1e-320', '1e-320'],
      ['1.7976931348623157e308', '1.7976931348623157e+308'],
      ['1e-400', '0.0'],
    ];
    for (const [text, out] of cases) assert.equal(roundTrip(text), out, text);
  });

  test('deep nesting up to the limit', () => {
    const text = '['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH);
    assert.equal(roundTrip(text), text);
  });
});

describe('parseJson: rejected input', () => {
  const bad = [
    '',
    ' ',
    '\uFEFF{}',
    'NaN',
    'Infinity',
    '-Infinity',
    'undefined',
    '{} x',
    '{}{}',
    '1 2',
    '[1,]',
    '[,1]',
    '{"a":1,}',
    '{"a" 1}',
    '{a:1}',
    "{'a':1}",
    '[1',
    '{"a":1',
    '"abc',
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud800\\u0041"',
    '"\\ud800x"',
    '"\\x41"',
    '"\\u12"',
    '"\\u12g4"',
    '"a\u0001b"',
    '"a\nb"',
    '"\t"',
    '01',
    '-',
    '-01',
    '1.',
    '.5',
    '1e',
    '1e+',
    '+1',
    '0x10',
    '1e400',
    '-1e400',
    'tru',
    'nul',
    'True',
    '\u00a0 1',
    '['.repeat(MAX_DEPTH + 1) + ']'.repeat(MAX_DEPTH + 1),
  ];
  for (const text of bad) {
    test(JSON.stringify(text.length > 40 ? `${text.slice(0, 20)}…` : text), () => {
      assert.throws(() => parseJson(text), JsonSyntaxError);
    });
  }
});

describe('parseJson: properties', () => {
  test('agrees with JSON.parse on JSON.stringify output', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // The one documented difference: CouchDB reads the literal 5e-324 as 0.0.
        const expected: unknown = JSON.parse(text, (_key, v: unknown) => (v === 5e-324 || v === -5e-324 ? 0 : v));
        assert.deepEqual(toPlain(parseJson(text)), expected);
      }),
      { numRuns: 500 },
    );
  });

  test('accepts and rejects the same texts as JSON.parse (ignoring the documented differences)', () => {
    const alphabet = fc.constantFrom(...'{}[]",:0123456789.-+eE truefalsnl\\u\n'.split(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 24 }).map((chars) => chars.join('')),
        (text) => {
          let native: unknown;
          let nativeOk = true;
          try {
            native = JSON.parse(text);
          } catch {
            nativeOk = false;
          }
          let oursOk = true;
          try {
            parseJson(text);
          } catch (error) {
            assert.ok(error instanceof JsonSyntaxError);
            oursOk = false;
          }
          // JSON.parse accepts numbers that overflow to Infinity; CouchDB does not.
          const overflow = nativeOk && JSON.stringify(native).includes('null') && !/null/.test(text);
          if (!overflow) assert.equal(oursOk, nativeOk, text);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('long raw strings (scanned natively past 32 characters) read as JSON.parse reads them', () => {
    const unit = fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...'abcXYZ019+/= '.split('')) },
      { weight: 1, arbitrary: fc.constantFrom('\\"', '\\n', '\\u00e9', '\\\\', '"', '\\', '\n', '\u0001') },
      { weight: 1, arbitrary: fc.constantFrom('\ud83d\ude00', '\ud83d', '\ude00', 'é', '\u2028') },
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 120 }), fc.boolean(), (units, closed) => {
        const text = `"${units.join('')}${closed ? '"' : ''}`;
        let native: unknown;
        try {
          native = JSON.parse(text);
        } catch {
          assert.throws(() => parseJson(text), JsonSyntaxError, text);
          return;
        }
        const ours = parseJson(text);
        assert.equal(ours, native, text);
        assert.equal(stringifyJson(ours), JSON.stringify(native), text);
        // In an object, whose source text is reused when canonical (a lone surrogate is not).
        const member = `{"k":${text}}`;
        assert.equal(stringifyJson(parseJson(member)), JSON.stringify(JSON.parse(member)), member);
      }),
      { numRuns: 3000 },
    );
  });

  test('stringify(parse(x)) is a fixed point', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = roundTrip(JSON.stringify(value));
        assert.equal(roundTrip(once), once);
      }),
      { numRuns: 300 },
    );
  });

  test('any number text: integers exact, floats as JS reads them', () => {
    const digits = fc.stringMatching(/^(0|[1-9][0-9]{0,40})$/);
    fc.assert(
      fc.property(
        fc.boolean(),
        digits,
        fc.option(fc.stringMatching(/^[0-9]{1,20}$/)),
        fc.option(fc.integer({ min: -330, max: 330 })),
        (negative, int, fraction, exponent) => {
          const text = `${negative ? '-' : ''}${int}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `e${exponent}`}`;
          if (!Number.isFinite(Number(text))) {
            assert.throws(() => parseJson(text), JsonSyntaxError);
            return;
          }
          const value = parseJson(text);
          if (fraction === null && exponent === null) {
            const expected = BigInt(text);
            if (typeof value === 'number') assert.equal(BigInt(value), expected);
            else assert.ok(value instanceof JsonNumber && !value.isFloat && value.toBigInt() === expected);
          } else {
            const n = typeof value === 'number' ? value : (value as JsonNumber).toNumber();
            const quirk = fraction === null && exponent !== null && exponent <= -324;
            assert.equal(n, quirk ? 0 : Number(text) === 0 ? 0 : Number(text), text);
            assert.ok(typeof value !== 'number' || !Number.isSafeInteger(value), text);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('parseJsonIsolatingDeep', () => {
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  test("a too-deep element of the named member's array is set apart; the rest parses as usual", () => {
    const element = `{"_id":"d","x":${deep(1100)}}`;
    const text = `{"docs":[{"_id":"a"},${element},[1,{"b":2}]],"n":1}`;
    const { value, tooDeep } = parseJsonIsolatingDeep(text, 'docs');
    const docs = (value as JsonObject).get('docs') as JsonValue[];
    assert.equal(docs.length, 3);
    assert.equal(tooDeep.size, 1);
    assert.equal(tooDeep.get(docs[1] as JsonObject), element);
    assert.deepEqual(toPlain(docs[2]!), [1, { b: 2 }]);
    assert.equal((value as JsonObject).get('n'), 1);
    // The same text without isolation fails whole; parsing again afterwards isolates nothing.
    assert.throws(() => parseJson(text), JsonTooDeepError);
    assert.throws(() => parseJsonIsolatingDeep(`{"other":[${element}]}`, 'docs'), JsonTooDeepError);
    assert.throws(() => parseJsonIsolatingDeep(`{"docs":{"x":${element}}}`, 'docs'), JsonTooDeepError);
    // The element is what is set apart, whatever its type.
    assert.equal(parseJsonIsolatingDeep(`{"docs":[[${element}]]}`, 'docs').tooDeep.size, 1);
    assert.throws(() => parseJsonIsolatingDeep(`{"docs":[${element}`, 'docs'), JsonSyntaxError);
  });
});

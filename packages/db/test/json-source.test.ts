// The parser's canonical-source fast path: an object whose source text is already what
// stringifyJson writes keeps it (JsonObject.canonicalText), so a stored body is a slice of the
// request instead of a new serialization. Whatever the source, the text must equal
// stringifyJson of the parsed value (without the omitted members).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonObject, parseJson, stringifyJson, type JsonValue } from '../src/json/index.js';
import { readDocInput, SPECIAL_MEMBERS } from '../src/documents/doc-input.js';

const OMITS: ReadonlySet<string>[] = [
  SPECIAL_MEMBERS,
  new Set(['_id']),
  new Set(['a']),
  new Set(['_access', '_id', '_']),
  new Set(),
];

function* objects(value: JsonValue): Generator<JsonObject> {
  if (Array.isArray(value)) for (const item of value) yield* objects(item);
  else if (value instanceof JsonObject) {
    yield value;
    for (const item of value.values) yield* objects(item);
  }
}

/** Every object in the parse of `text` either has no canonical text or the right one. */
function checkText(text: string): void {
  let value: JsonValue;
  try {
    value = parseJson(text);
  } catch {
    return;
  }
  for (const object of objects(value)) {
    const own = object.canonicalText();
    if (own !== undefined) assert.equal(own, stringifyJson(object), `own text of ${text}`);
    for (const omit of OMITS) {
      const cut = object.canonicalText(omit);
      if (cut !== undefined)
        assert.equal(cut, stringifyJson(object.without(omit)), `text of ${text} without ${[...omit]}`);
    }
  }
  if (value instanceof JsonObject) {
    let input;
    try {
      input = readDocInput(value);
    } catch {
      return;
    }
    if (input.json !== undefined) assert.equal(input.json, stringifyJson(input.body), `doc body of ${text}`);
  }
}

/** Canonical text (stringifyJson's own output, when it parses back to itself) is recognized. */
function checkRecognized(text: string): void {
  let canonical: string;
  try {
    canonical = stringifyJson(parseJson(text));
  } catch {
    return;
  }
  let value: JsonValue;
  try {
    value = parseJson(canonical);
  } catch {
    return; // a raw lone surrogate comes out escaped, which the parser refuses
  }
  if (stringifyJson(value) !== canonical) return; // e.g. 5e-324, which CouchDB reads as 0.0
  for (const object of objects(value)) {
    assert.equal(object.canonicalText(), stringifyJson(object), `recognized ${canonical}`);
    assert.equal(
      object.canonicalText(SPECIAL_MEMBERS),
      stringifyJson(object.without(SPECIAL_MEMBERS)),
      `recognized ${canonical} without specials`,
    );
  }
}

// ---- random JSON text with the spellings that matter --------------------------------------------

const ws = fc.constantFrom('', '', '', '', ' ', '\n', '\t', '\r\n  ');
const hex4 = (n: number, upper: boolean): string => {
  const h = n.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
};
const stringPiece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'z', '0', ' ', 'id', '_', 'doc', '/', "'", '~', '\u007f') },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ü', '中', '😀', '\u2028', '\u2029', '\ufeff', '\ud7ff', '\ue000') },
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udc00', '\udbff\udfff', '\ud83d') }, // raw surrogates, lone or paired
  { weight: 3, arbitrary: fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t') },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.integer({ min: 0, max: 0x3f }),
          fc.integer({ min: 0, max: 0xd7ff }),
          fc.integer({ min: 0xe000, max: 0xffff }),
        ),
        fc.boolean(),
      )
      .map(([n, upper]) => `\\u${hex4(n, upper)}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('\\ud83d\\ude00', '\\uD83D\\uDE00', '\\ud800') },
);
const stringText = fc.array(stringPiece, { maxLength: 6 }).map((pieces) => `"${pieces.join('')}"`);
const keyText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '"_id"',
      '"_rev"',
      '"_deleted"',
      '"_access"',
      '"_"',
      '"_foo"',
      '"a"',
      '"b"',
      '""',
      '"1"',
      '"\\u005fid"',
      '"_i\\u0064"',
    ),
  },
  { weight: 1, arbitrary: stringText },
);
const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
const intPart = fc.oneof(
  fc.constant('0'),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 24)).map(([a, b]) => `${a}${b}`),
);
const numberText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.boolean(),
        intPart,
        fc.option(digits(1, 20)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))),
      )
      .map(
        ([neg, int, frac, exp]) =>
          `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`,
      ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '-0',
      '0',
      '1.0',
      '-0.0',
      '1E+2',
      '1e2',
      '100.0',
      '1e21',
      '1e+21',
      '1e-7',
      '5e-324',
      '4.9e-324',
      '1e-320',
      '9007199254740991',
      '9007199254740992',
      '-9007199254740993',
      '123456789012345678901234567890',
      '0.1',
      '0.10',
      '1.5e300',
      '2.5',
      '12.3',
    ),
  },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)) },
);
const { json } = fc.letrec<{ json: string; object: string; array: string }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .tuple(ws, fc.array(fc.tuple(ws, keyText, ws, ws, tie('json'), ws), { maxLength: 6 }))
    .map(
      ([inner, members]) =>
        `{${members.length === 0 ? inner : members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`,
    ),
  array: fc
    .tuple(ws, fc.array(fc.tuple(ws, tie('json'), ws), { maxLength: 5 }))
    .map(([inner, items]) => `[${items.length === 0 ? inner : items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`),
}));

describe('canonical source text (JsonObject.canonicalText)', () => {
  test('random JSON text: canonical text, when known, equals stringifyJson (with and without special members)', () => {
    fc.assert(
      fc.property(json, (text) => {
        checkText(text);
        checkText(`{"_id":"x","v":${text}}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('random JSON text: stringifyJson output parses back with its canonical text known', () => {
    fc.assert(
      fc.property(json, (text) => {
        checkRecognized(text);
        checkRecognized(`{"_rev":"1-a","a":${text},"_id":"x"}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('random objects with special members anywhere', () => {
    const member = fc.tuple(keyText, json).map(([k, v]) => `${k}:${v}`);
    fc.assert(
      fc.property(fc.array(member, { maxLength: 8 }), (members) => {
        checkText(`{${members.join(',')}}`);
        checkRecognized(`{${members.join(',')}}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('what is recognized and what is not', () => {
    const text = (source: string, omit?: ReadonlySet<string>) => (parseJson(source) as JsonObject).canonicalText(omit);
    assert.equal(text('{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}'), '{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}');
    assert.equal(text('{}'), '{}');
    assert.equal(text('{"_id":"x"}', SPECIAL_MEMBERS), '{}');
    assert.equal(text('{"_id":"x","a":1}', SPECIAL_MEMBERS), '{"a":1}');
    assert.equal(text('{"a":1,"_id":"x"}', SPECIAL_MEMBERS), '{"a":1}');
    assert.equal(text('{"a":1,"_id":"x","_rev":"1-a","b":2}', SPECIAL_MEMBERS), '{"a":1,"b":2}');
    assert.equal(
      text('{"_id":"x","a":1,"_rev":"1-a","_access":[],"b":2,"_deleted":false}', SPECIAL_MEMBERS),
      '{"a":1,"_access":[],"b":2}',
    );
    assert.equal(text('{"_id":"x","a":1}', new Set(['a'])), undefined); // only `_` members can be cut
    assert.equal(
      text('{"a":"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f é😀"}'),
      '{"a":"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f é😀"}',
    );
    // Spellings stringifyJson would change: the text is not taken from the source.
    for (const source of [
      '{ "a":1}',
      '{"a":1 }',
      '{"a": 1}',
      '{"a":[1, 2]}',
      '{"a":1,"a":2}',
      '{"a":-0}',
      '{"a":1E+2}',
      '{"a":1e2}',
      '{"a":1.50}',
      '{"a":-0.0}',
      '{"a":1e21}',
      '{"a":5e-324}',
      '{"a":"\\/"}',
      '{"a":"\\u0041"}',
      '{"a":"\\u001F"}',
      '{"a":"\\u0008"}',
      '{"a":"\\ud83d\\ude00"}',
      '{"a":"\ud800"}',
      '{"\\u005fid":1}',
    ]) {
      assert.equal(text(source), undefined, source);
    }
    // Canonical spellings of the same kinds are recognized.
    for (const source of [
      '{"a":1.0}',
      '{"a":100.0}',
      '{"a":1e+21}',
      '{"a":-1e-7}',
      '{"a":123456789012345678901234567890}',
      '{"a":0}',
      '{"a":"\\u001f/"}',
      '{"a":"\ud83d\ude00"}',
    ]) {
      assert.equal(text(source), source, source);
    }
  });

  test('set and delete forget the source text', () => {
    const a = parseJson('{"a":1,"b":2}') as JsonObject;
    a.set('c', 3);
    assert.equal(a.canonicalText(), undefined);
    const b = parseJson('{"a":1,"b":2}') as JsonObject;
    b.delete('a');
    assert.equal(b.canonicalText(), undefined);
    assert.equal(new JsonObject(['a'], [1]).canonicalText(), undefined);
  });

  test('readDocInput gives the stored text of a parsed document', () => {
    const input = readDocInput(
      parseJson('{"_id":"doc1","type":"post","n":1.0,"tags":["a"],"_rev":"1-967a00dff5e02add41819138abb3284d"}'),
    );
    assert.equal(input.json, '{"type":"post","n":1.0,"tags":["a"]}');
    assert.equal(input.json, stringifyJson(input.body));
    assert.equal(readDocInput(parseJson('{"_id":"doc1", "n":1}')).json, undefined);
  });
});

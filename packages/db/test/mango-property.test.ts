/**
 * Properties of selector normalization, matching and projection over random selectors and
 * documents (fast-check).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CouchError } from '../src/errors.js';
import { type JsonObject, parseJson, stringifyJson } from '../src/json/index.js';
import { matches } from '../src/mango/match.js';
import { parseFields, project } from '../src/mango/projection.js';
import { parseSelector, selectorToJson } from '../src/mango/selector.js';

const FIELDS = ['a', 'b', 'c'];
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -1.5, 2.25),
  fc.constantFrom('', 'a', 'A', 'b', 'é', 'e\u0301', 'ab'),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 3 }),
  ),
}));
const doc = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 3 });

const OPS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte'];
const condition: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.constantFrom(...OPS), scalar).map(([op, arg]) => ({ [op]: arg })),
  fc.array(scalar, { maxLength: 3 }).map((args) => ({ $in: args })),
  fc.array(scalar, { maxLength: 3 }).map((args) => ({ $nin: args })),
  fc.boolean().map((b) => ({ $exists: b })),
  fc.constantFrom('null', 'boolean', 'number', 'string', 'array', 'object').map((t) => ({ $type: t })),
  fc.integer({ min: 0, max: 3 }).map((n) => ({ $size: n })),
  fc.constantFrom('^a', 'b$', '(?i)A', '\\w').map((r) => ({ $regex: r })),
);
const { selector } = fc.letrec((tie) => ({
  selector: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(...FIELDS, 'a.b', 'b.0'), condition).map(([f, c]) => ({ [f]: c })),
    fc.tuple(fc.constantFrom(...FIELDS), scalar).map(([f, v]) => ({ [f]: v })),
    fc.array(tie('selector'), { minLength: 1, maxLength: 3 }).map((items) => ({ $and: items })),
    fc.array(tie('selector'), { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })),
    fc.array(tie('selector'), { minLength: 1, maxLength: 2 }).map((items) => ({ $nor: items })),
    tie('selector').map((s) => ({ $not: s })),
    fc.tuple(fc.constantFrom(...FIELDS), condition).map(([f, c]) => ({ [f]: { $not: c } })),
    fc.tuple(fc.constantFrom(...FIELDS), tie('selector')).map(([f, s]) => ({ [f]: { $elemMatch: s } })),
  ),
}));

const json = (v: unknown) => parseJson(JSON.stringify(v));

describe('mango properties', () => {
  it('normalization is idempotent on its JSON form', () => {
    fc.assert(
      fc.property(selector, (s) => {
        let once: string;
        try {
          once = stringifyJson(selectorToJson(parseSelector(json(s))));
        } catch {
          return; // e.g. a top-level $not of an operator: no field name
        }
        assert.equal(stringifyJson(selectorToJson(parseSelector(parseJson(once)))), once);
      }),
      { numRuns: 500 },
    );
  });

  it('matching the normalized JSON again gives the same answer', () => {
    fc.assert(
      fc.property(selector, doc, (s, d) => {
        let parsed: ReturnType<typeof parseSelector>;
        try {
          parsed = parseSelector(json(s));
        } catch {
          return;
        }
        const again = parseSelector(selectorToJson(parsed));
        assert.equal(matches(again, json(d)), matches(parsed, json(d)));
      }),
      { numRuns: 500 },
    );
  });

  it('$not of an operator is the negation of the operator where the field exists, false where it does not', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), condition, doc, (field, c, d) => {
        const positive = matches(parseSelector(json({ [field]: c })), json(d));
        const negative = matches(parseSelector(json({ [field]: { $not: c } })), json(d));
        if (field in d) assert.equal(negative, !positive);
        else {
          // Only $exists:false (the negation of $exists:true) matches a missing field.
          const existsTrue = JSON.stringify(c) === '{"$exists":true}';
          assert.equal(negative, existsTrue);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('$in is the $or of $eq for non-array values (and a non-empty argument list)', () => {
    fc.assert(
      fc.property(fc.array(scalar, { minLength: 1, maxLength: 4 }), doc, (args, d) => {
        if (Array.isArray(d.a)) return;
        const viaIn = matches(parseSelector(json({ a: { $in: args } })), json(d));
        const viaOr = matches(parseSelector(json({ $or: args.map((arg) => ({ a: { $eq: arg } })) })), json(d));
        assert.equal(viaIn, viaOr);
      }),
      { numRuns: 1000 },
    );
  });

  it('$nor is the negation of $or on documents that have every field it names', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...FIELDS), scalar), { minLength: 1, maxLength: 3 }),
        doc,
        (pairs, d) => {
          const full = { a: 0, b: 0, c: 0, ...d };
          const items = pairs.map(([f, v]) => ({ [f]: v }));
          const nor = matches(parseSelector(json({ $nor: items })), json(full));
          const or = matches(parseSelector(json({ $or: items })), json(full));
          assert.equal(nor, !or);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('any JSON is either a selector or a 400, and matching a selector never fails otherwise', () => {
    const KEYS = [
      'a',
      'b.c',
      '',
      '$and',
      '$or',
      '$nor',
      '$not',
      '$eq',
      '$gt',
      '$in',
      '$nin',
      '$all',
      '$size',
      '$mod',
      '$exists',
      '$type',
      '$regex',
      '$beginsWith',
      '$elemMatch',
      '$allMatch',
      '$keyMapMatch',
      '$text',
      '$default',
      '$bad',
      '$where',
    ];
    const { any } = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.constantFrom('^a', '(', '[', 'a|b'),
        fc.array(tie('any'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...KEYS), tie('any'), { maxKeys: 3 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), any, { maxKeys: 3 }), doc, (s, d) => {
        let parsed: ReturnType<typeof parseSelector>;
        try {
          parsed = parseSelector(json(s));
        } catch (err) {
          assert.ok(err instanceof CouchError && err.status === 400, String(err));
          return;
        }
        try {
          matches(parsed, json(d));
        } catch (err) {
          // Only an invalid field name may surface while matching (as in CouchDB).
          assert.ok(err instanceof CouchError && err.error === 'invalid_field_name', String(err));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('projection keeps exactly the listed top-level fields the document has, with their values', () => {
    fc.assert(
      fc.property(fc.subarray(FIELDS), doc, (fields, d) => {
        const source = json(d) as JsonObject;
        const out = project(source, parseFields(json(fields)));
        if (fields.length === 0) {
          assert.equal(out, source);
          return;
        }
        assert.deepEqual(
          out.keys,
          fields.filter((f) => f in d),
        );
        for (const key of out.keys) assert.equal(stringifyJson(out.get(key)!), stringifyJson(source.get(key)!));
      }),
      { numRuns: 500 },
    );
  });
});

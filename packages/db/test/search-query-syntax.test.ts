/**
 * Lucene's classic query syntax as `_search` reads it: what each construct parses to, clause
 * rules as Lucene's QueryParser applies them, round trips of generated queries, and the
 * property that any input either parses or is a 400 (never another error).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'node:test';
import { CouchError } from '../src/errors.js';
import { formatQuery, parseQuerySyntax, type SyntaxQuery } from '../src/search/query-syntax.js';

const parse = (q: string) => parseQuerySyntax(q);

describe('search query syntax', () => {
  test('terms, fields, phrases', () => {
    assert.deepEqual(parse('foo'), { type: 'term', field: 'default', text: 'foo' });
    assert.deepEqual(parse('title:foo'), { type: 'term', field: 'title', text: 'foo' });
    assert.deepEqual(parse('a\\:b:c\\ d'), { type: 'term', field: 'a:b', text: 'c d' });
    assert.deepEqual(parse('"quick fox"'), { type: 'phrase', field: 'default', text: 'quick fox', slop: 0 });
    assert.deepEqual(parse('body:"quick fox"~3'), { type: 'phrase', field: 'body', text: 'quick fox', slop: 3 });
    assert.deepEqual(parse('a-b'), { type: 'term', field: 'default', text: 'a-b' });
  });

  test('prefix, wildcard, fuzzy, match all', () => {
    assert.deepEqual(parse('foo*'), { type: 'prefix', field: 'default', prefix: 'foo' });
    assert.deepEqual(parse('f?o*'), { type: 'wildcard', field: 'default', pattern: 'f?o*' });
    assert.deepEqual(parse('name:*'), { type: 'wildcard', field: 'name', pattern: '*' });
    assert.deepEqual(parse('*:*'), { type: 'all' });
    assert.deepEqual(parse('roam~'), { type: 'fuzzy', field: 'default', text: 'roam', maxEdits: 2 });
    assert.deepEqual(parse('roam~1'), { type: 'fuzzy', field: 'default', text: 'roam', maxEdits: 1 });
    assert.deepEqual(parse('roam~0.8'), { type: 'fuzzy', field: 'default', text: 'roam', maxEdits: 0 });
    assert.deepEqual(parse('roam~5'), { type: 'fuzzy', field: 'default', text: 'roam', maxEdits: 2 });
  });

  test('ranges, inclusive and exclusive, open ends, boosts', () => {
    assert.deepEqual(parse('age:[1 TO 10]'), {
      type: 'range',
      field: 'age',
      lower: '1',
      upper: '10',
      includeLower: true,
      includeUpper: true,
    });
    assert.deepEqual(parse('name:{a TO "m z"}'), {
      type: 'range',
      field: 'name',
      lower: 'a',
      upper: 'm z',
      includeLower: false,
      includeUpper: false,
    });
    assert.deepEqual(parse('n:[* TO 5}^2'), {
      type: 'range',
      field: 'n',
      lower: null,
      upper: '5',
      includeLower: true,
      includeUpper: false,
      boost: 2,
    });
    assert.deepEqual(parse('foo^1.5'), { type: 'term', field: 'default', text: 'foo', boost: 1.5 });
    assert.deepEqual(parse('(a b)^3').boost, 3);
  });

  test('boolean clauses as Lucene adds them (default operator OR)', () => {
    const occurs = (q: string) => {
      const parsed = parse(q);
      assert.equal(parsed.type, 'bool');
      return (parsed as Extract<SyntaxQuery, { type: 'bool' }>).clauses.map((c) => c.occur);
    };
    assert.deepEqual(occurs('a b'), ['should', 'should']);
    assert.deepEqual(occurs('a AND b'), ['must', 'must']);
    assert.deepEqual(occurs('a && b'), ['must', 'must']);
    assert.deepEqual(occurs('a OR b'), ['should', 'should']);
    assert.deepEqual(occurs('a || b'), ['should', 'should']);
    assert.deepEqual(occurs('+a -b c'), ['must', 'must_not', 'should']);
    assert.deepEqual(occurs('a NOT b'), ['should', 'must_not']);
    assert.deepEqual(occurs('a AND NOT b'), ['must', 'must_not']);
    assert.deepEqual(occurs('!a'), ['must_not']);
    assert.deepEqual(occurs('-a AND b'), ['must_not', 'must']);
    assert.deepEqual(occurs('a AND b OR c'), ['must', 'must', 'should']);
    const grouped = parse('title:(x OR y) AND z');
    assert.equal(grouped.type, 'bool');
    const first = (grouped as Extract<SyntaxQuery, { type: 'bool' }>).clauses[0]!.query;
    assert.deepEqual(first, {
      type: 'bool',
      clauses: [
        { occur: 'should', query: { type: 'term', field: 'title', text: 'x' } },
        { occur: 'should', query: { type: 'term', field: 'title', text: 'y' } },
      ],
    });
  });

  test('refused input is a 400 naming the query', () => {
    for (const bad of [
      '',
      '   ',
      'foo:(',
      '(a',
      'a)',
      '"open',
      'AND',
      'a AND',
      'x:[1 TO',
      'x:[1 TO 2',
      'f^',
      'a:',
      '/re/',
      'x~1.5',
      '\\',
    ]) {
      assert.throws(
        () => parse(bad),
        (e: unknown) =>
          e instanceof CouchError &&
          e.status === 400 &&
          e.error === 'bad_request' &&
          e.reason.startsWith(`Cannot parse '${bad}'`),
        bad,
      );
    }
  });

  test('property: any string parses or is a 400', () => {
    const alphabet = fc.constantFrom(...'ab:()[]{}"~^*?\\+-!&| TO AND OR NOT 1.5'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: alphabet, maxLength: 30 })), (q) => {
        try {
          parse(q);
        } catch (error) {
          assert.ok(error instanceof CouchError, String(error));
          assert.equal(error.status, 400);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('property: a formatted query parses back to itself', () => {
    const word = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9 :+\-!()\\"*?^~&|]{0,8}$/);
    const field = fc.constantFrom('default', 'title', 'a b', 'x:y');
    const boost = fc.option(fc.constantFrom(0.5, 2, 10), { nil: undefined });
    const withBoost = <T extends SyntaxQuery>(q: T, b: number | undefined): T =>
      b === undefined ? q : { ...q, boost: b };
    const leaf: fc.Arbitrary<SyntaxQuery> = fc.oneof(
      fc.tuple(field, word, boost).map(([f, t, b]) => withBoost({ type: 'term', field: f, text: t }, b)),
      fc
        .tuple(field, word, fc.nat(5), boost)
        .map(([f, t, slop, b]) => withBoost({ type: 'phrase', field: f, text: t, slop }, b)),
      fc.tuple(field, word, boost).map(([f, p, b]) => withBoost({ type: 'prefix', field: f, prefix: p }, b)),
      fc
        .tuple(field, word, fc.constantFrom(0, 1, 2), boost)
        .map(([f, t, e, b]) => withBoost({ type: 'fuzzy', field: f, text: t, maxEdits: e }, b)),
      fc
        .tuple(field, fc.stringMatching(/^[a-z]{1,3}[*?][a-z*?]{0,3}$/), boost)
        .filter(([, p]) => !/^[a-z]+\*$/.test(p))
        .map(([f, p, b]) => withBoost({ type: 'wildcard', field: f, pattern: p }, b)),
      fc
        .tuple(field, fc.option(word, { nil: null }), fc.option(word, { nil: null }), fc.boolean(), fc.boolean(), boost)
        .map(([f, lower, upper, includeLower, includeUpper, b]) =>
          withBoost({ type: 'range', field: f, lower, upper, includeLower, includeUpper }, b),
        ),
      boost.map((b) => withBoost({ type: 'all' }, b)),
    );
    const query = fc.letrec<{ q: SyntaxQuery }>((tie) => ({
      q: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc
          .tuple(
            fc.array(
              fc
                .tuple(fc.constantFrom('must', 'should', 'must_not'), tie('q'))
                .map(([occur, query]) => ({ occur, query })),
              { minLength: 1, maxLength: 4 },
            ),
            boost,
          )
          // One optional clause alone is that clause in Lucene's syntax: no such boolean query.
          .filter(([clauses]) => clauses.length > 1 || clauses[0]!.occur !== 'should')
          .map(([clauses, b]) => withBoost({ type: 'bool', clauses } as SyntaxQuery, b)),
      ),
    })).q;
    fc.assert(
      fc.property(query, (q) => {
        const text = formatQuery(q);
        assert.deepEqual(parse(text), q, text);
      }),
      { numRuns: 1000 },
    );
  });
});

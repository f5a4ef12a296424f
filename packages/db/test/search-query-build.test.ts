import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldAnalyzers } from '../src/search/analyzers.js';
import { buildQuery } from '../src/search/query-build.js';
import { parseQuerySyntax } from '../src/search/query-syntax.js';

const build = (q: string, analyzer: unknown = 'standard') => buildQuery(parseQuerySyntax(q), fieldAnalyzers(analyzer));

/** What ClouseauQueryParser's overrides make of a query (beyond Lucene's own rules). */
describe("Clouseau's query parser overrides", () => {
  it('expanded terms are lowercased, but not in a keyword-analyzed field', () => {
    assert.deepEqual(build('f:Ab*'), { type: 'prefix', field: 'f', prefix: 'ab', boost: 1 });
    assert.deepEqual(build('f:Ab*', 'keyword'), { type: 'prefix', field: 'f', prefix: 'Ab', boost: 1 });
    const perfield = { name: 'perfield', default: 'keyword', fields: { $default: 'standard' } };
    assert.deepEqual(build('f:A?c', perfield), { type: 'wildcard', field: 'f', pattern: 'A?c', boost: 1 });
    assert.deepEqual(build('$default:A?c', perfield), {
      type: 'wildcard',
      field: '$default',
      pattern: 'a?c',
      boost: 1,
    });
    assert.deepEqual(build('f:[Bob TO Zed]', 'keyword'), {
      type: 'termRange',
      field: 'f',
      lower: 'Bob',
      upper: 'Zed',
      includeLower: true,
      includeUpper: true,
      boost: 1,
    });
  });

  it('a number is numeric unquoted, text quoted', () => {
    assert.equal(build('f:123')?.type, 'numberRange');
    assert.deepEqual(build('f:"123"', 'keyword'), { type: 'term', field: 'f', term: '123', boost: 1 });
  });

  it('range bounds lex as JavaCC does: `""` and an unclosed quote are bare bounds', () => {
    assert.deepEqual(parseQuerySyntax('f:["" TO b}'), {
      type: 'range',
      field: 'f',
      lower: '""',
      upper: 'b',
      includeLower: true,
      includeUpper: false,
    });
    assert.equal((parseQuerySyntax('f:["a"b TO c]') as { lower: string }).lower, '"a"b');
    assert.equal((parseQuerySyntax('f:["a b" TO c]') as { lower: string }).lower, 'a b');
  });

  it('an infinite numeric bound is an open one', () => {
    assert.deepEqual(build('f:[-Infinity TO 3]'), {
      type: 'numberRange',
      field: 'f',
      lower: null,
      upper: 3,
      includeLower: true,
      includeUpper: true,
      boost: 1,
    });
  });
});

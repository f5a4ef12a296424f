import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJson } from '../src/json/index.js';
import { parseSelector, selectorToJson } from '../src/mango/selector.js';
import { textEntries } from '../src/mango/text-entries.js';
import { escapeField, escapeUserField, textFieldName } from '../src/mango/text-names.js';
import { erlangFloat, indexableFields, sortFieldOf, textQuery } from '../src/mango/text-query.js';

/** A selector, normalized as `_find` normalizes it, as CouchDB's text cursor queries it. */
const query = (selector: string) => textQuery(selectorToJson(parseSelector(parseJson(selector))));
const normalized = (selector: string) => selectorToJson(parseSelector(parseJson(selector)));
const EXISTS = '(($fieldnames:field_3a*) OR ($fieldnames:field.*))';

/** The expected strings are CouchDB's (mango_selector_text's eunit cases, through its to_query). */
describe('Mango selectors as text index queries', () => {
  it('values by type: null, booleans, numbers, strings, arrays with their length', () => {
    assert.equal(query('{"field": null}'), '(field_3anull:true)');
    assert.equal(query('{"field": true}'), '(field_3aboolean:true)');
    assert.equal(query('{"field": 42}'), '(field_3anumber:42)');
    assert.equal(query('{"field": "value"}'), '(field_3astring:"value")');
    assert.equal(
      query('{"field": [1, 2, 3]}'),
      '((field._5b_5d_3alength:3) AND (field._5b_5d_3anumber:1) AND (field._5b_5d_3anumber:2) AND (field._5b_5d_3anumber:3))',
    );
    assert.equal(query('{"field1": {"field2": "value"}}'), '(field1.field2_3astring:"value")');
    assert.equal(query('{"field": 1.5}'), '(field_3anumber:1.50000000000000000000e+00)');
  });

  it('comparisons: numeric and string ranges, the field alone for arrays, objects and null', () => {
    assert.equal(query('{"field": {"$lt": 42}}'), '(field_3anumber:[-Infinity TO 42})');
    assert.equal(query('{"field": {"$lte": 42}}'), '(field_3anumber:[-Infinity TO 42])');
    assert.equal(query('{"field": {"$gte": 42}}'), '(field_3anumber:[42 TO Infinity])');
    assert.equal(query('{"field": {"$gt": 42}}'), '(field_3anumber:{42 TO Infinity])');
    assert.equal(query('{"field": {"$gt": "b"}}'), '(field_3astring:{"b" TO u0x10FFFF])');
    assert.equal(query('{"field": {"$lt": "b"}}'), '(field_3astring:["" TO "b"})');
    for (const op of ['$lt', '$lte', '$gt', '$gte']) {
      assert.equal(query(`{"field": {"${op}": [1, 2, 3]}}`), EXISTS);
      assert.equal(query(`{"field": {"${op}": null}}`), EXISTS);
    }
    assert.equal(query('{"field": {"$eq": null}}'), '(field_3anull:true)');
  });

  it('negations and existence', () => {
    assert.equal(query('{"field": {"$ne": 42}}'), `(${EXISTS} AND NOT ((field_3anumber:42)))`);
    assert.equal(query('{"field": {"$exists": true}}'), EXISTS);
    assert.equal(query('{"field": {"$exists": false}}'), `($fieldnames:/.*/  AND NOT (${EXISTS}))`);
    assert.equal(query('{"field": {"$nin": []}}'), `(${EXISTS})`);
    assert.equal(
      query('{"field": {"$nin": [1, 2]}}'),
      `(${EXISTS} AND NOT ((((field_3anumber:1) OR (field._5b_5d_3anumber:1)) OR ((field_3anumber:2) OR (field._5b_5d_3anumber:2)))))`,
    );
    assert.equal(query('{"field": {"$not": {"$mod": [2, 0]}}}'), `(${EXISTS} AND NOT (($fieldnames:field_3anumber)))`);
  });

  it('$in, $all, $elemMatch, $allMatch, $size, $type, $mod, $regex, $beginsWith', () => {
    assert.equal(query('{"field": {"$in": []}}'), '');
    assert.equal(
      query('{"field": {"$in": ["value1", "value2"]}}'),
      '(((field_3astring:"value1") OR (field._5b_5d_3astring:"value1")) OR ((field_3astring:"value2") OR (field._5b_5d_3astring:"value2")))',
    );
    assert.equal(
      query('{"field": {"$all": ["value1", "value2"]}}'),
      '((field._5b_5d_3astring:"value1") AND (field._5b_5d_3astring:"value2"))',
    );
    assert.equal(query('{"field": {"$elemMatch": {"$eq": "value"}}}'), '(field._5b_5d_3astring:"value")');
    assert.equal(query('{"field": {"$allMatch": {"$eq": "value"}}}'), '(field._5b_5d_3astring:"value")');
    assert.equal(query('{"field": {"$size": 6}}'), '(field._5b_5d_3alength:6)');
    assert.equal(query('{"field": {"$type": "string"}}'), EXISTS);
    assert.equal(query('{"field": {"$mod": [2, 0]}}'), '($fieldnames:field_3anumber)');
    assert.equal(query('{"field": {"$regex": ".*"}}'), '($fieldnames:field_3astring)');
    assert.equal(query('{"field": {"$beginsWith": "foo"}}'), '(field_3astring:foo*)');
    assert.throws(() => query('{"field": {"$keyMapMatch": {"key": "value"}}}'), { error: 'invalid_operator' });
  });

  it('$and, $or, $nor, $text', () => {
    assert.equal(query('{"$and": [{"field": "value"}]}'), '((field_3astring:"value"))');
    assert.equal(
      query('{"field1": "value1", "field2": "value2"}'),
      '((field1_3astring:"value1") AND (field2_3astring:"value2"))',
    );
    assert.equal(
      query('{"$or": [{"field1": "value1"}, {"field2": "value2"}]}'),
      '((field1_3astring:"value1") OR (field2_3astring:"value2"))',
    );
    assert.equal(query('{"$nor": [{"field": "value"}]}'), `((${EXISTS} AND NOT ((field_3astring:"value"))))`);
    assert.equal(query('{"$text": "text"}'), '($default:"text")');
  });

  it('values escaped as CouchDB escapes them (a value with a digit quoted as it is)', () => {
    assert.equal(query('{"f": "a b:c"}'), '(f_3astring:"a\\ b\\:c")');
    assert.equal(query('{"f": "a && b"}'), '(f_3astring:"a\\ \\&&\\ b")');
    assert.equal(query('{"f": "a1 b"}'), '(f_3astring:"a1 b")');
    assert.equal(erlangFloat(0.1), '1.00000000000000005551e-01');
    assert.equal(erlangFloat(1e100), '1.00000000000000001590e+100');
  });

  it('field names: escaped bytes, literal dots, array positions as both forms', () => {
    assert.equal(escapeField('é'), '_c3_a9');
    assert.equal(escapeUserField('a.b:string'), 'a.b_3astring');
    assert.equal(escapeUserField('a\\.b:string'), 'a_2eb_3astring');
    assert.equal(textFieldName(['_id'], 'string'), '_5fid_3astring');
    assert.equal(query('{"a\\\\.b": 1}'), '(a_2eb_3anumber:1)');
    assert.equal(query('{"a.0": 1}'), '((a.0_3anumber:1) OR (a._5b_5d_3anumber:1))');
  });

  it('indexable fields: what a fields list must hold', () => {
    assert.deepEqual(indexableFields(normalized('{"a": 1, "b": {"$gt": "x"}}')), ['a:number', 'b:string']);
    assert.deepEqual(indexableFields(normalized('{"a": {"$in": ["x"]}}')), ['a.[]:string']);
    assert.deepEqual(indexableFields(normalized('{"a": {"$exists": true}, "$text": "q"}')), ['$default']);
    assert.deepEqual(indexableFields(normalized('{"a": {"$size": 2}}')), []);
  });

  it('sort fields: typed by name, else by the conditions on them (one type), else text_sort_error', () => {
    const selector = normalized('{"age": {"$gt": 1}, "name": {"$gt": "a"}, "both": {"$in": [1]}}');
    assert.deepEqual(sortFieldOf('age:number', selector), { field: 'age_3anumber', type: 'number' });
    assert.deepEqual(sortFieldOf('age', selector), { field: 'age_3anumber', type: 'number' });
    assert.deepEqual(sortFieldOf('name', selector), { field: 'name_3astring', type: 'string' });
    assert.throws(() => sortFieldOf('other', selector), { error: 'text_sort_error' });
  });
});

describe("A document's entries in a Mango text index", () => {
  const all = { fields: 'all' as const, indexArrayLengths: true, defaultField: true };

  it('every leaf by path and type, array lengths, $default strings and $fieldnames, in CouchDB order', () => {
    const doc = parseJson('{"_id": "d", "a": "x", "n": 1, "t": [true, null], "o": {"s": "y"}}');
    assert.deepEqual(textEntries(doc, all), [
      ['$fieldnames', '$default'],
      ['$fieldnames', '_5fid_3astring'],
      ['$fieldnames', 'a_3astring'],
      ['$fieldnames', 'n_3anumber'],
      ['$fieldnames', 'o.s_3astring'],
      ['$fieldnames', 't._5b_5d_3aboolean'],
      ['$fieldnames', 't._5b_5d_3alength'],
      ['$fieldnames', 't._5b_5d_3anull'],
      ['$default', 'd'],
      ['$default', 'x'],
      ['$default', 'y'],
      ['o.s_3astring', 'y'],
      ['t._5b_5d_3anull', true],
      ['t._5b_5d_3aboolean', true],
      ['t._5b_5d_3alength', 2],
      ['n_3anumber', 1],
      ['a_3astring', 'x'],
      ['_5fid_3astring', 'd'],
    ]);
  });

  it('a fields list keeps its fields (lengths and $default aside); options turn lengths and $default off', () => {
    const doc = parseJson('{"a": "x", "b": "y", "l": [1]}');
    const listed = { fields: new Set(['a_3astring']), indexArrayLengths: true, defaultField: false };
    assert.deepEqual(textEntries(doc, listed), [
      ['$fieldnames', 'a_3astring'],
      ['$fieldnames', 'l._5b_5d_3alength'],
      ['l._5b_5d_3alength', 1],
      ['a_3astring', 'x'],
    ]);
    const bare = { fields: 'all' as const, indexArrayLengths: false, defaultField: false };
    assert.deepEqual(textEntries(parseJson('{"l": [1]}'), bare), [
      ['$fieldnames', 'l._5b_5d_3anumber'],
      ['l._5b_5d_3anumber', 1],
    ]);
  });
});

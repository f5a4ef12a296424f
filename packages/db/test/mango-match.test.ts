/**
 * The matcher (spec §4, §5): operator semantics on Divan's JSON values, the recorded cases of
 * CouchDB 3.5 included (quoted in the test names).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CouchError } from '../src/errors.js';
import { parseJson } from '../src/json/index.js';
import { beginsWith, matches } from '../src/mango/match.js';
import { parseSelector } from '../src/mango/selector.js';

const m = (selector: string, doc: string): boolean => matches(parseSelector(parseJson(selector)), parseJson(doc));

/** The docs (as JSON texts) among `docs` that match. */
const which = (selector: string, docs: string[]): string[] => docs.filter((doc) => m(selector, doc));

describe('mango matching', () => {
  it('"$ne … (missing field never matches)": every operator but $exists:false is false on a missing field', () => {
    for (const cond of [
      '{"$ne":1}',
      '{"$nin":[1]}',
      '{"$nin":[]}',
      '{"$not":{"$size":1}}',
      '{"$lt":1}',
      '{"$gte":null}',
      '{"$exists":true}',
      '{"$type":"null"}',
    ]) {
      assert.equal(m(`{"n":${cond}}`, '{"x":1}'), false, cond);
    }
    assert.equal(m('{"n":{"$exists":false}}', '{"x":1}'), true);
    assert.equal(m('{"n":{"$exists":false}}', '{"n":null}'), false);
    assert.equal(m('{"n":{"$exists":true}}', '{"n":null}'), true);
  });

  it('"$not $gt (becomes $lte: n must exist)"', () => {
    assert.deepEqual(which('{"n":{"$not":{"$gt":5}}}', ['{"n":3}', '{"n":7}', '{}']), ['{"n":3}']);
  });

  it('"$exists false through an array (bad path)" and "$exists false below a number"', () => {
    assert.equal(m('{"tags.foo":{"$exists":false}}', '{"tags":["a"]}'), false);
    assert.equal(m('{"scores.5":{"$exists":false}}', '{"scores":[1,2]}'), false);
    assert.equal(m('{"n.x":{"$exists":false}}', '{"n":5}'), false);
    assert.equal(m('{"a.b":{"$exists":false}}', '{"a":{}}'), true);
    assert.equal(m('{"items.1.qty":3}', '{"items":[{"qty":1},{"qty":3}]}'), true);
  });

  it('$eq in collation: 1 = 1.0, canonical equivalents, ignorables, whole arrays and objects', () => {
    assert.equal(m('{"n":1}', '{"n":1.0}'), true);
    assert.equal(m('{"s":"é"}', '{"s":"e\\u0301"}'), true);
    assert.equal(m('{"s":"ab"}', '{"s":"a\\u0000b"}'), true);
    assert.equal(m('{"tags":"red"}', '{"tags":["red"]}'), false);
    assert.equal(m('{"tags":{"$eq":["red"]}}', '{"tags":["red"]}'), true);
    assert.equal(m('{"n":12345678901234567891}', '{"n":12345678901234567890}'), false);
    assert.equal(m('{"n":9007199254740993}', '{"n":9007199254740993}'), true);
  });

  it('"$eq with an object whose members are reordered" matches nothing', () => {
    assert.equal(m('{"o":{"$eq":{"a":1,"b":2}}}', '{"o":{"b":2,"a":1}}'), false);
    assert.equal(m('{"o":{"$eq":{"a":1,"b":2}}}', '{"o":{"a":1,"b":2}}'), true);
  });

  it('ranges compare across types in collation order', () => {
    const docs = ['{"n":null}', '{"n":false}', '{"n":3}', '{"n":"a"}', '{"n":[1]}', '{"n":{}}'];
    assert.deepEqual(which('{"n":{"$gt":0}}', docs), ['{"n":3}', '{"n":"a"}', '{"n":[1]}', '{"n":{}}']);
    assert.deepEqual(which('{"n":{"$lte":""}}', [...docs, '{"n":""}']), [
      '{"n":null}',
      '{"n":false}',
      '{"n":3}',
      '{"n":""}',
    ]);
    assert.equal(m('{"tags":{"$gt":"zzz"}}', '{"tags":[]}'), true);
    assert.equal(m('{"s":{"$lt":"A"}}', '{"s":"a"}'), true); // "a" < "A" < "b"
    assert.equal(m('{"s":{"$lt":"b"}}', '{"s":"A"}'), true);
  });

  it('"_id compared raw: e+U+0301 is not é", and _id in Erlang term order', () => {
    assert.equal(m('{"_id":"é"}', '{"_id":"e\\u0301"}'), false);
    assert.equal(m('{"_id":{"$lt":"D"}}', '{"_id":"a"}'), false); // bytes: "a" > "D"
    assert.equal(m('{"_id":{"$lt":"D"}}', '{"_id":"C"}'), true);
    assert.equal(m('{"_id":{"$gt":5}}', '{"_id":"x"}'), true);
    assert.equal(m('{"_id":{"$gt":null}}', '{"_id":"x"}'), true);
    assert.equal(m('{"_id":{"$lte":[]}}', '{"_id":"x"}'), false);
    assert.equal(m('{"s":{"$lt":"D"}}', '{"s":"a"}'), true); // other fields: collation
  });

  it('$type names, case-sensitive, no "integer"', () => {
    const doc = '{"a":null,"b":true,"c":1,"d":"s","e":[],"f":{}}';
    for (const [field, type] of [
      ['a', 'null'],
      ['b', 'boolean'],
      ['c', 'number'],
      ['d', 'string'],
      ['e', 'array'],
      ['f', 'object'],
    ]) {
      assert.equal(m(`{"${field}":{"$type":"${type}"}}`, doc), true, type);
    }
    assert.equal(m('{"c":{"$type":"integer"}}', doc), false);
    assert.equal(m('{"d":{"$type":"String"}}', doc), false);
  });

  it('$in/$nin: an array value matches when some element equals some argument', () => {
    assert.equal(m('{"tags":{"$in":["red","x"]}}', '{"tags":["blue","red"]}'), true);
    assert.equal(m('{"tags":{"$in":[["red"]]}}', '{"tags":[["red"]]}'), true);
    assert.equal(m('{"tags":{"$in":[["red"]]}}', '{"tags":["red"]}'), false);
    assert.equal(m('{"n":{"$in":[]}}', '{"n":1}'), false);
    assert.equal(m('{"n":{"$nin":[]}}', '{"n":1}'), true);
    assert.equal(m('{"n":{"$nin":[2,3]}}', '{"n":1}'), true);
    assert.equal(m('{"tags":{"$nin":["red"]}}', '{"tags":["blue","red"]}'), false);
    assert.equal(m('{"n":{"$in":[1]}}', '{"n":1.0}'), true);
  });

  it('$size counts array elements only', () => {
    assert.equal(m('{"t":{"$size":2}}', '{"t":[1,2]}'), true);
    assert.equal(m('{"t":{"$size":2}}', '{"t":"ab"}'), false);
    assert.equal(m('{"t":{"$size":0}}', '{"t":[]}'), true);
  });

  it('$mod: integers only (4.0 does not qualify), truncated remainder, big integers exact', () => {
    assert.equal(m('{"n":{"$mod":[3,-1]}}', '{"n":-7}'), true);
    assert.equal(m('{"n":{"$mod":[-3,1]}}', '{"n":7}'), true);
    assert.equal(m('{"n":{"$mod":[3,2]}}', '{"n":-7}'), false);
    assert.equal(m('{"n":{"$mod":[2,0]}}', '{"n":4.0}'), false);
    assert.equal(m('{"n":{"$mod":[2,0]}}', '{"n":4}'), true);
    assert.equal(m('{"n":{"$mod":[10,1]}}', '{"n":123456789012345678901}'), true);
    assert.equal(m('{"n":{"$mod":[2,0]}}', '{"n":"4"}'), false);
  });

  it('$beginsWith in whole grapheme clusters, no normalization, case-sensitive', () => {
    assert.equal(m('{"s":{"$beginsWith":"al"}}', '{"s":"alice"}'), true);
    assert.equal(m('{"s":{"$beginsWith":"Al"}}', '{"s":"alice"}'), false);
    assert.equal(m('{"s":{"$beginsWith":""}}', '{"s":""}'), true);
    assert.equal(m('{"s":{"$beginsWith":"a"}}', '{"s":["a"]}'), false);
    assert.equal(beginsWith('e\u0301x', 'e'), false);
    assert.equal(beginsWith('e\u0301x', 'e\u0301'), true);
    assert.equal(beginsWith('\r\n', '\r'), false);
    assert.equal(beginsWith('é', 'e\u0301'), false);
    assert.equal(beginsWith('👍🏽!', '👍'), false);
  });

  it('$all: exact Erlang equality for members, or the single array argument equal to the value', () => {
    assert.equal(m('{"t":{"$all":["a","b"]}}', '{"t":["b","c","a"]}'), true);
    assert.equal(m('{"t":{"$all":["a","z"]}}', '{"t":["b","c","a"]}'), false);
    assert.equal(m('{"t":{"$all":[1]}}', '{"t":[1.0]}'), false);
    assert.equal(m('{"t":{"$all":["é"]}}', '{"t":["e\\u0301"]}'), false);
    assert.equal(m('{"t":{"$all":[["red"]]}}', '{"t":["red"]}'), true);
    assert.equal(m('{"t":{"$all":[["red"]]}}', '{"t":[["red"]]}'), true);
    assert.equal(m('{"t":{"$all":[[1]]}}', '{"t":[1.0]}'), true);
    assert.equal(m('{"t":{"$all":[]}}', '{"t":[]}'), false);
    assert.equal(m('{"t":{"$all":["a"]}}', '{"t":"a"}'), false);
  });

  it('$elemMatch, $allMatch, $keyMapMatch', () => {
    assert.equal(m('{"s":{"$elemMatch":{"$gte":80,"$lt":85}}}', '{"s":[70,82]}'), true);
    assert.equal(m('{"s":{"$elemMatch":{"$gte":80,"$lt":85}}}', '{"s":[70,90]}'), false);
    assert.equal(m('{"items":{"$elemMatch":{"sku":"D","qty":{"$gt":1}}}}', '{"items":[{"sku":"D","qty":2}]}'), true);
    assert.equal(m('{"items":{"$elemMatch":{"sku":"D"}}}', '{"items":{"sku":"D"}}'), false);
    // $in's rule (an array value: some element equals an argument) applies one level down.
    assert.equal(m('{"tags":{"$elemMatch":{"$in":[["red"]]}}}', '{"tags":[["red"]]}'), false);
    assert.equal(m('{"tags":{"$elemMatch":{"$in":[["red"]]}}}', '{"tags":[[["red"]]]}'), true);
    assert.equal(m('{"s":{"$allMatch":{"$gt":0}}}', '{"s":[1,2]}'), true);
    assert.equal(m('{"s":{"$allMatch":{"$gt":0}}}', '{"s":[1,-2]}'), false);
    assert.equal(m('{"s":{"$allMatch":{"$gt":0}}}', '{"s":[]}'), false);
    assert.equal(m('{"m":{"$keyMapMatch":{"$eq":"color"}}}', '{"m":{"size":1,"color":2}}'), true);
    assert.equal(m('{"m":{"$keyMapMatch":{"$regex":"^[cC]"}}}', '{"m":{"size":1}}'), false);
    assert.equal(m('{"m":{"$keyMapMatch":{"$eq":"0"}}}', '{"m":["x"]}'), false);
  });

  it('inside $elemMatch a left-over $not is plain negation and a left-over $nor fails the match', () => {
    assert.equal(m('{"a":{"$elemMatch":{"b":{"$not":{"$gt":1}}}}}', '{"a":[{"c":1}]}'), true);
    assert.equal(m('{"a":{"$elemMatch":{"$nor":[{"b":1}]}}}', '{"a":[{"b":2}]}'), false);
    // An invalid field name below $elemMatch is no match rather than an error.
    assert.equal(m('{"a":{"$elemMatch":{"b..c":1}}}', '{"a":[{"b":1}]}'), false);
  });

  it('"$and with a bare value (matches nothing)"; "$or [] next to a condition"; $and/$or [] hold', () => {
    assert.equal(m('{"$and":[{"$eq":5}]}', '{"n":5}'), false);
    assert.equal(m('{"$and":[{"n":5},{"$or":[]}]}', '{"n":5}'), true);
    assert.equal(m('{"$or":[]}', '{"n":5}'), true);
    assert.equal(m('{"$and":[]}', '{"n":5}'), true);
    assert.equal(m('{}', '{"n":5}'), true);
  });

  it('$text/$default are true without a text index', () => {
    assert.equal(m('{"$text":"alice"}', '{"n":5}'), true);
  });

  it('an invalid field name is a 400 once a document is tested', () => {
    assert.throws(
      () => m('{"a..b":1}', '{"a":1}'),
      (err: unknown) => err instanceof CouchError && err.error === 'invalid_field_name' && err.status === 400,
    );
  });

  it('escaped dots address members with dots; $-segments inside a path are members', () => {
    assert.equal(m('{"a\\\\.b":1}', '{"a.b":1}'), true);
    assert.equal(m('{"a\\\\.b":1}', '{"a":{"b":1}}'), false);
    assert.equal(m('{"attrs.$k":1}', '{"attrs":{"$k":1}}'), true);
  });
});

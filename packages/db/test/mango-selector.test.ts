/**
 * Selector normalization (spec §3): the normalized JSON `_explain` shows, and every 400 CouchDB
 * 3.5 gives for a bad selector, reproduced from the recorded answers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CouchError } from '../src/errors.js';
import { parseJson, stringifyJson } from '../src/json/index.js';
import { isEmptyRangeSelector, parseSelector, selectorToJson } from '../src/mango/selector.js';

const normalized = (text: string): string => stringifyJson(selectorToJson(parseSelector(parseJson(text))));

function rejects(text: string, error: string, reason: string): void {
  assert.throws(
    () => parseSelector(parseJson(text)),
    (err: unknown) => {
      assert.ok(err instanceof CouchError, String(err));
      assert.deepEqual([err.status, err.error, err.reason], [400, error, reason]);
      return true;
    },
    text,
  );
}

describe('mango selector normalization', () => {
  it('implicit $eq and $and, member order kept', () => {
    assert.equal(normalized('{"type":"user"}'), '{"type":{"$eq":"user"}}');
    assert.equal(normalized('{"b":1,"a":2}'), '{"$and":[{"b":{"$eq":1}},{"a":{"$eq":2}}]}');
    assert.equal(normalized('{"tags":["red"]}'), '{"tags":{"$eq":["red"]}}');
    assert.equal(normalized('{"n":null}'), '{"n":{"$eq":null}}');
  });

  it('an object value is a nested selector, not an equality', () => {
    assert.equal(normalized('{"addr":{"city":"x"}}'), '{"addr.city":{"$eq":"x"}}');
    assert.equal(normalized('{"addr":{"geo":{"lat":{"$gt":0}}}}'), '{"addr.geo.lat":{"$gt":0}}');
  });

  it('several operators on one field become an $and of two', () => {
    assert.equal(normalized('{"n":{"$gt":0,"$lt":9}}'), '{"$and":[{"n":{"$gt":0}},{"n":{"$lt":9}}]}');
  });

  it('"$not normalized to $lte" and the other negations', () => {
    assert.equal(normalized('{"n":{"$not":{"$gt":1}}}'), '{"n":{"$lte":1}}');
    assert.equal(normalized('{"n":{"$not":{"$lt":1}}}'), '{"n":{"$gte":1}}');
    assert.equal(normalized('{"n":{"$not":{"$lte":1}}}'), '{"n":{"$gt":1}}');
    assert.equal(normalized('{"n":{"$not":{"$gte":1}}}'), '{"n":{"$lt":1}}');
    assert.equal(normalized('{"n":{"$not":{"$eq":1}}}'), '{"n":{"$ne":1}}');
    assert.equal(normalized('{"n":{"$not":{"$ne":1}}}'), '{"n":{"$eq":1}}');
    assert.equal(normalized('{"n":{"$not":{"$in":[1]}}}'), '{"n":{"$nin":[1]}}');
    assert.equal(normalized('{"n":{"$not":{"$nin":[1]}}}'), '{"n":{"$in":[1]}}');
    assert.equal(normalized('{"n":{"$not":{"$exists":true}}}'), '{"n":{"$exists":false}}');
    assert.equal(normalized('{"n":{"$not":{"$not":{"$size":2}}}}'), '{"n":{"$size":2}}');
  });

  it('operators without a negated form keep an explicit $not', () => {
    for (const op of ['{"$size":1}', '{"$regex":"^a"}', '{"$type":"string"}', '{"$mod":[2,1]}', '{"$all":[1]}']) {
      assert.equal(normalized(`{"n":{"$not":${op}}}`), `{"n":{"$not":${op}}}`);
    }
    assert.equal(normalized('{"a":{"$not":{"$elemMatch":{"b":1}}}}'), '{"a":{"$not":{"$elemMatch":{"b":{"$eq":1}}}}}');
  });

  it('"$nor normalized", De Morgan through $and and $or', () => {
    assert.equal(normalized('{"$nor":[{"a":1},{"b":2}]}'), '{"$and":[{"a":{"$ne":1}},{"b":{"$ne":2}}]}');
    assert.equal(
      normalized('{"$not":{"$and":[{"a":1},{"b":{"$gt":2}}]}}'),
      '{"$or":[{"a":{"$ne":1}},{"b":{"$lte":2}}]}',
    );
    assert.equal(normalized('{"$not":{"$or":[{"a":1},{"b":2}]}}'), '{"$and":[{"a":{"$ne":1}},{"b":{"$ne":2}}]}');
    assert.equal(normalized('{"$not":{"$nor":[{"a":1}]}}'), '{"$or":[{"a":{"$eq":1}}]}');
  });

  it('nested $and is not flattened', () => {
    assert.equal(
      normalized('{"type":"user","$and":[{"n":{"$gt":1}},{"n":{"$lt":5}}]}'),
      '{"$and":[{"type":{"$eq":"user"}},{"$and":[{"n":{"$gt":1}},{"n":{"$lt":5}}]}]}',
    );
  });

  it('field names are pushed down through $and/$or; $elemMatch arguments restart their paths', () => {
    assert.equal(normalized('{"n":{"$or":[{"$lt":0},{"$gt":9}]}}'), '{"$or":[{"n":{"$lt":0}},{"n":{"$gt":9}}]}');
    assert.equal(
      normalized('{"a":{"$elemMatch":{"$gte":80,"$lt":85}}}'),
      '{"a":{"$elemMatch":{"$and":[{"":{"$gte":80}},{"":{"$lt":85}}]}}}',
    );
    assert.equal(normalized('{"a":{"b":{"$allMatch":{"c":1}}}}'), '{"a.b":{"$allMatch":{"c":{"$eq":1}}}}');
    assert.equal(normalized('{"m":{"$keyMapMatch":{"$eq":"color"}}}'), '{"m":{"$keyMapMatch":{"":{"$eq":"color"}}}}');
  });

  it('negations inside $elemMatch are left as written (CouchDB does not look inside fields)', () => {
    assert.equal(
      normalized('{"a":{"$elemMatch":{"b":{"$not":{"$gt":1}}}}}'),
      '{"a":{"$elemMatch":{"$not":{"b":{"$gt":1}}}}}',
    );
  });

  it('{} is the empty selector; {} inside $and becomes an equality with {}', () => {
    assert.equal(normalized('{}'), '{}');
    assert.equal(normalized('{"$and":[{}]}'), '{"$and":[{"":{"$eq":{}}}]}');
    assert.equal(normalized('{"a":{}}'), '{"a":{"$eq":{}}}');
    assert.equal(isEmptyRangeSelector(parseSelector(parseJson('{"$or":[]}'))), true);
    assert.equal(isEmptyRangeSelector(parseSelector(parseJson('{"$and":[]}'))), true);
    assert.equal(isEmptyRangeSelector(parseSelector(parseJson('{}'))), false);
  });

  it('$text becomes $default at the top; anywhere else is bad_field', () => {
    assert.equal(normalized('{"$text":"alice"}'), '{"$default":{"$text":"alice"}}');
    rejects(
      '{"a":{"$text":"x"}}',
      'bad_field',
      'Invalid field normalization on selector: {[{<<36,100,101,102,97,117,108,116>>,{[{<<36,116,101,120,116>>,<<120>>}]}}]}',
    );
    rejects(
      '{"$not":{"$text":"x"}}',
      'bad_arg',
      'Bad argument for operator $not: {[{<<36,100,101,102,97,117,108,116>>,{[{<<36,116,101,120,116>>,<<120>>}]}}]}',
    );
    rejects('{"$text":[1]}', 'bad_arg', 'Bad argument for operator $text: [1]');
  });

  it('argument checks: bad_arg with the argument as Erlang prints it', () => {
    rejects('{"$and":{"a":1}}', 'bad_arg', 'Bad argument for operator $and: {[{<<97>>,1}]}');
    rejects('{"$or":5}', 'bad_arg', 'Bad argument for operator $or: 5');
    rejects('{"$nor":"x"}', 'bad_arg', 'Bad argument for operator $nor: <<120>>');
    rejects('{"a":{"$not":5}}', 'bad_arg', 'Bad argument for operator $not: 5');
    rejects('{"a":{"$in":5}}', 'bad_arg', 'Bad argument for operator $in: 5');
    rejects('{"a":{"$nin":null}}', 'bad_arg', 'Bad argument for operator $nin: null');
    rejects('{"a":{"$all":"x"}}', 'bad_arg', 'Bad argument for operator $all: <<120>>');
    rejects('{"a":{"$exists":1}}', 'bad_arg', 'Bad argument for operator $exists: 1');
    rejects('{"a":{"$type":1}}', 'bad_arg', 'Bad argument for operator $type: 1');
    rejects('{"a":{"$size":-1}}', 'bad_arg', 'Bad argument for operator $size: -1');
    rejects('{"a":{"$size":1.5}}', 'bad_arg', 'Bad argument for operator $size: 1.5');
    rejects('{"a":{"$mod":[2]}}', 'bad_arg', 'Bad argument for operator $mod: [2]');
    rejects('{"a":{"$mod":[2.0,1]}}', 'bad_arg', 'Bad argument for operator $mod: [2.0,1]');
    rejects('{"a":{"$elemMatch":[1]}}', 'bad_arg', 'Bad argument for operator $elemMatch: [1]');
    rejects('{"a":{"$allMatch":1}}', 'bad_arg', 'Bad argument for operator $allMatch: 1');
    rejects('{"a":{"$keyMapMatch":"k"}}', 'bad_arg', 'Bad argument for operator $keyMapMatch: <<107>>');
    rejects('{"a":{"$regex":"("}}', 'bad_arg', 'Bad argument for operator $regex: <<40>>');
  });

  it('$mod by zero is a 400 here (CouchDB crashes with a 500 when a document is tested)', () => {
    rejects('{"a":{"$mod":[0,1]}}', 'bad_arg', 'Bad argument for operator $mod: [0,1]');
  });

  it('$regex and $beginsWith with a non-string argument are invalid_operator', () => {
    rejects('{"a":{"$regex":5}}', 'invalid_operator', 'Invalid operator: $regex');
    rejects('{"a":{"$beginsWith":["a"]}}', 'invalid_operator', 'Invalid operator: $beginsWith');
  });

  it('unknown and unsupported operators, wherever they are', () => {
    rejects('{"$odd":1}', 'invalid_operator', 'Invalid operator: $odd');
    rejects('{"a":{"$gt":1,"$foo":2}}', 'invalid_operator', 'Invalid operator: $foo');
    rejects('{"$or":[{"a":{"$bad":1}}]}', 'invalid_operator', 'Invalid operator: $bad');
    rejects('{"a":{"$elemMatch":{"$bad":1}}}', 'invalid_operator', 'Invalid operator: $bad');
    for (const op of ['$where', '$geoWithin', '$geoIntersects', '$near', '$nearSphere']) {
      rejects(`{"${op}":1}`, 'not_supported', `Unsupported operator: ${op}`);
    }
  });

  it('a top-level condition without a field name is invalid_selector', () => {
    rejects('{"":1}', 'invalid_selector', 'One or more conditions is missing a field name.');
    rejects('{"$eq":1}', 'invalid_selector', 'One or more conditions is missing a field name.');
    rejects('{"$not":{"$gt":1}}', 'invalid_selector', 'One or more conditions is missing a field name.');
    // Inside $and it is accepted (and compared with the whole document).
    assert.equal(normalized('{"$and":[{"$eq":5}]}'), '{"$and":[{"":{"$eq":5}}]}');
  });

  it('an invalid field name is reported when the field is used, not while parsing', () => {
    const selector = parseSelector(parseJson('{"a..b":1}'));
    assert.equal(stringifyJson(selectorToJson(selector)), '{"a..b":{"$eq":1}}');
    assert.ok(selector.kind === 'field' && selector.pathError?.reason === 'Invalid field name: a..b');
  });

  it('escaped dots stay in the normalized name and split into segments correctly', () => {
    const selector = parseSelector(parseJson('{"attrs":{"x\\\\.y":1}}'));
    assert.equal(stringifyJson(selectorToJson(selector)), '{"attrs.x\\\\.y":{"$eq":1}}');
    assert.ok(selector.kind === 'field');
    assert.deepEqual(selector.path, ['attrs', 'x.y']);
  });
});

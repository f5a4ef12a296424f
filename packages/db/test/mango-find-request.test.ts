/**
 * The `_find`/`_explain` body (spec §1), `fields` projection (§6) and `sort`: defaults, the
 * fixed validation order and CouchDB's error texts (400s where CouchDB answers 500).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CouchError } from '../src/errors.js';
import { parseJson, stringifyJson, type JsonObject } from '../src/json/index.js';
import { DEFAULT_LIMIT, parseFindRequest } from '../src/mango/find-request.js';
import { parseFields, project } from '../src/mango/projection.js';
import { selectorToJson } from '../src/mango/selector.js';
import { parseSort, sortToJson } from '../src/mango/sort.js';

const parse = (text: string) => parseFindRequest(parseJson(text));

function rejects(text: string, error: string, reason: string): void {
  assert.throws(
    () => parse(text),
    (err: unknown) => {
      assert.ok(err instanceof CouchError, String(err));
      assert.deepEqual([err.status, err.error, err.reason], [400, error, reason]);
      return true;
    },
    text,
  );
}

describe('mango _find request', () => {
  it('defaults', () => {
    const request = parse('{"selector":{"n":1}}');
    assert.equal(stringifyJson(selectorToJson(request.selector)), '{"n":{"$eq":1}}');
    assert.deepEqual(
      { ...request, selector: undefined },
      {
        selector: undefined,
        useIndex: [],
        bookmark: undefined,
        limit: DEFAULT_LIMIT,
        skip: 0,
        sort: [],
        fields: { names: [], paths: [] },
        partition: '',
        r: 1,
        conflicts: false,
        stale: false,
        update: true,
        stable: false,
        executionStats: false,
        allowFallback: true,
      },
    );
    assert.equal(DEFAULT_LIMIT, 25);
  });

  it('every member parsed', () => {
    const request = parse(
      '{"selector":{},"use_index":"_design/a/b","bookmark":"g1","limit":0,"skip":3,"sort":[{"n":"desc"}],' +
        '"fields":["a.b","_id"],"partition":"","r":2,"conflicts":true,"stale":"ok","update":false,"stable":true,' +
        '"execution_stats":true,"allow_fallback":false}',
    );
    assert.deepEqual(request.useIndex, ['a', 'b']);
    assert.equal(request.bookmark, 'g1');
    assert.equal(request.limit, 0);
    assert.equal(request.skip, 3);
    assert.deepEqual(request.sort, [{ field: 'n', direction: 'desc' }]);
    assert.deepEqual(request.fields.names, ['a.b', '_id']);
    assert.deepEqual(request.fields.paths, [['a', 'b'], ['_id']]);
    assert.deepEqual(
      [request.r, request.conflicts, request.stale, request.update, request.stable],
      [2, true, 'ok', false, true],
    );
    assert.deepEqual([request.executionStats, request.allowFallback], [true, false]);
  });

  it('duplicate members: the last one wins', () => {
    assert.equal(parse('{"selector":{},"limit":1,"limit":2}').limit, 2);
  });

  it('the body must be an object; selector required and an object', () => {
    assert.throws(
      () => parseFindRequest(parseJson('[1]')),
      (err: unknown) => err instanceof CouchError && err.reason === 'Request body must be a JSON object',
    );
    rejects('{}', 'missing_required_key', 'Missing required key: selector');
    rejects('{"Selector":{}}', 'missing_required_key', 'Missing required key: selector');
    rejects('{"selector":null}', 'invalid_selector_json', 'Selector must be a JSON object, not: null');
    rejects('{"selector":[]}', 'invalid_selector_json', 'Selector must be a JSON object, not: []');
    rejects('{"selector":"type"}', 'invalid_selector_json', 'Selector must be a JSON object, not: <<116,121,112,101>>');
    rejects('{"selector":{"$bad":1}}', 'invalid_operator', 'Invalid operator: $bad');
  });

  it('members are checked in CouchDB order, unknown members last', () => {
    rejects(
      '{"selector":{},"limit":-1,"skip":-1}',
      'invalid_non_neg_integer',
      '-1 is not an integer greater than or equal to zero',
    );
    rejects('{"skip":-1,"selector":{"$bad":1}}', 'invalid_operator', 'Invalid operator: $bad');
    rejects('{"selector":{},"foo":1,"r":0}', 'invalid_pos_integer', '0 is not an integer greater than zero');
    rejects('{"selector":{},"foo":1,"bar":2}', 'invalid_key', 'Invalid key foo for this request.');
  });

  it('use_index forms', () => {
    const useIndex = (value: string) => parse(`{"selector":{},"use_index":${value}}`).useIndex;
    assert.deepEqual(useIndex('"ix-n"'), ['ix-n']);
    assert.deepEqual(useIndex('"_design/ix-n"'), ['ix-n']);
    assert.deepEqual(useIndex('"a/b"'), ['a', 'b']);
    assert.deepEqual(useIndex('"_design/a/b"'), ['a', 'b']);
    assert.deepEqual(useIndex('[]'), []);
    assert.deepEqual(useIndex('null'), []);
    assert.deepEqual(useIndex('["a"]'), ['a']);
    assert.deepEqual(useIndex('["a","b"]'), ['a', 'b']);
    rejects('{"selector":{},"use_index":5}', 'invalid_index_name', 'Invalid index name: 5');
    rejects('{"selector":{},"use_index":[5]}', 'invalid_index_name', 'Invalid index name: [5]');
    rejects('{"selector":{},"use_index":"a/b/c"}', 'invalid_index_name', 'Invalid index name: <<97,47,98,47,99>>');
    rejects(
      '{"selector":{},"use_index":["a","b","c"]}',
      'invalid_index_name',
      'Invalid index name: [<<97>>,<<98>>,<<99>>]',
    );
  });

  it('bookmark: "" and null are none; a non-string is a 400 (CouchDB: 500)', () => {
    assert.equal(parse('{"selector":{},"bookmark":""}').bookmark, undefined);
    assert.equal(parse('{"selector":{},"bookmark":null}').bookmark, undefined);
    rejects('{"selector":{},"bookmark":5}', 'invalid_bookmark', 'Invalid bookmark value: 5');
  });

  it('integer members', () => {
    for (const [value, text] of [
      ['-1', '-1'],
      ['1.5', '1.5'],
      ['"10"', '<<49,48>>'],
      ['null', 'null'],
      ['true', 'true'],
      ['1.0', '1.0'],
    ]) {
      rejects(
        `{"selector":{},"limit":${value}}`,
        'invalid_non_neg_integer',
        `${text} is not an integer greater than or equal to zero`,
      );
      rejects(
        `{"selector":{},"skip":${value}}`,
        'invalid_non_neg_integer',
        `${text} is not an integer greater than or equal to zero`,
      );
    }
    rejects('{"selector":{},"r":"1"}', 'invalid_pos_integer', '<<49>> is not an integer greater than zero');
    rejects('{"selector":{},"r":1.5}', 'invalid_pos_integer', '1.5 is not an integer greater than zero');
  });

  it('boolean members, partition, stale', () => {
    for (const name of ['conflicts', 'update', 'stable', 'execution_stats', 'allow_fallback']) {
      rejects(`{"selector":{},"${name}":1}`, 'invalid_boolean', 'Invalid boolean value: 1');
      rejects(`{"selector":{},"${name}":null}`, 'invalid_boolean', 'Invalid boolean value: null');
    }
    rejects('{"selector":{},"partition":5}', 'illegal_partition', 'Partition must be a string');
    assert.equal(parse('{"selector":{},"stale":"false"}').stale, false);
    assert.equal(parse('{"selector":{},"stale":false}').stale, false);
    assert.throws(
      () => parse('{"selector":{},"stale":true}'),
      (err: unknown) => err instanceof CouchError && err.status === 400,
    );
  });

  it('sort', () => {
    assert.deepEqual(parseSort(parseJson('["a",{"b":"asc"}]')), [
      { field: 'a', direction: 'asc' },
      { field: 'b', direction: 'asc' },
    ]);
    assert.equal(stringifyJson(sortToJson(parseSort(parseJson('[{"n":"desc"}]')))), '{"n":"desc"}');
    assert.equal(stringifyJson(sortToJson([])), '{}');
    rejects('{"selector":{},"sort":"n"}', 'invalid_sort_json', 'Sort must be an array of sort specs, not: <<"n">>');
    rejects(
      '{"selector":{},"sort":{"n":"asc"}}',
      'invalid_sort_json',
      'Sort must be an array of sort specs, not: {[{<<"n">>,<<"asc">>}]}',
    );
    rejects('{"selector":{},"sort":[""]}', 'invalid_sort_field', 'Invalid sort field: <<>>');
    rejects('{"selector":{},"sort":[1]}', 'invalid_sort_field', 'Invalid sort field: 1');
    rejects('{"selector":{},"sort":[{"n":"up"}]}', 'invalid_sort_field', 'Invalid sort field: {[{<<"n">>,<<"up">>}]}');
    rejects(
      '{"selector":{},"sort":[{"n":"asc","m":"asc"}]}',
      'invalid_sort_field',
      'Invalid sort field: {[{<<"n">>,<<"asc">>},{<<"m">>,<<"asc">>}]}',
    );
    rejects(
      '{"selector":{},"sort":["a",{"b":"desc"}]}',
      'unsupported_mixed_sort',
      'Sorts currently only support a single direction for all fields.',
    );
  });

  it('fields errors', () => {
    rejects('{"selector":{},"fields":"a"}', 'invalid_fields', 'Fields must be an array of strings, not: <<97>>');
    rejects('{"selector":{},"fields":[1]}', 'invalid_field', 'Invalid JSON for field spec: 1');
    rejects('{"selector":{},"fields":[null]}', 'invalid_field', 'Invalid JSON for field spec: null');
    rejects('{"selector":{},"fields":[true]}', 'invalid_field', 'Invalid JSON for field spec: true');
    rejects('{"selector":{},"fields":[{"a":1}]}', 'invalid_field', 'Invalid JSON for field spec: {[{<<97>>,1}]}');
    rejects('{"selector":{},"fields":[""]}', 'invalid_field_name', 'Invalid field name: ');
    rejects('{"selector":{},"fields":["a..b"]}', 'invalid_field_name', 'Invalid field name: a..b');
    rejects('{"selector":{},"fields":["attrs."]}', 'invalid_field_name', 'Invalid field name: attrs.');
  });
});

describe('mango fields projection', () => {
  const doc = parseJson(
    '{"_id":"d","_rev":"1-a","name":"x","addr":{"city":"c","zip":"z"},"scores":[15,16,17],' +
      '"items":[{"sku":"D","qty":1}],"a.b":5}',
  ) as JsonObject;
  const projected = (fields: string): string => stringifyJson(project(doc, parseFields(parseJson(fields))));

  it('keeps the listed paths in the order of fields, _id/_rev only when listed', () => {
    assert.equal(projected('["name","_id"]'), '{"name":"x","_id":"d"}');
    assert.equal(projected('["addr.city"]'), '{"addr":{"city":"c"}}');
    assert.equal(projected('["missing"]'), '{}');
  });

  it('paths through arrays create objects with numeric member names', () => {
    assert.equal(projected('["scores.0","scores.2"]'), '{"scores":{"0":15,"2":17}}');
    assert.equal(projected('["items.0.sku"]'), '{"items":{"0":{"sku":"D"}}}');
    assert.equal(projected('["scores.7","scores.x"]'), '{}');
  });

  it('escaped dots, duplicates, a listed parent with its child', () => {
    assert.equal(projected('["a\\\\.b"]'), '{"a.b":5}');
    assert.equal(projected('["name","name"]'), '{"name":"x"}');
    assert.equal(projected('["addr","addr.city"]'), '{"addr":{"city":"c","zip":"z"}}');
    assert.equal(projected('["addr.city","addr"]'), '{"addr":{"city":"c","zip":"z"}}');
    assert.equal(stringifyJson(doc.get('addr')!), '{"city":"c","zip":"z"}', 'the document is not changed');
  });

  it('[] keeps the whole document', () => {
    assert.equal(project(doc, parseFields(parseJson('[]'))), doc);
  });
});

describe('Erlang text of JSON in error reasons', () => {
  it('~w prints binaries as bytes; ~p quotes printable ones', async () => {
    const { formatP, formatW } = await import('../src/mango/erlang-text.js');
    assert.equal(formatW(parseJson('{"a":[1,1.5,null,true,"é"]}')), '{[{<<97>>,[1,1.5,null,true,<<195,169>>]}]}');
    assert.equal(formatW(''), '<<>>');
    assert.equal(formatW(parseJson('12345678901234567890')), '12345678901234567890');
    assert.equal(formatW(parseJson('2.0')), '2.0');
    assert.equal(formatP('n'), '<<"n">>');
    assert.equal(formatP('é'), '<<"é"/utf8>>');
    assert.equal(formatP('a"b\\n'), '<<"a\\"b\\\\n">>');
    assert.equal(formatP('\u0001'), '<<1>>');
    assert.equal(formatP(''), '<<>>');
  });
});

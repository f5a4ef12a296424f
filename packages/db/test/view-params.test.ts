import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CouchError } from '../src/errors.js';
import { ALL_DOCS, parseQuery, type ViewQuery, viewIndex } from '../src/views/query/query-params.js';

const MAP = { raw: false };
const RED = { reduce: '_count', raw: false };
const RAW = { raw: true };

interface Opts {
  body?: unknown;
  view?: { reduce?: string; raw: boolean };
  ddoc?: Record<string, unknown>;
}
const parse = (qs: string, opts: Opts = {}): ViewQuery =>
  parseQuery(viewIndex(opts.view ?? MAP, opts.ddoc ?? {}), new URLSearchParams(qs), opts.body);
const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

const fails = (error: string, reason: string, qs: string, opts: Opts = {}): void => {
  assert.throws(
    () => parse(qs, opts),
    (e: unknown) => {
      assert.ok(e instanceof CouchError, `not a CouchError: ${String(e)}`);
      assert.deepEqual({ error: e.error, reason: e.reason, status: e.status }, { error, reason, status: 400 });
      return true;
    },
  );
};
const qpe = (reason: string, qs: string, opts: Opts = {}): void => fails('query_parse_error', reason, qs, opts);
const br = (reason: string, qs: string, opts: Opts = {}): void => fails('bad_request', reason, qs, opts);

const REVERSE_FWD = 'No rows can match your key range, reverse your start_key and end_key or set descending=true';
const REVERSE_REV = 'No rows can match your key range, reverse your start_key and end_key or set descending=false';
const MULTI_KEY = 'Multi-key fetches for reduce views must use `group=true`';
const KEYS_INCOMPATIBLE = '`keys` is incompatible with `key`, `start_key` and `end_key`';
const GROUPING_ON_MAP = 'Invalid use of grouping on a map view.';
const GROUP_CONFLICT = "Can't specify group=false and group_level>0 at the same time";

const DEFAULTS: ViewQuery = {
  inclusiveEnd: true,
  descending: false,
  skip: 0,
  reduce: false,
  group: 'none',
  includeDocs: false,
  conflicts: false,
  updateSeq: false,
  update: 'true',
  stable: false,
  sorted: true,
  attachments: false,
  attEncodingInfo: false,
};

describe('parseQuery on a view: defaults', () => {
  it('map view, no params', () => {
    assert.deepEqual(parse(''), DEFAULTS);
  });
  it('reduce view, no params: reduces without grouping', () => {
    assert.deepEqual(parse('', { view: RED }), { ...DEFAULTS, reduce: true });
  });
});

describe('parseQuery on a view: JSON-valued params', () => {
  it('key sets both bounds; any JSON value is a key', () => {
    for (const key of [1, null, true, 'a', [1, 'b'], { a: 1 }, 2.5]) {
      const r = parse(`key=${q(key)}`);
      assert.deepEqual([r.startkey, r.endkey], [key, key]);
    }
  });
  it('startkey/endkey and their aliases start_key/end_key', () => {
    assert.deepEqual(pick(parse(`startkey=${q('a')}&endkey=${q('b')}`)), ['a', 'b']);
    assert.deepEqual(pick(parse(`start_key=${q('a')}&end_key=${q('b')}`)), ['a', 'b']);
  });
  it('keys from the query string', () => {
    assert.deepEqual(parse(`keys=${q(['a', 'b'])}`).keys, ['a', 'b']);
  });
  it('invalid JSON is a bad_request "invalid UTF-8 JSON" (unquoted string, empty value)', () => {
    br('invalid UTF-8 JSON', 'startkey=b');
    br('invalid UTF-8 JSON', 'key=');
    br('invalid UTF-8 JSON', 'endkey={');
    br('invalid UTF-8 JSON', 'end_key=x');
    br('invalid UTF-8 JSON', 'keys=[1,');
  });
  it('doc ids are raw strings, not JSON, with their aliases', () => {
    const r = parse('startkey_docid=abc&endkey_docid="q"');
    assert.deepEqual([r.startkeyDocid, r.endkeyDocid], ['abc', '"q"']);
    const a = parse('start_key_doc_id=x&end_key_doc_id=y');
    assert.deepEqual([a.startkeyDocid, a.endkeyDocid], ['x', 'y']);
  });
});

const pick = (r: ViewQuery): unknown[] => [r.startkey, r.endkey];

describe('parseQuery on a view: booleans and integers', () => {
  it('booleans are true/false in any case', () => {
    assert.equal(parse('descending=TRUE').descending, true);
    assert.equal(parse('descending=True&descending=false').descending, false);
    assert.equal(parse('inclusive_end=false').inclusiveEnd, false);
    const r = parse(
      'include_docs=true&conflicts=true&update_seq=true&sorted=false&attachments=true&att_encoding_info=true',
    );
    assert.deepEqual(
      [r.includeDocs, r.conflicts, r.updateSeq, r.sorted, r.attachments, r.attEncodingInfo],
      [true, true, true, false, true, true],
    );
  });
  it('a later false undoes attachments/att_encoding_info', () => {
    const r = parse('attachments=true&att_encoding_info=true&attachments=false&att_encoding_info=false');
    assert.deepEqual([r.attachments, r.attEncodingInfo], [false, false]);
  });
  it('bad boolean: Invalid boolean parameter: "<raw>" (empty printed as [])', () => {
    qpe('Invalid boolean parameter: "1"', 'descending=1');
    qpe('Invalid boolean parameter: "yes"', 'include_docs=yes');
    qpe('Invalid boolean parameter: []', 'inclusive_end=');
    for (const name of ['reduce', 'group', 'conflicts', 'update_seq', 'sorted', 'attachments', 'att_encoding_info']) {
      qpe('Invalid boolean parameter: "no"', `${name}=no`);
    }
  });
  it('integers: limit, skip, group_level; 0 allowed', () => {
    const r = parse('limit=0&skip=3');
    assert.deepEqual([r.limit, r.skip], [0, 3]);
    assert.equal(parse('group_level=2', { view: RED }).group, 2);
    assert.equal(parse('').limit, undefined);
  });
  it('non-integer: Invalid value for integer', () => {
    qpe('Invalid value for integer: "abc"', 'limit=abc');
    qpe('Invalid value for integer: "1.5"', 'skip=1.5');
    qpe('Invalid value for integer: []', 'limit=');
    qpe('Invalid value for integer: "x"', 'group_level=x', { view: RED });
  });
  it('negative: Invalid value for positive integer', () => {
    qpe('Invalid value for positive integer: "-1"', 'limit=-1');
    qpe('Invalid value for positive integer: "-5"', 'skip=-5');
    qpe('Invalid value for positive integer: "-2"', 'group_level=-2', { view: RED });
  });
  it('limit above 2^59-1: Limit is too large', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: the limit is compared as the double it parses to
    assert.equal(parse('limit=576460752303423487').limit, 576460752303423487);
    qpe('Limit is too large, must not exceed 576460752303423487', 'limit=576460752303423488');
    qpe('Limit is too large, must not exceed 576460752303423487', 'limit=99999999999999999999');
  });
});

describe('parseQuery on a view: left to right', () => {
  it('key then endkey is a range; endkey then key is exactly key', () => {
    assert.deepEqual(pick(parse(`key=${q('a')}&endkey=${q('b')}`)), ['a', 'b']);
    assert.deepEqual(pick(parse(`endkey=${q('b')}&key=${q('a')}`)), ['a', 'a']);
    assert.deepEqual(pick(parse(`startkey=${q('x')}&key=${q('a')}&start_key=${q('0')}`)), ['0', 'a']);
  });
  it('a later occurrence overwrites', () => {
    assert.equal(parse('limit=1&limit=2').limit, 2);
    assert.equal(parse('startkey_docid=a&start_key_doc_id=b').startkeyDocid, 'b');
  });
  it('parse errors surface in parameter order', () => {
    qpe('Invalid value for integer: "x"', 'limit=x&skip=y');
    qpe('Invalid value for integer: "y"', 'skip=y&limit=x');
    br('invalid UTF-8 JSON', 'startkey=a&limit=x');
    qpe('Invalid value for integer: "x"', 'limit=x&startkey=a');
  });
  it('GET decodes `keys` before everything else (chttpd:qs_json_value)', () => {
    br('invalid UTF-8 JSON', 'limit=x&keys=[');
    // POST does not: the query string is parsed left to right.
    qpe('Invalid value for integer: "x"', 'limit=x&keys=[', { body: {} });
  });
});

describe('parseQuery on a view: ignored params', () => {
  it('unknown params, count, callback', () => {
    assert.deepEqual(parse('foo=bar&count=1&callback=cb&Limit=x'), DEFAULTS);
  });
  it('empty param names', () => {
    assert.equal(parse('&limit=1').limit, 1);
    assert.equal(parse('=x&limit=1').limit, 1);
    assert.equal(parse('limit=1', { body: { '': 'x' } }).limit, 1);
  });
});

describe('parseQuery on a view: stale / update / stable', () => {
  it('stale=ok → update false, stable; stale=update_after → lazy', () => {
    const ok = parse('stale=ok');
    assert.deepEqual([ok.update, ok.stable], ['false', true]);
    const after = parse('stale=update_after');
    assert.deepEqual([after.update, after.stable], ['lazy', true]);
  });
  it('update=true|false|lazy, stable=true|false', () => {
    assert.equal(parse('update=false').update, 'false');
    assert.equal(parse('update=lazy').update, 'lazy');
    assert.equal(parse('update=lazy&update=true').update, 'true');
    assert.equal(parse('stable=true').stable, true);
    assert.equal(parse('stable=true&stable=false').stable, false);
  });
  it('a later stale/update overwrites the earlier one', () => {
    const a = parse('stale=ok&update=true');
    assert.deepEqual([a.update, a.stable], ['true', true]);
    const b = parse('update=true&stale=ok');
    assert.deepEqual([b.update, b.stable], ['false', true]);
  });
  it('bad values (matched exactly, no case folding)', () => {
    qpe('Invalid value for `stale`.', 'stale=OK');
    qpe('Invalid value for `stale`.', 'stale=false');
    qpe('Invalid value for `update`.', 'update=TRUE');
    qpe('Invalid value for `update`.', 'update=maybe');
    qpe('Invalid value for `stable`.', 'stable=yes');
    qpe('Invalid value for `stable`.', 'stable=True');
  });
});

describe('parseQuery on a view: POST body', () => {
  it('members are decoded values', () => {
    const r = parse('', {
      body: {
        key: 'a',
        limit: 2,
        descending: 'true',
        inclusive_end: false,
        startkey_docid: 'd',
        stale: 'ok',
        group: false,
      },
    });
    assert.deepEqual(
      [r.startkey, r.endkey, r.limit, r.descending, r.inclusiveEnd, r.startkeyDocid, r.update],
      ['a', 'a', 2, true, false, 'd', 'false'],
    );
    assert.deepEqual(parse('', { body: { keys: ['x', 'y'], stable: true, update: false } }).keys, ['x', 'y']);
  });
  it('the query string is applied after the body, so it wins', () => {
    assert.equal(parse('limit=2', { body: { limit: 1 } }).limit, 2);
    assert.deepEqual(pick(parse(`endkey=${q('z')}`, { body: { key: 'a' } })), ['a', 'z']);
    assert.deepEqual(pick(parse(`key=${q('a')}`, { body: { endkey: 'z' } })), ['a', 'a']);
    assert.deepEqual(parse(`keys=${q(['q1', 'q2'])}`, { body: { keys: ['b1', 'b2'] } }).keys, ['q1', 'q2']);
  });
  it('body not an object: bad_request', () => {
    for (const body of [[], null, 'x', 5, true]) br('Request body must be a JSON object', '', { body });
  });
  it('`queries` on the plain view URL: bad_request (non-array: must be an array)', () => {
    br('The `queries` parameter is no longer supported at this endpoint', '', { body: { queries: [] } });
    br('`queries` member must be an array.', '', { body: { queries: {} } });
  });
  it('`keys` member not an array: bad_request', () => {
    br('`keys` member must be an array.', '', { body: { keys: 'a' } });
    br('`keys` member must be an array.', '', { body: { keys: null } });
  });
  it('body checks come before any param parsing, queries before keys', () => {
    br('Request body must be a JSON object', 'limit=x', { body: [] });
    br('The `queries` parameter is no longer supported at this endpoint', '', { body: { keys: 1, queries: [] } });
    br('`keys` member must be an array.', 'limit=x', { body: { limit: 'x', keys: 1 } });
  });
  it('decoded value errors print the Erlang term', () => {
    qpe('Invalid value for integer: <<"5">>', '', { body: { limit: '5' } });
    qpe('Invalid value for integer: 1.5', '', { body: { skip: 1.5 } });
    qpe('Invalid value for integer: null', '', { body: { limit: null } });
    qpe('Invalid value for positive integer: -1', '', { body: { limit: -1 } });
    qpe('Invalid boolean parameter: "yes"', '', { body: { descending: 'yes' } });
    qpe('Invalid boolean parameter: 1', '', { body: { descending: 1 } });
    qpe('Limit is too large, must not exceed 576460752303423487', '', { body: { limit: 1e20 } });
  });
  it('doc ids: scalars become text, arrays/objects are rejected', () => {
    assert.equal(parse('', { body: { startkey_docid: 5 } }).startkeyDocid, '5');
    qpe('`start_key_docid` must be a string.', '', { body: { startkey_docid: ['a'] } });
    qpe('`end_key_docid` must be a string.', '', { body: { end_key_doc_id: { a: 1 } } });
  });
});

describe('parseQuery on a view: reduce and grouping', () => {
  it('reduce=true on a map view', () => {
    qpe('Reduce is invalid for map-only views.', 'reduce=true');
    assert.equal(parse('reduce=false').reduce, false);
  });
  it('reduce=false on a reduce view queries the map rows', () => {
    assert.deepEqual(parse('reduce=false', { view: RED }), DEFAULTS);
    assert.equal(parse('reduce=true', { view: RED }).reduce, true);
  });
  it('group resolution (3.x determine_group_level)', () => {
    const g = (qs: string) => parse(qs, { view: RED }).group;
    assert.equal(g('group=true'), 'exact');
    assert.equal(g('group=false'), 'none');
    assert.equal(g('group_level=2'), 2);
    assert.equal(g('group=true&group_level=2'), 2);
    assert.equal(g('group_level=2&group=true'), 2);
    assert.equal(g('group_level=0'), 'none');
    assert.equal(g('group=true&group_level=0'), 'none');
    assert.equal(g('group=false&group_level=0'), 'none');
  });
  it('group=false with group_level>0, in either order', () => {
    qpe(GROUP_CONFLICT, 'group=false&group_level=1', { view: RED });
    qpe(GROUP_CONFLICT, 'group_level=1&group=false', { view: RED });
  });
  it('grouping on a map view, or on a reduce view with reduce=false', () => {
    qpe(GROUPING_ON_MAP, 'group=true');
    qpe(GROUPING_ON_MAP, 'group_level=1');
    qpe(GROUPING_ON_MAP, 'group=true&reduce=false', { view: RED });
    qpe(GROUPING_ON_MAP, 'reduce=false&group_level=2', { view: RED });
  });
  it('group=false / group_level=0 on a map view are fine', () => {
    assert.equal(parse('group=false').group, 'none');
    assert.equal(parse('group_level=0').group, 'none');
  });
});

describe('parseQuery on a view: keys', () => {
  it('multi-key fetch on a reduce view needs group=true (group_level is not enough; [] counts)', () => {
    qpe(MULTI_KEY, `keys=${q(['a', 'b'])}`, { view: RED });
    qpe(MULTI_KEY, `keys=${q(['a', 'b'])}&group_level=1`, { view: RED });
    qpe(MULTI_KEY, `keys=${q([])}`, { view: RED });
    qpe(MULTI_KEY, '', { view: RED, body: { keys: ['a', 'b'] } });
    const r = parse(`keys=${q(['a', 'b'])}&group=true`, { view: RED });
    assert.deepEqual([r.keys, r.group], [['a', 'b'], 'exact']);
    assert.deepEqual(parse(`keys=${q(['a', 'b'])}&reduce=false`, { view: RED }).keys, ['a', 'b']);
  });
  it('a single-element keys wins over key; with startkey or endkey it is a range (or the reversed-range error)', () => {
    for (const query of [`key=${q('x')}&keys=${q(['c'])}`, `keys=${q(['c'])}&key=${q('x')}`]) {
      const r = parse(query);
      assert.deepEqual([r.keys, r.startkey, r.endkey], [undefined, 'c', 'c'], query);
    }
    const body = parse(`key=${q('x')}`, { body: { keys: ['c'] } });
    assert.deepEqual([body.keys, body.startkey, body.endkey], [undefined, 'c', 'c']);
    const range = parse(`keys=${q(['c'])}&startkey=${q('a')}`);
    assert.deepEqual([range.keys, range.startkey, range.endkey], [undefined, 'a', 'c']);
    const before = parse(`startkey=${q('a')}&keys=${q(['c'])}`);
    assert.deepEqual([before.startkey, before.endkey], ['a', 'c']);
    const ends = parse(`end_key=${q('e')}`, { body: { keys: ['c'] } });
    assert.deepEqual([ends.startkey, ends.endkey], ['c', 'e']);
    const red = parse(`keys=${q(['c'])}&startkey=${q('a')}`, { view: RED });
    assert.deepEqual([red.startkey, red.endkey, red.group], ['a', 'c', 'none']);
    qpe(REVERSE_FWD, `keys=${q(['a'])}&startkey=${q('c')}`);
    qpe(REVERSE_REV, `keys=${q(['c'])}&startkey=${q('a')}&descending=true`);
  });
  it('a single-element keys is a key (3.3.1+), so reduce views accept it without group', () => {
    const r = parse(`keys=${q(['a'])}`, { view: RED });
    assert.deepEqual([r.keys, r.startkey, r.endkey, r.group], [undefined, 'a', 'a', 'none']);
    const m = parse('', { body: { keys: [[1, 2]] } });
    assert.deepEqual([m.keys, m.startkey, m.endkey], [undefined, [1, 2], [1, 2]]);
    assert.equal(parse(`keys=${q(['a'])}&group_level=1`, { view: RED }).group, 1);
  });
  it('keys=[] on a map view: no rows, allowed', () => {
    assert.deepEqual(parse(`keys=${q([])}`).keys, []);
  });
  it('keys that is not an array (GET)', () => {
    qpe('`keys` must be an array of strings.', `keys=${q('a')}`);
    qpe('`keys` must be an array of strings.', `keys=${q({ a: 1 })}`, { view: RED });
  });
  it('keys with key / startkey / endkey', () => {
    qpe(KEYS_INCOMPATIBLE, `keys=${q(['a', 'b'])}&key=${q('a')}`);
    qpe(KEYS_INCOMPATIBLE, `keys=${q(['a', 'b'])}&startkey=${q('a')}`);
    qpe(KEYS_INCOMPATIBLE, `end_key=${q('a')}&keys=${q(['a', 'b'])}`);
    // A one-element keys is a key rewritten as start/end: with startkey it is a range (below).
    qpe(KEYS_INCOMPATIBLE, `startkey=${q('b')}`, { body: { keys: ['a', 'c'] } });
    // An empty keys list does not conflict.
    const r = parse(`keys=${q([])}&startkey=${q('a')}`);
    assert.deepEqual([r.keys, r.startkey], [[], 'a']);
  });
});

describe('parseQuery on a view: include_docs / conflicts / partition', () => {
  it('include_docs=true on a reduce view (unless reduce=false)', () => {
    qpe('`include_docs` is invalid for reduce', 'include_docs=true', { view: RED });
    assert.equal(parse('include_docs=false', { view: RED }).includeDocs, false);
    assert.equal(parse('include_docs=true&reduce=false', { view: RED }).includeDocs, true);
  });
  it('conflicts given at all (true or false) on a reduce view', () => {
    qpe('`conflicts` is invalid for reduce views.', 'conflicts=true', { view: RED });
    qpe('`conflicts` is invalid for reduce views.', 'conflicts=false', { view: RED });
    assert.equal(parse('conflicts=true&reduce=false', { view: RED }).conflicts, true);
  });
  it('partition is not supported', () => {
    qpe('`partition` parameter is not supported in this design doc', 'partition=p1');
    qpe('`partition` parameter is not supported in this design doc', '', { body: { partition: 'p1' } });
  });
});

describe('parseQuery on a view: reversed ranges (check_range)', () => {
  it('forward: start after end', () => {
    qpe(REVERSE_FWD, `startkey=2&endkey=1`);
    qpe(REVERSE_FWD, `startkey=${q('b')}&endkey=${q('a')}`);
    qpe(REVERSE_FWD, `startkey=${q([1, 2])}&endkey=${q([1])}`);
    assert.deepEqual(pick(parse(`startkey=1&endkey=2`)), [1, 2]);
  });
  it('descending: start before end', () => {
    qpe(REVERSE_REV, `descending=true&startkey=1&endkey=2`);
    assert.deepEqual(pick(parse(`descending=true&startkey=2&endkey=1`)), [2, 1]);
    // descending given after the keys still counts.
    qpe(REVERSE_REV, `startkey=1&endkey=2&descending=true`);
  });
  it('one bound only: no check', () => {
    assert.equal(parse(`descending=true&startkey=1`).startkey, 1);
    assert.equal(parse(`descending=true&endkey=9`).endkey, 9);
  });
  it('same key: skipped, whatever the doc ids', () => {
    const r = parse(`key=${q('a')}&startkey_docid=z&endkey_docid=a`);
    assert.deepEqual([r.startkeyDocid, r.endkeyDocid], ['z', 'a']);
    parse(`descending=true&key=${q({ a: [1] })}&startkey_docid=a&endkey_docid=z`);
  });
  it('ICU collation: "a" < "A" < "b", null < false, numbers < strings < arrays < objects', () => {
    parse(`startkey=${q('a')}&endkey=${q('A')}`);
    qpe(REVERSE_FWD, `startkey=${q('A')}&endkey=${q('a')}`);
    qpe(REVERSE_FWD, `startkey=${q('Z')}&endkey=${q('a')}`);
    parse(`startkey=null&endkey=false`);
    parse(`startkey=99&endkey=${q('0')}`);
    parse(`startkey=${q('z')}&endkey=${q([])}`);
    qpe(REVERSE_FWD, `startkey=${q({})}&endkey=${q(['z'])}`);
  });
  it('raw collation: code points, and false < null, objects before arrays before strings', () => {
    parse(`startkey=${q('A')}&endkey=${q('a')}`, { view: RAW });
    parse(`startkey=${q('Z')}&endkey=${q('a')}`, { view: RAW });
    qpe(REVERSE_FWD, `startkey=${q('a')}&endkey=${q('A')}`, { view: RAW });
    qpe(REVERSE_FWD, `startkey=null&endkey=false`, { view: RAW });
    parse(`startkey=${q({})}&endkey=${q(['z'])}`, { view: RAW });
  });
  it('collation-equal but different keys compare doc ids (defaults: "" / highest, swapped when descending)', () => {
    // U+0000 is ignorable in ICU: "a" and "a\0" collate equal but are different terms.
    const a = q('a');
    const a0 = q('a\u0000');
    parse(`startkey=${a}&endkey=${a0}`);
    parse(`descending=true&startkey=${a}&endkey=${a0}`);
    qpe(REVERSE_FWD, `startkey=${a}&endkey=${a0}&startkey_docid=z&endkey_docid=a`);
    parse(`startkey=${a}&endkey=${a0}&startkey_docid=a&endkey_docid=z`);
    qpe(REVERSE_REV, `descending=true&startkey=${a}&endkey=${a0}&startkey_docid=a&endkey_docid=z`);
    // Only the end doc id given: the start one defaults to "" going forward, highest going backward.
    parse(`startkey=${a}&endkey=${a0}&endkey_docid=a`);
    parse(`descending=true&startkey=${a}&endkey=${a0}&endkey_docid=zzz`);
    qpe(REVERSE_FWD, `startkey=${a}&endkey=${a0}&startkey_docid=b&endkey_docid=b`);
  });
});

describe('parseQuery on a view: order of checks (first reported wins)', () => {
  it('parse errors before validation', () => {
    qpe('Invalid value for integer: "x"', 'reduce=true&limit=x');
    qpe('Invalid boolean parameter: "x"', `startkey=2&endkey=1&descending=x`);
  });
  it('limit too large → group=false/group_level → reduce on map → multi-key → keys type → keys vs key', () => {
    qpe(
      'Limit is too large, must not exceed 576460752303423487',
      'reduce=true&group=false&group_level=1&limit=576460752303423488',
    );
    qpe(GROUP_CONFLICT, 'reduce=true&group=false&group_level=1');
    qpe('Reduce is invalid for map-only views.', `reduce=true&group=true&keys=${q(1)}`);
    qpe(MULTI_KEY, `keys=${q(['a', 'b'])}&key=${q('c')}`, { view: RED });
    qpe('`keys` must be an array of strings.', `keys=${q('a')}&key=${q('b')}`);
  });
  it('keys vs key → doc id types → start before end doc id', () => {
    qpe(KEYS_INCOMPATIBLE, '', { body: { keys: [1, 2], startkey: 1, startkey_docid: [1] } });
    qpe('`start_key_docid` must be a string.', '', { body: { endkey_docid: [1], startkey_docid: [1] } });
  });
  it('doc id types → grouping on a map → include_docs → conflicts → partition → range', () => {
    qpe('`start_key_docid` must be a string.', 'group=true', { body: { startkey_docid: {} } });
    qpe(GROUPING_ON_MAP, `group=true&startkey=2&endkey=1&partition=p`);
    qpe(MULTI_KEY, `include_docs=true&keys=${q([1, 2])}`, { view: RED });
    qpe('`include_docs` is invalid for reduce', 'conflicts=true&include_docs=true', { view: RED });
    qpe('`conflicts` is invalid for reduce views.', 'partition=p&conflicts=false', { view: RED });
    qpe('`partition` parameter is not supported in this design doc', 'startkey=2&endkey=1&partition=p');
  });
});

describe('parseQuery on a view: design-document options as defaults (a Divan extension)', () => {
  it('a query param in the ddoc options is the default; the request overrides', () => {
    assert.equal(parse('', { ddoc: { include_docs: true } }).includeDocs, true);
    assert.equal(parse('include_docs=false', { ddoc: { include_docs: true } }).includeDocs, false);
    assert.equal(parse('', { ddoc: { limit: 10 } }).limit, 10);
    assert.equal(parse('limit=5', { ddoc: { limit: 10 } }).limit, 5);
    assert.equal(parse('', { ddoc: { limit: 10 }, body: { limit: 3 } }).limit, 3);
    assert.equal(parse('', { ddoc: { descending: true, skip: 2 } }).descending, true);
    assert.equal(parse('', { ddoc: { stale: 'ok' } }).update, 'false');
  });
  it('index options and unknown names are not query defaults', () => {
    assert.deepEqual(
      parse('', { ddoc: { include_design: true, local_seq: true, collation: 'raw', foo: 1 } }),
      DEFAULTS,
    );
  });
  it('reduce: false as a default; the request can turn reduce back on', () => {
    assert.equal(parse('', { view: RED, ddoc: { reduce: false } }).reduce, false);
    assert.equal(parse('reduce=true', { view: RED, ddoc: { reduce: false } }).reduce, true);
    // Asking for grouping drops the default instead of failing.
    const g = parse('group=true', { view: RED, ddoc: { reduce: false } });
    assert.deepEqual([g.reduce, g.group], [true, 'exact']);
  });
  it('defaults invalid for this view are ignored, not errors', () => {
    assert.deepEqual(parse('', { ddoc: { reduce: true } }), DEFAULTS);
    assert.deepEqual(parse('', { ddoc: { group: true } }), DEFAULTS);
    assert.deepEqual(parse('', { ddoc: { group_level: 2 } }), DEFAULTS);
    assert.deepEqual(parse('', { view: RED, ddoc: { include_docs: true, conflicts: true } }), {
      ...DEFAULTS,
      reduce: true,
    });
    // The same defaults apply where they are valid.
    const m = parse('reduce=false', { view: RED, ddoc: { include_docs: true, conflicts: true } });
    assert.deepEqual([m.includeDocs, m.conflicts], [true, true]);
    assert.equal(parse('', { view: RED, ddoc: { group: true } }).group, 'exact');
    assert.deepEqual(parse('', { view: RED, ddoc: { keys: ['a', 'b'] } }).keys, undefined);
  });
  it('defaults with bad values are ignored; integers may be text', () => {
    assert.deepEqual(
      parse('', { ddoc: { limit: 'x', skip: -1, descending: 'maybe', stale: 'never', group_level: 1.5 } }),
      DEFAULTS,
    );
    assert.equal(parse('', { ddoc: { limit: 576460752303423488n.toString() } }).limit, undefined);
    assert.deepEqual(
      [parse('', { ddoc: { limit: '20', skip: '2' } }).limit, parse('', { ddoc: { skip: '2' } }).skip],
      [20, 2],
    );
    assert.equal(parse('', { ddoc: { partition: 'p', callback: 'f' } }).limit, undefined);
  });
  it('group and group_level are one setting: the request replaces both', () => {
    assert.equal(parse('group=true', { view: RED, ddoc: { group_level: 2 } }).group, 'exact');
    assert.equal(parse('group=false', { view: RED, ddoc: { group_level: 2 } }).group, 'none');
    assert.equal(parse('group_level=1', { view: RED, ddoc: { group: false } }).group, 1);
  });
  it('range params are one setting: any of them in the request replaces all range defaults', () => {
    const r = parse(`endkey=${q('z')}`, { ddoc: { key: 'a', startkey_docid: 'x' } });
    assert.deepEqual([r.startkey, r.endkey, r.startkeyDocid], [undefined, 'z', undefined]);
    assert.deepEqual(parse(`keys=${q(['a', 'b'])}`, { ddoc: { startkey: 'a' } }).keys, ['a', 'b']);
    assert.deepEqual(pick(parse('', { ddoc: { startkey: 'a', end_key: 'c' } })), ['a', 'c']);
  });
  it('stale/update/stable are one setting', () => {
    const r = parse('update=true', { ddoc: { stale: 'ok' } });
    assert.deepEqual([r.update, r.stable], ['true', false]);
  });
  it('a default that would reverse the requested range is dropped', () => {
    assert.equal(parse('startkey=1&endkey=2', { ddoc: { descending: true } }).descending, false);
    assert.equal(parse('startkey=2&endkey=1', { ddoc: { descending: true } }).descending, true);
  });
  it("the request's own errors are reported as without defaults", () => {
    qpe('Reduce is invalid for map-only views.', 'reduce=true', { ddoc: { limit: 5, include_docs: true } });
    qpe('Invalid value for integer: "x"', 'limit=x', { ddoc: { limit: 5 } });
    qpe(REVERSE_FWD, 'startkey=2&endkey=1', { ddoc: { descending: false } });
  });
});

describe('parseQuery: one query of /queries (URL params are its defaults)', () => {
  const member = (qs: string, body: unknown, index = viewIndex(MAP, {})) =>
    parseQuery(index, new URLSearchParams(qs), body, 'member');
  it("the query's members apply after the URL params, on a view and on _all_docs", () => {
    assert.equal(member('limit=1&skip=2', { limit: 3 }).limit, 3);
    assert.equal(member('limit=1&skip=2', { limit: 3 }).skip, 2);
    assert.equal(member('limit=1', { limit: 3 }, ALL_DOCS).limit, 3);
  });
  it("a member that is not an object; a `keys` that is not an array is validate_args' error", () => {
    assert.throws(() => member('', []), { error: 'bad_request', reason: 'Each query must be a JSON object' });
    assert.throws(() => member('', { keys: 1 }, ALL_DOCS), {
      error: 'query_parse_error',
      reason: '`keys` must be an array of strings.',
    });
  });
});

describe('parseQuery on _all_docs: the same table, its endpoint rules', () => {
  const all = (qs: string, body?: unknown): ViewQuery => parseQuery(ALL_DOCS, new URLSearchParams(qs), body);
  const allFails = (error: string, reason: string, qs: string, body?: unknown): void => {
    assert.throws(() => all(qs, body), { error, reason });
  };
  it('a reversed range is no error (no check_range), and nothing reduces', () => {
    const r = all(`startkey=${q('d')}&endkey=${q('b')}`);
    assert.deepEqual([r.startkey, r.endkey, r.reduce, r.group], ['d', 'b', false, 'none']);
  });
  it('a one-element keys stays a keys list, so with a bound it is incompatible', () => {
    assert.deepEqual(all(`keys=${q(['a'])}`).keys, ['a']);
    allFails('query_parse_error', KEYS_INCOMPATIBLE, `keys=${q(['a'])}&startkey=${q('b')}`);
  });
  it("`keys` not an array: chttpd_db's words for GET and POST; keys in body and query", () => {
    allFails('bad_request', '`keys` parameter must be an array.', 'keys=5');
    allFails('bad_request', '`keys` parameter must be an array.', 'limit=x&keys=5');
    allFails('bad_request', 'invalid UTF-8 JSON', 'limit=x&keys=[');
    allFails('bad_request', '`keys` body member must be an array.', 'limit=x', { keys: 5 });
    allFails('query_parse_error', KEYS_INCOMPATIBLE, `keys=${q(['a'])}`, { keys: ['b'] });
    // `queries` is no parameter here (the plain view URL refuses it).
    assert.equal(all('', { queries: [], limit: 1 }).limit, 1);
  });
  it('decoded integers may be text; booleans, doc ids, freshness and grouping read as for a view', () => {
    assert.equal(all('', { limit: '5' }).limit, 5);
    allFails('query_parse_error', 'Invalid value for integer: "abc"', '', { limit: 'abc' });
    assert.equal(all('', { startkey_docid: 5 }).startkeyDocid, '5');
    assert.deepEqual(
      [all('attachments=TRUE').attachments, all('att_encoding_info=True').attEncodingInfo],
      [true, true],
    );
    allFails('query_parse_error', 'Invalid boolean parameter: "no"', 'attachments=no');
    allFails('query_parse_error', 'Invalid value for `stale`.', 'stale=never');
    allFails('query_parse_error', GROUP_CONFLICT, 'group_level=1&group=false');
    allFails('query_parse_error', GROUPING_ON_MAP, 'group=true');
  });
  it('partition: not supported on this db (validate_all_docs_args)', () => {
    allFails('query_parse_error', '`partition` parameter is not supported on this db', 'partition=p');
  });
});

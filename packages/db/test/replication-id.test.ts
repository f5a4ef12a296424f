/**
 * Replication ids as CouchDB 3.5 computes them (couch_replicator_ids, version 4).
 *
 * How the vectors were derived: for each request below, CouchDB's steps were applied by hand
 * (the URL given a trailing `/` unless it has one or a `?`; headers sorted, merged over the
 * replicator's defaults `Accept: application/json` and `User-Agent: CouchDB-Replicator/3.5.0`,
 * an `Authorization: Basic` header taken out, the unchanged defaults dropped; the user from
 * `auth.basic`, else the URL, else the header; host, port and path as ibrowse_lib:parse_url reads
 * them, with 80/5984 (http) and 443 (https) as `default`; `doc_ids` usorted; a selector through
 * mango_selector:normalize then ejsort; a design filter's code trimmed when on one line), which
 * gives the Erlang term written beside each vector. That term was then hashed by a real Erlang
 * (OTP 25, as the CouchDB 3.5.0 these ids follow) with
 * `couch_util:to_hex(erlang:md5(term_to_binary(Term)))`; the hex digits are what it printed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { remoteIdInfo } from '../src/replication/endpoint-id.js';
import { replicationId, replicationIdTerm, trimmedCode } from '../src/replication/replication-id.js';
import { legacyReplicationId } from '../src/replication/replication-id-legacy.js';
import { readReplicationRequest } from '../src/replication/request.js';

const UUID = '0123456789abcdef0123456789abcdef';

const idOf = (body: Record<string, unknown>, filterSource?: string, user?: string) =>
  replicationId(UUID, readReplicationRequest(body), filterSource, user);

describe('CouchDB replication ids', () => {
  it('two remote endpoints: the user of the URL, no password, default ports', () => {
    // [<<UUID>>, {remote, undefined, "a.example", default, "/db/", [], undefined},
    //            {remote, "user", "b.example", default, "/db2/", [], undefined}]
    const id = idOf({ source: 'http://a.example:5984/db', target: 'https://user:pw@b.example/db2' });
    assert.deepEqual(id, {
      base: '1abea148508f267270c1f05eac3f2319',
      extension: '',
      full: '1abea148508f267270c1f05eac3f2319',
      legacy: id.legacy,
    });
    // The bytes Erlang wrote for this term.
    const written = replicationIdTerm(
      UUID,
      readReplicationRequest({ source: 'http://a.example:5984/db', target: 'https://user:pw@b.example/db2' }),
    );
    const expected = Buffer.concat([
      Buffer.from([131, 108, 0, 0, 0, 3, 109, 0, 0, 0, 32]),
      Buffer.from(UUID),
      Buffer.from([104, 7, 100, 0, 6, ...Buffer.from('remote'), 100, 0, 9, ...Buffer.from('undefined')]),
      Buffer.from([107, 0, 9, ...Buffer.from('a.example'), 100, 0, 7, ...Buffer.from('default')]),
      Buffer.from([107, 0, 4, ...Buffer.from('/db/'), 106, 100, 0, 9, ...Buffer.from('undefined')]),
      Buffer.from([104, 7, 100, 0, 6, ...Buffer.from('remote'), 107, 0, 4, ...Buffer.from('user')]),
      Buffer.from([107, 0, 9, ...Buffer.from('b.example'), 100, 0, 7, ...Buffer.from('default')]),
      Buffer.from([107, 0, 5, ...Buffer.from('/db2/'), 106, 100, 0, 9, ...Buffer.from('undefined'), 106]),
    ]);
    assert.deepEqual([...written], [...expected]);
    assert.equal(createHash('md5').update(expected).digest('hex'), id.base);
    // A changed password is the same replication.
    assert.equal(
      idOf({ source: 'http://a.example:5984/db', target: 'https://user:other@b.example/db2' }).full,
      id.full,
    );
  });

  it('a Basic header gives the user, other headers stay; doc_ids usorted; the suffixes', () => {
    // [<<UUID>>, {remote, "u2", "Host.Example", 8080, "/some%2Fdb?x=1", [{"X-Token", "t"}], undefined},
    //            {local, <<"tgt">>, undefined}, [<<"a">>, <<"b">>]]
    const auth = `Basic ${Buffer.from('u2:p').toString('base64')}`;
    const id = idOf({
      source: { url: 'http://Host.Example:8080/some%2Fdb?x=1', headers: { 'X-Token': 't', Authorization: auth } },
      target: 'tgt',
      doc_ids: ['b', 'a', 'b'],
      continuous: true,
      create_target: true,
    });
    assert.equal(id.base, '05225d2b2092c1fae0e8ae7cbea2fcdd');
    assert.equal(id.full, '05225d2b2092c1fae0e8ae7cbea2fcdd+continuous+create_target');
  });

  it('auth.basic wins; a given User-Agent stays; an IPv6 host; a normalized, sorted selector; winning_revs_only', () => {
    // [<<UUID>>, {remote, "ü" (its UTF-8 bytes), "h", default, "/s/", [{"User-Agent", "mine"}], undefined},
    //            {remote, undefined, "::1", default, "/t/", [], undefined},
    //            {[{<<"$and">>, [{[{<<"age">>, {[{<<"$gt">>, 21}]}}]}, {[{<<"name">>, {[{<<"$eq">>, <<"x">>}]}}]}]}]},
    //            winning_revs_only]
    const id = idOf({
      source: {
        url: 'http://other:pw@h/s',
        headers: { 'User-Agent': 'mine', Accept: 'application/json' },
        auth: { basic: { username: 'ü', password: 'p' } },
      },
      target: 'http://[::1]:5984/t',
      selector: { age: { $gt: 21 }, name: 'x' },
      winning_revs_only: true,
    });
    assert.equal(id.base, '971fb939e138296a4c220472c164ad06');
  });

  it("a selector's objects sorted by member name, arrays kept in order", () => {
    // [<<UUID>>, {remote, undefined, "h", default, "/s/", [], undefined},
    //            {remote, undefined, "h", default, "/t/", [], undefined},
    //            {[{<<"a">>, {[{<<"$in">>, [{[{<<"y">>, 2}, {<<"z">>, 1}]}]}]}}]}]
    const id = idOf({ source: 'http://h/s', target: 'http://h/t', selector: { a: { $in: [{ z: 1, y: 2 }] } } });
    assert.equal(id.base, 'c875c72346ac315af2689e3d00f874ed');
  });

  it('a design filter: its code trimmed when on one line, query_params in their order', () => {
    // [<<UUID>>, {remote, "u", "h", default, "/s/", [], undefined},
    //            {remote, undefined, "h", 5985, "/t/", [], undefined},
    //            <<"function(doc) { return true; }">>, {[{<<"b">>, <<"2">>}, {<<"a">>, <<"1">>}]}]
    const id = idOf(
      { source: 'http://u:p@h:80/s', target: 'http://h:5985/t', filter: 'd/f', query_params: { b: '2', a: '1' } },
      '  function(doc) { return true; }  \n',
    );
    assert.equal(id.base, 'acd109e72d53d0681628cb342558dd45');
    const lines = 'function(doc) {\n  return true;\n}\n';
    assert.equal(trimmedCode(lines).toString(), lines, 'code over several lines is hashed as it is');
    assert.equal(trimmedCode(' \n f() \r\n').toString(), 'f()');
  });

  it("local databases (Divan's own): the user of a non-admin's job", () => {
    // [<<UUID>>, {local, <<"a">>, <<"bob">>}, {local, <<"b">>, <<"bob">>}]
    assert.equal(idOf({ source: 'a', target: 'b' }, undefined, 'bob').base, '61bcd8aec73c6f099209d3d9561b5b7b');
    assert.notEqual(idOf({ source: 'a', target: 'b' }).base, idOf({ source: 'a', target: 'b' }, undefined, 'bob').base);
  });

  it('keeps the id Divan gave the same replication before, for its checkpoints', () => {
    const request = readReplicationRequest({ source: 'a', target: 'http://h/t', continuous: true });
    const id = replicationId(UUID, request);
    assert.equal(id.legacy, legacyReplicationId(UUID, request));
    assert.match(id.legacy, /^[0-9a-f]{32}\+continuous$/);
    assert.notEqual(id.legacy, id.full);
  });
});

describe("an endpoint's part of the id (couch_replicator_ids' and couch_replicator_utils' own cases)", () => {
  const info = (url: string, headers: Record<string, string> = {}, authUser?: string) => {
    const got = remoteIdInfo(url, headers, authUser);
    return {
      user: got.user?.toString('latin1'),
      host: got.host.toString('latin1'),
      port: got.port,
      path: got.path?.toString('latin1'),
      headers: got.headers.map(([name, value]) => [name.toString('latin1'), value.toString('latin1')]),
    };
  };
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('host, port and path', () => {
    assert.deepEqual(info('http://host'), { user: undefined, host: 'host', port: 'default', path: '/', headers: [] });
    assert.deepEqual(info('https://host').port, 'default');
    assert.deepEqual(info('http://host:5984').port, 'default');
    assert.deepEqual(info('https://host:5984').port, 5984);
    assert.deepEqual(info('http://host:1').port, 1);
    assert.deepEqual(info('https://host:2').port, 2);
    assert.deepEqual(info('http://host/a/b').path, '/a/b/');
    assert.deepEqual(info('http://host/a?q=1').path, '/a?q=1');
    assert.deepEqual(info('http://HOST/D%2Fb').host, 'HOST');
    assert.deepEqual(info('http://HOST/D%2Fb').path, '/D%2Fb/');
  });

  it('the user: auth.basic, then the URL, then the header; never a password', () => {
    assert.equal(info('http://user:pass@host').user, 'user');
    assert.equal(info('http://user:pass@host:3').port, 3);
    assert.equal(info('http://host', { Authorization: basic('user', 'pass') }).user, 'user');
    assert.equal(info('http://user1:pass1@host', { Authorization: basic('user2', 'pass2') }).user, 'user1');
    assert.equal(info('http://user1:pass1@host', {}, 'user3').user, 'user3');
    assert.deepEqual(info('http://host', { Authorization: 'Basic bad' }), {
      user: undefined,
      host: 'host',
      port: 'default',
      path: '/',
      headers: [],
    });
    assert.deepEqual(info('http://host', { h: 'v', AuThorization: basic('user', 'pass') }).headers, [['h', 'v']]);
    assert.equal(info('http://host', { Authorization: `bAsIc ${Buffer.from('u:p').toString('base64')}` }).user, 'u');
    // Not Basic: the header stays (and the list is ordered by lower-cased name).
    assert.deepEqual(info('http://host', { Z: '1', Authorization: 'Bearer x', b: '2' }).headers, [
      ['Authorization', 'Bearer x'],
      ['b', '2'],
      ['Z', '1'],
    ]);
    // Without one, by name as given (bytes: upper case first).
    assert.deepEqual(info('http://host', { b: '2', Z: '1' }).headers, [
      ['Z', '1'],
      ['b', '2'],
    ]);
  });

  it('the defaults are left out only when unchanged', () => {
    assert.deepEqual(info('http://host', { Accept: 'application/json' }).headers, []);
    assert.deepEqual(info('http://host', { Accept: 'text/plain' }).headers, [['Accept', 'text/plain']]);
    assert.deepEqual(info('http://host', { 'User-Agent': 'CouchDB-Replicator/3.5.0' }).headers, []);
  });
});

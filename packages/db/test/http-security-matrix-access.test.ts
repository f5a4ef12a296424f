/**
 * The route-walking access matrix's per-document dimension: every database route, every verb,
 * on an access-enabled database, asked by callers who may not read a document (another user, a
 * member of another role, anonymous), with requests built to draw it out. No answer may carry
 * another user's document: its id (unless the request named it), its revisions (unless the
 * request named them), its body, its attachment's bytes or digest, its `_local` checkpoint.
 * Writes must leave it as it was. The walk covers the route table itself (`routes.list()`), so
 * an endpoint added later is walked too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import routes from '../src/http/routes.js';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

const DB = 'matrix-access';
const SECRET = 'TOP-SECRET-VALUE';
const ATTACHMENT = 'ATTACHMENT-SECRET-BYTES';
const CHECKPOINT = 'CHECKPOINT-SECRET';
const TEAM_SECRET = 'TEAM-SECRET-VALUE';

type Caller = 'bob' | 'carol' | 'anonymous';
const AUTH: Record<Caller, false | string> = {
  bob: basic('bob', 'b'),
  carol: basic('carol', 'c'),
  anonymous: false,
};

describe('the access matrix of an access-enabled database (every route × callers who may not read)', () => {
  let t: TestServer;
  let secretRev: string;
  let teamRev: string;
  let digest: string;

  before(async () => {
    t = await startTestServer();
    await createUser(t, 'alice', 'a');
    await createUser(t, 'bob', 'b');
    await createUser(t, 'carol', 'c', ['team']);
    await t.request('PUT', `/${DB}?access=true`);
    await t.request('PUT', `/${DB}/_security`, {
      body: { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } },
    });
    const alice = basic('alice', 'a');
    const made = await t.request('PUT', `/${DB}/alice-secret`, {
      auth: alice,
      body: { secret: SECRET, _access: ['alice'] },
    });
    const att = await t.request('PUT', `/${DB}/alice-secret/secret.txt?rev=${made.json.rev}`, {
      auth: alice,
      body: ATTACHMENT,
      headers: { 'content-type': 'text/plain' },
    });
    secretRev = att.json.rev;
    const stub = (await t.request('GET', `/${DB}/alice-secret`, { auth: alice })).json._attachments['secret.txt'];
    digest = stub.digest;
    await t.request('PUT', `/${DB}/_local/alice-cp`, { auth: alice, body: { c: CHECKPOINT, _access: ['alice'] } });
    teamRev = (
      await t.request('PUT', `/${DB}/team-doc`, {
        auth: basic('carol', 'c'),
        body: { s: TEAM_SECRET, _access: ['team'] },
      })
    ).json.rev;
    await t.request('PUT', `/${DB}/_design/app`, {
      body: {
        views: { v: { map: 'function (d) { emit(d._id, d.secret || d.s || null) }', reduce: '_count' } },
        shows: { f: 'function (doc) { return JSON.stringify(doc) }' },
        lists: { f: 'function () { var r; while ((r = getRow())) send(JSON.stringify(r)) }' },
        updates: { f: 'function (doc) { return [null, JSON.stringify(doc)] }' },
        filters: { f: 'function () { return true }' },
      },
    });
  });
  after(() => t.close());

  /** The values a caller may not see (the team's are carol's to see). */
  const secretsFor = (caller: Caller): string[] => [
    'alice-secret',
    secretRev.slice(secretRev.indexOf('-') + 1),
    SECRET,
    ATTACHMENT,
    Buffer.from(ATTACHMENT).toString('base64'),
    digest,
    'alice-cp',
    CHECKPOINT,
    ...(caller === 'carol' ? [] : ['team-doc', teamRev.slice(teamRev.indexOf('-') + 1), TEAM_SECRET]),
  ];

  /** The path of a route pattern, its parameters filled to aim at the secret document. */
  function pathOf(pattern: string): string {
    const local = pattern.includes('/_local/');
    const design = pattern.includes('/_design/') || pattern.includes('/_compact/');
    return pattern
      .replace(':db', DB)
      .replace(':docid', local ? 'alice-cp' : design ? 'app' : 'alice-secret')
      .replace(':viewddoc', 'app')
      .replace(':ddoc', 'app')
      .replace(':view', 'v')
      .replace(':func', 'f')
      .replace(':type', 'json')
      .replace(':name', 'idx')
      .replace('*attachment', 'secret.txt')
      .replace('*rest', 'alice-secret');
  }

  /** A request body built to draw the secret out of each endpoint. */
  function bodyOf(endpoint: string, caller: string): unknown {
    switch (endpoint) {
      case 'bulk#get':
        return { docs: [{ id: 'alice-secret' }, { id: 'alice-secret', rev: secretRev }, { id: 'team-doc' }] };
      case 'bulk#revsDiff':
      case 'bulk#missingRevs':
        return { 'alice-secret': [secretRev, '1-abc'], 'team-doc': [teamRev] };
      case 'bulk#docs':
        return {
          docs: [
            { _id: 'alice-secret', _rev: secretRev, _access: [caller] },
            { _id: 'team-doc', _access: [caller] },
          ],
        };
      case 'all_docs#query':
      case 'views#query':
        return { keys: ['alice-secret', 'team-doc'], include_docs: true };
      case 'local_docs#query':
        return { keys: ['_local/alice-cp'], include_docs: true };
      case 'all_docs#queries':
      case 'design_docs#queries':
      case 'local_docs#queries':
      case 'views#queries':
        return { queries: [{ include_docs: true }, { keys: ['alice-secret', 'team-doc'] }] };
      case 'changes#query':
        return { doc_ids: ['alice-secret', 'team-doc'], selector: {} };
      case 'mango#find':
      case 'mango#explain':
        return { selector: {}, execution_stats: true };
      case 'documents#create':
        return { _id: 'alice-secret', _access: [caller] };
      case 'attachments#update':
        return 'overwritten';
      default:
        return { _access: [caller], x: 1 };
    }
  }

  /** Query strings that ask for the most each reading endpoint can give. */
  const QUERY: Record<string, string> = {
    'documents#show': '?revs=true&revs_info=true&conflicts=true&deleted_conflicts=true&open_revs=all&local_seq=true',
    'all_docs#index': '?include_docs=true&conflicts=true',
    'local_docs#index': '?include_docs=true',
    'design_docs#index': '?include_docs=true',
    'changes#index': '?include_docs=true&style=all_docs&conflicts=true&removed=true',
    'views#show': '?include_docs=true&reduce=false',
    'maintenance#purgedInfos': '',
  };

  it('no answer reveals the document, its id, revisions, attachment or checkpoint; writes change nothing', async () => {
    const leaks: string[] = [];
    let asked = 0;
    for (const route of routes.list()) {
      if (!route.path.startsWith('/:db')) continue;
      const endpoint = `${route.handler}#${route.action}`;
      const verbs = route.verb === '' ? ['PATCH'] : route.verb.split('|');
      for (const verb of verbs) {
        // Creating or deleting the database is a server admin's (walked by http-security-matrix).
        if (endpoint === 'databases#create' || endpoint === 'databases#destroy') continue;
        for (const caller of ['bob', 'carol', 'anonymous'] as const) {
          const path = `${pathOf(route.path)}${verb === 'GET' ? (QUERY[endpoint] ?? '') : ''}`;
          const body = verb === 'GET' || verb === 'HEAD' || verb === 'DELETE' ? undefined : bodyOf(endpoint, caller);
          const headers: Record<string, string> = {};
          if (verb === 'COPY') headers.destination = `copy-${caller}`;
          if (endpoint === 'attachments#update') headers['content-type'] = 'text/plain';
          if (verb === 'DELETE' && !path.includes('?')) {
            // A delete naming the current revision, the strongest form.
            const target = path.includes('_local') ? '' : `?rev=${secretRev}`;
            asked++;
            const r = await t.request(verb, `${path}${target}`, { auth: AUTH[caller], headers });
            check(leaks, caller, verb, `${path}${target}`, undefined, r.text, r.headers);
            continue;
          }
          asked++;
          const r = await t.request(verb, path, {
            auth: AUTH[caller],
            headers,
            ...(body === undefined ? {} : { body }),
          });
          check(leaks, caller, verb, path, body, r.text, r.headers);
          if (r.status >= 500 && r.status !== 501) leaks.push(`${caller} ${verb} ${path}: a ${r.status} ${r.text}`);
        }
      }
    }
    assert.ok(asked > 300, `walked ${asked} requests`);
    assert.deepEqual(leaks, []);
    // Nothing of alice's changed, and she (and an admin) still read it all.
    const alice = basic('alice', 'a');
    const doc = await t.request('GET', `/${DB}/alice-secret`, { auth: alice });
    assert.equal(doc.status, 200, doc.text);
    assert.deepEqual([doc.json._rev, doc.json.secret], [secretRev, SECRET]);
    assert.equal((await t.request('GET', `/${DB}/alice-secret/secret.txt`, { auth: alice })).text, ATTACHMENT);
    assert.equal((await t.request('GET', `/${DB}/_local/alice-cp`, { auth: alice })).json.c, CHECKPOINT);
    const team = await t.request('GET', `/${DB}/team-doc`, { auth: basic('carol', 'c') });
    assert.deepEqual([team.json._rev, team.json.s], [teamRev, TEAM_SECRET]);
    // The probes would have seen a leak: the same walk's reads show the secrets to alice.
    assert.ok((await t.request('GET', `/${DB}/_changes?include_docs=true`, { auth: alice })).text.includes(SECRET));
    assert.ok(
      (await t.request('GET', `/${DB}/_design/app/_view/v?reduce=false`, { auth: alice })).text.includes(SECRET),
    );
  });

  function check(
    leaks: string[],
    caller: Caller,
    verb: string,
    path: string,
    body: unknown,
    text: string,
    headers: Headers,
  ): void {
    const asked = `${decodeURIComponent(path)} ${body === undefined ? '' : JSON.stringify(body)}`;
    const answered = `${text} ${[...headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n')}`;
    for (const secret of secretsFor(caller)) {
      // Echoing what the caller named reveals nothing they did not have.
      if (asked.includes(secret)) continue;
      if (answered.includes(secret))
        leaks.push(`${caller} ${verb} ${path}: answer holds ${secret}: ${text.slice(0, 300)}`);
    }
  }
});

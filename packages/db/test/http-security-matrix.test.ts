/**
 * The access matrix recorded from CouchDB 3.5 (docs/auth.md): every caller class × operation,
 * for each security object of the recording. Classes per setup are written out as recorded, not
 * computed by the code under test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, startTestServer, type Reply, type TestServer } from './support/server.js';
import { basic, createUser, login } from './support/users.js';

type Caller = 'admin' | 'anonymous' | 'alice' | 'bob' | 'carol' | 'dave' | 'eve';
type Class = 'server' | 'dbAdmin' | 'member' | 'anonMember' | 'nonMember' | 'anonNonMember';

const ROLES: Record<string, string[]> = { alice: [], bob: ['R_read'], carol: [], dave: ['R_adm'], eve: [] };
const CALLERS: Caller[] = ['admin', 'anonymous', 'alice', 'bob', 'carol', 'dave', 'eve'];

const SETUPS: { name: string; security?: object; classes: Record<Exclude<Caller, 'admin'>, Class> }[] = [
  {
    name: 'A: admins {names:[carol], roles:[R_adm]}, members {names:[alice], roles:[R_read]}',
    security: { admins: { names: ['carol'], roles: ['R_adm'] }, members: { names: ['alice'], roles: ['R_read'] } },
    classes: {
      anonymous: 'anonNonMember',
      alice: 'member',
      bob: 'member',
      carol: 'dbAdmin',
      dave: 'dbAdmin',
      eve: 'nonMember',
    },
  },
  {
    name: 'B: admins {names:[carol]}, members {roles:[R_read]}',
    security: { admins: { names: ['carol'] }, members: { roles: ['R_read'] } },
    classes: {
      anonymous: 'anonNonMember',
      alice: 'nonMember',
      bob: 'member',
      carol: 'dbAdmin',
      dave: 'nonMember',
      eve: 'nonMember',
    },
  },
  {
    name: 'C: admins {roles:[R_adm]}, members empty (public)',
    security: { admins: { roles: ['R_adm'] }, members: { names: [], roles: [] } },
    classes: {
      anonymous: 'anonMember',
      alice: 'member',
      bob: 'member',
      carol: 'member',
      dave: 'dbAdmin',
      eve: 'member',
    },
  },
  {
    name: 'a fresh database (admin only)',
    classes: {
      anonymous: 'anonNonMember',
      alice: 'nonMember',
      bob: 'nonMember',
      carol: 'nonMember',
      dave: 'nonMember',
      eve: 'nonMember',
    },
  },
  {
    name: 'D: admins {names:[carol], roles:[R_adm]}, readers {names:[alice], roles:[R_read]}',
    security: { admins: { names: ['carol'], roles: ['R_adm'] }, readers: { names: ['alice'], roles: ['R_read'] } },
    classes: {
      anonymous: 'anonNonMember',
      alice: 'member',
      bob: 'member',
      carol: 'dbAdmin',
      dave: 'dbAdmin',
      eve: 'nonMember',
    },
  },
  {
    name: 'E: members {names:[alice, eve]}, no admins',
    security: { members: { names: ['alice', 'eve'] } },
    classes: {
      anonymous: 'anonNonMember',
      alice: 'member',
      bob: 'nonMember',
      carol: 'nonMember',
      dave: 'nonMember',
      eve: 'member',
    },
  },
];

const NOT_AUTHORIZED = [401, 'unauthorized', 'You are not authorized to access this db.'] as const;
const NOT_ALLOWED = [403, 'forbidden', 'You are not allowed to access this db.'] as const;
const NOT_SERVER_ADMIN = [401, 'unauthorized', 'You are not a server admin.'] as const;
const NOT_SERVER_OR_DB_ADMIN = [401, 'unauthorized', 'You are not a server or db admin.'] as const;
const ADMIN_ONLY = { members: { roles: ['_admin'] }, admins: { roles: ['_admin'] } };
type Expect = number | readonly [number, string, string];

const memberOnly =
  (ok: number) =>
  (c: Class): Expect =>
    c === 'nonMember' ? NOT_ALLOWED : c === 'anonNonMember' ? NOT_AUTHORIZED : ok;
const dbAdminWrite =
  (ok: number) =>
  (c: Class): Expect => {
    if (c === 'member') return [403, 'forbidden', 'You are not a db or server admin.'];
    if (c === 'anonMember') return [401, 'unauthorized', 'You are not a db or server admin.'];
    return memberOnly(ok)(c);
  };
const maintenance = (c: Class): Expect =>
  c === 'member' || c === 'anonMember' ? NOT_SERVER_OR_DB_ADMIN : memberOnly(202)(c);
const serverAdminOnly =
  (ok: number) =>
  (c: Class): Expect =>
    c === 'server' ? ok : NOT_SERVER_ADMIN;

interface Op {
  name: string;
  expect: (c: Class) => Expect;
  run: (req: Req, db: string, who: string, security: object) => Promise<Reply>;
}
type Req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;

const OPS: Op[] = [
  { name: 'GET db', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}`) },
  { name: 'HEAD db', expect: (c) => statusOnly(memberOnly(200)(c)), run: (r, db) => r('HEAD', `/${db}`) },
  { name: 'GET doc', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}/seed`) },
  { name: '_all_docs', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}/_all_docs`) },
  { name: '_changes', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}/_changes`) },
  { name: 'view', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}/_design/app/_view/all`) },
  { name: '_find', expect: memberOnly(200), run: (r, db) => r('POST', `/${db}/_find`, { selector: {} }) },
  {
    name: '_bulk_get',
    expect: memberOnly(200),
    run: (r, db) => r('POST', `/${db}/_bulk_get`, { docs: [{ id: 'seed' }] }),
  },
  { name: 'GET _security', expect: memberOnly(200), run: (r, db) => r('GET', `/${db}/_security`) },
  { name: 'PUT doc', expect: memberOnly(201), run: (r, db, who) => r('PUT', `/${db}/put-${who}`, { a: 1 }) },
  { name: 'POST doc', expect: memberOnly(201), run: (r, db) => r('POST', `/${db}`, { a: 1 }) },
  {
    name: 'DELETE doc',
    expect: memberOnly(200),
    run: async (r, db, who) => r('DELETE', `/${db}/del-${who}?rev=${(await adminGet(db, `del-${who}`))._rev}`),
  },
  {
    name: '_bulk_docs',
    expect: memberOnly(201),
    run: (r, db, who) => r('POST', `/${db}/_bulk_docs`, { docs: [{ _id: `bulk-${who}` }] }),
  },
  {
    name: 'PUT attachment',
    expect: memberOnly(201),
    run: (r, db, who) => r('PUT', `/${db}/att-${who}/a.txt`, 'hello', { 'content-type': 'text/plain' }),
  },
  { name: 'PUT _local', expect: memberOnly(201), run: (r, db, who) => r('PUT', `/${db}/_local/l-${who}`, { a: 1 }) },
  { name: 'PUT design doc', expect: dbAdminWrite(201), run: (r, db, who) => r('PUT', `/${db}/_design/d-${who}`, {}) },
  {
    name: 'PUT _security',
    expect: dbAdminWrite(200),
    run: (r, db, _who, security) => r('PUT', `/${db}/_security`, security),
  },
  { name: '_compact', expect: maintenance, run: (r, db) => r('POST', `/${db}/_compact`, {}) },
  { name: '_view_cleanup', expect: maintenance, run: (r, db) => r('POST', `/${db}/_view_cleanup`, {}) },
  { name: '_purge', expect: serverAdminOnly(201), run: (r, db) => r('POST', `/${db}/_purge`, {}) },
  { name: 'PUT db', expect: serverAdminOnly(201), run: (r, db, who) => r('PUT', `/${db}-new-${who}`) },
  { name: 'DELETE db', expect: serverAdminOnly(200), run: (r, db) => r('DELETE', `/${db}-scratch`) },
];

function statusOnly(e: Expect): Expect {
  return typeof e === 'number' ? e : e[0];
}

let t: TestServer;
async function adminGet(db: string, id: string): Promise<Record<string, string>> {
  return (await t.request('GET', `/${db}/${id}`)).json;
}

describe('the _security access matrix (CouchDB 3.5)', () => {
  const cookies: Record<string, string> = {};
  before(async () => {
    t = await startTestServer();
    for (const [name, roles] of Object.entries(ROLES)) {
      await createUser(t, name, `${name}-pw`, roles);
      cookies[name] = await login(t, name, `${name}-pw`);
    }
  });
  after(() => t.close());

  for (const [index, setup] of SETUPS.entries()) {
    for (const via of index === 0 ? (['basic', 'cookie'] as const) : (['basic'] as const)) {
      it(`${setup.name} (${via})`, async () => {
        const db = `m${index}-${via}`;
        assert.equal((await t.request('PUT', `/${db}`)).status, 201);
        assert.equal((await t.request('PUT', `/${db}-scratch`)).status, 201);
        await t.request('PUT', `/${db}/seed`, { body: { x: 1 } });
        await t.request('PUT', `/${db}/_design/app`, {
          body: { views: { all: { map: 'function (d) { emit(d._id, 1) }' } } },
        });
        for (const caller of CALLERS) await t.request('PUT', `/${db}/del-${caller}`, { body: {} });
        if (setup.security !== undefined) {
          assert.equal((await t.request('PUT', `/${db}/_security`, { body: setup.security })).status, 200);
        }
        const failures: string[] = [];
        for (const caller of CALLERS) {
          const cls: Class = caller === 'admin' ? 'server' : setup.classes[caller];
          const headers: Record<string, string> = {};
          let auth: false | string = false;
          if (caller === 'admin') auth = AUTH;
          else if (caller !== 'anonymous') {
            if (via === 'cookie') headers.cookie = `AuthSession=${cookies[caller]}`;
            else auth = basic(caller, `${caller}-pw`);
          }
          const req: Req = (method, path, body, extra) =>
            t.request(method, path, {
              auth,
              headers: { ...headers, ...extra },
              ...(body === undefined ? {} : { body }),
            });
          for (const op of OPS) {
            const expected = op.expect(cls);
            const r = await op.run(req, db, caller, setup.security ?? ADMIN_ONLY);
            const got: Expect = typeof expected === 'number' ? r.status : [r.status, r.json?.error, r.json?.reason];
            if (JSON.stringify(got) !== JSON.stringify(expected)) {
              failures.push(
                `${caller} (${cls}) ${op.name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)} ${r.text}`,
              );
            }
          }
        }
        assert.deepEqual(failures, []);
      });
    }
  }
});

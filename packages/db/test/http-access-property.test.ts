/**
 * Per-document access against a reference model: random writers (users, a role member, an
 * admin), grants, narrowings and deletions on an access-enabled database; after each sequence,
 * for every user, `_all_docs`, `_changes` (with and without `removed=true`), a view and `_find`
 * must equal what the model computes from the documents' `_access`, and every write must have
 * been allowed or refused as the model says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

type User = 'u1' | 'u2' | 'u3';
type Writer = User | 'admin';
const USERS: User[] = ['u1', 'u2', 'u3'];
const ROLES: Record<User, string[]> = { u1: [], u2: [], u3: ['team'] };
const ENTRIES = ['u1', 'u2', 'u3', 'team', '_users'];
const IDS = ['d1', 'd2', 'd3', 'd4'];

const principalsOf = (user: User): string[] => [user, '_users', ...ROLES[user]];
const meets = (user: User, readers: readonly string[]) => readers.some((r) => principalsOf(user).includes(r));

type Op =
  | { kind: 'write'; writer: Writer; id: string; access: string[] }
  | { kind: 'delete'; writer: Writer; id: string };

/** The model: each document's current `_access`, whether deleted, and every principal it ever had. */
interface ModelDoc {
  access: string[];
  deleted: boolean;
  ever: Set<string>;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    writer: fc.constantFrom<Writer>('u1', 'u2', 'u3', 'admin'),
    id: fc.constantFrom(...IDS),
    access: fc.uniqueArray(fc.constantFrom(...ENTRIES), { maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    writer: fc.constantFrom<Writer>('u1', 'u2', 'u3', 'admin'),
    id: fc.constantFrom(...IDS),
  }),
);

describe('per-document access against a reference model', () => {
  let t: TestServer;
  let n = 0;
  before(async () => {
    t = await startTestServer();
    for (const user of USERS) await createUser(t, user, 'pw', ROLES[user]);
  });
  after(() => t.close());

  const auth = (writer: Writer) => (writer === 'admin' ? {} : { auth: basic(writer, 'pw') });

  it('every user reads exactly what the model says, and writes are refused exactly when it says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const db = `prop${++n}`;
        await t.request('PUT', `/${db}?access=true`);
        await t.request('PUT', `/${db}/_security`, {
          body: { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } },
        });
        await t.request('PUT', `/${db}/_design/app`, {
          body: { views: { ids: { map: 'function (d) { emit(d._id) }' } } },
        });
        const model = new Map<string, ModelDoc>();
        for (const [i, step] of ops.entries()) {
          const current = model.get(step.id);
          const admin = step.writer === 'admin';
          const currentRev = (await t.request('GET', `/${db}/_all_docs?keys=["${step.id}"]`)).json.rows[0]?.value?.rev;
          if (step.kind === 'write') {
            const allowed =
              admin ||
              ((current === undefined || meets(step.writer as User, current.access)) &&
                meets(step.writer as User, step.access));
            const body: Record<string, unknown> = { n: i, _access: step.access };
            if (currentRev !== undefined && current !== undefined && !current.deleted) body._rev = currentRev;
            const r = await t.request('PUT', `/${db}/${step.id}`, { ...auth(step.writer), body });
            assert.equal(r.status, allowed ? 201 : 403, `${JSON.stringify(step)} ${r.text}`);
            if (allowed) {
              const ever = current?.ever ?? new Set<string>();
              for (const entry of step.access) ever.add(entry);
              model.set(step.id, { access: step.access, deleted: false, ever });
            }
          } else {
            if (current === undefined || current.deleted) continue;
            const allowed = admin || meets(step.writer as User, current.access);
            const r = await t.request('DELETE', `/${db}/${step.id}?rev=${currentRev}`, auth(step.writer));
            assert.equal(r.status, allowed ? 200 : 403, `${JSON.stringify(step)} ${r.text}`);
            if (allowed) current.deleted = true;
          }
        }
        for (const user of USERS) {
          const as = { auth: basic(user, 'pw') };
          const readable = [...model.entries()].filter(([, d]) => meets(user, d.access));
          const live = readable
            .filter(([, d]) => !d.deleted)
            .map(([id]) => id)
            .sort();
          const changed = readable.map(([id]) => id).sort();
          const removed = [...model.entries()]
            .filter(([, d]) => !meets(user, d.access) && meets(user, [...d.ever]))
            .map(([id]) => id)
            .sort();
          const rowIds = (rows: { id: string }[]) => rows.map((row) => row.id);
          const allDocs = (await t.request('GET', `/${db}/_all_docs`, as)).json;
          assert.deepEqual([rowIds(allDocs.rows), allDocs.total_rows], [live, live.length], `${user} _all_docs`);
          const changes = (await t.request('GET', `/${db}/_changes`, as)).json.results;
          assert.deepEqual(rowIds(changes).sort(), changed, `${user} _changes`);
          const withRemoved = (await t.request('GET', `/${db}/_changes?removed=true`, as)).json.results;
          const lost = withRemoved.filter((row: { removed?: boolean }) => row.removed === true);
          assert.deepEqual(rowIds(lost).sort(), removed, `${user} _changes?removed=true`);
          const view = (await t.request('GET', `/${db}/_design/app/_view/ids`, as)).json;
          assert.deepEqual([rowIds(view.rows), view.total_rows], [live, live.length], `${user} view`);
          const found = (await t.request('POST', `/${db}/_find`, { ...as, body: { selector: {}, fields: ['_id'] } }))
            .json;
          assert.deepEqual(
            found.docs.map((doc: { _id: string }) => doc._id),
            live,
            `${user} _find`,
          );
        }
      }),
      { numRuns: 12 },
    );
  });
});

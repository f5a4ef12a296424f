import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * Random sequences of creates, updates, deletes, stale updates and replicated (`new_edits:false`)
 * branches against the real server; afterwards doc reads, `open_revs=all`, `_all_docs`,
 * `_changes` and the db counters must agree with a small in-memory model of revision trees.
 */

type Op =
  | { kind: 'write'; id: string; value: number }
  | { kind: 'delete'; id: string }
  | { kind: 'stale'; id: string }
  | { kind: 'branch'; id: string; depth: number; deleted: boolean; salt: string };

interface Node {
  parent: string | null;
  deleted: boolean;
}

/** The model: every rev of every doc with its parent; leaves and winner derived. */
class Model {
  docs = new Map<string, Map<string, Node>>();

  add(id: string, rev: string, parent: string | null, deleted: boolean): void {
    let revs = this.docs.get(id);
    if (revs === undefined) this.docs.set(id, (revs = new Map()));
    if (!revs.has(rev)) revs.set(rev, { parent, deleted });
  }

  leaves(id: string): { rev: string; deleted: boolean }[] {
    const revs = this.docs.get(id);
    if (revs === undefined) return [];
    const parents = new Set([...revs.values()].map((n) => n.parent));
    return [...revs].filter(([rev]) => !parents.has(rev)).map(([rev, n]) => ({ rev, deleted: n.deleted }));
  }

  winner(id: string): { rev: string; deleted: boolean } | undefined {
    return this.leaves(id).sort(byWinnerOrder)[0];
  }
}

const pos = (rev: string) => Number(rev.slice(0, rev.indexOf('-')));
const idBytes = (rev: string) => {
  const id = rev.slice(rev.indexOf('-') + 1);
  return /^[0-9a-f]{32}$/.test(id) ? Buffer.from(id, 'hex') : Buffer.from(id);
};
/** CouchDB's winner order: live first, then generation, then rev id bytes, highest first. */
function byWinnerOrder(a: { rev: string; deleted: boolean }, b: { rev: string; deleted: boolean }): number {
  if (a.deleted !== b.deleted) return a.deleted ? 1 : -1;
  if (pos(a.rev) !== pos(b.rev)) return pos(b.rev) - pos(a.rev);
  return Buffer.compare(idBytes(b.rev), idBytes(a.rev));
}

const ids = ['a', 'b', 'Z', 'é', '\u{1F600}'];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    id: fc.constantFrom(...ids),
    value: fc.integer({ min: 0, max: 5 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...ids) }),
  fc.record({ kind: fc.constant('stale' as const), id: fc.constantFrom(...ids) }),
  fc.record({
    kind: fc.constant('branch' as const),
    id: fc.constantFrom(...ids),
    depth: fc.integer({ min: 1, max: 3 }),
    deleted: fc.boolean(),
    salt: fc.stringMatching(/^[a-z]{1,3}$/),
  }),
);

describe('documents agree with a model of revision trees', () => {
  let t: TestServer;
  let run = 0;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('after random edits, reads, _all_docs and _changes match the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const db = `/m${run++}`;
        assert.equal((await t.request('PUT', db)).status, 201);
        const model = new Model();
        let seq = 0;
        for (const op of ops) seq += await apply(t, db, model, op);
        await check(t, db, model, seq);
      }),
      { numRuns: 40 },
    );
  });
});

/** Applies one op to the server and the model; returns how many changes it made (0 or 1). */
async function apply(t: TestServer, db: string, model: Model, op: Op): Promise<number> {
  const path = `${db}/${encodeURIComponent(op.id)}`;
  const top = model.winner(op.id);
  switch (op.kind) {
    case 'write': {
      const body = top !== undefined && !top.deleted ? { _rev: top.rev, value: op.value } : { value: op.value };
      const r = await t.request('PUT', path, { body });
      assert.equal(r.status, 201, r.text);
      const parent = top === undefined ? null : top.rev; // a tombstone is continued, not branched
      assert.equal(pos(r.json.rev), (parent === null ? 0 : pos(parent)) + 1);
      model.add(op.id, r.json.rev, parent, false);
      return 1;
    }
    case 'delete': {
      const r = await t.request('DELETE', `${path}?rev=${top?.rev ?? '1-x'}`);
      if (top === undefined || top.deleted) {
        assert.equal(r.status, 404);
        return 0;
      }
      assert.equal(r.status, 200, r.text);
      model.add(op.id, r.json.rev, top.rev, true);
      return 1;
    }
    case 'stale': {
      const revs = model.docs.get(op.id);
      const leaves = new Set(model.leaves(op.id).map((l) => l.rev));
      const old = revs === undefined ? undefined : [...revs.keys()].find((rev) => !leaves.has(rev));
      if (old === undefined) return 0;
      const r = await t.request('PUT', path, { body: { _rev: old, value: -1 } });
      assert.equal(r.status, 409);
      return 0;
    }
    case 'branch': {
      // A replicated path of `depth` new revs on top of a random existing rev (or a new root).
      const revs = model.docs.get(op.id);
      const base =
        revs === undefined || op.salt.length === 1 ? undefined : [...revs.keys()][op.salt.length % revs.size];
      const start = (base === undefined ? 0 : pos(base)) + op.depth;
      const newIds = Array.from({ length: op.depth }, (_, i) => `${op.salt}${start - i}`);
      const chain = base === undefined ? newIds : [...newIds, base.slice(base.indexOf('-') + 1)];
      const body = { _revisions: { start, ids: chain }, _deleted: op.deleted, salt: op.salt };
      const known = revs?.has(`${start}-${newIds[0]}`) ?? false;
      const r = await t.request('PUT', `${path}?new_edits=false`, { body });
      // A write of a deletion answers 200, as CouchDB does.
      assert.equal(r.status, op.deleted ? 200 : 201, r.text);
      let parent = base ?? null;
      for (let i = op.depth - 1; i >= 0; i--) {
        const rev = `${start - i}-${newIds[i]}`;
        model.add(op.id, rev, parent, i === 0 ? op.deleted : false);
        parent = rev;
      }
      return known ? 0 : 1;
    }
  }
}

async function check(t: TestServer, db: string, model: Model, seq: number): Promise<void> {
  const live = [...model.docs.keys()].filter((id) => !model.winner(id)!.deleted);
  const codePointOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

  for (const id of model.docs.keys()) {
    const top = model.winner(id)!;
    const path = `${db}/${encodeURIComponent(id)}`;
    const got = await t.request('GET', `${path}?conflicts=true&deleted_conflicts=true`);
    if (top.deleted) {
      assert.deepEqual([got.status, got.json.reason], [404, 'deleted'], id);
    } else {
      assert.equal(got.json._rev, top.rev, id);
      const losers = model
        .leaves(id)
        .filter((l) => l.rev !== top.rev)
        .sort(byWinnerOrder);
      assert.deepEqual(
        got.json._conflicts ?? [],
        losers.filter((l) => !l.deleted).map((l) => l.rev),
        id,
      );
      assert.deepEqual(
        got.json._deleted_conflicts ?? [],
        losers.filter((l) => l.deleted).map((l) => l.rev),
        id,
      );
    }
    // JSON asked for: open_revs answers multipart/mixed to a client that takes any type (as CouchDB).
    const all = await t.request('GET', `${path}?open_revs=all`, { headers: { accept: 'application/json' } });
    const leafRevs = all.json.map((x: { ok: { _rev: string } }) => x.ok._rev).sort();
    assert.deepEqual(
      leafRevs,
      model
        .leaves(id)
        .map((l) => l.rev)
        .sort(),
      id,
    );
  }

  const allDocs = (await t.request('GET', `${db}/_all_docs`)).json;
  assert.equal(allDocs.total_rows, live.length);
  assert.deepEqual(
    allDocs.rows.map((r: { id: string; value: { rev: string } }) => [r.id, r.value.rev]),
    live.sort(codePointOrder).map((id) => [id, model.winner(id)!.rev]),
  );

  const changes = (await t.request('GET', `${db}/_changes`)).json;
  const rows = changes.results as { seq: number; id: string; changes: { rev: string }[]; deleted?: boolean }[];
  assert.equal(rows.length, model.docs.size);
  assert.deepEqual(
    rows.map((r) => r.seq),
    [...rows.map((r) => r.seq)].sort((a, b) => a - b),
  );
  for (const row of rows) {
    const top = model.winner(row.id)!;
    assert.equal(row.changes[0]!.rev, top.rev);
    assert.equal(row.deleted === true, top.deleted);
  }
  const info = (await t.request('GET', db)).json;
  assert.equal(info.update_seq, seq);
  assert.equal(changes.last_seq, seq);
  assert.equal(info.doc_count, live.length);
  assert.equal(info.doc_del_count, model.docs.size - live.length);
}

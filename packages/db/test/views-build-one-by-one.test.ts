// An index build from empty whose map functions run natively maps and adds one change at a time
// (src/views/updater/build-one-by-one.ts): its answers are those of the same functions run in the
// sandbox — documents the functions throw on (more than one sandbox batch of them), conflicts,
// deleted and design documents, `local_seq` — and its back-index is right (an update after it
// gives the same answers too).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDivan } from '../src/index.js';
import { compileMapShape } from '../src/views/native-map/map-shape.js';
import { makeTempDir } from './support/tmp-dir.js';

const DOCS = 2600;

/** The same functions as given (run here) and with a statement outside the shape (run in the sandbox). */
function designs(options: Record<string, boolean>) {
  const maps = {
    // Throws on a document without `meta` (a member of undefined): ~1,300 of them.
    nested: "function (doc) { if (doc.kind !== 'skip') emit([doc.meta.group, doc.n], doc.title); }",
    flat: 'function (doc) { emit(doc.n, {t: doc.title, m: doc.meta}); }',
    // Meta members: the document is rendered for these.
    meta: 'function (doc) { emit([doc._id, doc._conflicts], doc._local_seq); }',
    twice: 'function (doc) { if (doc.n === 3) { emit(doc.n, 1); emit(doc.n, 2); } }',
  };
  const here: Record<string, { map: string; reduce?: string }> = {};
  const there: Record<string, { map: string; reduce?: string }> = {};
  for (const [name, map] of Object.entries(maps)) {
    assert.notEqual(compileMapShape(map), undefined, name);
    const boxed = map.replace('{', '{ var unused = 1;');
    assert.equal(compileMapShape(boxed), undefined);
    here[name] = { map, reduce: '_count' };
    there[name] = { map: boxed, reduce: '_count' };
  }
  return {
    names: Object.keys(maps),
    here: { _id: '_design/here', views: here, options },
    there: { _id: '_design/there', views: there, options },
  };
}

const docAt = (i: number, round: number) => ({
  _id: `d${String(i).padStart(5, '0')}`,
  n: (i * 7) % 13,
  title: `t${i}-${round}`,
  ...(i % 2 === 0 ? {} : { meta: i % 7 === 0 ? null : { group: `g${i % 3}` } }),
  ...(i % 11 === 0 ? { kind: 'skip' } : {}),
});

describe('an index build from empty, one change at a time', () => {
  const variants: Record<string, boolean>[] = [{}, { include_design: true, local_seq: true }];
  for (const options of variants) {
    test(`answers as the sandbox's build and update (options ${JSON.stringify(options)})`, async () => {
      const tmp = makeTempDir('divan-one-by-one-');
      const divan = openDivan(tmp.dir);
      try {
        const db = await divan.createDb('one');
        const written = await db.bulkDocs(Array.from({ length: DOCS }, (_, i) => docAt(i, 0)));
        // Conflicts on some documents, and some deleted.
        await db.bulkDocs(
          Array.from({ length: 40 }, (_, k) => ({ ...docAt(k * 13, 9), _rev: '1-conflict' })),
          false,
        );
        await db.bulkDocs(
          Array.from({ length: 30 }, (_, k) => ({
            _id: docAt(k * 17 + 1, 0)._id,
            _rev: written[k * 17 + 1]!.rev,
            _deleted: true,
          })),
        );
        const { names, here, there } = designs(options);
        await db.put(here);
        await db.put(there);
        const compare = async (when: string) => {
          for (const name of names) {
            const a = await db.view('here', name, { reduce: false });
            const b = await db.view('there', name, { reduce: false });
            assert.deepEqual(a.rows, b.rows, `${when}: ${name}`);
            assert.equal(a.total_rows, b.total_rows);
            assert.deepEqual(
              await db.view('here', name, { group: true }),
              await db.view('there', name, { group: true }),
            );
          }
        };
        await compare('built');
        const nested = await db.view('here', 'nested', { reduce: false });
        assert.ok(nested.total_rows !== undefined && nested.total_rows > 0 && nested.total_rows < DOCS / 2);
        // An update of every tenth document (some now throwing, some not): the build's back-index
        // entries are what the update diffs against.
        const current = new Map(written.map((w, i) => [docAt(i, 0)._id, w.rev]));
        const changed = [];
        for (let i = 0; i < DOCS; i += 10) {
          if ((i + 1) % 17 === 1 && (i + 1 - 1) / 17 < 30) continue; // deleted above
          changed.push({
            ...docAt(i + 1, 1),
            _rev: current.get(docAt(i + 1, 0)._id)!,
            ...(i % 20 === 0 ? { meta: { group: 'late' } } : {}),
          });
        }
        const result = await db.bulkDocs(changed);
        assert.ok(result.every((r) => !('error' in r)));
        await compare('updated');
      } finally {
        await divan.close();
        tmp.cleanup();
      }
    });
  }
});

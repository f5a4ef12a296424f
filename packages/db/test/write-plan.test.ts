import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CouchError } from '../src/errors.js';
import { parseJson, type JsonObject } from '../src/json/index.js';
import {
  formatRev,
  newRevId,
  parseRev,
  parseTree,
  serializeTree,
  winner,
  type HashedAttachment,
  type RevNode,
  type RevTree,
} from '../src/revisions/index.js';
import type { DocRecord, DocWrite } from '../src/storage/records.js';
import { digestBytes } from '../src/documents/attachment.js';
import { readDocInput, type DocInput } from '../src/documents/doc-input.js';
import { idsOf, planWrites, type DocCheck, type WriteRequest, type WriteResult } from '../src/documents/write-plan.js';

/**
 * The write planner decides every write's fate (CouchDB's updater: which leaf an edit replaces,
 * what conflicts, what a replicated branch does to the tree and its winner). Each case gives the
 * stored trees, the requests of one batch, and the exact rows and writes the plan must give.
 */

// Literal trees, as in revisions-tree.test.ts: stored live, without a body (`stub`), tombstone.
const n = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: false, stored: true, children });
const stub = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: false, stored: false, children });
const del = (id: string, ...children: RevNode[]): RevNode => ({ id, deleted: true, stored: true, children });
const tree = (pos: number, node: RevNode): RevTree => [{ pos, node }];

const body = (plain: object): JsonObject => parseJson(JSON.stringify(plain)) as JsonObject;
/** A document as a client sends it (special members read as `_bulk_docs` reads them). */
const input = (doc: object): DocInput => readDocInput(parseJson(JSON.stringify(doc)));
const interactive = (...items: [string, object][]): WriteRequest => ({
  items: items.map(([id, doc]) => ({ id, input: input(doc) })),
  newEdits: true,
});
const replicated = (...items: [string, object][]): WriteRequest => ({
  items: items.map(([id, doc]) => ({ id, input: input(doc) })),
  newEdits: false,
});

/** The rev an interactive edit of `parent` (null: a new document) writes: CouchDB's MD5 rev id. */
function next(parent: string | null, content: object, deleted = false, atts: HashedAttachment[] = []): string {
  const from = parent === null ? null : parseRev(parent);
  return formatRev({ pos: (from?.pos ?? 0) + 1, id: newRevId(deleted, from, body(content), atts) });
}
const idOf = (rev: string): string => parseRev(rev).id;

/** A stored record of a tree (what storage hands the planner). */
function stored(id: string, revTree: RevTree): DocRecord {
  const top = winner(revTree)!;
  return { id, seq: 1, rev: formatRev(top), deleted: top.deleted, tree: serializeTree(revTree) };
}

const ok = (id: string, rev: string): WriteResult => ({ ok: true, id, rev });
const conflictRow = (id: string): WriteResult => ({ id, error: 'conflict', reason: 'Document update conflict.' });

/** A write as the test states it: the record's tree as a tree literal. */
interface ShownWrite {
  record: { id: string; rev: string; deleted: boolean; tree: RevTree };
  bodies: { rev: string; body: string }[];
  dropBodies?: string[];
  /** The revisions the write makes non-leaves (their bodies stale until compaction). */
  unleafed?: string[];
  isNew: boolean | undefined;
}

function written(
  id: string,
  winning: { rev: string; deleted?: boolean },
  revTree: RevTree,
  bodies: [rev: string, body: string][],
  options: { isNew: boolean; dropBodies?: string[]; unleafed?: string[] },
): ShownWrite {
  return {
    record: { id, rev: winning.rev, deleted: winning.deleted ?? false, tree: revTree },
    bodies: bodies.map(([rev, text]) => ({ rev, body: text })),
    ...(options.dropBodies === undefined ? {} : { dropBodies: options.dropBodies }),
    ...(options.unleafed === undefined ? {} : { unleafed: options.unleafed }),
    isNew: options.isNew,
  };
}

function shown(write: DocWrite): ShownWrite {
  return { ...write, record: { ...write.record, tree: parseTree(write.record.tree) } } as ShownWrite;
}

interface Case {
  name: string;
  /** The stored documents' trees, by id. */
  records?: Record<string, RevTree>;
  revsLimit?: number;
  requests: WriteRequest[];
  results: WriteResult[][];
  writes: ShownWrite[];
}

function plan(c: Pick<Case, 'records' | 'revsLimit' | 'requests'>, check?: DocCheck) {
  const records = new Map(Object.entries(c.records ?? {}).map(([id, t]) => [id, stored(id, t)]));
  return planWrites(c.requests, records, c.revsLimit ?? 1000, check);
}

// Revisions the cases below write (computed once: the rev id hashes the parent and the body).
const NEW = next(null, { v: 1 });
const ON_A = next('1-a', { v: 2 });
const ON_B = next('2-b', { v: 3 });
const DELETE_A = next('1-a', {}, true);
const DELETE_C = next('2-c', {}, true);
const TOMBSTONE = next(null, {}, true);
const FROM_ZERO = next('0-', { v: 1 });
const NEW_THEN = next(NEW, { v: 2 });

const interactiveCases: Case[] = [
  {
    name: 'a new document: generation 1, its one-rev tree, its body, isNew',
    requests: [interactive(['x', { v: 1 }])],
    results: [[ok('x', NEW)]],
    writes: [written('x', { rev: NEW }, tree(1, n(idOf(NEW))), [[NEW, '{"v":1}']], { isNew: true })],
  },
  {
    name: "an empty new document has CouchDB's own rev id",
    requests: [interactive(['x', {}])],
    results: [[ok('x', '1-967a00dff5e02add41819138abb3284d')]],
    writes: [
      written(
        'x',
        { rev: '1-967a00dff5e02add41819138abb3284d' },
        tree(1, n('967a00dff5e02add41819138abb3284d')),
        [['1-967a00dff5e02add41819138abb3284d', '{}']],
        { isNew: true },
      ),
    ],
  },
  {
    name: 'an update of the winner extends its branch',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _rev: '1-a', v: 2 }])],
    results: [[ok('x', ON_A)]],
    writes: [
      written('x', { rev: ON_A }, tree(1, n('a', n(idOf(ON_A)))), [[ON_A, '{"v":2}']], {
        isNew: false,
        unleafed: ['1-a'],
      }),
    ],
  },
  {
    name: 'a stale rev (not a leaf) is a conflict row, nothing written',
    records: { x: tree(1, n('a', n('b'))) },
    requests: [interactive(['x', { _rev: '1-a', v: 2 }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'a rev the tree does not have is a conflict',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _rev: '3-zzz', v: 2 }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'a losing conflict leaf can be edited; the longer branch then wins',
    records: { x: tree(1, n('a', n('b'), n('c'))) },
    requests: [interactive(['x', { _rev: '2-b', v: 3 }])],
    results: [[ok('x', ON_B)]],
    writes: [
      written('x', { rev: ON_B }, tree(1, n('a', n('b', n(idOf(ON_B))), n('c'))), [[ON_B, '{"v":3}']], {
        isNew: false,
        unleafed: ['2-b'],
      }),
    ],
  },
  {
    name: 'an update naming a tombstone is a conflict',
    records: { x: tree(1, n('a', del('b'))) },
    requests: [interactive(['x', { _rev: '2-b', v: 3 }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'a deleted document is recreated without a rev, on the tombstone’s branch',
    records: { x: tree(1, n('a', del('b'))) },
    requests: [interactive(['x', { v: 3 }])],
    results: [[ok('x', ON_B)]],
    writes: [
      written('x', { rev: ON_B }, tree(1, n('a', del('b', n(idOf(ON_B))))), [[ON_B, '{"v":3}']], {
        isNew: false,
        unleafed: ['2-b'],
      }),
    ],
  },
  {
    name: 'a write without a rev to a live document is a conflict',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { v: 2 }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'a deletion without a rev of a live document is a conflict',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _deleted: true }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'a deletion without a rev of a missing document writes a tombstone',
    requests: [interactive(['x', { _deleted: true }])],
    results: [[ok('x', TOMBSTONE)]],
    writes: [
      written('x', { rev: TOMBSTONE, deleted: true }, tree(1, del(idOf(TOMBSTONE))), [[TOMBSTONE, '{}']], {
        isNew: true,
      }),
    ],
  },
  {
    name: 'a deletion of the winner: the record is deleted',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _rev: '1-a', _deleted: true }])],
    results: [[ok('x', DELETE_A)]],
    writes: [
      written('x', { rev: DELETE_A, deleted: true }, tree(1, n('a', del(idOf(DELETE_A)))), [[DELETE_A, '{}']], {
        isNew: false,
        unleafed: ['1-a'],
      }),
    ],
  },
  {
    name: 'deleting the winner of a conflicted document makes the other live leaf win',
    records: { x: tree(1, n('a', n('b'), n('c'))) },
    requests: [interactive(['x', { _rev: '2-c', _deleted: true }])],
    results: [[ok('x', DELETE_C)]],
    writes: [
      written('x', { rev: '2-b' }, tree(1, n('a', n('b'), n('c', del(idOf(DELETE_C))))), [[DELETE_C, '{}']], {
        isNew: false,
        unleafed: ['2-c'],
      }),
    ],
  },
  {
    name: '"_rev": "0-" on a new document is accepted, hashed with its empty parent',
    requests: [interactive(['x', { _rev: '0-', v: 1 }])],
    results: [[ok('x', FROM_ZERO)]],
    writes: [written('x', { rev: FROM_ZERO }, tree(1, n(idOf(FROM_ZERO))), [[FROM_ZERO, '{"v":1}']], { isNew: true })],
  },
  {
    name: '"_rev": "0-" on an existing document is a conflict',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _rev: '0-', v: 1 }])],
    results: [[conflictRow('x')]],
    writes: [],
  },
  {
    name: 'an update past revs_limit stems the oldest revision and drops its body',
    records: { x: tree(1, n('a', n('b'))) },
    revsLimit: 2,
    requests: [interactive(['x', { _rev: '2-b', v: 3 }])],
    results: [[ok('x', ON_B)]],
    writes: [
      written('x', { rev: ON_B }, tree(2, n('b', n(idOf(ON_B)))), [[ON_B, '{"v":3}']], {
        isNew: false,
        dropBodies: ['1-a'],
        unleafed: ['2-b'],
      }),
    ],
  },
];

const batchCases: Case[] = [
  {
    name: 'one request editing an id twice: the second edit conflicts, even naming the first’s rev',
    requests: [interactive(['x', { v: 1 }], ['x', { _rev: NEW, v: 2 }])],
    results: [[ok('x', NEW), conflictRow('x')]],
    writes: [written('x', { rev: NEW }, tree(1, n(idOf(NEW))), [[NEW, '{"v":1}']], { isNew: true })],
  },
  {
    name: 'a failed edit does not count: a later edit of the id in the same request applies',
    records: { x: tree(1, n('a', n('b'))) },
    requests: [interactive(['x', { _rev: '1-a', v: 2 }], ['x', { _rev: '2-b', v: 3 }])],
    results: [[conflictRow('x'), ok('x', ON_B)]],
    writes: [
      written('x', { rev: ON_B }, tree(1, n('a', n('b', n(idOf(ON_B))))), [[ON_B, '{"v":3}']], {
        isNew: false,
        unleafed: ['2-b'],
      }),
    ],
  },
  {
    name: 'two requests in one batch: the second sees the first (one write, both bodies)',
    requests: [interactive(['x', { v: 1 }]), interactive(['x', { _rev: NEW, v: 2 }])],
    results: [[ok('x', NEW)], [ok('x', NEW_THEN)]],
    writes: [
      written(
        'x',
        { rev: NEW_THEN },
        tree(1, n(idOf(NEW), n(idOf(NEW_THEN)))),
        [
          [NEW, '{"v":1}'],
          [NEW_THEN, '{"v":2}'],
        ],
        { isNew: true, unleafed: [NEW] },
      ),
    ],
  },
  {
    name: 'two requests racing on one rev: the second is a conflict',
    records: { x: tree(1, n('a')) },
    requests: [interactive(['x', { _rev: '1-a', v: 2 }]), interactive(['x', { _rev: '1-a', v: 3 }])],
    results: [[ok('x', ON_A)], [conflictRow('x')]],
    writes: [
      written('x', { rev: ON_A }, tree(1, n('a', n(idOf(ON_A)))), [[ON_A, '{"v":2}']], {
        isNew: false,
        unleafed: ['1-a'],
      }),
    ],
  },
  {
    name: 'writes come in id order within a request, request by request, one per document',
    requests: [interactive(['b', { v: 1 }], ['a', { v: 1 }]), interactive(['c', { v: 1 }], ['b', { _rev: NEW, v: 2 }])],
    results: [
      [ok('b', NEW), ok('a', NEW)],
      [ok('c', NEW), ok('b', NEW_THEN)],
    ],
    writes: [
      written('a', { rev: NEW }, tree(1, n(idOf(NEW))), [[NEW, '{"v":1}']], { isNew: true }),
      written(
        'b',
        { rev: NEW_THEN },
        tree(1, n(idOf(NEW), n(idOf(NEW_THEN)))),
        [
          [NEW, '{"v":1}'],
          [NEW_THEN, '{"v":2}'],
        ],
        { isNew: true, unleafed: [NEW] },
      ),
      written('c', { rev: NEW }, tree(1, n(idOf(NEW))), [[NEW, '{"v":1}']], { isNew: true }),
    ],
  },
  {
    name: 'a batch stemming past revs_limit drops a body written earlier in the same batch',
    revsLimit: 1,
    requests: [interactive(['x', { v: 1 }]), interactive(['x', { _rev: NEW, v: 2 }])],
    results: [[ok('x', NEW)], [ok('x', NEW_THEN)]],
    writes: [
      written(
        'x',
        { rev: NEW_THEN },
        tree(2, n(idOf(NEW_THEN))),
        [
          [NEW, '{"v":1}'],
          [NEW_THEN, '{"v":2}'],
        ],
        { isNew: true, dropBodies: [NEW], unleafed: [NEW] },
      ),
    ],
  },
];

const replicatedCases: Case[] = [
  {
    name: 'a new document with a deep _revisions list: ancestors without bodies',
    requests: [replicated(['x', { _rev: '4-d', _revisions: { start: 4, ids: ['d', 'c', 'b', 'a'] }, v: 4 }])],
    results: [[ok('x', '4-d')]],
    writes: [
      written('x', { rev: '4-d' }, tree(1, stub('a', stub('b', stub('c', n('d'))))), [['4-d', '{"v":4}']], {
        isNew: true,
      }),
    ],
  },
  {
    name: 'a deep _revisions list past revs_limit keeps the newest revisions only',
    revsLimit: 2,
    requests: [replicated(['x', { _rev: '4-d', _revisions: { start: 4, ids: ['d', 'c', 'b', 'a'] }, v: 4 }])],
    results: [[ok('x', '4-d')]],
    writes: [
      written('x', { rev: '4-d' }, tree(3, stub('c', n('d'))), [['4-d', '{"v":4}']], {
        isNew: true,
        dropBodies: ['1-a', '2-b'],
      }),
    ],
  },
  {
    name: 'a _rev alone (no _revisions) starts the tree at that generation',
    requests: [replicated(['x', { _rev: '3-c', v: 3 }])],
    results: [[ok('x', '3-c')]],
    writes: [written('x', { rev: '3-c' }, tree(3, n('c')), [['3-c', '{"v":3}']], { isNew: true })],
  },
  {
    name: 'a path extending the winner is a new leaf',
    records: { x: tree(1, n('a')) },
    requests: [replicated(['x', { _rev: '3-c', _revisions: { start: 3, ids: ['c', 'b', 'a'] }, v: 3 }])],
    results: [[ok('x', '3-c')]],
    writes: [
      written('x', { rev: '3-c' }, tree(1, n('a', stub('b', n('c')))), [['3-c', '{"v":3}']], {
        isNew: false,
        unleafed: ['1-a'],
      }),
    ],
  },
  {
    name: 'an existing revision changes nothing: an ok row, no write',
    records: { x: tree(1, n('a', n('b'))) },
    requests: [replicated(['x', { _rev: '2-b', _revisions: { start: 2, ids: ['b', 'a'] }, v: 2 }])],
    results: [[ok('x', '2-b')]],
    writes: [],
  },
  {
    name: 'a new branch makes a conflict; the larger rev id of one generation wins',
    records: { x: tree(1, n('a', n('b'))) },
    requests: [replicated(['x', { _rev: '2-c', _revisions: { start: 2, ids: ['c', 'a'] }, v: 'c' }])],
    results: [[ok('x', '2-c')]],
    writes: [written('x', { rev: '2-c' }, tree(1, n('a', n('b'), n('c'))), [['2-c', '{"v":"c"}']], { isNew: false })],
  },
  {
    name: 'a new branch with a smaller rev id loses: the winner stays',
    records: { x: tree(1, n('a', n('c'))) },
    requests: [replicated(['x', { _rev: '2-b', _revisions: { start: 2, ids: ['b', 'a'] }, v: 'b' }])],
    results: [[ok('x', '2-b')]],
    writes: [written('x', { rev: '2-c' }, tree(1, n('a', n('b'), n('c'))), [['2-b', '{"v":"b"}']], { isNew: false })],
  },
  {
    name: 'a deleted branch loses to a live leaf, even a generation deeper',
    records: { x: tree(1, n('a', n('b'))) },
    requests: [replicated(['x', { _rev: '3-d', _deleted: true, _revisions: { start: 3, ids: ['d', 'c', 'a'] } }])],
    results: [[ok('x', '3-d')]],
    writes: [
      written('x', { rev: '2-b' }, tree(1, n('a', n('b'), stub('c', del('d')))), [['3-d', '{}']], { isNew: false }),
    ],
  },
  {
    name: 'a replicated tombstone alone makes a deleted document',
    requests: [replicated(['x', { _rev: '1-a', _deleted: true }])],
    results: [[ok('x', '1-a')]],
    writes: [written('x', { rev: '1-a', deleted: true }, tree(1, del('a')), [['1-a', '{}']], { isNew: true })],
  },
  {
    name: 'the body of an ancestor known without one is filled in; the winner stays',
    records: { x: tree(1, stub('a', n('b'))) },
    requests: [replicated(['x', { _rev: '1-a', v: 'a' }])],
    results: [[ok('x', '1-a')]],
    // 1-a's body comes now, to a revision that is no leaf: stale from the start.
    writes: [
      written('x', { rev: '2-b' }, tree(1, n('a', n('b'))), [['1-a', '{"v":"a"}']], {
        isNew: false,
        unleafed: ['1-a'],
      }),
    ],
  },
  {
    name: 'two replicated edits of one id in one request merge (no conflict row)',
    requests: [replicated(['x', { _rev: '1-a', v: 1 }], ['x', { _rev: '1-b', v: 2 }])],
    results: [[ok('x', '1-a'), ok('x', '1-b')]],
    writes: [
      written(
        'x',
        { rev: '1-b' },
        [
          { pos: 1, node: n('a') },
          { pos: 1, node: n('b') },
        ],
        [
          ['1-a', '{"v":1}'],
          ['1-b', '{"v":2}'],
        ],
        { isNew: true },
      ),
    ],
  },
  {
    name: 'without _rev or _revisions: an error row, the other documents written',
    requests: [replicated(['x', { v: 1 }], ['y', { _rev: '1-a' }])],
    results: [
      [
        {
          id: 'x',
          error: 'bad_request',
          reason: 'When `new_edits: false`, the document needs `_rev` or `_revisions` specified',
        },
        ok('y', '1-a'),
      ],
    ],
    writes: [written('y', { rev: '1-a' }, tree(1, n('a')), [['1-a', '{}']], { isNew: true })],
  },
  {
    name: '_revisions longer than its start generation: Invalid rev format',
    requests: [replicated(['x', { _revisions: { start: 1, ids: ['b', 'a'] } }])],
    results: [[{ id: 'x', error: 'bad_request', reason: 'Invalid rev format' }]],
    writes: [],
  },
];

function runCases(cases: Case[]): void {
  for (const c of cases) {
    test(c.name, () => {
      const planned = plan(c);
      assert.deepEqual(planned.results, c.results);
      assert.deepEqual(planned.writes.map(shown), c.writes);
    });
  }
}

describe('planWrites: interactive edits (new_edits=true)', () => runCases(interactiveCases));
describe('planWrites: batches of requests', () => runCases(batchCases));
describe('planWrites: replicated edits (new_edits=false)', () => runCases(replicatedCases));

describe('planWrites: the document check and attachments', () => {
  test('a check refusing a design document makes its error row; the rest are written; other documents are not checked', () => {
    const seen: [string, string, boolean][] = [];
    const check: DocCheck = (id, checked, deleted) => {
      seen.push([id, checked.keys.join(','), deleted]);
      if (id === '_design/bad') throw new CouchError('forbidden', 'not this one');
    };
    const planned = plan(
      { requests: [interactive(['_design/bad', { v: 1 }], ['_design/good', { v: 1 }], ['plain', { v: 1 }])] },
      check,
    );
    assert.deepEqual(seen, [
      ['_design/bad', 'v', false],
      ['_design/good', 'v', false],
    ]);
    assert.deepEqual(planned.results, [
      [{ id: '_design/bad', error: 'forbidden', reason: 'not this one' }, ok('_design/good', NEW), ok('plain', NEW)],
    ]);
    assert.deepEqual(
      planned.writes.map((write) => write.record.id),
      ['_design/good', 'plain'],
    );
  });

  test('a check failing with anything but a CouchError fails the whole plan', () => {
    const check: DocCheck = () => {
      throw new TypeError('a bug');
    };
    assert.throws(() => plan({ requests: [interactive(['_design/x', { v: 1 }])] }, check), TypeError);
  });

  test('a new attachment takes the generation written as its revpos; its digest is in the rev id', () => {
    const digest = 'md5-XrY7u+Ae7tCTyyK7j1rNww==';
    const doc = input({ v: 1 });
    doc.atts = [{ name: 'a.txt', contentType: 'text/plain', digest, length: 3, revpos: undefined }];
    const planned = planWrites([{ items: [{ id: 'x', input: doc }], newEdits: true }], new Map(), 1000);
    const rev = next(null, { v: 1 }, false, [{ name: 'a.txt', contentType: 'text/plain', md5: digestBytes(digest) }]);
    assert.notEqual(rev, NEW);
    assert.deepEqual(planned.results, [[ok('x', rev)]]);
    assert.deepEqual(planned.writes[0]!.bodies, [
      {
        rev,
        body: `{"_attachments":{"a.txt":{"content_type":"text/plain","revpos":1,"digest":"${digest}","length":3,"stub":true}},"v":1}`,
      },
    ]);
  });
});

test('idsOf: every id a batch touches, once, in first-seen order', () => {
  const requests = [interactive(['b', {}], ['a', {}], ['b', {}]), replicated(['c', { _rev: '1-a' }], ['a', {}])];
  assert.deepEqual(idsOf(requests), ['b', 'a', 'c']);
});

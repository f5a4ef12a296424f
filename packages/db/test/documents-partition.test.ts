/**
 * The partitioned-database rules as pure functions (documents/partition.ts): the `partition:docid`
 * id rule with CouchDB 3.5's errors (couch_partition:validate_docid and validate_partition), the
 * partition's id range, the `?partitioned=` flag, the system-database refusal, and a design
 * document's `options.partitioned`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateDocId } from '../src/documents/doc-id.js';
import {
  checkPartitionableName,
  designPartitioned,
  inPartition,
  parsePartitionedFlag,
  partitionIdRange,
  partitionOf,
  validatePartition,
  validatePartitionedDocId,
} from '../src/documents/partition.js';
import { CouchError } from '../src/errors.js';

const refuses = (fn: () => unknown, error: string, reason: string, status = 400) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CouchError);
    assert.deepEqual([e.error, e.reason, e.status], [error, reason, status]);
    return true;
  });

/** What a write meets: the generic id rule first, then the partitioned one (CouchDB's order). */
const partitionedId = (id: string) => validatePartitionedDocId(validateDocId(id));

describe('the partition:docid rule', () => {
  test('a partition and an id after the first colon; the rest may hold colons', () => {
    assert.equal(partitionedId('sensor-260:reading-1'), 'sensor-260:reading-1');
    assert.equal(partitionedId('a:b:c'), 'a:b:c');
    assert.equal(partitionOf('a:b:c'), 'a');
    assert.equal(partitionOf('nocolon'), undefined);
  });

  test('design and local documents are exempt', () => {
    assert.equal(partitionedId('_design/foo'), '_design/foo');
    assert.equal(partitionedId('_local/foo'), '_local/foo');
  });

  test("CouchDB's refusals, in its order", () => {
    refuses(() => partitionedId('nopartition'), 'illegal_docid', 'Doc id must be of form partition:id');
    refuses(() => partitionedId('_bad:x'), 'illegal_docid', 'Only reserved document ids may start with underscore.');
    refuses(() => partitionedId('bad:'), 'illegal_docid', 'Document id must not be empty');
    refuses(() => partitionedId('ok:_x'), 'illegal_docid', 'Only reserved document ids may start with underscore.');
    refuses(() => partitionedId(':x'), 'illegal_partition', 'Partition must not be empty');
  });

  test('partition names', () => {
    assert.equal(validatePartition('foo'), 'foo');
    refuses(() => validatePartition(''), 'illegal_partition', 'Partition must not be empty');
    refuses(() => validatePartition('_foo'), 'illegal_partition', 'Partition must not start with an underscore');
    refuses(() => validatePartition('a:b'), 'illegal_partition', 'Partition must not contain a colon');
    refuses(() => validatePartition('\ud800'), 'illegal_partition', 'Partition must be valid UTF-8');
    refuses(() => validatePartition(5), 'illegal_partition', 'Partition must be a string');
  });

  test("a partition's ids are one range of the id order, from `p:` up to `p;`", () => {
    assert.deepEqual(partitionIdRange('foo'), { start: 'foo:', end: 'foo;' });
    const ids = ['foo:', 'foo:a', 'foo:\uffff', 'foo::', 'foo-:x', 'foo;x', 'fo:x', 'foob:x', 'foo'];
    const { start, end } = partitionIdRange('foo');
    // Code point order, as storage orders ids.
    const inRange = ids.filter(
      (id) =>
        Buffer.compare(Buffer.from(id), Buffer.from(start)) >= 0 &&
        Buffer.compare(Buffer.from(id), Buffer.from(end)) < 0,
    );
    assert.deepEqual(
      inRange,
      ids.filter((id) => inPartition(id, 'foo')),
    );
  });
});

describe('creating a partitioned database', () => {
  test('?partitioned= takes true or false only', () => {
    assert.equal(parsePartitionedFlag(null), false);
    assert.equal(parsePartitionedFlag('false'), false);
    assert.equal(parsePartitionedFlag('true'), true);
    refuses(() => parsePartitionedFlag('tru'), 'bad_request', 'Invalid `partitioned` parameter');
  });

  test('system, users and replicator databases cannot be partitioned', () => {
    for (const name of ['_users', '_replicator', '_global_changes', 'org/_users', 'a/b/_replicator']) {
      refuses(() => checkPartitionableName(name), 'bad_request', 'Cannot partition a system database');
    }
    checkPartitionableName('users');
    checkPartitionableName('my_users_db');
  });
});

describe("a design document's options.partitioned", () => {
  test("defaults to the database's setting; true needs a partitioned database", () => {
    assert.equal(designPartitioned(undefined, true), true);
    assert.equal(designPartitioned({}, false), false);
    assert.equal(designPartitioned({ partitioned: false }, true), false);
    assert.equal(designPartitioned({ partitioned: true }, true), true);
    refuses(
      () => designPartitioned({ partitioned: true }, false),
      'invalid_design_doc',
      'partitioned option cannot be true in a non-partitioned database.',
    );
    refuses(
      () => designPartitioned({ partitioned: 'yes' }, true),
      'invalid_design_doc',
      '`options.partitioned` field must have boolean type',
    );
  });
});

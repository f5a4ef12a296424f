import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Lockout } from '../src/auth/index.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

const FIVE_MINUTES = 5 * 60_000;

describe('Lockout', () => {
  test("defaults are CouchDB's: 5 failures, 5 minutes", () => {
    const lockout = new Lockout();
    assert.equal(lockout.threshold, 5);
    assert.equal(lockout.durationMs, FIVE_MINUTES);
  });

  test('locks after 5 failures of one user from one address', () => {
    const lockout = new Lockout({ now: clock().now });
    for (let i = 0; i < 4; i++) {
      lockout.recordFailure('admin', '10.0.0.1');
      assert.equal(lockout.isLocked('admin', '10.0.0.1'), false, `after ${i + 1} failures`);
    }
    lockout.recordFailure('admin', '10.0.0.1');
    assert.equal(lockout.isLocked('admin', '10.0.0.1'), true);
  });

  test('other users and other addresses are unaffected', () => {
    const lockout = new Lockout({ now: clock().now });
    for (let i = 0; i < 5; i++) lockout.recordFailure('admin', '10.0.0.1');
    assert.equal(lockout.isLocked('admin', '10.0.0.1'), true);
    assert.equal(lockout.isLocked('admin', '10.0.0.2'), false);
    assert.equal(lockout.isLocked('other', '10.0.0.1'), false);
  });

  test('the lock expires after the duration', () => {
    const c = clock();
    const lockout = new Lockout({ now: c.now });
    for (let i = 0; i < 5; i++) lockout.recordFailure('admin', 'a');
    c.advance(FIVE_MINUTES - 1);
    assert.equal(lockout.isLocked('admin', 'a'), true);
    c.advance(1);
    assert.equal(lockout.isLocked('admin', 'a'), false);
    // and the count starts over
    lockout.recordFailure('admin', 'a');
    assert.equal(lockout.isLocked('admin', 'a'), false);
  });

  test('failures while locked do not extend the lock', () => {
    const c = clock();
    const lockout = new Lockout({ now: c.now });
    for (let i = 0; i < 5; i++) lockout.recordFailure('admin', 'a');
    c.advance(FIVE_MINUTES - 10);
    lockout.recordFailure('admin', 'a');
    c.advance(10);
    assert.equal(lockout.isLocked('admin', 'a'), false);
  });

  test('old failures are forgotten after the duration', () => {
    const c = clock();
    const lockout = new Lockout({ now: c.now });
    for (let i = 0; i < 4; i++) lockout.recordFailure('admin', 'a');
    c.advance(FIVE_MINUTES);
    lockout.recordFailure('admin', 'a');
    assert.equal(lockout.isLocked('admin', 'a'), false);
  });

  test('a success forgets earlier failures', () => {
    const lockout = new Lockout({ now: clock().now });
    for (let i = 0; i < 4; i++) lockout.recordFailure('admin', 'a');
    lockout.recordSuccess('admin', 'a');
    lockout.recordFailure('admin', 'a');
    assert.equal(lockout.isLocked('admin', 'a'), false);
  });

  test('threshold and duration are configurable; threshold 0 disables', () => {
    const c = clock();
    const lockout = new Lockout({ threshold: 2, durationMs: 1000, now: c.now });
    lockout.recordFailure('u', 'a');
    lockout.recordFailure('u', 'a');
    assert.equal(lockout.isLocked('u', 'a'), true);
    c.advance(1000);
    assert.equal(lockout.isLocked('u', 'a'), false);

    const off = new Lockout({ threshold: 0 });
    for (let i = 0; i < 20; i++) off.recordFailure('u', 'a');
    assert.equal(off.isLocked('u', 'a'), false);
    assert.equal(off.size, 0);
  });

  test('memory is bounded: expired entries go first, then the oldest', () => {
    const c = clock();
    const lockout = new Lockout({ maxEntries: 3, now: c.now });
    for (let i = 0; i < 5; i++) lockout.recordFailure('locked', 'a');
    c.advance(1);
    for (let i = 0; i < 10; i++) lockout.recordFailure(`spray${i}`, 'b');
    assert.equal(lockout.size, 3);

    c.advance(FIVE_MINUTES);
    lockout.recordFailure('late', 'c');
    assert.equal(lockout.size, 1, 'expired entries were swept');
  });
});

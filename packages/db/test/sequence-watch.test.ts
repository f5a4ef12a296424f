import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SequenceWatch } from '../src/support/sequence-watch.js';
import { until } from './support/until.js';

describe('SequenceWatch', () => {
  it('a new listener hears the current sequence at the next poll, then only increases', async () => {
    let seq = 7;
    let reads = 0;
    const watch = new SequenceWatch(async () => {
      reads++;
      return seq;
    }, 5);
    watch.notify(7); // the sequence was already told to earlier listeners
    const heard: number[] = [];
    const stop = watch.listen((s) => heard.push(s));
    await until(async () => heard.length === 1, 'the first poll');
    assert.deepEqual(heard, [7]);
    const readsBefore = reads;
    await until(async () => reads >= readsBefore + 3, 'three more polls');
    assert.deepEqual(heard, [7], 'no change, nothing told');
    seq = 9; // another process wrote
    await until(async () => heard.length === 2, 'the poll that sees 9');
    watch.notify(10); // this process wrote
    watch.notify(10);
    watch.notify(8);
    assert.deepEqual(heard, [7, 9, 10]);
    stop();
    const readsAtStop = reads;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok(reads <= readsAtStop + 1, 'no polling without listeners');
  });

  it('a storage error skips one poll; the next one tells', async () => {
    let fail = true;
    const watch = new SequenceWatch(async () => {
      if (fail) {
        fail = false;
        throw new Error('away');
      }
      return 3;
    }, 5);
    const heard: number[] = [];
    const stop = watch.listen((s) => heard.push(s));
    await until(async () => heard.length === 1, 'the poll after the error');
    assert.deepEqual(heard, [3]);
    stop();
  });
});

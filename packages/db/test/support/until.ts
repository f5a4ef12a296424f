/** Polling for a state the server reaches on its own (a background task, another node, a feed). */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `done` resolves true, checking every 20 ms; fails naming `what` after `ms`. */
export async function until(done: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  for (const started = Date.now(); !(await done()); await sleep(20)) {
    if (Date.now() - started > ms) assert.fail(`still not so after ${ms} ms: ${what}`);
  }
}

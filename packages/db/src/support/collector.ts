/**
 * V8's garbage collector, called from code: `gc` exists only in a context made while
 * `--expose-gc` is on, which Node documents as the way to reach it without starting the process
 * with the flag. The flag is turned off again at once, so no other context gets `gc`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Collector = (options?: { type: 'minor' | 'major' }) => void;

let collector: Collector | null | undefined;

/** The collector (a full collection by default), or null where the runtime refuses to expose it. */
export function garbageCollector(): Collector | null {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as Collector;
    } catch {
      collector = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return collector;
}

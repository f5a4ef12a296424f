/**
 * Gives an idle `divan serve` process its start-up memory back. Loading the server's modules
 * makes V8 grow the young generation to its 16 MB ceiling (start-up's objects all survive), and
 * V8 shrinks it again only in a full collection that follows a few seconds of little
 * allocation, which a server that sits idle after start never runs: ~10 MB of a fresh server's
 * resident memory. So once the event loop has been nearly idle for a whole interval (the last
 * 6 s), one full collection runs; it is given up after a busy first minute (a busy server's heap
 * is sized by its load).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { garbageCollector } from '../support/collector.js';

/** Long enough that V8's allocation rate over the interval no longer counts start-up's (5 s window). */
const INTERVAL_MS = 6_000;
/**
 * The last INTERVAL_MS is looked at every STEP_MS (a window that slides): a start-up whose busy
 * moments straddle the first interval still compacts soon after they end, not a whole interval
 * later.
 */
const STEP_MS = 1_000;
/** Busy under a tenth of the time: an idle server's own timers, on a loaded machine, read 3-5%. */
const IDLE_UTILIZATION = 0.1;
/** Given up after a busy first minute. */
const MAX_STEPS = 60;

export function compactWhenIdle(): void {
  // V8 judges the allocation rate by what was allocated between collections: without one here,
  // the full collection's measure would still count the tail of start-up (modules evaluated
  // after its last collection, ~7 MB) and, on the threshold, often keep the young generation.
  garbageCollector()?.({ type: 'minor' });
  const steps = INTERVAL_MS / STEP_MS;
  const history = [performance.eventLoopUtilization()];
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    history.push(now);
    if (history.length <= steps) return;
    const idle =
      performance.eventLoopUtilization(now, history[history.length - 1 - steps]).utilization <= IDLE_UTILIZATION;
    if (!idle && history.length <= MAX_STEPS) return;
    clearInterval(timer);
    if (idle) garbageCollector()?.({ type: 'major' });
    // bin/divan.js had every full collection of start-up compact: without it, start-up leaves
    // the old space's 256 KB pages ~12% free, scattered, and V8's own heuristics do not compact
    // for that (~1 MB of an idle server, docs/benchmarks.md, session 41). From here on V8's
    // heuristics decide again: compacting on every full collection would cost a busy server time.
    setFlagsFromString('--no-compact-on-every-full-gc');
  }, STEP_MS);
  timer.unref();
}

/**
 * Gives an idle `divan serve` process its start-up memory back. Loading the server's modules
 * makes V8 grow the young generation to its 16 MB ceiling (start-up's objects all survive), and
 * V8 shrinks it again only in a full collection that follows a few seconds of little
 * allocation, which a server that sits idle after start never runs: ~10 MB of a fresh server's
 * resident memory. So once the event loop has been nearly idle for a whole interval, one full
 * collection runs; it is given up after a busy first minute (a busy server's heap is sized by
 * its load).
 */
import { performance } from 'node:perf_hooks';
import { garbageCollector } from '../support/collector.js';

/** Long enough that V8's allocation rate over the interval no longer counts start-up's (5 s window). */
const INTERVAL_MS = 6_000;
/** Busy under a tenth of the time: an idle server's own timers, on a loaded machine, read 3-5%. */
const IDLE_UTILIZATION = 0.1;
const MAX_TRIES = 10;

export function compactWhenIdle(): void {
  let since = performance.eventLoopUtilization();
  let tries = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const idle = performance.eventLoopUtilization(now, since).utilization <= IDLE_UTILIZATION;
    since = now;
    if (!idle && ++tries < MAX_TRIES) return;
    clearInterval(timer);
    if (idle) garbageCollector()?.();
  }, INTERVAL_MS);
  timer.unref();
}

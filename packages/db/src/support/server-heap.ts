/**
 * V8's old generation sized for a server's memory rather than a batch job's throughput, for
 * `divan serve` and an embedded server alike (set from `startServer`, process-wide, once).
 *
 * A server's live heap is small (~25 MB on the view bench at 100k documents, most of it the
 * B-trees' node caches) and its garbage short-lived, but V8 lets the old generation grow to up to
 * 4× its live size (plus the young generation's size) before the next full collection, sized for
 * throughput (`divan serve` set 2×). Growing by half its live size bounds the peak: on the view
 * bench the old generation's peak fell from 50 to 39 MB against 2× (the suite's peak RSS 199 →
 * 190 MB), for ~6% more CPU in the 1% update and none told from noise in the build and queries
 * (docs/benchmarks.md, session 42). V8 reads the setting at every full collection, so it needs
 * no node flag; a `--heap-growing-percent` given to node (command line or NODE_OPTIONS) wins.
 *
 * The young generation (two semi-spaces, grown to 16 MB each under any sustained load) can only
 * be bounded on node's command line (`--max-semi-space-size=8`, bin/node-flags.json: ~15–20 MB
 * less at the bench's peak; ~5% more CPU in an index build on a loaded machine, none in a quiet
 * A/B of the build's wall time): V8 reads that once, when the process starts.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth between full collections, % of its live size (V8: up to 300). */
const HEAP_GROWING_PERCENT = 50;

let bounded = false;

/** Bounds V8's old-generation growth for this process (once; later calls do nothing). */
export function boundServerHeap(): void {
  if (bounded) return;
  bounded = true;
  if (givenToNode('--heap-growing-percent')) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Whether node was started with this flag (command line or NODE_OPTIONS; `_` and `-` alike). */
function givenToNode(flag: string): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((option) => option.replaceAll('_', '-').startsWith(flag));
}

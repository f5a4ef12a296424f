// The timing harness: run as a child process, one (suite, router) job per process, by run.mjs:
//
//   node --expose-gc bench/harness.mjs '{"suite":"rails","router":"memoirist","timing":{...}}'
//
// It prints one JSON line: `{ ok: true, cases: { [name]: rate } , ... }` or `{ ok: false, error }`.
// Lookup and generation suites: answers are checked against the reference first, then each case
// gets its own generated loop (new Function, so cases don't share call-site feedback), a warm-up
// until its rate settles (the same rule for every router, see warmUp), and timed slices by the
// wall clock (process.hrtime) or, with `--clock cpu`, by the process's CPU time; the rate of a
// case is the median of its slices. The loop counts hits (and reads params) so the work cannot
// be optimized away, and the count is checked.

import { ROUTERS, GENERATORS } from './adapters.mjs';
import { SUITES, referenceMatch, normalizeAnswer } from './routes.mjs';

const now = () => Number(process.hrtime.bigint()); // ns
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

/** Never equal to a params object: reading `r.params` keeps lazy params honest. */
const SENTINEL = Object.freeze({});

/** The clocks a run can time slices by, in ns: wall (hrtime) or the process's CPU time (every thread). */
const CLOCKS = {
  wall: now,
  cpu: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
  },
};

/**
 * Warms `run(n)` up until its rate has settled: at least `warmupMs`, then until `SETTLED_WINDOWS`
 * windows in a row of about `WINDOW_MS` each bring no rate more than `SETTLED_GAIN` above the best
 * seen before them, and at most `maxWarmupMs`, all by the run's clock (with the CPU clock a
 * process the machine's load keeps off the cores gets the same warm-up). V8 optimizes a loop and
 * every function it reaches at its own pace (a loop reaching ten route trees' generated code
 * takes longer than one walking one tree), so a fixed warm-up times some routers' code while it
 * is still being optimized and others' once it is done. The rule is the same for every router;
 * returns the warm-up's length in ms.
 */
const WINDOW_MS = 20;
const SETTLED_WINDOWS = 5;
const SETTLED_GAIN = 1.02;
function warmUp(run, n, clock, { warmupMs, maxWarmupMs = warmupMs }) {
  const start = clock();
  const minEnd = start + warmupMs * 1e6;
  const maxEnd = start + Math.max(warmupMs, maxWarmupMs) * 1e6;
  let best = 0;
  let quiet = 0;
  for (;;) {
    const c0 = clock();
    let iterations = 0;
    let c1 = c0;
    while (c1 - c0 < WINDOW_MS * 1e6) {
      run(n);
      iterations += n;
      c1 = clock();
    }
    const rate = iterations / (c1 - c0);
    if (rate > best * SETTLED_GAIN) {
      best = rate;
      quiet = 0;
    } else quiet++;
    if (c1 >= maxEnd || (c1 >= minEnd && quiet >= SETTLED_WINDOWS)) return (c1 - start) / 1e6;
  }
}

/**
 * Times `run(n)` (which does `n` iterations of `perIter` operations and returns a checksum):
 * calibration, warm-up (see `warmUp`), then `slices` slices of about `sliceMs` by `clock`;
 * returns ops/s (median slice) and the warm-up's length.
 */
export function timeLoop(run, perIter, checksum, timing) {
  const { slices, sliceMs, clock: clockName = 'wall' } = timing;
  const clock = CLOCKS[clockName];
  if (!clock) throw new Error(`unknown clock ${clockName}`);
  let n = 1;
  for (;;) {
    const t = now();
    run(n);
    if (now() - t >= 1e6 || n >= 2 ** 30) break;
    n *= 2;
  }
  const warmupMs = warmUp(run, n, clock, timing);
  const t = now();
  run(n);
  n = Math.max(1, Math.round((n * sliceMs * 1e6) / Math.max(1, now() - t)));
  const rates = [];
  for (let s = 0; s < slices; s++) {
    const t0 = clock();
    const got = run(n);
    const dt = clock() - t0;
    if (got !== checksum(n)) throw new Error(`checksum ${got} != ${checksum(n)} for n=${n}`);
    rates.push((n * perIter) / (Math.max(1, dt) / 1e9));
  }
  return { rate: median(rates), warmupMs };
}

/** A loop doing the given requests in a row per iteration, specialized for this case. */
function lookupLoop(adapter, ctx, requests, id) {
  const names = [];
  const values = [];
  requests.forEach((r, k) => {
    names.push(`m${k}`, `p${k}`);
    values.push(r.method, r.path);
  });
  const body = requests
    .map((_, k) => `r = ${adapter.call(`m${k}`, `p${k}`)}; if (r != null) hits += r.params === sentinel ? 2 : 1;`)
    .join('\n      ');
  const src = `${adapter.prelude}
  return function ${id}(n) {
    let hits = 0, r;
    for (let i = 0; i < n; i++) {
      ${body}
    }
    return hits;
  };`;
  return new Function('ctx', 'sentinel', ...names, src)(ctx, SENTINEL, ...values);
}

function checkAnswers(adapter, ctx, set, requests) {
  const errors = [];
  for (const req of requests) {
    const want = referenceMatch(set.routes, req.method, req.path);
    if ((want == null) !== Boolean(req.miss))
      throw new Error(`bad case ${req.name}: reference says ${normalizeAnswer(want)}`);
    let got;
    try {
      got = adapter.answer(ctx, req.method, req.path);
    } catch (e) {
      got = { key: `threw ${e?.message ?? e}`, params: {} };
    }
    if (normalizeAnswer(got) !== normalizeAnswer(want)) {
      errors.push(`${req.method} ${req.path}: got ${normalizeAnswer(got)}, expected ${normalizeAnswer(want)}`);
    }
  }
  return errors;
}

async function lookupSuite(job) {
  const set = SUITES[job.suite];
  const adapter = ROUTERS[job.router];
  const mod = await adapter.load();
  const handlers = set.routes.map(() => () => {});
  const ctx = adapter.build(mod, set, handlers);
  const result = { ok: true, cases: {} };
  const errors = checkAnswers(adapter, ctx, set, set.cases);
  if (adapter.listDiff) {
    const diff = adapter.listDiff(ctx, set);
    if (diff) result.warning = `list() differs from the reference set: ${diff}`;
  }
  if (errors.length) return { ok: false, error: `wrong answers: ${errors.join('; ')}`, warning: result.warning };

  const mixed = set.cases.filter(set.mix.of);
  const jobs = [...set.cases.map((c) => ({ name: c.name, requests: [c] })), { name: set.mix.name, requests: mixed }];
  for (const [k, { name, requests }] of shuffle(jobs.map((j, k) => [k, j]))) {
    const hitsPerIter = requests.filter((r) => !r.miss).length;
    const run = lookupLoop(adapter, ctx, requests, `case${k}`);
    const { rate, warmupMs } = timeLoop(run, requests.length, (n) => n * hitsPerIter, job.timing);
    result.cases[name] = rate;
    (result.warmupMs ??= {})[name] = warmupMs;
  }
  return result;
}

async function generateSuite(job) {
  const set = SUITES.generate;
  const gen = GENERATORS[job.router];
  const ctx = await gen.build(set);
  const result = { ok: true, cases: {}, describe: gen.describe?.(ctx) };
  const errors = [];
  for (const c of set.cases) {
    const fn = new Function('ctx', 'a', 'b', `${gen.prelude}\nreturn ${gen.call('a', 'b', ctx)};`);
    for (const [a, b] of c.args) {
      let got;
      try {
        got = fn(ctx, a, b);
      } catch (e) {
        got = `threw ${e?.message ?? e}`;
      }
      if (got !== set.expected(a, b)) errors.push(`${c.name} (${a}, ${b}): got ${got}, expected ${set.expected(a, b)}`);
    }
  }
  if (errors.length) return { ok: false, error: `wrong paths: ${errors.join('; ')}` };

  for (const [k, c] of shuffle(set.cases.map((c, k) => [k, c]))) {
    const A = c.args.map((p) => p[0]);
    const B = c.args.map((p) => p[1]);
    if (A.length !== 8) throw new Error('generation cases need 8 argument pairs');
    const lens = c.args.map(([a, b]) => set.expected(a, b).length);
    const per8 = lens.reduce((x, y) => x + y, 0);
    const checksum = (n) => Math.floor(n / 8) * per8 + lens.slice(0, n % 8).reduce((x, y) => x + y, 0);
    const src = `${gen.prelude}
    return function gen${k}(n) {
      let len = 0;
      for (let i = 0; i < n; i++) {
        const j = i & 7, a = A[j], b = B[j];
        len += (${gen.call('a', 'b', ctx)}).length;
      }
      return len;
    };`;
    const run = new Function('ctx', 'A', 'B', src)(ctx, A, B);
    const { rate, warmupMs } = timeLoop(run, 1, checksum, job.timing);
    result.cases[c.name] = rate;
    (result.warmupMs ??= {})[c.name] = warmupMs;
  }
  return result;
}

/** Cold process: import (not timed), then register all routes and do the first lookup (wall and CPU time). */
async function buildSuite(job) {
  const set = SUITES.build;
  const adapter = ROUTERS[job.router];
  const mod = await adapter.load();
  const routes = set.makeRoutes();
  const handlers = routes.map(() => () => {});
  const input = { routes, draw: set.draw };
  const first = new Function('ctx', 'm', 'p', `${adapter.prelude}\nreturn ${adapter.call('m', 'p')};`);
  const { method, path } = set.probe;
  const gc = globalThis.gc;
  if (typeof gc !== 'function') throw new Error('run with --expose-gc');
  gc();
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const c0 = CLOCKS.cpu();
  const t0 = now();
  const ctx = adapter.build(mod, input, handlers);
  const t1 = now();
  const hit = first(ctx, method, path);
  const t2 = now();
  const c2 = CLOCKS.cpu();
  gc();
  gc();
  const heap1 = process.memoryUsage().heapUsed;
  globalThis.__keep = [ctx, hit];

  const want = referenceMatch(routes, method, path);
  const got = adapter.answer(ctx, method, path);
  if (normalizeAnswer(got) !== normalizeAnswer(want)) {
    return {
      ok: false,
      error: `wrong answer: ${method} ${path}: got ${normalizeAnswer(got)}, expected ${normalizeAnswer(want)}`,
    };
  }
  const result = {
    ok: true,
    cases: {
      'register ms': (t1 - t0) / 1e6,
      'build ms': (t2 - t0) / 1e6,
      // The process's CPU time over the same span: every thread (the optimizing compiler's and
      // the GC's too), and unlike the wall clock not stretched by other processes on the cores.
      'build cpu ms': (c2 - c0) / 1e6,
      'heap MB': (heap1 - heap0) / 2 ** 20,
    },
  };
  if (adapter.listDiff) {
    const diff = adapter.listDiff(ctx, input);
    if (diff) result.warning = `list() differs from the reference set: ${diff}`;
  }
  return result;
}

async function main() {
  const job = JSON.parse(process.argv[2]);
  let result;
  try {
    if (job.suite === 'build') result = await buildSuite(job);
    else if (job.suite === 'generate') result = await generateSuite(job);
    else result = await lookupSuite(job);
  } catch (e) {
    result = {
      ok: false,
      error: String(e?.stack ?? e)
        .split('\n')
        .slice(0, 3)
        .join(' | '),
    };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();

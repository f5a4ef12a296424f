#!/usr/bin/env node
// Benchmark of @divan/router against find-my-way, memoirist, rou3 (tree and compiled) and Hono's RegExpRouter.
//
//   npm run bench -w @divan/router [-- --rounds N | --quick | --suite rails,classic | --router divan,memoirist | --clock cpu]
//   BENCH_ROUNDS=7 npm run bench -w @divan/router
//   BENCH_DIVAN_DIST=/elsewhere/dist/src/index.js node bench/run.mjs   (another build of ours)
//   BENCH_DIVAN_BASE_DIST=/base/dist/src/index.js node bench/run.mjs --router divan,divan-base   (an A/B in one run)
//
// Every (suite, router, round) runs in a fresh child process (harness.mjs), in a shuffled order
// each round; the tables print the median over rounds, with the ratio to find-my-way (for URL
// generation: to the hand-written template). The peers are this folder's own dependencies
// (bench/package.json), installed here on the first run. Missed targets are reported, never fatal.

import { spawnSync } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROUTERS, GENERATORS, OURS_DIST, BASE_DIST } from './adapters.mjs';
import { SUITES } from './routes.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const PACKAGE = dirname(BENCH);
const ROOT = dirname(dirname(PACKAGE));
const HARNESS = join(BENCH, 'harness.mjs');

// --- options ---------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = {
    rounds: Number(process.env.BENCH_ROUNDS) || 5,
    quick: false,
    suites: null,
    routers: null,
    clock: 'wall',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
    if (a === '--quick') opts.quick = true;
    else if (a.startsWith('--rounds')) opts.rounds = Number(value());
    else if (a.startsWith('--suite')) opts.suites = value().split(',');
    else if (a.startsWith('--router')) opts.routers = value().split(',');
    else if (a.startsWith('--clock')) opts.clock = value();
    else if (a === '--help' || a === '-h') {
      console.log(
        'usage: node bench/run.mjs [--rounds N] [--quick] [--suite rails,classic,couch,build,generate] [--router divan,find-my-way,...] [--clock wall|cpu]',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (opts.quick && !argv.some((a) => a.startsWith('--rounds'))) opts.rounds = 1;
  if (!(opts.rounds >= 1)) throw new Error('--rounds needs a positive number');
  if (opts.clock !== 'wall' && opts.clock !== 'cpu') throw new Error('--clock is wall or cpu');
  // Each case warms up for at least warmupMs, then until its rate settles (harness.mjs, warmUp),
  // for at most maxWarmupMs: the same rule for every router.
  opts.timing = opts.quick
    ? { warmupMs: 20, maxWarmupMs: 500, slices: 5, sliceMs: 10, clock: opts.clock }
    : { warmupMs: 60, maxWarmupMs: 3000, slices: 9, sliceMs: 30, clock: opts.clock };
  return opts;
}

// --- setup: peers and our build ----------------------------------------------------------------

function ensurePeers() {
  if (existsSync(join(BENCH, 'node_modules'))) return;
  console.error('bench: installing the peer routers into packages/router/bench/node_modules ...');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: BENCH,
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) throw new Error('npm install in packages/router/bench failed');
}

const newestMtime = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .reduce((t, e) => Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs), 0);

/** Builds the package when dist is missing or older than src; a failed build is only a warning. */
function ensureBuilt() {
  if (process.env.BENCH_DIVAN_DIST) return;
  const src = join(PACKAGE, 'src');
  // tsc -b rewrites only the outputs that changed, but its build info on every build that does work.
  const info = join(PACKAGE, 'dist', 'tsconfig.tsbuildinfo');
  const built = existsSync(info) ? info : OURS_DIST;
  const stale = !existsSync(OURS_DIST) || (existsSync(src) && newestMtime(src) > statSync(built).mtimeMs);
  if (!stale) return;
  console.error('bench: building @divan/router (npx tsc -b at the repository root) ...');
  const r = spawnSync('npx', ['tsc', '-b'], { cwd: ROOT, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    const lines = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n');
    console.error(`bench: tsc -b reported ${lines.length} line(s) of errors, first: ${lines.slice(0, 3).join(' | ')}`);
    console.error('bench: using whatever dist/ holds');
  }
}

// --- running -----------------------------------------------------------------------------------

function shuffle(xs) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function runJob(job) {
  const r = spawnSync(process.execPath, ['--expose-gc', HARNESS, JSON.stringify(job)], {
    cwd: BENCH,
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 16 << 20,
  });
  const line = (r.stdout || '').trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    const why = r.error?.message || r.signal || (r.stderr || '').trim().split('\n').slice(-3).join(' | ');
    return { ok: false, error: `child failed: ${why}` };
  }
}

const ROUTER_ORDER = [
  'divan',
  ...(BASE_DIST === null ? [] : ['divan-base']),
  'find-my-way',
  'memoirist',
  'rou3',
  'rou3 compiled',
  'hono RegExpRouter',
];
const GENERATOR_ORDER = ['divan helper', 'divan path()', 'template', 'path-to-regexp'];

function participants(suite, opts) {
  const all = suite === 'generate' ? GENERATOR_ORDER : ROUTER_ORDER;
  if (!opts.routers) return all;
  return all.filter((name) => opts.routers.some((r) => name === r || name.startsWith(`${r} `)));
}

// --- formatting ----------------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const rate = (x) =>
  x >= 1e9
    ? `${(x / 1e9).toFixed(2)}G`
    : x >= 1e6
      ? `${(x / 1e6).toFixed(x >= 1e8 ? 0 : 1)}M`
      : x >= 1e3
        ? `${(x / 1e3).toFixed(0)}k`
        : x.toFixed(0);
const ratio = (x, base) => (base ? `${(x / base).toFixed(2)}×` : '—');

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function label(suite, name) {
  return suite === 'generate' ? name : ROUTERS[name].label;
}

/** results[suite][name] = { rounds: [cases], errors: [], warnings: [] } */
function summarize(results, suite, caseNames, baseName) {
  const byName = results[suite] ?? {};
  const med = {};
  for (const [name, r] of Object.entries(byName)) {
    if (!r.rounds.length) continue;
    med[name] = Object.fromEntries(caseNames.map((c) => [c, median(r.rounds.map((x) => x[c]))]));
  }
  return { med, base: med[baseName] };
}

function printLookupSuite(results, suite, opts) {
  const set = SUITES[suite];
  const caseNames = [...set.cases.map((c) => c.name), set.mix.name];
  // Against find-my-way; against our base build when find-my-way is not in the run (an A/B).
  const baseName = results[suite]?.['find-my-way'] || !results[suite]?.['divan-base'] ? 'find-my-way' : 'divan-base';
  const { med, base } = summarize(results, suite, caseNames, baseName);
  const rows = [];
  for (const name of participants(suite, opts)) {
    const r = results[suite]?.[name];
    if (!r) continue;
    if (!med[name]) {
      rows.push([label(suite, name), ...caseNames.map((_, i) => (i === 0 ? 'error (below)' : ''))]);
      continue;
    }
    rows.push([
      label(suite, name),
      ...caseNames.map((c) => `${rate(med[name][c])} (${ratio(med[name][c], base?.[c])})`),
    ]);
  }
  console.log(`\n### ${set.title}\nmedian of ${opts.rounds} round(s), ratio vs ${baseName}\n`);
  console.log(table(['router', ...caseNames.map((c) => (c === set.mix.name ? `**${c}**` : c))], rows));
  warmups(results, suite, set.mix.name, opts);
  notes(results, suite);
  return med;
}

function printBuildSuite(results, opts) {
  const cols = ['register ms', 'build ms', 'build cpu ms', 'heap MB'];
  const { med, base } = summarize(results, 'build', cols, 'find-my-way');
  const rows = [];
  for (const name of participants('build', opts)) {
    const r = results.build?.[name];
    if (!r) continue;
    if (!med[name]) {
      rows.push([label('build', name), 'error (below)', '', '', '', '']);
      continue;
    }
    const m = med[name];
    const all = r.rounds.map((x) => x['build ms']);
    rows.push([
      label('build', name),
      m['register ms'].toFixed(1),
      `${m['build ms'].toFixed(1)} (${ratio(m['build ms'], base?.['build ms'])})`,
      `${Math.min(...all).toFixed(1)}–${Math.max(...all).toFixed(1)}`,
      m['build cpu ms'] == null ? '' : m['build cpu ms'].toFixed(1),
      m['heap MB'].toFixed(2),
    ]);
  }
  console.log(
    `\n### ${SUITES.build.title}\nmedian of ${opts.rounds} cold process(es); build = register + first lookup, ratio vs find-my-way; build CPU = the process's CPU time over the build, every thread; heap = heapUsed growth after forced GC\n`,
  );
  console.log(table(['router', 'register ms', 'build ms (× fmw)', 'build range ms', 'build CPU ms', 'heap MB'], rows));
  notes(results, 'build');
  return med;
}

function printGenerateSuite(results, opts) {
  const caseNames = SUITES.generate.cases.map((c) => c.name);
  const { med, base } = summarize(results, 'generate', caseNames, 'template');
  const rows = [];
  for (const name of participants('generate', opts)) {
    const r = results.generate?.[name];
    if (!r) continue;
    const what = r.describe ?? GENERATORS[name].label;
    if (!med[name]) {
      rows.push([what, ...caseNames.map((_, i) => (i === 0 ? 'error (below)' : ''))]);
      continue;
    }
    rows.push([what, ...caseNames.map((c) => `${rate(med[name][c])} (${ratio(med[name][c], base?.[c])})`)]);
  }
  console.log(
    `\n### ${SUITES.generate.title}\nmedian of ${opts.rounds} round(s), ratio vs the hand-written template\n`,
  );
  console.log(table(['generator', ...caseNames], rows));
  notes(results, 'generate');
  return med;
}

/** How long each router's headline case warmed up before its rate settled (median over rounds). */
function warmups(results, suite, caseName, opts) {
  const parts = [];
  for (const name of participants(suite, opts)) {
    const ms = (results[suite]?.[name]?.warmups ?? []).map((w) => w[caseName]).filter((x) => x != null);
    if (ms.length) parts.push(`${label(suite, name)} ${median(ms).toFixed(0)}`);
  }
  if (parts.length) console.log(`\nwarm-up until settled, ${caseName}, median ms: ${parts.join(', ')}`);
}

const shorten = (s = '', n = 140) => (s.length > n ? `${s.slice(0, n)}…` : s);

function notes(results, suite) {
  for (const [name, r] of Object.entries(results[suite] ?? {})) {
    const msgs = new Set([...r.errors, ...r.warnings]);
    for (const m of msgs) console.log(`\n- ${label(suite, name)}: ${shorten(m, 600)}`);
  }
}

function printTargets(results, meds) {
  const rows = [];
  const spread = (suite, name, c) => {
    const xs = results[suite]?.[name]?.rounds.map((x) => x[c]) ?? [];
    return xs.length > 1 ? xs : null;
  };
  const perRound = (suite, c, fmt) => {
    const ours = spread(suite, 'divan', c);
    const base = spread(suite, 'find-my-way', c);
    if (!ours || !base || ours.length !== base.length) return '';
    return ours.map((x, i) => fmt(x / base[i])).join(' ');
  };
  const ratioTarget = (metric, suite, c, min) => {
    const ours = meds[suite]?.divan?.[c];
    const base = meds[suite]?.['find-my-way']?.[c];
    if (ours == null || base == null) return rows.push([metric, `≥ ${min}× find-my-way`, 'n/a', '', 'n/a']);
    const r = ours / base;
    rows.push([
      metric,
      `≥ ${min}× find-my-way`,
      `${r.toFixed(2)}× (${rate(ours)}/s vs ${rate(base)}/s)`,
      perRound(suite, c, (x) => x.toFixed(2)),
      r >= min ? 'PASS' : 'FAIL',
    ]);
  };
  // Issue #27's targets: the Rails-shaped mix at 2.75× find-my-way, 10k routes built in under 30 ms.
  ratioTarget('Rails-shaped resource mix', 'rails', 'resource mix', 2.75);
  ratioTarget('classic all together', 'classic', 'all together', 2.5);
  const b = meds.build?.divan;
  const buildRounds = results.build?.divan?.rounds ?? [];
  const list = (c, d) => (buildRounds.length > 1 ? buildRounds.map((x) => x[c].toFixed(d)).join(' ') : '');
  rows.push(
    b
      ? [
          '10k routes build time',
          '< 30 ms',
          `${b['build ms'].toFixed(1)} ms (CPU ${b['build cpu ms']?.toFixed(1) ?? '—'} ms)`,
          list('build ms', 0),
          b['build ms'] < 30 ? 'PASS' : 'FAIL',
        ]
      : ['10k routes build time', '< 30 ms', 'n/a', '', 'n/a'],
  );
  rows.push(
    b
      ? [
          '10k routes heap',
          '≤ 5 MB',
          `${b['heap MB'].toFixed(2)} MB`,
          list('heap MB', 1),
          b['heap MB'] <= 5 ? 'PASS' : 'FAIL',
        ]
      : ['10k routes heap', '≤ 5 MB', 'n/a', '', 'n/a'],
  );
  const g = meds.generate?.['divan helper']?.['numeric ids'];
  const t = meds.generate?.template?.['numeric ids'];
  const gRounds = spread('generate', 'divan helper', 'numeric ids');
  const tRounds = spread('generate', 'template', 'numeric ids');
  const gPer =
    gRounds && tRounds && gRounds.length === tRounds.length
      ? gRounds.map((x, i) => (x / tRounds[i]).toFixed(2)).join(' ')
      : '';
  rows.push(
    g != null && t != null
      ? [
          'nested member helper (numeric ids)',
          '≥ 1.0× template',
          `${(g / t).toFixed(2)}× (${rate(g)}/s vs ${rate(t)}/s)`,
          gPer,
          g >= t ? 'PASS' : 'FAIL',
        ]
      : ['nested member helper (numeric ids)', '≥ 1.0× template', 'n/a', '', 'n/a'],
  );
  console.log('\n### Targets (@divan/router; a benchmark never fails on a missed target)\n');
  console.log(table(['metric', 'target', 'measured (median)', 'per round', 'result'], rows));
}

// --- main ------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  ensurePeers();
  ensureBuilt();

  // Is our router there? (Probed in a child: a broken dist must not take this process down.)
  const probe = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import(${JSON.stringify(pathToFileURL(OURS_DIST).href)}).then((m) => process.stdout.write(typeof m.draw))`,
    ],
    { encoding: 'utf8' },
  );
  const oursReady = probe.stdout === 'function';
  if (!oursReady)
    console.error('bench: @divan/router does not export draw yet (dist/src/index.js); running the peers only');

  const suites = (opts.suites ?? ['rails', 'classic', 'couch', 'build', 'generate']).filter((s) => {
    if (SUITES[s]) return true;
    throw new Error(`unknown suite ${s} (rails, classic, couch, build, generate)`);
  });
  const results = {};
  const load0 = loadavg();
  const started = Date.now();
  console.log(`# @divan/router benchmark\n`);
  console.log(
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model?.trim()}, load average at start ${load0.map((x) => x.toFixed(2)).join(' ')}`,
  );
  console.log(
    `${opts.rounds} round(s); per case a warm-up of ${opts.timing.warmupMs}–${opts.timing.maxWarmupMs} ms until its rate settles + ${opts.timing.slices} × ${opts.timing.sliceMs} ms slices (${opts.clock} clock); one child process per (suite, router, round), shuffled`,
  );

  for (let round = 1; round <= opts.rounds; round++) {
    const jobs = [];
    for (const suite of suites) {
      for (const name of participants(suite, opts)) {
        const ours = suite === 'generate' ? name.startsWith('divan') : name === 'divan';
        if (ours && !oursReady) continue;
        jobs.push({ suite, router: name, timing: opts.timing });
      }
    }
    for (const job of shuffle(jobs)) {
      const t = Date.now();
      const r = runJob(job);
      const slot = ((results[job.suite] ??= {})[job.router] ??= { rounds: [], errors: [], warnings: [] });
      if (r.ok) {
        slot.rounds.push(r.cases);
        if (r.warmupMs) (slot.warmups ??= []).push(r.warmupMs);
        if (r.describe) slot.describe = r.describe;
      } else slot.errors.push(r.error);
      if (r.warning) slot.warnings.push(r.warning);
      console.error(
        `bench: round ${round}/${opts.rounds} ${job.suite} × ${job.router}: ${r.ok ? 'ok' : 'FAILED'} (${((Date.now() - t) / 1000).toFixed(1)} s)`,
      );
    }
  }
  // Errors are usually the same every round: print each once.
  for (const bySuite of Object.values(results)) {
    for (const slot of Object.values(bySuite)) {
      slot.errors = [...new Set(slot.errors)];
      slot.warnings = [...new Set(slot.warnings)];
    }
  }

  const meds = {};
  if (suites.includes('rails')) meds.rails = printLookupSuite(results, 'rails', opts);
  if (suites.includes('classic')) meds.classic = printLookupSuite(results, 'classic', opts);
  if (suites.includes('couch')) meds.couch = printLookupSuite(results, 'couch', opts);
  if (suites.includes('build')) meds.build = printBuildSuite(results, opts);
  if (suites.includes('generate')) meds.generate = printGenerateSuite(results, opts);
  if (!oursReady) console.log('\n(@divan/router not built yet: peers only)');
  printTargets(results, meds);
  const load1 = loadavg();
  console.log(
    `\n${((Date.now() - started) / 1000).toFixed(0)} s; load average at end ${load1.map((x) => x.toFixed(2)).join(' ')} (2 shared cores here: ratios within ±0.3 of each other are ties)`,
  );
}

await main();

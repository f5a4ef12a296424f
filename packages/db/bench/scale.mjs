// Issue #31's Scale target: at 1M documents every view and Mango figure keeps its ratio to
// CouchDB, and the index build grows linearly (1M ≤ 11× the 100k time). A views or mango run of
// Divan at 100k saves its figures (os.tmpdir()); the 1M run reads them back and prints, beside its
// own figures, Apache CouchDB 3.5.0's recorded 1M figures (CouchDB alone on this kind of machine,
// batches of 5,000), the ratio at 1M and at 100k, and each side's growth from 100k to 1M.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, fmt } from './common.mjs';

export const SCALE_DOCS = 1_000_000;
const BASE_DOCS = 100_000;
const MB = 1048576;

const savedPath = (suite, docs) => join(tmpdir(), `divan-bench-${suite}-${docs}.json`);

function commitOf() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Keeps a 100k run's Divan figures for the 1M run that follows it (and the 1M run's, to read again). */
export function saveForScale(suite, divan, opts) {
  if (divan === undefined || (opts.docs !== BASE_DOCS && opts.docs !== SCALE_DOCS)) return;
  const saved = { date: new Date().toISOString(), commit: commitOf(), load: loadavg(), result: divan };
  writeFileSync(savedPath(suite, opts.docs), JSON.stringify(saved));
}

function readBase(suite) {
  const path = savedPath(suite, BASE_DOCS);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * The view figures with a CouchDB figure at 1M or 100k. couch100k is what views.mjs prints as
 * "issue's CouchDB" (bulk load and the 1% write: issue #31's, views.mjs has none). value → the
 * figure; cpu → Divan's server CPU behind it (seconds for one-off steps, ms per request in loops).
 */
const VIEW_FIGURES = [
  {
    label: 'bulk load, s (Divan: batches of 1,000, 4 in flight)',
    couch1M: 66.6,
    couch100k: 4.2,
    better: 'lower',
    value: (s) => s.load?.seconds,
    cpu: (s) => s.load?.serverCpu,
    cpuUnit: 's',
  },
  {
    label: 'index build, both views, s',
    couch1M: 188,
    couch100k: 14.1,
    better: 'lower',
    value: (s) => (s.build?.ms === undefined || s.build.timedOut ? undefined : s.build.ms / 1000),
    cpu: (s) => s.build?.serverCpu,
    cpuUnit: 's',
  },
  {
    label: 'startkey=["userNNN"]&limit=10 c1, req/s',
    couch1M: 623,
    couch100k: 552,
    better: 'higher',
    value: (s) => s.startkey?.c1?.perSecond,
    cpu: (s) => s.startkey?.c1?.serverCpuMs,
  },
  {
    label: 'the same, c1 p50 ms',
    couch1M: 1.5,
    better: 'lower',
    value: (s) => s.startkey?.c1?.p50,
  },
  {
    label: 'startkey=["userNNN"]&limit=10 c16, req/s',
    couch1M: 1200,
    couch100k: 1283,
    better: 'higher',
    value: (s) => s.startkey?.c16?.perSecond,
    cpu: (s) => s.startkey?.c16?.serverCpuMs,
  },
  {
    label: 'the same, c16 p99 ms',
    couch1M: 27,
    better: 'lower',
    value: (s) => s.startkey?.c16?.p99,
  },
  {
    label: 'count_by_author?group=true c1, p50 ms',
    couch1M: 139,
    couch100k: 60,
    better: 'lower',
    value: (s) => s.group?.p50,
    cpu: (s) => s.group?.serverCpuMs,
  },
  {
    label: 'count_by_author?group=true c16, req/s',
    couch1M: 10.6,
    better: 'higher',
    value: (s) => s.group16?.perSecond,
    cpu: (s) => s.group16?.serverCpuMs,
  },
  {
    label: 'by_author_date?group_level=1 c1, p50 ms',
    couch1M: 257,
    couch100k: 67,
    better: 'lower',
    value: (s) => s.level1?.p50,
    cpu: (s) => s.level1?.serverCpuMs,
  },
  {
    label: 'by_author_date?reduce=true c1, p50 ms',
    couch100k: 2.1,
    better: 'lower',
    value: (s) => s.reduce?.p50,
    cpu: (s) => s.reduce?.serverCpuMs,
  },
  {
    label: 'POST 100 keys, reduce=false c1, p50 ms',
    couch1M: 46.6,
    couch100k: 23.8,
    better: 'lower',
    value: (s) => s.keys?.p50,
    cpu: (s) => s.keys?.serverCpuMs,
  },
  {
    label: 'include_docs=true, every post streamed, s',
    couch1M: 109,
    couch100k: 9.3,
    better: 'lower',
    value: (s) => (s.stream?.ms === undefined ? undefined : s.stream.ms / 1000),
    cpu: (s) => s.stream?.serverCpu,
    cpuUnit: 's',
  },
  {
    label: 'the same, first byte ms',
    couch1M: 8.4,
    better: 'lower',
    value: (s) => s.stream?.ttfbMs,
  },
  {
    label: '1% update: the _bulk_docs write, s',
    couch1M: 3.23,
    couch100k: 0.19,
    better: 'lower',
    value: (s) => (s.update?.writeMs === undefined ? undefined : s.update.writeMs / 1000),
    cpu: (s) => (s.update?.writeCpuMs === undefined ? undefined : s.update.writeCpuMs / 1000),
    cpuUnit: 's',
  },
  {
    label: '1% update: the next query of each view, ms',
    couch1M: 920,
    couch100k: 198,
    better: 'lower',
    value: (s) => s.update?.both,
    cpu: (s) => s.update?.cpuMs,
    cpuUnit: 'ms',
  },
  {
    label: 'peak RSS over the suite, load included, MB',
    couch1M: 418,
    couch100k: 238,
    better: 'lower',
    value: (s) => (s.suitePeakRss === undefined ? undefined : s.suitePeakRss / MB),
  },
];

/** How many times better Divan is than CouchDB (× faster, × the throughput, × less memory). */
const ratioOf = (divan, couch, better) =>
  divan === undefined || couch === undefined || !(divan > 0)
    ? undefined
    : better === 'higher'
      ? divan / couch
      : couch / divan;
const times = (x, d = 1) => (x === undefined || !Number.isFinite(x) ? 'n/a' : `${fmt(x, x < 10 ? d : 0)}×`);
const num = (x) => (x === undefined ? 'n/a' : fmt(x, x < 10 ? 2 : x < 100 ? 1 : 0));
const growth = (big, small) => (big === undefined || small === undefined || !(small > 0) ? undefined : big / small);

function baseLine(suite, base) {
  if (base === undefined) {
    console.log(
      `\nno 100k ${suite} run of Divan saved (${savedPath(suite, BASE_DOCS)}): run the same command with --docs 100000 first for the 100k ratios and the growth.`,
    );
    return;
  }
  console.log(
    `100k figures: Divan's ${suite} run of ${base.date} (commit ${base.commit}, load ${base.load.map((l) => l.toFixed(1)).join(' ')}), from ${savedPath(suite, BASE_DOCS)}.`,
  );
}

/** The 1M views table: CouchDB's recorded 1M figures beside Divan's, the ratios at 1M and 100k. */
export function reportViewsScale(results, opts) {
  const divan = results.divan;
  if (opts.docs !== SCALE_DOCS || divan === undefined) return;
  const base = readBase('views');
  console.log('\n## views at 1M documents: the ratio to CouchDB against 100k (issue #31, Scale)\n');
  console.log(
    "CouchDB 3.5.0's 1M figures are recorded (CouchDB alone on this kind of machine, bulk load in batches of 5,000); its 100k figures are those of the views table. " +
      'Ratio = how many times better Divan is. Growth = the 1M figure ÷ the 100k one (for req/s, the 100k rate ÷ the 1M one: > 1 means slower). ' +
      "Divan's server CPU behind a figure (s for a step, ms per request in a loop) grows apart from the machine's load.",
  );
  baseLine('views', base);
  if (opts.dataFrom !== undefined) {
    console.log(
      `This run started on a copy of ${opts.dataFrom} (--data-from): no bulk load, and no load in the peak RSS.`,
    );
  }
  const head = [
    'workload',
    'CouchDB 1M',
    'Divan 1M',
    'ratio 1M',
    'ratio 100k (Divan 100k)',
    'CouchDB growth',
    'Divan growth',
    'Divan CPU 100k → 1M',
    'ratio kept (wall)',
    'kept by CPU (Divan CPU growth ≤ CouchDB growth)',
  ];
  console.log(`\n| ${head.join(' | ')} |`);
  console.log(
    `|---|${head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  );
  for (const f of VIEW_FIGURES) {
    const ours = f.value(divan);
    const ours100k = base === undefined ? undefined : f.value(base.result);
    const r1M = ratioOf(ours, f.couch1M, f.better);
    const r100k = ratioOf(ours100k, f.couch100k, f.better);
    const grow = (big, small) => (f.better === 'higher' ? growth(small, big) : growth(big, small));
    const cpu1M = f.cpu?.(divan);
    const cpu100k = base === undefined ? undefined : f.cpu?.(base.result);
    const kept =
      r1M === undefined || r100k === undefined ? '—' : r1M >= r100k ? 'yes' : `no (${fmt((r1M / r100k) * 100)}%)`;
    // On a loaded machine the two runs' wall clocks share the cores differently; Divan's CPU
    // growth against CouchDB's (measured alone) is the comparison the load does not move.
    const couchGrowth = grow(f.couch1M, f.couch100k);
    const cpuGrowth = growth(cpu1M, cpu100k);
    const keptByCpu =
      couchGrowth === undefined || cpuGrowth === undefined
        ? '—'
        : cpuGrowth <= couchGrowth
          ? 'yes'
          : `no (${times(cpuGrowth)} > ${times(couchGrowth)})`;
    console.log(
      `| ${[
        f.label,
        f.couch1M === undefined ? 'not recorded' : num(f.couch1M),
        num(ours),
        times(r1M),
        f.couch100k === undefined ? `— (${num(ours100k)})` : `${times(r100k)} (${num(ours100k)})`,
        times(couchGrowth),
        times(grow(ours, ours100k)),
        f.cpu === undefined
          ? ''
          : `${num(cpu100k)} → ${num(cpu1M)} ${f.cpuUnit ?? 'ms/req'} (${times(growth(cpu1M, cpu100k))})`,
        kept,
        keptByCpu,
      ].join(' | ')} |`,
    );
  }
  const build1M = VIEW_FIGURES[1].value(divan);
  const build100k = base === undefined ? undefined : VIEW_FIGURES[1].value(base.result);
  const buildGrowth = growth(build1M, build100k);
  const cpuGrowth = growth(
    VIEW_FIGURES[1].cpu(divan),
    base === undefined ? undefined : VIEW_FIGURES[1].cpu(base.result),
  );
  console.log(
    `\nindex build growth, 1M ÷ 100k: ${times(buildGrowth)} wall, ${times(cpuGrowth)} server CPU (target ≤ 11×; CouchDB ${times(188 / 14.1)}): ` +
      `${buildGrowth === undefined ? 'n/a' : buildGrowth <= 11 ? 'PASS' : 'MISS'} on wall clock, ${cpuGrowth === undefined ? 'n/a' : cpuGrowth <= 11 ? 'PASS' : 'MISS'} on CPU`,
  );
}

/**
 * The 1M Mango table: CouchDB's Mango figures at 1M are not recorded, so Divan's growth per
 * figure stands beside CouchDB's growth on the view figures. judgedBy is mango.mjs's (seconds,
 * req/s or p50 ms); labels are its TARGETS'.
 */
export function reportMangoScale(results, opts, targets, judgedBy) {
  const divan = results.divan;
  if (opts.docs !== SCALE_DOCS || divan === undefined) return;
  const base = readBase('mango');
  console.log("\n## mango at 1M documents: Divan's growth from 100k (issue #31, Scale)\n");
  console.log(
    "CouchDB's Mango figures at 1M are NOT recorded: no ratio to CouchDB at 1M can be given. Divan's growth (1M ÷ 100k; for req/s the 100k rate ÷ the 1M one) " +
      `stands beside CouchDB's growth on the view figures: bulk load ${times(66.6 / 4.2)}, view build ${times(188 / 14.1)}, range c1 ${times(552 / 623)}, ` +
      `group=true ${times(139 / 60)}, group_level=1 ${times(257 / 67)}, POST 100 keys ${times(46.6 / 23.8)}, include_docs ${times(109 / 9.3)}.`,
  );
  baseLine('mango', base);
  const head = [
    'workload',
    'Divan 100k',
    'Divan 1M',
    'Divan growth',
    'Divan CPU/request 100k → 1M, ms',
    "CouchDB 100k (issue's)",
  ];
  console.log(`\n| ${head.join(' | ')} |`);
  console.log(
    `|---|${head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  );
  for (const [key, target] of Object.entries(targets)) {
    const ours = judgedBy(divan[key], target);
    const ours100k = base === undefined ? undefined : judgedBy(base.result[key], target);
    const grow = target.better === 'higher' ? growth(ours100k, ours) : growth(ours, ours100k);
    const cpu1M = divan[key]?.serverCpuMs;
    const cpu100k = base?.result[key]?.serverCpuMs;
    console.log(
      `| ${[
        target.label,
        num(ours100k),
        num(ours),
        times(grow),
        cpu1M === undefined ? '' : `${num(cpu100k)} → ${num(cpu1M)} (${times(growth(cpu1M, cpu100k))})`,
        target.couch || '—',
      ].join(' | ')} |`,
    );
  }
}

#!/usr/bin/env node
// Hot spots of a server CPU profile, per benchmark phase.
//
//   DIVAN_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" DIVAN_BENCH_PHASES=/tmp/prof/phases \
//     node packages/db/bench/run.mjs --server divan --suite views [--workload group16,update]
//   node packages/db/bench/profile-summary.mjs /tmp/prof/*.cpuprofile [--phases /tmp/prof/phases] [--top 25]
//
// For each phase (bulk load, index build, each view workload: the times the bench wrote to the
// phases file) it prints the functions with the most self time and the most inclusive time,
// as "% of the phase's samples" (idle included, so a low total means the server waited).

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
let phasesFile;
let top = 25;
const profiles = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--phases') phasesFile = args[++i];
  else if (args[i] === '--top') top = Number(args[++i]);
  else profiles.push(args[i]);
}
if (profiles.length === 0) {
  console.error('usage: node bench/profile-summary.mjs FILE.cpuprofile... [--phases FILE] [--top N]');
  process.exit(2);
}

const phases = phasesFile
  ? readFileSync(phasesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([server]) => server === 'divan')
      .map(([, name, start, end]) => ({ name, start: Number(start), end: Number(end) }))
  : [];

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

for (const file of profiles) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => {
    const f = n.callFrame;
    const where = f.url
      ? `${f.url
          .replace(/^file:\/\//, '')
          .replace(/.*\/packages\//, '')
          .replace(/.*\/node_modules\//, 'nm/')}:${f.lineNumber + 1}`
      : '';
    return `${f.functionName || '(anonymous)'} ${where}`.trim();
  };
  // Sample times (µs, the monotonic clock).
  const times = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));

  const summarize = (title, from, to) => {
    const self = new Map();
    const incl = new Map();
    let total = 0;
    let busy = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      if (times[i] < from || times[i] > to) continue;
      total++;
      const node = byId.get(profile.samples[i]);
      const name = label(node);
      self.set(name, (self.get(name) ?? 0) + 1);
      if (!IDLE.has(node.callFrame.functionName)) busy++;
      const seen = new Set();
      for (let id = node.id; id !== undefined; id = parent.get(id)) {
        const l = label(byId.get(id));
        if (seen.has(l)) continue;
        seen.add(l);
        incl.set(l, (incl.get(l) ?? 0) + 1);
      }
    }
    if (total === 0) return;
    const pct = (n) => `${((n * 100) / total).toFixed(1).padStart(5)}%`;
    console.log(
      `\n=== ${title}: ${total} samples, ${((busy * 100) / total).toFixed(0)}% busy (not idle/program/GC: GC ${pct(self.get('(garbage collector)') ?? 0)})`,
    );
    console.log('  self:');
    for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${pct(n)}  ${name}`);
    console.log('  inclusive (functions of this repo and sqlite/isolated-vm):');
    const interesting = [...incl]
      .filter(
        ([name]) =>
          /db\/dist|db\/src|router\/dist|nm\/(better-sqlite3|isolated-vm)|^\(garbage/.test(name) &&
          !/^\(root\)/.test(name),
      )
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
    for (const [name, n] of interesting) console.log(`    ${pct(n)}  ${name}`);
  };

  console.log(`# ${basename(file)}`);
  if (phases.length === 0) summarize('whole profile', -Infinity, Infinity);
  for (const p of phases) summarize(p.name, p.start, p.end);
}

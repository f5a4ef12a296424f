#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript (src/cli/divan.ts).
// The server runs in a node started with the flags of ./node-flags.json and the environment of
// ./node-env.json (the bench starts its server with both too):
// - --no-node-snapshot: the view sandbox (isolated-vm) needs it on Node >= 20;
// - --max-semi-space-size=8: V8's young generation stops at two 8 MB semi-spaces instead of 16
//   (~15 MB less at the view bench's peak RSS, docs/benchmarks.md, session 42); V8 reads it only
//   when the process starts, so the launcher is where it can be set (src/server-heap.ts bounds
//   the old generation at run time).
// The environment (a variable already set wins):
// - MALLOC_ARENA_MAX=2: glibc's malloc keeps two arenas rather than one per thread up to 8 per
//   core; V8's and libuv's helper threads each kept a few MB of freed memory in arenas of their
//   own (~10 MB at the view bench's peak RSS, docs/benchmarks.md, session 43). glibc reads it
//   only when the process starts.
// With --no-node-snapshot (`node --no-node-snapshot bin/divan.js`, or NODE_OPTIONS) this process
// is the server, with whatever other flags it was given. Without it, the same command runs again
// in a child node that has the flags (those not given otherwise): signals are passed on,
// this process exits as the child does, and the child stops when this process ends however it
// ends (kill -9 included), because it watches the IPC channel between them, which the operating
// system closes with this process. A supervisor that kills the process it started so never
// leaves a server holding the port and the data folder.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const FLAG = '--no-node-snapshot';
const NODE_FLAGS = JSON.parse(readFileSync(new URL('./node-flags.json', import.meta.url), 'utf8'));
/** The launcher's environment for its server (./node-env.json); a variable already set wins. */
const NODE_ENV = JSON.parse(readFileSync(new URL('./node-env.json', import.meta.url), 'utf8'));
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((f) =>
  f.replaceAll('_', '-'),
);
const hasFlag = given.includes(FLAG);
/** The launcher's flags node was not given (by name: a value given otherwise is kept). */
const missing = NODE_FLAGS.filter((flag) => !given.some((g) => g.split('=')[0] === flag.split('=')[0]));

if (hasFlag) {
  // Start-up's full collections also compact (the flag is cleared by the idle collection,
  // src/cli/idle-compaction.ts): set before the server's modules load, whose objects they move.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--compact-on-every-full-gc');
  const { run } = await import('../dist/src/cli/divan.js');
  await run();
} else {
  const child = spawn(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...NODE_ENV, ...process.env, DIVAN_LAUNCHED_BY: String(process.pid) },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}

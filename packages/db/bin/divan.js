#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript (src/cli/divan.ts).
// The view sandbox (isolated-vm) needs node started with --no-node-snapshot on Node >= 20: when
// the flag is missing, run this same command again in a child node that has it, passing
// signals on and exiting as the child does.
import { spawn } from 'node:child_process';

const FLAG = '--no-node-snapshot';
const hasFlag = process.execArgv.includes(FLAG) || (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(FLAG);

if (hasFlag) {
  const { run } = await import('../dist/src/cli/divan.js');
  await run();
} else {
  const child = spawn(process.execPath, [FLAG, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}

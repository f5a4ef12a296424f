#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript (src/cli/divan.ts).
// The view sandbox (isolated-vm) needs node started with --no-node-snapshot on Node >= 20. With
// the flag (`node --no-node-snapshot bin/divan.js`, or NODE_OPTIONS) this process is the server.
// Without it, the same command runs again in a child node that has it: signals are passed on,
// this process exits as the child does, and the child stops when this process ends however it
// ends (kill -9 included), because it watches the IPC channel between them, which the operating
// system closes with this process. A supervisor that kills the process it started so never
// leaves a server holding the port and the data folder.
import { spawn } from 'node:child_process';

const FLAG = '--no-node-snapshot';
const hasFlag = process.execArgv.includes(FLAG) || (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(FLAG);

if (hasFlag) {
  // Start-up's full collections also compact (the flag is cleared by the idle collection,
  // src/cli/idle-compaction.ts): set before the server's modules load, whose objects they move.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--compact-on-every-full-gc');
  const { run } = await import('../dist/src/cli/divan.js');
  await run();
} else {
  const child = spawn(process.execPath, [FLAG, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, DIVAN_LAUNCHED_BY: String(process.pid) },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}

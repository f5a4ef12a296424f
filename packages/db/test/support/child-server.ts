/** The real `divan serve` command as a child process (for crash and CLI tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/divan.js', import.meta.url));
/** What the launcher starts its server with (bin/node-flags.json, bin/node-env.json). */
const launchedFlags = (): string[] =>
  JSON.parse(readFileSync(new URL('../../../bin/node-flags.json', import.meta.url), 'utf8'));
const launchedEnv = (): Record<string, string> =>
  JSON.parse(readFileSync(new URL('../../../bin/node-env.json', import.meta.url), 'utf8'));

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string | null>;
}

/**
 * `divan serve` with the flag the sandbox needs, so the process started is the server; with
 * `launcher: true` as `divan` runs from a shell (node without the flag): the process started is
 * the launcher, and the server its child; with `asLaunched: true` the process started is the
 * server as the launcher starts it (its node flags and environment: what a memory bound is about).
 */
export function startChildServer(
  args: string[],
  env: Record<string, string> = {},
  options: { launcher?: boolean; asLaunched?: boolean } = {},
): Promise<ChildServer> {
  const nodeOptions = (process.env.NODE_OPTIONS ?? '').replaceAll('--no-node-snapshot', '').trim();
  const flags = options.launcher === true ? [] : options.asLaunched === true ? launchedFlags() : ['--no-node-snapshot'];
  const launched = options.asLaunched === true ? launchedEnv() : {};
  const child = spawn(process.execPath, [...flags, BIN, 'serve', '--port', '0', ...args], {
    env: { ...launched, ...process.env, NODE_OPTIONS: nodeOptions, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | string | null>((resolve) => {
    child.on('exit', (code, signal) => resolve(signal ?? code));
  });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match !== null) resolve({ url: match[1]!, child, output: () => out, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    void exited.then((code) => reject(new Error(`divan exited (${code}) before listening:\n${out}`)));
  });
}

/** The real `divan serve` command as a child process (for crash and CLI tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/divan.js', import.meta.url));

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
 * the launcher, and the server its child.
 */
export function startChildServer(
  args: string[],
  env: Record<string, string> = {},
  options: { launcher?: boolean } = {},
): Promise<ChildServer> {
  const nodeOptions = (process.env.NODE_OPTIONS ?? '').replaceAll('--no-node-snapshot', '').trim();
  const flags = options.launcher === true ? [] : ['--no-node-snapshot'];
  const child = spawn(process.execPath, [...flags, BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions, ...env },
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

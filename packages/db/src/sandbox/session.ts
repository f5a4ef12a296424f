import { CouchError } from '../errors.js';
import { SandboxFailure, type Sandbox, type SandboxEngine } from './engine.js';
import { isolatedVmEngine } from './isolated-vm.js';
import { callOf, report, reportCall, reportPrompt, reportStart } from './meter.js';

/** Where sandbox messages go: `user` for the functions' own log() calls, `error` for failures. */
export type SandboxLog = (message: string, kind: 'user' | 'error') => void;

export interface SessionOptions {
  /** Longest one sandbox call (one batch) may run. Default 5000 ms (CouchDB's os_process_timeout). */
  timeoutMs?: number;
  /** Heap cap of the sandbox. Default 128 MB. */
  memoryLimitMb?: number;
  log?: SandboxLog;
  /** Default: isolated-vm. */
  engine?: SandboxEngine;
}

export interface InitPayload {
  maps: string[];
  reduces: string[];
  lib: unknown;
  reduceLimit: boolean | 'log';
  threshold: number;
  ratio: number;
  /** A `_changes` filter function and the design document it is called on (`this`). */
  filter?: string;
  ddoc?: unknown;
}

export interface CompileFailure {
  kind: 'map' | 'reduce' | 'filter';
  index: number;
  message: string;
}

/**
 * One sandbox with the runtime initialised for a set of functions. Calls are serialised; after
 * a timeout or memory failure the sandbox is thrown away and the next call starts a fresh one
 * (CouchDB likewise kills the couchjs process), so user state never outlives a failure.
 */
export class SandboxSession {
  readonly timeoutMs: number;
  readonly memoryLimitMb: number;
  readonly log: SandboxLog;
  private readonly engine: SandboxEngine;
  private sandbox: Sandbox | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly payload: InitPayload,
    options: SessionOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.memoryLimitMb = options.memoryLimitMb ?? 128;
    this.log = options.log ?? (() => {});
    this.engine = options.engine ?? isolatedVmEngine;
  }

  /** Starts the sandbox and compiles the functions; resolves with the first compile failure, if any. */
  async start(): Promise<CompileFailure | undefined> {
    try {
      await this.ensure();
      return undefined;
    } catch (err) {
      if (err instanceof CompileError) return err.failure;
      throw err;
    }
  }

  /** Runs one runtime method; failures of the sandbox itself become CouchErrors. */
  call(method: string, input: string, what: string): Promise<string> {
    const run = async (): Promise<string> => {
      if (this.closed) throw new CouchError('os_process_error', 'the view sandbox was disposed');
      const sandbox = await this.ensure();
      const startedAt = performance.now();
      try {
        const out = await sandbox.call(method, input, this.timeoutMs);
        reportPrompt(callOf(method), startedAt);
        return out;
      } catch (err) {
        throw this.failed(err, what);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Resolves once the sandbox is running, so that `callSync` can be used. */
  async ready(): Promise<void> {
    await this.queue;
    await this.ensure();
  }

  /**
   * `call`, blocking: for code that must stay inside one synchronous step (B-tree maintenance
   * in a storage transaction). Needs a running sandbox: await `ready()` first.
   */
  callSync(method: string, input: string, what: string): string {
    if (this.closed) throw new CouchError('os_process_error', 'the view sandbox was disposed');
    const sandbox = this.sandbox;
    if (sandbox === undefined || sandbox.disposed) {
      throw new CouchError('os_process_error', `${what}: the view sandbox is restarting, try again`);
    }
    const startedAt = performance.now();
    try {
      const out = sandbox.callSync(method, input, this.timeoutMs);
      reportPrompt(callOf(method), startedAt);
      return out;
    } catch (err) {
      throw this.failed(err, what);
    }
  }

  /** Throws the sandbox away after a failure and says why, as a CouchError. */
  private failed(err: unknown, what: string): CouchError {
    report({ kind: 'error' });
    if (this.sandbox !== undefined && !this.sandbox.disposed) report({ kind: 'error_exit' });
    this.sandbox?.dispose();
    this.sandbox = undefined;
    const failure = err instanceof SandboxFailure ? err : new SandboxFailure('error', String(err));
    const reason =
      failure.kind === 'timeout'
        ? `${what} exceeded the ${this.timeoutMs} ms time limit`
        : failure.kind === 'memory'
          ? `${what} exceeded the ${this.memoryLimitMb} MB memory limit`
          : `${what} failed: ${failure.message}`;
    this.log(reason, 'error');
    return new CouchError(failure.kind === 'timeout' ? 'os_process_timeout' : 'os_process_error', reason);
  }

  dispose(): void {
    this.closed = true;
    if (this.sandbox !== undefined && !this.sandbox.disposed) report({ kind: 'exit' });
    this.sandbox?.dispose();
    this.sandbox = undefined;
  }

  private async ensure(): Promise<Sandbox> {
    if (this.sandbox !== undefined && !this.sandbox.disposed) return this.sandbox;
    const spawnedAt = performance.now();
    const sandbox = await this.engine.create({ memoryLimitMb: this.memoryLimitMb });
    reportStart(spawnedAt);
    report({ kind: 'acquired' });
    let out: string;
    // CouchDB readies a process with `reset` and an `add_fun` per function, or `ddoc new` for a filter.
    const initAt = performance.now();
    try {
      out = await sandbox.call('init', JSON.stringify(this.payload), this.timeoutMs);
      if (this.payload.filter !== undefined) reportCall('ddoc_new', initAt);
      else {
        // One message here: its time goes to `reset`, the functions it compiled count as `add_fun`s.
        reportCall('reset', initAt);
        const functions = this.payload.maps.length + this.payload.reduces.length;
        for (let i = 0; i < functions; i++) report({ kind: 'call', call: 'add_fun', micros: 0 });
      }
    } catch (err) {
      sandbox.dispose();
      const message = err instanceof Error ? err.message : String(err);
      throw new CompileError({
        kind: 'map',
        index: -1,
        message: `evaluating the design document's functions failed: ${message}`,
      });
    }
    const result = JSON.parse(out) as { ok?: true; compile?: [CompileFailure['kind'], number, string] };
    if (result.compile !== undefined) {
      sandbox.dispose();
      const [kind, index, message] = result.compile;
      throw new CompileError({ kind, index, message });
    }
    this.sandbox = sandbox;
    return sandbox;
  }
}

class CompileError extends Error {
  constructor(readonly failure: CompileFailure) {
    super(failure.message);
  }
}

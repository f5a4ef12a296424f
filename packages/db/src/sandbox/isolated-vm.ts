import { CouchError } from '../errors.js';
import { garbageCollector } from '../support/collector.js';
import { SandboxFailure, type Sandbox, type SandboxEngine } from './engine.js';
import { SANDBOX_RUNTIME } from './runtime.js';

type IvmModule = typeof import('isolated-vm');
type Isolate = import('isolated-vm').Isolate;
type Reference = import('isolated-vm').Reference;

const FLAG = '--no-node-snapshot';
/** Set to "1" to use isolated-vm on Node ≥ 20 without `--no-node-snapshot` (not recommended). */
export const ALLOW_SNAPSHOT_ENV = 'DIVAN_ALLOW_NODE_SNAPSHOT';

/** Whether this node process runs with `--no-node-snapshot` (on the command line or in NODE_OPTIONS). */
export function hasNoNodeSnapshotFlag(): boolean {
  if (process.execArgv.includes(FLAG)) return true;
  return (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(FLAG);
}

/**
 * Node ≥ 20 starts from a V8 startup snapshot whose shared read-only heap isolated-vm's own
 * isolates do not match; upstream (laverdet/isolated-vm#420, #424) reports SIGSEGV in
 * `SharedHeapDeserializer` on some platforms — a process crash, nothing to catch. So without
 * the flag the engine refuses to start instead of risking the server.
 */
export function checkNodeSnapshotFlag(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20 || hasNoNodeSnapshotFlag() || process.env[ALLOW_SNAPSHOT_ENV] === '1') return;
  throw new CouchError(
    'sandbox_unavailable',
    `The JavaScript view sandbox (isolated-vm) needs node to run with ${FLAG} on Node ${process.versions.node}: ` +
      `start node with ${FLAG} or set NODE_OPTIONS=${FLAG} (or ${ALLOW_SNAPSHOT_ENV}=1 to run without it at the risk of a crash).`,
  );
}

let ivmModule: Promise<IvmModule> | undefined;
/** The isolated-vm module, loaded once (also for sandboxes that need more than {@link Sandbox}'s calls). */
export function loadIvm(): Promise<IvmModule> {
  ivmModule ??= import('isolated-vm').then(
    (m) => ((m as { default?: IvmModule }).default ?? m) as IvmModule,
    (err: unknown) => {
      ivmModule = undefined;
      throw new CouchError('sandbox_unavailable', `isolated-vm could not be loaded: ${(err as Error).message}`);
    },
  );
  return ivmModule;
}

/** The isolates not yet disposed (weakly: one nobody holds may still be collected). */
const liveIsolates = new Set<WeakRef<Isolate>>();
let disposesAtExit = false;

/**
 * A new isolate of `memoryLimitMb` (at least 8). Every sandbox starts its isolate here, so the
 * process's exit can be made safe for isolated-vm: when node tears its environment down while V8
 * is in the middle of an incremental marking, node finishes that collection after isolated-vm's
 * own environment is gone, and the finalizer of any of its handles (an isolate, a context, a
 * reference) found dead then aborts the process (`IsolateEnvironment::GetCurrent(): environment
 * != nullptr`, seen in gdb under `node::IsolateData::~IsolateData`), after everything else
 * finished well. So at exit every isolate still alive is disposed and one full collection runs
 * while isolated-vm can still finalize its handles; no marking is left to finish at teardown.
 */
export function newIsolate(ivm: IvmModule, memoryLimitMb: number): Isolate {
  const isolate = new ivm.Isolate({ memoryLimit: Math.max(8, memoryLimitMb) });
  for (const ref of liveIsolates) {
    const held = ref.deref();
    if (held === undefined || held.isDisposed) liveIsolates.delete(ref);
  }
  liveIsolates.add(new WeakRef(isolate));
  if (!disposesAtExit) {
    disposesAtExit = true;
    process.once('exit', () => {
      for (const ref of liveIsolates) {
        const held = ref.deref();
        if (held !== undefined && !held.isDisposed) held.dispose();
      }
      liveIsolates.clear();
      garbageCollector()?.();
    });
  }
  return isolate;
}

/** isolated-vm: one V8 isolate (own heap, own memory cap) per sandbox. */
export const isolatedVmEngine: SandboxEngine = {
  name: 'isolated-vm',
  async create({ memoryLimitMb }) {
    checkNodeSnapshotFlag();
    const ivm = await loadIvm();
    const isolate = newIsolate(ivm, memoryLimitMb);
    try {
      const context = await isolate.createContext();
      const dispatch = (await context.eval(SANDBOX_RUNTIME, { reference: true, timeout: 5000 })) as Reference;
      return new IsolatedVmSandbox(isolate, dispatch);
    } catch (err) {
      if (!isolate.isDisposed) isolate.dispose();
      throw err;
    }
  },
};

class IsolatedVmSandbox implements Sandbox {
  constructor(
    private readonly isolate: Isolate,
    private readonly dispatch: Reference,
  ) {}

  get disposed(): boolean {
    return this.isolate.isDisposed;
  }

  async call(method: string, input: string, timeoutMs: number): Promise<string> {
    if (this.isolate.isDisposed) throw new SandboxFailure('error', 'sandbox is disposed');
    try {
      return this.checked(await this.dispatch.apply(undefined, [method, input], { timeout: timeoutMs }));
    } catch (err) {
      throw this.failure(err);
    }
  }

  callSync(method: string, input: string, timeoutMs: number): string {
    if (this.isolate.isDisposed) throw new SandboxFailure('error', 'sandbox is disposed');
    try {
      return this.checked(this.dispatch.applySync(undefined, [method, input], { timeout: timeoutMs }));
    } catch (err) {
      throw this.failure(err);
    }
  }

  private checked(out: unknown): string {
    if (typeof out !== 'string') throw new SandboxFailure('error', `sandbox returned ${typeof out}`);
    return out;
  }

  private failure(err: unknown): SandboxFailure {
    if (err instanceof SandboxFailure) return err;
    const message = err instanceof Error ? err.message : String(err);
    if (/memory limit/i.test(message)) return new SandboxFailure('memory', message);
    if (/timed out/i.test(message)) return new SandboxFailure('timeout', message);
    if (this.isolate.isDisposed) return new SandboxFailure('memory', message);
    return new SandboxFailure('error', message);
  }

  dispose(): void {
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}

/**
 * What the view code needs from a JavaScript sandbox, so the engine can be swapped
 * (isolated-vm now; quickjs-emscripten or a child process later). An engine evaluates
 * {@link SANDBOX_RUNTIME} in a fresh, empty global and hands back its dispatch function as
 * `call`; everything crosses the boundary as JSON text, nothing else is shared.
 */
export interface SandboxEngine {
  readonly name: string;
  /** A fresh sandbox with the runtime loaded. */
  create(options: { memoryLimitMb: number }): Promise<Sandbox>;
}

export interface Sandbox {
  /**
   * Runs the runtime's `dispatch(method, input)` and resolves with its JSON output. Rejects
   * with a {@link SandboxFailure}: `timeout` when it ran longer than `timeoutMs` (including any
   * promise jobs it queued), `memory` when it hit the memory cap; after either the sandbox is
   * unusable and must be disposed.
   */
  call(method: string, input: string, timeoutMs: number): Promise<string>;
  /**
   * The same, blocking the caller: index maintenance keeps reductions in B-tree nodes and
   * computes them inside one synchronous storage transaction. Same failures, thrown.
   */
  callSync(method: string, input: string, timeoutMs: number): string;
  readonly disposed: boolean;
  dispose(): void;
}

export type SandboxFailureKind = 'timeout' | 'memory' | 'error';

export class SandboxFailure extends Error {
  constructor(
    readonly kind: SandboxFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxFailure';
  }
}

/**
 * WAL checkpoints off the event loop. A checkpoint copies the pages of committed transactions from
 * the WAL into the database file and, with synchronous=NORMAL, fsyncs the file: done by the
 * writing connection (SQLite's autocheckpoint), it stalls every request behind the commit that
 * crossed the threshold (measured: a third of the wall time of storing 10 KB attachments). One
 * worker thread (./wal-checkpoint-worker.ts) holds a second connection to each open database
 * and checkpoints it once no commit came for a moment (not under the requests that follow a
 * write), or once its oldest commit not yet copied is a few hundred milliseconds old; the writer
 * keeps a far autocheckpoint as a safety net. Where no worker can start, the writer checkpoints
 * as before.
 *
 * The worker is a second JavaScript environment (~8 MB resident), so it starts only once a file
 * has taken WATCH_AFTER_DOCS document writes: a server that only reads never pays for it, and
 * until then a file's WAL is checkpointed by its writer every ~16 MiB, as without a worker.
 */
import { Worker } from 'node:worker_threads';
import type { CheckpointMessage } from './wal-checkpoint-worker.js';

/** The writer's own autocheckpoint (pages) while the worker runs: only reached if it falls behind. */
export const SAFETY_NET_PAGES = 8192;

/**
 * A file's document writes before the worker takes over its checkpoints: more than a server's
 * start-up makes (`_users`' design document), few enough that a writing workload hands its
 * checkpoints over long before its WAL reaches the writer's own threshold.
 */
export const WATCH_AFTER_DOCS = 16;

/** How long a close waits for the worker to let go of a file (it may be mid-checkpoint). */
const UNWATCH_TIMEOUT_MS = 10_000;

export class WalCheckpointer {
  private static instance: WalCheckpointer | null | undefined;
  private nextId = 1;
  private alive = true;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    const stop = () => {
      this.alive = false;
    };
    worker.on('error', stop);
    worker.on('exit', stop);
  }

  /** The process's checkpointer; null where a worker thread cannot start. */
  static shared(): WalCheckpointer | null {
    if (WalCheckpointer.instance === undefined) {
      try {
        WalCheckpointer.instance = new WalCheckpointer(
          new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), {
            resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16, codeRangeSizeMb: 4 },
          }),
        );
      } catch {
        WalCheckpointer.instance = null;
      }
    }
    return WalCheckpointer.instance;
  }

  /** The process's checkpointer if one was asked for already (started, or null if it could not start). */
  static started(): WalCheckpointer | null | undefined {
    return WalCheckpointer.instance;
  }

  get running(): boolean {
    return this.alive;
  }

  /** Starts checkpointing the file its writer opened by `path` (./process-vfs.ts), already migrated. */
  watch(path: string, synchronous: 'NORMAL' | 'FULL'): number {
    const id = this.nextId++;
    this.post({ type: 'watch', id, path, synchronous });
    return id;
  }

  /** Stops, and returns once the worker's connection to the file is closed (see the worker). */
  unwatch(id: number): void {
    if (!this.alive) return;
    const closed = new Int32Array(new SharedArrayBuffer(4));
    this.post({ type: 'unwatch', id, closed });
    Atomics.wait(closed, 0, 0, UNWATCH_TIMEOUT_MS);
  }

  private post(message: CheckpointMessage): void {
    this.worker.postMessage(message);
  }
}

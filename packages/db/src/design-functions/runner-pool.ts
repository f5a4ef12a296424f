/**
 * Sandboxes of a design document's functions, kept for the next request: starting an isolate
 * costs far more than a show does. Each request takes a runner of its own (a list holds its
 * runner while it streams), so concurrent requests never share one; a few idle ones are kept per
 * design document, for its current revision only. As with couchjs processes, what a function
 * leaves in its globals may be seen by a later request; a time or memory failure throws the
 * isolate away.
 */
import type { Database } from '../documents/database.js';
import { createRenderRunner, type RenderRunner, type RenderRunnerOptions } from '../sandbox/index.js';
import type { DesignDoc } from './design-doc.js';

/** Idle runners kept per design document. */
const MAX_IDLE = 2;

interface Idle {
  rev: string;
  /** The `discardKeptRunners` round they were made in. */
  round: number;
  runners: RenderRunner[];
}

const pools = new WeakMap<Database, Map<string, Idle>>();
let round = 0;

/**
 * `POST /_reload_query_servers`: no kept runner is used again (each goes at its next use), so
 * every design document's functions start in fresh sandboxes, as CouchDB's reloaded couchjs
 * processes do.
 */
export function discardKeptRunners(): void {
  round++;
}

/** Runs `use` with a runner of the design document's current revision, and keeps the runner for later. */
export async function withRunner<T>(
  db: Database,
  ddoc: DesignDoc,
  options: RenderRunnerOptions,
  use: (runner: RenderRunner) => Promise<T>,
): Promise<T> {
  let pool = pools.get(db);
  if (pool === undefined) pools.set(db, (pool = new Map()));
  let idle = pool.get(ddoc.id);
  if (idle === undefined || idle.rev !== ddoc.rev || idle.round !== round) {
    // Another revision (its functions may have changed), or the sandboxes were reloaded.
    for (const runner of idle?.runners ?? []) runner.dispose();
    idle = { rev: ddoc.rev, round, runners: [] };
    pool.set(ddoc.id, idle);
  }
  const runner = idle.runners.pop() ?? (await createRenderRunner(ddoc.json, options));
  try {
    return await use(runner);
  } finally {
    const kept = pool.get(ddoc.id) === idle && !runner.disposed && idle.runners.length < MAX_IDLE;
    if (kept) idle.runners.push(runner);
    else runner.dispose();
  }
}

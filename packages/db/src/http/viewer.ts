/**
 * Who reads a database's documents in a request: what its read rules show them (a replication
 * document is shown whole only to its owner and the database's admins: documents/replicator-reads.ts).
 */
import type { Viewer } from '../documents/replicator-reads.js';
import type { RequestContext } from './context.js';

export function viewerOf(ctx: RequestContext): Viewer {
  return { name: ctx.user.name, dbAdmin: ctx.access?.dbAdmin === true };
}

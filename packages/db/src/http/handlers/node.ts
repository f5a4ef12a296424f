/**
 * The node and cluster endpoints CouchDB has for a single node: `/_membership`, `/_cluster_setup`,
 * `/_node/{node}/_system` and `/_node/{node}/_stats`. All admin-only, as in CouchDB.
 */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { NODE_NAME } from '../../server/couch-server.js';
import type { RequestContext } from '../context.js';
import { sendJson } from '../respond.js';

export const node = {
  membership(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { all_nodes: [NODE_NAME], cluster_nodes: [NODE_NAME] });
  },

  /** Set up at first start (an admin always exists): CouchDB's answer for a finished single node. */
  clusterSetup(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { state: 'single_node_enabled' });
  },

  /** The figures Node.js gives of this process, under CouchDB's names. */
  system(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const memory = process.memoryUsage();
    sendJson(ctx, 200, {
      uptime: Math.floor((Date.now() - ctx.server.startTime) / 1000),
      memory: {
        total: memory.rss,
        processes: memory.heapTotal,
        processes_used: memory.heapUsed,
        binary: memory.arrayBuffers,
        other: memory.external - memory.arrayBuffers,
      },
    });
  },

  /** `_stats`, or one group or figure of it (`_stats/couchdb/request_time`). */
  stats(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const path = ctx.params.rest === undefined ? [] : String(ctx.params.rest).split('/');
    let value: unknown = statsTree(ctx);
    for (const name of path) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
      if (value === undefined) throw new CouchError('not_found', 'missing');
    }
    sendJson(ctx, 200, value);
  },
};

function counter(value: number, desc: string) {
  return { value, type: 'counter', desc };
}

function statsTree(ctx: RequestContext) {
  const { stats } = ctx.server;
  const methods: Record<string, unknown> = {};
  for (const [method, n] of [...stats.methods].sort())
    methods[method] = counter(n, `number of HTTP ${method} requests`);
  const statuses: Record<string, unknown> = {};
  for (const [status, n] of [...stats.statuses].sort((a, b) => a[0] - b[0])) {
    statuses[status] = counter(n, `number of HTTP ${status} responses`);
  }
  return {
    couchdb: {
      httpd: { requests: counter(stats.requests, 'number of HTTP requests') },
      httpd_request_methods: methods,
      httpd_status_codes: statuses,
      open_databases: counter(ctx.server.openDbCount, 'number of open databases'),
      request_time: { value: stats.time(), type: 'histogram', desc: 'length of a request inside CouchDB' },
    },
  };
}

/**
 * The node and cluster endpoints CouchDB has for a single node: `/_membership`, `/_cluster_setup`,
 * `/_node/{node}/_system`, `_stats` and `_prometheus`. Admin-only, as in CouchDB; the monitoring
 * ones also for the `_metrics` role.
 */
import { requireAdmin, requireMetrics } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { NODE_NAME } from '../../server/couch-server.js';
import type { RequestContext } from '../context.js';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '../../server/prometheus.js';
import { sendBytes, sendJson } from '../respond.js';

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
    requireMetrics(ctx.user);
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
    requireMetrics(ctx.user);
    const path = ctx.params.rest === undefined ? [] : String(ctx.params.rest).split('/');
    let value: unknown = ctx.server.statsTree();
    for (const name of path) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
      if (value === undefined) throw new CouchError('not_found', 'missing');
    }
    sendJson(ctx, 200, value);
  },

  /** `_prometheus`: the same statistics in Prometheus' text format. */
  prometheus(ctx: RequestContext): void {
    requireMetrics(ctx.user);
    const uptime = Math.floor((Date.now() - ctx.server.startTime) / 1000);
    sendBytes(ctx, 200, prometheusText(ctx.server.statsTree(), uptime), { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
  },
};

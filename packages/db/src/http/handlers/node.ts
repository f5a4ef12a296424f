/**
 * The node and cluster endpoints CouchDB has for a single node: `/_membership`, `/_cluster_setup`,
 * `/_node/{node}` (its name), `/_node/{node}/_system`, `_stats`, `_prometheus`, `_versions`,
 * `_restart` and `_smoosh/status`. Admin-only, as in CouchDB; the monitoring ones also for the
 * `_metrics` role.
 */
import { getHashes } from 'node:crypto';
import { requireAdmin, requireMetrics } from '../../auth/index.js';
import { collatorVersion } from '../../collation/index.js';
import { CouchError } from '../../errors.js';
import { NODE_NAME } from '../../server/couch-server.js';
import type { RequestContext } from '../context.js';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '../../server/prometheus.js';
import { checkJsonType } from '../body.js';
import { sendBytes, sendJson } from '../respond.js';

/**
 * Smoosh's channels (CouchDB's auto-compaction daemon) as a CouchDB node with the default
 * configuration lists them. Divan compacts when asked (`_compact`), so none ever holds work.
 */
const SMOOSH_CHANNELS = [
  'ratio_dbs',
  'slack_dbs',
  'upgrade_dbs',
  'ratio_views',
  'slack_views',
  'upgrade_views',
  'index_cleanup',
];

export const node = {
  /** `GET /_node/_local`: this node's name. */
  name(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, { name: NODE_NAME });
  },

  /**
   * What the node is built on, in CouchDB's shape where Divan has the same part (the ICU collator
   * and the JavaScript engine); Divan runs on Node.js where CouchDB runs on Erlang.
   */
  versions(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const collation = collatorVersion();
    sendJson(ctx, 200, {
      nodejs: { version: process.versions.node, supported_hashes: getHashes() },
      collation_driver: {
        name: 'libicu',
        library_version: collation.icu,
        collation_algorithm_version: collation.uca,
        collator_version: collation.collator,
      },
      javascript_engine: { name: 'v8', version: process.versions.v8 },
    });
  },

  /**
   * `POST /_node/_local/_restart`: CouchDB restarts its applications, re-reading its config.
   * Divan keeps nothing that a restart would renew but what it reads from storage at start-up,
   * the config and the admins: it reads them again, and answers as CouchDB does. The process,
   * its port and the requests under way go on (a supervisor restarts the process itself).
   */
  async restart(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    await ctx.server.watchConfig();
    sendJson(ctx, 200, { ok: true });
  },

  /**
   * `POST /_reload_query_servers` (server admins, whatever the verb, as CouchDB authorizes the
   * path first; then POST with a JSON body type): the sandboxes kept for design document and
   * validate functions are dropped, so the next call of each starts fresh (couch_proc_manager:reload).
   */
  async reloadQueryServers(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    if (ctx.method !== 'POST') throw new CouchError('method_not_allowed', 'Only POST allowed');
    checkJsonType(ctx);
    // Loaded here, not with this module: `_stats` scrapes need no sandbox code.
    const [{ discardKeptRunners }, { reloadValidateFunctions }] = await Promise.all([
      import('../../design-functions/runner-pool.js'),
      import('../../documents/write-rules.js'),
    ]);
    discardKeptRunners();
    reloadValidateFunctions();
    sendJson(ctx, 200, { ok: true });
  },

  /** `GET /_node/_local/_smoosh/status`: every channel idle. */
  smooshStatus(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const idle = { active: 0, starting: 0, waiting: { size: 0, min: 0, max: 0 } };
    sendJson(ctx, 200, { channels: Object.fromEntries(SMOOSH_CHANNELS.map((name) => [name, idle])) });
  },

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

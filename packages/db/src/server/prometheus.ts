/**
 * `/_node/{node}/_prometheus`: the statistics in Prometheus' text format, named as CouchDB's
 * couch_prometheus names them (`couchdb_` + the path without its `couchdb` group; counters end
 * in `_total`, histograms are summaries in seconds, methods and status codes are labels, open
 * databases, `_changes` clients and the replicator's jobs are gauges).
 */
import type { HistogramValue, StatEntry, StatsTree } from './stats.js';

/** CouchDB's `Content-Type` for it (`couch_prometheus:version()`). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=2.0';

const GAUGES = new Set(['open_databases', 'httpd_clients_requesting_changes']);

/** Success counters CouchDB shows as their group's total (success and failure), with its description. */
const SUCCESS_TOTALS: Record<string, string> = {
  couch_replicator_checkpoints_success: 'number of checkpoint saves',
  couch_replicator_responses_success: 'number of HTTP responses received by the replicator',
};

export function prometheusText(tree: StatsTree, uptimeSeconds: number): string {
  const lines: string[] = [];
  const family = (name: string, type: string, desc: string, samples: [string, number][]) => {
    lines.push(`# HELP couchdb_${name} ${desc}`, `# TYPE couchdb_${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`couchdb_${name}${labels} ${value}`);
  };
  const entry = (path: string[]): StatEntry | undefined => {
    let node: StatsTree | StatEntry | undefined = tree;
    for (const part of path) node = node === undefined || 'type' in node ? undefined : (node as StatsTree)[part];
    return node !== undefined && 'type' in node && typeof node.type === 'string' ? (node as StatEntry) : undefined;
  };
  const count = (path: string[]) => Number(entry(path)?.value ?? 0);

  family('uptime_seconds', 'gauge', 'couchdb uptime', [['', uptimeSeconds]]);
  const walk = (node: StatsTree, path: string[]) => {
    for (const [name, child] of Object.entries(node)) {
      const here = [...path, name];
      if (!('type' in child) || typeof child.type !== 'string') {
        if (name === 'httpd_request_methods' || name === 'httpd_status_codes') labelled(name, child as StatsTree);
        else walk(child as StatsTree, here);
        continue;
      }
      metric(here, child as StatEntry);
    }
  };
  const labelled = (name: string, group: StatsTree) => {
    const byMethod = name === 'httpd_request_methods';
    const samples = Object.entries(group).map(
      ([label, child]) =>
        [`{${byMethod ? 'method' : 'code'}="${label}"}`, Number((child as StatEntry).value)] as [string, number],
    );
    family(
      name,
      'counter',
      byMethod ? 'number of HTTP requests by method' : 'number of HTTP responses by status code',
      samples,
    );
  };
  const metric = (path: string[], stat: StatEntry) => {
    const parts = path[0] === 'couchdb' ? path.slice(1) : path;
    const name = parts.join('_');
    if (name === 'auth_cache_hits') {
      const total = Number(stat.value) + count(['couchdb', 'auth_cache_misses']);
      return family('auth_cache_requests_total', 'counter', 'number of authentication cache requests', [['', total]]);
    }
    // A success counter is the total of its group (couch_prometheus_util), its failures apart.
    const totals = SUCCESS_TOTALS[name];
    if (totals !== undefined) {
      const group = path.slice(0, -1);
      const total = Number(stat.value) + count([...group, 'failure']);
      return family(`${group.join('_')}_total`, 'counter', totals, [['', total]]);
    }
    if (name === 'auth_cache_misses')
      return family('auth_cache_misses_total', 'counter', stat.desc, [['', Number(stat.value)]]);
    if (GAUGES.has(name) || stat.type === 'gauge') return family(name, 'gauge', stat.desc, [['', Number(stat.value)]]);
    if (stat.type === 'histogram') return summary(name, stat.desc, stat.value as HistogramValue);
    family(name.endsWith('_total') ? name : `${name}_total`, 'counter', stat.desc, [['', Number(stat.value)]]);
  };
  const summary = (name: string, desc: string, value: HistogramValue) => {
    const quantile: Record<number, string> = { 50: '0.5', 75: '0.75', 90: '0.9', 95: '0.95', 99: '0.99', 999: '0.999' };
    family(
      `${name}_seconds`,
      'summary',
      desc,
      value.percentile.map(([p, ms]) => [`{quantile="${quantile[p]}"}`, ms / 1000]),
    );
    lines.push(`couchdb_${name}_seconds_sum ${(value.n * value.arithmetic_mean) / 1000}`);
    lines.push(`couchdb_${name}_seconds_count ${value.n}`);
  };
  walk(tree, []);
  return `${lines.join('\n')}\n`;
}

/**
 * The node's statistics for `/_node/{node}/_stats` and `_prometheus`: counters and histograms
 * under CouchDB's names (its `stats_descriptions.cfg`), for what this server does. Kept since the
 * start of the process, as CouchDB keeps them. Counted by the floors that see the events (HTTP:
 * requests; the authenticator: its cache; Mango: its queries), read through `tree()`.
 */

import type { QueryServerMeter } from '../sandbox/meter.js';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDescription {
  type: MetricType;
  desc: string;
}

/** The metrics this server keeps, by their CouchDB path (dot-joined), with CouchDB's descriptions. */
export const METRICS = {
  'couchdb.auth_cache_hits': { type: 'counter', desc: 'number of authentication cache hits' },
  'couchdb.auth_cache_misses': { type: 'counter', desc: 'number of authentication cache misses' },
  'couchdb.database_reads': { type: 'counter', desc: 'number of times a document was read from a database' },
  'couchdb.database_writes': { type: 'counter', desc: 'number of times a database was changed' },
  'couchdb.database_purges': { type: 'counter', desc: 'number of times a database was purged' },
  'couchdb.local_document_writes': { type: 'counter', desc: 'number of _local document write operations' },
  'couchdb.httpd.bulk_requests': { type: 'counter', desc: 'number of bulk requests' },
  'couchdb.httpd.requests': { type: 'counter', desc: 'number of HTTP requests' },
  'couchdb.httpd.view_reads': { type: 'counter', desc: 'number of view reads' },
  'couchdb.httpd.clients_requesting_changes': { type: 'counter', desc: 'number of clients for continuous _changes' },
  'couchdb.httpd.purge_requests': { type: 'counter', desc: 'number of purge requests' },
  'couchdb.open_databases': { type: 'counter', desc: 'number of open databases' },
  'couchdb.request_time': { type: 'histogram', desc: 'length of a request inside CouchDB without MochiWeb' },
  'couchdb.query_server.vdu_rejects': {
    type: 'counter',
    desc: 'number of rejections by validate_doc_update function',
  },
  'couchdb.query_server.vdu_process_time': {
    type: 'histogram',
    desc: 'duration of validate_doc_update function calls',
  },
  'couchdb.query_server.acquired_processes': { type: 'counter', desc: 'number of acquired external processes' },
  'couchdb.query_server.process_starts': { type: 'counter', desc: 'number of OS process starts' },
  'couchdb.query_server.process_exits': { type: 'counter', desc: 'number of normal OS process exits' },
  'couchdb.query_server.process_error_exits': { type: 'counter', desc: 'number of error OS process exits' },
  'couchdb.query_server.process_errors': { type: 'counter', desc: 'number of OS process errors' },
  'couchdb.query_server.process_prompts': { type: 'counter', desc: 'number of successful OS process prompts' },
  'couchdb.query_server.time.spawn_proc': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent spawning os query processes',
  },
  'couchdb.query_server.time.map': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing map_doc requests',
  },
  'couchdb.query_server.time.reduce': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing reduce requests',
  },
  'couchdb.query_server.time.reset': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing reset requests',
  },
  'couchdb.query_server.time.add_fun': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing add_fun requests',
  },
  'couchdb.query_server.time.ddoc_new': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing ddoc new requests',
  },
  'couchdb.query_server.time.ddoc_vdu': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing vdu requests',
  },
  'couchdb.query_server.time.ddoc_filter': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing filter requests',
  },
  'couchdb.query_server.time.ddoc_other': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing other ddoc requests',
  },
  'couchdb.query_server.time.other': {
    type: 'counter',
    desc: 'accumulated number of microseconds spent processing other requests',
  },
  'couchdb.query_server.calls.spawn_proc': { type: 'counter', desc: 'number of spawned query processes' },
  'couchdb.query_server.calls.map': { type: 'counter', desc: 'number of map_doc requests' },
  'couchdb.query_server.calls.reduce': { type: 'counter', desc: 'number of reduce requests' },
  'couchdb.query_server.calls.reset': { type: 'counter', desc: 'number of reset requests' },
  'couchdb.query_server.calls.add_fun': { type: 'counter', desc: 'number of add_fun requests' },
  'couchdb.query_server.calls.ddoc_new': { type: 'counter', desc: 'number of ddoc new requests' },
  'couchdb.query_server.calls.ddoc_vdu': { type: 'counter', desc: 'number of vdu requests' },
  'couchdb.query_server.calls.ddoc_filter': { type: 'counter', desc: 'number of filter requests' },
  'couchdb.query_server.calls.ddoc_other': { type: 'counter', desc: 'number of other ddoc requests' },
  'couchdb.query_server.calls.other': { type: 'counter', desc: 'number of other requests' },
  'couchdb.query_server.js_filter': { type: 'counter', desc: 'number of JS filter invocations' },
  'couchdb.query_server.js_filterered': { type: 'counter', desc: 'number of docs filtered through JS invocations' },
  'couchdb.query_server.js_filter_error': { type: 'counter', desc: 'number of JS filter invocation errors' },
  'mango.unindexed_queries': { type: 'counter', desc: 'number of mango queries that could not use an index' },
  'mango.too_many_docs_scanned': {
    type: 'counter',
    desc: 'number of mango queries that generated an index scan warning',
  },
  'mango.keys_examined': {
    type: 'counter',
    desc: 'number of keys examined by mango queries coordinated by this node',
  },
  'mango.docs_examined': {
    type: 'counter',
    desc: 'number of documents examined by mango queries coordinated by this node',
  },
  'mango.results_returned': { type: 'counter', desc: 'number of rows returned by mango queries' },
  'mango.query_time': { type: 'histogram', desc: 'length of time processing a mango query' },
  // The replication scheduler's jobs on this node, read when asked (couch_replicator_scheduler's gauges).
  'couch_replicator.jobs.running': { type: 'gauge', desc: 'replicator scheduler running jobs' },
  'couch_replicator.jobs.pending': { type: 'gauge', desc: 'replicator scheduler pending jobs' },
  'couch_replicator.jobs.crashed': { type: 'gauge', desc: 'replicator scheduler crashed jobs' },
  'couch_replicator.jobs.total': { type: 'gauge', desc: 'total number of replicator scheduler jobs' },
  // What the replicator did (replication/meter.ts), CouchDB's couch_replicator counters.
  'couch_replicator.requests': { type: 'counter', desc: 'number of HTTP requests made by the replicator' },
  'couch_replicator.responses.success': {
    type: 'counter',
    desc: 'number of successful HTTP responses received by the replicator',
  },
  'couch_replicator.responses.failure': {
    type: 'counter',
    desc: 'number of failed HTTP responses received by the replicator',
  },
  'couch_replicator.checkpoints.success': { type: 'counter', desc: 'number of checkpoints successfully saves' },
  'couch_replicator.checkpoints.failure': { type: 'counter', desc: 'number of failed checkpoint saves' },
  'couch_replicator.changes_read_failures': {
    type: 'counter',
    desc: 'number of failed replicator changes read failures',
  },
  'couch_replicator.failed_starts': { type: 'counter', desc: 'number of replications that have failed to start' },
  'couch_replicator.db_scans': {
    type: 'counter',
    desc: 'number of times replicator db scans have been started',
  },
  'couch_replicator.docs.dbs_created': {
    type: 'counter',
    desc: 'number of db shard creations seen by replicator doc processor',
  },
  'couch_replicator.docs.dbs_deleted': {
    type: 'counter',
    desc: 'number of db shard deletions seen by replicator doc processor',
  },
  'couch_replicator.docs.dbs_found': { type: 'counter', desc: 'number of db shard found by replicator doc processor' },
  'couch_replicator.docs.db_changes': {
    type: 'counter',
    desc: 'number of db changes processed by replicator doc processor',
  },
  'couch_replicator.docs.failed_state_updates': {
    type: 'counter',
    desc: "number of 'failed' state document updates",
  },
  'couch_replicator.docs.completed_state_updates': {
    type: 'counter',
    desc: "number of 'completed' state document updates",
  },
  'couch_replicator.jobs.adds': { type: 'counter', desc: 'number of jobs added to replicator scheduler' },
  'couch_replicator.jobs.duplicate_adds': {
    type: 'counter',
    desc: 'number of duplicate jobs added to replicator scheduler',
  },
  'couch_replicator.jobs.removes': { type: 'counter', desc: 'number of jobs removed from replicator scheduler' },
  'couch_replicator.jobs.starts': { type: 'counter', desc: 'number of jobs started by replicator scheduler' },
  'couch_replicator.jobs.stops': { type: 'counter', desc: 'number of jobs stopped by replicator scheduler' },
  'couch_replicator.jobs.crashes': {
    type: 'counter',
    desc: 'number of job crashed noticed by replicator scheduler',
  },
} as const satisfies Record<string, MetricDescription>;

export type MetricName = keyof typeof METRICS;
export type CounterName = { [K in MetricName]: (typeof METRICS)[K]['type'] extends 'counter' ? K : never }[MetricName];
export type HistogramName = {
  [K in MetricName]: (typeof METRICS)[K]['type'] extends 'histogram' ? K : never;
}[MetricName];
/** A statistic read at the moment it is asked for rather than counted. */
export type LiveName = Exclude<MetricName, HistogramName>;

/** CouchDB's (folsom's) histogram value. */
export interface HistogramValue {
  min: number;
  max: number;
  arithmetic_mean: number;
  geometric_mean: number;
  harmonic_mean: number;
  median: number;
  variance: number;
  standard_deviation: number;
  skewness: number;
  kurtosis: number;
  percentile: [number, number][];
  histogram: [number, number][];
  n: number;
}

/** The methods and statuses CouchDB lists in `_stats` even before any request had them. */
export const COUCH_METHODS = ['COPY', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
export const COUCH_STATUSES: Record<number, string> = {
  200: 'number of HTTP 200 OK responses',
  201: 'number of HTTP 201 Created responses',
  202: 'number of HTTP 202 Accepted responses',
  204: 'number of HTTP 204 No Content responses',
  206: 'number of HTTP 206 Partial Content',
  301: 'number of HTTP 301 Moved Permanently responses',
  302: 'number of HTTP 302 Found responses',
  304: 'number of HTTP 304 Not Modified responses',
  400: 'number of HTTP 400 Bad Request responses',
  401: 'number of HTTP 401 Unauthorized responses',
  403: 'number of HTTP 403 Forbidden responses',
  404: 'number of HTTP 404 Not Found responses',
  405: 'number of HTTP 405 Method Not Allowed responses',
  406: 'number of HTTP 406 Not Acceptable responses',
  409: 'number of HTTP 409 Conflict responses',
  412: 'number of HTTP 412 Precondition Failed responses',
  413: 'number of HTTP 413 Request Entity Too Long responses',
  414: 'number of HTTP 414 Request URI Too Long responses',
  415: 'number of HTTP 415 Unsupported Media Type responses',
  416: 'number of HTTP 416 Requested Range Not Satisfiable responses',
  417: 'number of HTTP 417 Expectation Failed responses',
  500: 'number of HTTP 500 Internal Server Error responses',
  501: 'number of HTTP 501 Not Implemented responses',
  503: 'number of HTTP 503 Service unavailable responses',
  507: 'number of HTTP 507 Insufficient Storage responses',
};

/** The samples a histogram keeps for its percentiles (the latest ones). */
const SAMPLES = 1024;

class Histogram {
  readonly #samples: number[] = [];
  #next = 0;

  observe(value: number): void {
    if (this.#samples.length < SAMPLES) this.#samples.push(value);
    else this.#samples[this.#next] = value;
    this.#next = (this.#next + 1) % SAMPLES;
  }

  value(): HistogramValue {
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const n = sorted.length;
    const at = (q: number) => (n === 0 ? 0 : (sorted[Math.min(n - 1, Math.ceil(q * n) - 1)] ?? 0));
    const mean = n === 0 ? 0 : sorted.reduce((sum, x) => sum + x, 0) / n;
    const variance = n < 2 ? 0 : sorted.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
    const sd = Math.sqrt(variance);
    const moment = (k: number) =>
      n === 0 || sd === 0 ? 0 : sorted.reduce((sum, x) => sum + ((x - mean) / sd) ** k, 0) / n;
    const positive = sorted.filter((x) => x > 0);
    const geometric =
      positive.length === 0 ? 0 : Math.exp(positive.reduce((s, x) => s + Math.log(x), 0) / positive.length);
    const harmonic = positive.length === 0 ? 0 : positive.length / positive.reduce((s, x) => s + 1 / x, 0);
    return {
      min: sorted[0] ?? 0,
      max: sorted[n - 1] ?? 0,
      arithmetic_mean: mean,
      geometric_mean: geometric,
      harmonic_mean: harmonic,
      median: at(0.5),
      variance,
      standard_deviation: sd,
      skewness: moment(3),
      kurtosis: n === 0 || sd === 0 ? 0 : moment(4) - 3,
      percentile: [
        [50, at(0.5)],
        [75, at(0.75)],
        [90, at(0.9)],
        [95, at(0.95)],
        [99, at(0.99)],
        [999, at(0.999)],
      ],
      histogram: buckets(sorted),
      n,
    };
  }
}

/** Ten equal-width buckets over the samples, as `[upper bound, count]`. */
function buckets(sorted: number[]): [number, number][] {
  const max = sorted[sorted.length - 1];
  if (max === undefined) return [[0, 0]];
  const width = max / 10 || 1;
  const counts: [number, number][] = Array.from({ length: 10 }, (_, i) => [width * (i + 1), 0]);
  for (const x of sorted) {
    const bucket = counts[Math.min(9, Math.floor(x / width))];
    if (bucket !== undefined) bucket[1]++;
  }
  return counts;
}

/** A statistic as `_stats` shows it. */
export interface StatEntry {
  value: number | HistogramValue;
  type: MetricType;
  desc: string;
}

export interface StatsTree {
  [name: string]: StatsTree | StatEntry;
}

export class ServerStats {
  readonly #counters = new Map<string, number>();
  readonly #histograms = new Map<string, Histogram>();
  readonly methods = new Map<string, number>();
  readonly statuses = new Map<number, number>();

  increment(name: CounterName, by = 1): void {
    this.#counters.set(name, (this.#counters.get(name) ?? 0) + by);
  }

  decrement(name: CounterName): void {
    this.#counters.set(name, (this.#counters.get(name) ?? 0) - 1);
  }

  observe(name: HistogramName, ms: number): void {
    let histogram = this.#histograms.get(name);
    if (histogram === undefined) this.#histograms.set(name, (histogram = new Histogram()));
    histogram.observe(ms);
  }

  /** Counts what the sandboxes report (sandbox/meter.ts) as CouchDB's `couchdb.query_server.*`. */
  readonly queryServerMeter: QueryServerMeter = (event) => {
    switch (event.kind) {
      case 'call':
        this.increment(`couchdb.query_server.calls.${event.call}`);
        this.increment(`couchdb.query_server.time.${event.call}`, event.micros);
        return;
      case 'js_filter':
        this.increment('couchdb.query_server.js_filter');
        this.increment('couchdb.query_server.js_filterered', event.docs);
        if (event.failed) this.increment('couchdb.query_server.js_filter_error');
        return;
      case 'acquired':
        return this.increment('couchdb.query_server.acquired_processes');
      case 'start':
        return this.increment('couchdb.query_server.process_starts');
      case 'exit':
        return this.increment('couchdb.query_server.process_exits');
      case 'error_exit':
        return this.increment('couchdb.query_server.process_error_exits');
      case 'error':
        return this.increment('couchdb.query_server.process_errors');
      case 'prompt':
        return this.increment('couchdb.query_server.process_prompts');
    }
  };

  /** One answered request (the request log's moment). */
  record(method: string, status: number, ms: number): void {
    this.increment('couchdb.httpd.requests');
    this.methods.set(method, (this.methods.get(method) ?? 0) + 1);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.observe('couchdb.request_time', ms);
  }

  /**
   * Every statistic as CouchDB's `_stats` nests it; `live` gives the values read at the moment
   * (open databases, the authentication caches).
   */
  tree(live: Partial<Record<LiveName, number>> = {}): StatsTree {
    const root: StatsTree = {};
    const put = (path: string[], entry: StatEntry) => {
      let node = root;
      for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as StatsTree;
      node[path[path.length - 1]!] = entry;
    };
    for (const [name, { type, desc }] of Object.entries(METRICS) as [MetricName, MetricDescription][]) {
      const value =
        type === 'histogram'
          ? (this.#histograms.get(name) ?? new Histogram()).value()
          : ((live as Record<string, number>)[name] ?? this.#counters.get(name) ?? 0);
      put(name.split('.'), { value, type, desc });
    }
    for (const method of [...new Set([...COUCH_METHODS, ...this.methods.keys()])].sort()) {
      put(['couchdb', 'httpd_request_methods', method], {
        value: this.methods.get(method) ?? 0,
        type: 'counter',
        desc: `number of HTTP ${method} requests`,
      });
    }
    const statuses = new Set([...Object.keys(COUCH_STATUSES).map(Number), ...this.statuses.keys()]);
    for (const status of [...statuses].sort((a, b) => a - b)) {
      put(['couchdb', 'httpd_status_codes', String(status)], {
        value: this.statuses.get(status) ?? 0,
        type: 'counter',
        desc: COUCH_STATUSES[status] ?? `number of HTTP ${status} responses`,
      });
    }
    return root;
  }
}

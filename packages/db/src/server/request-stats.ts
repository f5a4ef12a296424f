/**
 * Request counters for `/_node/{node}/_stats`: the figures CouchDB's `couchdb` group has that
 * this server knows (requests, by method, by status, request time). Kept since the start.
 */
export interface TimeSummary {
  n: number;
  min: number;
  max: number;
  arithmetic_mean: number;
}

export class RequestStats {
  requests = 0;
  readonly methods = new Map<string, number>();
  readonly statuses = new Map<number, number>();
  #timeN = 0;
  #timeSum = 0;
  #timeMin = Number.POSITIVE_INFINITY;
  #timeMax = 0;

  record(method: string, status: number, ms: number): void {
    this.requests++;
    this.methods.set(method, (this.methods.get(method) ?? 0) + 1);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.#timeN++;
    this.#timeSum += ms;
    if (ms < this.#timeMin) this.#timeMin = ms;
    if (ms > this.#timeMax) this.#timeMax = ms;
  }

  /** Request times in milliseconds, as CouchDB's `request_time` histogram names them. */
  time(): TimeSummary {
    const n = this.#timeN;
    return {
      n,
      min: n === 0 ? 0 : this.#timeMin,
      max: this.#timeMax,
      arithmetic_mean: n === 0 ? 0 : this.#timeSum / n,
    };
  }
}

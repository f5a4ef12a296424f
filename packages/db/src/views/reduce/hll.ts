import { createHash } from 'node:crypto';
import { encodeTerm } from '../../json/term.js';
import { fromPlain } from '../../json/plain.js';

/**
 * `_approx_count_distinct`: CouchDB's HyperLogLog (couch_hyper → the `hyper` library,
 * precision 11, hyper_binary registers). Each key is hashed like CouchDB does —
 * SHA-1 of `term_to_binary(Key, [{minor_version, 1}])` — the first 11 bits pick the register,
 * the run of zeros in the next 11 bits (+1) is its candidate value. So the registers, and the
 * estimate in the linear-counting range (below hyper's threshold of 1800 for p = 11, where it
 * is the exact count barring register collisions), are the ones CouchDB computes. Above it
 * hyper subtracts an empirical bias (HLL++ tables) for raw estimates ≤ 5·m; that correction is
 * not reproduced, so between ~1800 and ~10k distinct keys the estimate can differ by a few %.
 */
export const HLL_PRECISION = 11;
const M = 1 << HLL_PRECISION;
const THRESHOLD = 1800;

/** The stored form of a filter: registers, sparse ([index, value] pairs) or dense (base64). */
export interface HllState {
  hll: number;
  sparse?: Array<[number, number]>;
  dense?: string;
}

export function isHllState(value: unknown): value is HllState {
  return typeof value === 'object' && value !== null && (value as HllState).hll === HLL_PRECISION;
}

export class Hll {
  readonly registers = new Uint8Array(M);

  static from(state: HllState): Hll {
    const h = new Hll();
    if (state.dense !== undefined) h.registers.set(Buffer.from(state.dense, 'base64').subarray(0, M));
    else for (const [i, v] of state.sparse ?? []) h.registers[i] = v;
    return h;
  }

  insertKey(key: unknown): void {
    const body = encodeTerm(fromPlain(key));
    const hash = createHash('sha1').update(VERSION).update(body).digest();
    // <<Index:11, RegisterValue:11/bitstring, _/bitstring>>
    const bits = (hash[0]! << 16) | (hash[1]! << 8) | hash[2]!; // first 24 bits
    const index = bits >>> 13;
    const rest = (bits >>> 2) & 0x7ff; // the next 11 bits
    let zeros = 0;
    for (let b = 10; b >= 0 && (rest & (1 << b)) === 0; b--) zeros++;
    const value = zeros + 1;
    if (value > this.registers[index]!) this.registers[index] = value;
  }

  merge(other: Hll): void {
    for (let i = 0; i < M; i++) if (other.registers[i]! > this.registers[i]!) this.registers[i] = other.registers[i]!;
  }

  /** hyper:card/1 (without the HLL++ bias correction). */
  cardinality(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < M; i++) {
      const r = this.registers[i]!;
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / M);
    const e = (alpha * M * M) / sum;
    const h = zeros === 0 ? e : M * Math.log(M / zeros);
    return h <= THRESHOLD ? h : e;
  }

  toState(): HllState {
    const sparse: Array<[number, number]> = [];
    for (let i = 0; i < M; i++) if (this.registers[i] !== 0) sparse.push([i, this.registers[i]!]);
    if (sparse.length <= 256) return { hll: HLL_PRECISION, sparse };
    return { hll: HLL_PRECISION, dense: Buffer.from(this.registers).toString('base64') };
  }
}

const VERSION = Buffer.from([131]);

/**
 * Query-string values with CouchDB's parsing and its error reasons (couch_mrview_http): booleans
 * are `true`/`false` in any case, integers decimal, JSON-valued params JSON text.
 */
import { CouchError, invalidJson, tooDeep } from '../errors.js';
import { MAX_DEPTH, nestingDepth } from '../json/index.js';

const qpe = (reason: string): CouchError => new CouchError('query_parse_error', reason);

/** Erlang's `~p` of a string: in double quotes, the empty string printed as `[]`. */
const erlangString = (raw: string): string => (raw === '' ? '[]' : JSON.stringify(raw));

export function parseBool(raw: string): boolean {
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw qpe(`Invalid boolean parameter: ${erlangString(raw)}`);
}

export function parseInteger(raw: string): number {
  if (!/^-?\d+$/.test(raw)) throw qpe(`Invalid value for integer: ${erlangString(raw)}`);
  return Number(raw);
}

export function parsePositiveInteger(raw: string): number {
  const value = parseInteger(raw);
  if (value < 0) throw qpe(`Invalid value for positive integer: ${erlangString(raw)}`);
  return value;
}

export function parseJsonParam(raw: string): unknown {
  if (nestingDepth(raw) > MAX_DEPTH) throw tooDeep();
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidJson();
  }
}

/** A boolean from a document GET: anything but `true` is false (CouchDB does not complain there). */
export function looseBool(query: URLSearchParams, name: string): boolean {
  return query.get(name) === 'true';
}

/** A boolean query param, strictly parsed; `fallback` when absent. */
export function boolParam(query: URLSearchParams, name: string, fallback = false): boolean {
  const raw = query.get(name);
  return raw === null ? fallback : parseBool(raw);
}

/**
 * JSON as CouchDB keeps it: exact integers of any size, `1.0` distinct from `1`, member order
 * kept, duplicate keys collapsed (last value, at the last occurrence's position, as CouchDB's
 * jiffy `dedupe_keys` does). `parseJson` / `stringifyJson` convert text, `toPlain` /
 * `fromPlain` convert JS values, `encodeTerm` / `TermWriter` give the Erlang term bytes that
 * rev ids hash.
 */
export { type JsonValue, JsonNumber, JsonObject, isFloat } from './value.js';
export {
  parseJson,
  parseJsonIsolatingDeep,
  parseJsonMembers,
  JsonSyntaxError,
  JsonTooDeepError,
  MAX_DEPTH,
  nestingDepth,
} from './parse.js';
export { stringifyJson, stringifyNumber } from './stringify.js';
export { toPlain, fromPlain } from './plain.js';
export { encodeTerm, TermWriter } from './term.js';
export { jsonStringEnd, jsonValueEnd, skipJsonSpace } from './value-extent.js';

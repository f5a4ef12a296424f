/**
 * The program every sandbox evaluates once: CouchDB's query-server environment for map and
 * reduce functions (share/server/views.js, util.js, dispatch-quickjs.js), rewritten for batch
 * calls. It is engine-neutral plain JavaScript: an engine evaluates it, takes the function it
 * returns (`dispatch(method, inputJson) → outputJson`) and keeps only that; the global name it
 * used is deleted so user code cannot swap it.
 *
 * Globals user code sees: emit, log, sum, isArray, toJSON, require (map functions only; CommonJS
 * from the design doc's `views.lib`), plus the engine's plain ECMAScript built-ins. No getRow,
 * send, start, provides or registerType (those belong to list/show functions).
 *
 * Methods (all take and return JSON text):
 * - init {maps: [src…], reduces: [src…], lib: views.lib|null, reduceLimit, threshold, ratio}
 *   → {ok: true} | {compile: [kind, index, message]}
 * - map [doc, doc, …] → {r: [[rows of view 0, rows of view 1, …] per doc], e: [[doc, view, msg]], l: [log lines]}
 *   or {fatal: [error, reason]} (a `throw 'fatal_error'` or a `['fatal', …]` throw aborts the batch, as in CouchDB).
 * - reduce {f: [fn indexes], g: [[kvs, …] per group]} → {r: [[red per fn] | {overflow: msg} per group], l}
 * - rereduce {f: fn index, g: [[values] per group]} → {r: [[red] | {overflow: msg} per group], l}
 * - filter {docs: [doc…], req} → {r: [passes…], l} | {error: [message, doc id]}: a `_changes` filter
 *   function (init with {filter: src, ddoc}) called as `filter.call(ddoc, doc, req)` for each doc
 *   (share/server/filter.js); `require` then resolves from the design document itself.
 */
import { SHARED_RUNTIME } from './shared-runtime.js';
import { sourceCandidates } from './source-candidates.js';

export const SANDBOX_RUNTIME = String.raw`
(function () {
  'use strict';
  var global = (0, eval)('this');
  var indirectEval = eval;
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var freeze = Object.freeze;
  var isFrozen = Object.isFrozen;
  var objectToString = Object.prototype.toString;
  var hasOwn = Object.prototype.hasOwnProperty;

  var mapFuns = [];
  var reduceFuns = [];
  var config = { reduceLimit: true, threshold: 4096, ratio: 2 };
  var lib = null;
  var moduleCache = {};
  var rows = [];
  var logs = [];
  var filterFun = null;
  var filterDdoc = null;

${SHARED_RUNTIME}

  // --- the environment (CouchDB's sandbox object) ---------------------------------------
  function emit(key, value) { rows.push([key, value]); }
  function requireFrom(name, module) {
    if (lib === null && filterDdoc === null) throw ['error', 'invalid_require_path', 'Object has no property "' + String(name).split('/')[0] + '". {}'];
    var root = filterDdoc !== null ? filterDdoc : { views: { lib: lib } };
    return requireModule(name, module, root);
  }
  function require(name) { return requireFrom(name); }

  global.emit = emit;
  global.log = log;
  global.sum = sum;
  global.isArray = isArray;
  global.toJSON = stringify;
  global.require = require;

  function compile(source) {
    // As an expression; then without a trailing ";" or comment (./source-candidates.ts).
    var attempts = sourceCandidates(String(source)).map(function (text) { return '(' + text + '\n)'; });
    var fn, firstError = null;
    for (var i = 0; i < attempts.length; i++) {
      try { fn = indirectEval(attempts[i]); firstError = null; break; } catch (e) { if (firstError === null) firstError = e; }
    }
    if (firstError !== null) {
      try { fn = indirectEval(source); firstError = null; } catch (e) { /* keep the first error */ }
    }
    if (firstError !== null) throw describe(firstError) + ' (' + source + ')';
    if (typeof fn !== 'function') throw 'Expression does not eval to a function. (' + source + ')';
    return fn;
  }

  var sourceCandidates = ${sourceCandidates.toString()};

  function deepFreeze(value) {
    if (value === null || typeof value !== 'object' || isFrozen(value)) return;
    freeze(value);
    for (var k in value) {
      var v = value[k];
      if (v !== null && typeof v === 'object') deepFreeze(v);
    }
  }

  function init(input) {
    config.reduceLimit = input.reduceLimit;
    config.threshold = input.threshold;
    config.ratio = input.ratio;
    lib = input.lib === undefined ? null : input.lib;
    var i;
    for (i = 0; i < input.maps.length; i++) {
      try { mapFuns.push(compile(input.maps[i])); } catch (e) { return { compile: ['map', i, String(e)] }; }
    }
    for (i = 0; i < input.reduces.length; i++) {
      try { reduceFuns.push(compile(input.reduces[i])); } catch (e) { return { compile: ['reduce', i, String(e)] }; }
    }
    if (typeof input.filter === 'string') {
      filterDdoc = input.ddoc;
      try { filterFun = compile(input.filter); } catch (e) { return { compile: ['filter', 0, String(e)] }; }
    }
    return { ok: true };
  }

  // filter.js: the result counts when truthy; any throw fails the whole call.
  function filterBatch(input) {
    var docs = input.docs, req = input.req;
    var results = new Array(docs.length);
    for (var d = 0; d < docs.length; d++) {
      try {
        results[d] = filterFun.call(filterDdoc, docs[d], req) ? true : false;
      } catch (err) {
        var id = docs[d] !== null && typeof docs[d] === 'object' ? docs[d]._id : undefined;
        return '{"error":' + stringify([describe(err), id === undefined ? null : String(id)]) + ',"l":' + stringify(logs) + '}';
      }
    }
    return '{"r":' + stringify(results) + ',"l":' + stringify(logs) + '}';
  }

  function fatalOf(err) {
    if (err === 'fatal_error') return ['map_runtime_error', 'function raised \'fatal_error\''];
    if (isArray(err) && err[0] === 'fatal') return [String(err[1]), String(err[2])];
    return null;
  }

  function mapBatch(docs) {
    var out = new Array(docs.length);
    var errors = [];
    for (var d = 0; d < docs.length; d++) {
      var doc = docs[d];
      deepFreeze(doc);
      var parts = new Array(mapFuns.length);
      for (var f = 0; f < mapFuns.length; f++) {
        rows = [];
        try {
          mapFuns[f](doc);
          parts[f] = stringify(rows);
        } catch (err) {
          var fatal = fatalOf(err);
          if (fatal !== null) return '{"fatal":' + stringify(fatal) + ',"l":' + stringify(logs) + '}';
          var id = doc !== null && typeof doc === 'object' ? doc._id : undefined;
          errors.push([d, f, 'function raised exception ' + describe(err) + ' with doc._id ' + id]);
          parts[f] = '[]';
        }
      }
      out[d] = '[' + parts.join(',') + ']';
    }
    rows = [];
    return '{"r":[' + out.join(',') + '],"e":' + stringify(errors) + ',"l":' + stringify(logs) + '}';
  }

  // views.js runReduce: a throwing function gives null; the output as a whole is checked
  // against reduce_limit (longer than the threshold and more than input / ratio).
  function runReduce(funs, keys, values, rereduce) {
    var reductions = new Array(funs.length);
    for (var i = 0; i < funs.length; i++) {
      try {
        reductions[i] = funs[i](keys, values, rereduce);
      } catch (err) {
        var fatal = fatalOf(err);
        if (fatal !== null) throw { fatal: fatal };
        logs.push('function raised exception ' + describe(err));
        reductions[i] = null;
      }
    }
    var line = stringify(reductions);
    if (line === undefined) line = 'null';
    if (config.reduceLimit && line.length > config.threshold) {
      var inputLength = stringify([keys, values]).length;
      if (line.length * config.ratio > inputLength) {
        var message = 'Reduce output must shrink more rapidly: input size: ' + inputLength + ' output size: ' + line.length;
        if (config.reduceLimit === 'log') logs.push('reduce_overflow_error: ' + message);
        else return '{"overflow":' + stringify(message) + '}';
      }
    }
    return line;
  }

  function reduceBatch(input) {
    var funs = [];
    for (var i = 0; i < input.f.length; i++) funs.push(reduceFuns[input.f[i]]);
    var out = new Array(input.g.length);
    for (var g = 0; g < input.g.length; g++) {
      var kvs = input.g[g];
      var keys = new Array(kvs.length), values = new Array(kvs.length);
      for (var k = 0; k < kvs.length; k++) { keys[k] = kvs[k][0]; values[k] = kvs[k][1]; }
      out[g] = runReduce(funs, keys, values, false);
    }
    return out;
  }

  function rereduceBatch(input) {
    var funs = [reduceFuns[input.f]];
    var out = new Array(input.g.length);
    for (var g = 0; g < input.g.length; g++) {
      out[g] = runReduce(funs, null, input.g[g], true);
    }
    return out;
  }

  return function dispatch(method, inputJson) {
    logs = [];
    var input = parse(inputJson);
    try {
      switch (method) {
        case 'init': return stringify(init(input));
        case 'map': return mapBatch(input);
        case 'reduce': return '{"r":[' + reduceBatch(input).join(',') + '],"l":' + stringify(logs) + '}';
        case 'filter': return filterBatch(input);
        case 'rereduce': return '{"r":[' + rereduceBatch(input).join(',') + '],"l":' + stringify(logs) + '}';
        default: throw new Error('unknown sandbox method ' + method);
      }
    } catch (e) {
      if (e !== null && typeof e === 'object' && e.fatal) return '{"fatal":' + stringify(e.fatal) + ',"l":' + stringify(logs) + '}';
      throw e;
    }
  };
})()
`;

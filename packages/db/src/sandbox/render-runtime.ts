/**
 * The program a design-function sandbox evaluates once: CouchDB's environment for show, list,
 * update and rewrite functions (share/server/render.js, mimeparse.js, util.js), as couchjs runs
 * them. Plain JavaScript; only JSON text crosses the boundary, and one host function: `host`,
 * called with `applySyncPromise` by `getRow()` to hand over the chunks sent so far (and the
 * response head, the first time) and to wait for the next view row, so a list streams.
 *
 * Globals user code sees: log, sum, isArray, toJSON, require (CommonJS from the design document),
 * start, send, getRow, provides, registerType, plus the engine's plain ECMAScript built-ins.
 *
 * `dispatch(method, inputJson) → outputJson`, methods:
 * - init: the design document (`this` of every function);
 * - show {name, doc, req} → {resp} ; update {name, doc, req} → {up: [doc JSON text | null, resp]};
 * - list {name, head, req} → {end: [chunks]} (getRow having sent `start` before);
 * - rewrite {req} → {rewrite: result} | {none: true};
 * every one may answer {error: [name, reason]} instead, and always {l: [log lines]}.
 */
import { SHARED_RUNTIME } from './shared-runtime.js';
import { sourceCandidates } from './source-candidates.js';

export const RENDER_RUNTIME = String.raw`
(function (host) {
  'use strict';
  var global = (0, eval)('this');
  var indirectEval = eval;
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var objectToString = Object.prototype.toString;
  var hasOwn = Object.prototype.hasOwnProperty;

  var ddoc = null;
  var logs = [];
  var compiled = {};
  var moduleCache = {};

${SHARED_RUNTIME}
  function requireFrom(name, module) {
    return requireModule(name, module, ddoc);
  }

  // --- mimeparse.js --------------------------------------------------------------------
  function parseMimeType(mimeType) {
    var fullType, typeParts, params = {}, parts = String(mimeType).split(';');
    for (var i = 0; i < parts.length; i++) {
      var p = parts[i].split('=');
      if (p.length === 2) params[p[0].trim()] = p[1].trim();
    }
    fullType = parts[0].trim();
    if (fullType === '*') fullType = '*/*';
    typeParts = fullType.split('/');
    return [typeParts[0], typeParts[1], params];
  }
  function parseMediaRange(range) {
    var parsed = parseMimeType(range);
    var q = parsed[2].q;
    if (!q || !parseFloat(q) || parseFloat(q) > 1 || parseFloat(q) < 0) parsed[2].q = '1';
    return parsed;
  }
  function fitnessAndQuality(mimeType, ranges) {
    var bestFitness = -1, bestFitQ = 0, target = parseMediaRange(mimeType);
    for (var i = 0; i < ranges.length; i++) {
      var parsed = ranges[i];
      if ((target[0] === parsed[0] || target[0] === '*' || parsed[0] === '*') &&
          (target[1] === parsed[1] || target[1] === '*' || parsed[1] === '*')) {
        var matchCount = 0;
        for (var param in target[2]) {
          if (param !== 'q' && parsed[2][param] && parsed[2][param] === target[2][param]) matchCount += 1;
        }
        var fitness = (target[0] === parsed[0] ? 100 : 0) + (target[1] === parsed[1] ? 10 : 0) + matchCount;
        if (fitness > bestFitness) { bestFitness = fitness; bestFitQ = parsed[2].q; }
      }
    }
    return [bestFitness, parseFloat(bestFitQ)];
  }
  function bestMatch(supported, header) {
    var ranges = String(header).split(',').map(parseMediaRange);
    var best = null;
    for (var i = 0; i < supported.length; i++) {
      var fq = fitnessAndQuality(supported[i], ranges);
      // Ties go to the later entry, as mimeparse's sort leaves them.
      if (best === null || fq[0] > best[0] || (fq[0] === best[0] && fq[1] >= best[1])) best = [fq[0], fq[1], supported[i]];
    }
    return best !== null && best[1] ? best[2] : '';
  }

  // --- render.js: Mime ---------------------------------------------------------------------
  var mimesByKey = {}, keysByMime = {};
  function registerType() {
    var key = arguments[0], mimes = [];
    for (var i = 1; i < arguments.length; i++) mimes.push(arguments[i]);
    mimesByKey[key] = mimes;
    for (var j = 0; j < mimes.length; j++) keysByMime[mimes[j]] = key;
  }
  registerType('all', '*/*');
  registerType('text', 'text/plain; charset=utf-8', 'txt');
  registerType('html', 'text/html; charset=utf-8');
  registerType('xhtml', 'application/xhtml+xml', 'xhtml');
  registerType('xml', 'application/xml', 'text/xml', 'application/x-xml');
  registerType('js', 'text/javascript', 'application/javascript', 'application/x-javascript');
  registerType('css', 'text/css');
  registerType('ics', 'text/calendar');
  registerType('csv', 'text/csv');
  registerType('rss', 'application/rss+xml');
  registerType('atom', 'application/atom+xml');
  registerType('yaml', 'application/x-yaml', 'text/yaml');
  registerType('multipart_form', 'multipart/form-data');
  registerType('url_encoded_form', 'application/x-www-form-urlencoded');
  registerType('json', 'application/json', 'text/x-json');

  var providesUsed = false, mimeFuns = [], responseContentType = null;
  function provides(type, fun) { providesUsed = true; mimeFuns.push([type, fun]); }
  function resetProvides() { providesUsed = false; mimeFuns = []; responseContentType = null; }
  function acceptOf(req) {
    // HTTP header names are case-insensitive (couchjs reads "Accept" as mochiweb spells it).
    var headers = req && req.headers || {};
    for (var name in headers) if (String(name).toLowerCase() === 'accept') return headers[name];
    return undefined;
  }
  function runProvides(req) {
    var supportedMimes = [], bestFun, bestKey = null, accept = acceptOf(req);
    if (req.query && req.query.format) {
      bestKey = req.query.format;
      responseContentType = (mimesByKey[bestKey] || [])[0] || null;
    } else if (accept) {
      mimeFuns.slice().reverse().forEach(function (mimeFun) {
        if (mimesByKey[mimeFun[0]]) supportedMimes = supportedMimes.concat(mimesByKey[mimeFun[0]]);
      });
      responseContentType = bestMatch(supportedMimes, accept);
      bestKey = keysByMime[responseContentType];
    } else {
      bestKey = mimeFuns[0][0];
      responseContentType = mimesByKey[bestKey] ? mimesByKey[bestKey][0] : null;
    }
    if (bestKey) {
      for (var i = 0; i < mimeFuns.length; i++) {
        if (mimeFuns[i][0] === bestKey) { bestFun = mimeFuns[i][1]; break; }
      }
    }
    if (bestFun) return bestFun.call(ddoc);
    var supportedTypes = mimeFuns.map(function (mf) { return (mimesByKey[mf[0]] || []).join(', ') || mf[0]; });
    throw ['error', 'not_acceptable', 'Content-Type ' + (accept || bestKey) + ' not supported, try one of: ' + supportedTypes.join(', ')];
  }

  // --- render.js: Render ---------------------------------------------------------------------
  var chunks = [], startResp = {}, gotRow = false, lastRow = false;
  function resetList() { gotRow = false; lastRow = false; chunks = []; startResp = {}; }
  function start(resp) { startResp = resp || {}; }
  function send(chunk) { chunks.push(String(chunk)); }
  function applyContentType(resp, type) {
    resp.headers = resp.headers || {};
    if (type) resp.headers['Content-Type'] = resp.headers['Content-Type'] || type;
    return resp;
  }
  function getRow() {
    if (lastRow) return null;
    var message = { chunks: chunks };
    if (!gotRow) {
      gotRow = true;
      message.start = applyContentType(startResp || {}, responseContentType);
    }
    chunks = [];
    startResp = {};
    var row = host.applySyncPromise(undefined, [stringify(message)]);
    if (row === null || row === undefined) { lastRow = true; return null; }
    return parse(row);
  }
  function maybeWrapResponse(resp) { return typeof resp === 'string' ? { body: resp } : resp; }
  function typeOf(value) {
    var s = typeof value;
    if (s === 'object') {
      if (!value) return 'null';
      if (value instanceof Array) return 'array';
    }
    return s;
  }
  function renderError(e) {
    if ((e && e.error && e.reason) || (isArray(e) && (e[0] === 'error' || e[0] === 'fatal'))) throw e;
    var message = 'function raised error: ' + String(e) + ' \nstacktrace: ' + (e && e.stack);
    log(message);
    throw ['error', 'render_error', message];
  }

  function runShow(fun, doc, req) {
    try {
      resetList();
      resetProvides();
      var resp = fun.call(ddoc, doc, req) || {};
      resp = maybeWrapResponse(resp);
      if (chunks.length > 0) {
        // What start() gave: its headers join the response's (render.js copies start's members
        // into the headers, which CouchDB then fails to send).
        resp.headers = resp.headers || {};
        var startHeaders = startResp.headers || {};
        for (var header in startHeaders) resp.headers[header] = startHeaders[header];
        if (startResp.code !== undefined && resp.code === undefined) resp.code = startResp.code;
        resp.body = chunks.join('') + (resp.body || '');
        resetList();
      }
      if (providesUsed) {
        var provided = maybeWrapResponse(runProvides(req) || {});
        resp.body = (resp.body || '') + chunks.join('');
        resp.body += provided.body || '';
        resp = applyContentType(resp, responseContentType);
        resetList();
      }
      var type = typeOf(resp);
      if (type !== 'object' && type !== 'string') throw ['error', 'render_error', 'undefined response from show function'];
      return { resp: maybeWrapResponse(resp) };
    } catch (e) {
      // A document the path names but that does not exist, and a function that cannot cope.
      if (doc === null && req.path.length > 5) throw ['error', 'not_found', 'document not found'];
      renderError(e);
    }
  }

  function runUpdate(fun, doc, req) {
    try {
      if (req.method === 'GET') throw ['error', 'method_not_allowed', 'Update functions do not allow GET'];
      var result = fun.call(ddoc, doc, req);
      var resp = result[1];
      var type = typeOf(resp);
      if (type !== 'object' && type !== 'string') throw ['error', 'render_error', 'undefined response from update function'];
      // Only an object is a document to save (couch_mrview_show: {NewJsonDoc}); its JSON text goes out.
      var doc = result[0];
      var saved = doc !== null && typeof doc === 'object' && !isArray(doc) ? stringify(doc) : null;
      return { up: [saved, maybeWrapResponse(resp)] };
    } catch (e) {
      renderError(e);
    }
  }

  function runList(fun, head, req) {
    try {
      resetProvides();
      resetList();
      var tail = fun.call(ddoc, head, req);
      if (providesUsed) tail = runProvides(req);
      if (!gotRow) getRow();
      if (typeof tail !== 'undefined') chunks.push(String(tail));
      var end = chunks;
      resetList();
      return { end: end };
    } catch (e) {
      renderError(e);
    }
  }

  function runRewrite(fun, req) {
    var result = fun.call(ddoc, req);
    if (!result) return { none: true };
    if (typeof result === 'string') result = { path: result, method: req.method };
    return { rewrite: result };
  }

  var sourceCandidates = ${sourceCandidates.toString()};
  function compileSource(source) {
    var attempts = sourceCandidates(String(source)).map(function (text) { return '(' + text + '\n)'; });
    var fn, firstError = null;
    for (var i = 0; i < attempts.length; i++) {
      try { fn = indirectEval(attempts[i]); firstError = null; break; } catch (e) { if (firstError === null) firstError = e; }
    }
    if (firstError !== null) throw ['error', 'compilation_error', describe(firstError) + ' (' + source + ')'];
    if (typeof fn !== 'function') throw ['error', 'compilation_error', 'Expression does not eval to a function. (' + source + ')'];
    return fn;
  }
  function functionAt(section, name) {
    var key = section + '/' + name;
    if (!hasOwn.call(compiled, key)) {
      var holder = section === 'rewrites' ? ddoc : ddoc[section];
      var source = section === 'rewrites' ? ddoc.rewrites : holder && holder[name];
      compiled[key] = compileSource(source);
    }
    return compiled[key];
  }

  global.log = log;
  global.sum = sum;
  global.isArray = isArray;
  global.toJSON = stringify;
  global.require = function (name) { return requireFrom(name); };
  global.start = start;
  global.send = send;
  global.getRow = getRow;
  global.provides = provides;
  global.registerType = registerType;

  function errorOf(e) {
    if (e === 'fatal_error') return ['render_error', "function raised 'fatal_error'"];
    if (isArray(e) && (e[0] === 'error' || e[0] === 'fatal')) return [String(e[1]), typeof e[2] === 'string' ? e[2] : stringify(e[2])];
    if (e && (e.forbidden !== undefined || e.unauthorized !== undefined)) {
      var kind = e.forbidden !== undefined ? 'forbidden' : 'unauthorized';
      return [kind, typeof e[kind] === 'string' ? e[kind] : stringify(e[kind])];
    }
    if (e && e.error && e.reason) return [String(e.error), typeof e.reason === 'string' ? e.reason : stringify(e.reason)];
    if (e && e.name) return [String(e.name), String(e.message)];
    return ['unnamed_error', describe(e)];
  }

  return function dispatch(method, inputJson) {
    logs = [];
    var input = parse(inputJson), out;
    try {
      switch (method) {
        case 'init': ddoc = input; out = { ok: true }; break;
        case 'show': out = runShow(functionAt('shows', input.name), input.doc, input.req); break;
        case 'update': out = runUpdate(functionAt('updates', input.name), input.doc, input.req); break;
        case 'list': out = runList(functionAt('lists', input.name), input.head, input.req); break;
        case 'rewrite': out = runRewrite(functionAt('rewrites', ''), input.req); break;
        default: throw new Error('unknown sandbox method ' + method);
      }
    } catch (e) {
      out = { error: errorOf(e) };
    }
    out.l = logs;
    try {
      return stringify(out);
    } catch (e) {
      return stringify({ error: ['render_error', 'the function answered something that is not JSON: ' + describe(e)], l: logs });
    }
  };
})
`;
